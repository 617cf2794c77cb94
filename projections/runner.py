"""Running projections exactly once, on SQLite and PostgreSQL alike.

A projection reads the application's notification log in order. Each batch of events is
processed in memory, then the view changes and the new tracking position are written in one
transaction, with a compare-and-set on the position: a batch is applied exactly once even if two
runners race (the loser's transaction rolls back). Every such transaction first takes the
projection's lock (``Database.lock``: a PostgreSQL advisory lock keyed by the projection's name),
then the tracking row, then the view's tables: one order everywhere, so a runner and a rebuild
wait for each other instead of deadlocking.

A batch that cannot be applied is retried event by event, so that the runner stops exactly
before the event it cannot apply and says which one (``ProjectionFailed``); it never skips it.
A rebuild projects the whole log into shadow tables and swaps them in (``projections.shadow``).

A sharded store (``service.app.shards``) has one log per shard: a runner reads them all, with
one tracking row per shard (``shard_tracking``: ``games`` for shard 0, ``games@1`` …) and takes
batches from the shards in turn. Every batch takes the projection's one lock, so the shards'
batches of one projection never interleave and its caches stay valid.

The worker that keeps runners caught up in a background thread, with its health reporting, is
``projections.worker``.

Why over 400 lines: exactly-once application, the one-by-one retry that stops before a bad
event and the per-shard tracking rows are one state machine over one lock and one tracking
table; split, each part would need the others' invariants.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import structlog
from eventsourcing.utils import resolve_topic

from domain.model.decisions import class_event_name
from projections.db import Cursor, Database, is_transient
from projections.readahead import ReadAhead

log = structlog.get_logger(__name__)

TRACKING_TABLE = "projection_tracking"
CONFIRM_SECONDS = 1.0
"""How long a runner trusts the position its own last batch left without reading it again."""
REBUILD_BATCH = 5000
"""Events per batch of a rebuild: nobody reads the shadow tables before the swap, so a batch
may be larger than a live one (fewer transactions, each player's row written less often)."""


class Projection(Protocol):
    """A read model: in-memory processing of events, then a flush inside the batch transaction."""

    name: str
    tables: tuple[str, ...]
    """Its tables (a rebuild writes shadow copies of them, then swaps them in)."""
    indexes: tuple[str, ...]
    """Its named indexes (renamed with the tables)."""

    def create_tables(self, c: Cursor) -> None: ...

    def drop_tables(self, c: Cursor) -> None: ...

    def process(self, event: Any, position: int) -> None:
        """Take one domain event into the pending changes."""

    def flush(self, c: Cursor) -> None:
        """Write the pending changes (called inside the batch transaction)."""

    def reset(self) -> None:
        """Forget pending changes and caches (after a failed batch or before a rebuild)."""


def reads_of(projection: Projection) -> frozenset[str] | None:
    """The names of the events a projection processes (its ``reads``; ``None``: every event).
    The runner neither decodes nor hands it any other event: its position still passes them."""
    reads: frozenset[str] | None = getattr(projection, "reads", None)
    return reads


@functools.lru_cache(maxsize=1024)
def stored_event_name(topic: str) -> str | None:
    """The event name of a stored topic, as decoding would resolve it (topics renamed since
    included); ``None`` if the topic resolves to nothing (decoding will say why)."""
    try:
        return class_event_name(resolve_topic(topic))
    except Exception:  # an unknown topic: not skipped, so the decoding fails visibly
        return None


def shard_tracking(name: str, shard: int) -> str:
    """The tracking row of a projection (or its rebuild's shadow) for one shard's log."""
    return name if shard == 0 else f"{name}@{shard}"


def shard_logs(recorder: Any) -> list[Any]:
    """Each shard's recorder (its notification log); the recorder itself when unsharded."""
    shards = getattr(recorder, "shards", None)
    return list(shards) if shards else [recorder]


class NotificationSource(Protocol):
    """What a runner needs of the application: its recorder (a sharded one has ``shards``)
    and its mapper."""

    recorder: Any
    mapper: Any


class ProjectionConflict(Exception):
    """Another runner advanced the same projection first."""


class ProjectionFailed(Exception):
    """A runner could not apply the event at ``position`` (the cause is chained).

    ``transient``: the store was unavailable or busy (retrying may succeed); otherwise the event
    itself cannot be applied (retrying will fail the same way until the code or data change).
    The message names the projection, the position and the cause's type, never the event's
    content."""

    def __init__(
        self, projection: str, position: int, cause: BaseException, shard: int = 0
    ) -> None:
        self.projection = projection
        self.position = position
        self.shard = shard
        self.error = type(cause).__name__
        self.transient = is_transient(cause)
        kind = "the store failed" if self.transient else "cannot apply the event"
        where = f"position {position}" + (f" of shard {shard}" if shard else "")
        super().__init__(f"projection {projection}: {kind} at {where} ({self.error})")


def _ensure_tracking(c: Cursor, name: str, position: int | None = None) -> None:
    c.execute(
        f"CREATE TABLE IF NOT EXISTS {TRACKING_TABLE} "
        "(name TEXT PRIMARY KEY, position BIGINT NOT NULL)"
    )
    if position is None:
        c.execute(
            f"INSERT INTO {TRACKING_TABLE} (name, position) VALUES (?, 0) "
            "ON CONFLICT (name) DO NOTHING",
            (name,),
        )
    else:
        c.execute(
            f"INSERT INTO {TRACKING_TABLE} (name, position) VALUES (?, ?) "
            "ON CONFLICT (name) DO UPDATE SET position = excluded.position",
            (name, position),
        )


def read_position(c: Cursor, name: str) -> int | None:
    """A tracking row's position (``None`` if there is no such row)."""
    c.execute(f"SELECT position FROM {TRACKING_TABLE} WHERE name = ?", (name,))
    row = c.fetchone()
    return None if row is None else int(row[0])


class PassReads:
    """What the runners of one worker pass share: each read of a log and each decoded event,
    once for every projection that needs them (they usually stand at the same position).
    Valid for one pass: a later read could find more events. It keeps the newest ``keep``
    reads only (and their events): a pass over a long backlog does not hold all of it, and
    runners far behind read it again, as each did alone before."""

    def __init__(self, keep: int = 4) -> None:
        self.keep = keep
        self.reads: dict[tuple[int, int, int], Sequence[Any]] = {}
        """(shard, first id, limit) -> the notifications read, oldest first."""
        self.events: dict[tuple[int, int], Any] = {}
        """(shard, notification id) -> its domain event (events are immutable)."""

    def add(self, key: tuple[int, int, int], notifications: Sequence[Any]) -> None:
        self.reads[key] = notifications
        while len(self.reads) > self.keep:
            oldest = next(iter(self.reads))
            shard = oldest[0]
            for notification in self.reads.pop(oldest):
                self.events.pop((shard, notification.id), None)


class ProjectionRunner:
    """Applies one projection's batches exactly once (see the module's docstring)."""

    def __init__(
        self,
        source: NotificationSource,
        db: Database,
        projection: Projection,
        batch: int = 1000,
        rebuild_batch: int = REBUILD_BATCH,
    ) -> None:
        self.source = source
        self.db = db
        self.projection = projection
        self.batch = batch
        self.rebuild_batch = rebuild_batch
        self._ahead = threading.local()
        """``ahead``: this thread's ``ReadAhead`` while its rebuild or catch-up reads the log
        ahead (``reading_ahead``); per thread, so two threads driving one runner never share
        one."""
        self.logs = shard_logs(source.recorder)
        self._lock = threading.Lock()
        self._position: tuple[int, ...] | None = None
        """Where this runner's last batch left the projection in each shard's log (its caches
        are valid there)."""
        self._next_shard = 0
        self.shared: PassReads | None = None
        """Set by ``ProjectionWorker`` for the length of a pass (``PassReads``)."""
        self.reads = reads_of(projection)
        """The events the projection processes (``reads_of``; ``None``: all)."""
        self.confirm_every = CONFIRM_SECONDS
        self._confirmed_at = -CONFIRM_SECONDS
        with db.transaction() as c:
            db.lock(c, projection.name)
            for shard in range(len(self.logs)):
                _ensure_tracking(c, shard_tracking(projection.name, shard))
            projection.create_tables(c)

    @property
    def last_position(self) -> int | None:
        """Where this runner's last batch left the projection (no query; ``None``: unknown);
        with several shards, the sum of the shards' positions (events applied)."""
        return None if self._position is None else sum(self._position)

    def position(self) -> int:
        """The projection's position as stored (the last event applied; with several shards
        the sum of the shards' positions)."""
        return sum(self._stored_positions(self.projection.name))

    def _stored_positions(self, tracking: str) -> tuple[int, ...]:
        with self.db.reading() as c:
            return tuple(
                read_position(c, shard_tracking(tracking, shard)) or 0
                for shard in range(len(self.logs))
            )

    def run_once(self) -> int:
        """Process the next batch of events; return how many were processed.

        Raises ``ProjectionConflict`` if another runner applied the batch first, and
        ``ProjectionFailed`` if an event cannot be applied (the events before it are)."""
        with self._lock:
            guessed = self._position is not None and len(self.logs) == 1
            try:
                return self._run(self.projection.name)
            except ProjectionConflict:
                if not guessed:
                    raise
                # The position this runner remembered was stale (another runner moved on):
                # the conflict forgot it; try again from where the projection stands.
                return self._run(self.projection.name)

    def _run(self, tracking: str, limit: int | None = None) -> int:
        limit = limit or self.batch
        starts = self._position
        now = time.monotonic()
        if (
            starts is None
            or tracking != self.projection.name
            or len(self.logs) > 1
            or now - self._confirmed_at >= self.confirm_every
        ):
            # Where the projection stands is read, unless this runner's own last batch left it
            # (one log) less than ``confirm_every`` ago: a runner or rebuild that moved it since
            # makes the next batch's compare-and-set fail (``ProjectionConflict``), which
            # forgets the position, so the next run reads it; a rebuild that moved it back
            # while no event came is found by the periodic read. With several logs a batch sets
            # one shard's row only, so the others are read each time.
            starts = self._stored_positions(tracking)
            if tracking == self.projection.name:
                self._confirmed_at = now
            if starts != self._position:
                # Another runner (or a rebuild) moved the projection since this runner's last
                # batch: what the projection cached in memory (running totals) is stale.
                self.projection.reset()
                self._position = starts  # empty caches are valid anywhere
        shards = len(self.logs)
        for offset in range(shards):  # the shards in turn, so none waits for another's backlog
            shard = (self._next_shard + offset) % shards
            notifications = self._select(shard, starts[shard] + 1, limit)
            if notifications:
                self._next_shard = (shard + 1) % shards
                break
        else:
            return 0
        start = starts[shard]
        try:
            self._apply(tracking, shard, start, notifications)
        except ProjectionConflict:
            raise
        except Exception as exc:
            if is_transient(exc) or len(notifications) == 1:
                raise ProjectionFailed(
                    self.projection.name, notifications[0].id, exc, shard
                ) from exc
            # The failed batch committed nothing and emptied the caches: they are valid at the
            # stored positions again (``_apply`` numbers events from there).
            self._position = starts
            return self._apply_one_by_one(tracking, shard, start, notifications)
        return len(notifications)

    def _select(self, shard: int, first: int, limit: int) -> Sequence[Any]:
        shared, ahead, key = self.shared, self.ahead, (shard, first, limit)
        if shared is not None and key in shared.reads:
            return shared.reads[key]
        read = self.logs[shard].select_notifications
        notifications = ahead.take(key) if ahead is not None else None
        if notifications is None:
            notifications = read(start=first, limit=limit)
        if shared is not None:
            shared.add(key, notifications)
        elif ahead is not None and len(notifications) == limit:  # more is likely: read it now
            ahead.start(
                (shard, notifications[-1].id + 1, limit),
                lambda first, limit: read(start=first, limit=limit),
            )
        return notifications

    @property
    def ahead(self) -> ReadAhead | None:
        """This thread's ``ReadAhead``, inside ``reading_ahead``."""
        ahead: ReadAhead | None = getattr(self._ahead, "ahead", None)
        return ahead

    @contextlib.contextmanager
    def reading_ahead(self) -> Iterator[None]:
        """While inside: each full batch read from the log starts the read of the next one in
        the background (``projections.readahead``), unless the reads are shared (a pass)."""
        if self.ahead is not None:  # already (a rebuild's catch-up inside a rebuild)
            yield
            return
        ahead = self._ahead.ahead = ReadAhead()
        try:
            yield
        finally:
            self._ahead.ahead = None
            ahead.close()

    def _decode(self, shard: int, notification: Any) -> Any:
        shared = self.shared
        if shared is None:
            return self.source.mapper.to_domain_event(notification)
        key = (shard, notification.id)
        event = shared.events.get(key)
        if event is None:
            event = shared.events[key] = self.source.mapper.to_domain_event(notification)
        return event

    def _apply_one_by_one(
        self, tracking: str, shard: int, start: int, notifications: Sequence[Any]
    ) -> int:
        """After a failed batch: apply its events one at a time, up to the one that fails."""
        done = 0
        for notification in notifications:
            try:
                self._apply(tracking, shard, start, [notification])
            except ProjectionConflict:
                raise
            except Exception as exc:
                raise ProjectionFailed(self.projection.name, notification.id, exc, shard) from exc
            start = notification.id
            done += 1
        return done

    def _apply(self, tracking: str, shard: int, start: int, notifications: Sequence[Any]) -> None:
        last = notifications[-1].id
        before = self._position
        # The position a projection records is the count of events applied before it plus
        # one: the notification id with one shard, and across shards still increasing in the
        # order this projection applied them (the stats' rating chain is in that order).
        offset = (sum(before) if before is not None else 0) - start
        try:
            reads = self.reads
            for notification in notifications:
                if reads is not None:
                    name = stored_event_name(notification.topic)
                    if name is not None and name not in reads:
                        continue  # not one it reads: not decoded (most are card plays)
                event = self._decode(shard, notification)
                self.projection.process(event, offset + notification.id)
            with self.db.transaction() as c:
                self.db.lock(c, tracking)  # one lock for all the shards of a projection
                c.execute(
                    f"UPDATE {TRACKING_TABLE} SET position = ? WHERE name = ? AND position = ?",
                    (last, shard_tracking(tracking, shard), start),
                )
                if c.rowcount != 1:
                    raise ProjectionConflict(
                        f"projection {self.projection.name} was advanced by another runner"
                    )
                self.projection.flush(c)
        except BaseException:
            self.projection.reset()
            self._position = None
            raise
        positions = list(before if before is not None else (0,) * len(self.logs))
        positions[shard] = last
        self._position = tuple(positions)

    def catch_up(self, progress: Callable[[int], None] | None = None) -> int:
        """Process everything recorded so far (up to the last read of the log, which found
        less than a full batch); return how many events were processed."""
        total = 0
        with self.reading_ahead():
            while True:
                try:
                    done = self.run_once()
                except ProjectionConflict:
                    continue
                total += done
                if done and progress is not None:
                    progress(done)
                if not done or (done < self.batch and len(self.logs) == 1):
                    return total  # the log's end (one log: a short batch says so)

    def rebuild(self, progress: Callable[[int], None] | None = None) -> int:
        """Project the whole log again into shadow tables, then swap them in atomically:
        readers see the old view until the new one is complete. Returns the events processed.

        Raises ``ProjectionFailed`` if an event cannot be applied (the live view is kept) and
        ``RebuildConflict`` if another rebuild of the same projection started meanwhile."""
        from projections.shadow import rebuild

        with self._lock:
            return rebuild(self, progress)

    def max_position(self) -> int:
        """The id of the last event in the log (for progress bars)."""
        return sum(int(log.max_notification_id() or 0) for log in self.logs)
