"""Dealing and the provably fair shuffle (RULES.md §1.2; DESIGN.md "Security model").

``shuffle_from_seed`` is what an auditor recomputes once a game's seed is revealed, so its
algorithm is pinned here twice: by an independent re-implementation of the documented steps
and by a golden deal. ``deal_cards`` deals in pairs clockwise from the first hand, the talon
pair neither first nor last.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from domain.rules import (
    CARDS,
    InvalidAction,
    Shuffle,
    deal_cards,
    format_cards,
    seed_commitment,
    shuffle_from_seed,
)

SEEDS = st.binary(min_size=16, max_size=32)
NUMBERS = st.integers(min_value=1, max_value=100_000)
GOLDEN_SEED = bytes(range(16))


def documented_shuffle(seed: bytes, deal_number: int) -> Shuffle:
    """The algorithm as documented, written independently: 64-bit big-endian words of
    SHA-256(seed ‖ deal number (4 bytes BE) ‖ counter (4 bytes BE)), four per block; a uniform
    number below n rejects words ≥ 2**64 − 2**64 mod n and takes the word mod n; Fisher–Yates
    for i = 31 … 1 swaps i with a uniform j in 0..i; then the talon pair is 1 + uniform(14)."""

    def stream() -> Iterator[int]:
        counter = 0
        while True:
            message = seed + deal_number.to_bytes(4, "big") + counter.to_bytes(4, "big")
            block = hashlib.sha256(message).digest()
            yield from (int.from_bytes(block[i : i + 8], "big") for i in (0, 8, 16, 24))
            counter += 1

    words = stream()

    def uniform(n: int) -> int:
        limit = 2**64 - 2**64 % n
        return next(w for w in words if w < limit) % n

    deck = list(range(32))
    for i in range(31, 0, -1):
        j = uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return Shuffle(tuple(deck), 1 + uniform(14))


# --- shuffle_from_seed -----------------------------------------------------------------------


def test_golden_first_deal() -> None:
    """The first deal of a fixed seed, pinned: the audited algorithm cannot change silently."""
    shuffle = shuffle_from_seed(GOLDEN_SEED, 1)
    assert shuffle == Shuffle(
        order=(
            *(2, 16, 9, 25, 13, 31, 30, 12, 14, 26, 19, 29, 28, 18, 15, 20),
            *(23, 11, 17, 1, 7, 3, 0, 21, 24, 5, 4, 10, 22, 8, 6, 27),
        ),
        talon_pair=5,
    )
    dealt = deal_cards(shuffle.order, 0, shuffle.talon_pair)
    assert [format_cards(h) for h in dealt.hands] == [
        "♠ K Q 8  ♣ Q  ♦ 9 8  ♥ A J 10 7",
        "♠ A J 10 9  ♣ A J 9  ♦ J 7  ♥ K",
        "♠ 7  ♣ K 10 8 7  ♦ A K Q  ♥ 9 8",
    ]
    assert [str(CARDS[c]) for c in dealt.talon] == ["10♦", "Q♥"]
    assert shuffle_from_seed(GOLDEN_SEED, 2).talon_pair == 11


@settings(max_examples=200, deadline=None)
@given(seed=SEEDS, number=NUMBERS)
def test_shuffle_follows_the_documented_algorithm(seed: bytes, number: int) -> None:
    assert shuffle_from_seed(seed, number) == documented_shuffle(seed, number)


@settings(max_examples=200, deadline=None)
@given(seed=SEEDS, number=NUMBERS)
def test_shuffle_is_a_deterministic_permutation(seed: bytes, number: int) -> None:
    shuffle = shuffle_from_seed(seed, number)
    assert sorted(shuffle.order) == list(range(32))
    assert 1 <= shuffle.talon_pair <= 14
    assert shuffle_from_seed(bytes(seed), number) == shuffle


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, number=NUMBERS)
def test_shuffle_differs_by_deal_number(seed: bytes, number: int) -> None:
    assert shuffle_from_seed(seed, number).order != shuffle_from_seed(seed, number + 1).order


@settings(max_examples=100, deadline=None)
@given(a=SEEDS, b=SEEDS, number=NUMBERS)
def test_shuffle_differs_by_seed(a: bytes, b: bytes, number: int) -> None:
    assume(a != b)
    assert shuffle_from_seed(a, number).order != shuffle_from_seed(b, number).order


def test_shuffle_rejects_a_short_seed_and_deal_zero() -> None:
    with pytest.raises(InvalidAction):
        shuffle_from_seed(b"\x00" * 15, 1)
    with pytest.raises(InvalidAction):
        shuffle_from_seed(b"\x00" * 16, 0)


def chi_square(counts: Counter[int], categories: int, total: int) -> float:
    expected = total / categories
    return sum((counts[c] - expected) ** 2 / expected for c in range(categories))


def test_talon_cards_and_pairs_are_roughly_uniform() -> None:
    """Over 3000 deals of fixed seeds each card lies in the talon about 1/16 of the time, each
    talon position 1..14 is used about equally and each card goes to each hand about equally.
    The seeds are fixed, so this is deterministic; the bounds are loose (chi-square with 31
    degrees of freedom has mean 31; 80 is far in the tail)."""
    talon_cards: Counter[int] = Counter()
    pairs: Counter[int] = Counter()
    first_hand_cards: Counter[int] = Counter()
    deals = 3000
    for n in range(deals):
        shuffle = shuffle_from_seed(b"uniformity-seed-" + bytes([n % 7]), 1 + n)
        dealt = deal_cards(shuffle.order, 2, shuffle.talon_pair)
        talon_cards.update(dealt.talon)
        pairs[shuffle.talon_pair - 1] += 1
        first_hand_cards.update(c for c in range(32) if (dealt.hands[0] >> c) & 1)
    assert set(talon_cards) == set(range(32))
    assert chi_square(talon_cards, 32, 2 * deals) < 80
    assert chi_square(pairs, 14, deals) < 45  # 13 degrees of freedom
    assert chi_square(first_hand_cards, 32, 10 * deals) < 80
    # The bound is not vacuous: a talon drawn from half of the deck only would fail it.
    half = Counter(dict.fromkeys(range(16), 2 * deals // 16))
    assert chi_square(half, 32, 2 * deals) > 80


# --- seed_commitment -------------------------------------------------------------------------


@given(seed=SEEDS)
def test_seed_commitment_is_sha256_hex(seed: bytes) -> None:
    assert seed_commitment(seed) == hashlib.sha256(seed).hexdigest()


def test_seed_commitment_golden() -> None:
    assert seed_commitment(GOLDEN_SEED) == (
        "be45cb2605bf36bebde684841a28f0fd43c69850a3dce5fedba69928ee3a8991"
    )


# --- deal_cards ------------------------------------------------------------------------------

DECK = tuple(range(32))


@pytest.mark.parametrize(
    "order",
    [
        DECK[:31],
        (*DECK, 0),
        (0, *DECK[:31][1:], 0),
        (*DECK[:31], 32),
        (*DECK[:31], -1),
        (),
    ],
    ids=["31 cards", "33 cards", "duplicate", "card 32", "card -1", "empty"],
)
def test_deal_rejects_a_non_permutation(order: tuple[int, ...]) -> None:
    with pytest.raises(InvalidAction):
        deal_cards(order, 0, 5)


@pytest.mark.parametrize("talon_pair", [-1, 0, 15, 16])
def test_deal_rejects_the_talon_first_or_last(talon_pair: int) -> None:
    with pytest.raises(InvalidAction):
        deal_cards(DECK, 0, talon_pair)


@pytest.mark.parametrize("dealer", [-1, 3])
def test_deal_rejects_a_missing_dealer(dealer: int) -> None:
    with pytest.raises(InvalidAction):
        deal_cards(DECK, dealer, 5)


@pytest.mark.parametrize("dealer", [0, 1, 2])
@pytest.mark.parametrize("talon_pair", [1, 7, 14])
def test_deal_gives_pairs_clockwise_from_the_first_hand(dealer: int, talon_pair: int) -> None:
    """Pairs go to H1 (left of the dealer), H2, H3 (the dealer), H1, … skipping the talon."""
    dealt = deal_cards(DECK, dealer, talon_pair)
    expected = [0, 0, 0]
    receiver = (dealer + 1) % 3
    for pair in range(16):
        if pair == talon_pair:
            continue
        expected[receiver] |= 0b11 << (2 * pair)
        receiver = (receiver + 1) % 3
    assert list(dealt.hands) == expected
    assert dealt.talon == (2 * talon_pair, 2 * talon_pair + 1)
    assert all(h.bit_count() == 10 for h in dealt.hands)


def test_deal_example_dealer_b() -> None:
    """Dealer B (seat 1): C (seat 2) is the first hand and gets the top pair."""
    order = tuple(reversed(DECK))
    dealt = deal_cards(order, 1, 3)
    assert (dealt.hands[2] >> 31) & 1 and (dealt.hands[2] >> 30) & 1
    assert (dealt.hands[0] >> 29) & 1 and (dealt.hands[0] >> 28) & 1
    assert (dealt.hands[1] >> 27) & 1 and (dealt.hands[1] >> 26) & 1
    assert dealt.talon == (25, 24)
    # After the talon the deal goes on with the next hand in turn (C again for the fifth pair).
    assert (dealt.hands[2] >> 23) & 1 and (dealt.hands[2] >> 22) & 1


@settings(max_examples=100, deadline=None)
@given(seed=SEEDS, number=NUMBERS, dealer=st.integers(0, 2))
def test_deal_of_a_shuffle_splits_the_deck(seed: bytes, number: int, dealer: int) -> None:
    shuffle = shuffle_from_seed(seed, number)
    dealt = deal_cards(shuffle.order, dealer, shuffle.talon_pair)
    union = 0
    for hand in dealt.hands:
        assert hand.bit_count() == 10 and not union & hand
        union |= hand
    a, b = dealt.talon
    assert a != b and not (union >> a) & 1 and not (union >> b) & 1
    assert union | (1 << a) | (1 << b) == (1 << 32) - 1
    t = 2 * shuffle.talon_pair
    assert dealt.talon == (shuffle.order[t], shuffle.order[t + 1])
