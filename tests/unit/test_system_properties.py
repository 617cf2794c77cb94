"""Property tests per named system (issue 11, "Tests that must exist"): under every rule set in
``RULE_SETS`` — the default and each named system of docs/SYSTEMS.md — whole random and bot
games keep the invariants that hold whatever the conventions:

* 32 cards are conserved in every deal (RULES.md §1.1, §1.2, §1.4);
* at every step of random deals, every listed action applies and every other action tried is
  refused with a rules error, leaving the state unchanged (``check_legality``);
* the settlement sums to zero (§1.11 and §3.4: both methods are zero-sum);
* no pool passes the system's target (§1.10); under the Leningrad ending by the sum of pools
  (TV-38) pools are not capped, and no deal is dealt once the sum has reached the target.

The audit of bot games through the event store is in tests/integration/test_system_games.py.
"""

from __future__ import annotations

import random

import pytest

from domain.bots import make_bot
from domain.rules import Ending, RuleSet, deal_cards, new_deal, play_game, shuffle_from_seed
from domain.rules.systems import RULE_SETS
from tests.unit.test_properties import check_cards, check_legality, random_policy, walk

SYSTEMS = sorted(RULE_SETS)


def _check(rules: RuleSet, seed: bytes, policies: tuple) -> None:  # type: ignore[type-arg]
    record = play_game(seed, policies, rules, 0, max_deals=300)
    assert record.deals, "at least one deal was played"
    for deal in record.deals:
        check_cards(deal.final)
        assert deal.final.result is not None
    assert sum(record.settlement) == 0
    assert all(p >= 0 for p in record.sheet.pool)
    if rules.ending is Ending.POOL_SUM:
        total = 0
        for deal in record.deals:
            assert total < rules.pool_target * rules.players, "a deal after the game ended"
            total += sum(deal.entry.pool)
    else:
        assert all(p <= rules.pool_target for p in record.sheet.pool)


@pytest.mark.parametrize("system", SYSTEMS)
def test_random_deals_accept_exactly_the_legal_actions(system: str) -> None:
    rules = RULE_SETS[system]
    for number in range(12):
        shuffle = shuffle_from_seed(bytes([number, 3]) * 8, 1 + number)
        dealer = number % 3
        dealt = deal_cards(shuffle.order, dealer, shuffle.talon_pair)
        rng = random.Random(number)
        walked = walk(new_deal(dealt, dealer, rules, number % 3), rng)
        for state in walked.states:
            check_cards(state)
            check_legality(state, rng)


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("number", range(4))
def test_random_games_keep_the_invariants(system: str, number: int) -> None:
    rules = RULE_SETS[system].with_options(pool_target=6)
    _check(rules, bytes([number, 7]) * 8, random_policy(random.Random(number)))


@pytest.mark.parametrize("system", SYSTEMS)
def test_bot_games_keep_the_invariants(system: str) -> None:
    rules = RULE_SETS[system].with_options(pool_target=10)
    bots = (make_bot(), make_bot(), make_bot())
    for number in range(2):
        _check(rules, bytes([number, 9]) * 8, bots)
