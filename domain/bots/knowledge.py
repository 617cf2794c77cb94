"""What a bot knows during card play, derived from its ``SeatView`` and nothing else.

``Table.of(view)`` collects: the hand being played (the seat's own, or the open partner's hand
the sole whister plays), the cards no one has shown (``unknown``), the suits each seat is known
to be void in (it did not follow), the trick in progress with its led suit and current winner,
and the cards each other seat may still hold.

Every deal has three hands, whatever the number of seats (RULES.md §3.6): with four players the
dealer sits on the talon, with five the dealer and the seat to his right sit out. ``Table.seats``
are the seats holding the hands (H1, H2, H3); a seat without a hand holds nothing and plays no
card. On an open-talon raspasy at four or five the talon card of tricks 1 and 2 is the dealer's
lead and wins the trick for him unless a hand beats it (§3.3 "Talon open, 4p"): the bot counts
it as the card to beat.
"""

from __future__ import annotations

from typing import NamedTuple

from domain.rules.actions import PlayCard
from domain.rules.cards import SUIT_MASKS
from domain.rules.seats import HANDS, hand_seats
from domain.rules.view import SeatView

FULL = (1 << 32) - 1


def seats_of(view: SeatView) -> tuple[int, int, int]:
    """The seats holding this deal's three hands, from the view (one entry per seat in
    ``view.hands``)."""
    return hand_seats(view.dealer, len(view.hands))


def key(card: int, led: int, trump: int) -> int:
    """Strength of ``card`` in a trick led in ``led`` (-1 if it cannot win)."""
    suit = card >> 3
    if suit == trump:
        return 100 + card
    if suit == led:
        return card
    return -1


