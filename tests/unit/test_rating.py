"""The league rating: Elo over pairwise settlement results (domain.rating, docs/STATS.md)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from domain.rating import INITIAL_RATING, K_FACTOR, expected, pairwise_score, rate_game

F = Fraction


def test_equal_ratings_winner_middle_loser() -> None:
    # Expected 1/2 against each; the winner scores 1 + 1, the middle 0 + 1, the loser 0 + 0:
    # ± K/2 × (2 - 1) = ±16, the middle keeps his rating.
    after = rate_game([1500.0] * 3, [F(200, 3), F(-20), F(-140, 3)])
    assert after == (1516.0, 1500.0, 1484.0)


def test_draws_and_all_equal_results() -> None:
    assert rate_game([1500.0] * 3, [F(0)] * 3) == (1500.0, 1500.0, 1500.0)
    # Two equal losers: each scores 1/2 against the other, 0 against the winner.
    assert rate_game([1500.0] * 3, [F(200, 3), F(-100, 3), F(-100, 3)]) == (1516.0, 1492.0, 1492.0)


def test_expected_score_and_pairwise_score() -> None:
    assert expected(1500.0, 1500.0) == 0.5
    assert expected(1900.0, 1500.0) == pytest.approx(10 / 11)
    assert expected(1500.0, 1900.0) + expected(1900.0, 1500.0) == pytest.approx(1.0)
    assert pairwise_score(F(1, 3), F(0)) == 1.0
    assert pairwise_score(F(-1, 3), F(0)) == 0.0
    assert pairwise_score(F(5), F(5)) == 0.5


def test_a_favourite_gains_little_and_an_underdog_much() -> None:
    ratings = [1900.0, 1500.0, 1500.0]
    favourite = rate_game(ratings, [F(30), F(0), F(-30)])
    underdog = rate_game(ratings, [F(-30), F(30), F(0)])
    assert 0 < favourite[0] - 1900.0 < K_FACTOR / 2
    assert underdog[1] - 1500.0 > K_FACTOR / 2
    assert underdog[0] - 1900.0 < -K_FACTOR / 2


def test_changes_sum_to_zero_and_are_deterministic() -> None:
    ratings = [INITIAL_RATING, 1623.25, 1411.5]
    results = [F(-275, 3), F(100, 3), F(175, 3)]
    after = rate_game(ratings, results)
    assert sum(after) == pytest.approx(sum(ratings))
    assert rate_game(ratings, results) == after  # bit for bit
    # The order of the seats does not matter.
    assert rate_game(ratings[::-1], results[::-1]) == after[::-1]


def test_shapes() -> None:
    with pytest.raises(ValueError):
        rate_game([1500.0, 1500.0], [F(0)])
    assert rate_game([1500.0], [F(0)]) == (1500.0,)
    assert rate_game([1500.0, 1500.0], [F(1), F(-1)], k=20) == (1510.0, 1490.0)
