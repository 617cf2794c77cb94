"""The audit's checks of clocks, time-outs, resignations and adjournments (docs/AUDIT.md
"Time-outs"): the clocks are replayed from the recorded timestamps (``domain.model.clock``, the
rule the aggregate follows), and each ``TimeExpired`` must be justified by them.

- ``TimeExpired``: the game has a clock; the seat is the one whose clock ran, the recorded
  deadline is the replayed one, and the event's timestamp is not before it (an early time-out
  is a forgery). Then, at once, its consequence: under ``on_timeout=default_move`` that seat's
  decision, which must be the rules' default (``clock.default_action``) of the seat's legal
  actions; under ``forfeit`` that seat's ``PlayerReplaced`` with reason ``"time"`` (or its
  default move once no more players may join the game, ``MAX_REPLACEMENTS``).
- ``PlayerReplaced`` with reason ``"time"`` only right after a ``TimeExpired``; with
  ``"resigned"`` or ``"time"`` the newcomer is one of the server's bot accounts of the seat
  (``terms.is_bot_of``), and the seat was a
  person's; either way the seat is the bot's from then on.
- ``AdjournmentAgreed`` / ``ResumptionAgreed``: by a person's seat, once each, while the game
  is (not) adjourned; no decision (nor a Classic game's order) while adjourned.

``ClockAudit`` raises ``ClockDiscrepancy`` (its kind and message); ``domain.audit`` reports it
at the event's position.
"""

from __future__ import annotations

from typing import Any

from domain.model.clock import Clock, clock_after, default_action, ms_of, start_clock
from domain.model.decisions import BY_NAME
from domain.model.leaving import (
    FORFEIT,
    REASONS,
    agreement,
    bot_seats_after,
    forfeits,
    persons,
)
from domain.model.terms import TimeControl, is_bot_of
from domain.rules import GameState, legal_actions

CLOCK = "clock"
"""A time-out the recorded times do not justify, a consequence that is not the rules' default,
or a resignation or adjournment the game's course does not allow."""


class ClockDiscrepancy(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.kind = CLOCK
        self.message = message


class ClockAudit:
    """The clock side of one game's replay (fed every event, in order)."""

    def __init__(self) -> None:
        self.control: TimeControl | None = None
        self.clock: Clock | None = None
        self.seats = 0
        self.bots: set[int] = set()
        self.adjourned = False
        self.agreed: set[int] = set()
        self.timed_out: int | None = None
        """The seat whose time-out's consequence must come next."""

    def created(self, event: Any, seats: int) -> None:
        try:
            self.control = TimeControl.from_dict(getattr(event, "time_control", None))
        except Exception as exc:
            raise ClockDiscrepancy(f"the time control cannot be read: {exc}") from None
        self.seats = seats
        self.bots = set(getattr(event, "bot_seats", None) or ())
        if self.control is not None:
            self.clock = start_clock(self.control, seats, ms_of(event.timestamp))

    def before(self, name: str, event: Any, game: GameState) -> None:
        """Checks of ``event`` against the game before it."""
        seat = getattr(event, "seat", None)
        if self.timed_out is not None and name != "TimeCalled":  # time may be called between
            self._consequence(name, event, game, self.timed_out)
            self.timed_out = None
        elif name == "PlayerReplaced" and getattr(event, "reason", "") == FORFEIT:
            raise ClockDiscrepancy("a forfeit on time without a TimeExpired before it")
        if name == "TimeExpired":
            self._expired(event, seat)
        elif (name in BY_NAME or name == "GameOrdered") and self.adjourned:
            raise ClockDiscrepancy("a decision while the game is adjourned")
        elif name == "PlayerReplaced":
            self._replaced(event, seat)
        elif name in ("AdjournmentAgreed", "ResumptionAgreed"):
            self._agreement(name == "AdjournmentAgreed", seat)

    def after(self, name: str, event: Any, game: GameState) -> None:
        """The clocks after ``event`` (``game``: the game after it)."""
        if self.clock is not None:
            at = ms_of(event.timestamp)
            self.clock = clock_after(self.clock, name, event.seat, at, game, self.adjourned)

    def end_of_log(self) -> None:
        if self.timed_out is not None:
            raise ClockDiscrepancy("the log ends where the time-out's consequence must follow")

    def _expired(self, event: Any, seat: Any) -> None:
        clock, control = self.clock, self.control
        if clock is None or control is None:
            raise ClockDiscrepancy("a time-out in a game without a clock")
        deadline = clock.deadline_ms
        if deadline is None or seat != clock.actor:
            raise ClockDiscrepancy(f"a time-out of seat {seat!r}, whose clock was not running")
        if event.deadline_ms != deadline:
            raise ClockDiscrepancy(
                f"the recorded deadline {event.deadline_ms} is not the replayed one, {deadline}"
            )
        at = ms_of(event.timestamp)
        if at < deadline:
            raise ClockDiscrepancy(
                f"seat {seat} was timed out at {at} ms, {deadline - at} ms before its deadline "
                f"({deadline} ms): its time was not up"
            )
        self.timed_out = seat

    def _consequence(self, name: str, event: Any, game: GameState, seat: int) -> None:
        assert self.control is not None
        if forfeits(self.control, seat, self.bots, game):
            if name != "PlayerReplaced" or event.seat != seat or event.reason != FORFEIT:
                raise ClockDiscrepancy(f"{name} where seat {seat}'s forfeit on time must follow")
            return
        if name not in BY_NAME or event.seat != seat:
            raise ClockDiscrepancy(f"{name} where seat {seat}'s default move must follow")
        deal = game.deal
        assert deal is not None  # a clock ran: a deal is in progress
        expected = default_action(legal_actions(deal))
        try:
            recorded = BY_NAME[name].read(event)
        except Exception as exc:
            raise ClockDiscrepancy(f"the default move cannot be read: {exc}") from None
        if recorded != expected:
            raise ClockDiscrepancy(
                f"seat {seat}'s automatic move is {recorded}, but the rules' default is {expected}"
            )

    def _replaced(self, event: Any, seat: Any) -> None:
        reason = getattr(event, "reason", "")
        if reason not in REASONS:
            raise ClockDiscrepancy(f"PlayerReplaced with an unknown reason {reason!r}")
        if reason and isinstance(seat, int):
            if seat in self.bots:
                raise ClockDiscrepancy(f"seat {seat} left, but the server's bot played it")
            if not isinstance(event.player, str) or not is_bot_of(event.player, seat):
                raise ClockDiscrepancy(
                    f"the server's bot must take seat {seat}, not {event.player}"
                )
        if isinstance(seat, int) and isinstance(event.player, str):
            self.bots = set(bot_seats_after(sorted(self.bots), seat, event.player))
            self._agreed_by(seat, leaving=True)

    def _agreement(self, adjourn: bool, seat: Any) -> None:
        if not isinstance(seat, int) or seat not in persons(self.seats, self.bots):
            raise ClockDiscrepancy(f"seat {seat!r} is not a person's seat")
        if adjourn == self.adjourned or seat in self.agreed:
            raise ClockDiscrepancy("an agreement the game's adjournment state does not allow")
        self.agreed.add(seat)
        self._agreed_by(seat)

    def _agreed_by(self, seat: int, leaving: bool = False) -> None:
        if leaving:
            self.agreed.discard(seat)
        people = persons(self.seats, self.bots)
        self.agreed, self.adjourned = agreement(self.agreed, self.adjourned, people)
