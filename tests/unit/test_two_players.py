"""Two players, "гусарик" (RULES.md §3.6 row "2", §3.4 "Two players"; S000 "Игра при двух
игроках"): the dummy, the open whist on two hands, raspasy without the dummy and the talon,
every two-player option, the indivisible gora, and random whole games."""

from __future__ import annotations

import hashlib
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.audit import verify
from domain.model.replay import advance, event_name
from domain.rules import (
    PASS,
    WHIST,
    Action,
    Bid,
    Card,
    DealState,
    Kind,
    Phase,
    RuleSet,
    apply,
    legal_actions,
    new_deal,
    parse_action,
    seat_view,
)
from domain.rules.actions import (
    CALLS,
    DECLARES,
    DISCARDS,
    HALF_WHIST,
    OWN_CARDS_WHIST,
    RETRACT_PASS,
    Claim,
    Discard,
    GiveCards,
    PlayCard,
)
from domain.rules.cards import parse_cards
from domain.rules.dealing import DealtCards, shuffle_from_seed
from domain.rules.duo_options import DuoAllPass
from domain.rules.engine import actor
from domain.rules.errors import IllegalAction, InvalidAction
from domain.rules.game import finish_deal, new_game, play_game, start_deal
from domain.rules.play import controller
from domain.rules.raspasy import streak_after
from domain.rules.scoresheet import ScoreSheet, settle
from domain.rules.scoring import score_deal, score_result
from domain.rules.seats import DUMMY, hand_seats
from domain.rules.settlement import settlement
from domain.rules.state import DealResult
from domain.rules.view import visible_mask
from tests.unit.game_helpers import created_game

A, B = 0, 1
FULL = (1 << 32) - 1
DUO = RuleSet(players=2)
SIX_SPADES = Bid.ordinary(6, 0)  # type: ignore[arg-type]


def mask(text: str) -> int:
    out = 0
    for card in parse_cards(text):
        out |= 1 << card
    return out


# B deals; A (his opponent) speaks first. B holds a sure six in spades.
HAND_A = "8♠ 7♠ Q♣ J♣ 10♣ Q♦ J♦ 10♦ A♥ K♥"
HAND_B = "A♠ K♠ Q♠ J♠ 10♠ 9♠ A♣ K♣ A♦ K♦"
HAND_DUMMY = "9♣ 8♣ 7♣ 9♦ 8♦ 7♦ Q♥ J♥ 10♥ 9♥"
TALON = "8♥ 7♥"


def duo_deal(rules: RuleSet = DUO, dealer: int = B) -> DealState:
    """The deal above: A's, B's and the dummy's hands at positions 0, 1, 2."""
    hands = (mask(HAND_A), mask(HAND_B), mask(HAND_DUMMY))
    a, b = parse_cards(TALON)
    return new_deal(DealtCards(hands, (int(a), int(b))), dealer, rules)


def act(state: DealState, *notation: str) -> DealState:
    for text in notation:
        state = apply(
            state, parse_action(text, cards_first=state.phase is Phase.PLAY), actor(state)
        )
    return state


def b_declares_six(rules: RuleSet = DUO) -> DealState:
    """A passes, B bids and declares 6♠ (discarding the talon): A is to whist."""
    return act(duo_deal(rules), "pass", "6♠", "take talon", "discard 8♥ 7♥", "declare 6♠")


def play_lowest_one(state: DealState) -> DealState:
    """The actor plays his lowest legal card."""
    cards = [a for a in legal_actions(state) if isinstance(a, PlayCard)]
    return apply(state, min(cards, key=lambda a: a.card), actor(state))


def test_rules_3_6_a_closed_defence_or_an_unwhisted_ten_keeps_the_dummy_from_the_declarer() -> None:
    """S000 opens the dummy when the opponent whists; a misère defended closed (A-24 option)
    or a ten nobody whists leaves it closed to the declarer (its defender sees it: he plays
    it)."""
    closed = DUO.with_options(misere_defence_choice=True, duo_dummy_hand=2)
    state = act(duo_deal(closed), "misère", "pass", "take talon", "discard A♥ K♥", "declare misère")
    state = act(state, "closed")
    assert seat_view(state, A).hands[DUMMY] is None
    state = play_lowest_one(state)
    assert seat_view(state, A).hands[DUMMY] is None and seat_view(state, B).hands[DUMMY]
    ten = DUO.with_options(ten_whisted=False)
    state = act(duo_deal(ten), "pass", "6♠", "take talon", "discard 8♥ 7♥", "declare 10♠")
    assert state.phase is Phase.PLAY and not state.whist.whisters
    assert seat_view(state, B).hands[DUMMY] is None
    assert seat_view(state, A).hands[DUMMY] == mask(HAND_DUMMY)


