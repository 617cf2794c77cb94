"""Dealing, seats and the auction (RULES.md §1.2, §1.3; decisions A-04, A-05, A-06, A-18)."""

from __future__ import annotations

import pytest

from domain.rules import (
    DEFAULT,
    MISERE,
    PASS,
    Bid,
    Call,
    DealtCards,
    GameOver,
    InvalidAction,
    Kind,
    NotYourTurn,
    Phase,
    Shuffle,
    deal_cards,
    finish_deal,
    first_hand,
    hand_number,
    legal_actions,
    mask_of,
    new_deal,
    new_game,
    next_dealer,
    parse_action,
    seat_of_hand,
    start_deal,
)
from tests.unit.rules_helpers import A, B, C, act, assert_illegal, play_out, sample


def calls(*texts: str) -> tuple[object, ...]:
    return tuple(parse_action(t) for t in texts)


# --- dealing and seats (§1.2) ------------------------------------------------------------


def test_deal_in_pairs_clockwise_from_first_hand_talon_skipped() -> None:
    dealt = deal_cards(list(range(32)), dealer=C, talon_pair=5)
    assert dealt.talon == (10, 11)
    assert dealt.hands[A] == mask_of([0, 1, 6, 7, 14, 15, 20, 21, 26, 27])
    assert dealt.hands[B] == mask_of([2, 3, 8, 9, 16, 17, 22, 23, 28, 29])
    assert dealt.hands[C] == mask_of([4, 5, 12, 13, 18, 19, 24, 25, 30, 31])


def test_deal_starts_left_of_the_dealer() -> None:
    dealt = deal_cards(list(range(32)), dealer=A, talon_pair=1)
    assert dealt.hands[B] & 0b11 == 0b11  # the first pair goes to B, left of dealer A
    assert dealt.talon == (2, 3)
    assert [h.bit_count() for h in dealt.hands] == [10, 10, 10]


@pytest.mark.parametrize("pair", [1, 14])
def test_talon_pair_second_to_second_last_allowed(pair: int) -> None:
    dealt = deal_cards(list(range(32)), dealer=C, talon_pair=pair)
    assert dealt.talon == (2 * pair, 2 * pair + 1)


@pytest.mark.parametrize("pair", [0, 15, -1, 16])
def test_talon_pair_first_or_last_is_invalid(pair: int) -> None:
    with pytest.raises(InvalidAction, match="neither the first nor the last"):
        deal_cards(list(range(32)), dealer=C, talon_pair=pair)


def test_deck_order_must_hold_every_card_once() -> None:
    with pytest.raises(InvalidAction, match="each of the 32 cards exactly once"):
        deal_cards([0, *range(31)], dealer=C, talon_pair=3)
    with pytest.raises(InvalidAction, match="no seat 3"):
        deal_cards(list(range(32)), dealer=3, talon_pair=3)


def test_misdeal_is_rejected_by_new_deal() -> None:
    good = deal_cards(list(range(32)), dealer=C, talon_pair=3)
    short = DealtCards((good.hands[0] & ~1, good.hands[1], good.hands[2]), good.talon)
    with pytest.raises(InvalidAction, match="misdeal"):
        new_deal(short, C)
    clash = DealtCards(good.hands, (good.talon[0], good.talon[0]))
    with pytest.raises(InvalidAction, match="misdeal"):
        new_deal(clash, C)


def test_seats_relative_to_dealer() -> None:
    assert [first_hand(d) for d in (A, B, C)] == [B, C, A]
    assert [hand_number(C, s) for s in (A, B, C)] == [1, 2, 3]
    assert [hand_number(A, s) for s in (A, B, C)] == [3, 1, 2]
    assert [seat_of_hand(B, h) for h in (1, 2, 3)] == [C, A, B]
    assert [next_dealer(d) for d in (A, B, C)] == [B, C, A]


@pytest.mark.parametrize(("dealer", "h1"), [(A, B), (B, C), (C, A)])
def test_first_hand_calls_first(dealer: int, h1: int) -> None:
    state = sample(dealer=dealer)
    assert (state.phase, state.to_act) == (Phase.BIDDING, h1)


def test_dealer_rotates_after_every_deal_raspasy_included() -> None:
    game = new_game(DEFAULT, first_dealer=A)
    game = start_deal(game, Shuffle(tuple(range(32)), 4))
    assert game.deal is not None and game.deal.to_act == B
    game = game._replace(deal=play_out(act(game.deal, "pass", "pass", "pass")))
    game, _, _ = finish_deal(game)
    assert (game.dealer, game.raspasy_streak, game.deal_number) == (B, 1, 1)
    game = start_deal(game, Shuffle(tuple(range(32)), 4))
    assert game.deal is not None and game.deal.to_act == C
    deal = act(game.deal, "6♠", "pass", "pass", "take talon")
    discard = legal_actions(deal)[0]
    deal = act(deal, discard, "declare 6♠", "pass", "pass")
    assert deal.result is not None and deal.result.kind is Kind.PASSED_OUT
    game, _, _ = finish_deal(game._replace(deal=deal))
    assert (game.dealer, game.raspasy_streak, game.sheet.pool) == (C, 0, (0, 0, 2))


# --- the auction (§1.3) ------------------------------------------------------------------


def test_first_calls_are_pass_misere_or_six_spades() -> None:
    assert legal_actions(sample()) == calls("pass", "misère", "6♠")


def test_sequential_steps_no_nt_skip_by_default() -> None:
    """A-04 default: 6♥ → 6NT → 7♠; 6♥ → 7♠ is a skip."""
    state = act(sample(), "6♠", "6♣", "6♦", "6♥")
    assert (state.to_act, legal_actions(state)) == (B, calls("pass", "6NT"))
    assert_illegal(state, "7♠", "you cannot bid 7♠ now", "the next bid is 6NT")
    assert act(state, "6NT", "7♠").auction.high == Bid.parse("7♠").index


