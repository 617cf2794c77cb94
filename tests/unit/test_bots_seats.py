"""The bots at a table of four or five (RULES.md §3.6): every deal has three hands, H1 H2 H3 to
the dealer's left; with four the dealer sits on the talon, with five the seat to his right sits
out as well. A bot's play depends only on the three hands, so a bot holding H2's cards at a
table of five must decide exactly as it does holding them at a table of three: the tests replay
three-player deals and ask the bots again with every seat moved to where that hand sits at the
larger table. A seat without a hand, when asked, answers with a legal action. Only the raspasy
tricks led by an open talon card differ (at four and five the talon card wins for the dealer
unless beaten): there the bot ducks under the talon card.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

import pytest

from domain.bots import Bot, make_bot
from domain.bots.knowledge import Table
from domain.rules import (
    DEFAULT,
    MISERE,
    PASS,
    WHIST,
    Action,
    Bid,
    Claim,
    DealState,
    Phase,
    RuleSet,
    SeatView,
    deal_cards,
    mask_of,
    new_deal,
    parse_cards,
    play_deal,
    shuffle_from_seed,
)
from domain.rules.actions import ACCEPT, BOMB, PLAYS, REJECT, VIEW_HANDS
from domain.rules.seats import hand_seats
from domain.rules.state import Trick
from domain.rules.systems import CLASSIC, LENINGRAD, ROSTOV, SOCHI

T = TypeVar("T")

LARGER = ((4, 0), (4, 1), (4, 2), (4, 3), (5, 0), (5, 1), (5, 2), (5, 3), (5, 4))
"""(players, dealer) of the larger tables each three-player view is moved to."""


def relabel(view: SeatView, players: int, dealer: int) -> SeatView:
    """``view`` moved to a table of ``players`` dealt by ``dealer``: the seat holding hand Hk
    at three goes to the seat holding Hk at the larger table; the others hold nothing."""
    to = dict(zip(hand_seats(view.dealer, 3), hand_seats(dealer, players), strict=True))
    to[-1] = -1

    def by_seat(values: tuple[T, ...], empty: T) -> tuple[T, ...]:
        out = [empty] * players
        for s, value in enumerate(values):
            out[to[s]] = value
        return tuple(out)

    def mask(bits: int) -> int:
        return sum(1 << to[s] for s in range(3) if bits >> s & 1)

    def calls(seq: tuple[tuple[int, Action], ...]) -> tuple[tuple[int, Action], ...]:
        return tuple((to[s], a) for s, a in seq)

    def played(seq: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
        return tuple((to[s], c) for s, c in seq)

    claim = view.claim
    if claim is not None:
        claim = claim._replace(
            claimant=to[claim.claimant],
            tricks=by_seat(claim.tricks, 0),
            accepted=mask(claim.accepted),
            resume=to[claim.resume],
        )
    return view._replace(
        seat=to[view.seat],
        dealer=dealer,
        to_act=to[view.to_act],
        actor=to[view.actor],
        hands=by_seat(view.hands, None),
        dealt=None if view.dealt is None else by_seat(view.dealt, 0),
        auction=calls(view.auction),
        declarer=to[view.declarer],
        whist_calls=calls(view.whist_calls),
        whisters=tuple(to[s] for s in view.whisters),
        trick=played(view.trick),
        leader=to[view.leader],
        history=tuple(Trick(to[t.leader], played(t.cards), to[t.winner]) for t in view.history),
        tricks=by_seat(view.tricks, 0),
        claim=claim,
        legal=tuple(Claim(by_seat(a.tricks, 0)) if isinstance(a, Claim) else a for a in view.legal),
        unseen=mask(view.unseen),
        bombers=mask(view.bombers),
    )


def talon_lead(view: SeatView) -> bool:
    """A raspasy trick whose suit an open talon card sets: at four or five seats that card is
    the dealer's lead and wins unless beaten (§3.3 "Talon open, 4p"); at three it never wins."""
    n = len(view.history)
    return view.phase is Phase.PLAY and view.declarer < 0 and n < 2 and view.talon[n] is not None


def mirrored(bot: Bot, asked: list[int]) -> Callable[[SeatView], Action]:
    """A policy playing ``bot``'s decision, after checking that the same bot decides the same
    at every larger table (``asked`` counts the decisions compared)."""

    def policy(view: SeatView) -> Action:
        action = bot.decide(view)
        assert action in view.legal
        if talon_lead(view):
            return action  # the larger table's rule differs here: tested on its own below
        for players, dealer in LARGER:
            moved = relabel(view, players, dealer)
            assert bot.decide(moved) == action, (players, dealer, view.phase, action)
        asked[0] += 1
        return action

    return policy


def deal(number: int, rules: RuleSet) -> DealState:
    """A random three-player deal, dealt by each seat in turn."""
    seed = hashlib.sha256(f"test-bots-seats/{number}".encode()).digest()
    shuffle = shuffle_from_seed(seed, 1)
    dealer = number % 3
    return new_deal(deal_cards(shuffle.order, dealer, shuffle.talon_pair), dealer, rules)


@pytest.mark.parametrize("rules", [DEFAULT, SOCHI, LENINGRAD, ROSTOV, CLASSIC], ids=str)
def test_a_bot_plays_a_hand_alike_at_three_four_and_five_seats(rules: RuleSet) -> None:
    """§3.6: the three hands are H1 H2 H3 whatever the table; only their seats move."""
    asked = [0]
    bots = [mirrored(make_bot(style), asked) for style in ("cautious", "normal", "bold")]
    played = 0
    for number in range(12):
        final, _ = play_deal(deal(number, rules), bots)
        assert final.phase is Phase.SCORED
        played += len(final.play.history)
    assert played > 0 and asked[0] > 100


