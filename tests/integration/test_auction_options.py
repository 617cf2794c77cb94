"""Auction and contract options through the event store (issue 11, RULES.md §3.1), on SQLite
and PostgreSQL: games under the options record their decisions (the "without three" event
included), the audit verifies them, the pure core replays them to the same scores, and their
hand records export and verify."""

from __future__ import annotations

import random

import pytest

from domain.bots import make_bot
from domain.model import Game
from domain.rules import MISERE, Action, Bid, Call, RuleSet, SeatView
from domain.rules.actions import CONCEDE
from domain.rules.cards import cards_of as deal_cards_of
from domain.rules.ruleset import Bidding, PreferansHand, Underbid
from domain.rules.state import Phase
from projections import standard_runners
from projections.stats_queries import player_stats
from service.api.mapping import seat_view_to_proto
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.handrecord import export_game_record, import_record
from tests.integration.helpers import PLAYERS, create, play, replay_in_domain, topic

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


GAMES = 80


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
    # Each game's deals come from a fresh secret seed: draw games until one holds all three
    # decisions (a proved underbid needs a deal where the declarer's cards take more).
    wanted = {"WithoutThreeGone", "UnderbidClaimed", "UnderbidWaived"}
    played = []
    # A proved underbid (S000: more tricks in every layout) comes in about one bot game in
    # ten or twenty: the bound is far above that, and the loop stops at the first.
    for attempt in range(GAMES):
        created = create(app, RULES)
        played.append(created.game_id)
        play(app, created.game_id, conceding(random.Random(attempt)))  # type: ignore[arg-type]
        events = app.game_events(created.game_id)
        names = [topic(e) for e in events]
        if wanted <= set(names):
            break
    assert wanted <= set(names), f"no game of {GAMES} recorded {wanted - set(names)}"
    game = app.get_game(created.game_id)
    assert game.finished and game.rule_set == RULES
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
    # League statistics (docs/STATS.md): "without three" and a proved underbid are failed
    # contracts of their declarer (RULES.md §3.1), counted from the replayed deals.
    expected = dict.fromkeys(PLAYERS, 0)
    for game_id in played:
        for deal in replay_in_domain(app.game_events(game_id)).scored:
            short = (
                deal["kind"] == "game"
                and deal["tricks"][deal["declarer"]] < Bid.parse(deal["contract"]).level
            )
            if deal["kind"] in ("conceded", "underbid") or short:
                expected[PLAYERS[deal["declarer"]]] += 1
    for runner in standard_runners(app, app.db).values():
        runner.catch_up()
    failed = {p: player_stats(app.db, "", p)["contracts"]["failed"] for p in PLAYERS}  # type: ignore[index]
    assert failed == expected and sum(failed.values()) >= 2


def test_the_shown_misère_cards_reach_the_api_seat_view(app: PreferansApplication) -> None:
    """S004/S003 misère exposure (RULES.md §3.1) through the store and the API view: while the
    declarer discards, the other seats see his twelve cards; afterwards only `shown_cards`."""
    misere = Call(MISERE)

    def calls_misere(view: SeatView) -> Action:
        return misere if misere in view.legal else BOT(view)

    created = create(app, RuleSet(misere_shows_twelve=True))

    def at_misere_discard(game: Game) -> bool:
        deal = game.deal
        return deal is not None and deal.phase is Phase.DISCARD and deal.bid == MISERE

    play(app, created.game_id, calls_misere, stop=at_misere_discard)
    game = app.get_game(created.game_id)
    deal = game.deal
    assert deal is not None and deal.phase is Phase.DISCARD
    twelve = {str(c) for c in deal_cards_of(deal.play.hands[deal.declarer])}
    other = (deal.declarer + 1) % 3
    view = seat_view_to_proto(game, other)
    assert set(view.shown_cards) == twelve
    assert {c for h in view.visible_hands if h.seat == deal.declarer for c in h.cards} == twelve
    assert not view.discard
