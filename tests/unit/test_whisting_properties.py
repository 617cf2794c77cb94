"""Property checks of the whisting options (issue 11; RULES.md §3.2, §5.1 C-1 … C-4): random
deals under each option group keep every invariant of ``test_properties`` (cards conserved,
``apply`` accepts exactly the legal actions, only the actor acts), and whole random games
settle to zero with pools never past the target. The bots play whole games under each group."""

from __future__ import annotations

import random

import pytest

from domain.bots import make_bot
from domain.rules import (
    ALLOW,
    OWN_WHIST,
    PASS,
    REFUSE,
    WHIST,
    DealState,
    IllegalAction,
    InvalidAction,
    Obligations,
    Phase,
    RuleSet,
    ShortfallPayer,
    WhistLiability,
    WhistSharing,
    apply,
    deal_cards,
    legal_actions,
    new_deal,
    play_game,
    shuffle_from_seed,
)
from tests.unit.test_properties import (
    Walk,
    check_cards,
    check_game,
    check_legality,
    check_result,
    check_turn,
    random_policy,
    walk,
)

LEVELS = (6, 7, 8, 9, 10)

OPTION_SETS = {
    "leningrad": RuleSet(
        whist_prices=dict(zip(LEVELS, (4, 8, 12, 16, 20), strict=True)),
        undertrick_prices=dict(zip(LEVELS, (4, 8, 12, 16, 20), strict=True)),
        misere_trick_penalty=20,
        whist_liability=WhistLiability.HALF,
        whist_sharing=WhistSharing.GENTLEMAN,
        gentleman_split_penalties=True,
        whist_pass_half_whist=True,
        pass_pass_whist_levels=frozenset({8, 9}),
    ),
    "rostov": RuleSet(
        consolation_prices=dict.fromkeys(LEVELS, 10),
        whist_liability=WhistLiability.HALF,
        whist_sharing=WhistSharing.GENTLEMAN,
        gentleman_split_always=True,
    ),
    "greedy-obligations": RuleSet(
        whist_obligations=Obligations.ALL,
        failing_whister_writes_whists=False,
        greedy_passer_consolation=False,
    ),
    "both-pay": RuleSet(shortfall_payer=ShortfallPayer.BOTH, penalty_capped=True),
    "calls": RuleSet(
        stalingrad=True,
        pass_pass_whist_levels=frozenset({8, 9}),
        own_whist_levels=frozenset({6, 7}),
        ten_whisted=False,
        ten_checked=True,
        open_after_first_lead=True,
    ),
    "classic-complicated": RuleSet(  # issue 12: S000 Classic's whisting variants
        defence_norms={6: 4, 7: 3, 8: 2, 9: 1, 10: 1},
        whister_shares={6: 2, 7: 1, 8: 1, 10: 1},
        second_whister_shares={7: 2},
        half_whist_levels=frozenset({6, 7, 8}),
        half_whist_tricks={6: 2, 7: 2, 8: 1},
        misere_whisted=True,
        raspasy_trick_prices=(2, 4, 6),
        whist_liability=WhistLiability.HALF_UNTIL_CLOSED,
        strain_price_steps=(0, 2, 4, 6, 8),
    ),
    "own-whist": RuleSet(
        own_whist_levels=frozenset({6, 7}),
        pass_pass_whist_levels=frozenset({8, 9}),
        whist_obligations=Obligations.TWO_WHISTERS,
    ),
}


def _walk(rules: RuleSet, i: int) -> Walk:
    shuffle = shuffle_from_seed(i.to_bytes(16, "big"), 1 + i % 5)
    dealer = i % 3
    start = new_deal(deal_cards(shuffle.order, dealer, shuffle.talon_pair), dealer, rules)
    return walk(start, random.Random(i))


@pytest.mark.parametrize("name", sorted(OPTION_SETS))
def test_random_deals_under_whisting_options_keep_every_invariant(name: str) -> None:
    rules = OPTION_SETS[name]
    for i in range(25):
        walked = _walk(rules, i)
        rng = random.Random(i)
        for state in walked.states:
            check_cards(state)
            check_turn(state)
            check_legality(state, rng)
            check_new_actions(state)
        check_result(walked)


def check_new_actions(state: DealState) -> None:
    """The actions issue 11 adds are accepted exactly when legal, in every phase."""
    legal = legal_actions(state)
    for action in (OWN_WHIST, ALLOW, REFUSE):
        if action in legal:
            apply(state, action)
        elif state.phase is not Phase.SCORED:
            with pytest.raises((IllegalAction, InvalidAction)):
                apply(state, action)


@pytest.mark.parametrize("name", sorted(OPTION_SETS))
def test_whole_games_under_whisting_options_settle_to_zero(name: str) -> None:
    for target in (6, 10):
        rules = OPTION_SETS[name].with_options(pool_target=target)
        for i in range(6):
            first_dealer = i % 3
            record = play_game(
                bytes([i, target]) * 8,
                random_policy(random.Random(i)),
                rules,
                first_dealer,
                max_deals=400,
            )
            check_game(record, rules, first_dealer)


@pytest.mark.parametrize("name", sorted(OPTION_SETS))
def test_bots_play_whole_games_under_whisting_options(name: str) -> None:
    rules = OPTION_SETS[name].with_options(pool_target=10)
    bot = make_bot()
    for i in range(3):
        record = play_game(bytes([7, i]) * 8, (bot, bot, bot), rules, i % 3, max_deals=400)
        assert record.finished
        check_game(record, rules, i % 3)


def test_random_deals_reach_the_new_calls() -> None:
    """Random walks reach every new call: Stalingrad's forced whist, the checked ten,
    pass–pass–whist, the own whist and both answers (each own-whist state is checked for
    legality like every state above)."""
    seen: set[str] = set()
    for name, deals in (("calls", 80), ("own-whist", 400)):
        for i in range(deals):
            walked = _walk(OPTION_SETS[name], i)
            for before, (_, action) in zip(walked.states, walked.actions, strict=False):
                said = [call for _, call in before.whist.calls]
                if before.phase is Phase.WHISTING:
                    assert before.contract is not None
                    level = before.contract.level
                    if legal_actions(before) == (WHIST,):
                        seen.add("stalingrad")
                    if level == 10 and before.rules.ten_checked and action == WHIST:
                        seen.add("checked ten")
                    if said == [PASS, PASS] and action == WHIST:
                        seen.add("pass-pass-whist")
                    if action in (OWN_WHIST, ALLOW, REFUSE):
                        seen.add(str(action))
                        check_legality(before, random.Random(i))
                        check_new_actions(before)
    assert seen == {
        "stalingrad",
        "checked ten",
        "pass-pass-whist",
        "own whist",
        "allow",
        "refuse",
    }
