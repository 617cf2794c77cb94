"""Four and five players (issue 13; RULES.md §3.6, §1.13, §3.1, §3.2, §3.3, §5.1 C-8): the
dealer on the talon, the player who sits out, and the four-player worked examples TV-20,
TV-23, TV-24, TV-28, TV-29, TV-30 (the settlements over four are TV-21 in
``test_recording_options`` and TV-22 in ``test_vectors_s000``).

Seats A = 0, B = 1, C = 2, D = 3 (E = 4). With D dealing four players, A is H1, B H2, C H3 and
D sits on the talon.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from domain.rules import (
    Action,
    Bid,
    DealResult,
    DealScore,
    DealState,
    DealtCards,
    InvalidAction,
    Kind,
    Phase,
    RuleSet,
    actor,
    legal_actions,
    new_deal,
    parse_cards,
    score_deal,
    score_result,
)
from domain.rules.dealing import PAIRS, deal_cards, shuffle_for
from domain.rules.game import play_game
from domain.rules.ruleset import TalonWhists
from domain.rules.seats import hand_mask, hand_seats, next_hand, sitters
from domain.rules.sitters import talon_value
from domain.rules.view import SeatView, seat_view, visible_cards
from tests.unit.rules_helpers import act, assert_illegal, cards, play_out, result, whists

A, B, C, D, E = 0, 1, 2, 3, 4
R4 = RuleSet(players=4)
R5 = RuleSet(players=5)


def deal4(a: str, b: str, c: str, talon: str, *, rules: RuleSet = R4) -> DealState:
    """A four-player deal dealt by D: A, B, C hold the hands, D none."""
    first, second = parse_cards(talon)
    return new_deal(DealtCards((cards(a), cards(b), cards(c), 0), (first, second)), D, rules)


def outcome(
    kind: Kind,
    declarer: int,
    contract: str | None,
    tricks: tuple[int, ...],
    whisters: tuple[int, ...] = (),
    passers: tuple[int, ...] = (),
    *,
    dealer: int = D,
    players: int = 4,
    talon_count: int = 0,
    talon_returned: bool = False,
    partner: int = -1,
) -> DealResult:
    """A scored deal's result at a table of ``players`` dealt by ``dealer``."""
    return result(
        kind,
        declarer,
        contract,
        tricks,
        whisters,
        passers,
        active=hand_mask(dealer, players),
        talon_seat=dealer,
        talon_count=talon_count,
        talon_returned=talon_returned,
        partner=partner,
    )


# --- seats (§3.6) --------------------------------------------------------------------------


def test_s3_6_three_hands_whatever_the_table() -> None:
    """§3.6: three players — H3 is the dealer; four — the dealer sits on the talon; five — the
    dealer and the one who dealt before him (to his right) sit out."""
    assert hand_seats(C, 3) == (A, B, C) and sitters(C, 3) == ()
    assert hand_seats(D, 4) == (A, B, C) and sitters(D, 4) == (D,)
    assert hand_seats(A, 4) == (B, C, D) and sitters(A, 4) == (A,)
    assert hand_seats(B, 5) == (C, D, E) and sitters(B, 5) == (A, B)
    assert hand_seats(A, 5) == (B, C, D) and sitters(A, 5) == (A, E)
    assert [next_hand(s, A, 5) for s in (B, C, D)] == [C, D, B]


@pytest.mark.parametrize("players", [4, 5])
def test_s3_6_sitters_get_no_cards(players: int) -> None:
    """§3.6: ten cards to each of the three hands, none to a sitter, two to the talon; the
    talon is neither the first nor the last pair (S000) or the last pair (S004 option)."""
    for dealer in range(players):
        shuffle = shuffle_for(bytes([dealer, players]) * 8, 1)
        dealt = deal_cards(shuffle.order, dealer, shuffle.talon_pair, players)
        held = hand_mask(dealer, players)
        assert [h.bit_count() for h in dealt.hands] == [
            10 if held >> s & 1 else 0 for s in range(players)
        ]
        everything = 0
        for hand in dealt.hands:
            everything |= hand
        assert everything | 1 << dealt.talon[0] | 1 << dealt.talon[1] == (1 << 32) - 1
    last = shuffle_for(b"seed" * 4, 3, last_pair=True)
    assert last.talon_pair == PAIRS - 1
    dealt = deal_cards(last.order, D, last.talon_pair, 4, last_pair=True)
    assert dealt.talon == (last.order[30], last.order[31])


def test_s3_6_a_sitter_sees_no_hand_and_acts_only_by_the_dealers_rights() -> None:
    """§3.6: the dealer on the talon holds no cards and sees none of the hands; he is never
    asked in the auction."""
    state = deal4(*_SPLIT, "7s As")
    view = seat_view(state, D)
    assert view.hand == 0 and view.legal == ()
    hands, talon = visible_cards(state, D)
    assert hands == (None, None, None, 0) and talon == (None, None)
    state = act(state, "pass", "pass")
    assert state.to_act == C  # H3, never D


# --- raspasy on the talon (§3.3 "Talon open, 4p", TV-28) ----------------------------------

