"""The start of a Classic game: initial rounds and the order of the game (S000 "КЛАССИКА",
RULES.md §3.4 "Pool length", §3.5 "Classic"; issue 12).

Before the pool proper a table may agree on initial rounds (``RuleSet.initial_rounds``):
compulsory raspasy rounds, bomb rounds in S000's two variants, or the simplified start with
agreed gora points. Then (``RuleSet.order_game``) the player with the largest gora orders the
game: the pool length, which replaces ``pool_target`` for the rest of the game, and the end
time of a game played until time. Pure: the end time is data (seconds since the Unix epoch,
UTC) that the rules core never compares with a clock; the service checks it is in the future.

An initial deal is a raspasy dealt without an auction, numbered 1 … ``initial_deals``; the
deal numbered ``k`` (0-based ``k = number - 1``) has its level and dealer by the variant:

* raspasy rounds and bombs by round (S000 "второй вариант"): round ``k // players`` (level
  ``k // players + 1``), the deal passing after every deal;
* bombs by dealer (S000 "первый вариант"): level ``k % levels + 1``, the same dealer dealing
  the ``levels`` deals of his turn, then passing.

After ``levels × players`` deals the first dealer deals again (S000: "сдатчиком опять стал
первый игрок"): the order of the game, then the pool proper with a new raspasy series.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from domain.rules.errors import InvalidAction
from domain.rules.recording import Ending, GoraEnding, InitialRounds
from domain.rules.robber import NONE, Obligations
from domain.rules.ruleset import RuleSet
from domain.rules.seats import hand_mask

MAX_END_TIME = 2**53
"""The largest end time accepted (seconds since the epoch; far beyond any real game)."""

BOMBS = (InitialRounds.BOMBS_BY_DEALER, InitialRounds.BOMBS_BY_ROUND)


class GameOrder(NamedTuple):
    """The order of the game (S000: "до 50 очков в пулю до 23 часов")."""

    seat: int
    """The seat that ordered it: the largest gora after the initial rounds."""
    pool: int
    """The pool length, in force instead of ``RuleSet.pool_target`` from now on."""
    ends_at: int
    """The end time, seconds since the Unix epoch (UTC); 0 in a game not played until time."""
    obligations: Obligations = NONE
    """The robber's obligatory games (``RuleSet.robber``): how many times every player must
    declare each contract kind before every pool is closed (none by default)."""


def check_start(rules: RuleSet) -> None:
    """The semantic checks of the start and end options (``RuleSet`` calls it when made)."""
    kind = rules.initial_rounds
    rounds = kind in (InitialRounds.RASPASY, *BOMBS)
    if rounds != (rules.initial_levels > 0):
        raise InvalidAction(
            "initial_levels (how many levels of initial raspasy or bombs: 3 for single, double "
            "and triple) goes with initial_rounds 'raspasy', 'bombs-by-dealer' or "
            "'bombs-by-round', and only with them",
            field="rules.initial_levels",
        )
    if (kind is InitialRounds.GORA) != (rules.initial_gora > 0):
        raise InvalidAction(
            "initial_gora (the points every player starts with in gora) goes with "
            "initial_rounds 'gora', and only with it",
            field="rules.initial_gora",
        )
    if rules.play_until_time and not rules.ending_by_time:
        raise InvalidAction(
            "play_until_time needs ending_by_time: only a game played until time goes on "
            "after the pools close",
            field="rules.play_until_time",
        )
    if rules.play_until_time and (rules.races or rules.ending is not Ending.POOLS):
        raise InvalidAction(
            "play_until_time goes on after every pool is closed: it needs ending 'pools' and "
            "no races",
            field="rules.play_until_time",
        )
    if rules.gora_ending is not GoraEnding.NONE and not rules.play_until_time:
        raise InvalidAction(
            "gora_ending ends a game that goes on after its pools close when the gora is "
            "written off (S000 simplified Classic): it needs play_until_time",
            field="rules.gora_ending",
        )
    if rules.robber and not rules.order_game:
        raise InvalidAction(
            "robber lets the orderer impose obligatory games in his order: it needs order_game",
            field="rules.robber",
        )
    if rules.robber and rules.robber_gora:
        raise InvalidAction(
            "robber_gora is the agreed dark misère obligation; with robber the orderer imposes "
            "the obligations (a dark misère among them): choose one",
            field="rules.robber",
        )
    if rules.classic_ending and (rules.races or rules.ending is not Ending.POOLS):
        raise InvalidAction(
            "classic_ending writes pool points with help (S000 Classic): it needs ending "
            "'pools' and no races",
            field="rules.classic_ending",
        )


def initial_deals(rules: RuleSet) -> int:
    """How many deals the initial rounds take (0 without initial rounds)."""
    return rules.initial_levels * rules.players


def initial_level(rules: RuleSet, number: int) -> int:
    """The level (1 single, 2 double …) of initial deal ``number`` (1-based)."""
    k = number - 1
    if rules.initial_rounds is InitialRounds.BOMBS_BY_DEALER:
        return k % rules.initial_levels + 1
    return k // rules.players + 1


def initial_streak(rules: RuleSet, number: int) -> int:
    """The raspasy streak deal ``number`` is dealt with: in the initial raspasy rounds, its
    level − 1 (a round of doubles is priced as the second raspasy of a series); 0 for initial
    bombs and for the first deal after the initial rounds (the pool starts a new series)."""
    if rules.initial_rounds is not InitialRounds.RASPASY or number > initial_deals(rules):
        return 0
    return initial_level(rules, number) - 1


def dealer_stays(rules: RuleSet, number: int) -> bool:
    """Whether the dealer of initial deal ``number`` also deals the next deal (bombs by
    dealer: until he has dealt every level)."""
    return (
        rules.initial_rounds is InitialRounds.BOMBS_BY_DEALER and number % rules.initial_levels != 0
    )


def bombers(rules: RuleSet, dealer: int) -> int:
    """The seats that get the sign of an initial bomb: everyone who holds cards (S000: "Сидящий
    на прикупе бомб не получает"; with three players nobody sits out)."""
    held = hand_mask(dealer, rules.players) & ((1 << rules.players) - 1)  # not a dummy
    return held | 1 << dealer if rules.dealer_bomb_sign else held


def orderer(gora: Sequence[int], first_hand: int) -> int:
    """The seat that orders the game: the largest gora (S000 "наибольшее количество очков в
    горе"). Decision for a tie (the seed is silent): the first of the tied from the first hand
    of the next deal, clockwise — the order in which the table speaks."""
    n = len(gora)
    clockwise = [(first_hand + i) % n for i in range(n)]
    return max(clockwise, key=lambda s: gora[s])  # max keeps the first of equals


def check_order(rules: RuleSet, pool: int, ends_at: int) -> None:
    """The order's own checks, as malformed input (``InvalidAction`` naming the field); the
    service checks that the end time is in the future."""
    from domain.rules.ruleset_schema import MAX_POOL_TARGET

    if isinstance(pool, bool) or not isinstance(pool, int) or not 1 <= pool <= MAX_POOL_TARGET:
        raise InvalidAction(f"the pool length must be 1 to {MAX_POOL_TARGET} points", field="pool")
    if isinstance(ends_at, bool) or not isinstance(ends_at, int):
        raise InvalidAction("the end time must be a whole number of seconds", field="end_time")
    if rules.ending_by_time and not 0 < ends_at <= MAX_END_TIME:
        raise InvalidAction(
            "this game is played until time: the order names its end time", field="end_time"
        )
    if not rules.ending_by_time and ends_at != 0:
        raise InvalidAction(
            "this game is not played until time (rules.ending_by_time): the order names no "
            "end time",
            field="end_time",
        )
