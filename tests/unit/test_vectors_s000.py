"""Worked examples of seeds S000, S003 and S004 that apply to the default 3-player profile
(RULES.md §2.2–§2.4): TV-13 … TV-17, TV-19, TV-22, TV-23, TV-33 … TV-35."""

from __future__ import annotations

from fractions import Fraction

import pytest

from domain.rules import (
    DEFAULT,
    MISERE,
    Bid,
    DealScore,
    Declare,
    Help,
    Kind,
    RuleSet,
    ScoreSheet,
    legal_actions,
    parse_action,
    record,
    score_result,
    settle,
)
from tests.unit.rules_helpers import A, B, C, act, assert_illegal, result, sample, whists

ORDER = (A, B, C)


def test_tv13_talon_on_seven_clubs_nine_or_seven_clubs_not_seven_spades() -> None:
    """TV-13 (RULES.md §2.2, S000 "Назначение игры"): talon taken on 7♣ → 9♠ or 7♣ may be
    played, not 7♠ or 6♣; misère may not be declared by a player who did not win on misère."""
    state = act(
        sample(),
        *("6♠", "6♣", "6♦", "6♥", "6NT", "7♠", "7♣", "pass", "pass"),
        "take talon",
        "discard Qs Tc",
    )
    assert (state.declarer, str(state.bid)) == (A, "7♣")
    legal = legal_actions(state)
    assert Declare(Bid.parse("9♠")) in legal and Declare(Bid.parse("7♣")) in legal
    assert legal[0] == Declare(Bid.parse("7♣")) and Declare(MISERE) not in legal
    assert_illegal(state, "declare 7♠", "below your winning bid 7♣", "declare 7♣ or higher")
    assert_illegal(state, "declare 6♣", "below your winning bid 7♣")
    assert_illegal(state, "declare misère", "only be played by the player who won", "on misère")
    assert act(state, "declare 9♠").contract == Bid.parse("9♠")


def test_tv13_talon_on_misere_must_play_misere() -> None:
    """TV-13 (RULES.md §2.2; §6 A-21): who took the talon on misère must play misère."""
    state = act(sample(), "misère", "pass", "pass", "take talon", "discard Qs Tc")
    assert legal_actions(state) == (Declare(MISERE),)
    assert_illegal(state, "declare 6♠", "you must play misère", "declare misère")
    assert_illegal(state, "declare 10NT", "you must play misère")
    assert act(state, "declare misère").contract == MISERE


def test_tv14_six_overmade_two_to_pool_no_overtrick_bonus() -> None:
    """TV-14 (RULES.md §2.2, S000 "Порядок записи"): declared 6, took 7 → 2 to pool, nothing
    for the overtrick (the defence's shortfall is the 1-trick whister's, §1.7)."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "6♦", (7, 2, 1), (B, C)))
    assert score == DealScore((2, 0, 0), (0, 0, 2), whists({(B, A): 4, (C, A): 2}))


def test_tv14_seven_two_down_eight_gora() -> None:
    """TV-14 (RULES.md §2.2): declared 7, took 5 → 2 × 4 = 8 to gora."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "7♦", (5, 3, 2), (B, C)))
    assert score.pool == (0, 0, 0) and score.gora == (8, 0, 0)


def test_tv14_misere_ten_gora_per_trick() -> None:
    """TV-14 (RULES.md §2.2): misère → 10 to gora per trick (3 tricks → 30)."""
    score = score_result(DEFAULT, result(Kind.MISERE, B, "misère", (4, 3, 3)))
    assert score == DealScore((0, 0, 0), (0, 30, 0), whists({}))


def test_tv15_helper_writes_ten_whists_per_point() -> None:
    """TV-15 (RULES.md §2.2, S000 "Порядок записи"): 4 points helped into a pool → 40 whists."""
    sheet = ScoreSheet((20, 16, 10), (0, 0, 0), whists({}))
    new, entry = record(sheet, DealScore((4, 0, 0), (0, 0, 0), whists({})), DEFAULT, ORDER)
    assert entry.helps == (Help(A, B, 4),)
    assert new.pool == (20, 20, 10) and new.whists == whists({(A, B): 40})