_SPLIT = (
    "Ah Kh Qh Jh Th 9h 8h 7h Ad Kd",  # A: no spade
    "Ks Qd Jd Td 9d 8d 7d Ac Kc Qc",  # B: the bare king of spades
    "Qs Js Ts 9s 8s Jc Tc 9c 8c 7c",  # C: small spades
)


@pytest.mark.parametrize(
    ("talon", "winner"), [("7s As", B), ("As 7s", D)], ids=["seven-first", "ace-first"]
)
def test_tv28_raspasy_talon_order_matters(talon: str, winner: int) -> None:
    """TV-28 (S003 "Игра на прикупе"): top 7♠ → the bare K♠ must fall on it and takes the
    trick; top A♠ → the K♠ falls under it and the trick is the dealer's."""
    state = act(deal4(*_SPLIT, talon), "pass", "pass", "pass")
    assert state.raspasy and state.to_act == A
    state = act(state, "play 7h", "play K♠", "play 8♠")
    assert state.play.history[0].winner == winner
    assert state.play.tricks[winner] == 1
    # The dealer leads the second talon card whoever took the first; A leads trick 3.
    assert state.to_act == A
    state = act(state, "play 8h", "play Q♦", "play 9♠")
    assert state.play.history[1].winner == (D if talon == "7s As" else C)
    assert state.to_act == A


def test_s3_3_talon_tricks_are_written_to_the_dealer() -> None:
    """§3.3 (S000 l.557 "и в гору, и в пулю на общих основаниях"): the dealer's talon tricks
    are gora like anyone's, and with none he writes the zero bonus like a hand (S003's
    "nothing" is an option; on a closed talon he always does, S000 l.463)."""
    res = outcome(Kind.RASPASY, -1, None, (4, 0, 4, 2))
    assert score_result(R4, res) == DealScore((0, 1, 0, 0), (4, 0, 4, 2), whists({}, 4))
    free = R4.with_options(talon_tricks_penalised=False)
    assert score_result(free, res).gora == (4, 0, 4, 0)
    none = outcome(Kind.RASPASY, -1, None, (5, 0, 5, 0))
    assert score_result(R4, none).pool == (0, 1, 0, 1)
    assert score_result(R4.with_options(talon_sitter_zero_bonus=False), none).pool == (0, 1, 0, 0)
    closed = R4.with_options(raspasy_talon="closed", talon_sitter_zero_bonus=False)
    assert score_result(closed, none).pool == (0, 1, 0, 1)
    amnesty = R4.with_options(raspasy_amnesty=True)
    assert score_result(amnesty, res).gora == (4, 0, 4, 2)  # B took none: nothing off
    assert score_result(amnesty, outcome(Kind.RASPASY, -1, None, (3, 2, 4, 1))).gora == (
        2,
        1,
        3,
        0,
    )  # S000: the amnesty counts the dealer's talon tricks


# --- talon whists (TV-20, TV-29) -----------------------------------------------------------


def _sold(talon: str, contract: str, rules: RuleSet) -> int:
    state = deal4(*_SPLIT_TALON, talon, rules=rules)
    return talon_value(state.with_(contract=Bid.parse(contract)))


_SPLIT_TALON = (
    "Jh Th 9h 8h 7h Jd Td 9d 8d 7d",
    "Js Ts 9s 8s 7s Jc Tc 9c 8c 7c",
    "Qh Qd Qc Kh Kd Kc Ah Ad Ac As",
)
"""Three hands that leave K♠ Q♠ for the talon; other talons swap cards with C below."""


@pytest.mark.parametrize(
    ("talon", "tricks"),
    [("Ks Qs", 1), ("As 7s", 1), ("As Ks", 2), ("As Ah", 3), ("Ks Qh", 0), ("7s 8s", 0)],
)
def test_tv20_tv29_talon_tricks(talon: str, tricks: int) -> None:
    """TV-20/TV-29: an ace or a marriage is one trick, A+K of a suit two, two aces three."""
    rules = R4.with_options(talon_whists="tricks")
    assert _sold_any(talon, "9♥", rules) == tricks


def _sold_any(talon: str, contract: str, rules: RuleSet) -> int:
    """The talon's value with any two cards (the hands are rebuilt around them)."""
    first, second = parse_cards(talon)
    deck = [c for c in range(32) if c not in (first, second)]
    hands = (sum(1 << c for c in deck[:10]), sum(1 << c for c in deck[10:20]))
    third = sum(1 << c for c in deck[20:30])
    state = new_deal(DealtCards((*hands, third, 0), (first, second)), D, rules)
    return talon_value(state.with_(contract=Bid.parse(contract)))


def test_tv20_marriage_on_a_nine_writes_eight_whists() -> None:
    """TV-20 (S000 "Порядок записи"): a marriage in the talon, a nine declared → the dealer
    writes 8 whists on the declarer, made or not; nothing on a misère."""
    rules = R4.with_options(talon_whists="tricks")
    assert _sold("Ks Qs", "9♥", rules) == 1
    made = outcome(Kind.GAME, A, "9♥", (9, 1, 0, 0), (B,), (C,), talon_count=1)
    failed = outcome(Kind.GAME, A, "9♥", (7, 3, 0, 0), (B,), (C,), talon_count=1)
    assert score_result(rules, made).whists[D][A] == 8
    assert score_result(rules, failed).whists[D][A] == 8 + 2 * 8  # + his consolation
    assert _sold_any("Ks Qs", "misère", rules) == 0


