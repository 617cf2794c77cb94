"""League statistics of 4- and 5-seat games, on both stores (issue 13; RULES.md §3.6, §1.11).

Whole games of four and five players are created and played through the application with
random decisions; the stats projection then counts them like any game: every
game's results and the league's settlement sum to zero, each player is rated against all his
opponents (the rating changes only move points between a game's players), head-to-head covers
every pair of a table, the raspasy counters count only the seats holding a hand, and a rebuild
from the events gives the same tables.
"""

from __future__ import annotations

import random
import uuid
from collections import Counter
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest

from domain.rating import INITIAL_RATING
from domain.rules import (
    Action,
    RuleSet,
    SeatView,
)
from domain.rules.actions import Bomb, Claim
from domain.rules.seats import hand_mask
from domain.rules.state import Kind
from domain.rules.systems import CLASSIC, rule_set
from projections import standard_runners
from projections import stats_queries as q
from service.app.application import PreferansApplication
from tests.integration.helpers import dump_tables, play, replay_in_domain, topic

STATS_TABLES = ("stats_games", "stats_players", "stats_leagues", "stats_pairs", "stats_results")
LEAGUE = "tables"
TABLES = {
    4: (
        ["ann", "bob", "cid", "dan"],
        ["bob", "cid", "dan", "eve"],
        ["eve", "ann", "bob", "cid"],
    ),
    5: (
        ["ann", "bob", "cid", "dan", "eve"],
        ["fay", "ann", "bob", "cid", "dan"],
    ),
}
"""A league's games share its rule set, the number of seats included (``LeagueRulesDiffer``):
one league of tables of four, one of five."""


def _policy(rng: random.Random) -> Any:
    """Any legal action but a claim; "bomb" often where it may be said (Classic)."""

    def policy(view: SeatView) -> Action:
        bombs = [a for a in view.legal if isinstance(a, Bomb)]
        if bombs and rng.random() < 0.4:
            return bombs[0]
        choices = [a for a in view.legal if not isinstance(a, Claim)]
        return rng.choice(choices or list(view.legal))

    return policy


def _game(
    app: PreferansApplication,
    players: list[str],
    number: int,
    rules: RuleSet | None = None,
    league: str = LEAGUE,
) -> uuid.UUID:
    """A whole game of ``players`` (4 or 5) in the league, created and played through the
    application with random decisions (a game to be ordered is ordered at the agreed pool)."""
    if rules is None:
        rules = rule_set("default").with_options(players=len(players), pool_target=4)
    created = app.create_game(
        players, f"create-{league}-{number}-{uuid.uuid4()}", rules=rules, league=league
    )
    play(app, created.game_id, _policy(random.Random(f"{league}/{number}")))
    assert app.get_game(created.game_id).finished
    return created.game_id


def _expected(app: PreferansApplication, game_ids: list[uuid.UUID]) -> dict[str, Counter[str]]:
    """Per player, from the events: deals, pool, gora, and raspasy deals with a hand."""
    out: dict[str, Counter[str]] = {}
    for game_id in game_ids:
        events = app.game_events(game_id)
        players = list(events[0].players)
        n = len(players)
        holders = 0
        for event in events:
            name = type(event).__name__
            if name == "DealDealt":
                holders = hand_mask(event.dealer, n)
            elif name == "DealScored":
                for seat, player in enumerate(players):
                    row = out.setdefault(player, Counter())
                    row["deals"] += 1
                    row["pool"] += event.entry["pool"][seat]
                    row["gora"] += event.entry["gora"][seat]
                    if event.kind == "raspasy" and holders >> seat & 1:
                        row["raspasy"] += 1
    return out


