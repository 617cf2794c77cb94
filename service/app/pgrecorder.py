"""The PostgreSQL recorder with one round trip per insert transaction.

The library's ``PostgresApplicationRecorder.insert_events`` pipelines ``BEGIN``, ``SET LOCAL
lock_timeout``, ``LOCK TABLE … IN EXCLUSIVE MODE``, ``NOTIFY`` and the ``INSERT``, syncs (so a
unique-key violation is raised as ``IntegrityError`` there), and then sends ``COMMIT`` in a
second round trip. It also composes the ``NOTIFY`` statement, and converts its ``Composed``
statements to bytes, again for every transaction. Under group commit, that one writer thread
is the serial part of every command: each round trip costs a wake-up of the thread and a fresh
wait for the GIL among busy client threads.

This subclass (selected with the library's ``APPLICATION_RECORDER_TOPIC``, see
``PreferansApplication``) sends the same statements, in the same order and in the same explicit
transaction, with ``COMMIT`` pipelined behind the ``INSERT`` and a single sync; the SQL is
composed once, at construction. If any statement fails, the server skips the rest up to the
sync (so ``COMMIT`` never runs), the error is raised from the sync as before (a lost race is
``IntegrityError``) and the failed transaction is rolled back before the connection goes back
to the pool. Rows, bytes, notification ids, the table lock and the notification are the
library's. Tracking records (process applications) and the database-function mode take the
library's path unchanged.

The rows go in as a ``VALUES`` list written here (``_values``) instead of psycopg's text form
of an array of composites bound to the library's ``unnest``: that quoting, in Python, was a
fifth of all the work of a store with eight busy clients (a py-spy profile of
``bench/store_bench.py``). A row here is a UUID's and an int's text, a topic checked to need no
quoting (else psycopg's ``Literal``) and ``decode('<hex>', 'hex')`` of the state
(``bytes.hex``, in C): a third of the CPU per eight-row commit. No client text is in it: the
topics are the event classes', the states the application's encoded events.

The writer keeps one connection out of the pool (``_spare``, taken by whichever thread finds it
free: under group commit, the one writer thread) and sends the text with libpq's
``send_query``, reading the results itself: the pool's check-out and check-in and psycopg's
cursor (prepared-statement bookkeeping, one result set at a time) were another fifth of the
writer thread's work per batch. The errors are psycopg's, mapped to the library's exactly as
its ``get_connection`` maps them (``service.app.dbapi``). A connection that failed goes back to
the pool (which closes a broken one), and so does one past the pool's ``max_lifetime``
(counted from its creation, as the pool counts it); another thread that finds the spare in use
takes a pooled connection as before. The kept connection is one of the pool's: it is kept only
if the pool has at least ``KEEP_MIN_POOL`` connections, so the event hub's LISTEN and the reads
still have two. Not kept, and nothing changes: the pool's ``check`` (``POSTGRES_PRE_PING``) does
not see a kept connection, so one the server dropped fails its next write, which the retry
repeats on a new one. ``release`` returns the spare for good before the pool closes
(``PreferansApplication.close``); writes after it take pooled connections.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
from eventsourcing.persistence import (
    InterfaceError,
    OperationalError,
    ProgrammingError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.utils import retry
from psycopg import errors, generators, pq
from psycopg.sql import SQL, Composable, Identifier, Literal

from service.app.dbapi import library_error

RECORDER_TOPIC = "service.app.pgrecorder:PostgresOneTripRecorder"
KEEP_MIN_POOL = 4
"""The least pool size (size + overflow) for which the writer keeps a connection of its own."""
_PLAIN = re.compile(r"[A-Za-z0-9_.:]+\Z")
"""A topic that is safe between single quotes as it is (event class topics are)."""


def _text(statement: object) -> bytes:
    assert isinstance(statement, Composable), statement
    return statement.as_bytes(None)


class PostgresOneTripRecorder(PostgresApplicationRecorder):
    """The library's PostgreSQL application recorder, one round trip per insert (a subclass, so
    the event hub, ``service.app.hub``, knows it can LISTEN to it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fixed = [b"BEGIN", *(_text(s) for s in self.lock_table_statements)]
        fixed.append(_text(SQL("NOTIFY {0}").format(Identifier(self.channel_name))))
        insert = SQL(
            "INSERT INTO {schema}.{table} AS t (originator_id, originator_version, topic, state) "
            "VALUES "
        ).format(schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))
        self._head = b";".join([*fixed, _text(insert)])
        self._tail = b" RETURNING notification_id;COMMIT"
        self._topics: dict[str, bytes] = {}
        self._spare: psycopg.Connection[Any] | None = None
        self._spare_expires = 0.0
        self._spare_lock = threading.Lock()
        """Held by the thread writing on the spare connection."""
        self._keeping = self.datastore.pool.max_size >= KEEP_MIN_POOL
        """Whether writes keep a connection (cleared for good by ``release``)."""

    def _topic(self, topic: str, conn: psycopg.Connection[Any]) -> bytes:
        quoted = self._topics.get(topic)
        if quoted is None:
            if not _PLAIN.match(topic):  # quoted for this connection (its encoding)
                return Literal(topic).as_bytes(conn)
            quoted = b"'" + topic.encode("ascii") + b"'"
            if len(self._topics) < 10_000:  # topics are event classes: few
                self._topics[topic] = quoted
        return quoted

    def _values(self, stored_events: Sequence[StoredEvent], conn: psycopg.Connection[Any]) -> bytes:
        """The transaction's text: its fixed statements around one ``VALUES`` row per event
        (``StoredEvent``'s fields are the application's: UUIDs, ints, topics and bytes)."""
        rows = []
        for e in stored_events:
            originator = e.originator_id
            quoted_id = (
                b"'" + str(originator).encode() + b"'"
                if isinstance(originator, uuid.UUID)
                else Literal(str(originator)).as_bytes(conn)
            )
            rows.append(
                b"(%s,%d,%s,decode('%s','hex'))"
                % (
                    quoted_id,
                    int(e.originator_version),
                    self._topic(e.topic, conn),
                    e.state.hex().encode(),
                )
            )
        return self._head + b",".join(rows) + self._tail

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if self.datastore.enable_db_functions or any(v is not None for v in kwargs.values()):
            ids: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
            return ids
        if not stored_events:
            return None
        with self._connection() as conn:
            ids = self._write(conn, stored_events)
        if len(ids) != len(stored_events):  # pragma: no cover - the INSERT returns one per row
            raise ProgrammingError(f"got {len(ids)} notification ids for {len(stored_events)}")
        return ids

    def _write(
        self, conn: psycopg.Connection[Any], stored_events: Sequence[StoredEvent]
    ) -> list[int]:
        """One round trip: the transaction's text, then its results (one per statement; the
        server skips the rest of the text after a failed one, ``COMMIT`` included)."""
        try:
            conn.pgconn.send_query(self._values(stored_events, conn))
            results = conn.wait(generators.execute(conn.pgconn))
            ids: list[int] | None = None
            for result in results:
                if result.status == pq.ExecStatus.FATAL_ERROR:
                    raise errors.error_from_result(result, encoding=conn.info.encoding)
                if (result.command_status or b"").startswith(b"INSERT"):
                    ids = [int(result.get_value(row, 0) or 0) for row in range(result.ntuples)]
            if ids is None:  # pragma: no cover - the INSERT has a result
                raise ProgrammingError("no result for the INSERT")
            return ids
        except BaseException:
            if not conn.closed and conn.info.transaction_status != pq.TransactionStatus.IDLE:
                with contextlib.suppress(psycopg.Error):  # a broken one leaves the pool
                    conn.execute(b"ROLLBACK")  # the failed block (COMMIT was skipped)
            raise

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """The spare connection if it is free, else a pooled one as the library takes it;
        psycopg's errors raised as the library's."""
        kept = self._spare_lock.acquire(blocking=False)
        if kept and not self._keeping:  # released for good (or a pool too small to keep one)
            self._spare_lock.release()
            kept = False
        if not kept:  # the library's way
            with self.datastore.get_connection() as pooled:
                yield pooled
            return
        pool = self.datastore.pool
        conn = None
        try:
            conn, self._spare = self._spare, None
            if conn is not None and time.monotonic() >= self._spare_expires:
                pool.putconn(conn)  # past its lifetime: the pool closes it
                conn = None
            if conn is None:
                opening = self.datastore.pool_open_timeout
                pool.open(opening is not None, opening or 30.0)  # as the library's does
                conn = pool.getconn()
                # The pool's own expiry of the connection (from its creation); else from now.
                expires = getattr(conn, "_expire_at", None)
                self._spare_expires = (
                    expires
                    if isinstance(expires, float)
                    else time.monotonic() + float(pool.max_lifetime)
                )
            yield conn
            self._spare, conn = conn, None
        except psycopg.Error as exc:
            raise library_error(exc) from exc
        finally:
            if conn is not None:  # failed or interrupted: checked by the pool (closed if broken)
                with contextlib.suppress(Exception):
                    pool.putconn(conn)
            self._spare_lock.release()

    def release(self) -> None:
        """Give the spare connection back to the pool for good (before the pool closes):
        later writes take pooled connections."""
        with self._spare_lock:
            self._keeping = False
            conn, self._spare = self._spare, None
        if conn is not None:
            with contextlib.suppress(Exception):
                self.datastore.pool.putconn(conn)