def test_tv20_variants_fixed_values_ace_only_and_misere_sevens() -> None:
    """TV-20 variants (S000 conv.): fixed 5/10/15; "only the ace" (two aces still one trick);
    ten whists for each seven in a misère's talon."""
    fixed = R4.with_options(talon_whists="tricks", talon_whist_values=(5, 10, 15))
    two = outcome(Kind.GAME, A, "6♠", (6, 4, 0, 0), (B,), (C,), talon_count=2)
    assert score_result(fixed, two).whists[D][A] == 10
    ace = R4.with_options(talon_whists="ace-only")
    assert _sold_any("As Ah", "7♠", ace) == 1 and _sold_any("Ks Qs", "7♠", ace) == 0
    sevens = R4.with_options(talon_whists="tricks", talon_misere_seven_whists=10)
    assert _sold_any("7s 7h", "misère", sevens) == 2
    misere = outcome(Kind.MISERE, A, "misère", (0, 5, 5, 0), talon_count=2)
    assert score_result(sevens, misere).whists[D][A] == 20


# --- consolation and the returned whist (TV-23, TV-24, TV-30) -------------------------------


def test_tv23_greedy_individual_obligations_four_players() -> None:
    """TV-23 (S000 conventions): С declares 6♣ and takes 5; Ю whists and takes 0, З whists
    and takes 5; В sits on the talon → С 2 gora; В 2 whists (consolation); Ю 2 whists and 4
    gora; З 12 whists. Here С = A, Ю = B, З = C, В = D."""
    rules = R4.with_options(whist_obligations="two-whisters")
    res = outcome(Kind.GAME, A, "6♣", (5, 0, 5, 0), (B, C))
    expected = DealScore((0, 0, 0, 0), (2, 4, 0, 0), whists({(D, A): 2, (B, A): 2, (C, A): 12}, 4))
    assert score_result(rules, res) == expected
    quiet = R4.with_options(whist_obligations="two-whisters", sitter_consolation=False)
    assert score_result(quiet, res).whists[D][A] == 0


def test_tv24_dealer_returns_whist_twenty_four() -> None:
    """TV-24 (S000 conv., Sochi): both defenders pass on a six, the dealer returns the whist,
    the declarer is two down → 20 whists (6 tricks × 2 + both passers' consolation 2 × 4) and
    his own 4: 24 on the declarer; the passers write nothing."""
    rules = R4.with_options(sitter_return_whist=True)
    res = outcome(Kind.GAME, A, "6♠", (4, 3, 3, 0), (D,), (B, C))
    assert score_result(rules, res) == DealScore(
        (0, 0, 0, 0), (4, 0, 0, 0), whists({(D, A): 24}, 4)
    )


def test_tv30_talon_sitter_returns_whist_doubled_forty_eight() -> None:
    """TV-30 (S003 "Возвращение вистов"): the same with 4 whists per trick on a six → 40 and
    his own 8: 48 on the declarer."""
    doubled = {6: 4, 7: 8, 8: 12, 9: 16, 10: 20}
    rules = R4.with_options(sitter_return_whist=True, whist_prices=doubled)
    res = outcome(Kind.GAME, A, "6♠", (4, 3, 3, 0), (D,), (B, C))
    assert score_result(rules, res).whists[D][A] == 48


def test_s3_2_returned_whist_short_of_the_norm_costs_the_dealer_alone() -> None:
    """§3.2 "Two passes (4p)": the dealer answers alone for the norm ("он один уже несет
    полную ответственность"): a six made with 7 leaves the defence 3 < 4 → 1 × 2 gora."""
    rules = R4.with_options(sitter_return_whist=True)
    res = outcome(Kind.GAME, A, "6♠", (7, 2, 1, 0), (D,), (B, C))
    assert score_result(rules, res) == DealScore((2, 0, 0, 0), (0, 0, 0, 2), whists({(D, A): 6}, 4))


_SIX = (
    "As Ks Qs Js Ts Ah Kh Ad Kd Ac",  # A: a sure six of spades
    "9s 8s Qh Jh Th Qd Jd Td Kc Qc",
    "7s 9h 8h 7h 9d 8d 7d Jc Tc 9c",
    "8c 7c",
)


