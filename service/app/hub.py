"""Live updates: one store subscription per process, fanned out in memory to every watcher.

Watchers (``WatchGame`` streams) wait on a per-game ``asyncio.Event``. Commands handled by this
process wake the game's watchers at once; on PostgreSQL one background thread follows the
store's notifications (LISTEN/NOTIFY through ``eventsourcing``'s subscription, read at most
once per ``PULL_PACE_SECONDS``: ``PacedSubscription``) so that events written by other replicas
wake them too; on SQLite the thread polls the file for other processes' writes
(``SqliteChanges``). Every event the follower reads is passed on (to the keeper, to the
watchers), this process's own too: a command cancelled after its save, or a lost race, never
woke anyone itself. Wake-ups of the event loop are coalesced (``notify``): one call per burst
of events, not one per event. Each watched game's feed
(``service.api.streams``, one per game and process) also re-reads the store every second, so a
lost notification delays an update by at most that long; it is never lost.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import structlog
from eventsourcing.persistence import OperationalError
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresSubscription
from eventsourcing.sqlite import SQLiteApplicationRecorder

from service.app.shards import recorders_of

log = structlog.get_logger(__name__)
_BATCH = 500
_OWN_LIMIT = 100_000
SQLITE_POLL_SECONDS = 0.5
PULL_PACE_SECONDS = 0.05
"""The least time between two reads of a PostgreSQL notification log by the follower. A read
per commit cost this process about 8 % of its CPU in the open-loop card-play benchmark (one
NOTIFY, one wake-up and one query per command; docs/PERFORMANCE.md); paced, a burst of
commits costs one read. Only other replicas' writes wait for it (this process's own writes wake
their watchers at once), and they wait at most this much longer."""

OnEvent = Callable[[uuid.UUID, int], None]
"""Told of each event the follower reads, ``(game id, version)``."""


class PacedSubscription(PostgresSubscription):
    """``eventsourcing``'s LISTEN/NOTIFY subscription (one LISTEN thread, one pulling thread),
    with the pulling thread pausing ``pace`` seconds after being notified, so that the
    notifications of every commit meanwhile are read by one query instead of one each.

    It overrides ``ListenNotifySubscription._loop_on_pull`` of eventsourcing 9.5 (pinned in
    requirements.lock; ``tests/integration/test_hub.py`` checks the pacing against it)."""

    def __init__(self, recorder: PostgresApplicationRecorder, gt: int | None, pace: float) -> None:
        self.pace = pace  # before the base class starts the threads that read it
        self.pulls = 0
        """Reads of the log so far (the test of the pacing counts them)."""
        super().__init__(recorder=recorder, gt=gt)

    def _pull(self) -> None:
        self.pulls += 1
        super()._pull()

    def _loop_on_pull(self) -> None:
        try:
            self._pull()  # what was recorded before the subscription
            while not self._has_been_stopped:
                self._has_been_notified.wait()
                time.sleep(self.pace)  # let the notifications of a burst gather
                self._pull()
        except BaseException as exc:  # as the base class: stop, and re-raise in the reader
            if self._thread_error is None:
                self._thread_error = exc
            self.stop()


class SqliteChanges:
    """Events that other processes wrote to a SQLite store (``pref flag``, ``pref rule``,
    another server on the same file): SQLite has no notifications, so a reader asks.

    ``poll`` is cheap when nothing changed: ``PRAGMA data_version`` on this thread's own
    connection changes only when another connection committed. Then the new notifications
    (after the last one seen) are read and returned, so the caller can forget the games they
    changed. This process's own writes change it too (its writer has another connection): the
    ids they were given are told to ``wrote`` (and the writer forgets a stale copy of the games
    it wrote itself, ``PreferansApplication._wrote``), and when every id after the last one
    seen is one of them (``SELECT MAX(rowid)`` on the same connection says how far the log
    goes; the recorder numbers rows by rowid, in commit order, without gaps), nothing is read:
    before, each command read its own previous events back, a fifth of the work of a command
    on SQLite. Any other id, and the notifications are read as before. A poll that fails
    raises the library's ``OperationalError`` and is made again by the next one."""

    def __init__(self, recorder: Any, path: str) -> None:
        self._recorder = recorder
        self._path = path
        self._head_sql = f"SELECT MAX(rowid) FROM {recorder.events_table_name}"  # our own name
        self._local = threading.local()
        self._guard = threading.Lock()
        """Held by the poll that reads the log (one at a time)."""
        self._last: int = recorder.max_notification_id() or 0
        self._own: set[int] = set()
        """Ids of this process's writes after ``_last`` (``wrote``)."""
        self._own_guard = threading.Lock()
        """Guards ``_own`` alone (taken after ``_guard``), so the writer thread never waits
        for a poll's read of the log."""

    def wrote(self, ids: Any) -> None:
        """This process's write was given these notification ids."""
        last = self._last
        with self._own_guard:
            if len(self._own) > _OWN_LIMIT:  # nobody polls: forget, and read when one does
                self._own.clear()
            self._own.update(i for i in ids if i > last)

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = sqlite3.connect(self._path, check_same_thread=True)
        return conn

    def _only_own(self) -> bool:
        """Whether every event after the last one seen is this process's (then all are seen);
        called under ``_guard``."""
        row = self._conn().execute(self._head_sql).fetchone()
        head = int(row[0] or 0)
        new = range(self._last + 1, head + 1)
        with self._own_guard:
            if not self._own.issuperset(new):
                return False
            self._own.difference_update(new)
        self._last = max(self._last, head)
        return True

    def poll(self) -> list[tuple[uuid.UUID, int]]:
        """``(game id, version)`` of each event committed since the last poll."""
        try:
            version = int(self._conn().execute("PRAGMA data_version").fetchone()[0])
            if getattr(self._local, "version", None) == version:
                return []
            changed = self._read()
        except sqlite3.Error as exc:  # the data version stays unseen: the next poll reads
            raise OperationalError(str(exc)) from exc
        self._local.version = version
        return changed

    def _read(self) -> list[tuple[uuid.UUID, int]]:
        changed: list[tuple[uuid.UUID, int]] = []
        with self._guard:
            if self._only_own():
                return changed
            while True:
                batch = self._recorder.select_notifications(
                    start=self._last, limit=_BATCH, inclusive_of_start=False
                )
                for notification in batch:
                    changed.append((notification.originator_id, notification.originator_version))
                    self._last = max(self._last, notification.id)
                if len(batch) < _BATCH:
                    last = self._last
                    with self._own_guard:
                        self._own = {i for i in self._own if i > last}
                    return changed