def four_seat_play_view() -> SeatView:
    """Four seats, A (seat 0) dealing and sitting on the talon; B declares 6♠, D leads ♥A and C
    is to play (from the hand ♥7 ♥K ♠8)."""
    hand = mask_of(parse_cards("7♥ K♥ 8♠"))
    return SeatView(
        seat=2,
        dealer=0,
        phase=Phase.PLAY,
        to_act=2,
        actor=2,
        hand=hand,
        hands=(None, None, hand, None),
        dealt=None,
        talon=(None, None),
        discard=None,
        auction=(),
        declarer=1,
        bid=Bid.parse("6♠"),
        contract=Bid.parse("6♠"),
        whist_calls=((2, WHIST), (3, WHIST)),
        whisters=(2, 3),
        open_defence=False,
        trick=((3, int(parse_cards("A♥")[0])),),
        leader=3,
        history=(),
        tricks=(0, 0, 0, 0),
        claim=None,
        raspasy_streak=0,
        legal=(PLAYS[int(parse_cards("7♥")[0])], PLAYS[int(parse_cards("K♥")[0])]),
    )


def test_the_dealer_on_the_talon_holds_no_card_and_plays_no_part_in_the_trick() -> None:
    """§3.6 (4 players): the dealer gets no hand; the bot counts him out of the play."""
    table = Table.of(four_seat_play_view())
    assert table.seats == (1, 2, 3)
    assert table.holds[0] == 0
    assert table.later == (1,)  # after C only the declarer B, never the dealer A
    assert table.partner() == 3 and table.next_hand() == 3
    assert table.others() == (3, 1)


def test_partner_winning_the_trick_the_defender_plays_low() -> None:
    """C's partner D is winning with the ace: C plays the seven, whatever seat the dealer has."""
    view = four_seat_play_view()
    action = make_bot()(view)
    assert str(action) == "7♥"


@pytest.mark.parametrize(
    ("phase", "legal"),
    [
        (Phase.BIDDING, (BOMB, PASS)),  # the dealer may join a bomb (S000 l.655)
        (Phase.WHISTING, (WHIST, PASS, VIEW_HANDS[2], VIEW_HANDS[3])),  # the returned whist
    ],
)
def test_a_seat_without_a_hand_joins_no_bomb_and_returns_no_whist(
    phase: Phase, legal: tuple[Action, ...]
) -> None:
    """§3.6, the dealer's rights: he holds no card; the bot passes."""
    view = four_seat_play_view()._replace(
        seat=0, to_act=0, actor=0, hand=0, phase=phase, legal=legal, hands=(0, None, None, None)
    )
    assert make_bot().decide(view) == PASS


@pytest.mark.parametrize(
    ("declarer", "expected"),
    [("7♠ 9♠ J♠ 7♣ 9♣ 8♦ 7♥ 9♥ J♥ K♥", ACCEPT), ("A♠ 9♠ J♠ 7♣ 9♣ 8♦ 7♥ 9♥ J♥ K♥", REJECT)],
)
def test_the_dealer_shares_a_misere_only_with_a_safe_hand(declarer: str, expected: Action) -> None:
    """§3.6 (misère partner, S000): the dealer invited to share a misère looks at the
    declarer's cards and accepts when they are as safe as a bot's own misère would be."""
    shown = mask_of(parse_cards(declarer))
    view = four_seat_play_view()._replace(
        seat=0,
        to_act=0,
        actor=0,
        hand=0,
        phase=Phase.TALON,
        bid=MISERE,
        contract=None,
        whist_calls=(),
        whisters=(),
        trick=(),
        hands=(0, shown, None, None),
        legal=(ACCEPT, REJECT),
    )
    assert make_bot().decide(view) == expected


def four_seat_raspasy_view(talon: str, hand: str) -> SeatView:
    """Four seats, A dealing and sitting on the talon; raspasy, trick 1: the talon card is
    turned and B (H1) is first to play."""
    base = four_seat_play_view()
    mask = mask_of(parse_cards(hand))
    (card,) = parse_cards(talon)
    led = [c for c in parse_cards(hand) if c.suit == card.suit]
    return base._replace(
        seat=1,
        to_act=1,
        actor=1,
        hand=mask,
        hands=(None, mask, None, None),
        talon=(int(card), None),
        declarer=-1,
        bid=None,
        contract=None,
        whist_calls=(),
        whisters=(),
        open_defence=None,
        trick=(),
        leader=1,
        legal=tuple(PLAYS[int(c)] for c in led),
    )


@pytest.mark.parametrize(
    ("talon", "hand", "expected"),
    [("10♥", "9♥ K♥ 7♠ 8♠", "9♥"), ("8♥", "J♥ K♥ 7♠ 8♠", "K♥"), ("A♥", "9♥ K♥ 7♠", "K♥")],
)
def test_on_raspasy_at_four_the_bot_ducks_under_the_dealers_talon_card(
    talon: str, hand: str, expected: str
) -> None:
    """§3.3 "Talon open, 4p" (TV-28): the talon card takes the trick for the dealer unless a
    hand beats it, so the first hand plays the highest card below it; with none below, he is
    over it anyway and sheds his highest."""
    view = four_seat_raspasy_view(talon, hand)
    table = Table.of(view)
    assert table.best_seat == 0 and table.best_key == int(parse_cards(talon)[0])
    assert str(make_bot()(view)) == expected
