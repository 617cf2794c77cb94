"""The one-round-trip PostgreSQL recorder (``service.app.pgrecorder``): the library's rows,
ids and errors, with COMMIT in the INSERT's round trip, on a connection the writer keeps."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, PersistenceError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg import errors

from service.app.application import PreferansApplication
from service.app.dbapi import library_error
from service.app.pgrecorder import PostgresOneTripRecorder
from tests.integration.conftest import _admin_connection
from tests.integration.helpers import AppFactory, awkward_events, store_recorder, write_alike


def _postgres(app: PreferansApplication) -> PostgresOneTripRecorder:
    return store_recorder(app, "postgres", PostgresOneTripRecorder)


def _rows(recorder: PostgresApplicationRecorder) -> list[tuple[object, ...]]:
    with recorder.datastore.get_connection() as conn, conn.cursor() as cur:
        cur.execute(
            f'SELECT notification_id, originator_id, originator_version, topic, state FROM "'
            f'{recorder.datastore.schema}"."{recorder.events_table_name}" ORDER BY 1'
        )
        return [tuple(row.values()) for row in cur.fetchall()]


def test_the_same_rows_and_ids_as_the_librarys_recorder(open_app: AppFactory) -> None:
    app = open_app()
    ours = _postgres(app)
    library = PostgresApplicationRecorder(ours.datastore, events_table_name="library_events")
    library.create_table()
    write_alike(ours, library)
    assert _rows(ours) == _rows(library)


def test_topics_that_need_quoting_and_ids_given_as_text_are_stored_as_given(
    open_app: AppFactory,
) -> None:
    """The rows are written as SQL text (``_values``): a topic with a quote, a percent sign,
    a backslash or non-ASCII letters, and an originator id given as a string, are stored as
    the library's recorder stores them."""
    app = open_app()
    ours = _postgres(app)
    library = PostgresApplicationRecorder(ours.datastore, events_table_name="library_odd")
    library.create_table()
    game = uuid.uuid4()
    topics = ["a'b", "100%s done", "back\\slash", "пуля:Вист", "x'); DROP TABLE t; --"]
    batch = [
        StoredEvent(str(game) if v % 2 else game, v, topic, bytes(range(v, v + 40)))
        for v, topic in enumerate(topics, start=1)
    ]
    assert ours.insert_events(batch) == library.insert_events(batch)
    assert _rows(ours) == _rows(library)
    assert [(n.topic, n.state) for n in ours.select_notifications(1, 100)] == [
        (e.topic, e.state) for e in batch
    ]


def test_a_lost_race_is_an_integrity_error_and_writes_nothing(open_app: AppFactory) -> None:
    app = open_app()
    ours = _postgres(app)
    game, other = uuid.uuid4(), uuid.uuid4()
    assert ours.insert_events(awkward_events(game, range(1, 3))) == [1, 2]
    with pytest.raises(IntegrityError):
        ours.insert_events(awkward_events(other, range(1, 3)) + awkward_events(game, range(2, 4)))
    assert [r[1:3] for r in _rows(ours)] == [(game, 1), (game, 2)]
    # The connections went back to the pool usable: the next write commits.
    for _ in range(ours.datastore.pool.max_size + 1):
        ids = ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2)))
        assert ids is not None and len(ids) == 1
    assert ours.max_notification_id() == ids[0]


def _count_checkouts(
    recorder: PostgresOneTripRecorder, monkeypatch: pytest.MonkeyPatch
) -> list[int]:
    taken: list[int] = []
    getconn = recorder.datastore.pool.getconn

    def counted(*args: Any, **kwargs: Any) -> Any:
        conn = getconn(*args, **kwargs)
        taken.append(id(conn))
        return conn

    monkeypatch.setattr(recorder.datastore.pool, "getconn", counted)
    return taken


