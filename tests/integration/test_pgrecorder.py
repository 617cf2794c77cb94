"""The one-round-trip PostgreSQL recorder (``service.app.pgrecorder``): the library's rows,
ids and errors, with COMMIT in the INSERT's round trip."""

from __future__ import annotations

import uuid

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder

from service.app.application import PreferansApplication
from service.app.pgrecorder import PostgresOneTripRecorder
from tests.integration.helpers import AppFactory


def _postgres(app: PreferansApplication) -> PostgresOneTripRecorder:
    if app.db.flavor != "postgres":
        pytest.skip("a PostgreSQL recorder")
    recorder = app.recorder
    assert isinstance(recorder, PostgresOneTripRecorder)
    return recorder


def _events(game: uuid.UUID, versions: range) -> list[StoredEvent]:
    # Bytes that need escaping in SQL text and in a composite's text form.
    state = b"\x00\x01'\"\\,(){}%s\xff" * 3
    return [StoredEvent(game, v, f"t.{v}", state + bytes([v])) for v in versions]


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
    games = [uuid.uuid4() for _ in range(3)]
    batches = [_events(games[0], range(1, 4)), _events(games[1], range(1, 2))]
    batches.append(_events(games[2], range(1, 6)) + _events(games[0], range(4, 6)))
    for batch in batches:
        assert ours.insert_events(batch) == library.insert_events(batch)
    assert _rows(ours) == _rows(library)
    assert [n.state for n in ours.select_notifications(1, 100)] == [
        e.state for batch in batches for e in batch
    ]


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
    assert ours.insert_events(_events(game, range(1, 3))) == [1, 2]
    with pytest.raises(IntegrityError):
        ours.insert_events(_events(other, range(1, 3)) + _events(game, range(2, 4)))
    assert [r[1:3] for r in _rows(ours)] == [(game, 1), (game, 2)]
    # The connections went back to the pool usable: the next write commits.
    for _ in range(ours.datastore.pool.max_size + 1):
        ids = ours.insert_events(_events(uuid.uuid4(), range(1, 2)))
        assert ids is not None and len(ids) == 1
    assert ours.max_notification_id() == ids[0]
