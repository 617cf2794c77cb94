"""Dealing from a given shuffle (RULES.md §1.2) and the provably fair shuffle.

The rules core takes the shuffle as input. ``deal_cards`` deals a deck order in pairs, clockwise
from the first hand, with the talon pair at a given position that is neither the first nor the
last pair. ``shuffle_from_seed`` derives a deck order and talon position from a secret seed and
the deal number with SHA-256 only, so an auditor can recompute every deal once the seed is
revealed (the algorithm is specified in docs/AUDIT.md and docs/RULES-ENGINE.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from domain.rules.errors import InvalidAction
from domain.rules.seats import HANDS, hand_seats, positions

DECK_SIZE = 32
PAIRS = DECK_SIZE // 2
FIRST_TALON_PAIR = 1
LAST_TALON_PAIR = PAIRS - 2
_DECK = frozenset(range(DECK_SIZE))
"""The talon pair is dealt at a 0-based pair position in 1..14 (§1.2: not first, not last)."""


class DealtCards(NamedTuple):
    hands: tuple[int, ...]
    """Each seat's ten cards as a mask, indexed by absolute seat."""
    talon: tuple[int, int]
    """The two talon cards in dealing order."""


class Shuffle(NamedTuple):
    order: tuple[int, ...]
    """The deck from top to bottom after shuffling and cutting."""
    talon_pair: int
    """0-based position among the 16 pairs at which the dealer deals the talon."""


def deal_cards(
    order: Sequence[int],
    dealer: int,
    talon_pair: int,
    players: int = 3,
    *,
    last_pair: bool = False,
    dummy_hand: int = 1,
) -> DealtCards:
    """Deal ``order`` in pairs clockwise from the first hand, the talon at ``talon_pair``;
    with ``last_pair`` (``RuleSet.talon_last_pair``, S004) the talon is the last pair; with
    two players the dummy's hand (H``dummy_hand``) is dealt as a third player's (§3.6)."""
    if len(order) != DECK_SIZE or frozenset(order) != _DECK:
        raise InvalidAction("a deck order must hold each of the 32 cards exactly once")
    if last_pair:
        if talon_pair != PAIRS - 1:
            raise InvalidAction(f"the talon must be the last pair (got {talon_pair + 1})")
    elif not FIRST_TALON_PAIR <= talon_pair <= LAST_TALON_PAIR:
        raise InvalidAction(
            f"the talon must be pair {FIRST_TALON_PAIR + 1} to {LAST_TALON_PAIR + 1} "
            f"of {PAIRS}, neither the first nor the last (got {talon_pair + 1})"
        )
    if not 0 <= dealer < players:
        raise InvalidAction(f"no seat {dealer} at a {players}-player table")
    hands = [0] * positions(players)
    receivers = hand_seats(dealer, players, dummy_hand)
    i = 0
    for pair in range(PAIRS):
        if pair == talon_pair:
            continue
        hands[receivers[i % HANDS]] |= (1 << order[2 * pair]) | (1 << order[2 * pair + 1])
        i += 1
    t = 2 * talon_pair
    talon = (order[t], order[t + 1])
    return DealtCards(tuple(hands), talon)


def _draws(seed: bytes, deal_number: int) -> Iterator[int]:
    """An endless stream of 64-bit numbers: SHA-256(seed ‖ deal ‖ counter), 4 per block."""
    counter = 0
    while True:
        block = hashlib.sha256(
            seed + deal_number.to_bytes(4, "big") + counter.to_bytes(4, "big")
        ).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i : i + 8], "big")
        counter += 1


def _below(draws: Iterator[int], bound: int) -> int:
    """A uniform number in ``0..bound-1`` by rejection sampling (no modulo bias)."""
    limit = (1 << 64) - (1 << 64) % bound
    for value in draws:
        if value < limit:
            return value % bound
    raise AssertionError("unreachable: the draw stream is endless")


def shuffle_for(seed: bytes, deal_number: int, *, last_pair: bool = False) -> Shuffle:
    """``shuffle_from_seed``, with the talon at the last pair under ``last_pair``
    (``RuleSet.talon_last_pair``: four or five players, S004)."""
    shuffle = shuffle_from_seed(seed, deal_number)
    return shuffle._replace(talon_pair=PAIRS - 1) if last_pair else shuffle


def shuffle_from_seed(seed: bytes, deal_number: int) -> Shuffle:
    """The deck order and talon position of deal ``deal_number`` (1-based) of a game.

    Fisher–Yates from the top: for i = 31 down to 1, swap position i with a uniform j in 0..i;
    then the talon pair is 1 + a uniform number in 0..13. Each uniform number takes the next
    64-bit big-endian word of the SHA-256 stream and rejects words at or above the largest
    multiple of the bound below 2**64.
    """
    if len(seed) < 16:
        raise InvalidAction("a game seed must be at least 16 bytes")
    if deal_number < 1:
        raise InvalidAction("deals are numbered from 1")
    draws = iter(_draws(seed, deal_number))
    order = list(range(DECK_SIZE))
    for i in range(DECK_SIZE - 1, 0, -1):
        j = _below(draws, i + 1)
        order[i], order[j] = order[j], order[i]
    talon_pair = FIRST_TALON_PAIR + _below(draws, LAST_TALON_PAIR - FIRST_TALON_PAIR + 1)
    return Shuffle(tuple(order), talon_pair)


def seed_commitment(seed: bytes) -> str:
    """The public commitment to a secret seed: its SHA-256 in hex."""
    return hashlib.sha256(seed).hexdigest()
