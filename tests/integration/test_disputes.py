"""Disputes on both stores: a seat flags a scored deal, an auditor rules on it (a score
adjustment or "no change"), during the game and after it. The aggregate's sheet and settlement,
the served scoresheet (the aggregate's), the game-list and stats read models and the audit all
include the rulings; illegal
flags and rulings record nothing; retries are idempotent (docs/AUDIT.md, "Disputes")."""

from __future__ import annotations

import copy
import uuid
from fractions import Fraction
from typing import Any

import pytest

from domain.audit import DISPUTE, verify
from domain.model import RequestReused
from domain.model.chain import GENESIS, link, stored_chain
from domain.model.codec import settlement_to_strings
from domain.rating import INITIAL_RATING, rate_game, settlement_ranks
from domain.rules import RuleSet, settle
from domain.rules.errors import InvalidAction
from projections import queries, standard_runners
from projections import stats_queries as sq
from service.api.mapping import scoresheet_to_proto
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.cli import main as pref
from tests.integration.helpers import (
    PLAYERS,
    VIEW_TABLES,
    AppFactory,
    create,
    dump_tables,
    play,
    store_argument,
    topic,
)

RULES = RuleSet(pool_target=2)
DURING = {"gora": [2, 0, -2], "whists": [[0, 5, 0], [0, 0, 0], [3, 0, 0]]}
AFTER = {"gora": [0, 4, 0], "whists": [[0, 0, 0], [0, 0, 7], [0, 0, 0]]}


def scored_game_and_league(app: PreferansApplication) -> tuple[uuid.UUID, str]:
    """A game with its first deal scored and the game still running, and its league. A game
    that ended with its first deal is set aside in a league of its own, so the league's
    statistics are this game's alone."""
    for attempt in range(10):
        league = "disputes" if attempt == 0 else f"disputes-set-aside-{attempt}"
        created = create(app, RULES, league=league)
        play(app, created.game_id, stop=lambda g: len(g.deal_results) >= 1)
        if not app.get_game(created.game_id).finished:
            return created.game_id, league
    raise AssertionError("ten games in a row ended with their first deal")


def game_with_a_scored_deal(app: PreferansApplication) -> uuid.UUID:
    """A game with its first deal scored and the game still running."""
    return scored_game_and_league(app)[0]


def plus(sheet: Any, adjustment: dict[str, Any]) -> tuple[Any, Any]:
    gora = tuple(g + d for g, d in zip(sheet.gora, adjustment["gora"], strict=True))
    whists = tuple(
        tuple(w + d for w, d in zip(row, drow, strict=True))
        for row, drow in zip(sheet.whists, adjustment["whists"], strict=True)
    )
    return gora, whists


def run_projections(app: PreferansApplication) -> None:
    for runner in standard_runners(app, app.db).values():
        runner.catch_up()


