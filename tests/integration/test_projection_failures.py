"""A projection that cannot apply an event stops there visibly, on both stores: its status turns
not serving (with the position and the error's type), an error is logged without the event's
content, a failure is counted, the events before it are applied, nothing after it is skipped,
and it recovers once the event can be applied. A rebuild that meets such an event keeps the
live view."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from prometheus_client import REGISTRY
from structlog.testing import capture_logs

from projections import ProjectionWorker, standard_runners
from projections.runner import ProjectionFailed, ProjectionRunner
from projections.worker import ProjectionStatus
from service.app.application import PreferansApplication
from service.cli import main
from tests.integration.helpers import (
    create,
    dump_tables,
    events_table,
    execute_raw,
    rewrite_stored_state,
    store_argument,
    stored_state,
    tracking_positions,
)

READ_PLAYERS = ("games", "stats")
"""The projections that read a new game's players (all of them)."""


def _notification_id(app: PreferansApplication, game_id: uuid.UUID, version: int) -> int:
    for notification in app.recorder.select_notifications(start=1, limit=10_000):
        if notification.originator_id == game_id and notification.originator_version == version:
            return int(notification.id)
    raise AssertionError("no such event")


def _listed(app: PreferansApplication) -> set[str]:
    with app.db.reading() as c:
        c.execute("SELECT game_id FROM games")
        return {str(row[0]) for row in c.fetchall()}


def _failures(name: str, kind: str) -> float:
    labels = {"projection": name, "kind": kind}
    return REGISTRY.get_sample_value("preferans_projection_failures_total", labels) or 0.0


def _three_games_the_middle_one_broken(
    app: PreferansApplication, store_env: dict[str, str], change: dict[str, Any]
) -> tuple[list[uuid.UUID], dict[str, Any], int]:
    ids = [create(app, league="ok").game_id for _ in range(3)]
    original = stored_state(app, ids[1], 1)
    rewrite_stored_state(store_env, events_table(app), ids[1], 1, {**original, **change})
    if "players" in change and change["players"] is None:
        broken = dict(original)
        del broken["players"]
        rewrite_stored_state(store_env, events_table(app), ids[1], 1, broken)
    return ids, original, _notification_id(app, ids[1], 1)


