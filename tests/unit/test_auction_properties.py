"""Property checks of the auction and contract options (issue 11, RULES.md §3.1): random and
bot deals and whole games under each option keep the invariants of tests/unit/test_properties.py
(cards conserved, only legal actions accepted, settlement sums to zero, pools never pass the
target), and the options' own paths are reached."""

from __future__ import annotations

import random

import pytest

from domain.bots import make_bot
from domain.rules import (
    DEFAULT,
    Action,
    Kind,
    Phase,
    Policy,
    RuleSet,
    SeatView,
    actor,
    apply,
    deal_cards,
    legal_actions,
    new_deal,
    play_game,
    shuffle_from_seed,
)
from domain.rules.actions import CONCEDE
from domain.rules.ruleset import Bidding, PreferansEffect, PreferansHand, Underbid
from tests.unit.test_properties import check_cards, check_game, check_legality, check_turn, choose

OPTIONS: dict[str, RuleSet] = {
    "here-passes-to-later": DEFAULT.with_options(here_passes_to_later=True),
    "misere-by-ten": DEFAULT.with_options(misere_beaten_by_ten=True),
    "misere-by-ten-jump": DEFAULT.with_options(misere_beaten_by_ten=True, bidding=Bidding.JUMP),
    "without-three": DEFAULT.with_options(concede_undertricks=3),
    "without-four-any-level": DEFAULT.with_options(concede_undertricks=4, concede_any_level=True),
    "underbid-two": DEFAULT.with_options(underbid_penalty=Underbid.TWO),
    "all": DEFAULT.with_options(
        underbid_penalty=Underbid.GAME_VALUE,
        misere_shows_twelve=True,
        preferans=PreferansHand.ALL_TRICKS,
        preferans_effect=PreferansEffect.HELP_WHISTS,
        here_passes_to_later=True,
        misere_beaten_by_ten=True,
        misere_beaten_stops_auction=True,
        concede_undertricks=3,
        concede_any_level=True,
        bidding=Bidding.NT_SKIP,
    ),
}


def pick(rng: random.Random, legal: tuple[Action, ...]) -> Action:
    """``test_properties.choose``, but going "without three" a third of the times it may."""
    if CONCEDE in legal and rng.random() < 0.3:
        return CONCEDE
    return choose(rng, legal)


def mixed(rng: random.Random) -> tuple[Policy, Policy, Policy]:
    """Half bot, half random legal actions (reaches the rarer paths bots avoid)."""
    bot = make_bot()

    def policy(view: SeatView) -> Action:
        return bot(view) if rng.random() < 0.5 else pick(rng, view.legal)

    return (policy, policy, policy)


@pytest.mark.parametrize("name", OPTIONS)
def test_random_deals_keep_every_invariant_under_the_option(name: str) -> None:
    rules = OPTIONS[name]
    kinds: set[Kind] = set()
    reviewed = False
    for i in range(40):
        rng = random.Random(i)
        shuffle = shuffle_from_seed(bytes([i, 7]) * 8, 1 + i)
        state = new_deal(deal_cards(shuffle.order, i % 3, shuffle.talon_pair), i % 3, rules)
        while state.phase is not Phase.SCORED:
            check_cards(state)
            check_turn(state)
            check_legality(state, rng)
            reviewed = reviewed or state.phase is Phase.REVIEW
            state = apply(state, pick(rng, legal_actions(state)), actor(state))
        check_cards(state)
        assert state.result is not None
        kinds.add(state.result.kind)
    if rules.concede_undertricks:
        assert Kind.CONCEDED in kinds
    if rules.underbid_penalty is not Underbid.NONE:
        assert reviewed


@pytest.mark.parametrize("name", OPTIONS)
def test_whole_games_settle_to_zero_under_the_option(name: str) -> None:
    rules = OPTIONS[name].with_options(pool_target=10)
    for i in range(6):
        record = play_game(bytes([i, 11]) * 8, mixed(random.Random(i)), rules, i % 3, 300)
        check_game(record, rules, i % 3)