class EventHub:
    def __init__(self, pace: float = PULL_PACE_SECONDS) -> None:
        self.pace = pace
        """``PacedSubscription``'s pause (PostgreSQL) before each read of the log."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self.on_notify: Callable[[uuid.UUID], None] | None = None
        """Told of every write: this process's at once, and every event the follower reads,
        any process's (the keeper: a bot whose turn a person's move, or a table's start,
        brought looks then, not at its next sweep)."""
        self._waiters: dict[uuid.UUID, set[asyncio.Event]] = defaultdict(set)
        self._threads: list[threading.Thread] = []
        self._subscriptions: list[Any] = []
        self._stopping = threading.Event()
        self._pending: set[uuid.UUID] = set()
        """Games to wake on the event loop at its next turn (``notify``)."""
        self._pending_guard = threading.Lock()
        self._wake_scheduled = False
        self.loop_wakeups = 0
        """Calls handed to the event loop so far (the test of the coalescing counts them)."""
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
        """The game changed: wake its watchers (from any thread). Games notified before the
        event loop's next turn share one hand-off to it (a burst read by the follower, or
        commands finishing together, cost one ``call_soon_threadsafe``)."""
        if self.on_notify is not None:
            self.on_notify(game_id)
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with self._pending_guard:
            self._pending.add(game_id)
            if self._wake_scheduled:
                return
            self._wake_scheduled = True
            self.loop_wakeups += 1
        try:
            loop.call_soon_threadsafe(self._wake_pending)
        except RuntimeError:  # the loop is closing
            with self._pending_guard:
                self._wake_scheduled = False

    def _wake_pending(self) -> None:
        with self._pending_guard:
            games, self._pending = self._pending, set()
            self._wake_scheduled = False
        for game_id in games:
            self._wake(game_id)

    def follow(self, recorder: Any, on_event: OnEvent | None = None) -> None:
        """Follow the store's notifications in a background thread; each event is passed to
        ``on_event`` (the application uses it to forget games that another replica changed),
        then wakes its game's watchers and tells ``on_notify``. PostgreSQL pushes them
        (LISTEN/NOTIFY, ``PacedSubscription``); a SQLite file is polled (``SqliteChanges``,
        every ``SQLITE_POLL_SECONDS``) for other processes' writes, such as ``pref flag`` or
        ``pref rule``. A sharded store: one follower per shard (``service.app.shards``)."""
        for shard in recorders_of(recorder):
            self._follow_one(shard, on_event)

    def _heard(self, on_event: OnEvent | None, game_id: uuid.UUID, version: int) -> None:
        """One event read from the store."""
        if on_event is not None:
            on_event(game_id, version)
        self.notify(game_id)

    def _follow_one(self, recorder: Any, on_event: OnEvent | None) -> None:
        path = getattr(getattr(getattr(recorder, "datastore", None), "pool", None), "db_name", "")
        if isinstance(recorder, SQLiteApplicationRecorder) and path and ":memory:" not in path:
            self._poll_sqlite(SqliteChanges(recorder, path), on_event)
            return
        if not isinstance(recorder, PostgresApplicationRecorder):
            return
        last = recorder.max_notification_id() or 0

        def run() -> None:
            nonlocal last
            while not self._stopping.is_set():
                try:
                    # Resume after the last notification seen: an outage misses nothing.
                    with PacedSubscription(recorder, last, self.pace) as subscription:
                        self._subscriptions.append(subscription)
                        try:
                            for notification in subscription:
                                last = notification.id
                                game_id = notification.originator_id
                                if not isinstance(game_id, uuid.UUID):
                                    game_id = uuid.UUID(game_id)
                                self._heard(on_event, game_id, notification.originator_version)
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

    def _poll_sqlite(self, changes: SqliteChanges, on_event: OnEvent | None) -> None:
        def run() -> None:
            while not self._stopping.wait(SQLITE_POLL_SECONDS):
                try:
                    for game_id, version in changes.poll():
                        self._heard(on_event, game_id, version)
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
