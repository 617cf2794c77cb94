"""The rules' error taxonomy: malformed input apart from moves against the rules.

``InvalidAction`` is input that is not a move at all (an unknown card, a bid of 11♠).
``IllegalAction`` is a real move that the rules forbid now; it carries the moves that are
allowed, so a client can show them. ``NotYourTurn`` is an illegal action by the wrong seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class RulesError(Exception):
    """Base of every error the rules core raises."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidAction(RulesError):
    """The input is malformed: not a card, not a bid, not an action of this game."""

    def __init__(self, message: str, field: str = "action") -> None:
        super().__init__(message)
        self.field = field
        """The request field that is malformed (for a client's error display)."""


class IllegalAction(RulesError):
    """A well-formed action that the rules do not allow at this moment."""

    def __init__(self, message: str, allowed: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.allowed: tuple[Any, ...] = tuple(allowed)


class NotYourTurn(IllegalAction):
    """The seat that sent the action is not the one to act."""

    def __init__(self, message: str, seat: int, to_act: int | None) -> None:
        super().__init__(message)
        self.seat = seat
        self.to_act = to_act


class GameOver(IllegalAction):
    """The deal or the game has ended; nothing more can be played."""