def test_flags_and_rulings_during_and_after_the_game(
    app: PreferansApplication, open_app: AppFactory
) -> None:
    game_id, league = scored_game_and_league(app)
    # A flag: recorded, retried with the same id (the first answer), refused with another command.
    first = app.flag_deal(game_id, 1, 1, "the declarer's tricks were miscounted", "flag-1")
    assert not first.replayed
    again = app.flag_deal(game_id, 1, 1, "the declarer's tricks were miscounted", "flag-1")
    assert again.replayed and again.version == first.version
    with pytest.raises(RequestReused):
        app.flag_deal(game_id, 1, 1, "another reason", "flag-1")

    # A ruling during the game: added to the sheet as it stands.
    before = app.get_game(game_id).state.sheet
    ruled = app.record_ruling(game_id, 1, "two tricks to the defence", DURING, "rule-1")
    game = app.get_game(game_id)
    assert (game.state.sheet.gora, game.state.sheet.whists) == plus(before, DURING)
    assert game.state.sheet.pool == before.pool
    assert game.settlement is None
    retried = app.record_ruling(game_id, 1, "two tricks to the defence", DURING, "rule-1")
    assert retried.replayed and retried.version == ruled.version
    with pytest.raises(RequestReused):
        app.record_ruling(game_id, 1, "two tricks to the defence", None, "rule-1")
    assert app.get_game(game_id).version == ruled.version

    # Later deals are written on the adjusted sheet; the settlement settles it.
    play(app, game_id, prefix="rest")
    game = app.get_game(game_id)
    assert game.finished and game.settlement is not None
    assert game.settlement == settlement_to_strings(settle(game.state.sheet, game.rule_set))
    run_projections(app)
    ratings = {p: sq.player_stats(app.db, league, p)["rating"] for p in PLAYERS}  # type: ignore[index]

    # After the end: a flag, a "no change" ruling, then an adjustment that changes the settlement.
    deals = len(game.deal_results)
    app.flag_deal(game_id, 2, deals, "the talon was wrong", "flag-2")
    settled = list(game.settlement)
    sheet = game.state.sheet
    app.record_ruling(game_id, deals, "the play was correct", None, "rule-2")
    game = app.get_game(game_id)
    assert game.settlement == settled and game.state.sheet == sheet
    app.record_ruling(game_id, 1, "a revoke in trick 4", AFTER, "rule-3")
    game = app.get_game(game_id)
    assert (game.state.sheet.gora, game.state.sheet.whists) == plus(sheet, AFTER)
    assert game.settlement == settlement_to_strings(settle(game.state.sheet, game.rule_set))
    assert game.settlement != settled
    assert sum(Fraction(v) for v in game.settlement) == 0
    events = app.game_events(game_id)
    assert [topic(e) for e in events][-4:] == [
        "GameFinished",
        "DealFlagged",
        "RulingRecorded",
        "RulingRecorded",
    ]
    last = events[-1]
    assert topic(last) == "RulingRecorded" and last.seat == -1
    assert last.settlement == game.settlement and last.adjustment == AFTER
    assert [r["adjustment"] for r in game.rulings] == [DURING, None, AFTER]
    assert [(f["seat"], f["deal_number"]) for f in game.flags] == [(1, 1), (2, deals)]

    # A fresh application (replaying the stored events) agrees.
    other = open_app()
    try:
        replayed = other.get_game(game_id)
        assert replayed.state.sheet == game.state.sheet
        assert replayed.settlement == game.settlement
        assert replayed.rulings == game.rulings and replayed.flags == game.flags
    finally:
        other.close()

    # The read models.
    run_projections(app)
    served = scoresheet_to_proto(app.get_game(game_id))  # what GetScoresheet answers
    assert [r.gora for r in served.totals] == list(game.state.sheet.gora)
    assert [list(r.whists) for r in served.totals] == [list(r) for r in game.state.sheet.whists]
    assert [r.pool for r in served.totals] == list(game.state.sheet.pool)
    assert list(served.settlement) == game.settlement
    assert [r.no_change for r in served.rulings] == [False, True, False]
    assert [r.reason for r in served.rulings][2] == "a revoke in trick 4"
    assert [(f.seat, f.deal_number) for f in served.flags] == [(1, 1), (2, deals)]
    listed = queries.list_games(app.db, league=league)
    assert [g["settlement"] for g in listed if g["game_id"] == str(game_id)] == [game.settlement]
    results = [Fraction(v) for v in game.settlement]
    reordered = settlement_ranks(results) != settlement_ranks([Fraction(v) for v in settled])
    rerated = rate_game([INITIAL_RATING] * 3, results)
    assert reordered or rerated == tuple(ratings[p] for p in PLAYERS)
    for seat, player in enumerate(PLAYERS):
        row = sq.player_stats(app.db, league, player)
        assert row is not None
        assert Fraction(row["settlement_total"]) == results[seat]
        # The league's one game is rated again on the ruled settlement (docs/STATS.md,
        # "Rulings"); had the ruling kept the order, nothing would change.
        assert row["rating"] == rerated[seat]
        assert row["rating_rulings"] == (1 if reordered else 0)
    totals = sq.league_totals(app.db, league)
    assert totals is not None and totals["settlement_sum"] == "0"
    h2h = sq.head_to_head(app.db, league, PLAYERS[0], PLAYERS[1])
    assert h2h is not None
    assert Fraction(h2h["a_settlement"]) == results[0]
    assert Fraction(h2h["b_settlement"]) == results[1]
    outcome = (
        "equal" if results[0] == results[1] else "a_ahead" if results[0] > results[1] else "b_ahead"
    )
    assert h2h[outcome] == 1 and h2h["games"] == 1
    assert [Fraction(r["settlement"]) for r in sq.game_results(app.db, league)] == results

    # A rebuild from the log equals the incrementally maintained tables.
    live = dump_tables(app.db, VIEW_TABLES)
    for runner in standard_runners(app, app.db).values():
        runner.rebuild()
    assert dump_tables(app.db, VIEW_TABLES) == live

    # The audit re-applies the rulings and checks the settlement after them.
    report = verify_game(app, game_id)
    assert report.verified, report.summary
    assert report.settlement == game.settlement
    assert [r["adjustment"] for r in report.rulings] == [DURING, None, AFTER]
    assert len(report.flags) == 2
    assert "2 flags" in report.summary and "3 rulings" in report.summary


