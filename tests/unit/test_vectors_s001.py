"""The worked examples of the default profile, seed S001 (RULES.md §2.1, TV-01 … TV-12).

Play vectors are driven through ``new_deal``/``apply`` with hands chosen so that the stated
trick counts really happen when every hand plays its lowest legal card; their scores are then
checked through ``score_deal``/``score_result`` and the scoresheet through ``record``/``settle``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from domain.rules import (
    DEFAULT,
    Bid,
    Call,
    DealScore,
    Declare,
    Help,
    Here,
    Kind,
    Pass,
    Phase,
    RuleSet,
    ScoreSheet,
    early_stop,
    legal_actions,
    record,
    score_deal,
    score_result,
    seat_view,
    settle,
)
from tests.unit.rules_helpers import (
    A,
    B,
    C,
    act,
    assert_illegal,
    cards,
    deal,
    play_out,
    result,
    sample,
    whists,
)

ORDER = (A, B, C)
"""Seats from the first hand when C deals."""


def test_tv01_here_auction_a_wins_at_six_diamonds() -> None:
    """TV-01 (RULES.md §2.1, S001 §04): A 6♠, B 6♣, C pass, A "6♣ here", B 6♦, A "6♦ here",
    B pass → A wins the talon at 6♦; after A's "here" B may only raise one step or pass."""
    state = act(sample(), "6♠", "6♣", "pass", "here")
    assert state.to_act == B
    assert legal_actions(state) == (Pass(), Call(Bid.parse("6♦")))
    state = act(state, "6♦")
    assert legal_actions(state) == (Pass(), Here(), Call(Bid.parse("6♥")))
    state = act(state, "here", "pass")
    assert state.phase is Phase.TALON
    assert (state.declarer, str(state.bid), state.to_act) == (A, "6♦", A)


def test_tv02_contract_not_below_winning_bid_six_hearts() -> None:
    """TV-02 (RULES.md §2.1, S001 §05): won at 6♥ → 7♠ may be declared, 6♦ may not."""
    state = act(sample(), "6♠", "6♣", "6♦", "6♥", "pass", "pass", "take talon", "discard Qs Tc")
    assert state.phase is Phase.CONTRACT
    assert Declare(Bid.parse("7♠")) in legal_actions(state)
    assert_illegal(state, "declare 6♦", "below your winning bid 6♥", "declare 6♥ or higher")
    declared = act(state, "declare 7♠")
    assert declared.contract == Bid.parse("7♠")
    assert declared.phase is Phase.WHISTING


def _seven_hearts_two_whists(hands: tuple[str, str, str, str], discard: str) -> DealScore:
    state = act(
        deal(*hands), "6♠", "pass", "pass", "take talon", discard, "declare 7♥", "whist", "whist"
    )
    assert state.phase is Phase.PLAY and state.whist.whisters == (B, C)
    return score_deal(play_out(state))


def test_tv03_seven_hearts_made_two_whisters() -> None:
    """TV-03 (RULES.md §2.1, S001 §08): 7♥, both whist, tricks 7-2-1 → declarer +4 pool,
    defenders write 8 and 4; no penalties (defence 3 ≥ norm 2)."""
    hands = (
        "Ah Kh Qh 7h 7d Ac Kc Jc Tc Qs",
        "9h Ad Qd Qc 7c Ks Js 9s 8s 7s",
        "Jh Th Kd Td 9d 8d 9c 8c As Ts",
        "Jd 8h",
    )
    state = act(deal(*hands), "6♠", "pass", "pass", "take talon", "discard Qs Tc", "declare 7♥")
    state = play_out(act(state, "whist", "whist"))
    assert state.result is not None and state.result.tricks == (7, 2, 1)
    score = score_deal(state)
    assert score == DealScore((4, 0, 0), (0, 0, 0), whists({(B, A): 8, (C, A): 4}))
    sheet, _ = record(ScoreSheet.empty(), score, DEFAULT, ORDER)
    assert sheet == ScoreSheet((4, 0, 0), (0, 0, 0), whists({(B, A): 8, (C, A): 4}))


def test_tv04_seven_hearts_one_down_two_whisters() -> None:
    """TV-04 (RULES.md §2.1, S001 §08): 7♥, both whist, tricks 6-3-1 → declarer 4 gora,
    defenders (3+1)×4 = 16 and (1+1)×4 = 8 whists."""
    hands = (
        "Ah Qh Jh 9h 8h Jd Kc 7c Qs 7s",
        "Kh Ad 7d Qc Jc Tc 9c Ks 9s 8s",
        "Th 7h Kd Td 9d 8d Ac 8c As Js",
        "Qd Ts",
    )
    score = _seven_hearts_two_whists(hands, "discard 7s Ts")
    assert score == DealScore((0, 0, 0), (4, 0, 0), whists({(B, A): 16, (C, A): 8}))


