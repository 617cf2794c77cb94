"""Cards, suits and ranks, as small ints and bitmasks, with the notation people write.

A card is an int ``0..31``: ``suit * 8 + rank``, where ranks run 7, 8, 9, 10, J, Q, K, A
(RULES.md §1.1: the ten ranks below the jack) and suits run ♠, ♣, ♦, ♥ (the bidding order
of §1.3). A set of cards is a 32-bit mask, so following suit is one ``&``.

Notation (STYLE.md §4): ``7♥``, ``10♠``, ``Q♦``, ``A♣``; ASCII ``7h``, ``Ts`` or ``10s``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum

from domain.rules.errors import InvalidAction


class Suit(IntEnum):
    """The four suits in bidding order (♠ < ♣ < ♦ < ♥)."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def letter(self) -> str:
        return _SUIT_LETTERS[self]

    @property
    def mask(self) -> int:
        """The mask of all eight cards of this suit."""
        return SUIT_MASKS[self]

    def __str__(self) -> str:
        return self.symbol

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``♠``/``s``/``spades`` (any case) into a suit."""
        key = text.strip().lower()
        try:
            return _SUIT_NAMES[key]
        except KeyError:
            raise InvalidAction(f"{text!r} is not a suit (use ♠ ♣ ♦ ♥ or s c d h)") from None


class Rank(IntEnum):
    """Ranks from low to high; the ten is below the jack."""

    SEVEN = 0
    EIGHT = 1
    NINE = 2
    TEN = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    ACE = 7

    @property
    def label(self) -> str:
        return _RANK_LABELS[self]

    def __str__(self) -> str:
        return self.label


_SUIT_SYMBOLS = ("♠", "♣", "♦", "♥")
_SUIT_LETTERS = ("s", "c", "d", "h")
_SUIT_NAMES: dict[str, Suit] = {}
for _s, _sym, _letter, _word in zip(
    Suit, _SUIT_SYMBOLS, _SUIT_LETTERS, ("spades", "clubs", "diamonds", "hearts"), strict=True
):
    for _key in (_sym, _letter, _word, _word[:-1]):
        _SUIT_NAMES[_key] = _s
# The white variants people paste from text editors.
_SUIT_NAMES.update({"♤": Suit.SPADES, "♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♡": Suit.HEARTS})

_RANK_LABELS = ("7", "8", "9", "10", "J", "Q", "K", "A")
_RANK_NAMES: dict[str, Rank] = {
    label.lower(): rank for rank, label in zip(Rank, _RANK_LABELS, strict=False)
}
_RANK_NAMES["t"] = Rank.TEN

SUIT_MASKS: tuple[int, int, int, int] = (0xFF, 0xFF << 8, 0xFF << 16, 0xFF << 24)
FULL_DECK = (1 << 32) - 1


class Card(int):
    """One card; an ``int`` in ``0..31`` so that masks and tables index by it directly."""

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        return _CARDS[value]

    @staticmethod
    def of(rank: Rank, suit: Suit) -> Card:
        return _CARDS[suit * 8 + rank]

    @property
    def suit(self) -> Suit:
        return Suit(self >> 3)

    @property
    def rank(self) -> Rank:
        return Rank(self & 7)

    @property
    def bit(self) -> int:
        return 1 << self

    def __str__(self) -> str:
        return _CARD_TEXT[self]

    def __repr__(self) -> str:
        return f"Card({_CARD_TEXT[self]})"

    @property
    def ascii(self) -> str:
        """ASCII form, ``Th`` for the ten of hearts."""
        return ("T" if self.rank == Rank.TEN else self.rank.label) + self.suit.letter

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``10♠``, ``T♠``, ``Ts``, ``10s``, ``q♦`` ... into a card."""
        exact = _CARD_BY_TEXT.get(text)
        if exact is not None:
            return exact
        raw = text.strip()
        if len(raw) < 2:
            raise InvalidAction(f"{text!r} is not a card (write it like 10♠, Q♦ or Ts)")
        rank = _RANK_NAMES.get(raw[:-1].lower())
        suit = _SUIT_NAMES.get(raw[-1].lower())
        if rank is None or suit is None:
            raise InvalidAction(f"{text!r} is not a card (write it like 10♠, Q♦ or Ts)")
        return _CARDS[suit * 8 + rank]


def _make_card(value: int) -> Card:
    return int.__new__(Card, value)


_CARDS: tuple[Card, ...] = tuple(_make_card(i) for i in range(32))
_CARD_TEXT: tuple[str, ...] = tuple(_RANK_LABELS[i & 7] + _SUIT_SYMBOLS[i >> 3] for i in range(32))
CARDS = _CARDS
"""All 32 cards, indexed by value."""
_CARD_BY_TEXT: dict[str, Card] = dict(zip(_CARD_TEXT, _CARDS, strict=True))


def cards_of(mask: int) -> Iterator[Card]:
    """The cards of a mask, from ♠7 up to ♥A."""
    while mask:
        low = mask & -mask
        yield _CARDS[low.bit_length() - 1]
        mask ^= low


def mask_of(cards: Iterable[int]) -> int:
    """The mask of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def count(mask: int) -> int:
    """How many cards a mask holds."""
    return mask.bit_count()


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a list of cards separated by spaces or commas: ``"7♣ 8♦"``, ``"Ts,Jh"``."""
    parts = [p for p in text.replace(",", " ").split() if p]
    return tuple(Card.parse(p) for p in parts)


def format_cards(mask: int) -> str:
    """Cards of a mask grouped by suit, highest first: ``♠ A K 9  ♥ 10 7``."""
    groups = []
    for suit in Suit:
        in_suit = mask & SUIT_MASKS[suit]
        if in_suit:
            ranks = [_RANK_LABELS[c & 7] for c in reversed(list(cards_of(in_suit)))]
            groups.append(f"{suit.symbol} {' '.join(ranks)}")
    return "  ".join(groups) if groups else "—"


def card_texts(mask: int) -> list[str]:
    """The cards of a mask in notation, from ♠7 up to ♥A."""
    out = []
    while mask:
        low = mask & -mask
        out.append(_CARD_TEXT[low.bit_length() - 1])
        mask ^= low
    return out


def card_list(mask: int) -> str:
    """Cards of a mask as a plain list: ``7♠ A♠ 10♥``."""
    return " ".join(_CARD_TEXT[c] for c in cards_of(mask))