def test_an_event_no_projection_can_apply_stops_them_visibly_and_they_recover(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    # A stored event that decodes but lacks a field (as written by a broken version).
    ids, original, poison = _three_games_the_middle_one_broken(app, store_env, {"players": None})
    worker = ProjectionWorker(list(standard_runners(app, app.db).values()), backoff=(0.0, 0.0))
    seen: list[ProjectionStatus] = []
    worker.watch(seen.append)
    assert all(status.serving for status in seen)
    before = {name: _failures(name, "event") for name in READ_PLAYERS}

    with capture_logs() as logs:
        worker.step()

    statuses = worker.statuses()
    for name in READ_PLAYERS:
        status = statuses[name]
        assert not status.serving, name
        assert status.position == poison and not status.transient, status
        assert status.error == "AttributeError", status
        assert _failures(name, "event") == before[name] + 1
    assert {s.name for s in seen if not s.serving} >= set(READ_PLAYERS)
    # The events before the broken one are applied, nothing after it.
    for runner in worker.runners:
        if runner.projection.name in READ_PLAYERS:
            assert runner.position() == poison - 1
    assert _listed(app) == {str(ids[0])}
    stalled = [entry for entry in logs if entry["event"] == "projection_stalled"]
    assert {entry["projection"] for entry in stalled} >= set(READ_PLAYERS)
    for entry in stalled:
        assert entry["log_level"] == "error"
        assert entry["position"] == poison and entry["error_type"] == "AttributeError"
        assert "bob" not in repr(entry) and "cid" not in repr(entry)  # no event content

    # Still broken: retried (here without delay), still stopped there, never skipped.
    worker.step()
    assert not worker.statuses()["games"].serving
    assert _listed(app) == {str(ids[0])}

    # Repaired: the projections go on from where they stopped and serve again.
    rewrite_stored_state(store_env, events_table(app), ids[1], 1, original)
    with capture_logs() as logs:
        worker.step()
    assert all(status.serving for status in worker.statuses().values())
    assert seen[-1].serving
    assert _listed(app) == {str(game_id) for game_id in ids}
    assert {e["projection"] for e in logs if e["event"] == "projection_recovered"} >= set(
        READ_PLAYERS
    )


def test_a_nul_byte_the_store_cannot_hold_stops_games_and_stats_visibly(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    """PostgreSQL text cannot hold NUL (SQLite can): on PostgreSQL the read models that store
    the league stop at that event and say so; on SQLite every event is applied."""
    ids, _, poison = _three_games_the_middle_one_broken(app, store_env, {"league": "a\x00b"})
    worker = ProjectionWorker(list(standard_runners(app, app.db).values()), backoff=(0.0, 0.0))
    with capture_logs() as logs:
        worker.step()
    statuses = worker.statuses()
    if store_env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        assert all(status.serving for status in statuses.values())
        assert _listed(app) == {str(game_id) for game_id in ids}
        return
    for name in ("games", "stats"):
        assert not statuses[name].serving
        assert statuses[name].position == poison
        assert statuses[name].error == "DataError", statuses[name]
    stalled = {e["projection"]: e for e in logs if e["event"] == "projection_stalled"}
    assert set(stalled) == {"games", "stats"}
    assert "\x00" not in repr(stalled)
    assert _listed(app) == {str(ids[0])}


def test_a_rebuild_that_meets_an_event_it_cannot_apply_keeps_the_live_view(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    runners = standard_runners(app, app.db, ("games",))
    ids = [create(app).game_id for _ in range(2)]
    runners["games"].catch_up()
    original = stored_state(app, ids[1], 1)
    broken = {key: value for key, value in original.items() if key != "players"}
    rewrite_stored_state(store_env, events_table(app), ids[1], 1, broken)
    with pytest.raises(ProjectionFailed) as failed:
        runners["games"].rebuild()
    assert failed.value.position == _notification_id(app, ids[1], 1)
    assert "bob" not in str(failed.value)
    assert _listed(app) == {str(game_id) for game_id in ids}
    assert runners["games"].position() == app.recorder.max_notification_id()
    # Nothing of the failed rebuild is left behind.
    assert set(tracking_positions(app.db)) == {"games"}
    with pytest.raises(Exception, match="games__rebuild"):
        dump_tables(app.db, ("games__rebuild",))


def test_pref_projections_rebuild_says_which_event_stops_it_in_one_line(
    app: PreferansApplication, store_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [create(app).game_id for _ in range(2)]
    standard_runners(app, app.db, ("games",))["games"].catch_up()
    original = stored_state(app, ids[1], 1)
    broken = {key: value for key, value in original.items() if key != "players"}
    rewrite_stored_state(store_env, events_table(app), ids[1], 1, broken)

    assert main(["projections", "rebuild", "games", "--store", store_argument(store_env)]) == 1
    err = capsys.readouterr().err
    position = _notification_id(app, ids[1], 1)
    assert f"games: cannot apply the event at position {position} (AttributeError)" in err
    assert "Traceback" not in err and "bob" not in err
    assert _listed(app) == {str(game_id) for game_id in ids}


def test_a_store_failure_is_reported_as_transient_and_the_runner_goes_on(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    """PostgreSQL only: the read models' connections are cut from outside (as a server restart
    or a failover would). SQLite has no connection to lose."""
    if store_env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        pytest.skip("an SQLite file has no server connection to lose")
    ids = [create(app).game_id for _ in range(2)]
    worker = ProjectionWorker(list(standard_runners(app, app.db).values()), backoff=(0.0, 0.0))
    worker.step()
    pids = set()
    for _ in range(3):
        with app.db.reading() as c:
            c.execute("SELECT pg_backend_pid()")
            pids.add(int(c.fetchone()[0]))
    before = {name: _failures(name, "transient") for name in worker.statuses()}
    cut = [("SELECT pg_terminate_backend(?)", (pid,)) for pid in sorted(pids)]
    execute_raw(store_env, cut)
    ids.append(create(app).game_id)

    with capture_logs() as logs:
        worker.step()
    failed = [e for e in logs if e["event"] == "projection_store_failed"]
    assert failed, logs
    for entry in failed:
        assert entry["log_level"] == "warning"
        name = entry["projection"]
        assert _failures(name, "transient") == before[name] + 1
        status = worker.statuses()[name]
        assert not status.serving and status.transient and status.error, status
    assert not [e for e in logs if e["event"] == "projection_stalled"]

    worker.step()  # retried (here at once) on a new connection
    assert all(status.serving for status in worker.statuses().values())
    assert _listed(app) == {str(game_id) for game_id in ids}


class _Probe:
    """A projection that records the position each event is given, and cannot apply one."""

    name = "probe"
    tables: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()

    def __init__(self, poison: int) -> None:
        self.poison = poison
        self.seen: list[tuple[int, int]] = []
        self._id = 0
        """The notification being decoded (set by the test's mapper)."""

    def create_tables(self, c: Any) -> None:
        pass

    def drop_tables(self, c: Any) -> None:
        pass

    def process(self, event: Any, position: int) -> None:
        self.seen.append((self._id, position))
        if self._id == self.poison:
            raise ValueError("cannot apply")

    def flush(self, c: Any) -> None:
        pass

    def reset(self) -> None:
        pass


def test_events_retried_one_by_one_keep_their_positions(app: PreferansApplication) -> None:
    """After a failed batch the events are applied one at a time; each keeps its position in
    the log (the stats' rating chain is ordered by it), also when the batch did not start at
    the beginning of the log."""
    create(app)
    create(app)  # events 1-4: two games created and dealt
    probe = _Probe(poison=4)
    runner = ProjectionRunner(app, app.db, probe, batch=2)
    mapper = app.mapper.to_domain_event

    def numbered(notification: Any) -> Any:
        probe._id = notification.id
        return mapper(notification)

    app.mapper.to_domain_event = numbered  # type: ignore[method-assign,assignment]
    assert runner.run_once() == 2  # events 1 and 2
    with pytest.raises(ProjectionFailed):
        runner.run_once()  # the batch [3, 4] fails at 4; 3 is applied alone, then 4 fails
    assert probe.seen == [(1, 1), (2, 2), (3, 3), (4, 4), (3, 3), (4, 4)]
    assert runner.position() == 3
