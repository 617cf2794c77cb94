"""Bids and contracts on the auction ladder (RULES.md §1.3).

The ladder, low to high: 6♠ 6♣ 6♦ 6♥ 6NT 7♠ … 8NT, misère, 9♠ … 10NT. A ``Bid`` is one rung;
its ``index`` is its place on the ladder, so "higher" is integer comparison. A contract is
declared on the same ladder, so one type serves both.
"""

from __future__ import annotations

from enum import IntEnum

from domain.rules.cards import Suit
from domain.rules.errors import InvalidAction


class Strain(IntEnum):
    """A trump suit or no trump, in bidding order."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3
    NO_TRUMP = 4

    @property
    def symbol(self) -> str:
        return "NT" if self is Strain.NO_TRUMP else Suit(self).symbol

    @property
    def trump(self) -> Suit | None:
        """The trump suit, or ``None`` for no trump."""
        return None if self is Strain.NO_TRUMP else Suit(self)

    def __str__(self) -> str:
        return self.symbol


MISERE_INDEX = 15
"""The ladder index of misère: above 8NT (14), below 9♠ (16)."""


class Bid:
    """One rung of the ladder: an ordinary bid ``level`` × ``strain``, or misère."""

    __slots__ = ("index", "level", "strain")
    index: int
    level: int
    strain: Strain | None

    def __new__(cls, index: int) -> Bid:
        if not 0 <= index < len(LADDER):
            raise InvalidAction(f"there is no bid number {index} on the ladder")
        return LADDER[index]

    @staticmethod
    def ordinary(level: int, strain: Strain) -> Bid:
        """The bid ``level`` of ``strain`` (levels 6 to 10)."""
        if not 6 <= level <= 10:
            raise InvalidAction(f"a contract is 6 to 10 tricks, not {level}")
        base = (level - 6) * 5 if level <= 8 else 16 + (level - 9) * 5
        return LADDER[base + strain]

    @property
    def is_misere(self) -> bool:
        return self.index == MISERE_INDEX

    @property
    def trump(self) -> Suit | None:
        return None if self.strain is None else self.strain.trump

    def __str__(self) -> str:
        if self.strain is None:
            return "misère"
        return f"{self.level}{self.strain.symbol}"

    def __repr__(self) -> str:
        return f"Bid({self})"

    def __lt__(self, other: Bid) -> bool:
        return self.index < other.index

    def __le__(self, other: Bid) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Bid) -> bool:
        return self.index > other.index

    def __ge__(self, other: Bid) -> bool:
        return self.index >= other.index

    def __reduce__(self) -> tuple[type[Bid], tuple[int]]:
        return (Bid, (self.index,))

    @property
    def ascii(self) -> str:
        if self.strain is None:
            return "misere"
        letter = "nt" if self.strain is Strain.NO_TRUMP else Suit(self.strain).letter
        return f"{self.level}{letter}"

    @classmethod
    def parse(cls, text: str) -> Bid:
        """Parse ``6♠``, ``6s``, ``7NT``, ``7nt``, ``7БК``, ``misère``, ``misere``."""
        exact = _BY_TEXT.get(text)
        if exact is not None:
            return exact
        raw = text.strip().lower().replace(" ", "")
        if raw in _MISERE_WORDS:
            return LADDER[MISERE_INDEX]
        level_text = raw[:2] if raw.startswith("10") else raw[:1]
        strain_text = raw[len(level_text) :]
        if not level_text.isdigit():
            raise InvalidAction(f"{text!r} is not a bid (write it like 6♠, 7nt or misère)")
        level = int(level_text)
        if not 6 <= level <= 10:
            raise InvalidAction(f"{text!r}: a contract is 6 to 10 tricks")
        strain = _STRAIN_NAMES.get(strain_text)
        if strain is None:
            raise InvalidAction(f"{text!r} is not a bid (write it like 6♠, 7nt or misère)")
        return cls.ordinary(level, strain)


def _make_bid(index: int, level: int, strain: Strain | None) -> Bid:
    bid = object.__new__(Bid)
    bid.index = index
    bid.level = level
    bid.strain = strain
    return bid


def _build_ladder() -> tuple[Bid, ...]:
    rungs: list[Bid] = []
    for level in (6, 7, 8):
        rungs.extend(_make_bid(len(rungs), level, strain) for strain in Strain)
    rungs.append(_make_bid(len(rungs), 0, None))
    for level in (9, 10):
        rungs.extend(_make_bid(len(rungs), level, strain) for strain in Strain)
    return tuple(rungs)


LADDER: tuple[Bid, ...] = _build_ladder()
MISERE: Bid = LADDER[MISERE_INDEX]
_BY_TEXT: dict[str, Bid] = {str(bid): bid for bid in LADDER}
SIX_SPADES: Bid = LADDER[0]

_MISERE_WORDS = {"misère", "misere", "мизер", "мізер", "mis"}
_STRAIN_NAMES: dict[str, Strain] = {
    "♠": Strain.SPADES,
    "s": Strain.SPADES,
    "♣": Strain.CLUBS,
    "c": Strain.CLUBS,
    "♦": Strain.DIAMONDS,
    "d": Strain.DIAMONDS,
    "♥": Strain.HEARTS,
    "h": Strain.HEARTS,
    "nt": Strain.NO_TRUMP,
    "бк": Strain.NO_TRUMP,
    "n": Strain.NO_TRUMP,
}