def test_tv24_the_returned_whist_is_played() -> None:
    """TV-24 as play: after two passes the dealer may look at one passer's cards (and only
    then sees them), return the whist and direct both open defence hands."""
    rules = R4.with_options(sitter_return_whist=True)
    state = act(deal4(*_SIX, rules=rules), "6♠", "pass", "pass", "take talon")
    state = act(state, "discard 8♣ 7♣", "declare 6♠", "pass", "pass")
    assert state.phase is Phase.WHISTING and state.to_act == D
    assert set(map(str, legal_actions(state))) == {"whist", "pass", "view 1", "view 2"}
    assert visible_cards(state, D)[0][B] is None
    state = act(state, "view 1")
    hands, _ = visible_cards(state, D)
    assert hands[B] == cards(_SIX[1]) and hands[C] is None
    assert_illegal(state, "view 2", "one passer's cards, once")
    state = act(state, "whist")
    assert state.phase is Phase.PLAY and state.whist.whisters == (D,)
    assert state.open_hands >> B & 1 and state.open_hands >> C & 1
    state = act(state, "play A♠")
    assert state.to_act == B and actor(state) == D
    state = play_out(state)
    taken = state.play.tricks[A]
    score = score_deal(state)
    assert score.whists[B][A] == score.whists[C][A] == 0
    assert score.whists[D][A] == (10 - taken) * 2 + (3 * (6 - taken) * 2 if taken < 6 else 0)


def test_s3_2_dealer_passes_then_the_game_is_given() -> None:
    """§3.2: if the dealer does not return the whist, the game is counted as made."""
    rules = R4.with_options(sitter_return_whist=True)
    state = act(deal4(*_SIX, rules=rules), "6♠", "pass", "pass", "take talon")
    state = act(state, "discard 8♣ 7♣", "declare 6♠", "pass", "pass", "pass")
    assert state.phase is Phase.SCORED and state.result is not None
    assert state.result.kind is Kind.PASSED_OUT


def test_s3_6_five_players_the_sitter_out_returns_after_the_dealer() -> None:
    """§3.6 (S000): with five the player who sits out has the dealer's rights, used after
    the dealer: asked to return the whist once the dealer passes."""
    rules = R5.with_options(sitter_return_whist=True)
    first, second = parse_cards(_SIX[3])
    hands = (cards(_SIX[0]), cards(_SIX[1]), cards(_SIX[2]), 0, 0)
    state = new_deal(DealtCards(hands, (first, second)), E, rules)  # D dealt before E
    assert sitters(E, 5) == (D, E)
    state = act(state, "6♠", "pass", "pass", "take talon", "discard 8♣ 7♣", "declare 6♠")
    state = act(state, "pass", "pass")
    assert state.to_act == E  # the dealer first
    state = act(state, "pass")
    assert state.to_act == D and state.phase is Phase.WHISTING
    state = act(state, "whist")
    assert state.whist.whisters == (D,) and state.phase is Phase.PLAY


# --- the returned talon (§3.1, C-8) and the misère partner (§3.1) ---------------------------


def test_c8_returned_talon_costs_the_dealer_the_game_value() -> None:
    """§3.1 "Talon refused (4p)": the winner leaves the talon shown to him and plays his own
    ten cards; the game's value (or 2) goes to gora — the dealer's, as S000 l.235 ("сдатчик
    пишет … в гору") and S003 write it; the refuser's (RULES.md §5.1 C-8) by agreement."""
    rules = R4.with_options(talon_return="game-value")
    state = act(deal4(*_SIX, rules=rules), "6♠", "pass", "pass")
    assert {str(a) for a in legal_actions(state)} == {"take talon", "return talon"}
    state = act(state, "return talon")
    assert state.phase is Phase.CONTRACT and state.play.hands[A] == cards(_SIX[0])
    assert visible_cards(state, B)[1] == parse_cards(_SIX[3])
    state = act(state, "declare 7♠", "pass", "pass")
    assert state.result is not None and state.result.talon_returned
    assert score_deal(state).gora == (0, 0, 0, 4)
    two = outcome(Kind.PASSED_OUT, A, "7♠", (0, 0, 0, 0), (), (B, C), talon_returned=True)
    assert score_result(R4.with_options(talon_return="two"), two).gora == (0, 0, 0, 2)
    refuser = R4.with_options(talon_return="two", talon_return_refuser_gora=True)
    assert score_result(refuser, two).gora == (2, 0, 0, 0)


def test_s3_1_misere_shared_with_the_invited_dealer() -> None:
    """§3.1 (S000): the misère winner invites the dealer, who looks at his cards; accepting,
    he shares the win or the loss equally."""
    rules = R4.with_options(misere_partner=True)
    state = act(deal4(*_SIX, rules=rules), "misère", "pass", "pass")
    assert "invite" in {str(a) for a in legal_actions(state)}
    assert visible_cards(state, D)[0][A] is None
    state = act(state, "invite")
    assert state.to_act == D and visible_cards(state, D)[0][A] == cards(_SIX[0])
    assert_illegal(state, "take talon", "accept or reject")
    state = act(state, "accept")
    assert state.partner == D and state.to_act == A
    assert "invite" not in {str(a) for a in legal_actions(state)}
    made = outcome(Kind.MISERE, A, "misère", (0, 5, 5, 0), partner=D)
    assert score_result(rules, made).pool == (5, 0, 0, 5)
    lost = outcome(Kind.MISERE, A, "misère", (3, 4, 3, 0), partner=D)
    assert score_result(rules, lost).gora == (15, 0, 0, 15)