def play_lowest(state: DealState) -> DealState:
    """Play every remaining card, each actor his lowest legal card."""
    while state.phase is Phase.PLAY:
        cards = [a for a in legal_actions(state) if isinstance(a, PlayCard)]
        state = apply(state, min(cards, key=lambda a: a.card), actor(state))
    return state


# --- the dummy (§3.6) --------------------------------------------------------------------


@pytest.mark.parametrize("dummy_hand", [1, 2])
@pytest.mark.parametrize("dealer", [A, B])
def test_rules_3_6_the_dummy_sits_at_the_agreed_hand_holds_ten_cards_and_has_passed(
    dummy_hand: int, dealer: int
) -> None:
    """S000: "Третья рука – «болван» … всегда на первой руке (или всегда на второй)";
    "«Болван» как бы всегда говорит “пас”"; "Противник сдатчика начинает торг"."""
    rules = RuleSet(players=2, duo_dummy_hand=dummy_hand)
    order = shuffle_from_seed(b"dummy-hand-sixteen", 1)
    game = start_deal(new_game(rules, dealer), order)
    deal = game.deal
    assert deal is not None
    assert len(deal.dealt) == 3 and deal.dealt[DUMMY].bit_count() == 10
    assert all(hand.bit_count() == 10 for hand in deal.dealt)
    assert hand_seats(dealer, 2, dummy_hand)[dummy_hand - 1] == DUMMY
    assert hand_seats(dealer, 2, dummy_hand)[2] == dealer
    assert deal.to_act == 1 - dealer  # the dealer's opponent speaks first
    assert deal.auction.passed == 1 << DUMMY and deal.auction.calls == ()


def test_rules_3_6_the_dummy_never_acts_and_its_calls_are_implied() -> None:
    """The auction ends after the two players (the dummy's pass is implied): A passes and B's
    bid wins; the dummy never calls and is never asked to whist."""
    state = act(duo_deal(), "pass", "6♠")
    assert state.phase is Phase.TALON and state.declarer == B
    assert [seat for seat, _ in state.auction.calls] == [A, B]
    state = b_declares_six()
    assert state.phase is Phase.WHISTING and state.to_act == A  # the dummy is the first defender
    assert legal_actions(state) == (WHIST, HALF_WHIST, PASS)


def test_rules_3_6_a_whisted_game_is_played_open_the_whister_controls_the_dummy() -> None:
    """S000: "Противник взявшего прикуп, если он вистует …, открывает карты «болвана», и
    производится розыгрыш": only the dummy lies open; A plays it; the score has two seats."""
    state = apply(b_declares_six(), WHIST, A)
    assert state.phase is Phase.PLAY and state.whist.whisters == (A,)
    assert state.open_hands == 1 << DUMMY  # A's own hand stays closed
    assert controller(state, DUMMY) == A
    assert state.to_act == DUMMY and actor(state) == A  # the dummy is H1 and leads, by A
    b_view, a_view = seat_view(state, B), seat_view(state, A)
    assert b_view.hands[DUMMY] == mask(HAND_DUMMY) and b_view.hands[A] is None
    assert a_view.hands[DUMMY] == mask(HAND_DUMMY) and a_view.hands[B] is None
    assert b_view.legal == () and a_view.legal != ()
    led = play_lowest_one(state)
    assert led.open_hands == 1 << DUMMY  # still closed after the first card
    assert seat_view(led, B).hands[A] is None
    final = play_lowest(led)
    result = final.result
    assert result is not None and result.kind is Kind.GAME
    assert result.whisters == (A,) and result.passers == ()
    assert sum(result.tricks) == 10
    score = score_deal(final)
    assert len(score.pool) == len(score.gora) == 2 and len(score.whists) == 2
    defence = 10 - result.tricks[B]
    price = DUO.whist_price(6)
    short = max(0, DUO.norm(6) - defence)
    assert score.gora[A] == short * DUO.shortfall_price(6)
    under = max(0, 6 - result.tricks[B])
    assert score.whists[A][B] == defence * price + under * DUO.consolation_price(6)
    assert score.whists[B][A] == 0


