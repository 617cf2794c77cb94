"""Auction and contract options for three players (issue 11; RULES.md §3.1, §5 A-06, A-22;
seeds S000 «Торговля» and «Конвенции», S004)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.bots import make_bot
from domain.rules import (
    DEFAULT,
    DealScore,
    DealState,
    Declare,
    InvalidAction,
    Kind,
    NotYourTurn,
    RuleSet,
    legal_actions,
    parse_action,
    score_deal,
    seat_view,
    visible_mask,
)
from domain.rules.actions import CONCEDE, PASS, PREFERANS, UNDERBID
from domain.rules.game import finish_deal, new_game
from domain.rules.preferans import hand_qualifies
from domain.rules.ruleset import Bidding, PreferansEffect, PreferansHand, Underbid
from domain.rules.scoresheet import Help, ScoreSheet
from domain.rules.state import Phase
from domain.rules.underbid import NODE_LIMIT, guaranteed
from tests.unit.double_dummy import takes_at_least
from tests.unit.rules_helpers import (
    A,
    B,
    C,
    act,
    assert_illegal,
    cards,
    deal,
    play_out,
    sample,
    whists,
)


def calls(*texts: str) -> tuple[object, ...]:
    return tuple(parse_action(t) for t in texts)


# --- "here" by the later hand (S000 main text) -----------------------------------

LATER = RuleSet(here_passes_to_later=True)


def test_a06_later_hand_may_say_here_once_the_earlier_raised_instead() -> None:
    """S000 «Торговля»: "if the player who may say 'here' did not use it, the second may"."""
    state = act(sample(rules=LATER), "6♠", "6♣", "pass")
    assert legal_actions(state) == calls("pass", "here", "6♦")
    state = act(state, "6♦")  # A raises where he could have said "here"
    assert legal_actions(state) == calls("pass", "here", "6♥")
    state = act(state, "here")  # B now holds A's 6♦
    assert (state.auction.holder, state.to_act) == (B, A)
    assert legal_actions(state) == calls("pass", "6♥")
    assert_illegal(state, "here", "only the hand with the priority may say 'here'")
    state = act(state, "6♥", "here", "pass")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "6♥")


def test_a06_priority_returns_when_the_later_hand_also_raises() -> None:
    state = act(sample(rules=LATER), "6♠", "6♣", "pass", "6♦", "6♥")
    # B raised where he could have said "here": the priority is A's again.
    assert legal_actions(state) == calls("pass", "here", "6NT")


def test_a06_default_the_later_hand_never_says_here() -> None:
    """S000 «Конвенции» and S001: only the earlier hand, "even if the first did not use it"."""
    state = act(sample(), "6♠", "6♣", "pass", "6♦")
    assert legal_actions(state) == calls("pass", "6♥")
    assert_illegal(state, "here", "only an earlier hand may say 'here'", "the next bid is 6♥")


def test_a06_here_stays_optional_in_sequential_bidding() -> None:
    """S000 «Конвенции»: with sequential bidding one may "not say 'here'": the earlier hand
    may always raise by one step instead (no priority passes by default)."""
    state = act(sample(), "6♠", "6♣", "pass")
    assert calls("here", "6♦") == legal_actions(state)[1:]
    state = act(state, "6♦", "pass")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, A, "6♦")


# --- misère beaten by the 10-level (S004) and two misères (S000, A-22) ------------------

BY_TEN = RuleSet(misere_beaten_by_ten=True)


def test_s004_misere_beaten_only_by_a_ten() -> None:
    """S004: "by agreement misère is beaten only by the ten": 10♠ is the next rung."""
    state = act(sample(rules=BY_TEN), "misère")
    assert legal_actions(state) == calls("pass", "10♠")
    assert_illegal(state, "9♠", "you cannot bid 9♠", "the next bid is 10♠ or pass")
    state = act(state, "10♠")
    assert legal_actions(state) == calls("pass", "10♣")
    state = act(state, "pass", "pass")  # C passes; A's beaten misère may only pass
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "10♠")


def test_s004_misere_above_the_nines_as_a_first_call() -> None:
    """With jump bids a first call may meet a nine: misère still beats it under S004."""
    rules = RuleSet(misere_beaten_by_ten=True, bidding=Bidding.JUMP)
    state = act(sample(rules=rules), "9♥")
    assert parse_action("misère") in legal_actions(state)
    state = act(state, "misère")
    assert legal_actions(state)[:2] == calls("pass", "10♠")
    assert "9NT" not in [str(a) for a in legal_actions(state)]
    default = act(sample(rules=RuleSet(bidding=Bidding.JUMP)), "9♥")
    assert parse_action("misère") not in legal_actions(default)
    assert_illegal(default, "misère", "misère no longer beats the highest bid")


def test_s004_ten_over_misere_with_the_auction_stopping() -> None:
    rules = RuleSet(misere_beaten_by_ten=True, misere_beaten_stops_auction=True)
    state = act(sample(rules=rules), "misère", "10♠")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "10♠")


def test_default_misere_beaten_by_a_nine() -> None:
    state = act(sample(), "misère")
    assert legal_actions(state) == calls("pass", "9♠")


@pytest.mark.parametrize("rules", [DEFAULT, BY_TEN], ids=["by-nine", "by-ten"])
def test_two_misères_the_earlier_hand_has_priority(rules: RuleSet) -> None:
    """S000 «Торговля» (example lost, A-22): of two misères the earlier hand's stands. Misère
    is a first call and first calls go in hand order, so a second misère always comes from a
    later hand and is refused; a "misère here" does not exist."""
    state = act(sample(rules=rules), "misère")
    assert parse_action("misère") not in legal_actions(state)
    assert_illegal(state, "misère", "the earlier hand's misère has priority")
    state = act(sample(rules=rules), "pass", "misère")
    assert_illegal(state, "misère", "the earlier hand's misère has priority")
    state = act(state, "pass")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "misère")


# --- "without three" (S000 «Конвенции», "Варианты правил при назначении игры") -----------

THREE = RuleSet(concede_undertricks=3)


def taken_at_six(rules: RuleSet) -> DealState:
    """SAMPLE: A wins at 6♠, takes the talon and discards Q♠ 10♣; the contract is next."""
    return act(sample(rules=rules), "6♠", "pass", "pass", "take talon", "discard Qs Tc")


def test_s000_without_three_on_a_six_no_whists() -> None:
    """S000: "the talon taker on a six may refuse to play ('without three'); he is deemed to
    have taken three tricks; no whists are written on him"."""
    state = taken_at_six(THREE)
    assert legal_actions(state)[-1] == CONCEDE
    assert parse_action("без трёх") == parse_action("without three") == CONCEDE
    done = act(state, "concede")
    assert done.phase is Phase.SCORED and done.result is not None
    assert (done.result.kind, done.result.declarer, str(done.result.contract)) == (
        Kind.CONCEDED,
        A,
        "6♠",
    )
    assert done.whist.calls == () and done.play.history == ()
    assert score_deal(done) == DealScore((0, 0, 0), (3 * 2, 0, 0), whists({}))