def test_no_jump_bids_by_default() -> None:
    state = act(sample(), "6♠")
    assert_illegal(state, "7♠", "you cannot bid 7♠", "the next bid is 6♣, misère or pass")
    assert_illegal(state, "6♠", "you cannot bid 6♠", "the next bid is 6♣")


def test_pass_is_final_passer_skipped() -> None:
    state = act(sample(), "6♠", "pass", "6♣")
    assert state.to_act == A
    state = act(state, "6♦")
    assert state.to_act == C
    assert state.auction.passed == 1 << B


def test_here_by_the_later_hand_is_never_allowed() -> None:
    """A-06: only an earlier hand may say "here"."""
    state = act(sample(), "6♠")
    assert_illegal(state, "here", "only an earlier hand may say 'here'", "the next bid is 6♣")


def test_here_before_any_bid_is_illegal() -> None:
    assert_illegal(sample(), "here", "there is no bid to hold", "the next bid is 6♠")


def test_here_forces_the_later_hand_to_raise_or_pass() -> None:
    state = act(sample(), "6♠", "6♣", "pass", "here")
    assert (state.auction.holder, state.auction.high, state.to_act) == (A, 1, B)
    assert legal_actions(state) == calls("pass", "6♦")
    assert_illegal(state, "here", "only an earlier hand")


def test_second_hand_has_priority_over_third_after_first_passed() -> None:
    state = act(sample(), "pass", "6♠", "6♣", "here", "6♦", "here", "pass")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "6♦")


def test_here_with_three_active_bidders_allowed_by_default() -> None:
    """A-05 default: any earlier active hand may hold a later hand's bid."""
    state = act(sample(), "6♠", "6♣", "6♦")
    assert legal_actions(state) == calls("pass", "here", "6♥")
    state = act(state, "here")
    assert (state.auction.holder, state.to_act) == (A, B)
    assert legal_actions(state) == calls("pass", "6♥")


def test_auction_ends_when_two_have_passed() -> None:
    state = act(sample(), "pass", "pass", "6♠")
    assert (state.phase, state.declarer, state.to_act, state.bid) == (
        Phase.TALON,
        C,
        C,
        Bid.parse("6♠"),
    )


def test_three_passes_start_raspasy_led_by_first_hand() -> None:
    state = act(sample(dealer=A), "pass", "pass", "pass")
    assert (state.phase, state.declarer, state.to_act, state.raspasy) == (Phase.PLAY, -1, B, True)
    assert state.contract is None and state.play.leader == B


def test_misere_only_as_first_call() -> None:
    state = act(sample(), "6♠", "pass", "6♣")
    assert legal_actions(state) == calls("pass", "here", "6♦")
    assert_illegal(state, "misère", "misère must be your first call", "the next bid is 6♦")


def test_misere_beats_eights_and_is_beaten_by_nines() -> None:
    state = act(sample(), "6♠", "6♣", "misère")
    assert state.auction.high == MISERE.index
    assert legal_actions(state) == calls("pass", "9♠")
    assert_illegal(state, "7♠", "you cannot bid 7♠", "the next bid is 9♠ or pass")
    assert_illegal(state, "8NT", "the next bid is 9♠")
    assert_illegal(state, "here", "misère cannot be held with 'here'")


def test_misere_no_longer_available_above_misere() -> None:
    state = act(sample(), "misère")
    assert legal_actions(state) == calls("pass", "9♠")
    assert_illegal(state, "misère", "misère no longer beats the highest bid")


def test_misere_bidder_out_after_being_beaten_auction_goes_on() -> None:
    """§1.3 and A-18 default: the overbid misère bidder may only pass; the others go on."""
    state = act(sample(), "misère", "9♠")
    assert (state.to_act, legal_actions(state)) == (C, calls("pass", "9♣"))
    state = act(state, "9♣")
    assert state.to_act == A
    assert legal_actions(state) == (PASS,)
    assert_illegal(state, "9♦", "your misère was overbid: you may only pass")
    state = act(state, "pass", "9♦", "pass")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "9♦")


def test_misere_unbeaten_wins_the_talon() -> None:
    state = act(sample(), "pass", "misère", "pass")
    assert (state.phase, state.declarer, state.bid) == (Phase.TALON, B, MISERE)


def test_top_of_ladder_leaves_only_pass_or_here() -> None:
    state = act(sample(), "6♠", "6♣", "6♦")
    state = state._replace(auction=state.auction._replace(high=Bid.parse("10NT").index, holder=C))
    assert legal_actions(state) == calls("pass", "here")


def test_wrong_seat_is_not_your_turn() -> None:
    err = assert_illegal(sample(), "6♠", "it is A's turn, not B's", error=NotYourTurn, seat=B)
    assert isinstance(err, NotYourTurn) and (err.seat, err.to_act) == (B, A)


def test_non_auction_action_in_bidding_is_illegal_with_allowed_calls() -> None:
    err = assert_illegal(sample(), "whist", "whist is not an auction call", "the next bid is 6♠")
    assert err.allowed == legal_actions(sample())


def test_illegal_call_carries_the_allowed_calls() -> None:
    state = act(sample(), "6♠")
    err = assert_illegal(state, "7♠")
    assert err.allowed == (PASS, Call(MISERE), Call(Bid.parse("6♣")))


def test_scored_deal_accepts_nothing() -> None:
    state = play_out(act(sample(), "pass", "pass", "pass"))
    assert state.phase is Phase.SCORED and legal_actions(state) == ()
    assert_illegal(state, "play 7♠", "the deal is over", error=GameOver, seat=A)
