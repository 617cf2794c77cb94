"""A rating for games settled in whists: Elo over pairwise settlement results.

Pure and deterministic (no I/O, no clock, no randomness): the same results in the same order
give the same ratings, bit for bit. The formula is documented in docs/STATS.md.

A finished game of *n* players (3, 4 or 5 in Preferans, RULES.md §3.6) is read as *n(n-1)/2*
pairwise matches, each player against every other:
player *i* "beat" player *j* when his settlement result is higher. For each player *i*, with
ratings *R* taken before the game (all players are updated at once)::

    E_ij = 1 / (1 + 10 ** ((R_j - R_i) / 400))         expected score of i against j
    S_ij = 1 if result_i > result_j, 1/2 if equal, 0 otherwise
    R_i' = R_i + K / (n - 1) * sum over j != i of (S_ij - E_ij)

Dividing K by *n - 1* keeps one game worth one ordinary Elo game per player, whatever the table
size. As ``S_ij + S_ji = 1`` and ``E_ij + E_ji = 1``, the changes of one game sum to zero (up to
float rounding): ratings are only exchanged between the players of a game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

INITIAL_RATING = 1500.0
"""Every player's rating before his first finished game in a league."""

K_FACTOR = 32.0
"""The most a player can gain or lose in one game."""

SCALE = 400.0
"""A rating difference of ``SCALE`` means 10:1 expected odds."""


def expected(rating: float, opponent: float) -> float:
    """The expected score (0 to 1) of a player rated ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / SCALE))


def pairwise_score(result: Fraction, other: Fraction) -> float:
    """1 for the higher settlement result, 0 for the lower, 1/2 for equal results."""
    if result > other:
        return 1.0
    if result < other:
        return 0.0
    return 0.5


def rate_game(
    ratings: Sequence[float], results: Sequence[Fraction], k: float = K_FACTOR
) -> tuple[float, ...]:
    """The players' ratings after one game with these settlement results (by seat)."""
    n = len(ratings)
    if n != len(results):
        raise ValueError("one result per rating is needed")
    if n < 2:
        return tuple(ratings)
    weight = k / (n - 1)
    new = []
    for i in range(n):
        delta = 0.0
        for j in range(n):
            if j != i:
                delta += pairwise_score(results[i], results[j]) - expected(ratings[i], ratings[j])
        new.append(ratings[i] + weight * delta)
    return tuple(new)
