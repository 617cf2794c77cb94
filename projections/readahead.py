"""Reading a log's next batch while the current one is applied.

A rebuild or a long catch-up alternates two waits: reading a batch of the log (the database
works, the runner waits) and applying it (the runner works, then waits for its transaction).
``ReadAhead`` starts the next read in a background thread as soon as a full batch arrives, so
the database reads batch N+1 while the runner applies batch N. The log is append-only and
read in id order, so a read made a little earlier is as valid as one made now: it can only
find fewer of the newest events, and the next read finds them.

A read that failed in the background (after the store's own retries) is raised where the
runner takes it, as if the runner had made it then: it is the very read the runner would make,
so making it again would only repeat the retries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

Key = tuple[int, int, int]
"""(shard, first notification id, limit): one read of one log."""


class ReadAhead:
    """At most one read ahead per shard, in one background thread (made on first use)."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._pending: dict[int, tuple[Key, Future[Sequence[Any]]]] = {}
        self.used = 0
        """Reads served from the background (for tests)."""

    def take(self, key: Key) -> Sequence[Any] | None:
        """The read started for ``key``, once done (its error raised, if it failed); ``None``
        if no read of ``key`` was started."""
        pending = self._pending.pop(key[0], None)
        if pending is None:
            return None
        started, future = pending
        if started != key:
            future.cancel()
            return None
        notifications = future.result()
        self.used += 1
        return notifications

    def start(self, key: Key, read: Callable[[int, int], Sequence[Any]]) -> None:
        """Begin ``read(first, limit)`` for ``key`` in the background (replacing an unused
        read of the same shard)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="read-ahead")
        shard, first, limit = key
        old = self._pending.pop(shard, None)
        if old is not None:
            old[1].cancel()
        self._pending[shard] = (key, self._pool.submit(read, first, limit))

    def close(self) -> None:
        """Drop unused reads and stop the thread (waiting for a read under way)."""
        for _, future in self._pending.values():
            future.cancel()
        self._pending.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
