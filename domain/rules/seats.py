"""Seats at the table and hands relative to the dealer (RULES.md §1.2).

Seats are absolute table positions ``0..n-1`` clockwise. For a given dealer, the first hand
(H1) is the seat to the dealer's left, then H2, then H3 = the dealer (three players).
"""

from __future__ import annotations

SEAT_NAMES = ("A", "B", "C")
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
