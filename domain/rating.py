"""Ratings for games settled in whists: Elo over pairwise settlement results, and beside it a
skill rating with uncertainty (OpenSkill's Plackett-Luce model, ``rate_skill``).

Pure and deterministic (no I/O, no clock, no randomness): the same results in the same order
give the same ratings, bit for bit. The formulas are documented in docs/STATS.md. A league's
ratings are a fold over its finished games in the log's order (``rate_games``), so after a
ruling that changes a settlement the league is folded again from that game on and gives what
a log holding the ruled settlement from the start would give.

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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from openskill.models import PlackettLuce

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


# -- the skill rating with uncertainty (OpenSkill) -------------------------------------------

SKILL_MU = 25.0
"""Every player's skill estimate (the mean, μ) before his first finished game in a league."""

SKILL_SIGMA = 25.0 / 3.0
"""The uncertainty (standard deviation, σ) of a new player's skill."""

SKILL_BETA = 25.0 / 6.0
"""The spread of one game's performance around the skill (β)."""

SKILL_KAPPA = 0.0001
"""The least a variance may shrink to in one update (κ, keeps σ² positive)."""

SKILL_TAU = 25.0 / 300.0
"""Added to σ (as σ² + τ²) before each game: skills drift, so σ never reaches 0 (τ)."""

SKILL_Z = 3.0
"""The conservative skill shown and ranked by is μ − z·σ."""

_MODEL = PlackettLuce(
    mu=SKILL_MU,
    sigma=SKILL_SIGMA,
    beta=SKILL_BETA,
    kappa=SKILL_KAPPA,
    tau=SKILL_TAU,
    limit_sigma=False,
    balance=False,
)
"""OpenSkill's Plackett-Luce model with the parameters above (its defaults, stated here so
that a new release of the library that changed them would not change the ratings)."""


@dataclass(frozen=True)
class Skill:
    """A player's skill: estimate ``mu`` and its uncertainty ``sigma`` (a normal belief)."""

    mu: float = SKILL_MU
    sigma: float = SKILL_SIGMA

    @property
    def conservative(self) -> float:
        """μ − 3σ: the skill the player has with 99.7 % confidence (0 for a new player)."""
        return self.mu - SKILL_Z * self.sigma


def settlement_ranks(results: Sequence[Fraction]) -> list[int]:
    """Each player's place by settlement result: 0 for the highest, equal results sharing a
    place (the number of players with a strictly higher result)."""
    return [sum(other > result for other in results) for result in results]


def rate_skill(skills: Sequence[Skill], results: Sequence[Fraction]) -> tuple[Skill, ...]:
    """The players' skills after one game with these settlement results (by seat): one
    Plackett-Luce update of a free-for-all of one-player teams ranked by their results."""
    if len(skills) != len(results):
        raise ValueError("one result per skill is needed")
    if len(skills) < 2:
        return tuple(skills)
    teams = [[_MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    ranks = [float(rank) for rank in settlement_ranks(results)]
    rated = _MODEL.rate(teams, ranks=ranks)
    return tuple(Skill(team[0].mu, team[0].sigma) for team in rated)


# -- a league's ratings as a fold over its games ---------------------------------------------


@dataclass(frozen=True)
class Standing:
    """A player's ratings at some point of a league: Elo and skill."""

    rating: float = INITIAL_RATING
    skill: Skill = Skill()


@dataclass(frozen=True)
class RatedGame:
    """One finished game's players (by seat) and settlement results, and (``rate_games``)
    each player's standing before and after it."""

    players: tuple[str, ...]
    results: tuple[Fraction, ...]
    before: tuple[Standing, ...] = ()
    after: tuple[Standing, ...] = ()


def rate_games(
    games: Iterable[RatedGame], start: Mapping[str, Standing] | None = None
) -> tuple[list[RatedGame], dict[str, Standing]]:
    """Rate ``games`` in order, from each player's standing in ``start`` (a new player's
    otherwise): the games with their standings before and after, and every player's standing
    after the last of them."""
    standings = dict(start or {})
    rated = []
    for game in games:
        before = tuple(standings.get(player, Standing()) for player in game.players)
        elo = rate_game([s.rating for s in before], game.results)
        skill = rate_skill([s.skill for s in before], game.results)
        after = tuple(Standing(e, k) for e, k in zip(elo, skill, strict=True))
        standings.update(zip(game.players, after, strict=True))
        rated.append(RatedGame(game.players, game.results, before, after))
    return rated, standings