def test_s3_6_options_of_the_dealer_need_four_or_five_players() -> None:
    """The dealer's options have no meaning with three players: refused, naming the field."""
    for options in (
        {"talon_whists": "tricks"},
        {"sitter_return_whist": True},
        {"misere_partner": True},
        {"talon_last_pair": True},
        {"sitter_consolation": False},
    ):
        with pytest.raises(InvalidAction, match="four or five players"):
            RuleSet(**options)


# --- properties over random games (2 … 5 players: 4 and 5 here) ----------------------------

_EVERYTHING = {
    "talon_whists": "tricks",
    "sitter_return_whist": True,
    "talon_return": "game-value",
    "misere_partner": True,
    "talon_misere_seven_whists": 10,
}


@pytest.mark.parametrize("players", [4, 5])
@pytest.mark.parametrize("options", [{}, _EVERYTHING], ids=["plain", "every-option"])
def test_random_games_conserve_cards_settle_to_zero_and_hide_hands(
    players: int, options: dict[str, object]
) -> None:
    """Property (issue 13): in random legal games of four and five, every deal holds each card
    once (sitters none), every settlement sums to zero, and at every step no seat sees a hand
    that is neither his nor laid open nor looked at by the dealer's right."""
    rules = RuleSet(players=players, pool_target=6, **options)  # type: ignore[arg-type]
    seen_kinds: set[Kind] = set()
    for i in range(8):
        rng = random.Random(i)

        def policy(view: SeatView, rng: random.Random = rng) -> Action:
            return rng.choice(view.legal)

        record = play_game(bytes([i, players]) * 8, [policy] * players, rules, i % players, 200)
        assert sum(record.settlement) == 0
        for deal in record.deals:
            final = deal.final
            assert final.result is not None
            seen_kinds.add(final.result.kind)
            held = final.active
            union = 1 << final.talon[0] | 1 << final.talon[1]
            for seat, hand in enumerate(final.dealt):
                assert (hand.bit_count() == 10) == bool(held >> seat & 1)
                assert not union & hand
                union |= hand
            assert union == (1 << 32) - 1
            _check_hidden_replay(final, deal.actions)
    assert Kind.RASPASY in seen_kinds and Kind.MISERE in seen_kinds


def _check_hidden_replay(final: DealState, actions: tuple[tuple[int, Action], ...]) -> None:
    """Replay a deal's actions and check every seat's view at every step."""
    from domain.rules import apply

    state = new_deal(
        DealtCards(final.dealt, final.talon),
        final.dealer,
        final.rules,
        final.raspasy_streak,
        final.dealer_run,
        final.bomb_streak,
    )
    for seat, action in actions:
        for viewer in range(state.players):
            hands, _ = visible_cards(state, viewer)
            for other, shown in enumerate(hands):
                if shown is None or other == viewer or state.phase is Phase.SCORED:
                    continue
                allowed = (
                    state.open_hands >> other & 1
                    or (viewer, other) in state.peeks
                    or state.play.hands[other] == 0
                    or (other == state.declarer and state.phase is Phase.DISCARD)
                )
                assert allowed, (viewer, other, state.phase)
        state = apply(state, action, seat)


def test_s3_6_five_player_rotation_everyone_sits_out_twice_in_five_deals() -> None:
    """§3.6 (S000): with five the previous dealer sits out during the next deal; in five
    deals each player deals once and sits out twice."""
    rng = random.Random(5)

    def policy(view: SeatView) -> Action:
        return rng.choice(view.legal)

    record = play_game(b"rotation" * 2, [policy] * 5, R5, A, 5)
    out = [0] * 5
    for number, deal in enumerate(record.deals[:5]):
        dealer = deal.dealer
        empty = {s for s, hand in enumerate(deal.final.dealt) if hand == 0}
        assert empty == {dealer, (dealer - 1) % 5}
        if deal.final.result is not None and deal.final.result.kind is not Kind.UNDERBID:
            assert dealer == number % 5  # the deal passes to the left every deal
        for s in empty:
            out[s] += 1
    assert out == [2, 2, 2, 2, 2]


# --- a hand-computed four-player pulya ------------------------------------------------------


