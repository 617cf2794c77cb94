"""Scoring of one finished deal (RULES.md §1.6–§1.9, formula summary of §1.7)."""

from __future__ import annotations

import pytest

from domain.rules import DEFAULT, DealScore, Kind, score_deal, score_result
from tests.unit.rules_helpers import A, B, C, result, sample, whists

NONE = (0, 0, 0)


@pytest.mark.parametrize(("level", "value"), [(6, 2), (7, 4), (8, 6), (9, 8), (10, 10)])
def test_made_contract_writes_its_value_to_pool_nothing_for_overtricks(
    level: int, value: int
) -> None:
    exact = score_result(DEFAULT, result(Kind.GAME, A, f"{level}♣", (level, 10 - level, 0), (B,)))
    assert exact.pool == (value, 0, 0) and exact.gora[A] == 0
    if level < 10:
        over = result(Kind.GAME, A, f"{level}NT", (level + 1, 9 - level, 0), (B,))
        assert score_result(DEFAULT, over).pool == (value, 0, 0)


@pytest.mark.parametrize(
    ("contract", "taken", "gora"), [("6♠", 5, 2), ("6♠", 2, 8), ("7♥", 4, 12), ("10NT", 9, 10)]
)
def test_failed_contract_undertricks_times_value_to_gora(
    contract: str, taken: int, gora: int
) -> None:
    defence = 10 - taken
    score = score_result(DEFAULT, result(Kind.GAME, A, contract, (taken, defence, 0), (B, C)))
    assert (score.pool, score.gora[A]) == (NONE, gora)


def test_two_whisters_write_tricks_plus_consolation() -> None:
    """§1.7: Wi writes (di + U) × V; here 8♦ two down: (3+2)×6 = 30 and (1+2)×6 = 18."""
    score = score_result(DEFAULT, result(Kind.GAME, C, "8♦", (3, 1, 6), (A, B)))
    assert score == DealScore(NONE, (0, 0, 12), whists({(A, C): 30, (B, C): 18}))


def test_one_whister_and_passer_passer_keeps_only_consolation() -> None:
    """§1.7: W writes (D + U) × V, the passer U × V. 7♠ taken 5: W 5+2 → 28, passer 8."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "7♠", (5, 4, 1), (C,), (B,)))
    assert score == DealScore(NONE, (8, 0, 0), whists({(C, A): 28, (B, A): 8}))


def test_one_whister_made_contract_passer_writes_nothing() -> None:
    score = score_result(DEFAULT, result(Kind.GAME, A, "7♠", (7, 1, 2), (C,), (B,)))
    assert score == DealScore((4, 0, 0), NONE, whists({(C, A): 12}))


@pytest.mark.parametrize(
    ("tricks", "gora"),
    [
        ((7, 2, 1), (0, 0, 2)),
        ((8, 1, 1), (0, 2, 2)),
        ((8, 2, 0), (0, 0, 4)),
        ((10, 0, 0), (0, 4, 4)),
        ((6, 4, 0), NONE),
        ((6, 0, 4), NONE),
    ],
)
def test_six_each_whister_answers_for_two(
    tricks: tuple[int, int, int], gora: tuple[int, int, int]
) -> None:
    """§1.6: on a six, if the joint norm 4 is missed, each whister answers for 2 tricks."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "6♥", tricks, (B, C)))
    assert score.gora == gora


@pytest.mark.parametrize(
    ("tricks", "gora"),
    [((9, 1, 0), (0, 0, 4)), ((9, 0, 1), (0, 4, 0)), ((10, 0, 0), (0, 4, 4)), ((8, 2, 0), NONE)],
)
def test_seven_each_whister_answers_for_one(
    tricks: tuple[int, int, int], gora: tuple[int, int, int]
) -> None:
    score = score_result(DEFAULT, result(Kind.GAME, A, "7♥", tricks, (B, C)))
    assert score.gora == gora


@pytest.mark.parametrize(("contract", "value"), [("8♠", 6), ("9♦", 8), ("10♥", 10)])
def test_eight_to_ten_second_whister_answers(contract: str, value: int) -> None:
    """§1.6: on 8–10 the one who said "whist" second pays for the missing trick."""
    first_b = score_result(DEFAULT, result(Kind.GAME, A, contract, (10, 0, 0), (B, C)))
    first_c = score_result(DEFAULT, result(Kind.GAME, A, contract, (10, 0, 0), (C, B)))
    assert first_b.gora == (0, 0, value) and first_c.gora == (0, value, 0)
    assert first_b.pool == (value, 0, 0) and first_b.whists == whists({})


def test_one_whister_answers_for_the_whole_norm() -> None:
    """§1.7: one whister: gora (N − D) × V. 6♠ taken 8: D = 2, 2 short → 4 gora."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "6♠", (8, 1, 1), (B,), (C,)))
    assert score == DealScore((2, 0, 0), (0, 4, 0), whists({(B, A): 4}))


def test_both_pass_contract_given_value_only() -> None:
    score = score_result(DEFAULT, result(Kind.PASSED_OUT, B, "9NT", NONE, (), (C, A)))
    assert score == DealScore((0, 8, 0), NONE, whists({}))


@pytest.mark.parametrize(("contract", "value"), [("6♦", 2), ("7NT", 4)])
def test_half_whist_pool_and_four_whists(contract: str, value: int) -> None:
    res = result(Kind.HALF_WHIST, B, contract, NONE, (), (C, A), half_whister=A)
    assert score_result(DEFAULT, res) == DealScore((0, value, 0), NONE, whists({(A, B): 4}))


def test_return_whist_default_returner_takes_consolation() -> None:
    """A-02 default: the returner writes the half-whister's consolation as well."""
    res = result(Kind.GAME, A, "7♠", (5, 4, 1), (B,), (C,), half_whister=C, returned=True)
    score = score_result(DEFAULT, res)
    assert score == DealScore(NONE, (8, 0, 0), whists({(B, A): 28 + 8}))


def test_misere_made_and_failed() -> None:
    made = score_result(DEFAULT, result(Kind.MISERE, C, "misère", (6, 4, 0)))
    failed = score_result(DEFAULT, result(Kind.MISERE, C, "misère", (6, 3, 1)))
    assert made == DealScore((0, 0, 10), NONE, whists({}))
    assert failed == DealScore(NONE, (0, 0, 10), whists({}))


@pytest.mark.parametrize(
    ("tricks", "pool", "gora"),
    [
        ((4, 3, 3), NONE, (4, 3, 3)),
        ((0, 5, 5), (1, 0, 0), (0, 5, 5)),
        ((0, 0, 10), (1, 1, 0), (0, 0, 10)),
        ((2, 8, 0), (0, 0, 1), (2, 8, 0)),
    ],
)
def test_raspasy_one_per_trick_true_zero_one_to_pool(
    tricks: tuple[int, int, int], pool: tuple[int, int, int], gora: tuple[int, int, int]
) -> None:
    res = result(Kind.RASPASY, -1, None, tricks)
    for streak in (0, 1, 4):  # no progression in the default profile
        assert score_result(DEFAULT, res, streak) == DealScore(pool, gora, whists({}))


def test_score_deal_needs_a_finished_deal() -> None:
    with pytest.raises(ValueError, match="not finished"):
        score_deal(sample())
