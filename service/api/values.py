"""The structured twins of the contract's notation strings (issue 14 item 7).

Cards, bids and deal kinds travel as notation ("7♠", "6NT", "misère", "misere") and, beside
each such string the server writes, as data: ``preferans.v1.Card`` (rank and suit enums),
``preferans.v1.Bid`` (level, strain, misère) and ``preferans.v1.DealKind``. This module makes
the data from the rules' values; ``service.api.mapping`` puts both in the messages. Output
only: input is always read from the strings.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from domain.rules import Bid, Card, cards_of
from domain.rules.state import Kind
from service.gen.preferans.v1 import game_pb2 as pb

RANK_OFFSET = pb.RANK_SEVEN
"""``Rank.SEVEN`` (0) is ``RANK_SEVEN`` (7): every rank is its number (ace 14)."""

DEAL_KINDS: dict[str, pb.DealKind.ValueType] = {
    kind.value: getattr(pb, f"DEAL_KIND_{kind.name}") for kind in Kind
}
"""Each deal kind's identifier (``DealResult.kind``) → its enum value."""


@functools.cache
def card_value(card: int) -> pb.Card:
    """A card (0..31) as data. Shared (one per card): copy it into a message, never change
    it."""
    known = Card(card)
    return pb.Card(
        rank=pb.Rank.ValueType(int(known.rank) + RANK_OFFSET),
        suit=pb.Suit.ValueType(int(known.suit) + 1),
    )


FACE_DOWN = pb.Card()
"""A card still face down: neither rank nor suit."""


def card_values(cards: Iterable[int | None]) -> list[pb.Card]:
    """Cards (``None``: face down) as data, in order."""
    return [FACE_DOWN if card is None else card_value(card) for card in cards]


def mask_values(mask: int) -> list[pb.Card]:
    """The cards of a mask as data, in the order of ``cards_of`` (as the strings)."""
    return [card_value(card) for card in cards_of(mask)]


def text_values(texts: Iterable[str]) -> list[pb.Card]:
    """Cards in the server's own notation as data ("" stays face down)."""
    return [FACE_DOWN if not text else card_value(Card.parse(text)) for text in texts]


@functools.cache
def bid_value(bid: Bid) -> pb.Bid:
    """A bid or contract as data. Shared: copy it, never change it."""
    if bid.is_misere:
        return pb.Bid(misere=True)
    assert bid.strain is not None
    return pb.Bid(level=bid.level, strain=pb.Strain.ValueType(int(bid.strain) + 1))


def contract_value(text: str) -> pb.Bid | None:
    """A contract in the server's notation as data; ``None`` for "" (raspasy)."""
    return bid_value(Bid.parse(text)) if text else None


def deal_kind(kind: str) -> pb.DealKind.ValueType:
    """A deal kind's identifier as its enum (``DEAL_KIND_UNSPECIFIED`` if unknown)."""
    return DEAL_KINDS.get(kind, pb.DEAL_KIND_UNSPECIFIED)