def test_rules_3_6_going_for_ones_own_is_a_half_whist_without_play() -> None:
    """S000 "если он вистует, а не уходит за свои": going for his own stands without play."""
    final = apply(b_declares_six(), HALF_WHIST, A)
    assert final.phase is Phase.SCORED and final.result is not None
    assert final.result.kind is Kind.HALF_WHIST and final.result.half_whister == A
    score = score_deal(final)
    assert score.pool == (0, DUO.value(6))
    assert score.whists == ((0, DUO.half_whist_price(6)), (0, 0))


def test_rules_3_6_a_pass_gives_the_game() -> None:
    final = apply(b_declares_six(), PASS, A)
    assert final.result is not None and final.result.kind is Kind.PASSED_OUT
    assert score_deal(final).pool == (0, DUO.value(6))


def test_rules_3_6_stalingrad_leaves_only_the_whist() -> None:
    state = b_declares_six(RuleSet(players=2, stalingrad=True))
    assert legal_actions(state) == (WHIST,)
    with pytest.raises(IllegalAction, match="Stalingrad"):
        apply(state, PASS, A)


def test_rules_3_6_misere_defence_opens_with_the_dummy_controlled_by_the_opponent() -> None:
    """A misère against two hands: the dummy is played by the declarer's opponent, who alone
    sees it until the declarer's first lead; then the defence opens, the dummy with it, as any
    misère defence (§1.8; S000 opens the dummy to all only when the opponent whists). With the
    dummy at H2, A is the first hand and leads his misère."""
    on_lead = DUO.with_options(duo_dummy_hand=2)
    state = act(
        duo_deal(on_lead), "misère", "pass", "take talon", "discard A♥ K♥", "declare misère"
    )  # A: misère; B passes
    assert state.phase is Phase.PLAY and state.declarer == A and state.to_act == A
    assert not state.open_hands >> DUMMY & 1
    assert seat_view(state, A).hands[DUMMY] is None
    assert seat_view(state, B).hands[DUMMY] == mask(HAND_DUMMY)
    assert controller(state, DUMMY) == B
    led = play_lowest_one(state)
    assert led.open_hands >> DUMMY & 1 and seat_view(led, A).hands[DUMMY] is not None
    final = play_lowest(state)
    assert final.result is not None and final.result.kind is Kind.MISERE
    assert sum(final.result.tricks) == 10
    assert len(score_deal(final).pool) == 2


# --- raspasy (§3.6: the dummy takes no part, the talon is not opened) ----------------------


@pytest.mark.parametrize("dummy_hand", [1, 2])
def test_rules_3_6_raspasy_has_two_card_tricks_and_a_closed_talon(dummy_hand: int) -> None:
    """S000: "В распасах «болван» не участвует, и прикуп тоже не открывается" (whatever
    ``raspasy_talon`` says; the default is the open talon of three players)."""
    rules = RuleSet(players=2, duo_dummy_hand=dummy_hand)
    state = act(duo_deal(rules), "pass", "pass")
    assert state.phase is Phase.PLAY and state.declarer == -1 and state.to_act == A
    while state.phase is Phase.PLAY:
        for seat in (A, B):
            assert seat_view(state, seat).talon == (None, None)
            assert seat_view(state, seat).hands[DUMMY] is None
        state = play_lowest_one(state)
    result = state.result
    assert result is not None and result.kind is Kind.RASPASY
    assert all(len(trick.cards) == 2 for trick in state.play.history)
    assert all(seat != DUMMY for trick in state.play.history for seat, _ in trick.cards)
    assert state.play.hands[DUMMY] == mask(HAND_DUMMY)  # untouched
    assert result.tricks[A] + result.tricks[B] == 10 and result.tricks[DUMMY] == 0
    leaders = [trick.leader for trick in state.play.history]
    assert leaders[0] == A  # the first hand leads, then each trick's winner
    assert leaders[1:] == [trick.winner for trick in state.play.history[:-1]]
    score = score_deal(state)
    price = rules.raspasy_price(1)
    assert score.gora == (result.tricks[A] * price, result.tricks[B] * price)


