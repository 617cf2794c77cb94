"""Games spread over several event tables (PostgreSQL) or files (SQLite): docs/SCALING.md.

The shard is a pure, stable function of the game id; each game's events land in its shard's
table or file and nowhere else; projections, audits and rebuilds read every shard; the shard
count is fixed in the store once chosen, and a process asking for another is refused."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from domain.rules import RuleSet
from projections import standard_runners
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.config import ConfigError
from service.app.shards import (
    MAX_SHARDS,
    ShardedRecorder,
    parse_shards,
    recorders_of,
    shard_app_name,
    shard_of,
    shard_sqlite_path,
)
from tests.integration.conftest import POSTGRES_URL
from tests.integration.helpers import (
    PLAYERS,
    create,
    dump_tables,
    play,
    store_argument,
    tracking_positions,
)


def _sharded(env: dict[str, str], shards: int) -> dict[str, str]:
    return {**env, "PREF_SHARDS": str(shards)}


def test_shard_of_is_a_stable_function_of_the_game_id() -> None:
    """Pinned values: a change to the function would hide every existing game of a sharded
    store, so it must never change (not Python's per-process ``hash``)."""
    zero = uuid.UUID(int=0)
    other = uuid.UUID("12345678-1234-5678-1234-567812345678")
    named = uuid.uuid5(uuid.NAMESPACE_URL, "pref")
    assert [shard_of(zero, n) for n in (1, 2, 3, 8, 256)] == [0, 1, 2, 1, 225]
    assert [shard_of(other, n) for n in (1, 2, 3, 8, 256)] == [0, 0, 2, 0, 16]
    assert [shard_of(named, n) for n in (1, 2, 3, 8, 256)] == [0, 1, 2, 7, 87]
    assert shard_of(str(named), 8) == shard_of(named.hex, 8) == 7


def test_shard_of_spreads_games_evenly() -> None:
    counts = [0] * 4
    for i in range(4000):
        counts[shard_of(uuid.uuid5(uuid.NAMESPACE_OID, str(i)), 4)] += 1
    assert all(900 <= count <= 1100 for count in counts), counts


@pytest.mark.parametrize("text", ["0", "-1", "257", "1.5", "two", " 3x"])
def test_invalid_shard_counts_are_refused(text: str) -> None:
    with pytest.raises(ConfigError, match="1 to 256"):
        parse_shards(text)


def test_shard_count_parsing() -> None:
    assert parse_shards(None) is None and parse_shards("") is None
    assert parse_shards("3") == 3 and parse_shards(MAX_SHARDS) == MAX_SHARDS


def test_shard_names_are_generated_from_the_number() -> None:
    assert [shard_app_name("preferans", k) for k in (0, 1, 12)] == [
        "preferans",
        "preferans_s1",
        "preferans_s12",
    ]
    assert shard_sqlite_path("/data/preferans.sqlite", 0) == "/data/preferans.sqlite"
    assert shard_sqlite_path("/data/preferans.sqlite", 2) == "/data/preferans.shard2.sqlite"


def _tables(env: dict[str, str]) -> set[str]:
    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (env["POSTGRES_SCHEMA"],),
        ).fetchall()
    return {str(row[0]) for row in rows}


def test_each_game_lands_in_its_shard_only(store_env: dict[str, str]) -> None:
    app = PreferansApplication(_sharded(store_env, 3))
    try:
        shards = recorders_of(app.recorder)
        assert isinstance(app.recorder, ShardedRecorder) and len(shards) == 3
        games = [app.create_game(PLAYERS, f"land-{i}").game_id for i in range(12)]
        assert {shard_of(g, 3) for g in games} == {0, 1, 2}
        for game in games:
            home = shard_of(game, 3)
            for k, shard in enumerate(shards):
                found = shard.select_events(game)
                assert (len(found) > 0) == (k == home), (game, k)
            assert len(app.game_events(game)) == len(shards[home].select_events(game))
    finally:
        app.close()
    if store_env["PERSISTENCE_MODULE"].endswith("postgres"):
        assert {"preferans_events", "preferans_s1_events", "preferans_s2_events"} <= _tables(
            store_env
        )
    else:
        main = store_env["SQLITE_DBNAME"]
        assert Path(shard_sqlite_path(main, 1)).exists()
        assert Path(shard_sqlite_path(main, 2)).exists()


def test_a_write_never_spans_two_shards(store_env: dict[str, str]) -> None:
    """One transaction is one store: a batch of games from two shards is refused whole."""
    app = PreferansApplication(_sharded(store_env, 2))
    try:
        ids = [uuid.uuid5(uuid.NAMESPACE_OID, str(i)) for i in range(8)]
        a = next(i for i in ids if shard_of(i, 2) == 0)
        b = next(i for i in ids if shard_of(i, 2) == 1)
        template = app.recorder.select_events(create(app).game_id)[0]
        events = [
            type(template)(originator_id=g, originator_version=1, topic="x", state=b"{}")
            for g in (a, b)
        ]
        with pytest.raises(ValueError, match="spans several shards"):
            app.recorder.insert_events(events)
        assert app.recorder.select_events(a) == [] and app.recorder.select_events(b) == []
    finally:
        app.close()


