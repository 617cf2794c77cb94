"""A game's terms beyond its rules: the time control, the seats the server plays, the stake.

They are fixed when the game is created (``GameCreated`` records them) and, like the rule set,
hold for the whole game. They are not rules of Preferans, so they are not in the ``RuleSet``: the
same conventions are played with or without a clock, bots or money.

- ``TimeControl``: how long a seat may think. A fresh allowance per decision (``move_ms``) is
  spent first, then the seat's bank (``bank_ms``), which gains ``increment_ms`` after each of the
  seat's decisions. Out of time, the seat gets ``on_timeout``: an automatic default move, or the
  loss of the game (forfeit).
- ``bot_seats``: seats whose decisions the server makes (its bots).
- ``stake_per_whist``: virtual coins per whist of the settlement (0: no stakes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.rules.errors import InvalidAction

ON_TIMEOUT = ("default_move", "forfeit")
"""What a seat out of time gets: its default move (pass, or the lowest legal card), or forfeit."""

MAX_MOVE_MS = 24 * 3600 * 1000
"""At most a day per decision (correspondence play)."""
MAX_BANK_MS = 7 * 24 * 3600 * 1000
"""At most a week in a bank."""
MAX_INCREMENT_MS = 3600 * 1000
MIN_ALLOWANCE_MS = 1000
"""A clock gives at least a second (per move or in the bank) before anything happens."""
MAX_STAKE_PER_WHIST = 10_000


@dataclass(frozen=True)
class TimeControl:
    """A table's time control; every duration in milliseconds."""

    move_ms: int = 0
    bank_ms: int = 0
    increment_ms: int = 0
    on_timeout: str = "default_move"

    def __post_init__(self) -> None:
        for field, value, most in (
            ("move_ms", self.move_ms, MAX_MOVE_MS),
            ("bank_ms", self.bank_ms, MAX_BANK_MS),
            ("increment_ms", self.increment_ms, MAX_INCREMENT_MS),
        ):
            if not 0 <= value <= most:
                raise InvalidAction(
                    f"{field} must be from 0 to {most} ms, not {value}",
                    field=f"time_control.{field}",
                )
        if self.move_ms + self.bank_ms < MIN_ALLOWANCE_MS:
            raise InvalidAction(
                f"a time control gives at least {MIN_ALLOWANCE_MS} ms per move or in the bank",
                field="time_control",
            )
        if self.on_timeout not in ON_TIMEOUT:
            raise InvalidAction(
                f"on_timeout is one of {', '.join(ON_TIMEOUT)}, not {self.on_timeout!r}",
                field="time_control.on_timeout",
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "move_ms": self.move_ms,
            "bank_ms": self.bank_ms,
            "increment_ms": self.increment_ms,
            "on_timeout": self.on_timeout,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> TimeControl | None:
        return None if data is None else cls(**data)


def check_bot_seats(bot_seats: list[int] | tuple[int, ...], seats: int) -> list[int]:
    """The seats the server plays, sorted: each a seat of the table, once; not every seat."""
    out = sorted(bot_seats)
    if len(set(out)) != len(out) or any(not 0 <= s < seats for s in out):
        raise InvalidAction(
            f"bot seats are different seats from 0 to {seats - 1}", field="bot_seats"
        )
    if len(out) == seats:
        raise InvalidAction("at least one seat is a person's", field="bot_seats")
    return out


def check_stake(stake_per_whist: int) -> int:
    if not 0 <= stake_per_whist <= MAX_STAKE_PER_WHIST:
        raise InvalidAction(
            f"the stake is from 0 to {MAX_STAKE_PER_WHIST} coins per whist",
            field="stake_per_whist",
        )
    return stake_per_whist


BOT_PREFIX = "bot:"
"""The start of every server bot's player id; no person's id starts with it."""


def bot_player_id(seat: int, nth: int = 1) -> str:
    """The player id of the server's bot at ``seat`` (unique at a table): ``bot:seat<N>``; the
    ``nth`` bot account of the seat, when the seat went to the bot again after a person took it
    from the bot (one account per player of the sheet), is ``bot:seat<N>.<nth>``."""
    base = f"{BOT_PREFIX}seat{seat}"
    return base if nth == 1 else f"{base}.{nth}"


def is_bot_of(player: str, seat: int) -> bool:
    """Whether ``player`` is one of the server's bot accounts of ``seat`` (``bot_player_id``)."""
    base = bot_player_id(seat)
    if player == base:
        return True
    nth = player[len(base) + 1 :] if player.startswith(base + ".") else ""
    return nth.isascii() and nth.isdigit() and not nth.startswith("0") and int(nth) >= 2


def fresh_bot_id(seat: int, accounts: list[str]) -> str:
    """The bot account that takes ``seat`` now: the first of the seat's bot ids
    (``bot_player_id``) not yet among the game's ``accounts``."""
    nth = 1
    while bot_player_id(seat, nth) in accounts:
        nth += 1
    return bot_player_id(seat, nth)


def check_bot_players(players: list[str], bot_seats: list[int]) -> None:
    """The server's bots sit exactly at the bot seats, each under its own id."""
    for seat, player in enumerate(players):
        if seat in bot_seats and player != bot_player_id(seat):
            raise InvalidAction(
                f"the bot at seat {seat} is {bot_player_id(seat)!r}",
                field=f"players[{seat}].player_id",
            )
        if seat not in bot_seats and player.startswith(BOT_PREFIX):
            raise InvalidAction(
                f"ids starting with {BOT_PREFIX!r} are the server's bots (bot_seats)",
                field=f"players[{seat}].player_id",
            )