def test_the_writer_keeps_one_connection_and_gives_it_back_at_close(
    open_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty writes take one connection from the pool, once; closing the application gives it
    back (so the pool closes it) instead of leaving it open."""
    app = open_app()
    ours = _postgres(app)
    taken = _count_checkouts(ours, monkeypatch)
    for _ in range(20):
        ours.insert_events(awkward_events(uuid.uuid4(), range(1, 3)))
    assert len(taken) == 1
    kept = ours._spare
    assert kept is not None and not kept.closed
    app.close()
    assert kept.closed and ours._spare is None


def test_a_writer_that_finds_the_kept_connection_busy_takes_a_pooled_one(
    open_app: AppFactory,
) -> None:
    app = open_app()
    ours = _postgres(app)
    ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2)))
    kept = ours._spare
    with ours._spare_lock:  # as while another thread writes on it
        done = []
        thread = threading.Thread(
            target=lambda: done.append(
                ours.insert_events(awkward_events(uuid.uuid4(), range(1, 3)))
            )
        )
        thread.start()
        thread.join(timeout=10)
        assert done and done[0] is not None and len(done[0]) == 2
    assert ours._spare is kept


def test_a_kept_connection_that_the_server_dropped_is_replaced_and_nothing_is_lost(
    open_app: AppFactory,
) -> None:
    """The server ends the kept connection's session (a restart, an administrator): the next
    write fails on it, the connection goes back to the pool (which discards it), and the
    retry writes on a new one: every event is stored once."""
    app = open_app()
    ours = _postgres(app)
    first = uuid.uuid4()
    ours.insert_events(awkward_events(first, range(1, 3)))
    kept = ours._spare
    assert kept is not None
    with _admin_connection() as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (kept.info.backend_pid,))
    second = uuid.uuid4()
    ids = ours.insert_events(awkward_events(second, range(1, 4)))
    assert ids is not None and len(ids) == 3
    assert ours._spare is not None and ours._spare is not kept
    assert [r[1:3] for r in _rows(ours)] == [(first, 1), (first, 2)] + [
        (second, v) for v in range(1, 4)
    ]


@pytest.mark.parametrize(
    "error",
    [
        errors.UniqueViolation("duplicate"),
        errors.QueryCanceled("lock timeout"),
        errors.AdminShutdown("terminated"),
        errors.InvalidTextRepresentation("bad"),
        errors.UndefinedTable("no table"),
        errors.FeatureNotSupported("no"),
        errors.InternalError_("internal"),
        psycopg.InterfaceError("closed"),
        psycopg.DatabaseError("other"),
        psycopg.Error("any"),
    ],
)
def test_errors_on_the_kept_connection_are_the_librarys(
    open_app: AppFactory, error: psycopg.Error
) -> None:
    """Writes on the kept connection bypass the library's ``get_connection``; their errors are
    mapped to the library's errors as it maps them."""
    ours = _postgres(open_app())
    with pytest.raises(PersistenceError) as library, ours.datastore.get_connection():
        raise error
    assert type(library_error(error)) is type(library.value)


def _app_with(store_env: dict[str, str], **extra: str) -> PreferansApplication:
    if "POSTGRES_DBNAME" not in store_env:
        pytest.skip("a PostgreSQL recorder")
    return PreferansApplication(dict(store_env, PREF_GROUP_COMMIT="n", **extra))


def test_a_kept_connection_goes_back_once_the_pool_would_expire_it(
    store_env: dict[str, str],
) -> None:
    """The pool retires a connection ``max_lifetime`` after it was created, not after it was
    taken: the writer gives its kept connection back then (the pool closes it) and takes
    another, instead of writing on it for up to another lifetime."""
    app = _app_with(store_env, POSTGRES_CONN_MAX_AGE="2")
    try:
        ours = _postgres(app)
        time.sleep(1.2)  # the pool's connections are 1.2 s old
        ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2)))
        kept = ours._spare
        assert kept is not None
        time.sleep(1.2)  # 2.4 s old: past its lifetime, though taken 1.2 s ago
        ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2)))
        assert ours._spare is not kept and kept.closed
    finally:
        app.close()


def test_a_pool_too_small_to_spare_a_connection_is_used_as_the_library_uses_it(
    store_env: dict[str, str],
) -> None:
    """With a pool of one connection (the library accepts it), keeping it would starve every
    read: nothing is kept, and a read after a write is served at once."""
    app = _app_with(store_env, POSTGRES_POOL_SIZE="1", POSTGRES_MAX_OVERFLOW="0")
    try:
        ours = _postgres(app)
        assert ours.insert_events(awkward_events(uuid.uuid4(), range(1, 3))) == [1, 2]
        assert ours._spare is None
        assert ours.max_notification_id() == 2
    finally:
        app.close()


def test_writes_after_release_keep_nothing(open_app: AppFactory) -> None:
    """``release`` (the application closing) is for good: a write that still comes takes a
    pooled connection and gives it back, so the pool's closing closes every connection."""
    ours = _postgres(open_app())
    ours.insert_events(awkward_events(uuid.uuid4(), range(1, 2)))
    ours.release()
    ids = ours.insert_events(awkward_events(uuid.uuid4(), range(1, 3)))
    assert ids is not None and len(ids) == 2
    assert ours._spare is None
