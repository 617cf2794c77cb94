"""The structured twins of the notation strings (issue 14 item 7; ``service.api.values``):
every card, bid and deal kind the server writes as a string it also writes as data, and both
say the same; misère has one output spelling and several accepted inputs (issue 14 item 8)."""

from __future__ import annotations

import hashlib
import random

import pytest

from domain.rules import CARDS, LADDER, Bid, Card
from domain.rules.state import Kind
from domain.rules.systems import RULE_SETS
from service.api.mapping import SPECTATOR, action_from_proto, seat_view_to_proto
from service.api.streams import build
from service.api.values import bid_value, card_value, deal_kind
from service.gen.preferans.v1 import game_pb2 as pb
from tests.unit.test_spectators import played_game

SUITS = "♠♣♦♥"
RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"]


def _text(value: pb.Card) -> str:
    return RANKS[value.rank - pb.RANK_SEVEN] + SUITS[value.suit - 1]


def test_every_card_has_its_rank_and_suit() -> None:
    for card in CARDS:
        assert _text(card_value(card)) == str(card)
    assert card_value(Card.parse("10♥")) == pb.Card(rank=pb.RANK_TEN, suit=pb.SUIT_HEARTS)


def test_every_rung_of_the_ladder_has_its_level_and_strain() -> None:
    for bid in LADDER:
        value = bid_value(bid)
        if bid.is_misere:
            assert value == pb.Bid(misere=True)
        else:
            strain = "♠♣♦♥"[value.strain - 1] if value.strain != pb.STRAIN_NO_TRUMP else "NT"
            assert str(bid) == f"{value.level}{strain}"


@pytest.mark.parametrize("text", ["misère", "misere", "MISERE", "Misère", "мизер", "mis"])
def test_misere_is_accepted_in_every_spelling_and_written_misere_with_its_accent(
    text: str,
) -> None:
    action = action_from_proto(pb.Action(bid=text))
    assert str(action) == "misère"
    assert str(Bid.parse(text)) == "misère"


def test_deal_kinds_are_ascii_identifiers_with_an_enum_each() -> None:
    assert {deal_kind(kind.value) for kind in Kind} == set(pb.DealKind.values()) - {
        pb.DEAL_KIND_UNSPECIFIED
    }
    assert deal_kind("misere") == pb.DEAL_KIND_MISERE
    assert all(kind.value.isascii() for kind in Kind)


def _same(cards: list[str], values: list[pb.Card]) -> None:
    assert [_text(v) if v.rank else "" for v in values] == cards


def test_views_and_stream_messages_carry_twins_equal_to_their_strings() -> None:
    seed = hashlib.sha256(b"twins").digest()
    game = played_game(RULE_SETS["default"], seed, random.Random(3), steps=120)
    for seat in range(3):
        view = seat_view_to_proto(game, seat)
        _same(list(view.hand), list(view.hand_values))
        _same(list(view.talon), list(view.talon_values))
        for trick in view.played_tricks:
            _same([p.card for p in trick.cards], [p.card_value for p in trick.cards])
    _, built = build(list(game.collect_events()), None)
    kinds = 0
    for updates in built:
        for update in (updates[0], updates[SPECTATOR]):
            message = pb.WatchGameResponse.FromString(update.message)
            _same(list(message.talon), list(message.talon_values))
            for hand in message.revealed:
                _same(list(hand.cards), list(hand.card_values))
            action = message.action.action
            if action.WhichOneof("kind") == "play_card":
                assert _text(action.card_value) == action.play_card
            if message.HasField("deal_scored"):
                scored = message.deal_scored
                assert scored.deal_kind == deal_kind(scored.kind)
                kinds += 1
                if scored.contract:
                    assert scored.contract_value == bid_value(Bid.parse(scored.contract))
                for hand in scored.dealt_hands:
                    _same(list(hand.cards), list(hand.card_values))
                _same(list(scored.talon), list(scored.talon_values))
                _same(list(scored.discard), list(scored.discard_values))
    assert kinds
