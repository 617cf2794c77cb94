"""Trick play, misère play, raspasy play and claims (RULES.md §1.5, §1.8, §1.9, §6 claims)."""

from __future__ import annotations

from domain.rules import (
    ACCEPT,
    REJECT,
    Claim,
    DealState,
    Kind,
    Phase,
    PlayCard,
    legal_actions,
    parse_cards,
    seat_view,
)
from tests.unit.rules_helpers import (
    SAMPLE,
    A,
    B,
    C,
    act,
    assert_illegal,
    cards,
    deal,
    play_out,
    sample,
    won_by_a,
)


def plays(state: DealState) -> list[str]:
    """The cards the actor may play, in notation."""
    return [str(a) for a in legal_actions(state) if isinstance(a, PlayCard)]


# --- ordinary trick play (§1.5) -----------------------------------------------------------


def test_first_hand_leads_trick_one_even_when_not_declarer() -> None:
    state = act(sample(), "pass", "6♠", "pass", "take talon", "discard 7s 8s", "declare 6♠")
    state = act(state, "whist", "whist")
    assert (state.declarer, state.to_act, state.play.leader) == (B, A, A)


def test_must_follow_suit() -> None:
    state = act(won_by_a("declare 6♠"), "whist", "whist", "play Ah", "play 9h")
    assert plays(state) == ["10♥", "J♥"]
    assert_illegal(state, "play As", "you must follow ♥: you hold 10♥ J♥")


def test_overtaking_not_compulsory() -> None:
    state = act(won_by_a("declare 6♠"), "whist", "whist", "play 7h", "play 9h")
    assert plays(state) == ["10♥", "J♥"]
    assert act(state, "play Th").play.history[0].winner == C


def test_void_must_trump_then_highest_trump_wins_and_leads() -> None:
    state = act(won_by_a("declare 6♠"), "whist", "whist", "play Ah", "play 9h", "play Th")
    assert (state.play.history[0].winner, state.to_act) == (A, A)
    state = act(state, "play Kh")
    assert plays(state) == ["7♠", "8♠", "9♠", "J♠", "K♠"]
    assert_illegal(state, "play Ad", "you must trump with ♠: you hold 7♠ 8♠ 9♠ J♠ K♠")
    state = act(state, "play 7s", "play Jh")
    assert (state.play.history[1].winner, state.to_act, state.play.tricks) == (B, B, (1, 1, 0))


def test_void_in_suit_and_trumps_may_play_any_card() -> None:
    state = act(won_by_a("declare 6♥"), "whist", "whist", "play Ah", "play 9h", "play Th")
    state = act(state, "play Kh")
    assert len(plays(state)) == 9  # B has no ♥, which is also trump: any of his 9 cards
    assert act(state, "play Ad", "play Jh").play.history[1].winner == A


def test_no_trumps_in_no_trump_contract() -> None:
    state = act(won_by_a("declare 6NT"), "whist", "whist", "play Ah", "play 9h", "play Th")
    state = act(state, "play Kh")
    assert len(plays(state)) == 9  # void in ♥, no trump: any card
    state = act(state, "play Ks", "play Jh")
    assert state.play.history[1].winner == A


def test_card_not_held_is_illegal() -> None:
    state = act(won_by_a("declare 6♠"), "whist", "whist")
    err = assert_illegal(state, "play Ks", "you do not hold K♠")
    assert err.allowed == legal_actions(state)  # the playable cards and claims
    assert_illegal(state, "pass", "play a card or make a claim")


def test_ten_tricks_are_played() -> None:
    state = play_out(act(won_by_a("declare 7♥"), "whist", "whist"))
    assert state.phase is Phase.SCORED and len(state.play.history) == 10
    assert sum(state.play.tricks) == 10 and state.play.hands == (0, 0, 0)
    assert all(len(t.cards) == 3 for t in state.play.history)


# --- misère (§1.8) ------------------------------------------------------------------------


def test_misere_defence_opens_immediately_when_declarer_is_not_first_hand() -> None:
    state = act(sample(), "pass", "misère", "pass", "take talon", "discard 7s 8s", "declare misère")
    assert state.open_hands == (1 << A) | (1 << C)
    view = seat_view(state, B)
    assert view.hands == (state.play.hands[A], state.play.hands[B], state.play.hands[C])
    assert seat_view(state, A).hands[B] is None


def test_misere_declarer_first_hand_defence_opens_after_his_lead() -> None:
    state = act(sample(), "misère", "pass", "pass", "take talon", "discard Qs Tc", "declare misère")
    assert (state.to_act, state.open_hands) == (A, 0)
    assert seat_view(state, B).hands[C] is None
    state = act(state, "play 7d")
    assert state.open_hands == (1 << B) | (1 << C)
    assert seat_view(state, B).hands[C] == state.play.hands[C]
    assert seat_view(state, B).hands[A] is None


def test_misere_has_no_trumps() -> None:
    state = act(sample(), "misère", "pass", "pass", "take talon", "discard Qs Tc", "declare misère")
    state = act(state, "play Ah", "play 9h", "play Th", "play Kh")
    assert len(plays(state)) == 9  # B is void in ♥: any card, nothing is trump
    state = act(state, "play Ks", "play Jh")
    assert state.play.history[1].winner == A


# --- raspasy (§1.9) -----------------------------------------------------------------------

