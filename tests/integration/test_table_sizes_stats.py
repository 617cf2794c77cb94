"""League statistics of 4- and 5-seat games, on both stores (issue 13; RULES.md §3.6, §1.11).

Whole games of four and five players are played through the ``Game`` aggregate with random
decisions and saved in the store; the stats projection then counts them like any game: every
game's results and the league's settlement sum to zero, each player is rated against all his
opponents (the rating changes only move points between a game's players), head-to-head covers
every pair of a table, the raspasy counters count only the seats holding a hand, and a rebuild
from the events gives the same tables.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from collections import Counter
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest

from domain.model import Game
from domain.rating import INITIAL_RATING
from domain.rules import Action, SeatView, actor, seat_view, seed_commitment
from domain.rules.actions import Claim
from domain.rules.seats import hand_mask
from domain.rules.systems import rule_set
from projections import standard_runners
from projections import stats_queries as q
from service.app.application import PreferansApplication
from tests.integration.helpers import dump_tables

STATS_TABLES = ("stats_games", "stats_players", "stats_leagues", "stats_pairs", "stats_results")
LEAGUE = "tables"
TABLES = (
    ["ann", "bob", "cid", "dan"],
    ["bob", "cid", "dan", "eve"],
    ["ann", "bob", "cid", "dan", "eve"],
)


def _policy(rng: random.Random) -> Any:
    def policy(view: SeatView) -> Action:
        choices = [a for a in view.legal if not isinstance(a, Claim)]
        return rng.choice(choices or list(view.legal))

    return policy


def _game(players: list[str], number: int) -> Game:
    """A whole game of ``players`` (4 or 5) in the league, played with random decisions."""
    seed = hashlib.sha256(f"{LEAGUE}/{number}".encode()).digest()
    rules = rule_set("default").with_options(players=len(players), pool_target=4)
    game: Game = Game._create(
        Game.Created,
        id=uuid.uuid4(),
        seat=-1,
        request_id="create",
        players=players,
        rules=rules.to_dict(),
        league=LEAGUE,
        seed_commitment=seed_commitment(seed),
        token_hashes=[""] * len(players),
        first_dealer=number % len(players),
    )
    game.deal_first(seed, "create")
    policy = _policy(random.Random(seed))
    step = 0
    while not game.finished:
        step += 1
        deal = game.state.deal
        assert deal is not None and game.state.deal_number <= 80
        seat = actor(deal)
        game.act(seat, policy(seat_view(deal, seat)), f"r{step}", seed)
    return game


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


def test_four_and_five_seat_games_in_the_league_statistics(app: PreferansApplication) -> None:
    games = [_game(players, i) for i, players in enumerate(TABLES)]
    for game in games:
        app.save(game)
    game_ids = [game.id for game in games]
    (runner,) = standard_runners(app, app.db, ("stats",), batch=50).values()
    assert runner.catch_up() > 0

    totals = q.league_totals(app.db, LEAGUE)
    assert totals is not None
    assert totals["games"] == 3 and totals["players"] == 5
    assert totals["settlement_sum"] == "0"

    results = q.game_results(app.db, LEAGUE)
    by_game: dict[str, list[dict[str, Any]]] = {}
    for row in results:
        by_game.setdefault(row["game_id"], []).append(row)
    assert sorted(len(rows) for rows in by_game.values()) == [4, 4, 5]
    for rows in by_game.values():
        assert sum(Fraction(r["settlement"]) for r in rows) == 0  # §1.11
        # One rating update per game over every opponent: the changes sum to zero.
        change = sum(r["rating_after"] - r["rating_before"] for r in rows)
        assert change == pytest.approx(0.0, abs=1e-9)

    names = sorted({p for players in TABLES for p in players})
    stats = {p: q.player_stats(app.db, LEAGUE, p) for p in names}
    assert all(s is not None for s in stats.values())
    assert sum(Fraction(s["settlement_total"]) for s in stats.values() if s) == 0
    ratings = [s["rating"] for s in stats.values() if s]
    assert sum(ratings) == pytest.approx(INITIAL_RATING * len(names))
    expected = _expected(app, game_ids)
    for player, s in stats.items():
        assert s is not None
        assert s["games"] == sum(player in t for t in TABLES)
        assert s["deals"] == expected[player]["deals"]
        assert (s["pool"], s["gora"]) == (expected[player]["pool"], expected[player]["gora"])
        assert s["raspasy"]["deals"] == expected[player]["raspasy"]

    for a, b in combinations(names, 2):
        both = sum(a in t and b in t for t in TABLES)
        pair = q.head_to_head(app.db, LEAGUE, a, b)
        assert pair is not None and pair["games"] == both
        assert pair["a_ahead"] + pair["b_ahead"] + pair["equal"] == both

    incremental = dump_tables(app.db, STATS_TABLES)
    runner.rebuild()
    assert dump_tables(app.db, STATS_TABLES) == incremental