def test_s000_without_four_writes_four_undertricks() -> None:
    done = act(taken_at_six(RuleSet(concede_undertricks=4)), "concede")
    assert score_deal(done) == DealScore((0, 0, 0), (4 * 2, 0, 0), whists({}))


def test_without_three_only_on_a_six_unless_every_level() -> None:
    """S000: "in some companies 'without three without whists' applies to every game"."""
    jump = RuleSet(bidding=Bidding.JUMP, concede_undertricks=3)
    seven = act(sample(rules=jump), "7♥", "pass", "pass", "take talon", "discard Qs Tc")
    assert CONCEDE not in legal_actions(seven)
    assert_illegal(seven, "concede", "only after winning the talon on a six", "declare 7♥")
    rules = jump.with_options(concede_any_level=True)
    seven = act(sample(rules=rules), "7♥", "pass", "pass", "take talon", "discard Qs Tc")
    done = act(seven, "concede")
    assert score_deal(done).gora == (3 * 4, 0, 0)


def test_without_three_not_played_by_default_nor_on_misere() -> None:
    assert CONCEDE not in legal_actions(taken_at_six(DEFAULT))
    assert_illegal(taken_at_six(DEFAULT), "concede", '"without three" is not played')
    misere = act(sample(rules=THREE), "misère", "pass", "pass", "take talon", "discard Qs Tc")
    assert legal_actions(misere) == (parse_action("declare misère"),)
    assert_illegal(misere, "concede", "misère cannot be conceded")


