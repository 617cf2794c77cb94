"""Auction and contract options through the event store (issue 11, RULES.md §3.1), on SQLite
and PostgreSQL: games under the options record their decisions (the "without three" event
included), the audit verifies them, the pure core replays them to the same scores, and their
hand records export and verify."""

from __future__ import annotations

import random

import pytest

from domain.bots import make_bot
from domain.rules import Action, RuleSet, SeatView
from domain.rules.actions import CONCEDE
from domain.rules.ruleset import Bidding, PreferansHand, Underbid
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.handrecord import export_game_record, import_record
from tests.integration.helpers import create, play, replay_in_domain, topic

RULES = RuleSet(
    pool_target=6,
    here_passes_to_later=True,
    misere_beaten_by_ten=True,
    concede_undertricks=3,
    concede_any_level=True,
    bidding=Bidding.NT_SKIP,
    underbid_penalty=Underbid.TWO,
    misere_shows_twelve=True,
    preferans=PreferansHand.ACE_KING_QUEEN,
)
BOT = make_bot()


def conceding(rng: random.Random) -> object:
    """The bot, but going "without three" half the times it may (so the event occurs)."""

    def policy(view: SeatView) -> Action:
        if CONCEDE in view.legal and rng.random() < 0.5:
            return CONCEDE
        return BOT(view)

    return policy


@pytest.mark.slow
def test_a_game_under_the_auction_options_records_verifies_and_replays(
    app: PreferansApplication,
) -> None:
    """RULES.md §3.1 (S000 conv. "without three"): the concession is its own decision event,
    the audit re-checks it, and a replay in the pure core gives the same deals and scores."""
    created = create(app, RULES)
    play(app, created.game_id, conceding(random.Random(3)))  # type: ignore[arg-type]
    game = app.get_game(created.game_id)
    assert game.finished and game.rule_set == RULES
    events = app.game_events(created.game_id)
    names = [topic(e) for e in events]
    assert "WithoutThreeGone" in names
    assert "UnderbidClaimed" in names and "UnderbidWaived" in names
    report = verify_game(app, created.game_id)
    assert report.verified, report.summary
    replay = replay_in_domain(events)
    assert replay.settlement == game.settlement
    kinds = [d["kind"] for d in replay.scored]
    assert "conceded" in kinds and "underbid" in kinds
    record, verdict = import_record(export_game_record(app, created.game_id, None, "json"))
    assert verdict.consistent, verdict.message
    assert "conceded" in [d["result"]["kind"] for d in record["deals"]]
    assert any(a["action"] == "concede" for d in record["deals"] for a in d["actions"])