def cards(mask: int) -> list[int]:
    """The cards of a mask, lowest first (♠7 … ♥A)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def highest(mask: int) -> int:
    """The highest card of a mask (by card number; within one suit: by rank)."""
    return mask.bit_length() - 1


def lowest(mask: int) -> int:
    """The lowest card of a mask."""
    return (mask & -mask).bit_length() - 1


class Table(NamedTuple):
    """The bot's picture of the deal at a card decision."""

    seat: int
    """The seat whose card is to be played (``view.to_act``)."""
    hand: int
    legal: int
    """Mask of the legal cards."""
    trump: int
    """Trump suit, or -1."""
    led: int
    """Suit to follow, or -1 if the lead is free."""
    best_seat: int
    """Seat currently winning the trick (-1 if no card of the led suit is down yet)."""
    best_key: int
    played_here: tuple[tuple[int, int], ...]
    later: tuple[int, ...]
    """Seats still to play to this trick after ``seat``."""
    unknown: int
    """Cards not seen by the viewer: in hidden hands (or the declarer's unseen discard)."""
    holds: tuple[int, ...]
    """Per seat: the cards it may hold (exact if its hand is visible)."""
    voids: tuple[int, ...]
    """Per seat: mask of suits (bit = suit) it is known to be void in."""
    declarer: int
    raspasy: bool
    misere: bool
    shown: int
    """Mask of seats (bit ``1 << seat``) whose hands the viewer sees."""
    seats: tuple[int, int, int]
    """The seats holding the deal's hands, H1 H2 H3 (every seat with three players)."""

    @staticmethod
    def of(view: SeatView) -> Table:
        """Build the picture from one seat's view."""
        seat = view.to_act
        hand = view.hands[seat]
        assert hand is not None
        legal = 0
        for action in view.legal:
            if type(action) is PlayCard:
                legal |= 1 << action.card
        contract = view.contract
        raspasy = view.declarer < 0
        misere = contract is not None and contract.is_misere
        trump = -1
        if contract is not None and contract.strain is not None and contract.strain < 4:
            trump = int(contract.strain)
        seen = 0
        for h in view.hands:
            if h is not None:
                seen |= h
        if view.discard is not None:
            seen |= view.discard
        players = len(view.hands)
        seats = seats_of(view)
        voids = [0] * players
        for number, trick in enumerate(view.history):
            led = _led(view, number, trick.cards)
            for who, card in trick.cards:
                seen |= 1 << card
                if card >> 3 != led:
                    voids[who] |= 1 << led
        number = len(view.history)
        led = _led(view, number, view.trick) if (view.trick or raspasy) else -1
        best_seat, best_key = -1, -1
        lead_card = view.talon[number] if raspasy and players > HANDS and number < 2 else None
        if lead_card is not None:  # the dealer's lead: it wins unless beaten (§3.3)
            best_seat, best_key = view.dealer, lead_card
        for who, card in view.trick:
            seen |= 1 << card
            k = key(card, led, trump)
            if card >> 3 != led:
                voids[who] |= 1 << led
            if k > best_key:
                best_seat, best_key = who, k
        if raspasy:
            for t in view.talon:
                if t is not None:
                    seen |= 1 << t
        unknown = FULL & ~seen
        holds = []
        for s in range(players):
            visible = view.hands[s]
            if s not in seats:
                holds.append(0)  # sitting out this deal: no hand (§3.6)
                continue
            if visible is not None:
                holds.append(visible)
                continue
            mask = unknown
            for suit in range(4):
                if (voids[s] >> suit) & 1:
                    mask &= ~SUIT_MASKS[suit]
            holds.append(mask)
        later = _later(seats, seat, view.trick)
        return Table(
            seat,
            hand,
            legal,
            trump,
            led,
            best_seat,
            best_key,
            view.trick,
            later,
            unknown,
            tuple(holds),
            tuple(voids),
            view.declarer,
            raspasy,
            misere,
            sum(1 << s for s, h in enumerate(view.hands) if h is not None),
            seats,
        )

    def others(self) -> tuple[int, int]:
        """The two other seats holding a hand (in hand order after ``seat``)."""
        i = self.seats.index(self.seat)
        return self.seats[(i + 1) % HANDS], self.seats[(i + 2) % HANDS]

    def partner(self) -> int:
        """The other defender of a contract (the seat on turn defends)."""
        return next(s for s in self.seats if s not in (self.declarer, self.seat))

    def next_hand(self) -> int:
        """The hand that plays after ``seat`` (clockwise among the hands)."""
        return self.seats[(self.seats.index(self.seat) + 1) % HANDS]

    def partners(self, a: int, b: int) -> bool:
        """True if seats ``a`` and ``b`` play on the same side (the defenders)."""
        if self.raspasy:
            return a == b
        return a == b or (a != self.declarer and b != self.declarer)

    def may_beat(self, seat: int, target: int) -> bool:
        """Could ``seat``, still to play, beat a trick strength of ``target``?"""
        holds = self.holds[seat]
        led = self.led
        if led < 0:
            return False
        follow = holds & SUIT_MASKS[led]
        if follow and not (self.voids[seat] >> led) & 1:
            return any(key(c, led, self.trump) > target for c in cards(follow))
        if self.trump >= 0:
            return any(
                key(c, led, self.trump) > target for c in cards(holds & SUIT_MASKS[self.trump])
            )
        return False

    def opponents_may_beat(self, target: int) -> bool:
        """Could any opponent still to play beat ``target``?"""
        return any(self.may_beat(s, target) for s in self.later if not self.partners(s, self.seat))


def _later(
    seats: tuple[int, int, int], seat: int, trick: tuple[tuple[int, int], ...]
) -> tuple[int, ...]:
    """The hands still to play to the trick after ``seat``, in playing order."""
    i = seats.index(seat)
    played = [who for who, _ in trick]
    return tuple(s for s in (seats[(i + 1) % HANDS], seats[(i + 2) % HANDS]) if s not in played)


def _led(view: SeatView, number: int, played: tuple[tuple[int, int], ...]) -> int:
    if view.declarer < 0 and number < 2:
        talon = view.talon[number]
        if talon is not None:
            return talon >> 3
    return played[0][1] >> 3 if played else -1