def test_rules_3_6_a_raspasy_claim_gives_the_dummy_nothing() -> None:
    state = act(duo_deal(), "pass", "pass")
    claims = [a for a in legal_actions(state) if isinstance(a, Claim)]
    assert claims and all(len(c.tricks) == 3 and c.tricks[DUMMY] == 0 for c in claims)
    state = apply(state, Claim((4, 6, 0)), A)
    assert state.phase is Phase.CLAIM and state.to_act == B  # never the dummy
    final = apply(state, parse_action("accept"), B)
    assert final.result is not None and final.result.tricks == (4, 6, 0)


# --- the options (§3.6) -----------------------------------------------------------------


def test_rules_3_6_option_the_first_passer_retracts_and_declares_without_bidding() -> None:
    """S000: "Первый пасующий после паса второго игрока имеет право возвратить свой пас и
    назначить игру без торга"."""
    rules = RuleSet(players=2, duo_retract_pass=True)
    state = act(duo_deal(rules), "pass", "pass")
    assert state.phase is Phase.BIDDING and state.to_act == A
    assert legal_actions(state) == (RETRACT_PASS, PASS)
    with pytest.raises(IllegalAction, match="retract"):
        apply(state, CALLS[0], A)
    won = apply(state, RETRACT_PASS, A)
    assert won.phase is Phase.TALON and won.declarer == A and won.bid == SIX_SPADES
    won = act(won, "take talon", "discard 8♥ 7♥")
    declares = legal_actions(won)
    assert DECLARES[0] in declares and all(not a.contract.is_misere for a in declares)  # type: ignore[union-attr]
    # Letting the passes stand: raspasy as without the option.
    assert apply(state, PASS, A).phase is Phase.PLAY


def test_rules_3_6_without_the_retraction_option_two_passes_play_raspasy_at_once() -> None:
    assert act(duo_deal(), "pass", "pass").phase is Phase.PLAY


@pytest.mark.parametrize("contract", ["6♠", "7♠"])
def test_rules_3_6_option_the_whister_may_not_go_he_whists_on_his_own_cards(
    contract: str,
) -> None:
    """S000: "Вистующий не имеет права уходить и обязан или вистовать на своих картах,
    обязуясь взять в этом случае на шестерной две, на семерной и более – одну взятку, или
    вистовать на двух руках с обычными правилами, либо пасовать"."""
    rules = RuleSet(players=2, duo_whist_own_cards=True)
    state = act(duo_deal(rules), "pass", "6♠", "take talon", "discard 8♥ 7♥")
    state = act(state, f"declare {contract}")
    assert legal_actions(state) == (WHIST, OWN_CARDS_WHIST, PASS)
    with pytest.raises(IllegalAction, match="may not go"):
        apply(state, HALF_WHIST, A)
    state = apply(state, OWN_CARDS_WHIST, A)
    assert state.phase is Phase.PLAY and state.open_hands == 1 << DUMMY
    final = play_lowest(state)
    result = final.result
    assert result is not None and result.own_cards and result.whisters == (A,)
    level = int(contract[0])
    quota = 2 if level == 6 else 1
    own = result.tricks[A]
    score = score_deal(final)
    assert score.gora[A] == max(0, quota - own) * rules.shortfall_price(level)
    under = max(0, level - result.tricks[B])
    assert score.whists[A][B] == own * rules.whist_price(level) + under * rules.consolation_price(
        level
    )


def test_rules_3_6_whisting_on_own_cards_counts_only_the_whisters_tricks() -> None:
    """A six: the whister took 1 trick of his own and the dummy 3 (nobody's): he is one short of
    his 2 and writes whists for his 1 only; on two hands the same 4 tricks meet the norm."""
    six = SIX_SPADES
    rules = RuleSet(players=2, duo_whist_own_cards=True)
    own = DealResult(Kind.GAME, B, six, (1, 6, 3), (A,), (), -1, False, False, own_cards=True)
    score = score_result(rules, own)
    assert score.gora == (rules.shortfall_price(6), 0)
    assert score.whists == ((0, rules.whist_price(6)), (0, 0))
    both = own._replace(own_cards=False)
    score = score_result(rules, both)
    assert score.gora == (0, 0)
    assert score.whists == ((0, 4 * rules.whist_price(6)), (0, 0))


