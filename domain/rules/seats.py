"""Seats at the table and hands relative to the dealer (RULES.md §1.2).

Seats are absolute table positions ``0..n-1`` clockwise. For a given dealer, the first hand
(H1) is the seat to the dealer's left, then H2, then H3. Every deal has three hands (§3.6):
with three players H3 is the dealer; with four the dealer "sits on the talon" and holds no hand;
with five the dealer and the player who dealt before him (the seat to his right) hold none.
With two players ("гусарик", §3.6) the third hand is a dummy ("болван") at the agreed hand (H1
or H2, ``RuleSet.duo_dummy_hand``); it is no seat but position ``DUMMY`` (2) of the deal-level
tuples (dealt, hands, tricks), which therefore have ``positions(players)`` entries.
"""

from __future__ import annotations

SEAT_NAMES = ("A", "B", "C", "D", "E")
"""Default seat labels for display (seat 0, 1, 2 clockwise), as in the seeds' examples."""


def next_seat(seat: int, players: int = 3) -> int:
    """The seat to the left (clockwise)."""
    return (seat + 1) % players


def first_hand(dealer: int, players: int = 3) -> int:
    """The seat of the first hand: the dealer's left."""
    return (dealer + 1) % players


def hand_number(dealer: int, seat: int, players: int = 3) -> int:
    """1 for the first hand, 2 for the second, 3 for the third (the dealer in 3-player)."""
    return (seat - dealer - 1) % players + 1


def seat_of_hand(dealer: int, hand: int, players: int = 3) -> int:
    """The seat that holds hand ``hand`` (1-based) for ``dealer``."""
    return (dealer + hand) % players


def next_dealer(dealer: int, players: int = 3) -> int:
    """After every deal, raspasy included, the deal passes to the left (§1.2)."""
    return (dealer + 1) % players


def seat_name(seat: int) -> str:
    return SEAT_NAMES[seat] if 0 <= seat < len(SEAT_NAMES) else f"seat {seat}"


HANDS = 3
"""Hands in every deal, whatever the number of players (§3.6)."""


DUMMY = 2
"""The dummy's position in a two-player deal's tuples (it follows the two seats 0 and 1)."""


def positions(players: int) -> int:
    """The length of a deal's per-hand tuples: the seats, and with two players the dummy."""
    return players if players >= HANDS else HANDS


def hand_seats(dealer: int, players: int = 3, dummy_hand: int = 1) -> tuple[int, int, int]:
    """The seats of H1, H2 and H3 for ``dealer`` (§3.6; the dealer's own with three players).
    With two players the dealer is H3, the dummy (``DUMMY``) is H``dummy_hand`` and his
    opponent the other of H1 and H2."""
    if players == 2:
        return _DUO_HAND_SEATS[dummy_hand][dealer]
    return _HAND_SEATS[players][dealer]


def hand_mask(dealer: int, players: int = 3) -> int:
    """The mask (bit ``1 << seat``) of the seats holding a hand this deal (with two players the
    dummy's position too)."""
    return _HAND_MASKS[players][dealer]


def sitters(dealer: int, players: int = 3) -> tuple[int, ...]:
    """The seats without a hand this deal: none with three players; the dealer with four; the
    dealer and the seat to his right (who dealt before him) with five (§3.6)."""
    held = hand_mask(dealer, players)
    return tuple(s for s in range(players) if not held >> s & 1)


def next_hand(seat: int, dealer: int, players: int = 3, dummy_hand: int = 1) -> int:
    """The next seat clockwise that holds a hand this deal (H1 → H2 → H3 → H1); a table
    lookup, as it runs for every card played (``_NEXT_HAND``)."""
    return _NEXT_HAND[players, dummy_hand][dealer][seat]


def _next_hands(players: int, dummy_hand: int) -> tuple[tuple[int, ...], ...]:
    """For each dealer, each position's next hand (a sitter's: the hand after his seat)."""
    rows = []
    for dealer in range(players):
        if players == 2:
            order = _DUO_HAND_SEATS[dummy_hand][dealer]
            rows.append(tuple(order[(order.index(s) + 1) % HANDS] for s in range(HANDS)))
            continue
        rows.append(
            tuple(
                (dealer + 1 + ((s - dealer - 1) % players + 1) % HANDS) % players
                for s in range(players)
            )
        )
    return tuple(rows)


_HAND_SEATS: dict[int, tuple[tuple[int, int, int], ...]] = {
    n: tuple(((dealer + 1) % n, (dealer + 2) % n, (dealer + 3) % n) for dealer in range(n))
    for n in (3, 4, 5)
}
_DUO_HAND_SEATS: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: tuple((DUMMY, 1 - dealer, dealer) for dealer in range(2)),
    2: tuple((1 - dealer, DUMMY, dealer) for dealer in range(2)),
}
_HAND_MASKS = {
    n: tuple(sum(1 << s for s in set(seats)) for seats in rows) for n, rows in _HAND_SEATS.items()
}
_HAND_MASKS[2] = (0b111, 0b111)
_NEXT_HAND = {(n, d): _next_hands(n, d) for n in (2, 3, 4, 5) for d in (1, 2)}
