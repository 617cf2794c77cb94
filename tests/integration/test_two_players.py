"""Two players ("гусарик", RULES.md §3.6 row "2"; issue 13) through the application on both
stores: a game of two seats and two tokens played to its end by bots, its hand record exported,
validated against the JSON Schema, verified and read back; the audit verifies its log; a league
of two-player games rebuilds its statistics with settlements summing to zero (the indivisible
gora, §3.4)."""

from __future__ import annotations

import random
import uuid
from fractions import Fraction

import pytest

from domain.handrecord import parse_record, validate, verify_record
from domain.rules import RuleSet
from domain.rules.duo_options import DuoAllPass
from domain.rules.errors import InvalidAction
from domain.rules.seats import DUMMY
from projections import standard_runners
from projections import stats_queries as q
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.handrecord import export_game_record, game_record, import_record
from service.app.simulate import play_game, simulate
from tests.integration.helpers import dump_tables, play, random_policy

DUO = RuleSet(players=2, pool_target=6)
OPTIONS = RuleSet.from_dict(
    {
        "players": 2,
        "pool_target": 6,
        "duo_all_pass": "varenik",
        "duo_retract_pass": True,
        "duo_whist_own_cards": True,
        "duo_dummy_hand": 2,
    }
)
STATS_TABLES = ("stats_games", "stats_players", "stats_leagues", "stats_pairs", "stats_results")


def test_rules_3_6_a_two_player_game_has_two_seats_and_two_tokens(
    app: PreferansApplication,
) -> None:
    request_id = f"duo-{uuid.uuid4()}"
    created = app.create_game(["ann", "bob"], request_id, rules=DUO, creator_secret="s" * 24)
    assert len(created.tokens) == 2
    assert [app.seat_of_token(created.game_id, t) for t in created.tokens] == [0, 1]
    game = app.get_game(created.game_id)
    assert game.players == ["ann", "bob"] and game.rule_set.players == 2
    deal = game.deal
    assert deal is not None and len(deal.dealt) == 3  # the two seats and the dummy
    with pytest.raises(InvalidAction, match="needs 2 players"):
        app.create_game(["ann", "bob", "cid"], f"duo-{uuid.uuid4()}", rules=DUO)
    with pytest.raises(InvalidAction, match=r"seats are 0 and 1"):
        app.replace_player(created.game_id, DUMMY, "cid", request_id, "s" * 24, "r1")


@pytest.mark.parametrize("rules", [DUO, OPTIONS], ids=["default", "options"])
def test_rules_3_6_a_two_player_game_records_verifies_and_audits(
    app: PreferansApplication, rules: RuleSet
) -> None:
    """A whole game (bots and random legal choices, so the two-player decisions occur): its hand
    record validates against the schema, verifies against the revealed seed and reads back; the
    text form names the dummy; the audit verifies the log."""
    game_id = app.create_game(["ann", "bob"], f"duo-{uuid.uuid4()}", rules=rules).game_id
    play(app, game_id, random_policy(random.Random(5), bot_share=0.6))
    game = app.get_game(game_id)
    settlement = game.settlement
    assert game.finished and settlement is not None and len(settlement) == 2
    assert sum((Fraction(s) for s in settlement), Fraction(0)) == 0
    text = export_game_record(app, game_id, None, "json")
    rec, verdict = import_record(text)
    assert verdict.consistent, verdict.message
    validate(rec)
    assert rec["players"] == ["ann", "bob"] and rec["complete"]
    assert all(len(deal["hands"]) == 3 for deal in rec["deals"])  # position 2: the dummy
    assert rec == parse_record(text) and game_record(app, game_id) == rec
    assert verify_record(rec).consistent
    assert "Hand Dummy H" in export_game_record(app, game_id, 1, "text")
    report = verify_game(app, game_id)
    assert report.verified, report.summary


def test_rules_3_4_a_two_player_league_rebuilds_and_sums_to_zero(
    app: PreferansApplication,
) -> None:
    """§3.4 (the indivisible gora with two players): every game's and the league's settlement
    sums to zero, and the statistics rebuilt equal those built event by event."""
    (live,) = standard_runners(app, app.db, ("stats",), batch=29).values()
    ids = simulate(app, 3, "duo", ["ann", "bob", "cid"], DUO, seed="d")
    redeal = RuleSet(players=2, pool_target=4, duo_all_pass=DuoAllPass.REDEAL)
    again = simulate(app, 2, "redeal", ["ann", "bob"], redeal, seed="r")
    game_id = app.create_game(["ann", "bob"], f"duo-{uuid.uuid4()}", rules=DUO, league="duo")
    play_game(app, game_id.game_id, "duo-x")
    live.catch_up()
    incremental = dump_tables(app.db, STATS_TABLES)
    (fresh,) = standard_runners(app, app.db, ("stats",), batch=500).values()
    fresh.rebuild()
    assert dump_tables(app.db, STATS_TABLES) == incremental
    totals = q.league_totals(app.db, "duo")
    assert totals is not None and totals["games"] == len(ids) + 1
    assert totals["settlement_sum"] == "0"
    results = q.game_results(app.db, "duo")
    assert len(results) == 2 * (len(ids) + 1)
    for i in range(0, len(results), 2):
        assert sum(Fraction(r["settlement"]) for r in results[i : i + 2]) == 0
    redealt = q.league_totals(app.db, "redeal")
    assert redealt is not None and redealt["games"] == len(again)
    assert redealt["settlement_sum"] == "0"
    board = q.leaderboard(app.db, "duo", "settlement_total")
    assert sum(Fraction(row["settlement_total"]) for row in board) == 0
    assert sum(row["deals"] for row in board) > 0
