"""Replaying a game's events through the pure rules core, without the aggregate.

One table maps each decision event to the rules' action it records; ``advance`` folds one event
into a ``GameState``. Read models, the stream's redaction and the audit use this, so the
meaning of every event is written down once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.model.disputes import apply_ruling
from domain.rules import (
    ACCEPT,
    CLOSED,
    HALF_WHIST,
    HERE,
    OPEN,
    PASS,
    REJECT,
    TAKE_TALON,
    WHIST,
    Action,
    Bid,
    Card,
    Claim,
    GameState,
    RuleSet,
    Shuffle,
    apply,
    finish_deal,
    new_game,
    parse_cards,
    start_deal,
)
from domain.rules.actions import CALLS, DECLARES, DISCARDS, PLAYS
from domain.rules.bids import MISERE_INDEX
from domain.rules.errors import InvalidAction
from domain.rules.game import with_deal

EVENT_PREFIX = "preferans.v1."


def event_name(event: Any) -> str:
    """The event's stable name: its topic without ``preferans.v1.``."""
    topic: str = type(event).TOPIC
    return topic.removeprefix(EVENT_PREFIX)


def _discard(event: Any) -> Action:
    a, b = parse_cards(event.cards)
    return DISCARDS[min(a, b), max(a, b)]


ACTIONS: dict[str, Callable[[Any], Action]] = {
    "BidCalled": lambda e: CALLS[Bid.parse(e.bid).index],
    "MisereCalled": lambda e: CALLS[MISERE_INDEX],
    "HereSaid": lambda e: HERE,
    "AuctionPassed": lambda e: PASS,
    "TalonTaken": lambda e: TAKE_TALON,
    "CardsDiscarded": _discard,
    "ContractDeclared": lambda e: DECLARES[Bid.parse(e.contract).index],
    "WhistCalled": lambda e: WHIST,
    "WhistPassed": lambda e: PASS,
    "HalfWhistCalled": lambda e: HALF_WHIST,
    "WhistReturned": lambda e: WHIST,
    "DefenceChosen": lambda e: OPEN if e.open else CLOSED,
    "CardPlayed": lambda e: PLAYS[Card.parse(e.card)],
    "ClaimMade": lambda e: Claim(tuple(e.tricks)),
    "ClaimAccepted": lambda e: ACCEPT,
    "ClaimRejected": lambda e: REJECT,
}
"""Each decision event → the rules' action it records."""


def action_of(event: Any) -> Action | None:
    """The action a decision event records, or ``None`` for the other events."""
    make = ACTIONS.get(event_name(event))
    return None if make is None else make(event)


def advance(state: GameState | None, event: Any) -> GameState:
    """The game after ``event`` (``state`` is ``None`` before the creation event)."""
    name = event_name(event)
    if name == "GameCreated":
        return new_game(RuleSet.from_dict(event.rules), event.first_dealer)
    if state is None:
        raise InvalidAction(f"{name} before the game was created")
    if name == "DealDealt":
        return start_deal(state, Shuffle(tuple(event.deck), event.talon_pair))
    if name == "DealScored":
        return finish_deal(state)[0]
    if name in ("GameFinished", "DealFlagged"):
        return state
    if name == "RulingRecorded":
        return apply_ruling(state, event.adjustment)
    make = ACTIONS.get(name)
    if make is None:
        raise InvalidAction(f"unknown event {name}")
    deal = state.deal
    if deal is None:
        raise InvalidAction(f"{name} with no deal in progress")
    return with_deal(state, apply(deal, make(event)))