def test_without_three_is_the_declarers_alone_and_hidden_until_decided() -> None:
    state = taken_at_six(THREE)
    for seat in (B, C):
        view = seat_view(state, seat)
        assert view.legal == () and view.discard is None
    assert_illegal(state, "concede", "it is A's turn", error=NotYourTurn, seat=B)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"concede_any_level": True}, "rules.concede_any_level"),
        ({"concede_undertricks": 2}, "rules.concede_undertricks"),
        ({"concede_undertricks": 5}, "rules.concede_undertricks"),
    ],
)
def test_without_three_nonsense_options_are_refused(options: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidAction) as refused:
        RuleSet(**options)
    assert refused.value.field == field
    with pytest.raises(InvalidAction):
        RuleSet.from_dict(options)


def test_the_bot_goes_without_three_with_a_hopeless_hand_only() -> None:
    hopeless = deal(
        "7s 8s 9s 7c 8c 9c 7d 8d 7h 8h",
        "As Ks Qs Js Ac Kc Qc Jc Ad Kd",
        "Ts Tc Qd Jd Td Ah Kh Qh Jh Th",
        "9d 9h",
        rules=THREE,
    )
    state = act(hopeless, "6♠", "pass", "pass", "take talon", "discard 7s 8s")
    assert make_bot()(seat_view(state, A)) == CONCEDE
    strong = taken_at_six(THREE)
    assert isinstance(make_bot()(seat_view(strong, A)), Declare)


def test_the_concession_round_trips_through_the_api_action() -> None:
    from service.api.mapping import action_from_proto, action_to_proto

    message = action_to_proto(CONCEDE)
    assert message.WhichOneof("kind") == "concede"
    assert action_from_proto(message) == CONCEDE


def test_the_bot_declares_a_won_ten_even_when_a_lower_strain_looks_best() -> None:
    """A bot that won 10NT with its tricks in hearts must still declare 10NT (no 11♥)."""
    rules = RuleSet(bidding=Bidding.JUMP)
    state = act(sample(rules=rules), "10NT", "pass", "pass", "take talon", "discard Qs Tc")
    assert make_bot()(seat_view(state, A)) == parse_action("declare 10NT")


# --- the underbid penalty, "перезаклад" (TV-25, S000 conv.) ----------------------------

UNDERBIDS = RuleSet(underbid_penalty=Underbid.TWO)
TV25 = (
    "As Ks Js 9s 8s Ac Qc Jc Tc Kh",  # A: with the talon ♠AKJ98 ♣AQJ109 ♥K8, first hand
    "Qs Ts 7s Kc 8c 7c Ad Kd Qd Jd",
    "Td 9d 8d 7d Ah Qh Jh Th 9h 7h",
    "9c 8h",
)


def tv25(contract: str, rules: RuleSet = UNDERBIDS) -> DealState:
    """TV-25: A discards ♥K 8 and declares ``contract``; B whists alone, open; played out."""
    state = act(deal(*TV25, rules=rules), "6♠", "pass", "pass", "take talon", "discard Kh 8h")
    return play_out(act(state, contract, "whist", "pass", "open"))


def test_tv25_underbid_proved_game_void_two_to_gora_redeal() -> None:
    """TV-25 (RULES.md §2.2, S000 «Конвенции»): ♠AKJ98 ♣AQJ109 on own lead take 8 whatever
    the defence does; declared 7♠ → the game is void, 2 to the declarer's gora, the whisters
    write nothing, and the deal is dealt again."""
    state = tv25("declare 7♠")
    assert (state.phase, state.to_act) == (Phase.REVIEW, B)
    assert legal_actions(state) == (UNDERBID, PASS)
    assert state.result is None and state.review is not None
    void = act(state, "underbid")
    assert void.phase is Phase.SCORED and void.result is not None
    assert void.result.kind is Kind.UNDERBID
    assert score_deal(void) == DealScore((0, 0, 0), (2, 0, 0), whists({}))
    value = act(tv25("declare 7♠", RuleSet(underbid_penalty=Underbid.GAME_VALUE)), "underbid")
    assert score_deal(value).gora == (4, 0, 0)


def test_tv25_the_void_deal_is_dealt_again_by_the_same_dealer() -> None:
    game = new_game(UNDERBIDS, first_dealer=C)
    void = act(tv25("declare 7♠"), "underbid")
    after, _, _ = finish_deal(game._replace(deal=void, deal_number=1))
    assert (after.dealer, after.raspasy_streak, after.sheet.gora) == (C, 0, (2, 0, 0))