def test_rules_3_6_option_two_passes_redeal_without_play() -> None:
    """S000: "При двух пасах производится пересдача без розыгрыша": nothing is written, the
    raspasy streak stands and the deal passes on."""
    rules = RuleSet(players=2, duo_all_pass=DuoAllPass.REDEAL)
    final = act(duo_deal(rules), "pass", "pass")
    assert final.phase is Phase.SCORED and final.result is not None
    assert final.result.kind is Kind.REDEAL
    score = score_deal(final)
    assert score.pool == (0, 0) and score.gora == (0, 0) and score.whists == ((0, 0), (0, 0))
    game = new_game(rules, B)._replace(raspasy_streak=1, deal_number=1, deal=final)
    after, _, _ = finish_deal(game)
    assert after.dealer == A and after.raspasy_streak == 1


def test_rules_3_6_option_varenik_the_first_hand_gives_two_the_dealer_discards_two() -> None:
    """S000 "С вареником": "При двух пасах игрок на первой руке берет прикуп, показывает его
    противнику, отдает противнику две любые карты, после чего противник … сносит также две
    любые карты. Играются распасы"."""
    rules = RuleSet(players=2, duo_all_pass=DuoAllPass.VARENIK)
    state = act(duo_deal(rules), "pass", "pass")
    assert state.phase is Phase.DISCARD and state.declarer == -1 and state.to_act == A
    assert state.play.hands[A].bit_count() == 12
    talon = tuple(int(c) for c in parse_cards(TALON))
    for seat in (A, B):
        assert seat_view(state, seat).talon == talon  # shown to both
    gifts = legal_actions(state)
    assert len(gifts) == 66 and all(isinstance(a, GiveCards) for a in gifts)
    with pytest.raises(IllegalAction, match="do not hold"):
        apply(state, parse_action("give A♠ K♠"), A)
    state = apply(state, parse_action("give 8♥ 7♥"), A)
    assert state.phase is Phase.DISCARD and state.to_act == B
    assert state.play.hands[B].bit_count() == 12 and state.play.hands[A].bit_count() == 10
    assert all(isinstance(a, Discard) for a in legal_actions(state))
    assert seat_view(state, A).hands[B] is None
    state = apply(state, DISCARDS[int(Card.parse("9♠")), int(Card.parse("A♠"))], B)
    assert state.phase is Phase.PLAY and state.to_act == A and state.declarer == -1
    assert seat_view(state, B).discard == mask("9♠ A♠")
    assert seat_view(state, A).discard is None
    final = play_lowest(state)
    assert final.result is not None and final.result.kind is Kind.RASPASY
    assert final.play.tricks[A] + final.play.tricks[B] == 10


# --- the indivisible gora (§3.4) -----------------------------------------------------------


def test_rules_3_4_indivisible_gora_worked_example() -> None:
    """S000: "При расчете гору не делят пополам …, а вычитают из большей меньшую и умножают
    разницу на 10". Gora A 30, B 12; whists A on B 40, B on A 10. By hand: the difference 18 ×
    10 = 180 whists to B; with the whists A gets 40 − 10 = 30: A −150, B +150. Divided (the
    average), the gora part would be half: A −90 + 30 = −60."""
    sheet = ScoreSheet(pool=(20, 20), gora=(30, 12), whists=((0, 40), (10, 0)))
    indivisible = RuleSet(players=2, duo_indivisible_gora=True)
    assert settle(sheet, indivisible) == (Fraction(-150), Fraction(150))
    assert settle(sheet, DUO) == (Fraction(-60), Fraction(60))
    pairwise = settlement((30, 12), ((0, 40), (10, 0)), 10, indivisible=True).pairwise
    assert pairwise == ((Fraction(0), Fraction(-150)), (Fraction(150), Fraction(0)))
    # Always whole: no integer adjustment is needed (odd gora sum, 10 a point).
    assert (
        settlement((7, 4), ((0, 0), (0, 0)), 10, integer=True, indivisible=True).adjustment is None
    )


