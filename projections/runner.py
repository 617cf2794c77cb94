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

Why over 400 lines: exactly-once application, the one-by-one retry that stops before a bad
event, the per-shard tracking rows and the worker loop with its health reporting are one state
machine over one lock and one tracking table; split, each part would need the others' invariants.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import structlog

from projections import metrics
from projections.db import Cursor, Database, is_transient

log = structlog.get_logger(__name__)

TRACKING_TABLE = "projection_tracking"


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


class ProjectionRunner:
    """Applies one projection's batches exactly once (see the module's docstring)."""

    def __init__(
        self, source: NotificationSource, db: Database, projection: Projection, batch: int = 1000
    ) -> None:
        self.source = source
        self.db = db
        self.projection = projection
        self.batch = batch
        self.logs = shard_logs(source.recorder)
        self._lock = threading.Lock()
        self._position: tuple[int, ...] | None = None
        """Where this runner's last batch left the projection in each shard's log (its caches
        are valid there)."""
        self._next_shard = 0
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
            return self._run(self.projection.name)

    def _run(self, tracking: str) -> int:
        starts = self._stored_positions(tracking)
        if starts != self._position:
            # Another runner (or a rebuild) moved the projection since this runner's last
            # batch: what the projection cached in memory (running totals) is stale.
            self.projection.reset()
            self._position = starts  # empty caches are valid anywhere
        shards = len(self.logs)
        for offset in range(shards):  # the shards in turn, so none waits for another's backlog
            shard = (self._next_shard + offset) % shards
            notifications = self.logs[shard].select_notifications(
                start=starts[shard] + 1, limit=self.batch
            )
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
            for notification in notifications:
                event = self.source.mapper.to_domain_event(notification)
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
        """Process everything recorded so far; return how many events were processed."""
        total = 0
        while True:
            try:
                done = self.run_once()
            except ProjectionConflict:
                continue
            if not done:
                return total
            total += done
            if progress is not None:
                progress(done)

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


@dataclass(frozen=True)
class ProjectionStatus:
    """Whether a read model keeps up: ``serving``, else the failure (``error``: the
    exception's type; ``position``: the event it stopped at; ``transient``: a store error)."""

    name: str
    serving: bool = True
    error: str | None = None
    position: int | None = None
    transient: bool = False


StatusListener = Callable[[ProjectionStatus], None]
MEASURE_EVERY = 1.0
"""Seconds between two readings of the log's end (for the lag metric)."""


class ProjectionWorker:
    """Keeps runners caught up in a background thread (polling; woken early by ``poke``).

    A runner that fails is retried with exponential backoff (``backoff``: first and longest
    delay in seconds) and never skips an event. Each failure is logged (an error if the event
    cannot be applied, a warning if the store failed), counted in the metrics, and the read
    model's status turns ``serving=False`` until it catches up again; ``watch`` reports every
    change of status (the server maps it to gRPC health)."""

    def __init__(
        self,
        runners: list[ProjectionRunner],
        interval: float = 0.05,
        backoff: tuple[float, float] = (0.5, 60.0),
    ) -> None:
        self.runners = runners
        self.interval = interval
        self.backoff = backoff
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="projections", daemon=True)
        self.errors: list[BaseException] = []
        self._status_lock = threading.Lock()
        self._statuses = {r.projection.name: ProjectionStatus(r.projection.name) for r in runners}
        self._listeners: list[StatusListener] = []
        self._attempts: dict[str, int] = {}
        self._retry_at: dict[str, float] = {}
        self._measured_at = -MEASURE_EVERY
        for name in self._statuses:
            metrics.SERVING.labels(name).set(1)

    def start(self) -> None:
        self._thread.start()

    def poke(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def statuses(self) -> dict[str, ProjectionStatus]:
        """Each read model's current status, by projection name."""
        with self._status_lock:
            return dict(self._statuses)

    def watch(self, listener: StatusListener) -> None:
        """Call ``listener`` now with every current status, then with each change (from the
        worker's thread; it must not block)."""
        with self._status_lock:
            self._listeners.append(listener)
            for status in self._statuses.values():
                listener(status)

    def _report(self, status: ProjectionStatus) -> None:
        with self._status_lock:
            if self._statuses.get(status.name) == status:
                return
            self._statuses[status.name] = status
            metrics.SERVING.labels(status.name).set(1 if status.serving else 0)
            for listener in self._listeners:
                try:
                    listener(status)
                except Exception:  # a listener's failure must not stop the projections
                    log.exception("projection_status_listener_failed", projection=status.name)

    def step(self) -> None:
        """One pass: catch up every runner that is not waiting for its next retry."""
        now = time.monotonic()
        for runner in self.runners:
            name = runner.projection.name
            if self._retry_at.get(name, 0.0) > now:
                continue
            try:
                runner.catch_up()
            except Exception as exc:
                self._failed(runner, exc, now)
            else:
                self._recovered(name)
        self._measure()

    def _failed(self, runner: ProjectionRunner, exc: Exception, now: float) -> None:
        name = runner.projection.name
        if not isinstance(exc, ProjectionFailed):
            # Failed before any event was taken (reading the position or the log).
            at = (runner.last_position or 0) + 1
            failure = ProjectionFailed(name, at, exc)
            failure.__cause__ = exc
            exc = failure
        self.errors.append(exc)
        del self.errors[:-10]
        attempts = self._attempts.get(name, 0) + 1
        self._attempts[name] = attempts
        first, longest = self.backoff
        delay = min(longest, first * 2 ** min(attempts - 1, 30))
        self._retry_at[name] = now + delay
        kind = "transient" if exc.transient else "event"
        metrics.FAILURES.labels(name, kind).inc()
        fields = {
            "projection": name,
            "position": exc.position,
            "error_type": exc.error,
            "attempt": attempts,
            "retry_in_s": round(delay, 3),
        }
        if exc.transient:
            log.warning("projection_store_failed", **fields)
        else:
            log.error("projection_stalled", **fields)
        self._report(ProjectionStatus(name, False, exc.error, exc.position, exc.transient))

    def _recovered(self, name: str) -> None:
        if self._attempts.pop(name, 0):
            self._retry_at.pop(name, None)
            log.info("projection_recovered", projection=name)
        self._report(ProjectionStatus(name))

    def _measure(self) -> None:
        now = time.monotonic()
        if now < self._measured_at + MEASURE_EVERY:
            return
        self._measured_at = now
        try:
            head = self.runners[0].max_position() if self.runners else 0
        except Exception:  # the store is down: the failures say so already
            return
        for runner in self.runners:
            position = runner.last_position
            if position is not None:
                metrics.POSITION.labels(runner.projection.name).set(position)
                metrics.LAG.labels(runner.projection.name).set(max(0, head - position))

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.step()
            self._wake.wait(self.interval)
            self._wake.clear()
