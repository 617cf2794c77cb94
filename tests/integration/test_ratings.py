"""Ratings after rulings, on both stores (docs/STATS.md "Rulings", "The skill rating"): a ruling
after a game's end that changes who finished ahead re-rates the league from that game on (Elo
and the skill rating), the leaderboard marks the players of the ruled game, and the tables then
equal a rebuild's, whatever the batches; a ruling that keeps the order changes no rating."""

from __future__ import annotations

import uuid
from fractions import Fraction
from typing import Any

import pytest

from domain.rating import INITIAL_RATING, RatedGame, rate_games
from domain.rules import RuleSet
from projections import standard_runners
from projections import stats_queries as q
from projections.ratings import standing_columns
from projections.runner import ProjectionRunner
from service.api import stats_servicer
from service.app.application import PreferansApplication
from service.cli import main as pref
from service.gen.preferans.v1 import stats_pb2 as pb
from tests.integration.helpers import dump_tables, play, store_argument

RULES = RuleSet(pool_target=2)
LEAGUE = "rerate"
STATS_TABLES = ("stats_players", "stats_results", "stats_pairs", "stats_leagues")
GAMES = (("ann", "bob", "cid"), ("bob", "cid", "dan"), ("dan", "ann", "cid"))


def stats_runner(app: PreferansApplication, batch: int = 1000) -> ProjectionRunner:
    (runner,) = standard_runners(app, app.db, ("stats",), batch=batch).values()
    return runner


def finished_game(app: PreferansApplication, players: tuple[str, ...]) -> uuid.UUID:
    created = app.create_game(list(players), f"create-{uuid.uuid4()}", rules=RULES, league=LEAGUE)
    play(app, created.game_id)
    assert app.get_game(created.game_id).finished
    return created.game_id


def results(app: PreferansApplication, game_id: uuid.UUID) -> tuple[Fraction, ...]:
    settlement = app.get_game(game_id).settlement
    assert settlement is not None
    return tuple(Fraction(v) for v in settlement)


def last_place(app: PreferansApplication, game_id: uuid.UUID) -> dict[str, Any]:
    """An adjustment that puts the game's first player (the highest result, the first seat of
    equal ones) last: 100 gora more for him, far more than a game to a pool of 2 can
    separate the players by."""
    settled = results(app, game_id)
    leader = settled.index(max(settled))
    gora = [100 if seat == leader else 0 for seat in range(len(settled))]
    return {"gora": gora, "whists": [[0] * len(settled) for _ in settled]}


def by_name(app: PreferansApplication) -> dict[str, list[list[tuple[str, Any]]]]:
    """Every row of the stats tables as (column, value) pairs, whatever the columns' order."""
    dump = {}
    with app.db.reading() as c:
        for table in STATS_TABLES:
            c.execute(f"SELECT * FROM {table}")
            names = [d[0].lower() for d in c.description or ()]
            dump[table] = sorted(sorted(zip(names, row, strict=True)) for row in c.fetchall())
    return dump


def expected_league(app: PreferansApplication, game_ids: list[uuid.UUID]) -> dict[str, Any]:
    """The league's ratings folded afresh from the games' settlements as they stand now."""
    rated, standings = rate_games(
        RatedGame(players, results(app, game_id))
        for players, game_id in zip(GAMES, game_ids, strict=True)
    )
    per_game = [
        (s.rating, t.rating) for game in rated for s, t in zip(game.before, game.after, strict=True)
    ]
    return {"per_game": per_game, "players": standings}