# --- option checks -----------------------------------------------------------------------


def test_rules_3_6_two_player_options_are_refused_elsewhere_and_their_conflicts() -> None:
    with pytest.raises(InvalidAction, match="two-player option"):
        RuleSet(duo_retract_pass=True)
    with pytest.raises(InvalidAction, match="two-player option"):
        RuleSet(players=4, duo_dummy_hand=2)
    with pytest.raises(InvalidAction, match="first hand"):
        RuleSet(players=2, duo_dummy_hand=3)
    refused: tuple[tuple[str, object], ...] = (
        ("bombs", True),
        ("misere_whisted", True),
        ("ten_checked", True),
        ("own_whist_levels", [6]),
        ("pass_pass_whist_levels", [8]),
    )
    for name, value in refused:
        with pytest.raises(InvalidAction, match="two players") as caught:
            RuleSet.from_dict({"players": 2, name: value})
        assert caught.value.field == f"rules.{name}"
    with pytest.raises(InvalidAction, match="four or five players"):
        RuleSet(players=2, sitter_return_whist=True)  # the dealer on the talon: none here
    with pytest.raises(InvalidAction, match="initial bomb rounds"):
        RuleSet.from_dict({"players": 2, "initial_rounds": "bombs-by-round", "initial_levels": 1})
    with pytest.raises(InvalidAction, match="rule option duo_all_pass"):
        RuleSet.from_dict({"players": 2, "duo_all_pass": "tea"})
    rules = RuleSet(
        players=2,
        duo_dummy_hand=2,
        duo_retract_pass=True,
        duo_whist_own_cards=True,
        duo_all_pass=DuoAllPass.VARENIK,
        duo_indivisible_gora=True,
    )
    assert RuleSet.from_dict(rules.to_dict()) == rules


def test_rules_3_6_new_actions_read_back_from_their_notation() -> None:
    for text in ("retract pass", "whist own cards", "give 7♣ 8♦"):
        assert str(parse_action(text)) == text
    assert parse_action("give 8♦ 7♣") == parse_action("give 7♣ 8♦")
    with pytest.raises(InvalidAction, match="two different cards"):
        parse_action("give 7♣ 7♣")  # as a discard of one card twice


# --- random whole games -------------------------------------------------------------------

OPTIONS = st.fixed_dictionaries(
    {
        "duo_dummy_hand": st.sampled_from([1, 2]),
        "duo_retract_pass": st.booleans(),
        "duo_whist_own_cards": st.booleans(),
        "duo_all_pass": st.sampled_from(["raspasy", "redeal", "varenik"]),
        "duo_indivisible_gora": st.booleans(),
        "misere_defence_choice": st.booleans(),
        "unwhisted_write_off": st.booleans(),
        "underbid_penalty": st.sampled_from(["none", "game-value"]),
    }
)


def check_cards(state: DealState) -> None:
    """Every card is in one place: a hand (the dummy's too), a trick, the discard, the talon."""
    places = [*state.play.hands, state.discard]
    for trick in state.play.history:
        places.append(sum(1 << card for _, card in trick.cards))
    places.append(sum(1 << card for _, card in state.play.trick))
    held = 0
    for place in places:
        assert not held & place
        held |= place
    talon = (1 << state.talon[0]) | (1 << state.talon[1])
    assert held | talon == FULL
    assert (held & talon) in (0, talon)


def check_views(state: DealState) -> None:
    """A seat sees the dummy's and its opponent's cards only where they lie open (or, for the
    dummy, where he plays it: its defender), the discard only if it made it, the talon only
    once shown (never on raspasy); the declarer never sees the dummy before it lies open."""
    if state.phase is Phase.SCORED:
        return
    for viewer in (A, B):
        view = seat_view(state, viewer)
        other = 1 - viewer
        seen = visible_mask(state, viewer)
        shown = (1 << state.talon[0]) | (1 << state.talon[1]) if state.talon_open else 0
        assert (state.declarer, DUMMY) not in state.peeks
        for seat in (other, DUMMY):
            lying_open = bool(state.open_hands >> seat & 1) or (viewer, seat) in state.peeks
            assert (view.hands[seat] is not None) == lying_open
            if not lying_open:  # nothing of it but the talon cards all have seen taken
                assert not seen & state.play.hands[seat] & ~shown
        if state.rules.players == 2 and not state.talon_open:
            assert view.talon == (None, None)
        maker = state.declarer if state.declarer >= 0 else state.dealer
        if state.discard and viewer != maker:
            assert view.discard is None and not seen & state.discard & ~shown
        if state.open_hands >> DUMMY & 1:
            assert state.declarer >= 0 and state.phase in (Phase.PLAY, Phase.CLAIM, Phase.REVIEW)
        assert view.legal == (legal_actions(state) if actor(state) == viewer else ())