def test_tv25_no_underbid_when_the_cards_take_only_the_contract() -> None:
    """8♠ is exactly what the cards take: the claim is refused and the result stands."""
    state = tv25("declare 8♠")
    assert legal_actions(state) == (PASS,)
    assert_illegal(state, "underbid", "no underbid", "take 9 tricks")
    stands = act(state, "pass")
    assert stands.phase is Phase.SCORED and stands.result is not None
    assert stands.result.kind is Kind.GAME


def test_tv25_review_lays_every_hand_open_but_keeps_the_discard_hidden() -> None:
    state = tv25("declare 7♠")
    for seat in (B, C):
        view = seat_view(state, seat)
        assert all(hand is not None for hand in view.hands) and view.discard is None
        assert view.dealt is None
    assert seat_view(state, A).discard is not None


def test_tv25_two_whisters_each_may_claim_in_turn() -> None:
    state = act(deal(*TV25, rules=UNDERBIDS), "6♠", "pass", "pass", "take talon", "discard Kh 8h")
    state = play_out(act(state, "declare 7♠", "whist", "whist"))
    assert (state.phase, state.to_act) == (Phase.REVIEW, B)
    state = act(state, "pass")
    assert (state.phase, state.to_act) == (Phase.REVIEW, C)
    assert act(state, "underbid").result.kind is Kind.UNDERBID  # type: ignore[union-attr]


def test_tv25_not_played_by_default() -> None:
    state = tv25("declare 7♠", DEFAULT)
    assert state.phase is Phase.SCORED and state.result is not None
    assert state.result.kind is Kind.GAME


def test_tv25_the_bot_claims_a_proved_underbid_only() -> None:
    assert make_bot()(seat_view(tv25("declare 7♠"), B)) == UNDERBID
    assert make_bot()(seat_view(tv25("declare 8♠"), B)) == PASS


def test_tv25_the_bot_lets_a_failed_underbid_stand() -> None:
    """A proved underbid voids the game for a flat 2 in gora (TV-25): when the declarer went
    down anyway, his undertricks and the whists are worth more to the whister."""
    view = seat_view(tv25("declare 7♠"), B)
    assert UNDERBID in view.legal
    assert make_bot()(view._replace(tricks=(6, 4, 0))) == PASS


def test_tv25_the_underbid_proof_holds_in_every_layout_and_is_bounded() -> None:
    """TV-25 (S000 «Конвенции»): ♠AKJ98 ♣AQJ109 on own lead "loses at most one trick to ♠Q
    and one to ♣K": 8 tricks in any layout of the defenders' twenty cards, not 9; a search cut
    short by its node limit proves nothing."""
    declarer = cards("As Ks Js 9s 8s Ac Qc Jc Tc 9c")
    pool = cards(TV25[1]) | cards(TV25[2])
    assert guaranteed(declarer, pool, A, A, 0, 8, NODE_LIMIT)
    assert not guaranteed(declarer, pool, A, A, 0, 9, NODE_LIMIT)
    assert not guaranteed(declarer, pool, A, A, 0, 8, 3)


def test_s000_an_extra_trick_that_depends_on_the_layout_is_no_underbid() -> None:
    """S000: the underbid is proved only if "there is no layout in which he takes fewer". Here
    ♦ trumps, own lead: over the actual hands (♦K single with B) the declarer takes 9, but in
    other layouts of the same twenty cards he can be held to 6 (♦K guarded, ruffs), so a 6, 7
    or 8 declared is no underbid; the double-dummy value of one layout convicted it before."""
    declarer = cards("As Ac Qc Jc 9c Ad Qd Jd 7d Qh")
    b, c = cards("7s 8s Ts Js Kd 7h 9h Th Jh Ah"), cards("9s Qs Ks 7c 8c Tc 8d 9d Td Kh")
    assert takes_at_least((declarer, b, c), A, A, 2, 9, NODE_LIMIT)
    assert guaranteed(declarer, b | c, A, A, 2, 6, NODE_LIMIT)
    assert not guaranteed(declarer, b | c, A, A, 2, 7, NODE_LIMIT * 10)