@pytest.mark.parametrize(
    ("deal", "reason", "adjustment", "field"),
    [
        (2, "not scored yet", None, "deal_number"),
        (0, "no such deal", None, "deal_number"),
        (1, "", None, "reason"),
        (1, "   ", None, "reason"),
        (1, "x" * 501, None, "reason"),
        (1, "tab\there", None, "reason"),
        (1, "short gora", {"gora": [1, -1], "whists": [[0] * 3] * 3}, "adjustment"),
        (
            1,
            "diagonal",
            {"gora": [0, 0, 0], "whists": [[1, 0, 0], [0, 0, 0], [0, 0, 0]]},
            "adjustment",
        ),
        (1, "pool", {"pool": [1, 0, 0], "gora": [0, 0, 0], "whists": [[0] * 3] * 3}, "adjustment"),
        (1, "zeros", {"gora": [0, 0, 0], "whists": [[0] * 3] * 3}, "adjustment"),
        (1, "bools", {"gora": [True, 0, 0], "whists": [[0] * 3] * 3}, "adjustment"),
        (1, "rows", {"gora": [1, 0, 0], "whists": [[0, 0], [0, 0], [0, 0]]}, "adjustment"),
    ],
)
def test_illegal_rulings_and_flags_record_nothing(
    app: PreferansApplication,
    deal: int,
    reason: str,
    adjustment: dict[str, Any] | None,
    field: str,
) -> None:
    game_id = game_with_a_scored_deal(app)
    game = app.get_game(game_id)
    version, sheet = game.version, game.state.sheet
    with pytest.raises(InvalidAction) as refused:
        app.record_ruling(game_id, deal, reason, adjustment, "bad-ruling")
    assert refused.value.field == field
    if adjustment is None:
        with pytest.raises(InvalidAction) as flagged:
            app.flag_deal(game_id, 0, deal, reason, "bad-flag")
        assert flagged.value.field == field
    game = app.get_game(game_id)
    assert game.version == version and game.state.sheet == sheet
    assert game.rulings == [] and game.flags == []
    # The refused request ids are still free.
    app.flag_deal(game_id, 0, 1, "now a proper flag", "bad-flag")
    assert app.get_game(game_id).version == version + 1


def test_a_flag_needs_a_seat_of_the_game(app: PreferansApplication) -> None:
    game_id = game_with_a_scored_deal(app)
    version = app.get_game(game_id).version
    with pytest.raises(InvalidAction):
        app.flag_deal(game_id, 3, 1, "not a seat", "flag-x")
    assert app.get_game(game_id).version == version


def test_the_audit_finds_a_forged_ruling(app: PreferansApplication) -> None:
    """A ruling whose settlement does not follow from the adjusted sheet is reported, even with
    the chain recomputed (what a forger with write access could do)."""
    game_id = game_with_a_scored_deal(app)
    play(app, game_id, prefix="rest")
    app.record_ruling(game_id, 1, "a revoke", AFTER, "rule-x")
    log = list(app.game_events(game_id))
    forged = copy.copy(log[-1])
    object.__setattr__(forged, "settlement", ["0", "0", "0"])
    object.__setattr__(forged, "chain", link(stored_chain(log[-2]) or GENESIS, forged))
    report = verify(str(game_id), [*log[:-1], forged])
    assert report.discrepancy is not None
    assert (report.discrepancy.version, report.discrepancy.kind) == (len(log), DISPUTE)
    assert "does not match the adjusted scoresheet" in report.discrepancy.message
    # A ruling on a deal that was never scored, forged the same way.
    bogus = copy.copy(log[-1])
    object.__setattr__(bogus, "deal_number", 99)
    object.__setattr__(bogus, "chain", link(stored_chain(log[-2]) or GENESIS, bogus))
    report = verify(str(game_id), [*log[:-1], bogus])
    assert report.discrepancy is not None and report.discrepancy.kind == DISPUTE
    assert verify(str(game_id), log).verified


def test_flag_and_ruling_from_the_command_line(
    app: PreferansApplication, store_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`pref flag` (with a seat token) and `pref rule` (an operator for the auditor) record the
    same events as the API; a wrong token or an illegal ruling is refused and records nothing."""
    store = store_argument(store_env)
    created = create(app, RULES, league="disputes")
    play(app, created.game_id, stop=lambda g: len(g.deal_results) >= 1)
    game = str(created.game_id)
    token = created.tokens[1]
    args = ["--deal", "1", "--store", store]
    assert pref(["flag", game, "--reason", "a revoke", "--token", token, *args]) == 0
    assert pref(["flag", game, "--reason", "x", "--token", "nonsense", *args]) == 1
    assert pref(["rule", game, "--reason", "bad", "--gora", "1,2", *args]) == 1
    before = len(app.game_events(created.game_id))
    code = pref(
        ["rule", game, "--reason", "revoke", "--gora", "0,2,-2", "--whists", "1,0;0,0;0,0", *args]
    )
    assert code == 0
    capsys.readouterr()
    fresh = app.get_game(created.game_id, min_version=before + 1)
    assert fresh.flags and fresh.flags[-1]["seat"] == 1 and fresh.flags[-1]["reason"] == "a revoke"
    ruling = fresh.rulings[-1]
    assert ruling["deal_number"] == 1 and ruling["adjustment"]["gora"] == [0, 2, -2]
    assert ruling["adjustment"]["whists"][0] == [0, 1, 0]
    assert len(app.game_events(created.game_id)) == before + 1