def test_a_ruling_that_changes_who_finished_ahead_re_rates_the_league(
    app: PreferansApplication,
) -> None:
    live = stats_runner(app, batch=1)  # each event its own batch: the ruling flushes alone
    game_ids = [finished_game(app, players) for players in GAMES]
    live.catch_up()
    before = expected_league(app, game_ids)
    got = [(r["rating_before"], r["rating_after"]) for r in q.game_results(app.db, LEAGUE)]
    assert got == before["per_game"]

    # The ruling on game 1, after game 3 has finished: its first player ends last.
    first = results(app, game_ids[0])
    leader = first.index(max(first))
    app.record_ruling(game_ids[0], 1, "a revoke in trick 4", last_place(app, game_ids[0]), "r-1")
    ruled = results(app, game_ids[0])
    assert ruled.index(min(ruled)) == leader and sum(ruled) == 0
    assert [r for r in ruled if r == min(ruled)] == [ruled[leader]]  # last alone
    live.catch_up()

    after = expected_league(app, game_ids)
    rows = q.game_results(app.db, LEAGUE)
    assert [(r["rating_before"], r["rating_after"]) for r in rows] == after["per_game"]
    # By hand: in game 1 everyone had 1500; the ruled-out leader lost to both others,
    # 1500 + 32/2 × ((0 - 1/2) + (0 - 1/2)) = 1484.
    assert rows[leader]["rating_before"] == INITIAL_RATING
    assert rows[leader]["rating_after"] == 1484.0
    if max(first) > sorted(first)[-2]:  # he was ahead alone: +16 before the ruling
        assert before["per_game"][leader] == (INITIAL_RATING, 1516.0)
    for player, standing in after["players"].items():
        stats = q.player_stats(app.db, LEAGUE, player)
        assert stats is not None
        columns = standing_columns(standing)
        assert stats["rating"] == columns["rating"]
        assert stats["skill"] == {
            "mu": columns["skill_mu"],
            "sigma": columns["skill_sigma"],
            "conservative": columns["skill_conservative"],
        }
        # The players of the ruled game are marked; dan's rating is re-rated too (he played
        # them later) but no ruling was on a game of his.
        assert stats["rating_rulings"] == (0 if player == "dan" else 1)
        served = stats_servicer.player_stats_to_proto(stats)  # what GetPlayerStats answers
        assert (served.skill.mu, served.skill.sigma) == (
            columns["skill_mu"],
            columns["skill_sigma"],
        )
        assert served.rating_rulings == stats["rating_rulings"]
    assert stats_servicer.ORDERS[pb.LEADERBOARD_ORDER_SKILL] == "skill"
    board = q.leaderboard(app.db, LEAGUE, "skill")
    assert [r["player_id"] for r in board] == sorted(
        after["players"], key=lambda p: (-after["players"][p].skill.conservative, p)
    )
    entry = stats_servicer.leaderboard_entry_to_proto(board[0], 1)
    assert entry.skill.sigma == board[0]["skill"]["sigma"] and entry.HasField("skill")
    assert {r["player_id"]: r["rating_rulings"] for r in board}["dan"] == 0

    # A ruling that keeps the order (no change) re-rates nothing and marks nobody.
    marked = dump_tables(app.db, STATS_TABLES)
    app.record_ruling(game_ids[1], 1, "the play was correct", None, "r-2")
    live.catch_up()
    assert dump_tables(app.db, STATS_TABLES) == marked

    # A ruling on game 2 re-rates from game 2 on: game 1's rows stay, each player of games 2
    # and 3 starts from his ratings after his last game before game 2.
    kept = q.game_results(app.db, LEAGUE)[:3]
    app.record_ruling(game_ids[1], 1, "a claim was wrong", last_place(app, game_ids[1]), "r-3")
    live.catch_up()
    again = expected_league(app, game_ids)
    rows = q.game_results(app.db, LEAGUE)
    assert rows[:3] == kept
    assert [(r["rating_before"], r["rating_after"]) for r in rows] == again["per_game"]
    for player, standing in again["players"].items():
        stats = q.player_stats(app.db, LEAGUE, player)
        assert stats is not None
        assert (stats["rating"], stats["skill"]["mu"], stats["skill"]["sigma"]) == (
            standing.rating,
            standing.skill.mu,
            standing.skill.sigma,
        )
        assert stats["rating_rulings"] == {"ann": 1, "bob": 2, "cid": 2, "dan": 1}[player]
    marked = dump_tables(app.db, STATS_TABLES)

    # A rebuild, in batches of any size (the rulings and the games after them in one batch or
    # not), gives the same rows, floats included.
    for batch in (1000, 7):
        stats_runner(app, batch).rebuild()
        assert dump_tables(app.db, STATS_TABLES) == marked


def test_a_store_projected_before_the_skill_rating_is_rated_when_the_runner_starts(
    app: PreferansApplication,
) -> None:
    """The skill columns are added to an existing ``stats_players`` and ``stats_results`` and
    filled from the results already projected (their default, a new player's skill, would be
    wrong for a player with games): the tables then equal a rebuild's."""
    live = stats_runner(app)
    for players in GAMES[:2]:
        finished_game(app, players)
    live.catch_up()
    rebuilt = by_name(app)
    with app.db.transaction() as c:
        c.execute("DROP INDEX stats_players_by_skill_conservative")
        for column in ("skill_mu", "skill_sigma", "skill_conservative", "rating_rulings"):
            c.execute(f"ALTER TABLE stats_players DROP COLUMN {column}")
        for column in ("skill_mu", "skill_sigma"):
            c.execute(f"ALTER TABLE stats_results DROP COLUMN {column}")
    stats_runner(app).catch_up()  # a runner of this version starts on the old tables
    assert by_name(app) == rebuilt  # the added columns are last: compared by name
    stats = q.player_stats(app.db, LEAGUE, "bob")
    assert stats is not None and stats["skill"]["sigma"] < 25 / 3


def test_pref_stats_shows_the_skill_and_marks_re_rated_players(
    app: PreferansApplication,
    store_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`pref rule` after the end puts the leader last; `pref stats` then shows everyone's
    skill as μ ± σ (μ−3σ) and marks the re-rated Elo ratings of the ruled game's players."""
    monkeypatch.setenv("COLUMNS", "160")  # one line per player (at 80 rich wraps the cells)
    store = store_argument(store_env)
    game_id = finished_game(app, GAMES[0])
    gora = ",".join(str(g) for g in last_place(app, game_id)["gora"])
    rule = ["rule", str(game_id), "--deal", "1", "--reason", "revoke", "--gora", gora]
    assert pref([*rule, "--store", store]) == 0
    capsys.readouterr()
    assert pref(["stats", "--store", store, "--league", LEAGUE, "--order-by", "skill"]) == 0
    shown = capsys.readouterr().out
    for player in GAMES[0]:
        stats = q.player_stats(app.db, LEAGUE, player)
        assert stats is not None and stats["rating_rulings"] == 1
        skill = stats["skill"]
        assert f"{stats['rating']:.1f}*" in shown
        assert f"{skill['mu']:.1f} ± {skill['sigma']:.1f} ({skill['conservative']:.1f})" in shown
