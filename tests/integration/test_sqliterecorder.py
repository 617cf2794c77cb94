"""The SQLite recorder whose writer keeps its connection (``service.app.sqliterecorder``): the
library's rows, ids and errors, written on one connection instead of one from the pool each
time."""

from __future__ import annotations

import sqlite3
import threading
import uuid

import pytest
from eventsourcing.persistence import IntegrityError, PersistenceError
from eventsourcing.sqlite import SQLiteApplicationRecorder

from service.app.application import PreferansApplication
from service.app.dbapi import library_error
from service.app.sqliterecorder import SqliteKeptWriterRecorder
from tests.integration.helpers import AppFactory, awkward_events, store_recorder, write_alike


def _sqlite(app: PreferansApplication) -> SqliteKeptWriterRecorder:
    return store_recorder(app, "sqlite", SqliteKeptWriterRecorder)


def _rows(recorder: SQLiteApplicationRecorder) -> list[tuple[object, ...]]:
    with recorder.datastore.transaction(commit=False) as c:
        c.execute(
            "SELECT rowid, originator_id, originator_version, topic, state "
            f"FROM {recorder.events_table_name} ORDER BY rowid"
        )
        return [tuple(row) for row in c.fetchall()]


def test_the_same_rows_and_ids_as_the_librarys_recorder(open_app: AppFactory) -> None:
    ours = _sqlite(open_app())
    library = SQLiteApplicationRecorder(ours.datastore, events_table_name="library_events")
    library.create_table()
    write_alike(ours, library)
    assert _rows(ours) == _rows(library)


def test_the_writer_keeps_one_connection_and_closes_it_at_release(open_app: AppFactory) -> None:
    ours = _sqlite(open_app())
    ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2)))
    kept = ours._writer
    assert kept is not None
    for _ in range(20):
        ours.insert_events(awkward_events(uuid.uuid4(), range(1, 3)))
    assert ours._writer is kept
    ours.release()
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        kept.execute("SELECT 1")
    ids = ours.insert_events(awkward_events(uuid.uuid4(), range(1, 3)))  # the library's way now
    assert ids is not None and len(ids) == 2 and ours._writer is None


def test_a_lost_race_is_an_integrity_error_and_writes_nothing(open_app: AppFactory) -> None:
    ours = _sqlite(open_app())
    game, other = uuid.uuid4(), uuid.uuid4()
    assert ours.insert_events(awkward_events(game, range(1, 3))) == [1, 2]
    kept = ours._writer
    with pytest.raises(IntegrityError):
        ours.insert_events(awkward_events(other, range(1, 3)) + awkward_events(game, range(2, 4)))
    assert [r[1:3] for r in _rows(ours)] == [(game.hex, 1), (game.hex, 2)]
    assert ours._writer is kept and kept is not None and not kept.in_transaction  # kept
    assert ours.insert_events(awkward_events(other, range(1, 2))) == [3]


def test_writers_take_turns_on_the_kept_connection(open_app: AppFactory) -> None:
    """A second writer of this process waits for the kept connection (woken as soon as it is
    free) instead of racing it for SQLite's file lock, whose busy handler sleeps in steps of
    up to 100 ms (a review measured waits of seconds); past the pool's timeout it takes the
    library's way."""
    ours = _sqlite(open_app())
    ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2)))
    kept = ours._writer
    done: list[object] = []

    def write() -> None:
        done.append(ours.insert_events(awkward_events(uuid.uuid4(), range(1, 3))))

    with ours._writer_lock:  # as while another thread writes on it
        thread = threading.Thread(target=write)
        thread.start()
        thread.join(timeout=0.3)
        assert thread.is_alive() and done == []  # waiting its turn
    thread.join(timeout=10)
    assert done == [[2, 3]] and ours._writer is kept
    ours.datastore.pool.pool_timeout = 0.1
    with ours._writer_lock:
        thread = threading.Thread(target=write)
        thread.start()
        thread.join(timeout=10)
    assert done[-1] == [4, 5]  # written the library's way after the timeout


def test_a_kept_connection_that_failed_is_opened_again(open_app: AppFactory) -> None:
    """An error other than a lost race closes the kept connection (it may be unsound): the
    error is the library's, and the next write opens a new one."""
    ours = _sqlite(open_app())
    ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2)))
    broken = ours._writer
    assert broken is not None
    broken.close()  # as a connection that went bad
    with pytest.raises(PersistenceError):
        ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2)))
    assert ours._writer is None
    assert ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2))) == [2]
    assert ours._writer is not None and ours._writer is not broken


@pytest.mark.parametrize(
    "error",
    [
        sqlite3.IntegrityError("UNIQUE constraint failed"),
        sqlite3.OperationalError("database is locked"),
        sqlite3.ProgrammingError("closed"),
        sqlite3.InterfaceError("bad parameter"),
        sqlite3.DataError("too big"),
        sqlite3.InternalError("internal"),
        sqlite3.NotSupportedError("no"),
        sqlite3.DatabaseError("malformed"),
        sqlite3.Error("any"),
    ],
)
def test_errors_on_the_kept_connection_are_the_librarys(
    open_app: AppFactory, error: sqlite3.Error
) -> None:
    """Writes on the kept connection bypass the library's transaction; their errors are mapped
    as its ``SQLiteTransaction`` maps them."""
    ours = _sqlite(open_app())
    with pytest.raises(PersistenceError) as library, ours.datastore.transaction(commit=True):
        raise error
    assert type(library_error(error)) is type(library.value)