@pytest.mark.parametrize("seats", [4, 5])
def test_four_and_five_seat_games_in_the_league_statistics(
    app: PreferansApplication, seats: int
) -> None:
    tables = TABLES[seats]
    league = f"{LEAGUE}-{seats}"
    game_ids = [_game(app, players, i, league=league) for i, players in enumerate(tables)]
    (runner,) = standard_runners(app, app.db, ("stats",), batch=50).values()
    assert runner.catch_up() > 0

    totals = q.league_totals(app.db, league)
    assert totals is not None
    names = sorted({p for players in tables for p in players})
    assert totals["games"] == len(tables) and totals["players"] == len(names)
    assert totals["settlement_sum"] == "0"

    results = q.game_results(app.db, league)
    by_game: dict[str, list[dict[str, Any]]] = {}
    for row in results:
        by_game.setdefault(row["game_id"], []).append(row)
    assert [len(rows) for rows in by_game.values()] == [seats] * len(tables)
    for rows in by_game.values():
        assert sum(Fraction(r["settlement"]) for r in rows) == 0  # §1.11
        # One rating update per game over every opponent: the changes sum to zero.
        change = sum(r["rating_after"] - r["rating_before"] for r in rows)
        assert change == pytest.approx(0.0, abs=1e-9)

    stats = {p: q.player_stats(app.db, league, p) for p in names}
    assert all(s is not None for s in stats.values())
    assert sum(Fraction(s["settlement_total"]) for s in stats.values() if s) == 0
    ratings = [s["rating"] for s in stats.values() if s]
    assert sum(ratings) == pytest.approx(INITIAL_RATING * len(names))
    expected = _expected(app, game_ids)
    for player, s in stats.items():
        assert s is not None
        assert s["games"] == sum(player in t for t in tables)
        assert s["deals"] == expected[player]["deals"]
        assert (s["pool"], s["gora"]) == (expected[player]["pool"], expected[player]["gora"])
        assert s["raspasy"]["deals"] == expected[player]["raspasy"]

    for a, b in combinations(names, 2):
        both = sum(a in t and b in t for t in tables)
        pair = q.head_to_head(app.db, league, a, b)
        if not both:  # never at the same table
            assert pair is None
            continue
        assert pair is not None and pair["games"] == both
        assert pair["a_ahead"] + pair["b_ahead"] + pair["equal"] == both

    incremental = dump_tables(app.db, STATS_TABLES)
    runner.rebuild()
    assert dump_tables(app.db, STATS_TABLES) == incremental


CLASSIC_LEAGUE = "classic-four"
CLASSIC4 = CLASSIC.with_options(
    players=4,
    pool_target=4,
    ending_by_time=False,
    play_until_time=False,
    dealer_bomb_sign=True,
)


def test_classic_with_four_counts_the_dealers_bomb_signs_as_the_core_gives_them(
    app: PreferansApplication,
) -> None:
    """S000 Classic at four (RULES.md §3.6; S000 l.641, l.655): the initial bomb rounds and
    every played bomb give their signs to the three hands and, under ``dealer_bomb_sign``, to
    the dealer on the talon, though no event says so; the projection's signs and crossings
    equal the rules core's own ledger of the same logs, and the league still sums to zero."""
    players = ["ann", "bob", "cid", "dan"]
    game_ids = [_game(app, players, i, CLASSIC4, CLASSIC_LEAGUE) for i in range(2)]
    (runner,) = standard_runners(app, app.db, ("stats",), batch=37).values()
    runner.catch_up()
    signs: Counter[str] = Counter()
    crossed: Counter[str] = Counter()
    declared: Counter[str] = Counter()
    bomb_deals = 0
    for game_id in game_ids:
        events = app.game_events(game_id)
        for event in events:
            if topic(event) in ("BombDeclared", "BombJoined"):
                declared[f"{players[event.seat]}/{topic(event)}"] += 1
        replay = replay_in_domain(events)
        final = replay.game
        for seat, player in enumerate(players):
            owed = final.bomb_signs[seat] if final.bomb_signs else ()
            done = final.bomb_signs_crossed[seat] if final.bomb_signs_crossed else ()
            signs[player] += len(owed) + len(done)
            crossed[player] += len(done)
        bomb_deals += sum(
            d.result is not None and d.result.kind is Kind.RASPASY and d.bomb > 0
            for d in replay.deals
        )
        # The dealer on the talon got a sign in some deal: the case this test is about.
        assert any(d.bombers >> d.dealer & 1 for d in replay.deals)
    for player in players:
        stats = q.player_stats(app.db, CLASSIC_LEAGUE, player)
        assert stats is not None
        classic = stats["classic"]
        assert classic["bomb_signs"] == signs[player], player
        assert classic["bomb_signs_crossed"] == crossed[player], player
        assert classic["bombs_declared"] == declared[f"{player}/BombDeclared"]
        assert classic["bombs_joined"] == declared[f"{player}/BombJoined"]
    totals = q.league_totals(app.db, CLASSIC_LEAGUE)
    assert totals is not None
    assert totals["bomb_deals"] == bomb_deals > 0
    assert totals["settlement_sum"] == "0" and totals["games"] == 2
    incremental = dump_tables(app.db, STATS_TABLES)
    runner.rebuild()
    assert dump_tables(app.db, STATS_TABLES) == incremental