def test_tv05_six_clubs_defence_short() -> None:
    """TV-05 (RULES.md §2.1, S001 §08): 6♣, both whist, tricks 8-2-0 → declarer 2 pool,
    first defender 4 whists, second defender 4 gora for the shortfall of two (norm 4 missed)."""
    hands = (
        "9h Kd 9d 7d Ac Qc Jc 7c Qs Js",
        "Ah Kh Qh 8h Ad Td 8d Tc As Ts",
        "Jh Th 7h Qd Kc 9c 8c Ks 9s 8s",
        "7s Jd",
    )
    state = act(deal(*hands), "6♠", "pass", "pass", "take talon", "discard 7s Js", "declare 6♣")
    state = play_out(act(state, "whist", "whist"))
    assert state.result is not None and state.result.tricks == (8, 2, 0)
    score = score_deal(state)
    assert score == DealScore((2, 0, 0), (0, 0, 4), whists({(B, A): 4}))


def test_tv06_misere_clean_ten_to_pool() -> None:
    """TV-06 (RULES.md §2.1, S001 §09): misère, declarer takes no trick → 10 to pool, no whists."""
    hands = (
        "Qh Jh Th 9h 8h 7d Kc Tc 8c As",
        "Ah Kh Kd Qd Td 9d 8d Qc 9c 8s",
        "7h Ad Jd Ac Jc Qs Js Ts 9s 7s",
        "Ks 7c",
    )
    state = act(deal(*hands), "misère", "pass", "pass", "take talon", "discard Ks As")
    state = play_out(act(state, "declare misère"))
    assert state.result is not None
    assert (state.result.kind, state.result.tricks) == (Kind.MISERE, (0, 4, 6))
    assert score_deal(state) == DealScore((10, 0, 0), (0, 0, 0), whists({}))


def test_tv06_misere_two_tricks_cost_twenty() -> None:
    """TV-06 (RULES.md §2.1, S001 §09): misère, declarer takes 2 → 20 to gora, nothing to pool."""
    hands = (
        "Th 9h Ad Qd 9d Tc 8c 7c Ks Js",
        "Kh 7h Jd Td 7d Ac Qs Ts 9s 7s",
        "Ah Qh Jh 8h Kd 8d Kc 9c As 8s",
        "Qc Jc",
    )
    state = act(deal(*hands), "pass", "misère", "pass", "take talon", "discard 7s 9s")
    state = play_out(act(state, "declare misère"))
    assert state.result is not None and state.result.tricks == (4, 2, 4)
    assert score_deal(state) == DealScore((0, 0, 0), (0, 20, 0), whists({}))


@pytest.mark.parametrize("taken", range(1, 11))
def test_tv06_misere_each_trick_ten_gora(taken: int) -> None:
    """TV-06 (RULES.md §2.1, S001 §09): k ≥ 1 tricks → 10·k gora; no whists, no consolation."""
    rest = 10 - taken
    score = score_result(DEFAULT, result(Kind.MISERE, A, "misère", (taken, rest, 0)))
    assert score == DealScore((0, 0, 0), (10 * taken, 0, 0), whists({}))


def test_tv07_raspasy_four_three_three_no_pool() -> None:
    """TV-07 (RULES.md §2.1, S001 §10): raspasy 4-3-3 → gora 4/3/3 recorded as taken (A-19
    default), nobody gets the pool bonus."""
    hands = (
        "Kh Th Ad Qd Jd 8d Ac 9c As Js",
        "Ah Qh 8h 7h Qc Jc Tc 7c 9s 8s",
        "Jh 9h Kd Td 9d Kc 8c Ks Ts 7s",
        "Qs 7d",
    )
    state = play_out(act(deal(*hands), "pass", "pass", "pass"))
    assert state.result is not None
    assert (state.result.kind, state.result.tricks) == (Kind.RASPASY, (4, 3, 3))
    score = score_deal(state)
    assert score == DealScore((0, 0, 0), (4, 3, 3), whists({}))
    sheet, _ = record(ScoreSheet.empty(), score, DEFAULT, ORDER)
    assert (sheet.pool, sheet.gora) == ((0, 0, 0), (4, 3, 3))


