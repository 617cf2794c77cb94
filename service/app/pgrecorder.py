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
"""

from __future__ import annotations

import contextlib
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
from psycopg.sql import SQL, Composable, Identifier

RECORDER_TOPIC = "service.app.pgrecorder:PostgresOneTripRecorder"


def _text(statement: object) -> bytes:
    assert isinstance(statement, Composable), statement
    return statement.as_bytes(None)


class PostgresOneTripRecorder(PostgresApplicationRecorder):
    """The library's PostgreSQL application recorder, one round trip per insert. (The name keeps
    "Postgres": the event hub recognises the store it can LISTEN to by it, ``service.app.hub``.)"""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fixed = [b"BEGIN", *(_text(s) for s in self.lock_table_statements)]
        fixed.append(_text(SQL("NOTIFY {0}").format(Identifier(self.channel_name))))
        self._transaction = b";".join(
            [
                *(statement.replace(b"%", b"%%") for statement in fixed),
                _text(self.insert_events_statement),
                b"COMMIT",
            ]
        )

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if self.datastore.enable_db_functions or any(v is not None for v in kwargs.values()):
            ids: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
            return ids
        if not stored_events:
            return None
        rows = [
            self.construct_pg_stored_event(e.originator_id, e.originator_version, e.topic, e.state)
            for e in stored_events
        ]
        with self.datastore.get_connection() as conn, ClientCursor(conn) as curs:
            try:
                curs.execute(self._transaction, (rows,))
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
