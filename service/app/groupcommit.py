"""Group commit: the pending events of many games written in one transaction.

The PostgreSQL recorder serialises commits to an events table (``LOCK TABLE … IN EXCLUSIVE
MODE`` and a ``NOTIFY`` in every insert transaction), so one transaction per command caps the
whole service at the rate of serial commits. Commands on different games are independent, so
a single writer thread drains the queue of saves and writes everything pending in one
transaction: one lock, one notify, one flush for many commands. If a batch fails with a
conflict, its games are saved one by one, so only the game that lost its race gets the error.
Each caller holds its game's lock while it waits, so a game is never twice in one batch.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

from eventsourcing.persistence import IntegrityError

Saver = Callable[..., Any]


class _Done:
    """What a blocking ``save`` waits on: a held lock that the writer releases. The writer
    thread is the serial part of every command, and a ``Future``'s condition variable costs it
    about twice as much per game as releasing one lock."""

    __slots__ = ("_error", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()
        self._error: BaseException | None = None

    def set_result(self, _result: None) -> None:
        self._lock.release()

    def set_exception(self, error: BaseException) -> None:
        self._error = error
        self._lock.release()

    def result(self) -> None:
        self._lock.acquire()
        if self._error is not None:
            raise self._error


Done = Future[None] | _Done


class GroupCommitter:
    def __init__(self, save: Saver, max_batch: int = 128) -> None:
        self._save = save
        self.max_batch = max_batch
        self._queue: queue.SimpleQueue[tuple[Sequence[Any], Done] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="group-commit", daemon=True)
        self._thread.start()
        self.batches = 0
        self.saved = 0

    def save(self, events: Sequence[Any]) -> None:
        """Write ``events`` (one game's pending events); block until written or failed."""
        done = _Done()
        self._queue.put((events, done))
        done.result()

    def submit(self, events: Sequence[Any]) -> Future[None]:
        """Queue ``events`` (one game's pending events) for the next batch; the future is done
        when they are written, or failed. The caller keeps its game's lock until then."""
        done: Future[None] = Future()
        self._queue.put((events, done))
        return done

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < self.max_batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._write(batch)
                    return
                batch.append(more)
            self._write(batch)

    def _write(self, batch: list[tuple[Sequence[Any], Done]]) -> None:
        self.batches += 1
        self.saved += len(batch)
        try:
            self._save(*(event for events, _ in batch for event in events))
        except IntegrityError as exc:
            if len(batch) == 1:
                batch[0][1].set_exception(exc)
                return
            for events, done in batch:  # isolate the game(s) that lost a race
                try:
                    self._save(*events)
                except BaseException as single:
                    done.set_exception(single)
                else:
                    done.set_result(None)
            return
        except BaseException as exc:
            for _, done in batch:
                done.set_exception(exc)
            return
        for _, done in batch:
            done.set_result(None)
