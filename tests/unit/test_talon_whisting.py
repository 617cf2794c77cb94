"""Talon, discard, contract and whisting (RULES.md §1.4, §1.6; decisions A-02, A-03, A-17)."""

from __future__ import annotations

import pytest

from domain.rules import (
    CLOSED,
    DEFAULT,
    HALF_WHIST,
    OPEN,
    PASS,
    TAKE_TALON,
    WHIST,
    Bid,
    DealScore,
    Declare,
    Kind,
    NotYourTurn,
    Phase,
    actor,
    legal_actions,
    score_deal,
    seat_view,
)
from tests.unit.rules_helpers import (
    A,
    B,
    C,
    act,
    assert_illegal,
    cards,
    claim_rest,
    sample,
    whists,
    won_by_a,
)

# --- talon and discard (§1.4) -------------------------------------------------------------


def test_talon_is_hidden_until_the_declarer_takes_it() -> None:
    state = act(sample(), "6♠", "pass", "pass")
    assert (state.phase, legal_actions(state)) == (Phase.TALON, (TAKE_TALON,))
    assert [seat_view(state, s).talon for s in (A, B, C)] == [(None, None)] * 3
    assert_illegal(state, "discard Qs Tc", "the declarer must first take the talon")


def test_taken_talon_is_shown_to_everyone_and_joins_the_hand() -> None:
    state = act(sample(), "6♠", "pass", "pass", "take talon")
    talon = (cards("Jd"), cards("8h"))
    for seat in (A, B, C):
        shown = seat_view(state, seat).talon
        assert shown[0] is not None and shown[1] is not None
        assert (1 << shown[0], 1 << shown[1]) == talon
    assert state.phase is Phase.DISCARD
    assert state.play.hands[A] == cards("Ah Kh Qh 7h 7d Ac Kc Jc Tc Qs Jd 8h")


def test_discard_two_cards_secretly() -> None:
    state = act(sample(), "6♠", "pass", "pass", "take talon", "discard Qs Tc")
    assert state.phase is Phase.CONTRACT
    assert state.play.hands[A] == cards("Ah Kh Qh 7h 7d Ac Kc Jc Jd 8h")
    assert seat_view(state, A).discard == cards("Qs Tc")
    assert seat_view(state, B).discard is None and seat_view(state, C).discard is None
    assert seat_view(state, B).hands[A] is None


def test_discard_may_be_the_talon_cards() -> None:
    state = act(sample(), "6♠", "pass", "pass", "take talon", "discard Jd 8h")
    assert state.play.hands[A] == cards("Ah Kh Qh 7h 7d Ac Kc Jc Tc Qs")


def test_discard_of_a_card_not_held_is_illegal() -> None:
    state = act(sample(), "6♠", "pass", "pass", "take talon")
    assert_illegal(state, "discard As Tc", "you do not hold A♠", "you hold ♠ Q  ♣ A K J 10")
    assert_illegal(state, "declare 6♠", "discard two cards, like 'discard 7♣ 8♦'")


def test_contract_may_equal_the_winning_bid() -> None:
    state = act(sample(), "6♠", "pass", "pass", "take talon", "discard Qs Tc")
    assert legal_actions(state)[0] == Declare(Bid.parse("6♠"))
    assert act(state, "declare 6♠").phase is Phase.WHISTING


def test_contract_phase_rejects_other_actions_with_the_floor() -> None:
    state = act(sample(), "6♠", "6♣", "pass", "pass", "take talon", "discard 7s 8s")
    assert state.declarer == B
    assert_illegal(state, "whist", "declare 6♣ or higher")


# --- whisting (§1.6) ----------------------------------------------------------------------


def test_first_defender_is_next_clockwise_after_the_declarer() -> None:
    state = won_by_a("declare 6♠")
    assert (state.phase, state.to_act, legal_actions(state)) == (Phase.WHISTING, B, (WHIST, PASS))
    other = act(sample(), "pass", "6♠", "pass", "take talon", "discard 7s 8s", "declare 6♠")
    assert (other.declarer, other.to_act) == (B, C)
    assert act(other, "pass").to_act == A


def test_both_whist_closed_play_from_first_hand() -> None:
    state = act(won_by_a("declare 6♠"), "whist", "whist")
    assert (state.phase, state.to_act, state.whist.whisters) == (Phase.PLAY, A, (B, C))
    assert state.whist.open is False and state.open_hands == 0
    assert seat_view(state, B).hands == (None, state.play.hands[B], None)


