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
"""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Sequence
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
from psycopg import ClientCursor, pq
from psycopg.sql import SQL, Composable, Identifier, Literal

RECORDER_TOPIC = "service.app.pgrecorder:PostgresOneTripRecorder"
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
        with self.datastore.get_connection() as conn, ClientCursor(conn) as curs:
            try:
                curs.execute(self._values(stored_events, conn))
                while not (curs.statusmessage or "").startswith("INSERT"):
                    if not curs.nextset():  # pragma: no cover - the INSERT has a result
                        raise ProgrammingError("no result for the INSERT")
                ids = [row["notification_id"] for row in curs.fetchall()]
            except BaseException:
                if conn.info.transaction_status != pq.TransactionStatus.IDLE:
                    with contextlib.suppress(psycopg.Error):  # a broken one leaves the pool
                        conn.execute(b"ROLLBACK")  # the failed block (COMMIT was skipped)
                raise  # mapped to the library's errors by get_connection
        if len(ids) != len(stored_events):  # pragma: no cover - the INSERT returns one per row
            raise ProgrammingError(f"got {len(ids)} notification ids for {len(stored_events)}")
        return ids
