"""The league ratings (domain.rating, docs/STATS.md): Elo over pairwise settlement results, its
recomputation after a ruling, and the skill rating with uncertainty (OpenSkill)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from domain.rating import (
    INITIAL_RATING,
    K_FACTOR,
    SKILL_SIGMA,
    SKILL_TAU,
    RatedGame,
    Skill,
    expected,
    pairwise_score,
    rate_game,
    rate_games,
    rate_skill,
    settlement_ranks,
)

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


# -- recomputation after a ruling (docs/STATS.md "Rulings") ----------------------------------

G1 = ("ann", "bob", "cid")
G2 = ("bob", "cid", "dan")


def test_a_ruling_that_changes_who_finished_ahead_changes_the_ratings_from_that_game_on() -> None:
    # Game 1 as played: ann ahead of bob and cid (level) → +16, -8, -8 from 1500 each.
    # Game 2: bob ahead of cid and dan (level).
    played = [
        RatedGame(G1, (F(200, 3), F(-100, 3), F(-100, 3))),
        RatedGame(G2, (F(20),) + (F(-10),) * 2),
    ]
    rated, standings = rate_games(played)
    assert [s.rating for s in rated[0].after] == [1516.0, 1492.0, 1492.0]
    # Game 2 from bob 1492, cid 1492, dan 1500: E(bob, dan) = 1/(1 + 10^(8/400)) = 0.488489,
    # bob +16 × ((1 - 1/2) + (1 - 0.488489)) = +16.18417.
    assert rated[1].after[0].rating == pytest.approx(1508.18417, abs=1e-5)

    # A ruling after game 2 gives game 1 to bob: the league is folded again from game 1.
    ruled = [RatedGame(G1, (F(-100, 3), F(200, 3), F(-100, 3))), played[1]]
    rated, standings = rate_games(ruled)
    assert [s.rating for s in rated[0].after] == [1492.0, 1516.0, 1492.0]
    assert [s.rating for s in rated[1].before] == [1516.0, 1492.0, 1500.0]
    # Game 2 again, from bob 1516, cid 1492, dan 1500:
    #   E(bob, cid) = 1/(1 + 10^(-24/400)) = 1/(1 + 0.870964) = 0.534484
    #   E(bob, dan) = 1/(1 + 10^(-16/400)) = 1/(1 + 0.912011) = 0.523010
    #   E(cid, dan) = 1/(1 + 10^(8/400))   = 1/(1 + 1.047129) = 0.488489
    #   bob: 16 × ((1 - 0.534484) + (1 - 0.523010))   = +15.08010
    #   cid: 16 × ((0 - 0.465516) + (1/2 - 0.488489)) = -7.26408
    #   dan: 16 × ((0 - 0.476990) + (1/2 - 0.511511)) = -7.81602
    after = [s.rating for s in rated[1].after]
    assert after == pytest.approx([1531.08010, 1484.73592, 1492.18398], abs=1e-5)
    assert sum(after) == pytest.approx(1516.0 + 1492.0 + 1500.0)
    # dan played no ruled game, yet his rating follows: it was earned against re-rated players.
    assert standings["dan"].rating == after[2] != 1491.6316514810308
    assert standings["ann"].rating == 1492.0


def test_rate_games_is_deterministic_and_the_same_as_game_by_game() -> None:
    games = [
        RatedGame(G1, (F(-275, 3), F(100, 3), F(175, 3))),
        RatedGame(G2, (F(5), F(5), F(-10))),
        RatedGame(("dan", "ann", "cid", "bob"), (F(1), F(2), F(-1), F(-2))),
    ]
    rated, standings = rate_games(games)
    again, standings_again = rate_games(games)
    assert again == rated and standings_again == standings  # bit for bit
    # Starting from the standings after the first game gives the same as folding all of them.
    first, start = rate_games(games[:1])
    rest, end = rate_games(games[1:], start)
    assert first + rest == rated and end == standings


# -- the skill rating with uncertainty (OpenSkill Plackett-Luce) -----------------------------


def test_settlement_ranks() -> None:
    assert settlement_ranks([F(200, 3), F(-140, 3), F(-20)]) == [0, 2, 1]
    assert settlement_ranks([F(200, 3), F(-100, 3), F(-100, 3)]) == [0, 1, 1]
    assert settlement_ranks([F(0)] * 3) == [0, 0, 0]


def test_first_game_of_three_new_players_by_hand() -> None:
    # docs/STATS.md "The skill rating". Everyone starts at mu = 25, sigma = 25/3.
    #   sigma² = (25/3)² + tau² = 69.444444 + (25/300)² = 69.451389, beta² = (25/6)² = 17.361111
    #   c² = 3 × (sigma² + beta²) = 260.4375, c = 16.138076
    # Equal mu: each p = e^(mu/c) / sum is 1/3 over the three, 1/2 over the last two.
    #   winner: omega = 1 - 1/3 = 2/3,                     delta = 1/3·2/3 = 2/9
    #   second: omega = -1/3 + (1 - 1/2) = 1/6,           delta = 2/9 + 1/4 = 17/36
    #   third:  omega = -1/3 - 1/2 + (1 - 1) = -5/6,      delta = 17/36
    #   mu' = mu + omega × sigma²/c = 25 + omega × 4.303566
    #   sigma' = sigma × sqrt(1 - delta × sigma²/c² × sigma/c)
    #          = 8.333750 × sqrt(1 - delta × 0.137712)
    after = rate_skill([Skill()] * 3, [F(200, 3), F(-20), F(-140, 3)])
    mus = [s.mu for s in after]
    assert mus == pytest.approx([27.869044, 25.717261, 21.413695], abs=1e-5)
    assert after[0].sigma == pytest.approx(8.205244, abs=1e-5)  # × sqrt(1 - 0.030603)
    assert after[1].sigma == after[2].sigma == pytest.approx(8.058223, abs=1e-5)  # 0.065029
    assert Skill().conservative == 0.0
    assert after[0].conservative == pytest.approx(27.869044 - 3 * 8.205244, abs=1e-4)


def test_equal_results_leave_mu_and_shrink_sigma() -> None:
    after = rate_skill([Skill()] * 3, [F(0)] * 3)
    assert [s.mu for s in after] == [25.0] * 3
    assert all(s.sigma < SKILL_SIGMA for s in after)


def test_uncertainty_shrinks_with_games() -> None:
    # A player who keeps playing becomes better known: sigma falls game after game, whatever
    # the results, towards the floor that tau (skill drift) keeps it above.
    skills = {p: Skill() for p in ("ann", "bob", "cid")}
    sigmas = []
    for game in range(30):
        order = [("ann", "bob", "cid"), ("bob", "cid", "ann"), ("cid", "ann", "bob")][game % 3]
        after = rate_skill([skills[p] for p in order], [F(10), F(0), F(-10)])
        skills.update(zip(order, after, strict=True))
        sigmas.append(skills["ann"].sigma)
    assert all(b < a for a, b in itertools.pairwise(sigmas))
    assert sigmas[0] < SKILL_SIGMA and sigmas[-1] < 0.6 * SKILL_SIGMA  # 4.45 after 30 games
    assert sigmas[-1] > SKILL_TAU


def test_a_steady_winner_rises_above_a_new_player() -> None:
    skills = [Skill(), Skill(), Skill()]
    for _ in range(10):
        skills = list(rate_skill(skills, [F(30), F(0), F(-30)]))
    assert skills[0].mu > skills[1].mu > skills[2].mu
    assert skills[0].conservative > Skill().conservative > skills[2].conservative


def test_skill_shapes() -> None:
    with pytest.raises(ValueError):
        rate_skill([Skill()], [F(0), F(1)])
    assert rate_skill([Skill(30.0, 2.0)], [F(0)]) == (Skill(30.0, 2.0),)