def test_tv08_raspasy_true_zero_one_to_pool() -> None:
    """TV-08 (RULES.md §2.1, S001 §10): raspasy 0-5-5 → 1 to pool for the first, 5 gora each
    for the others."""
    hands = (
        "Jh 8h Ad Kd Td 8d Tc 7c As Js",
        "Ah Qh Th 9h Jd 7d Kc Qc 8c Qs",
        "Kh 7h 9d Jc 9c Ks Ts 9s 8s 7s",
        "Qd Ac",
    )
    state = play_out(act(deal(*hands), "pass", "pass", "pass"))
    assert state.result is not None and state.result.tricks == (0, 5, 5)
    score = score_deal(state)
    assert score == DealScore((1, 0, 0), (0, 5, 5), whists({}))
    sheet, _ = record(ScoreSheet.empty(), score, DEFAULT, ORDER)
    assert (sheet.pool, sheet.gora) == ((1, 0, 0), (0, 5, 5))


def test_tv09_training_deal_seven_hearts_seven_three_zero() -> None:
    """TV-09 (RULES.md §2.1, S001 §11): A wins at 6♥, talon A♥ 9♣, discards 7♣ 8♦, declares 7♥,
    both whist, result 7-3-0 → A 4 to pool, B 12 whists, C nothing and no penalty (norm 2 met)."""
    hands = (
        "Kh Qh Jh Th 9d 8d 7d Ac 7c 9s",
        "9h 8h 7h Ad Kc Qc Tc Ks Ts 8s",
        "Kd Qd Jd Td Jc 8c As Qs Js 7s",
        "Ah 9c",
    )
    state = act(deal(*hands), "6♠", "6♣", "6♦", "6♥", "pass", "pass", "take talon")
    assert seat_view(state, C).talon == seat_view(state, B).talon
    assert [str(card) for card in seat_view(state, C).talon if card is not None] == ["A♥", "9♣"]
    state = act(state, "discard 7♣ 8♦", "declare 7♥", "whist", "whist")
    assert seat_view(state, A).discard == cards("7c 8d")
    assert seat_view(state, B).discard is None and seat_view(state, C).discard is None
    state = play_out(state)
    assert state.result is not None and state.result.tricks == (7, 3, 0)
    assert score_deal(state) == DealScore((4, 0, 0), (0, 0, 0), whists({(B, A): 12}))


def test_tv10_pool_closing_and_help() -> None:
    """TV-10 (RULES.md §2.1, S001 §12): pools 19/17/14, A makes an 8 (6 points): 1 closes A's
    pool, 3 go to B, 2 to C → pools 20/20/16; A writes 30 whists on B and 20 on C."""
    score = score_result(DEFAULT, result(Kind.PASSED_OUT, A, "8♠", (0, 0, 0), passers=(B, C)))
    assert score.pool == (6, 0, 0)
    sheet = ScoreSheet((19, 17, 14), (0, 0, 0), whists({}))
    new, entry = record(sheet, score, DEFAULT, ORDER)
    assert new.pool == (20, 20, 16)
    assert new.whists == whists({(A, B): 30, (A, C): 20})
    assert entry.helps == (Help(A, B, 3), Help(A, C, 2))
    assert entry.pool == (1, 3, 2)


@pytest.mark.parametrize(("contract", "value"), [("6♠", 2), ("7♠", 4)])
def test_tv11_half_whist_no_play(contract: str, value: int) -> None:
    """TV-11 (RULES.md §2.1, S001 §07): first defender passes, second says half-whist, first
    does not return → no play; declarer +2 (six) or +4 (seven) pool, half-whister 4 whists."""
    state = act(sample(), "6♠", "pass", "pass", "take talon", "discard Qs Tc")
    state = act(state, f"declare {contract}", "pass", "half-whist", "pass")
    assert state.phase is Phase.SCORED and state.result is not None
    assert (state.result.kind, state.result.half_whister) == (Kind.HALF_WHIST, C)
    assert state.play.history == ()
    assert score_deal(state) == DealScore((value, 0, 0), (0, 0, 0), whists({(C, A): 4}))


def test_tv12_early_stop_missing_pool_to_gora_then_settle() -> None:
    """TV-12 (RULES.md §2.1, S001 §12) with TV-27's numbers: a pool of 20 in a game to 25 →
    5 to gora; then settle by the average gora (fractions kept, sum zero)."""
    rules = RuleSet(pool_target=25)
    sheet = ScoreSheet((20, 25, 22), (4, 0, 10), whists({(A, C): 30, (C, B): 12}))
    stopped = early_stop(sheet, rules)
    assert stopped.gora == (9, 0, 13)
    assert stopped.pool == sheet.pool and stopped.whists == sheet.whists
    results = settle(stopped, rules)
    assert results == (Fraction(40, 3), Fraction(184, 3), Fraction(-224, 3))
    assert sum(results) == 0
