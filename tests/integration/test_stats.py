"""League statistics (projections.stats) on both stores.

A hand-built league of three short games, whose every deal is scripted (the calls, the whist
decisions and, through a claim at the first lead, the tricks), so that every statistic is known
exactly and written out below; a simulated league checks rebuild = incremental, zero sums, the
leaderboard's speed and order, and the export files.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from domain.rating import INITIAL_RATING, RatedGame, rate_game, rate_games
from domain.rules import Discard, Phase, RuleSet, actor, legal_actions, parse_action
from projections import standard_runners
from projections import stats_queries as q
from projections.ratings import skill_columns
from projections.runner import ProjectionRunner
from projections.stats_export import SETTLEMENT_COLUMNS, TABLES, columns, export_rows, export_stats
from service.app.application import PreferansApplication
from service.app.simulate import simulate
from tests.integration.helpers import dump_tables

STATS_TABLES = (
    "stats_games",
    "stats_players",
    "stats_leagues",
    "stats_pairs",
    "stats_results",
    "stats_deals",
)
SHORT = RuleSet(pool_target=2)


@dataclass
class Deal:
    """One scripted deal: who bids (everyone else passes), the contract, each seat's whist
    decisions in order, and how the ten tricks fall (claimed at the first lead, accepted)."""

    tricks: tuple[int, int, int]
    bidder: int = -1
    bid: str = "6♠"
    contract: str = ""
    whist: dict[int, list[str]] = field(default_factory=dict)
    defence: str = "closed"


def _action(deal_state: Any, seat: int, script: Deal) -> str:
    phase = deal_state.phase
    if phase is Phase.BIDDING:
        return script.bid if seat == script.bidder else "pass"
    if phase is Phase.TALON:
        return "take talon"
    if phase is Phase.DISCARD:
        discard = next(a for a in legal_actions(deal_state) if isinstance(a, Discard))
        return str(discard)
    if phase is Phase.CONTRACT:
        return f"declare {script.contract}"
    if phase is Phase.WHISTING:
        return script.whist[seat].pop(0)
    if phase is Phase.DEFENCE:
        return script.defence
    if phase is Phase.CLAIM:
        return "accept"
    assert phase is Phase.PLAY
    return "claim " + "-".join(map(str, script.tricks))


def scripted_game(
    app: PreferansApplication, players: list[str], league: str, deals: list[Deal]
) -> uuid.UUID:
    """A game of ``SHORT`` rules (first dealer seat 2: seat 0 is the first hand of deal 1)
    played deal by deal as scripted; it must end with the last deal."""
    game_id = app.create_game(
        players, f"create-{uuid.uuid4()}", rules=SHORT, league=league, first_dealer=2
    ).game_id
    while not (game := app.get_game(game_id)).finished:
        deal = game.deal
        assert deal is not None
        seat = actor(deal)
        action = _action(deal, seat, deals[game.state.deal_number - 1])
        app.act(game_id, seat, parse_action(action), request_id=f"r-{game.version}")
    assert game.state.deal_number == len(deals)
    return game_id


def hand_league(app: PreferansApplication) -> list[uuid.UUID]:
    """Game 1: ann misère made (10 points: closes her pool, 2 + 2 help bob and cid, 4 left:
    4 gora on each opponent). Game 2: raspasy 0-4-6 (bob's true zero); cid 6♠ made 8-2-0
    against two whisters, bob's whist fails (2 short: 4 gora); dan 7♦, bob passes, cid
    half-whists, bob accepts. Game 3: cid 6♥ down 3 (dan returns the whist after ann's
    half-whist, and defends alone, taking the passer's consolation too); dan 6♠ passed out;
    ann 8NT made 8-1-1 with cid whisting alone (help 2 to cid, 2 left: 2 gora on each
    opponent)."""
    return [
        scripted_game(
            app,
            ["ann", "bob", "cid"],
            "hand",
            [Deal((0, 5, 5), bidder=0, bid="misère", contract="misère")],
        ),
        scripted_game(
            app,
            ["bob", "cid", "dan"],
            "hand",
            [
                Deal((0, 4, 6)),
                Deal((0, 8, 2), bidder=1, contract="6♠", whist={2: ["whist"], 0: ["whist"]}),
                Deal(
                    (0, 0, 0),
                    bidder=2,
                    contract="7♦",
                    whist={0: ["pass", "pass"], 1: ["half-whist"]},
                ),
            ],
        ),
        scripted_game(
            app,
            ["cid", "dan", "ann"],
            "hand",
            [
                Deal(
                    (3, 7, 0),
                    bidder=0,
                    contract="6♥",
                    whist={1: ["pass", "whist"], 2: ["half-whist"]},
                ),
                Deal((0, 0, 0), bidder=1, contract="6♠", whist={2: ["pass"], 0: ["pass"]}),
                Deal((1, 1, 8), bidder=2, contract="8NT", whist={0: ["whist"], 1: ["pass"]}),
            ],
        ),
    ]


def stats_runner(app: PreferansApplication, batch: int = 1000) -> ProjectionRunner:
    (runner,) = standard_runners(app, app.db, ("stats",), batch=batch).values()
    return runner


def expected_player(
    games: int,
    deals: int,
    settlement: str,
    pool: int,
    gora: int,
    written: int,
    received: int,
    contracts: tuple[int, int, int, dict[str, int], dict[str, int], int],
    misere: tuple[int, int, int],
    whist: tuple[int, int, int, int, int, int],
    raspasy: tuple[int, int, int],
) -> dict[str, Any]:
    declared, made, failed, levels, strains, under = contracts
    return {
        "games_started": games,
        "games": games,
        "deals": deals,
        "settlement_total": settlement,
        "pool": pool,
        "gora": gora,
        "whists_written": written,
        "whists_received": received,
        "contracts": {
            "declared": declared,
            "made": made,
            "failed": failed,
            "by_level": {str(lv): levels.get(str(lv), 0) for lv in range(6, 11)},
            "by_strain": {s: strains.get(s, 0) for s in ("♠", "♣", "♦", "♥", "NT")},
            "undertricks": under,
            "undertricks_avg": under / failed if failed else 0.0,
        },
        "misere": dict(zip(("declared", "made", "failed", "tricks"), (*misere, 0), strict=True)),
        "whist": dict(
            zip(
                ("whist", "pass", "half_whist", "return", "whists_earned", "penalties"),
                whist,
                strict=True,
            )
        ),
        "raspasy": dict(zip(("deals", "tricks", "true_zeros"), raspasy, strict=True)),
        "classic": NO_CLASSIC,  # no bombs, dark or no-talon games in this league
    }


def shaped(got: dict[str, Any], like: dict[str, Any]) -> dict[str, Any]:
    """``got`` with only the keys of ``like``, at every level."""
    return {
        key: shaped(got[key], value) if isinstance(value, dict) else got[key]
        for key, value in like.items()
        if key in got
    }


NO_CLASSIC: dict[str, Any] = {
    "bombs_declared": 0,
    "bombs_joined": 0,
    "bomb_signs": 0,
    "bomb_signs_crossed": 0,
    **{kind: {"declared": 0, "made": 0} for kind in ("dark", "dark_misere", "no_talon")},
}


# Worked out by hand from RULES.md §1.7–§1.11 (see hand_league's docstring):
# settlements: game 1 ann 200/3, bob -100/3, cid -100/3; game 2 bob -20/3, cid 10/3, dan 10/3;
# game 3 cid -242/3, dan 118/3, ann 124/3.
EXPECTED = {
    "ann": expected_player(
        2, 4, "108", 4, 0, 60, 12,
        (1, 1, 0, {"8": 1}, {"NT": 1}, 0), (1, 1, 0), (0, 1, 1, 0, 0, 0), (0, 0, 0),
    ),
    "bob": expected_player(
        2, 4, "-40", 4, 8, 0, 30,
        (0, 0, 0, {}, {}, 0), (0, 0, 0), (1, 2, 0, 0, 0, 4), (1, 0, 1),
    ),
    "cid": expected_player(
        3, 7, "-332/3", 6, 16, 16, 70,
        (2, 1, 1, {"6": 2}, {"♠": 1, "♥": 1}, 3), (0, 0, 0), (1, 1, 1, 0, 16, 0), (1, 4, 0),
    ),
    "dan": expected_player(
        2, 6, "128/3", 4, 7, 40, 4,
        (2, 2, 0, {"6": 1, "7": 1}, {"♠": 1, "♦": 1}, 0), (0, 0, 0), (1, 2, 0, 1, 30, 0),
        (1, 6, 0),
    ),
}  # fmt: skip
PENALISED = {"ann": 0, "bob": 1, "cid": 0, "dan": 0}
RESULTS = [
    {"ann": "200/3", "bob": "-100/3", "cid": "-100/3"},
    {"bob": "-20/3", "cid": "10/3", "dan": "10/3"},
    {"cid": "-242/3", "dan": "118/3", "ann": "124/3"},
]


def test_hand_built_league_every_statistic_by_hand(app: PreferansApplication) -> None:
    runner = stats_runner(app, batch=7)  # batches end mid-deal and mid-game
    ids = hand_league(app)
    assert runner.catch_up() > 0
    kinds = [
        ["misere"],
        ["raspasy", "game", "half-whist"],
        ["game", "passed-out", "game"],
    ]
    for game_id, results, game_kinds in zip(ids, RESULTS, kinds, strict=True):
        game = app.get_game(game_id)
        assert [d["kind"] for d in game.deal_results] == game_kinds
        assert game.settlement == list(results.values())
    skills = {}
    for player, expected in EXPECTED.items():
        got = q.player_stats(app.db, "hand", player)
        assert got is not None
        penalised = got["whist"].pop("penalised_deals")
        assert penalised == PENALISED[player]
        rating = got.pop("rating")
        skills[player] = got.pop("skill")
        assert got.pop("rating_rulings") == 0  # no ruling in this league
        # The statistics of issue 16 are checked in test_stats_club.py on the same league.
        assert shaped(got, expected) == expected
        assert isinstance(rating, float)
    assert q.player_stats(app.db, "hand", "eve") is None
    assert q.player_stats(app.db, "other", "ann") is None

    # The rating: Elo over the pairwise results, game by game. Game 1 by hand: ann beat both
    # (+32/2 × (1 - 1/2) × 2 = +16); bob and cid lost to ann and drew with each other (-8).
    ratings = dict.fromkeys(EXPECTED, INITIAL_RATING)
    for number, results in enumerate(RESULTS):
        names = list(results)
        after = rate_game([ratings[p] for p in names], [Fraction(results[p]) for p in names])
        if number == 0:
            assert after == (1516.0, 1492.0, 1492.0)
        ratings.update(zip(names, after, strict=True))
    board = q.leaderboard(app.db, "hand")
    assert [row["player_id"] for row in board] == sorted(ratings, key=lambda p: -ratings[p])
    assert {row["player_id"]: row["rating"] for row in board} == ratings
    assert sum(ratings.values()) == pytest.approx(4 * INITIAL_RATING)
    # The skill rating: the same fold (domain.rating.rate_games; its numbers: test_rating.py).
    _, standings = rate_games(
        RatedGame(tuple(r), tuple(Fraction(v) for v in r.values())) for r in RESULTS
    )
    assert skills == {p: q.skill_from_row(skill_columns(s.skill)) for p, s in standings.items()}

    assert q.league_totals(app.db, "hand") == {
        "league": "hand",
        "games_started": 3,
        "games": 3,
        "deals": 7,
        "players": 4,
        "contracts_declared": 5,
        "misere_declared": 1,
        "raspasy_deals": 1,
        "settlement_sum": "0",
        "bomb_deals": 0,
        "dark_games": 0,
        "no_talon_games": 0,
    }
    assert q.leagues(app.db) == ["hand"]
    pairs = {
        ("ann", "bob"): (1, "200/3", "-100/3", 1, 0, 0),
        ("ann", "cid"): (2, "108", "-114", 2, 0, 0),
        ("bob", "cid"): (2, "-40", "-30", 0, 1, 1),
        ("cid", "dan"): (2, "-232/3", "128/3", 0, 1, 1),
        ("bob", "dan"): (1, "-20/3", "10/3", 0, 1, 0),
        ("ann", "dan"): (1, "124/3", "118/3", 1, 0, 0),
    }
    keys = ("games", "a_settlement", "b_settlement", "a_ahead", "b_ahead", "equal")
    for (a, b), values in pairs.items():
        assert q.head_to_head(app.db, "hand", a, b) == {
            "league": "hand", "a": a, "b": b, **dict(zip(keys, values, strict=True))
        }  # fmt: skip
        swapped = q.head_to_head(app.db, "hand", b, a)
        assert swapped is not None
        assert (swapped["a_settlement"], swapped["a_ahead"]) == (values[2], values[4])
    assert q.head_to_head(app.db, "hand", "ann", "eve") is None
    per_game = q.game_results(app.db, "hand")
    assert [{r["player_id"]: r["settlement"] for r in per_game[i : i + 3]} for i in (0, 3, 6)] == (
        RESULTS
    )


def test_simulated_league_rebuild_equals_incremental_and_sums_are_zero(
    app: PreferansApplication, tmp_path: Path
) -> None:
    rules = RuleSet(pool_target=4)
    live = stats_runner(app, batch=37)
    ids = simulate(app, 3, "sim", ["ann", "bob", "cid", "dan"], rules, seed="a")
    live.catch_up()
    ids += simulate(app, 2, "sim", ["ann", "bob", "cid", "dan"], rules, seed="b")
    ids += simulate(app, 1, "", ["x", "y", "z"], rules, seed="c")
    # A new runner (as after a restart) continues from the stored rows.
    stats_runner(app, batch=37).catch_up()
    incremental = dump_tables(app.db, STATS_TABLES)
    assert all(incremental.values())
    stats_runner(app, batch=500).rebuild()
    assert dump_tables(app.db, STATS_TABLES) == incremental

    assert q.leagues(app.db) == ["", "sim"]
    totals = q.league_totals(app.db, "sim")
    assert totals is not None and totals["games"] == 5 and totals["settlement_sum"] == "0"
    results = q.game_results(app.db, "sim")
    assert len(results) == 15
    for i in range(0, 15, 3):
        assert sum(Fraction(r["settlement"]) for r in results[i : i + 3]) == 0
    board = q.leaderboard(app.db, "sim", "settlement_total", descending=False)
    assert sum(Fraction(row["settlement_total"]) for row in board) == 0
    assert sum(row["games"] for row in board) == 15
    values = [Fraction(row["settlement_total"]) for row in board]
    assert values == sorted(values)
    for order in ("rating", "games", "deals", "contracts_made"):
        rows = q.leaderboard(app.db, "sim", order)
        assert [(-r[order], r["player_id"]) for r in rows] == sorted(
            (-r[order], r["player_id"]) for r in rows
        )
    assert q.leaderboard(app.db, "sim", limit=2, offset=1) == q.leaderboard(app.db, "sim")[1:3]
    with pytest.raises(ValueError):
        q.leaderboard(app.db, "sim", "gora")

    # Export: the files read back hold the query API's numbers (docs/STATS.md, "Export").
    written = export_stats(app.db, tmp_path, ["sim"])
    assert [p.name for p in written] == [
        f"{table}.{ext}" for table in TABLES for ext in ("csv", "parquet")
    ] + ["manifest.json"]
    tables = q.export_tables(app.db, "sim")
    players = [q.flatten(q.player_stats(app.db, "sim", r["player_id"]) or {}) for r in board]
    assert sorted(tables["players"], key=lambda r: r["player_id"]) == sorted(
        players, key=lambda r: r["player_id"]
    )
    for table, exported in export_rows(app.db, ["sim"]).items():
        assert len(exported) == len(tables[table])
        for row, source in zip(exported, tables[table], strict=True):
            for name, value in source.items():
                if name in SETTLEMENT_COLUMNS:
                    assert row[name + "_exact"] == value
                    assert row[name] == float(Fraction(value))
                else:
                    assert row[name] == value
        parquet = pq.read_table(tmp_path / f"{table}.parquet").to_pylist()
        assert parquet == exported
        strings = {name: pa.string() for name, kind in columns(table).items() if kind is str}
        options = pacsv.ConvertOptions(column_types=strings)
        from_csv = pacsv.read_csv(tmp_path / f"{table}.csv", convert_options=options)
        assert from_csv.to_pylist() == exported


def test_leaderboard_of_a_large_league_is_an_indexed_query(app: PreferansApplication) -> None:
    """A league of 60 players' rows, as the projection writes them: every ordering is a paged
    query answered from an index (the query plan says so on SQLite). Its latency is measured by
    bench/stats_bench.py, never asserted in a test."""
    stats = stats_runner(app).projection
    with app.db.transaction() as c:
        rows = [
            ("big", f"p{i:03d}", 1500.0 + (i * 37) % 101, float(i % 7), 1, (i * 13) % 50)
            for i in range(60)
        ]
        c.executemany(
            "INSERT INTO stats_players (league, player_id, rating, settlement_real, "
            "settlement_den, games) VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
    assert stats.name == "stats"
    for order in q.ORDER_COLUMNS:
        board = q.leaderboard(app.db, "big", order, descending=False, limit=20)
        assert len(board) == 20
        if order != "settlement_total":  # the synthetic rows set only its sort column
            keys = [(row[order], row["player_id"]) for row in board]
            assert keys == sorted(keys)
        if app.db.flavor == "sqlite":
            column = q.ORDER_COLUMNS[order]
            with app.db.reading() as c:
                c.execute(
                    "EXPLAIN QUERY PLAN SELECT player_id FROM stats_players WHERE league = ? "
                    f"ORDER BY {column} DESC, player_id LIMIT 20",
                    ("big",),
                )
                plan = " ".join(str(row[-1]) for row in c.fetchall())
            assert f"INDEX stats_players_by_{column} (league=?)" in plan, plan
