"""A game's clocks as pure data (docs/CLOCKS.md): each seat's bank and the deadline of the seat
to act, computed from the game's recorded events' timestamps and its ``TimeControl``.

Nothing here reads a clock: every moment is an event's timestamp (set by the service's process
when the event was recorded) or a ``now`` the caller passes. The rules core stays clock-free;
it only says who must decide (``domain.rules.actor``): exactly one seat at any moment, also when
several seats decide in turn (the whist calls, the answers to a claim: each answer is its own
turn, so only the seat asked now has its clock running). No clock runs while there is no deal in
progress, the game waits for its order (Classic), it is adjourned, or it is over.

The arithmetic of one turn (the seat ``s`` to act, from the moment ``start`` its turn began):

- it may think ``move_ms`` (a fresh allowance per decision) and then its bank, ``bank[s]``:
  its deadline is ``start + move_ms + bank[s]``;
- when it decides at ``t``, the bank pays what exceeds the allowance:
  ``bank[s] = max(0, bank[s] - max(0, t - start - move_ms)) + increment_ms``;
- an adjourned interval does not count: resuming moves ``start`` forward by its length.

A turn begins with the event after which its seat must decide: any decision (also when the same
seat decides again, e.g. the declarer's discard after taking the talon), a new deal, a change of
the seat to act, the acting seat's new occupant (a replacement or a resignation; another seat's
new occupant leaves the running turn alone). Moments are taken
monotonically (an event stamped before the latest one counts at the latest one), so two
replicas' slightly different clocks never make a turn negative.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from domain.model.decisions import BY_NAME
from domain.model.terms import TimeControl
from domain.rules import (
    PASS,
    REFUSE,
    REJECT,
    Action,
    GameState,
    Phase,
    PlayCard,
    actor,
    awaiting_order,
)


@dataclass(frozen=True)
class Clock:
    """The clocks of one game after some of its events (immutable)."""

    control: TimeControl
    banks: tuple[int, ...]
    """Each seat's bank (ms) at the start of its current or next turn."""
    actor: int = -1
    """The seat whose clock runs (-1: none)."""
    started_ms: int = 0
    """When the actor's turn began (moved forward by adjourned intervals)."""
    paused_ms: int | None = None
    """Since when the game is adjourned (``None``: it is not)."""
    last_ms: int = 0
    """The latest event moment seen."""

    @property
    def deadline_ms(self) -> int | None:
        """When the actor's time is up (ms since the epoch); ``None`` if no clock runs."""
        if self.actor < 0 or self.paused_ms is not None:
            return None
        return self.started_ms + self.control.move_ms + self.banks[self.actor]


def ms_of(moment: datetime) -> int:
    """An event's timestamp in whole milliseconds since the epoch."""
    return int(moment.timestamp() * 1000)


def start_clock(control: TimeControl, seats: int, at_ms: int) -> Clock:
    """The clocks of a new game: every bank full, nobody to act yet."""
    return Clock(control, (control.bank_ms,) * seats, last_ms=at_ms)


def after_event(
    clock: Clock,
    at_ms: int,
    *,
    actor: int,
    adjourned: bool,
    decided_by: int = -1,
    new_turn: bool = False,
) -> Clock:
    """The clocks after an event recorded at ``at_ms``.

    ``actor``: the seat that must decide after the event (-1: none); ``adjourned``: whether the
    game is adjourned after it; ``decided_by``: the seat whose decision the event records (-1:
    not a decision); ``new_turn``: the event starts a turn even for the same actor (a deal
    dealt, a seat's new occupant)."""
    t = max(at_ms, clock.last_ms)
    started, paused, banks = clock.started_ms, clock.paused_ms, clock.banks
    if paused is not None and not adjourned:  # resumed: the adjourned interval does not count
        started += t - paused
        paused = None
    elif paused is None and adjourned:
        paused = t
    if decided_by >= 0 and decided_by == clock.actor:
        over = max(0, t - started - clock.control.move_ms)
        spent = list(banks)
        spent[decided_by] = max(0, spent[decided_by] - over) + clock.control.increment_ms
        banks = tuple(spent)
    if actor != clock.actor or decided_by >= 0 or new_turn:
        started = t
        if paused is not None:
            paused = t
    return replace(clock, banks=banks, actor=actor, started_ms=started, paused_ms=paused, last_ms=t)


def turn_of(state: GameState) -> int:
    """The seat whose clock runs in ``state`` (the rules core's actor), or -1: no deal in
    progress, the deal scored, the game waiting for its order, or over."""
    deal = state.deal
    if state.finished or deal is None or deal.phase is Phase.SCORED or awaiting_order(state):
        return -1
    return actor(deal)


def starts_turn(name: str, seat: int, actor: int) -> bool:
    """Whether the event ``name`` by ``seat`` starts a turn even for the same ``actor``: a new
    deal, or a new occupant of the seat to act (another seat changing hands leaves the running
    turn alone)."""
    return name == "DealDealt" or (name == "PlayerReplaced" and seat == actor)


def clock_after(
    clock: Clock, name: str, seat: int, at_ms: int, state: GameState, adjourned: bool
) -> Clock:
    """The clocks after the game's event ``name`` by ``seat`` recorded at ``at_ms``, ``state``
    being the game after it (the one rule the aggregate and the audit share)."""
    return after_event(
        clock,
        at_ms,
        actor=turn_of(state),
        adjourned=adjourned,
        decided_by=seat if name in BY_NAME else -1,
        new_turn=starts_turn(name, seat, clock.actor),
    )


CONCEDING_NOTHING: tuple[Action, ...] = (PASS, REJECT, REFUSE)
"""The automatic answers, in order of preference, that concede nothing: the pass (the auction's,
the whist pass, the dealer's or an own whist's "no"), rejecting a claim or an invitation to share
a misère (play goes on), the declarer refusing an own whist (the game is given to him)."""


def default_action(legal: tuple[Action, ...]) -> Action:
    """The automatic move of a seat out of time (issue 14, docs/CLOCKS.md): the first legal of
    ``CONCEDING_NOTHING`` (pass, reject a claim or invitation, refuse an own whist), else the
    lowest legal card (the lowest rank, then the lowest suit in the deck's order), else the
    first legal action in the rules core's order."""
    if not legal:
        raise ValueError("no legal action to default to")
    for answer in CONCEDING_NOTHING:
        if answer in legal:
            return answer
    cards = [a for a in legal if isinstance(a, PlayCard)]
    if cards:
        return min(cards, key=lambda a: (a.card.rank, a.card.suit))
    return legal[0]