def test_one_whister_chooses_open_and_plays_both_hands() -> None:
    state = act(won_by_a("declare 6♠"), "whist", "pass")
    assert (state.phase, state.to_act, legal_actions(state)) == (Phase.DEFENCE, B, (OPEN, CLOSED))
    assert_illegal(state, "whist", "choose 'open' or 'closed' defence")
    state = act(state, "open")
    assert state.open_hands == (1 << B) | (1 << C)
    assert seat_view(state, A).hands == (
        state.play.hands[A],
        state.play.hands[B],
        state.play.hands[C],
    )
    state = act(state, "play Ah", "play 9h")
    assert (state.to_act, actor(state)) == (C, B)
    assert seat_view(state, B).legal == legal_actions(state) and seat_view(state, C).legal == ()
    assert_illegal(state, "play Jh", "it is B's turn, not C's", error=NotYourTurn, seat=C)
    assert act(state, "play Jh").trick_number == 1


def test_one_whister_closed_each_plays_his_own_hand() -> None:
    state = act(won_by_a("declare 6♠"), "pass", "whist", "closed")
    assert (state.whist.whisters, state.whist.open, state.open_hands) == ((C,), False, 0)
    state = act(state, "play Ah", "play 9h")
    assert (state.to_act, actor(state)) == (C, C)


def test_both_pass_contract_given_without_play() -> None:
    state = act(won_by_a("declare 7♥"), "pass", "pass")
    assert state.phase is Phase.SCORED and state.result is not None
    assert (state.result.kind, state.play.history) == (Kind.PASSED_OUT, ())
    assert score_deal(state) == DealScore((4, 0, 0), (0, 0, 0), whists({}))


@pytest.mark.parametrize("contract", ["declare 6♠", "declare 7NT"])
def test_half_whist_offered_on_six_and_seven_after_first_passes(contract: str) -> None:
    state = act(won_by_a(contract), "pass")
    assert legal_actions(state) == (WHIST, PASS, HALF_WHIST)
    state = act(state, "half-whist")
    assert (state.to_act, legal_actions(state)) == (B, (WHIST, PASS))


@pytest.mark.parametrize("contract", ["declare 8♠", "declare 9NT", "declare 10♥"])
def test_no_half_whist_on_eight_and_above(contract: str) -> None:
    state = act(won_by_a(contract), "pass")
    assert legal_actions(state) == (WHIST, PASS)
    assert_illegal(state, "half-whist", "only offered against a 6 or 7", "you may say whist, pass")


def test_half_whist_not_for_the_first_defender_nor_after_a_whist() -> None:
    state = won_by_a("declare 6♠")
    assert_illegal(state, "half-whist", "after the first defender passes", "whist, pass")
    assert_illegal(act(state, "whist"), "half-whist", "you may say whist, pass")


def test_whist_pass_on_six_goes_to_defence_choice_by_default() -> None:
    """A-03 default: no whist–pass–half-whist; the whister defends alone."""
    state = act(won_by_a("declare 6♠"), "whist", "pass")
    assert (state.phase, state.to_act, state.whist.whisters) == (Phase.DEFENCE, B, (B,))


def test_first_whister_cannot_withdraw_on_eight() -> None:
    state = act(won_by_a("declare 8♦"), "whist", "pass")
    assert (state.phase, legal_actions(state)) == (Phase.DEFENCE, (OPEN, CLOSED))
    assert_illegal(state, "pass", "choose 'open' or 'closed' defence")


def test_return_whist_first_defender_takes_the_whole_defence() -> None:
    """§1.6 item 4 and A-02 default: the returner defends alone, the half-whister now passes
    and writes nothing; the returner writes all defence whists and the consolation."""
    state = act(won_by_a("declare 6♠"), "pass", "half-whist", "whist")
    assert (state.phase, state.to_act) == (Phase.DEFENCE, B)
    assert (state.whist.whisters, state.whist.returned, state.whist.half_whister) == ((B,), True, C)
    state = claim_rest(act(state, "closed"), (5, 4, 1))
    assert state.result is not None
    assert (state.result.passers, state.result.tricks) == ((C,), (5, 4, 1))
    assert score_deal(state) == DealScore((0, 0, 0), (2, 0, 0), whists({(B, A): 14}))


def test_ten_is_whisted_by_default() -> None:
    """A-17 default: a ten is whisted with norm 1."""
    state = won_by_a("declare 10♥")
    assert (state.phase, state.to_act) == (Phase.WHISTING, B)
    assert DEFAULT.norm(10) == 1


def test_misere_skips_whisting_and_opens_the_defence() -> None:
    state = act(sample(), "pass", "misère", "pass", "take talon", "discard 7s 8s", "declare misère")
    assert (state.phase, state.to_act, state.whist.calls) == (Phase.PLAY, A, ())
    assert state.open_hands == (1 << A) | (1 << C)