def test_tv15_closer_plays_a_six_two_points_twenty_whists() -> None:
    """TV-15 (RULES.md §2.2, S000 "СОЧИНКА"): a closer's six → 2 points, 20 whists."""
    score = score_result(DEFAULT, result(Kind.PASSED_OUT, A, "6♠", (0, 0, 0), passers=(B, C)))
    sheet = ScoreSheet((20, 15, 10), (0, 0, 0), whists({}))
    new, entry = record(sheet, score, DEFAULT, ORDER)
    assert entry.helps == (Help(A, B, 2),)
    assert new.pool == (20, 17, 10) and new.whists == whists({(A, B): 20})


def test_tv16_whists_for_tricks_on_a_seven() -> None:
    """TV-16 (RULES.md §2.2): whister took 3 on a seven → 12 whists; took none → nothing."""
    score = score_result(DEFAULT, result(Kind.GAME, B, "7♠", (0, 7, 3), (C, A)))
    assert score.whists == whists({(C, B): 12})
    assert score.gora == (0, 0, 0)


def test_tv17_consolation_two_whisters_three_player_ten_and_four() -> None:
    """TV-17 (RULES.md §2.2) in 3-player: six, whisters 4 and 1, declarer 5 → 10 and 4 whists,
    declarer 2 gora, no dealer entry."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "6♣", (5, 4, 1), (B, C)))
    assert score == DealScore((0, 0, 0), (2, 0, 0), whists({(B, A): 10, (C, A): 4}))


def test_tv19_one_whister_on_nine_took_nothing_eight_gora() -> None:
    """TV-19 (RULES.md §2.2): the whister on a nine took no trick → 8 gora; no whists are
    written on a whister (nor by him)."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "9♥", (10, 0, 0), (B,), (C,)))
    assert score == DealScore((8, 0, 0), (0, 8, 0), whists({}))


def test_tv19_two_whisters_on_nine_second_whister_pays() -> None:
    """TV-19 with two whisters (RULES.md §1.6): on 8–10 the second whister answers."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "9♥", (10, 0, 0), (C, B)))
    assert score == DealScore((8, 0, 0), (0, 8, 0), whists({}))


def test_tv22_average_gora_settlement_four_seats() -> None:
    """TV-22 (RULES.md §2.2, S000 "Второй способ расчета"), without the integer adjustment:
    goras С 0, З 5, В 15, Ю 11 and the net whists N(X,Y) → +27.5 / −102.5 / −12.5 / +87.5."""
    s, z, v, yu = 0, 1, 2, 3
    nets = {(s, z): 2, (s, v): -10, (s, yu): -42, (z, v): -50, (z, yu): -78, (v, yu): 0}
    entries: dict[tuple[int, int], int] = {}
    for (x, y), net in nets.items():
        if net > 0:
            entries[x, y] = net
        elif net < 0:
            entries[y, x] = -net
    sheet = ScoreSheet((20, 20, 20, 20), (0, 5, 15, 11), whists(entries, players=4))
    totals = settle(sheet, DEFAULT)
    assert totals == (Fraction(55, 2), Fraction(-205, 2), Fraction(-25, 2), Fraction(175, 2))
    assert sum(totals) == 0


def test_tv23_default_contrast_no_penalty_when_joint_norm_met() -> None:
    """TV-23 default contrast (RULES.md §2.2): 6♣ taken 5; whisters 0 and 5 → no penalty
    (defence 5 ≥ 4); the 0-trick whister writes 2 (consolation), the other 12; declarer 2 gora."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "6♣", (5, 0, 5), (B, C)))
    assert score == DealScore((0, 0, 0), (2, 0, 0), whists({(B, A): 2, (C, A): 12}))


def test_tv33_norms_table() -> None:
    """TV-33 (RULES.md §2.4, S004 "Торговля"): norms 4/2/1/1/1 for 6/7/8/9/10."""
    assert [DEFAULT.norm(level) for level in range(6, 11)] == [4, 2, 1, 1, 1]
    assert [DEFAULT.value(level) for level in range(6, 11)] == [2, 4, 6, 8, 10]


