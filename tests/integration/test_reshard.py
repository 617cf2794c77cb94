"""Changing the shard count safely (docs/SCALING.md): ``pref reshard`` copies a stopped store
into a new store with another count. Every game's events arrive unchanged in their new shard
(the audit chain holds), revocations come along, the projections are built, and a target that
already holds events is refused."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from domain.rules import RuleSet
from projections import standard_runners
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.config import ConfigError, postgres_store, sqlite_store
from service.app.reshard import reshard
from service.app.shards import recorders_of, shard_of
from service.cli import main as pref
from tests.integration.conftest import POSTGRES_URL
from tests.integration.helpers import PLAYERS, dump_tables, play, store_argument


@pytest.fixture
def target_env(store_env: dict[str, str], tmp_path: Path) -> Iterator[dict[str, str]]:
    """A second fresh store of the same kind as ``store_env``."""
    if store_env["PERSISTENCE_MODULE"].endswith("sqlite"):
        yield sqlite_store(str(tmp_path / "resharded.sqlite")).env
        return
    schema = f"t_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield postgres_store(f"{POSTGRES_URL}?schema={schema}").env
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
            )


def _stored(app: PreferansApplication, game: uuid.UUID) -> list[tuple[int, str, bytes]]:
    return [
        (e.originator_version, e.topic, bytes(e.state)) for e in app.recorder.select_events(game)
    ]


def test_reshard_one_shard_into_three(
    store_env: dict[str, str], target_env: dict[str, str]
) -> None:
    source = PreferansApplication(store_env)
    try:
        games = [
            source.create_game(PLAYERS, f"r{i}", RuleSet(pool_target=2)).game_id for i in range(6)
        ]
        play(source, games[0], prefix="a")
        play(source, games[1], stop=lambda g: g.version > 20, prefix="b")
        source.revoke_tokens(games[2], [1])
        target = PreferansApplication({**target_env, "PREF_SHARDS": "3"})
        try:
            report = reshard(source, target)
            assert report.games == 6 and report.shards == 3 and report.revocations == 1
            assert report.events == sum(len(source.game_events(g)) for g in games)
            shards = recorders_of(target.recorder)
            for game in games:
                assert _stored(target, game) == _stored(source, game)
                assert shards[shard_of(game, 3)].select_events(game)
                assert verify_game(target, game).discrepancy is None
            used = {k for k, n in enumerate(report.per_shard) if n}
            assert {shard_of(g, 3) for g in games} == used
            assert target.revocations.of_game(games[2]) == source.revocations.of_game(games[2])
            for runner in standard_runners(source, source.db).values():
                runner.catch_up()
            # The same views (the rating chain's positions differ: another apply order).
            views = ("games", "stats_games", "stats_players", "stats_leagues", "stats_pairs")
            assert dump_tables(target.db, views) == dump_tables(source.db, views)
            with pytest.raises(ConfigError, match="already holds events"):
                reshard(source, target)
        finally:
            target.close()
    finally:
        source.close()


def test_pref_reshard_command(
    store_env: dict[str, str], target_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    source = PreferansApplication(store_env)
    try:
        game = source.create_game(PLAYERS, "cli").game_id
    finally:
        source.close()
    to = store_argument(target_env)
    assert pref(["reshard", "--from", store_argument(store_env), "--to", to, "--shards", "2"]) == 0
    assert "into 2 shards" in capsys.readouterr().out
    again = PreferansApplication(target_env)  # the new store took its count
    try:
        assert len(recorders_of(again.recorder)) == 2
        assert len(again.game_events(game)) == 2
    finally:
        again.close()
    same = store_argument(store_env)
    assert pref(["reshard", "--from", same, "--to", same, "--shards", "2"]) == 2
    assert "same store" in capsys.readouterr().err
