"""Property checks of the recording, settlement and ending options (issue 11, RULES.md §3.4):
whole random games under each option keep the cards, write on the sheet exactly the sum of the
deals' entries, settle to zero (whole numbers with the integer adjustment), keep the pools within
their bounds, and apply the help eligibility rules they name."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings

from domain.rules import (
    DEFAULT,
    Ending,
    GameRecord,
    HelpTie,
    Kind,
    Leftover,
    RuleSet,
    ScoreSheet,
    SettlementMethod,
    play_game,
    settle_final,
)
from tests.unit.test_properties import DEALERS, RNG_SEEDS, SEEDS, check_cards, random_policy

OPTIONS: dict[str, dict[str, Any]] = {
    "smaller-gora": {"help_tie": HelpTie.SMALLER_GORA},
    "failed-whister-not-helped": {"help_failed_whister": False},
    "raspasy-zero-no-help": {"raspasy_zero_helps": False},
    "leftover-below-zero": {"leftover": Leftover.BELOW_ZERO},
    "method-1-integer": {
        "settlement_method": SettlementMethod.AMNESTY,
        "settlement_integer": True,
    },
    "method-2-integer": {"settlement_integer": True},
    "pool-sum": {"ending": Ending.POOL_SUM},
    "deals": {"ending": Ending.DEALS, "ending_deals": 7},
    "races": {"races": 3},
}


def check(record: GameRecord, rules: RuleSet) -> None:
    n = rules.players
    pool = [0] * n
    gora = [0] * n
    whists = [[0] * n for _ in range(n)]
    for deal in record.deals:
        check_cards(deal.final)
        result = deal.final.result
        assert result is not None
        entry = deal.entry
        if not rules.help_failed_whister and result.kind is Kind.GAME:
            failed = {s for s, g in enumerate(deal.score.gora) if g > 0 and s != result.declarer}
            assert not failed & {h.recipient for h in entry.helps}
        if result.kind is Kind.RASPASY and not rules.raspasy_zero_helps:
            assert entry.helps == ()
            # A zero's leftover never grows another player's gora.
            for seat in range(n):
                if deal.score.pool[seat] == 0:
                    assert entry.gora[seat] <= deal.score.gora[seat]
        if not rules.helps():
            assert entry.helps == ()
        for seat in range(n):
            pool[seat] += entry.pool[seat]
            gora[seat] += entry.gora[seat]
            for other in range(n):
                whists[seat][other] += entry.whists[seat][other]
        if rules.ending is Ending.POOL_SUM:
            assert sum(pool) <= rules.pool_target * n
        else:
            assert all(0 <= p <= rules.pool_target for p in pool)
        if rules.leftover is Leftover.EXCESS_TO_OPPONENTS:
            assert all(g >= 0 for g in gora)
    sheet = ScoreSheet(tuple(pool), tuple(gora), tuple(tuple(r) for r in whists))
    assert record.sheet == sheet
    assert record.settlement == settle_final(sheet, rules)
    assert sum(record.settlement) == 0
    if rules.settlement_integer and rules.settlement_whists_per_gora % n:
        assert all(x.denominator == 1 for x in record.settlement)
    if rules.ending is Ending.DEALS:
        assert len(record.deals) <= rules.ending_deals
        assert record.finished
    if rules.races and record.finished:
        assert sum(d.entry.race is not None for d in record.deals) == rules.races


@pytest.mark.parametrize("name", sorted(OPTIONS))
@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, first_dealer=DEALERS, rng_seed=RNG_SEEDS)
def test_random_games_under_each_option_keep_every_invariant(
    name: str, seed: bytes, first_dealer: int, rng_seed: int
) -> None:
    rules = DEFAULT.with_options(pool_target=6, **OPTIONS[name])
    policies = random_policy(random.Random(rng_seed))
    record = play_game(seed, policies, rules, first_dealer, max_deals=150)
    check(record, rules)


def test_the_check_can_fail() -> None:
    rules = DEFAULT.with_options(pool_target=6, settlement_integer=True)
    record = play_game(b"\x05" * 16, random_policy(random.Random(5)), rules, max_deals=4)
    check(record, rules)
    bad = record._replace(settlement=tuple(x + Fraction(1, 3) for x in record.settlement))
    with pytest.raises(AssertionError):
        check(bad, rules)