@pytest.mark.parametrize(("level", "norm", "value"), [(6, 4, 2), (7, 2, 4), (8, 1, 6), (9, 1, 8)])
def test_tv33_norm_met_no_penalty_one_short_penalty(level: int, norm: int, value: int) -> None:
    """TV-33: a lone whister whose side takes the norm pays nothing; one trick short pays V."""
    met = result(Kind.GAME, A, f"{level}♠", (10 - norm, norm, 0), (B,), (C,))
    short = result(Kind.GAME, A, f"{level}♠", (11 - norm, norm - 1, 0), (B,), (C,))
    assert score_result(DEFAULT, met).gora == (0, 0, 0)
    assert score_result(DEFAULT, short).gora == (0, value, 0)


def test_tv33_misere_defence_has_no_obligation() -> None:
    """TV-33: misère → "no obligations": a made misère costs the defenders nothing."""
    score = score_result(DEFAULT, result(Kind.MISERE, A, "misère", (0, 10, 0)))
    assert score == DealScore((10, 0, 0), (0, 0, 0), whists({}))


def test_tv34_minimum_bid_and_one_step_at_a_time() -> None:
    """TV-34 (RULES.md §2.4): the first bid is 6♠; then 6♠ → 6♣ → 6♦, one step per turn."""
    state = sample()
    assert legal_actions(state) == tuple(map(parse_action, ("pass", "misère", "6♠")))
    assert_illegal(state, "6♣", "you cannot bid 6♣", "the next bid is 6♠")
    state = act(state, "6♠")
    assert_illegal(state, "6♦", "the next bid is 6♣")
    assert act(state, "6♣", "6♦").auction.high == Bid.parse("6♦").index


def test_tv34_bid_to_seven_diamonds_contract_floor() -> None:
    """TV-34: bid to 7♦ → 7♦, 7♥, 7NT, 8♠ may be declared, not 7♠ or 6♥ (and no sixes)."""
    calls = ("6♠", "6♣", "6♦", "6♥", "6NT", "7♠", "7♣", "7♦", "pass", "pass")
    state = act(sample(), *calls, "take talon", "discard 7s 8s")
    assert (state.declarer, str(state.bid)) == (B, "7♦")
    legal = legal_actions(state)
    assert [str(d) for d in legal[:4]] == ["declare 7♦", "declare 7♥", "declare 7NT", "declare 8♠"]
    assert_illegal(state, "declare 7♠", "below your winning bid 7♦")
    assert_illegal(state, "declare 6♥", "below your winning bid 7♦")
    assert_illegal(state, "declare 6NT", "declare 7♦ or higher")


def test_tv34_misere_only_as_first_call() -> None:
    """TV-34: "cannot say 6♠ and then misère on the next round"."""
    state = act(sample(), "6♠", "6♣", "pass")
    assert_illegal(state, "misère", "misère must be your first call")


def test_tv35_one_whister_defence_three_tricks() -> None:
    """TV-35 default (RULES.md §2.4): 6♠, declarer 7, one whister with 3 → declarer 2 pool,
    whister 2 gora (one short of 4) and 3 × 2 = 6 whists."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "6♠", (7, 3, 0), (B,), (C,)))
    assert score == DealScore((2, 0, 0), (0, 2, 0), whists({(B, A): 6}))


def test_tv35_two_whisters_two_one() -> None:
    """TV-35 default: two whisters 2-1 → the 1-trick whister 2 gora."""
    score = score_result(DEFAULT, result(Kind.GAME, A, "6♠", (7, 2, 1), (B, C)))
    assert score == DealScore((2, 0, 0), (0, 0, 2), whists({(B, A): 4, (C, A): 2}))


@pytest.mark.parametrize(("rules", "penalty"), [(DEFAULT, 4), (RuleSet(penalty_capped=True), 2)])
def test_tv35_two_whisters_three_zero_literal_or_capped(rules: RuleSet, penalty: int) -> None:
    """TV-35 / A-01: two whisters 3-0 → 4 gora (literal S001, default) or 2 (capped option)."""
    score = score_result(rules, result(Kind.GAME, A, "6♠", (7, 3, 0), (B, C)))
    assert score == DealScore((2, 0, 0), (0, 0, penalty), whists({(B, A): 6}))


def test_tv15_no_help_while_own_pool_open() -> None:
    """TV-15 guard: points that fit into one's own pool write no help whists."""
    new, entry = record(
        ScoreSheet.empty(), DealScore((4, 0, 0), (0, 0, 0), whists({})), DEFAULT, ORDER
    )
    assert entry.helps == () and new.whists == whists({}) and new.pool == (4, 0, 0)