def test_four_player_pulya_hand_computed() -> None:
    """Eleven deals of four players, pool to 10, talon whists by tricks and the dealer's
    returned whist; D deals first. Every number below is worked out by hand (S001 prices
    2/4/6/8/10, misère 10, raspasy 1 a trick with the zero bonus 1, consolation, help 10
    whists a point, settlement by the average gora).

    1. D deals; raspasy: A 4, B 3, C 1, D 2 talon tricks → gora 4, 3, 1, 2.
    2. A deals; B 6♠ made with 6, C 3 and D 1 whist → B pool 2; C 6, D 2 whists on B; the talon
       (a marriage) → A 2 whists on B.
    3. B deals; C misère made → C pool 10 (closed).
    4. C deals; D 7♥, A and B pass, C returns the whist; D takes 5 → D gora 8; C writes 5 × 4 +
       2 × (2 × 4) + his own 8 + a talon of one trick 4 = 48 on D.
    5. D deals; A 8♦ made with 8, B whists alone (C passes) → A pool 6; B 2 × 6 = 12 on A; the
       talon A+K → D 2 × 6 = 12 on A.
    6. A deals; raspasy: B 5, C 0, D 3, A 2 talon tricks → gora +2, +5, 0, +3; C's zero bonus,
       his pool closed, helps the largest open pool, A's (6; the dealer may be helped, option
       ``help_sitter``) → A pool 7, C 10 whists on A.
    7. B deals; D 6♣, C whists alone, A passes; D takes 4 → D gora 4; C 6 × 2 + 4 = 16 on D;
       A and B (the dealer) each their consolation 4 on D.
    8. C deals; A 9♠ given after two passes (C does not return the whist) → A pool 7 + 8: closes
       with 3, 5 help B (the largest open pool, 2) → B pool 7, A 50 whists on B; the talon, two
       aces → C 3 × 8 = 24 on A.
    9. D deals; B 6♥ made with 6, A whists alone with 4 → B pool 9; A 8 on B.
    10. A deals; B 7♠ made, C and D whist with 2 and 1 → C 8, D 4 on B; B closes with 1, 3
        help D (0) → D pool 3, B 30 whists on D.
    11. B deals; D misère made → D closes with 7; 3 left, no pool open → off his own gora:
        17 → 14. Every pool is closed: the game ends.

    Gora A 6, B 8, C 1, D 14 (mean 7.25). Whists written: A→B 60, A→D 4, B→A 12, B→D 34,
    C→A 34, C→B 14, C→D 64, D→A 12, D→B 6; net A +6, B −34, C +112, D −84. Settlement
    = net + 10 × (mean − gora): A +18.5, B −41.5, C +174.5, D −151.5 (sum 0).
    """
    from domain.rules.dealing import Shuffle
    from domain.rules.game import finish_deal, new_game, start_deal
    from domain.rules.scoresheet import settle_final

    rules = RuleSet(
        players=4,
        pool_target=10,
        talon_whists=TalonWhists.TRICKS,
        sitter_return_whist=True,
        help_sitter=True,
    )
    plan: list[tuple[int, DealResult]] = [
        (D, outcome(Kind.RASPASY, -1, None, (4, 3, 1, 2), dealer=D)),
        (A, outcome(Kind.GAME, B, "6♠", (0, 6, 3, 1), (C, D), dealer=A, talon_count=1)),
        (B, outcome(Kind.MISERE, C, "misère", (0, 0, 0, 0), dealer=B)),
        (C, outcome(Kind.GAME, D, "7♥", (2, 3, 0, 5), (C,), (A, B), dealer=C, talon_count=1)),
        (D, outcome(Kind.GAME, A, "8♦", (8, 1, 1, 0), (B,), (C,), dealer=D, talon_count=2)),
        (A, outcome(Kind.RASPASY, -1, None, (2, 5, 0, 3), dealer=A)),
        (B, outcome(Kind.GAME, D, "6♣", (1, 0, 5, 4), (C,), (A,), dealer=B)),
        (C, outcome(Kind.PASSED_OUT, A, "9♠", (0,) * 4, (), (D, B), dealer=C, talon_count=3)),
        (D, outcome(Kind.GAME, B, "6♥", (4, 6, 0, 0), (A,), (C,), dealer=D)),
        (A, outcome(Kind.GAME, B, "7♠", (0, 7, 2, 1), (C, D), dealer=A)),
        (B, outcome(Kind.MISERE, D, "misère", (0, 0, 0, 0), dealer=B)),
    ]
    game = new_game(rules, first_dealer=D)
    for dealer, res in plan:
        assert not game.finished and game.dealer == dealer
        game = start_deal(game, Shuffle(tuple(range(32)), 5))
        deal = game.deal
        assert deal is not None
        game = game._replace(deal=deal.with_(phase=Phase.SCORED, result=res))
        game, _, _ = finish_deal(game)
    assert game.finished
    sheet = game.sheet
    assert sheet.pool == (10, 10, 10, 10)
    assert sheet.gora == (6, 8, 1, 14)
    assert sheet.whists == whists(
        {
            (A, B): 60,
            (A, D): 4,
            (B, A): 12,
            (B, D): 34,
            (C, A): 34,
            (C, B): 6 + 8,
            (C, D): 64,
            (D, A): 12,
            (D, B): 2 + 4,
        },
        4,
    )
    totals = settle_final(sheet, rules)
    assert totals == (Fraction(37, 2), Fraction(-83, 2), Fraction(349, 2), Fraction(-303, 2))
    assert sum(totals) == 0


# --- Classic with four players (issue 12's four-player options, S000 "КЛАССИКА") ----------


def _classic4(**options: object) -> RuleSet:
    from domain.rules.systems import rule_set

    return rule_set("classic").with_options(players=4, **options)