def test_the_underbid_proof_implies_the_double_dummy_value_of_every_layout() -> None:
    """What the proof guarantees holds in the actual layout and in a swapped one (the
    defenders' hands exchanged), for deals drawn at random."""
    rng = random.Random(7)
    checked = 0
    while checked < 4:
        deck = list(range(32))
        rng.shuffle(deck)
        hands = tuple(sum(1 << x for x in deck[k * 10 : (k + 1) * 10]) for k in range(3))
        trump = rng.choice([-1, 0, 1, 2, 3])
        pool = hands[1] | hands[2]
        best = max(n for n in range(11) if guaranteed(hands[0], pool, A, A, trump, n, 50_000))
        if best == 0:
            continue
        checked += 1
        for layout in (hands, (hands[0], hands[2], hands[1])):
            assert takes_at_least(layout, A, A, trump, best, NODE_LIMIT)


# --- misère card exposure (S003, S004) -------------------------------------------------

SHOWS = RuleSet(misere_shows_twelve=True)


def misere_taken(rules: RuleSet) -> DealState:
    return act(sample(rules=rules), "misère", "pass", "pass", "take talon")


def test_s004_misere_declarer_shows_twelve_cards_then_discards_in_secret() -> None:
    """S004: "takes the talon, shows all 12 cards to the opponents, closes them and discards";
    S003: "dictates his cards by suit, then discards two without showing them"."""
    state = misere_taken(SHOWS)
    twelve = state.play.hands[A]
    assert twelve.bit_count() == 12
    for seat in (B, C):
        view = seat_view(state, seat)
        assert view.hands[A] == twelve and view.shown == twelve
        assert visible_mask(state, seat) & twelve == twelve
    state = act(state, "discard Qs Tc")
    for seat in (B, C):
        view = seat_view(state, seat)
        assert view.hands[A] is None and view.discard is None  # closed; the discard is secret
        assert view.shown == twelve
    state = act(state, "declare misère")
    assert seat_view(state, B).shown == twelve and seat_view(state, B).hands[A] is None


def test_default_misere_shows_only_the_talon() -> None:
    state = misere_taken(DEFAULT)
    view = seat_view(state, B)
    assert view.hands[A] is None and view.shown is None
    assert visible_mask(state, B) & state.play.hands[A] == cards("Jd 8h")  # the talon


def test_s004_showing_twelve_is_for_misère_only() -> None:
    state = act(sample(rules=SHOWS), "6♠", "pass", "pass", "take talon")
    assert seat_view(state, B).hands[A] is None and seat_view(state, B).shown is None


# --- "preferans" (TV-40; S000 «Торговля», S004 glossary) -------------------------------

AKQ = RuleSet(preferans=PreferansHand.ACE_KING_QUEEN)
ALL_TRICKS = RuleSet(preferans=PreferansHand.ALL_TRICKS)
PREFERANS_DEAL = (
    "As Ks Qs Ac Kc Qc Ad Kd Qd Ah",  # A: with the talon ♥K ♥Q, A-K-Q in all four suits
    "Js Ts 9s Jc Tc 9c Jd Td 9d Jh",
    "8s 7s 8c 7c 8d 7d Th 9h 8h 7h",
    "Kh Qh",
)


def preferans_taken(rules: RuleSet, bid: str = "6♠") -> DealState:
    return act(deal(*PREFERANS_DEAL, rules=rules), bid, "pass", "pass", "take talon")


def test_tv40_ace_king_queen_in_four_suits_ends_the_game_100_whists_on_each() -> None:
    """TV-40 (RULES.md §2.4, S004 glossary): A-K-Q in all four suits with the talon after a
    non-misère auction → the holder closes every pool, writes off his gora and writes 100
    whists on each."""
    state = preferans_taken(AKQ)
    assert legal_actions(state)[-1] == PREFERANS
    assert parse_action("преферанс") == PREFERANS
    done = act(state, "preferans")
    assert done.phase is Phase.SCORED and done.result is not None
    assert done.result.kind is Kind.PREFERANS
    game = new_game(AKQ, first_dealer=C)
    sheet = ScoreSheet((5, 12, 0), (30, 8, 44), ((0, 7, 0), (3, 0, 0), (0, 0, 0)))
    after, score, entry = finish_deal(game._replace(deal=done, deal_number=9, sheet=sheet))
    assert after.finished
    assert after.sheet == ScoreSheet(
        (20, 20, 20), (0, 8, 44), ((0, 107, 100), (3, 0, 0), (0, 0, 0))
    )
    assert entry.helps == () and entry.gora == (-30, 0, 0)
    assert score.whists[A] == (0, 100, 100)