def walk_game(rules: RuleSet, seed: bytes, rng: random.Random, deals: int) -> None:
    game = new_game(rules, rng.randrange(2))
    for _ in range(deals):
        if game.finished:
            return
        game = start_deal(game, shuffle_from_seed(seed, game.deal_number + 1))
        deal = game.deal
        assert deal is not None
        for _step in range(200):
            check_cards(deal)
            check_views(deal)
            if deal.phase is Phase.SCORED:
                break
            who = actor(deal)
            assert who in (A, B)  # the dummy never decides
            deal = apply(deal, rng.choice(seat_view(deal, who).legal), who)
        assert deal.phase is Phase.SCORED  # each deal ends
        game, score, _ = finish_deal(game._replace(deal=deal))
        assert len(score.pool) == len(score.gora) == len(score.whists) == 2


@settings(max_examples=80, deadline=None)
@given(options=OPTIONS, seed=st.binary(min_size=16, max_size=24), rng_seed=st.integers(0, 2**32))
def test_rules_3_6_random_legal_two_player_deals_keep_cards_and_secrets(
    options: dict[str, object], seed: bytes, rng_seed: int
) -> None:
    rules = RuleSet.from_dict({"players": 2, **options})
    walk_game(rules, seed, random.Random(rng_seed), deals=6)


@settings(max_examples=40, deadline=None)
@given(options=OPTIONS, seed=st.binary(min_size=16, max_size=24), rng_seed=st.integers(0, 2**32))
def test_rules_3_6_random_two_player_games_end_and_settle_to_zero(
    options: dict[str, object], seed: bytes, rng_seed: int
) -> None:
    """Whole games by ``play_game`` with random players choosing from ``SeatView.legal``: each
    ends (every pool closes) and settles to zero over two seats."""
    rules = RuleSet.from_dict({"players": 2, "pool_target": 10, **options})
    rng = random.Random(rng_seed)

    def player(view):  # type: ignore[no-untyped-def]
        assert view.seat in (A, B)
        return rng.choice(view.legal)

    record = play_game(seed, [player, player], rules, first_dealer=rng.randrange(2), max_deals=200)
    assert record.finished  # the pools closed (random games of 10 take some 5 to 40 deals)
    assert len(record.settlement) == 2 and sum(record.settlement) == 0
    assert record.deals
    for deal in record.deals:
        assert deal.final.phase is Phase.SCORED
        assert deal.final.result is not None


def test_rules_3_6_random_games_reach_every_two_player_path() -> None:
    """The random walk reaches every two-player outcome, so the properties above cover them."""
    seen: set[str] = set()
    variants: list[dict[str, object]] = [
        {"duo_all_pass": "redeal"},
        {"duo_all_pass": "varenik", "duo_retract_pass": True},
        {"duo_whist_own_cards": True, "duo_dummy_hand": 2},
        {},
    ]
    for i in range(160):
        rules = RuleSet.from_dict({"players": 2, **variants[i % len(variants)]})
        rng = random.Random(i)
        game = start_deal(new_game(rules, i % 2), shuffle_from_seed(bytes([i]) * 16, 1))
        deal = game.deal
        assert deal is not None
        while deal.phase is not Phase.SCORED:
            who = actor(deal)
            options = seat_view(deal, who).legal
            # Favour passes so that the auction often ends in two passes.
            choice: Action
            if PASS in options and deal.phase is Phase.BIDDING and rng.random() < 0.6:
                choice = PASS
            elif OWN_CARDS_WHIST in options and rng.random() < 0.5:
                choice = OWN_CARDS_WHIST
            else:
                choice = rng.choice(options)
            seen.add(type(choice).__name__)
            deal = apply(deal, choice, who)
        assert deal.result is not None
        seen.add(deal.result.kind.value)
    assert {
        "redeal",
        "raspasy",
        "game",
        "passed-out",
        "half-whist",
        "RetractPass",
        "GiveCards",
        "OwnCardsWhist",
    } <= seen