def _initial_rounds(rules: RuleSet) -> tuple[tuple[int, ...], ...]:
    """Play the initial bomb rounds (three levels × four dealers) by random legal actions and
    return the bomb signs each seat owes after them."""
    from domain.rules import apply
    from domain.rules.game import finish_deal, start_deal, with_deal
    from domain.rules.game import new_game as new_pulya
    from domain.rules.start import initial_deals

    rng = random.Random(26)
    game = new_pulya(rules, first_dealer=A)
    for number in range(1, initial_deals(rules) + 1):
        game = start_deal(game, shuffle_for(b"tv26" * 4, number))
        deal = game.deal
        assert deal is not None and deal.bomb >= 1  # an initial bomb: no auction
        while deal.phase is not Phase.SCORED:
            deal = apply(deal, rng.choice(legal_actions(deal)), actor(deal))
        game, _, _ = finish_deal(with_deal(game, deal))
    return game.bomb_signs


def test_tv26_four_players_nine_bombs_each_the_dealer_none() -> None:
    """TV-26 (S000 "КЛАССИКА"): after three initial bomb rounds with four players each has 9
    bombs ("Сидящий на прикупе бомб не получает"); under the variant in which the dealer gets
    a bomb too (l.641), each has 12."""
    signs = _initial_rounds(_classic4())
    assert [len(s) for s in signs] == [9, 9, 9, 9]
    assert [sorted(s) for s in signs] == [[1, 1, 1, 2, 2, 2, 3, 3, 3]] * 4
    every = _initial_rounds(_classic4(dealer_bomb_sign=True))
    assert [len(s) for s in every] == [12, 12, 12, 12]


_BOMB_HANDS = (
    "Ah Kh Qh Jh Th 9h 8h 7h Ad Kd",
    "Ks Qd Jd Td 9d 8d 7d Ac Kc Qc",
    "Qs Js Ts 9s 8s Jc Tc 9c 8c 7c",
)


def test_s000_l655_extended_dealer_rights_the_dealer_joins_a_bomb() -> None:
    """S000 l.655 (extended dealer rights): once a hand has declared a bomb and the others
    passed, the dealer declares "on the last hand": joining, he gets the sign and each talon
    trick costs him twice the bomb's price; passing, the bomb's price."""
    rules = _classic4(dealer_joins_bomb=True, initial_rounds="none", initial_levels=0)
    state = deal4(*_BOMB_HANDS, "As 7s", rules=rules)
    state = act(state, "bomb", "look", "pass", "look", "pass")
    assert state.to_act == D and {str(a) for a in legal_actions(state)} == {"bomb", "pass"}
    joined = act(state, "bomb")
    assert joined.raspasy and joined.bombers == 1 << A | 1 << D and joined.bomb == 1
    res = outcome(Kind.RASPASY, -1, None, (3, 3, 3, 1))
    score = score_result(rules, res, bomb=1, bombers=joined.bombers)
    assert score.gora == (6, 6, 6, 4) and score.pool == (0, 0, 0, 0)
    passed = act(state, "pass")
    assert passed.bombers == 1 << A
    assert score_result(rules, res, bomb=1, bombers=passed.bombers).gora == (6, 6, 6, 2)
    zero = outcome(Kind.RASPASY, -1, None, (4, 3, 3, 0))
    assert score_result(rules, zero, bomb=1, bombers=passed.bombers).pool == (0, 0, 0, 2)


def test_s000_l641_the_dealer_gets_every_bombs_sign() -> None:
    """S000 l.641: a variant in which the dealer with four players gets the bomb too."""
    rules = _classic4(dealer_bomb_sign=True, initial_rounds="none", initial_levels=0)
    state = deal4(*_BOMB_HANDS, "As 7s", rules=rules)
    state = act(state, "bomb", "look", "pass", "look", "pass")
    assert state.raspasy and state.bombers == 1 << A | 1 << D
    with pytest.raises(InvalidAction, match="joins a bomb only where"):
        _classic4(dealer_bomb_sign=True, dealer_joins_bomb=True)
    with pytest.raises(InvalidAction, match="four or five players"):
        RuleSet(bombs=True, dealer_joins_bomb=True)


def test_s3_6_claims_split_the_tricks_among_the_hands_only() -> None:
    """A claim gives the remaining tricks to the three hands, none to the dealer on the
    talon; on raspasy no claim while the talon cards may still take tricks for him."""
    from domain.rules.actions import Claim

    state = act(deal4(*_SIX), "6♠", "pass", "pass", "take talon", "discard 8♣ 7♣")
    state = act(state, "declare 6♠", "whist", "whist")
    claims = [a for a in legal_actions(state) if isinstance(a, Claim)]
    assert len(claims) == 66 and all(len(c.tricks) == 4 and c.tricks[D] == 0 for c in claims)
    assert_illegal(state, "claim 0-0-0-10", "three hands")
    raspasy = act(deal4(*_SPLIT, "7s As"), "pass", "pass", "pass")
    assert not [a for a in legal_actions(raspasy) if isinstance(a, Claim)]
    raspasy = act(raspasy, "play 7h", "play K♠", "play 8♠", "play 8h", "play Q♦", "play 9♠")
    assert [a for a in legal_actions(raspasy) if isinstance(a, Claim)]


