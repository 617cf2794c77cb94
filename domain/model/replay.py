"""Replaying a game's events through the pure rules core, without the aggregate.

``advance`` folds one event into a ``GameState``; what each decision event records is the
table of ``domain.model.decisions`` (``action_of``). Read models and the stream use this.
"""

from __future__ import annotations

from typing import Any

from domain.model.decisions import BY_NAME, EVENT_PREFIX, action_of, event_name
from domain.model.disputes import apply_ruling
from domain.rules import (
    GameState,
    RuleSet,
    Shuffle,
    agree_stop,
    apply,
    call_time,
    finish_deal,
    new_game,
    order_game,
    replace_player,
    start_deal,
)
from domain.rules.errors import InvalidAction
from domain.rules.game import with_deal

__all__ = ["EVENT_PREFIX", "action_of", "advance", "event_name"]

CLOCK_ONLY = ("TimeExpired", "AdjournmentAgreed", "ResumptionAgreed")
"""Events that change no rules state (clocks, adjournment: ``domain.model.clock``)."""


def aborted(state: GameState) -> GameState:
    """The game after ``GameAborted``: over, with no deal in progress (like an agreed stop,
    ``stop_early``, but never settled: docs/STAKES.md)."""
    return state._replace(deal=None, finished=True)


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
    if name in ("GameFinished", "DealFlagged", "StakesSettled", "StakesAdjusted", *CLOCK_ONLY):
        return state
    if name == "GameAborted":
        return aborted(state)
    if name == "TimeCalled":
        return call_time(state)
    if name == "EarlyStopAgreed":
        return agree_stop(state, event.seat)
    if name == "PlayerReplaced":
        return replace_player(state, event.seat)
    if name == "GameOrdered":
        return order_game(
            state, event.seat, event.pool, event.ends_at, getattr(event, "obligations", None) or {}
        )
    if name == "RulingRecorded":
        return apply_ruling(state, event.adjustment)
    row = BY_NAME.get(name)
    if row is None:
        raise InvalidAction(f"unknown event {name}")
    deal = state.deal
    if deal is None:
        raise InvalidAction(f"{name} with no deal in progress")
    return with_deal(state, apply(deal, row.read(event)))
