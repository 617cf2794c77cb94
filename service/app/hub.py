"""Live updates: one store subscription per process, fanned out in memory to every watcher.

Watchers (``WatchGame`` streams) wait on a per-game ``asyncio.Event``. Commands handled by this
process wake the game's watchers at once; on PostgreSQL one background thread follows the
store's notifications (LISTEN/NOTIFY through ``eventsourcing``'s subscription) so that events
written by other replicas wake them too; on SQLite the thread polls the file for other
processes' writes (``SqliteChanges``). Each watched game's feed (``service.api.streams``, one per
game and process) also re-reads the store every second, so a lost notification delays an update
by at most that long; it is never lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import structlog

from service.app.shards import recorders_of

log = structlog.get_logger(__name__)
_BATCH = 500
SQLITE_POLL_SECONDS = 0.5


class SqliteChanges:
    """Events that other processes wrote to a SQLite store (``pref flag``, ``pref rule``,
    another server on the same file): SQLite has no notifications, so a reader asks.

    ``poll`` is cheap when nothing changed: ``PRAGMA data_version`` on this thread's own
    connection changes only when another connection committed. Then the new notifications
    (after the last one seen) are read and returned, so the caller can forget the games they
    changed. Writes of this process are among them (harmless: those games are current)."""

    def __init__(self, recorder: Any, path: str) -> None:
        self._recorder = recorder
        self._path = path
        self._local = threading.local()
        self._guard = threading.Lock()
        self._last: int = recorder.max_notification_id() or 0

    def _data_version(self) -> int:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = sqlite3.connect(self._path, check_same_thread=True)
        row = conn.execute("PRAGMA data_version").fetchone()
        return int(row[0])

    def poll(self) -> list[tuple[uuid.UUID, int]]:
        """``(game id, version)`` of each event committed since the last poll."""
        seen = getattr(self._local, "version", None)
        version = self._data_version()
        self._local.version = version
        if seen == version:
            return []
        changed: list[tuple[uuid.UUID, int]] = []
        with self._guard:
            while True:
                batch = self._recorder.select_notifications(
                    start=self._last, limit=_BATCH, inclusive_of_start=False
                )
                for notification in batch:
                    changed.append((notification.originator_id, notification.originator_version))
                    self._last = max(self._last, notification.id)
                if len(batch) < _BATCH:
                    return changed


class EventHub:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self.on_notify: Callable[[uuid.UUID], None] | None = None
        """Told of every write this process makes, at once (the keeper: a bot whose turn a
        person's move, or a table's start, brought looks then, not at the store's next poll)."""
        self._waiters: dict[uuid.UUID, set[asyncio.Event]] = defaultdict(set)
        self._threads: list[threading.Thread] = []
        self._subscriptions: list[Any] = []
        self._stopping = threading.Event()
        self.closing = False
        """Set when the server stops: watchers end their streams (clients resume elsewhere)."""

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def register(self, game_id: uuid.UUID) -> asyncio.Event:
        event = asyncio.Event()
        self._waiters[game_id].add(event)
        return event

    def unregister(self, game_id: uuid.UUID, event: asyncio.Event) -> None:
        waiters = self._waiters.get(game_id)
        if waiters is not None:
            waiters.discard(event)
            if not waiters:
                del self._waiters[game_id]

    def _wake(self, game_id: uuid.UUID) -> None:
        for event in list(self._waiters.get(game_id, ())):
            event.set()

    def notify(self, game_id: uuid.UUID) -> None:
        """This process wrote to the game: wake its watchers (from any thread)."""
        if self.on_notify is not None:
            self.on_notify(game_id)
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop is closing
            loop.call_soon_threadsafe(self._wake, game_id)

    def follow(
        self, recorder: Any, on_event: Callable[[uuid.UUID, int], None] | None = None
    ) -> None:
        """Follow the store's notifications in a background thread; each event wakes its
        game's watchers and is passed to ``on_event`` (the application uses it to forget games
        that another replica changed). PostgreSQL pushes them (LISTEN/NOTIFY); a SQLite file
        is polled (``SqliteChanges``, every ``SQLITE_POLL_SECONDS``) for other processes'
        writes, such as ``pref flag`` or ``pref rule``. A sharded store: one follower per
        shard (``service.app.shards``)."""
        for shard in recorders_of(recorder):
            self._follow_one(shard, on_event)

    def _follow_one(self, recorder: Any, on_event: Callable[[uuid.UUID, int], None] | None) -> None:
        path = getattr(getattr(getattr(recorder, "datastore", None), "pool", None), "db_name", "")
        if "SQLite" in type(recorder).__name__ and path and ":memory:" not in path:
            self._poll_sqlite(SqliteChanges(recorder, path), on_event)
            return
        if not hasattr(recorder, "subscribe") or "Postgres" not in type(recorder).__name__:
            return
        last = recorder.max_notification_id() or 0

        def run() -> None:
            nonlocal last
            while not self._stopping.is_set():
                try:
                    # Resume after the last notification seen: an outage misses nothing.
                    with recorder.subscribe(gt=last) as subscription:
                        self._subscriptions.append(subscription)
                        try:
                            for notification in subscription:
                                last = notification.id
                                if on_event is not None:
                                    on_event(
                                        notification.originator_id,
                                        notification.originator_version,
                                    )
                                self.notify(notification.originator_id)
                        finally:
                            self._subscriptions.remove(subscription)
                except Exception as exc:  # reconnect after a store outage
                    if self._stopping.is_set():
                        return
                    log.warning("subscription lost; reconnecting", error=str(exc))
                    self._stopping.wait(1.0)

        thread = threading.Thread(target=run, name="event-hub", daemon=True)
        self._threads.append(thread)
        thread.start()

    def _poll_sqlite(
        self, changes: SqliteChanges, on_event: Callable[[uuid.UUID, int], None] | None
    ) -> None:
        def run() -> None:
            while not self._stopping.wait(SQLITE_POLL_SECONDS):
                try:
                    for game_id, version in changes.poll():
                        if on_event is not None:
                            on_event(game_id, version)
                        self.notify(game_id)
                except Exception as exc:  # a locked or vanished file: try again later
                    log.warning("cannot poll the SQLite store", error=str(exc))

        thread = threading.Thread(target=run, name="event-hub-sqlite", daemon=True)
        self._threads.append(thread)
        thread.start()

    def close_watchers(self) -> None:
        """Wake every watcher to end its stream (on the loop, when the server stops): an open
        stream would otherwise hold a graceful shutdown for its whole grace period."""
        self.closing = True
        for waiters in self._waiters.values():
            for event in waiters:
                event.set()

    def stop(self) -> None:
        self._stopping.set()
        for subscription in list(self._subscriptions):
            subscription.stop()
        for thread in self._threads:
            thread.join(timeout=5)