# --- the event layer ----------------------------------------------------------------------


def test_rules_3_6_two_player_games_record_replay_and_pass_the_audit() -> None:
    """Random legal two-player games through the ``Game`` aggregate, with every option: the new
    decisions are recorded as their events (``PassRetracted``, ``CardsGiven``,
    ``OwnCardsWhistCalled``), the replay of the events gives the aggregate's game, and the
    audit verifies the log."""
    rules = RuleSet(
        players=2,
        pool_target=6,
        duo_retract_pass=True,
        duo_whist_own_cards=True,
        duo_all_pass=DuoAllPass.VARENIK,
        duo_dummy_hand=2,
    )
    names: set[str] = set()
    for n in range(12):
        seed = hashlib.sha256(f"duo/{n}".encode()).digest()
        rng = random.Random(n)
        game = created_game(rules, n % 2, seed)
        game.deal_first(seed, "create")
        step = 0
        while not game.finished and step < 2000:
            step += 1
            deal = game.state.deal
            assert deal is not None
            seat = actor(deal)
            options = seat_view(deal, seat).legal
            choice: Action = rng.choice(options)
            if PASS in options and deal.phase is Phase.BIDDING and rng.random() < 0.7:
                choice = PASS
            game.act(seat, choice, f"r{step}", seed)
        assert game.finished
        events = game.collect_events()
        names.update(event_name(e) for e in events)
        state = None
        for event in events:
            state = advance(state, event)
        assert state == game.state
        report = verify(str(game.id), events)
        assert report.verified, report.summary
    assert {"PassRetracted", "CardsGiven", "OwnCardsWhistCalled", "CardsDiscarded"} <= names


def test_rules_3_6_the_dummys_empty_raspasy_tricks_end_no_series() -> None:
    """ "Exit by a zero" (``raspasy_zero_ends_series``, §3.3) counts the players only: the
    dummy, out of the raspasy, always has none (§3.6)."""
    rules = RuleSet(players=2, raspasy_zero_ends_series=True)
    final = play_lowest(act(duo_deal(rules), "pass", "pass"))
    result = final.result
    assert result is not None and result.active == 0b11 and result.tricks[DUMMY] == 0
    ended = 0 in result.tricks[:2]
    assert streak_after(rules, 1, result) == (0 if ended else 2)
    assert streak_after(rules, 1, result._replace(tricks=(4, 6, 0))) == 2
    assert streak_after(rules, 1, result._replace(tricks=(0, 10, 0))) == 0


def test_rules_3_6_varenik_discard_reaches_the_dealers_stream_only() -> None:
    """ "С вареником" the dealer discards without being a declarer: the watch stream shows him
    his discard and the other player no card of it (as a declarer's discard)."""
    from domain.rules.actions import Discard
    from domain.rules.duo_options import DuoAllPass
    from service.api.streams import build
    from service.gen.preferans.v1 import game_pb2 as pb
    from tests.unit.game_helpers import created_game

    seed = b"\x07" * 32
    game = created_game(DUO.with_options(duo_all_pass=DuoAllPass.VARENIK), seed=seed)
    game.deal_first(seed, "r0")
    replica, _ = build(game.collect_events(), None)
    for _ in range(40):
        deal = game.state.deal
        assert deal is not None
        legal = legal_actions(deal)
        action = PASS if PASS in legal else legal[0]
        discard = isinstance(action, Discard)
        game.act(actor(deal), action, f"r{game.version}", seed)
        replica, built = build(game.collect_events(), replica)
        if discard:
            break
    else:
        pytest.fail("no discard с вареником in the first deal")
    messages = [pb.WatchGameResponse.FromString(u.message) for u in built[0]]
    assert len(messages[deal.dealer].action.action.discard.cards) == 2
    assert len(messages[1 - deal.dealer].action.action.discard.cards) == 0