# SAMPLE with B's A♦ and the talon's J♦ swapped: the talon A♦ sets trick 1 to ♦.
RASPASY = (SAMPLE[0], "9h Jd Qd Qc 7c Ks Js 9s 8s 7s", SAMPLE[2], "Ad 8h")


def test_raspasy_first_talon_card_sets_suit_of_trick_one_and_is_shown() -> None:
    state = act(deal(*RASPASY), "pass", "pass", "pass")
    assert seat_view(state, C).talon == (parse_cards("Ad")[0], None)
    assert (state.to_act, plays(state)) == (A, ["7♦"])
    assert_illegal(state, "play Ah", "you must follow ♦: you hold 7♦")


def test_raspasy_talon_card_never_wins() -> None:
    state = act(deal(*RASPASY), "pass", "pass", "pass", "play 7d", "play Jd", "play 8d")
    trick = state.play.history[0]
    assert (trick.winner, len(trick.cards), state.play.tricks) == (B, 3, (0, 1, 0))


def test_raspasy_second_talon_card_sets_trick_two_first_hand_leads_one_to_three() -> None:
    state = act(deal(*RASPASY), "pass", "pass", "pass", "play 7d", "play Jd", "play 8d")
    assert seat_view(state, A).talon == tuple(parse_cards("Ad 8h"))
    assert (state.to_act, plays(state)) == (A, ["7♥", "Q♥", "K♥", "A♥"])
    state = act(state, "play Ah", "play 9h", "play Th")
    assert (state.play.history[1].winner, state.to_act) == (A, A)
    state = act(state, "play 7h", "play Ks", "play Jh")
    assert (state.play.history[2].winner, state.to_act) == (C, C)
    assert len(plays(state)) == 7  # trick 4 is led by the winner of trick 3, any card


def test_raspasy_first_hand_void_in_set_suit_may_play_any_card() -> None:
    hands = ("Ah Kh Qh 7h 7c Ac Kc Jc Tc Qs", "9h Ad Qd Qc 7d Ks Js 9s 8s 7s", *SAMPLE[2:])
    state = act(deal(*hands), "pass", "pass", "pass")
    assert len(plays(state)) == 10
    state = act(state, "play Qs")
    assert plays(state) == ["7♦", "Q♦", "A♦"]  # the others follow the talon's ♦, not A's ♠
    assert_illegal(state, "play Ks", "you must follow ♦: you hold 7♦ Q♦ A♦")
    state = act(state, "play 7d", "play 8d")
    assert state.play.history[0].winner == C  # the highest ♦ among the hands: 8♦


def test_raspasy_led_by_the_first_hand_of_any_dealer() -> None:
    state = act(deal(*RASPASY, dealer=A), "pass", "pass", "pass")
    assert (state.to_act, state.raspasy) == (B, True)


# --- claims (§6) --------------------------------------------------------------------------


def test_claim_accepted_by_all_ends_the_deal() -> None:
    state = act(won_by_a("declare 6♠"), "whist", "whist", "play Ah", "play 9h", "play Th")
    state = act(state, "claim 6-2-1")
    assert (state.phase, state.to_act, legal_actions(state)) == (Phase.CLAIM, B, (ACCEPT, REJECT))
    state = act(state, "accept")
    assert (state.phase, state.to_act) == (Phase.CLAIM, C)
    state = act(state, "accept")
    assert state.phase is Phase.SCORED and state.result is not None
    assert (state.result.tricks, state.result.claimed) == ((7, 2, 1), True)
    assert state.result.kind is Kind.GAME


def test_claim_must_share_out_exactly_the_remaining_tricks() -> None:
    state = act(won_by_a("declare 6♠"), "whist", "whist", "play Ah", "play 9h", "play Th")
    assert_illegal(state, Claim((6, 2, 2)), "share of the 9 remaining tricks")
    assert_illegal(act(state, "claim 9-0-0"), "play Kh", "accept or reject the claim first")


def test_rejected_claim_resumes_play_and_no_second_claim_in_that_trick() -> None:
    start = act(won_by_a("declare 6♠"), "whist", "whist", "play Ah")
    state = act(start, "claim 0-6-4")
    assert state.to_act == C
    state = act(state, "reject")
    assert (state.phase, state.to_act, state.claim, state.play) == (
        Phase.PLAY,
        B,
        None,
        start.play,
    )
    assert not any(isinstance(a, Claim) for a in legal_actions(state))
    assert_illegal(state, "claim 0-6-4", "your claim was rejected in this trick; play a card")
    state = act(state, "play 9h")
    assert state.to_act == C and Claim((0, 6, 4)) in legal_actions(state)
    state = act(state, "play Th", "play Kh")
    assert state.to_act == B
    assert Claim((0, 9, 0)) in legal_actions(state)  # a new trick: B may claim again


def test_rejection_by_the_second_responder_also_resumes() -> None:
    state = act(won_by_a("declare 6♠"), "whist", "whist", "claim 10-0-0", "accept", "reject")
    assert (state.phase, state.to_act, state.claim_tries) == (Phase.PLAY, A, 1 << A)
    assert state.play.tricks == (0, 0, 0)


def test_raspasy_claim_counts_as_raspasy() -> None:
    state = act(deal(*RASPASY), "pass", "pass", "pass", "claim 0-5-5", "accept", "accept")
    assert state.result is not None
    assert (state.result.kind, state.result.tricks) == (Kind.RASPASY, (0, 5, 5))
    assert cards("Ad") & state.play.hands[A] == 0