def test_projections_audit_and_rebuild_follow_every_shard(store_env: dict[str, str]) -> None:
    """The game list has every game of every shard at its current version; the stats see
    every finished game; an audit verifies a game of any shard; a rebuild gives the same
    views; each shard has its own tracking row."""
    sharded = PreferansApplication(_sharded(store_env, 2))
    try:
        games = [sharded.create_game(PLAYERS, f"p{i}", RuleSet(pool_target=2)) for i in range(4)]
        assert {shard_of(g.game_id, 2) for g in games} == {0, 1}
        for i, game in enumerate(games[:2]):
            play(sharded, game.game_id, prefix=f"g{i}")
        runners = standard_runners(sharded, sharded.db)
        for runner in runners.values():
            runner.catch_up()
            assert runner.position() == runner.max_position() > 0
        positions = tracking_positions(sharded.db)
        assert positions["games"] > 0 and positions["games@1"] > 0
        assert positions["games"] + positions["games@1"] == runners["games"].max_position()
        live = dump_tables(sharded.db)
        with sharded.db.reading() as c:  # by column name (dump_tables orders columns by name)
            c.execute("SELECT game_id, status, version FROM games")
            listed = {str(row[0]): (row[1], row[2]) for row in c.fetchall()}
            c.execute("SELECT DISTINCT game_id FROM stats_results")
            finished = {str(row[0]) for row in c.fetchall()}
        for game in games:
            current = sharded.get_game(game.game_id)
            status = "finished" if current.finished else "playing"
            assert listed[str(game.game_id)] == (status, current.version)
        assert len(finished) == 2  # both finished games
        for game in games:
            report = verify_game(sharded, game.game_id)
            assert report.discrepancy is None
            assert report.events == len(sharded.game_events(game.game_id))
        for runner in runners.values():
            runner.rebuild()
        assert dump_tables(sharded.db) == live
        assert tracking_positions(sharded.db) == positions
    finally:
        sharded.close()


def test_the_shard_count_is_fixed_once_chosen(store_env: dict[str, str]) -> None:
    PreferansApplication(_sharded(store_env, 2)).close()
    with pytest.raises(ConfigError, match="has 2 shard"):
        PreferansApplication(_sharded(store_env, 3))
    with pytest.raises(ConfigError, match="has 2 shard"):
        PreferansApplication(_sharded(store_env, 1))
    again = PreferansApplication(store_env)  # no count asked: the store's
    try:
        assert len(recorders_of(again.recorder)) == 2
    finally:
        again.close()


def test_a_store_with_games_cannot_be_given_more_shards(store_env: dict[str, str]) -> None:
    """A store written before sharding (no recorded count) keeps its one shard."""
    app = PreferansApplication(store_env)
    create(app)
    app.close()
    if store_env["PERSISTENCE_MODULE"].endswith("postgres"):
        with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP TABLE {}").format(
                    sql.Identifier(store_env["POSTGRES_SCHEMA"], "store_layout")
                )
            )
    else:
        import sqlite3

        with sqlite3.connect(store_env["SQLITE_DBNAME"]) as conn:
            conn.execute("DROP TABLE store_layout")
    with pytest.raises(ConfigError, match="already holds games in one shard"):
        PreferansApplication(_sharded(store_env, 2))
    reopened = PreferansApplication(store_env)
    try:
        assert not isinstance(reopened.recorder, ShardedRecorder)
    finally:
        reopened.close()


def test_pref_migrate_refuses_another_shard_count(store_env: dict[str, str]) -> None:
    store = store_argument(store_env)

    def migrate(*extra: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "service.cli", "migrate", "--store", store, *extra]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)

    assert migrate("--shards", "2").returncode == 0
    refused = migrate("--shards", "4")
    assert refused.returncode != 0
    assert "has 2 shard(s), not 4" in refused.stderr and "Traceback" not in refused.stderr
    assert migrate().returncode == 0
    usage = migrate("--shards", "0")
    assert usage.returncode == 2 and "1 to 256" in usage.stderr


@pytest.mark.parametrize("value", ["0", "300", "many"])
def test_pref_serve_refuses_a_bad_shard_count(
    value: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from service.cli import main as pref

    with pytest.raises(SystemExit) as exited:
        pref(["serve", "--store", str(tmp_path / "s.sqlite"), "--shards", value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--shards" in err and "1 to 256" in err and "Traceback" not in err
    assert not (tmp_path / "s.sqlite").exists()  # refused before the store was touched


def test_the_event_hub_follows_every_shard(store_env: dict[str, str]) -> None:
    """Watchers and cache invalidation hear about games of every shard written by another
    process (one LISTEN or one SQLite poller per shard)."""
    import queue
    import time

    from service.app.hub import EventHub

    env = _sharded(store_env, 2)
    follower, writer = PreferansApplication(env), PreferansApplication(env)
    hub = EventHub()
    heard: queue.Queue[tuple[uuid.UUID, int]] = queue.Queue()
    try:
        hub.follow(follower.recorder, on_event=lambda game, version: heard.put((game, version)))
        time.sleep(0.5)  # the subscriptions are open before the writes
        games = [writer.create_game(PLAYERS, f"hub-{i}").game_id for i in range(6)]
        assert {shard_of(g, 2) for g in games} == {0, 1}
        waiting = {(g, 2) for g in games}  # creation and first deal: versions 1 and 2
        deadline = time.monotonic() + 60  # liveness on a loaded machine, not a timing check
        while waiting and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                waiting.discard(heard.get(timeout=1))
        assert not waiting, f"never heard of {waiting}"
    finally:
        hub.stop()
        follower.close()
        writer.close()
