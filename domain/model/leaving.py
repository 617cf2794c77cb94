"""Leaving a game and pausing it (issue 14, docs/CLOCKS.md): resignation, forfeit on time,
adjournment by agreement, and the time-out itself: their reasons, request fingerprints and
refusals. The events are the ``Game``'s (``PlayerReplaced`` with a reason, ``TimeExpired``,
``AdjournmentAgreed``, ``ResumptionAgreed``).

A seat that resigns (or forfeits on time) leaves as a player who leaves early does (RULES.md
§3.4 "Early stop", the ``replace_player`` accounting: his missing pool points go to his gora,
his account is settled after the pool) and the server's bot (``fresh_bot_id``) takes the seat
and plays on. When every person has left, the bots play the game to its end: each leaver's
result is his account's, fixed when he left.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.model.terms import TimeControl, is_bot_of
from domain.rules import GameState, replace_player
from domain.rules.errors import IllegalAction, RulesError

RESIGNED = "resigned"
"""``PlayerReplaced.reason`` of a seat that resigned."""
FORFEIT = "time"
"""``PlayerReplaced.reason`` of a seat that ran out of time under ``on_timeout=forfeit``."""
REASONS = ("", RESIGNED, FORFEIT)
"""Every ``PlayerReplaced.reason``; ``""``: the creator's replacement of a player by another
(TV-27)."""
ON_FORFEIT = "forfeit"
"""``TimeControl.on_timeout`` of a table where a seat out of time forfeits."""


class NotDue(IllegalAction):
    """A time-out asked before the seat's deadline, or with no clock running: nothing is
    recorded."""


class Moot(IllegalAction):
    """A time-out or a bot's move for a version the game has left (a decision landed first):
    nothing is recorded."""


class BotSeat(IllegalAction):
    """A person's command (resign, adjourn, resume) for a seat the server's bot plays."""


class Adjourned(IllegalAction):
    """The game is adjourned: no decision is accepted until every person asks to resume."""


def timeout_request(version: int) -> str:
    """The request id of the time-out of the game at ``version``: the same on every replica and
    retry, so a time-out is recorded at most once. It ends with a space, which no client's
    request id may (``service.app.validation``)."""
    return f"timeout@{version} "


def bot_request(version: int) -> str:
    """The request id of the server bot's decision at ``version`` (as ``timeout_request``)."""
    return f"bot@{version} "


TIMEOUT_FINGERPRINT = "timeout"
"""What a time-out's request id stands for (its seat is the game's, not the caller's)."""


def adjourn_fingerprint(seat: int) -> str:
    return f"{seat}:adjourn"


def resume_fingerprint(seat: int) -> str:
    return f"{seat}:resume"


def persons(seats: int, bot_seats: Iterable[int]) -> frozenset[int]:
    """The seats people play."""
    return frozenset(range(seats)) - frozenset(bot_seats)


def check_person(seat: int, bot_seats: Iterable[int]) -> None:
    if seat in set(bot_seats):
        raise BotSeat(f"seat {seat} is played by the server's bot")


def agreement(agreed: set[int], adjourned: bool, people: frozenset[int]) -> tuple[set[int], bool]:
    """The agreements and the adjournment once ``agreed`` seats have agreed: when they include
    every person's seat, the game is adjourned (or resumed) and the agreements start again. A
    game with no person left (all resigned) is never adjourned: its bots play it out."""
    if not people:
        return set(), False
    if agreed and people <= agreed:
        return set(), not adjourned
    return agreed, adjourned


def bot_seats_after(bot_seats: list[int], seat: int, player: str) -> list[int]:
    """The bot seats after ``player`` takes ``seat`` (``PlayerReplaced``): the seat is the
    server bot's if he is one of its bot accounts (a resignation, a forfeit: ``is_bot_of``),
    else a person's (the creator may seat a person in a bot's place)."""
    others = [s for s in bot_seats if s != seat]
    return sorted([*others, seat]) if is_bot_of(player, seat) else others


def forfeits(
    control: TimeControl | None, seat: int, bot_seats: Iterable[int], state: GameState
) -> bool:
    """Whether ``seat`` out of time forfeits (else its default move is played): under
    ``on_timeout=forfeit``, a person's seat, while another player may still join
    (``replace_player``: not past ``MAX_REPLACEMENTS``). The game and the audit ask this one."""
    if control is None or control.on_timeout != ON_FORFEIT or seat in set(bot_seats):
        return False
    try:
        replace_player(state, seat)
    except RulesError:
        return False
    return True