def test_s3_3_exit_by_a_zero_counts_the_hands_only() -> None:
    """§3.3 "Exit by a zero" with four players: the dealer's talon taking nothing is no zero
    of a player; a hand's zero still ends the series."""
    from domain.rules.raspasy import streak_after

    rules = R4.with_options(raspasy_zero_ends_series=True)
    assert streak_after(rules, 0, outcome(Kind.RASPASY, -1, None, (4, 3, 3, 0))) == 1
    assert streak_after(rules, 0, outcome(Kind.RASPASY, -1, None, (5, 0, 3, 2))) == 0


# --- found in review ------------------------------------------------------------------------


def _returned(rules: RuleSet) -> DealState:
    state = act(deal4(*_SIX, rules=rules), "6♠", "pass", "pass", "take talon")
    return act(state, "discard 8♣ 7♣", "declare 6♠", "pass", "pass", "whist")


def test_s3_2_a_claim_in_a_returned_whist_is_answered_by_the_dealer() -> None:
    """The dealer who returned the whist answers the declarer's claim for the defence (the
    passers have no stake), and his own claim is answered by the declarer."""
    from domain.rules.actions import ACCEPT, REJECT, Claim

    rules = R4.with_options(sitter_return_whist=True)
    state = apply_as(_returned(rules), Claim((10, 0, 0, 0)))
    assert state.phase is Phase.CLAIM and state.to_act == D
    done = apply_as(state, ACCEPT)
    assert done.phase is Phase.SCORED and done.result is not None
    assert done.result.tricks == (10, 0, 0, 0)
    assert apply_as(state, REJECT).phase is Phase.PLAY
    state = act(_returned(rules), "play A♠")
    assert actor(state) == D
    mine = apply_as(state, Claim((1, 5, 4, 0)))
    assert mine.to_act == A
    assert apply_as(mine, ACCEPT).phase is Phase.SCORED


def apply_as(state: DealState, action: Action) -> DealState:
    from domain.rules import apply

    return apply(state, action, actor(state))


def test_s3_1_a_dealer_who_declines_the_misere_stops_seeing_the_declarers_cards() -> None:
    """RULES.md §3.1 "Inviting the dealer to misère": declining the invitation he takes no
    part, so his look at the declarer's cards ends with it."""
    rules = R4.with_options(misere_partner=True)
    state = act(deal4(*_SIX, rules=rules), "misère", "pass", "pass", "invite", "reject")
    assert state.partner == -1 and visible_cards(state, D)[0][A] is None


def test_a17_no_returned_whist_on_a_checked_ten() -> None:
    """A checked ten (A-17) carries no defence to return: two passes give it."""
    rules = R4.with_options(sitter_return_whist=True, ten_checked=True, ten_whisted=False)
    hand = "As Ks Qs Js Ts 9s Ah Kh Ad Kd"
    state = deal4(hand, "8s 7s Qh Jh Th Qd Jd Td Kc Qc", "9h 8h 7h 9d 8d 7d Jc Tc 9c 8c",
                  "Ac 7c", rules=rules)  # fmt: skip
    state = act(state, "6♠", "pass", "pass", "take talon", "discard A♣ 7♣", "declare 10♠")
    state = act(state, "pass", "pass")
    assert state.phase is Phase.SCORED


def test_s3_1_the_partners_own_talon_whists_are_not_shared() -> None:
    """Sharing the misère splits what is written on the declarer, not what the partner
    himself writes on him for the talon."""
    rules = R4.with_options(misere_partner=True, talon_misere_seven_whists=10)
    res = outcome(Kind.MISERE, A, "misère", (2, 4, 4, 0), partner=D, talon_count=1)
    score = score_result(rules, res)
    assert score.whists[D][A] == 10 and score.whists[D][D] == 0
    assert score.gora == (10, 0, 0, 10)


def test_s3_5_s3_6_sitters_write_at_the_old_hierarchys_prices() -> None:
    """RULES.md §3.5 "Classic" (the old hierarchy, ``strain_price_steps``) with §3.6: the
    sitter's consolation is priced like the passer's (S000: "пасовавший и сидящий на прикупе
    пишут")."""
    rules = R4.with_options(strain_price_steps=(0, 2, 4, 6, 8))
    res = outcome(Kind.GAME, A, "7NT", (5, 3, 2, 0), (B,), (C,))
    score = score_result(rules, res)
    assert score.whists[D][A] == score.whists[C][A] > 0


def test_s3_1_misere_sevens_need_no_trick_talon_whists() -> None:
    """RULES.md §3.1 "Talon whists (4p dealer)": the sevens on a misère are a convention of
    their own (S000 l.235), written without trick talon whists."""
    rules = R4.with_options(talon_misere_seven_whists=10)
    assert _sold_any("7s 7h", "misère", rules) == 2
    assert _sold_any("As Ah", "7♠", rules) == 0


def test_s000_l653_birds_every_raspasy_player_the_dealer_included() -> None:
    """S000 l.653 "Все игроки при распасах ставят птичку, в том числе и сдатчик": with four
    the dealer on the talon gets his bird too."""
    from domain.rules.birds import sign_givers
    from domain.rules.systems import rule_set

    rules = rule_set("classic-simple").with_options(players=4)
    state = act(deal4(*_SPLIT, "7s As", rules=rules), "pass", "pass", "pass")
    state = play_out(state)
    assert sign_givers(state) == 0b1111
