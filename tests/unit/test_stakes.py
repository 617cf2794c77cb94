"""Stakes (docs/STAKES.md): a settlement in whists made virtual money, exactly and summing to
zero; the ledger events the game records with its end and after a ruling; aborting a game
before its first deal is scored."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.audit import MISSING, verify
from domain.model import Game
from domain.model.codec import settlement_from_strings
from domain.model.game import AbortRefused
from domain.model.stakes import CENTS, LedgerError, difference, format_cents, money
from domain.rules import DEFAULT, actor, legal_actions
from domain.rules.actions import Claim
from domain.rules.errors import GameOver
from tests.integration.helpers import fold
from tests.unit.game_helpers import created_game

SEED = b"\x05" * 32


@st.composite
def settlements(draw: st.DrawFn) -> list[Fraction]:
    """A zero-sum settlement of 2–5 seats plus up to 4 replaced players' accounts, in exact
    whists with the denominators a settlement has (a pool split 2, 3, 4 or 5 ways)."""
    accounts = draw(st.integers(2, 5)) + draw(st.integers(0, 4))
    denominator = draw(st.sampled_from([1, 2, 3, 4, 5, 6, 12, 60]))
    values = [
        Fraction(draw(st.integers(-100_000, 100_000)), denominator) for _ in range(accounts - 1)
    ]
    return [*values, -sum(values, Fraction(0))]


@given(settlements(), st.integers(1, 10_000))
def test_money_is_exact_to_the_cent_and_sums_to_zero(
    settlement: list[Fraction], stake: int
) -> None:
    amounts = money(settlement, stake)
    assert sum(amounts) == 0
    assert len(amounts) == len(settlement)
    for amount, whists in zip(amounts, settlement, strict=True):
        assert abs(amount - whists * stake * CENTS) < 1
    assert money(settlement, stake) == amounts  # deterministic


@given(settlements(), st.integers(1, 10_000), st.randoms(use_true_random=False))
def test_an_adjustment_sums_to_zero_and_leads_to_the_new_money(
    before: list[Fraction], stake: int, rng: random.Random
) -> None:
    after = list(before)
    shift = Fraction(rng.randint(-500, 500), rng.choice([1, 3, 7]))
    i, j = rng.sample(range(len(after)), 2)
    after[i] += shift
    after[j] -= shift
    old, new = money(before, stake), money(after, stake)
    moved = difference(old, new)
    assert sum(moved) == 0
    assert [o + m for o, m in zip(old, moved, strict=True)] == new


def test_largest_remainder_rounding_by_example() -> None:
    # 20/3, -10/3, -10/3 whists at 1 coin: 666.67, -333.33, -333.33 cents exactly → the cent
    # left over goes to the largest remainder (the first account: 2/3 of a cent).
    assert money([Fraction(20, 3), Fraction(-10, 3), Fraction(-10, 3)], 1) == [667, -333, -334]
    # Equal remainders: the earlier account gets the cent.
    assert money([Fraction(1, 300), Fraction(1, 300), Fraction(-2, 300)], 1) == [1, 0, -1]
    assert money([Fraction(5), Fraction(-5)], 3) == [1500, -1500]
    assert [format_cents(a) for a in (-667, 5, 0, 1500)] == ["-6.67", "0.05", "0.00", "15.00"]


def test_a_settlement_that_does_not_sum_to_zero_is_refused() -> None:
    with pytest.raises(LedgerError):
        money([Fraction(1), Fraction(0)], 1)
    with pytest.raises(LedgerError):
        difference([1, -1], [1, 0, -1])


# ---------------------------------------------------------------------------------------------
# the aggregate


def names(events: list[Any]) -> list[str]:
    return [type(event).__name__ for event in events]


def first_deal_scored(game: Game) -> None:
    """Play the first legal non-claim action until the first deal is scored."""
    while not game.deal_results:
        deal = game.state.deal
        assert deal is not None
        action = next(a for a in legal_actions(deal) if not isinstance(a, Claim))
        game.act(actor(deal), action, f"r{game.version}", SEED)


def stopped(game: Game) -> list[Any]:
    for seat in range(game.rule_set.players):
        game.agree_stop(seat, f"stop-{seat}", SEED)
    events: list[Any] = list(game.collect_events())
    return events


def test_a_staked_game_records_its_money_with_its_end() -> None:
    game = created_game(DEFAULT, stake_per_whist=7)
    game.deal_next(SEED, "create")
    first_deal_scored(game)
    events = stopped(game)
    assert names(events)[-2:] == ["GameFinished", "StakesSettled"]
    settled = events[-1]
    assert settled.seat == -1 and settled.request_id == "stop-2"
    assert settled.stake_per_whist == 7
    assert settled.players == game.accounts == ["a", "b", "c"]
    assert game.settlement is not None
    assert settled.amounts == money(settlement_from_strings(game.settlement), 7)
    assert sum(settled.amounts) == 0 and any(settled.amounts)
    assert game.ledger == [settled.amounts]
    assert fold(events).ledger == game.ledger


def test_a_game_without_stake_records_no_money() -> None:
    game = created_game(DEFAULT)
    game.deal_next(SEED, "create")
    assert "StakesSettled" not in names(stopped(game))
    assert game.ledger == []


def test_a_ruling_that_changes_the_settlement_moves_the_difference() -> None:
    game = created_game(DEFAULT, stake_per_whist=3)
    game.deal_next(SEED, "create")
    first_deal_scored(game)
    events = stopped(game)
    adjustment = {"gora": [0, 0, 0], "whists": [[0, 10, 0], [0, 0, 0], [0, 0, 0]]}
    game.record_ruling(1, "a revoke", adjustment, "rule-1")
    game.record_ruling(1, "the play was correct", None, "rule-2")
    ruled: list[Any] = list(game.collect_events())
    assert names(ruled) == ["RulingRecorded", "StakesAdjusted", "RulingRecorded", "StakesAdjusted"]
    assert game.settlement is not None
    now = money(settlement_from_strings(game.settlement), 3)
    assert [sum(column) for column in zip(*game.ledger, strict=True)] == now
    assert all(sum(entry) == 0 for entry in game.ledger)
    assert ruled[1].amounts != [0, 0, 0] and ruled[3].amounts == [0, 0, 0]
    assert fold(events + ruled).ledger == game.ledger


def test_a_ruling_during_the_game_moves_no_money() -> None:
    game = created_game(DEFAULT, stake_per_whist=3)
    game.deal_next(SEED, "create")
    first_deal_scored(game)
    list(game.collect_events())
    adjustment = {"gora": [2, 0, 0], "whists": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}
    game.record_ruling(1, "a revoke", adjustment, "rule-1")
    assert names(list(game.collect_events())) == ["RulingRecorded"]


def test_a_seat_aborts_before_the_first_deal_is_scored() -> None:
    game = created_game(DEFAULT, stake_per_whist=5)
    game.deal_next(SEED, "create")
    deal = game.state.deal
    assert deal is not None
    game.abort(1, "abort-1")
    events: list[Any] = list(game.collect_events())
    assert names(events)[-1] == "GameAborted"
    assert events[-1].seat == 1
    assert game.aborted and game.finished and game.settlement is None and game.ledger == []
    assert game.state.deal is None  # no deal in progress: nobody is to act
    with pytest.raises(GameOver):
        game.act(actor(deal), legal_actions(deal)[0], "late", SEED)
    with pytest.raises(GameOver):
        game.agree_stop(0, "stop", SEED)
    with pytest.raises(GameOver):
        game.abort(0, "abort-2")
    again = fold(events)
    assert again.aborted and again.finished and again.settlement is None


def test_no_abort_once_a_deal_is_scored() -> None:
    game = created_game(DEFAULT)
    game.deal_next(SEED, "create")
    first_deal_scored(game)
    with pytest.raises(AbortRefused):
        game.abort(0, "abort")
    with pytest.raises(GameOver):
        stopped(game)
        game.abort(0, "abort")


# ---------------------------------------------------------------------------------------------
# the audit (the stored chain recomputed after a change: tests/integration/test_audit_stakes.py)


def test_the_audit_recomputes_the_ledger() -> None:
    game = created_game(DEFAULT, stake_per_whist=3, seed=SEED)
    game.deal_next(SEED, "create")
    first_deal_scored(game)
    events = stopped(game)
    game.record_ruling(1, "a revoke", {"gora": [0, 5, 0], "whists": [[0] * 3] * 3}, "rule-1")
    events += list(game.collect_events())
    report = verify("g", events)
    assert report.verified, report.summary
    assert report.money == [sum(c) for c in zip(*game.ledger, strict=True)]
    assert sum(report.money) == 0
    # The ledger event left out: the log ends where it must follow.
    assert not verify("g", events[:-1]).verified
    assert verify("g", events[:-1]).discrepancy.kind == MISSING  # type: ignore[union-attr]


def test_the_audit_accepts_an_aborted_game() -> None:
    game = created_game(DEFAULT, stake_per_whist=3, seed=SEED)
    game.deal_next(SEED, "create")
    game.abort(2, "abort")
    report = verify("g", list(game.collect_events()))
    assert report.verified, report.summary
    assert report.aborted and not report.finished and report.settlement is None
    assert "aborted" in report.summary
