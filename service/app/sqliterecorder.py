"""The SQLite recorder whose writer keeps a connection of its own.

The library's ``SQLiteApplicationRecorder.insert_events`` takes a connection from its pool for
each write (``get_connection(is_writer=True)``: a fairness semaphore, the in-process writer
lock, bookkeeping of connections in use, and the same again to give it back) and wraps the
transaction in three context managers. Under group commit that one writer thread is the
serial part of every command: a py-spy profile of eight clients on SQLite put the pool and
the wrappers at a seventh of all the work.

This subclass (selected with the library's ``APPLICATION_RECORDER_TOPIC``, see
``PreferansApplication``) keeps one ``sqlite3`` connection, opened as the library opens its
own (autocommit, the pool's busy timeout, WAL already set by the pool), and writes the same
rows with the library's own statement and ``_insert_events``, inside ``BEGIN`` … ``COMMIT`` as
the library does. Every writer of this process takes turns on it (``_writer_lock``, waited for
up to the pool's ``pool_timeout``, as the library's writer lock is): a second writer is woken
as soon as the first is done, where SQLite's busy handler would let it sleep in steps of up
to 100 ms (a review measured seconds). A write with tracking records, an in-memory database,
or a wait past the timeout takes the library's path; other processes' writers are serialised
by SQLite's file lock, as they always were. Errors are the library's (``service.app.dbapi``, as its
``SQLiteTransaction`` mapping); a failed transaction is rolled back, and a connection that
failed is closed and opened again at the next write. ``release`` closes it for good
(``PreferansApplication.close``).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import (
    InterfaceError,
    StoredEvent,
)
from eventsourcing.sqlite import (
    SQLITE3_DEFAULT_LOCK_TIMEOUT,
    SQLiteApplicationRecorder,
    SQLiteCursor,
)

from service.app.dbapi import library_error

RECORDER_TOPIC = "service.app.sqliterecorder:SqliteKeptWriterRecorder"


class SqliteKeptWriterRecorder(SQLiteApplicationRecorder):
    """The library's SQLite application recorder, writing on a connection it keeps."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writer: sqlite3.Connection | None = None
        self._writer_lock = threading.Lock()
        """Held by the thread writing on the kept connection."""
        self._keeping = not self.datastore.pool.is_sqlite_memory_mode
        """Whether writes keep a connection (cleared for good by ``release``)."""

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if not stored_events or any(v is not None for v in kwargs.values()):
            return super().insert_events(stored_events, **kwargs)
        if not self._writer_lock.acquire(timeout=self.datastore.pool.pool_timeout):
            return super().insert_events(stored_events, **kwargs)
        try:
            if not self._keeping:
                return super().insert_events(stored_events, **kwargs)
            return self._write(stored_events)
        finally:
            self._writer_lock.release()

    def _write(self, stored_events: Sequence[StoredEvent]) -> Sequence[int] | None:
        """One transaction on the kept connection (called holding ``_writer_lock``)."""
        conn = self._writer
        try:
            if conn is None:
                conn = self._writer = self._connect()
            elif conn.in_transaction:  # a rollback that was itself interrupted
                conn.rollback()
            cursor = conn.cursor()
            try:
                cursor.execute("BEGIN")
                ids = self._insert_events(SQLiteCursor(cursor), stored_events)
                cursor.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.rollback()
                raise
            finally:
                cursor.close()
        except sqlite3.Error as exc:
            if not isinstance(exc, sqlite3.IntegrityError):  # a lost race leaves it sound
                self._close_writer()
            raise library_error(exc) from exc
        return ids

    def _connect(self) -> sqlite3.Connection:
        """A connection as the library's pool opens one (its errors as the pool's)."""
        pool = self.datastore.pool
        try:
            return sqlite3.connect(
                pool.db_name,
                uri=True,
                check_same_thread=False,
                isolation_level=None,  # autocommit: BEGIN and COMMIT are explicit
                timeout=pool.lock_timeout or SQLITE3_DEFAULT_LOCK_TIMEOUT,
            )
        except (sqlite3.Error, TypeError) as exc:
            raise InterfaceError(exc) from exc

    def _close_writer(self) -> None:
        conn, self._writer = self._writer, None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()

    def release(self) -> None:
        """Close the kept connection for good (the application closing): later writes take
        the library's path."""
        with self._writer_lock:
            self._keeping = False
            self._close_writer()
