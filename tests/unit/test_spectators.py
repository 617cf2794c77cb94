"""Spectators' stream messages (issue 14 item 6): public information only.

Across random games under several systems and tables of two to five seats, every message
built for a spectator (``service.api.streams.build``: the last entry of each event's updates)
names only cards that every seat may see at that moment (the intersection of the seats'
``visible_mask``: what a seat holding none of the hidden cards would see); between deals and
after the game everything of the deals played is public. The dealt hands come at each deal's
end, as they come to the seats. The delay (``delay_moves``) holds back the last decisions.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.model import Game
from domain.rules import (
    CARDS,
    PASS,
    Action,
    Claim,
    Phase,
    RuleSet,
    actor,
    legal_actions,
)
from domain.rules.duo_options import DuoAllPass
from domain.rules.systems import RULE_SETS
from service.api.mapping import SPECTATOR
from service.api.streams import Update, sendable
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.helpers import mask_texts, message_cards, public_by_version
from tests.unit.game_helpers import created_game

ALL_CARDS = frozenset(str(card) for card in CARDS)
TABLES: list[RuleSet] = [
    RULE_SETS["default"].with_options(pool_target=4),
    RULE_SETS["sochi"].with_options(pool_target=4),
    RULE_SETS["rostov"].with_options(pool_target=4),
    RULE_SETS["classic"].with_options(pool_target=4),
    RuleSet(players=2, pool_target=4),
    RuleSet(players=2, pool_target=4, duo_all_pass=DuoAllPass.VARENIK),  # gifts (GiveCards)
    RuleSet(players=4, pool_target=4),
    RuleSet(players=5, pool_target=4),
]


def played_game(rules: RuleSet, seed: bytes, rng: random.Random, steps: int) -> Game:
    """A game of random legal decisions (passes favoured in the auction, so that raspasy and
    short auctions come often), at most ``steps`` of them."""
    game = created_game(rules, rng.randrange(rules.players), seed)
    game.deal_first(seed, "r0")
    for step in range(steps):
        deal = game.state.deal
        if game.finished or deal is None:
            break
        seat = actor(deal)
        legal = [a for a in legal_actions(deal) if not isinstance(a, Claim)]
        choice: Action
        if deal.phase is Phase.BIDDING and PASS in legal and rng.random() < 0.5:
            choice = PASS
        else:
            choice = rng.choice(legal)
        game.act(seat, choice, f"r{step + 1}", seed)
    return game


def spectator_messages(game: Game) -> tuple[list[Any], list[pb.WatchGameResponse]]:
    from service.api.streams import build

    events = list(game.collect_events())
    _, built = build(events, None)
    assert all(len(updates) == game.rule_set.players + 1 for updates in built)
    return events, [pb.WatchGameResponse.FromString(u[SPECTATOR].message) for u in built]


@settings(max_examples=25, deadline=None)
@given(
    table=st.sampled_from(TABLES),
    seed=st.binary(min_size=16, max_size=24),
    rng_seed=st.integers(0, 2**32),
)
def test_a_spectator_never_sees_a_card_that_is_not_public(
    table: RuleSet, seed: bytes, rng_seed: int
) -> None:
    game = played_game(table, seed, random.Random(rng_seed), steps=160)
    events, messages = spectator_messages(game)
    public = public_by_version(events)
    for message in messages:
        leaked = message_cards(message) - public[message.version]
        assert not leaked, f"version {message.version} showed a spectator {sorted(leaked)}"
        assert not message.action.action.discard.cards  # a discard is never public in play


def test_a_spectator_gets_every_hand_when_a_deal_ends_and_no_hand_before() -> None:
    for n in range(6):
        seed = hashlib.sha256(f"spectator/{n}".encode()).digest()
        game = played_game(RULE_SETS["default"], seed, random.Random(n), steps=400)
        _, messages = spectator_messages(game)
        scored = [m for m in messages if m.HasField("deal_scored")]
        assert scored, "no deal was scored"
        for message in scored:
            hands = message.deal_scored.dealt_hands
            assert len(hands) == 3 and all(len(hand.cards) == 10 for hand in hands)
        dealt = [m for m in messages if m.HasField("deal_dealt")]
        assert dealt and all(not m.revealed for m in dealt)  # no hand is public when dealt
        # Not vacuous: the cards played, the talons turned up and the deals' ends show cards.
        assert sum(bool(message_cards(m)) for m in messages) > len(messages) // 3


def test_the_spectator_message_is_a_seat_message_without_its_secrets() -> None:
    """What every seat sees of an event (the call, the card, the public talon) reaches the
    spectator too: the spectator's message is each seat's without the seat's own cards."""
    seed = hashlib.sha256(b"spectator/same").digest()
    game = played_game(RULE_SETS["default"], seed, random.Random(7), steps=200)
    from service.api.streams import build

    _, built = build(list(game.collect_events()), None)
    for updates in built:
        spectator = pb.WatchGameResponse.FromString(updates[SPECTATOR].message)
        seat = pb.WatchGameResponse.FromString(updates[0].message)
        assert spectator.WhichOneof("event") == seat.WhichOneof("event")
        assert spectator.version == seat.version
        if spectator.HasField("action") and spectator.action.action.WhichOneof("kind") not in (
            "discard",
        ):
            assert spectator.action == seat.action


def _updates(decisions: list[bool]) -> list[Update]:
    return [Update(b"", b"", decision) for decision in decisions]


def test_the_delay_holds_back_the_last_decisions_and_what_follows_them() -> None:
    waiting = _updates([False, True, True, False, True, False])
    assert sendable(waiting, 0) == 6
    assert sendable(waiting, 1) == 4  # the last decision and the event after it wait
    assert sendable(waiting, 2) == 2
    assert sendable(waiting, 3) == 1
    assert sendable(waiting, 4) == 0  # fewer decisions waiting than the delay: none yet
    assert sendable([], 3) == 0


def test_the_decision_that_ends_a_deal_reveals_the_hands_still_held() -> None:
    """game.proto, WatchGameResponse.revealed: the decision that ends a deal reveals every
    hand the viewer had not seen, as it stands then; DealScoredEvent follows with the whole
    deal. Checked for the spectator (who had seen no hand but the ones laid open)."""
    from domain.rules.view import visible_cards
    from service.api.streams import build

    checked = 0
    for n in range(12):
        seed = hashlib.sha256(f"reveal/{n}".encode()).digest()
        game = played_game(RULE_SETS["default"], seed, random.Random(n), steps=300)
        events = list(game.collect_events())
        _, built = build(events, None)
        messages = [pb.WatchGameResponse.FromString(u[SPECTATOR].message) for u in built]
        replay: Any = None
        for index, event in enumerate(events):
            before = None if replay is None else replay.state.deal
            replay = event.mutate(replay)
            ends = index + 1 < len(messages) and messages[index + 1].HasField("deal_scored")
            if not ends or before is None:
                continue
            after = replay.state.deal
            assert after is not None  # the deal is over but still the game's until scored
            seen_before = visible_cards(before, SPECTATOR)[0]
            revealed = {hand.seat: set(hand.cards) for hand in messages[index].revealed}
            for seat, held in enumerate(after.play.hands):
                if held and seen_before[seat] is None:
                    assert revealed.get(seat) == mask_texts(held), (n, index, seat)
                    checked += 1
    assert checked  # deals ending with cards in hand (passed out, half-whist) were met
