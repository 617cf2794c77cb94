"""The option values of recording, help, settlement and the end of a game (issue 11,
RULES.md §3.4, §3.0 early stop; decisions A-16, A-20, C-5, C-6, C-7).

Pure enumerations, kept apart from ``ruleset`` so that the scoresheet and settlement modules
can name them without importing each other.
"""

from __future__ import annotations

from enum import StrEnum


class Leftover(StrEnum):
    """Where pool points go when no pool is left to help (RULES.md §1.10, §3.4)."""

    EXCESS_TO_OPPONENTS = "excess-to-opponents"
    """Off one's own gora down to zero; the excess is added to each opponent's gora (S001)."""
    BELOW_ZERO = "below-zero"
    """Off one's own gora, even below zero (S000 conventions; equivalent in settlement)."""


class SettlementMethod(StrEnum):
    """How the final settlement is presented (S000 "Первый/Второй способ расчета")."""

    AVERAGE = "average"
    """Method 2: each player's share is per-gora × (average gora − own gora) (S001, TV-22)."""
    AMNESTY = "amnesty"
    """Method 1: the smallest gora is subtracted from every gora (amnesty), each reduced gora
    × per-gora / n is written on its owner by every other player, and the pairs cancel (TV-21).
    The totals equal method 2's; the pairwise amounts are what differs."""


class Ending(StrEnum):
    """When a pulya ends (RULES.md §3.4 "End condition")."""

    POOLS = "pools"
    """Every pool reaches the target (S001, the default)."""
    POOL_SUM = "pool-sum"
    """The sum of the pools reaches target × players; then each player puts twice his shortfall
    below the mean into gora, or writes twice his excess off it (Leningrad, S004, TV-38, C-5)."""
    DEALS = "deals"
    """After a fixed number of deals (``ending_deals``; S004); unclosed pools are settled by the
    early-stop rule. The game also ends if every pool closes first."""


class InitialRounds(StrEnum):
    """How a game starts before the pool proper (S000 "КЛАССИКА", RULES.md §3.5 "Classic")."""

    NONE = "none"
    """The pool starts with the first deal (the default)."""
    RASPASY = "raspasy"
    """``initial_levels`` rounds of compulsory raspasy without an auction: a round (one deal by
    each dealer in turn) of single raspasy, then of double, … (S000: "сначала одинарных, а
    затем двойных"); the round's raspasy is priced as that raspasy of a series."""
    BOMBS_BY_DEALER = "bombs-by-dealer"
    """S000 "Первый вариант": each dealer in turn deals a single, a double, a triple … bomb
    (``initial_levels`` deals), then the deal passes on."""
    BOMBS_BY_ROUND = "bombs-by-round"
    """S000 "Второй вариант": a round of single bombs with the dealer passing, then a round of
    double bombs, then of triple …"""
    GORA = "gora"
    """The simplified start: every player starts with ``initial_gora`` points in gora instead
    of initial rounds (S000 "с упрощенным началом")."""


class Birds(StrEnum):
    """Who puts a "bird" (птичка) on a raspasy in the simplified Classic (S000 "Варианты
    правил для классики"): a single-bomb sign on the sheet, played like one ("Игра на птичке
    аналогична игре на одинарной бомбе"): the player's next game is worth double and the bird
    is crossed out when he makes it (``GameState.bomb_signs``, level 1)."""

    NONE = "none"
    """No birds (the default)."""
    THIRD_PASSER = "third-passer"
    """«Хулиганка»: "Игрок, сказавший “пас” после того, как двое игроков до него объявили
    “пас”, ставит «птичку»; остальные ничего не ставят": the seat whose pass is the third in a
    row in the auction (with three players, the last hand of an all-pass auction). A raspasy
    without an auction (initial or compulsory) has no passes and gives no bird."""
    EVERY_RASPASY_PLAYER = "every-raspasy-player"
    """Simplified Classic without sliding deal: "Все игроки при распасах ставят птичку, в том
    числе и сдатчик": every seat of every raspasy, the initial raspasy rounds included."""


class GoraEnding(StrEnum):
    """When the game ends by writing off gora (S000 simplified Classic: "Игра кончается
    списанием горы или по времени"); only in a game that goes on after its pools close."""

    NONE = "none"
    """Not by gora (the default)."""
    ALL = "all"
    """Every pool is closed and every player's gora is written off (none above zero): nothing
    is left to write off (the Classic ending writes a closed player's points off the others'
    gora, S000 "списывает с горы игрока, имеющего меньше всех в горе")."""
    FIRST = "first"
    """Every pool is closed and some player's gora is written off (the first player whose
    gora is at zero ends the game)."""
