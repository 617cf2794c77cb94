"""Property checks of the Classic auction (issue 12, RULES.md §3.5): random deals under its
options keep the invariants of tests/unit/test_properties.py (cards conserved, only legal
actions accepted, one actor); a seat that has not looked never sees a card of its own and a
dark game's talon is never seen by the others before the deal is over; and games with bombs and
dark games, played through the ``Game`` aggregate, verify through the audit and through their
exported hand records.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable

import pytest

from domain.audit import verify
from domain.bots import make_bot
from domain.handrecord import record_from_events, validate, verify_record
from domain.model import Game
from domain.rules import (
    DEFAULT,
    Action,
    DealState,
    Phase,
    RuleSet,
    actor,
    apply,
    deal_cards,
    legal_actions,
    new_deal,
    seat_view,
    shuffle_from_seed,
)
from domain.rules.actions import Bomb, DarkCall, Look, NoTalonCall
from domain.rules.auction import DARK
from domain.rules.bids import MISERE, MISERE_INDEX
from domain.rules.ruleset import Bidding
from domain.rules.view import visible_mask
from tests.unit.game_helpers import created_game
from tests.unit.test_classic_auction import CLASSIC_AUCTION
from tests.unit.test_properties import check_cards, check_legality, check_turn, played_mask

VARIANTS: dict[str, RuleSet] = {
    "classic-auction": CLASSIC_AUCTION,
    "jump-rising-ladder-hidden": CLASSIC_AUCTION.with_options(
        bidding=Bidding.JUMP,
        bomb_beaten_by_rising_level=True,
        dark_bids_on_ladder=True,
        no_talon_shown=False,
    ),
    "bombs-only": DEFAULT.with_options(bombs=True),
}


def check_dark_views(state: DealState) -> None:
    """A seat that has not looked sees none of its cards; until the deal is over, nobody but the
    declarer sees a dark game's talon (except the cards of it that are played)."""
    talon = (1 << state.talon[0]) | (1 << state.talon[1])
    played = played_mask(state) | sum(1 << c for _, c in state.play.trick)
    for seat in range(state.players):
        view = seat_view(state, seat)
        seen = visible_mask(state, seat)
        if (state.unseen >> seat) & 1:
            assert state.phase is not Phase.SCORED
            assert view.hand == 0 and view.hands[seat] is None
            assert seen & state.dealt[seat] == 0, f"unseen seat {seat} sees its own cards"
        if state.dark and seat != state.declarer and state.phase is not Phase.SCORED:
            assert seen & talon & ~played == 0, f"seat {seat} sees a dark game's talon"
            assert view.talon == (None, None)


def pick(rng: random.Random, legal: tuple[Action, ...]) -> Action:
    """A random legal action, favouring the Classic calls so that every path is reached."""
    classic = [a for a in legal if isinstance(a, Bomb | DarkCall | NoTalonCall)]
    if classic and rng.random() < 0.5:
        return rng.choice(classic)
    passes = [a for a in legal if str(a) == "pass"]
    if passes and rng.random() < 0.3:
        return passes[0]
    return rng.choice(legal)


def walk_deal(rules: RuleSet, rng: random.Random, check: bool) -> DealState:
    seed = secrets.token_bytes(32)
    dealer = rng.randrange(3)
    shuffle = shuffle_from_seed(seed, 1)
    state = new_deal(
        deal_cards(shuffle.order, dealer, shuffle.talon_pair), dealer, rules, 0, 0, rng.randrange(3)
    )
    while True:
        check_cards(state)
        check_dark_views(state)
        if check:
            check_turn(state)
            check_legality(state, rng)
        if state.phase is Phase.SCORED:
            return state
        state = apply(state, pick(rng, legal_actions(state)), actor(state))


def features(state: DealState) -> set[str]:
    calls = [a for _, a in state.auction.calls]
    out = set()
    if state.bomb:
        out.add("bomb")
    if state.dark and state.bid is not None:
        out.add("dark misère" if state.bid.is_misere else "dark game")
    if state.no_talon:
        out.add("no talon")
    if any(isinstance(a, Look) for a in calls):
        out.add("look")
    won_dark_trick_bid = state.auction.tier == DARK and state.auction.high != MISERE_INDEX
    if state.declarer >= 0 and won_dark_trick_bid and state.bid == MISERE:
        out.add("switched to misère")
    return out


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_random_classic_deals_keep_the_invariants(variant: str) -> None:
    rules = VARIANTS[variant]
    rng = random.Random()
    for _ in range(25):
        walk_deal(rules, rng, check=True)


def test_a_dark_players_view_never_shows_his_own_cards_before_he_looks() -> None:
    """Issue 12 property: drawn until every Classic path has occurred (fresh seeds)."""
    wanted = {"bomb", "dark game", "dark misère", "no talon", "look", "switched to misère"}
    seen: set[str] = set()
    rng = random.Random()
    for _ in range(3000):
        seen |= features(walk_deal(CLASSIC_AUCTION, rng, check=False))
        if seen >= wanted:
            break
    assert seen >= wanted, wanted - seen


# --- whole games through the aggregate, the audit and the hand record ----------------------


def classic_policy(rng: random.Random) -> Callable[[DealState, int], Action]:
    """Bots for the play and whisting; in the auction and at the talon, random Classic calls
    (the bots themselves always look and bid in the light)."""
    bot = make_bot()

    def decide(deal: DealState, seat: int) -> Action:
        view = seat_view(deal, seat)
        if deal.phase in (Phase.BIDDING, Phase.TALON) and rng.random() < 0.6:
            return pick(rng, view.legal)
        return bot(view)

    return decide


def play_classic_game(rules: RuleSet, deals: int, rng: random.Random) -> tuple[Game, set[str]]:
    seed = secrets.token_bytes(32)
    game = created_game(rules, rng.randrange(3), seed)
    game.deal_next(seed, "create")
    policy = classic_policy(rng)
    seen: set[str] = set()
    while not game.finished and game.state.deal_number <= deals:
        deal = game.state.deal
        assert deal is not None
        seat = actor(deal)
        before = len(game.deal_results)
        game.act(seat, policy(deal, seat), f"r{game.version}", seed)
        if len(game.deal_results) > before:
            seen |= {game.deal_results[-1]["kind"]}
        after = game.state.deal
        if after is not None:
            seen |= features(after)
    return game, seen


def test_bot_games_with_the_classic_auction_replay_through_the_audit() -> None:
    """Games with bombs and dark games (drawn until both occurred) verify through the audit of
    their events and through their exported hand records."""
    rng = random.Random()
    seen: set[str] = set()
    for _ in range(20):
        game, features_seen = play_classic_game(CLASSIC_AUCTION, 8, rng)
        seen |= features_seen
        events = game.collect_events()
        report = verify(str(game.id), events)
        assert report.discrepancy is None, report.discrepancy
        record = validate(record_from_events(events, str(game.id)))
        verdict = verify_record(record)
        assert verdict.consistent, verdict.message
        assert any("classic" in d for d in record["deals"])
        if {"bomb", "dark game"} <= seen:
            break
    assert {"bomb", "dark game"} <= seen, seen