def test_tv40_no_preferans_by_default_or_without_the_hand_or_on_misère() -> None:
    assert PREFERANS not in legal_actions(preferans_taken(DEFAULT))
    assert_illegal(preferans_taken(DEFAULT), "preferans", "preferans is not played here")
    assert PREFERANS not in legal_actions(
        act(sample(rules=AKQ), "6♠", "pass", "pass", "take talon")
    )
    misere = preferans_taken(AKQ, "misère")
    assert PREFERANS not in legal_actions(misere)


def test_s000_preferans_every_trick_in_no_trump_against_any_layout() -> None:
    """S000: "take every trick with twelve cards in no trump against any layout and any lead":
    ♠AKQJ ♣AKQ ♦AK ♥A with ♥K, ♦Q in the talon qualifies (ten top cards, every suit held),
    though it is not A-K-Q in four suits."""
    twelve = cards("As Ks Qs Js Ac Kc Qc Ad Kd Ah Kh Qd")
    assert hand_qualifies(twelve, PreferansHand.ALL_TRICKS)
    assert not hand_qualifies(twelve, PreferansHand.ACE_KING_QUEEN)
    assert hand_qualifies(cards("As Ks Qs Ac Kc Qc Ad Kd Qd Ah Kh Qh"), PreferansHand.ALL_TRICKS)
    # No heart at all: an opening heart lead wins a trick.
    assert not hand_qualifies(
        cards("As Ks Qs Js Ts Ac Kc Qc Jc Ad Kd Qd"), PreferansHand.ALL_TRICKS
    )
    # ♠A K J without the Q (the J is no sure trick) and ♥A 8 7: nine top cards only.
    assert not hand_qualifies(
        cards("As Ks Js Ac Kc Qc Ad Kd Qd Ah 8h 7h"), PreferansHand.ALL_TRICKS
    )
    # With ♥K instead of ♥8 there are ten: J♠ and 7♥ go to the discard.
    assert hand_qualifies(cards("As Ks Js Ac Kc Qc Ad Kd Qd Ah Kh 7h"), PreferansHand.ALL_TRICKS)
    assert act(preferans_taken(ALL_TRICKS), "preferans").result.kind is Kind.PREFERANS  # type: ignore[union-attr]


def test_tv40_preferans_nonsense_option_refused() -> None:
    with pytest.raises(InvalidAction) as refused:
        RuleSet(preferans_whists=50)
    assert refused.value.field == "rules.preferans_whists"
    assert (
        RuleSet(preferans=PreferansHand.ACE_KING_QUEEN, preferans_whists=50).preferans_whists == 50
    )


def test_tv40_the_bot_declares_preferans() -> None:
    assert make_bot()(seat_view(preferans_taken(AKQ), A)) == PREFERANS


def test_s000_preferans_closes_the_pools_with_help_whists_and_takes_the_whists_on_him() -> None:
    """S000 «Запись»: "he writes off his gora; he closes his pool and every other's, the
    talon sitter's too, receiving the corresponding whists. In some companies he writes on
    himself all the whists the players had on him"."""
    rules = RuleSet(
        preferans=PreferansHand.ACE_KING_QUEEN,
        preferans_effect=PreferansEffect.HELP_WHISTS,
        preferans_takes_whists=True,
    )
    done = act(preferans_taken(rules), "preferans")
    game = new_game(rules, first_dealer=C)
    sheet = ScoreSheet((5, 12, 0), (30, 8, 44), ((0, 7, 0), (3, 0, 0), (0, 0, 0)))
    after, score, entry = finish_deal(game._replace(deal=done, deal_number=9, sheet=sheet))
    assert score.whists == whists({})
    assert entry.helps == (Help(A, B, 8), Help(A, C, 20))
    # A: 7 on B already, + 80 help + B's 3 on A taken over; 200 help on C.
    assert after.finished
    assert after.sheet == ScoreSheet(
        (20, 20, 20), (0, 8, 44), ((0, 7 + 80 + 3, 200), (0, 0, 0), (0, 0, 0))
    )


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"preferans_effect": PreferansEffect.HELP_WHISTS}, "rules.preferans_effect"),
        ({"preferans_takes_whists": True}, "rules.preferans_takes_whists"),
        (
            {
                "preferans": PreferansHand.ALL_TRICKS,
                "preferans_effect": PreferansEffect.HELP_WHISTS,
                "preferans_whists": 50,
            },
            "rules.preferans_whists",
        ),
    ],
)
def test_tv40_preferans_effect_nonsense_refused(options: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidAction) as refused:
        RuleSet(**options)
    assert refused.value.field == field
