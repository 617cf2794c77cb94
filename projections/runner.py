"""Running projections exactly once, on SQLite and PostgreSQL alike.

A projection reads the application's notification log in order. Each batch of events is
processed in memory, then the view changes and the new tracking position are written in one
transaction, with a compare-and-set on the position: a batch is applied exactly once even if two
runners race (the loser's transaction rolls back). A projection can be dropped and rebuilt from
the log at any time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from projections.db import Cursor, Database

TRACKING_TABLE = "projection_tracking"


class Projection(Protocol):
    """A read model: in-memory processing of events, then a flush inside the batch transaction."""

    name: str

    def create_tables(self, c: Cursor) -> None: ...

    def drop_tables(self, c: Cursor) -> None: ...

    def process(self, event: Any, position: int) -> None:
        """Take one domain event into the pending changes."""

    def flush(self, c: Cursor) -> None:
        """Write the pending changes (called inside the batch transaction)."""

    def reset(self) -> None:
        """Forget pending changes and caches (after a failed batch or before a rebuild)."""


class NotificationSource(Protocol):
    """What a runner needs of the application: its recorder and its mapper."""

    recorder: Any
    mapper: Any


class ProjectionConflict(Exception):
    """Another runner advanced the same projection first."""


class ProjectionRunner:
    def __init__(
        self, source: NotificationSource, db: Database, projection: Projection, batch: int = 1000
    ) -> None:
        self.source = source
        self.db = db
        self.projection = projection
        self.batch = batch
        self._lock = threading.Lock()
        self._position: int | None = None
        """Where this runner's last batch left the projection (its caches are valid there)."""
        with db.transaction() as c:
            c.execute(
                f"CREATE TABLE IF NOT EXISTS {TRACKING_TABLE} "
                "(name TEXT PRIMARY KEY, position BIGINT NOT NULL)"
            )
            c.execute(
                f"INSERT INTO {TRACKING_TABLE} (name, position) VALUES (?, 0) "
                "ON CONFLICT (name) DO NOTHING",
                (projection.name,),
            )
            projection.create_tables(c)

    def position(self) -> int:
        with self.db.reading() as c:
            c.execute(
                f"SELECT position FROM {TRACKING_TABLE} WHERE name = ?", (self.projection.name,)
            )
            row = c.fetchone()
        return int(row[0]) if row else 0

    def run_once(self) -> int:
        """Process the next batch of events; return how many were processed."""
        with self._lock:
            start = self.position()
            if start != self._position:
                # Another runner (or a rebuild) moved the projection since this runner's last
                # batch: what the projection cached in memory (running totals) is stale.
                self.projection.reset()
                self._position = None
            notifications = self.source.recorder.select_notifications(
                start=start + 1, limit=self.batch
            )
            if not notifications:
                return 0
            last = notifications[-1].id
            try:
                for notification in notifications:
                    event = self.source.mapper.to_domain_event(notification)
                    self.projection.process(event, notification.id)
                with self.db.transaction() as c:
                    c.execute(
                        f"UPDATE {TRACKING_TABLE} SET position = ? WHERE name = ? AND position = ?",
                        (last, self.projection.name, start),
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
            self._position = last
            return len(notifications)

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
        """Drop the view, forget the position, and project the whole log again."""
        with self._lock:
            self.projection.reset()
            with self.db.transaction() as c:
                self.projection.drop_tables(c)
                self.projection.create_tables(c)
                c.execute(
                    f"UPDATE {TRACKING_TABLE} SET position = 0 WHERE name = ?",
                    (self.projection.name,),
                )
        return self.catch_up(progress)

    def max_position(self) -> int:
        """The id of the last event in the log (for progress bars)."""
        value = self.source.recorder.max_notification_id()
        return int(value or 0)


class ProjectionWorker:
    """Keeps runners caught up in a background thread (polling; woken early by ``poke``)."""

    def __init__(self, runners: list[ProjectionRunner], interval: float = 0.05) -> None:
        self.runners = runners
        self.interval = interval
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="projections", daemon=True)
        self.errors: list[BaseException] = []

    def start(self) -> None:
        self._thread.start()

    def poke(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=10)

    def _loop(self) -> None:
        while not self._stop.is_set():
            for runner in self.runners:
                try:
                    runner.catch_up()
                except Exception as exc:  # keep serving; the error is visible to health checks
                    self.errors.append(exc)
                    del self.errors[:-10]
            self._wake.wait(self.interval)
            self._wake.clear()
