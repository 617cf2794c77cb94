"""Stakes: a settlement in whists made virtual money (docs/STAKES.md). No real money anywhere.

A game created with ``stake_per_whist`` > 0 (``domain.model.terms``) moves virtual coins between
its accounts when it ends: each account's settlement (exact whists, ``settle_game``, e.g. 20/3)
times the stake. Amounts are **integer hundredths of a coin** ("cents"): exact, and summing to
zero. The exact value of an account is ``settlement × stake × 100`` cents, a fraction; each
account gets its floor, and the cents the floors leave over (the exact values sum to zero, so
the floors sum to ``-k`` for some ``0 ≤ k < accounts``) go one each to the ``k`` accounts with
the largest remainders, ties to the earlier account (largest-remainder rounding). Every amount
is then within one cent of its exact value, and the amounts sum to zero exactly.

A ruling that changes a finished game's settlement moves the difference: the money of the new
settlement minus the money of the one before (both rounded as above), which also sums to zero,
so a game's ledger entries always add up to the money of its settlement in force.

Pure: no clock, no I/O; the aggregate records what this computes and the audit recomputes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from domain.model.codec import settlement_from_strings
from domain.rules.errors import RulesError

CENTS = 100
"""Ledger amounts are in hundredths of a virtual coin."""


class LedgerError(RulesError):
    """A settlement that cannot be turned into money (it does not sum to zero)."""


def money(settlement: Sequence[Fraction], stake_per_whist: int) -> list[int]:
    """Each account's amount in cents for ``settlement`` (whists) at ``stake_per_whist`` coins a
    whist: largest-remainder rounding of the exact values; the amounts sum to zero."""
    if sum(settlement, Fraction(0)) != 0:
        raise LedgerError(f"a settlement must sum to zero, not {sum(settlement, Fraction(0))}")
    exact = [Fraction(value) * stake_per_whist * CENTS for value in settlement]
    floors = [value.numerator // value.denominator for value in exact]
    left = -sum(floors)
    by_remainder = sorted(range(len(exact)), key=lambda i: (-(exact[i] - floors[i]), i))
    for index in by_remainder[:left]:
        floors[index] += 1
    return floors


def difference(before: Sequence[int], after: Sequence[int]) -> list[int]:
    """What moves when the money ``before`` becomes ``after`` (per account, in cents)."""
    if len(before) != len(after):
        raise LedgerError("the settlements name different accounts")
    return [new - old for old, new in zip(before, after, strict=True)]


def format_cents(amount: int) -> str:
    """An amount in cents as coins, exactly: ``-667`` → ``"-6.67"``."""
    sign = "-" if amount < 0 else ""
    whole, cents = divmod(abs(amount), CENTS)
    return f"{sign}{whole}.{cents:02d}"


def ledger_problem(
    recorded: object, players: Sequence[str], expected: Sequence[int], stake_per_whist: int
) -> str | None:
    """What is wrong with a recorded ledger event (``StakesSettled``, ``StakesAdjusted``) given
    the accounts, the amounts recomputed from the settlements and the game's stake, or
    ``None`` (the audit's check, docs/AUDIT.md)."""
    amounts = getattr(recorded, "amounts", None)
    if getattr(recorded, "stake_per_whist", None) != stake_per_whist:
        return f"the stake {getattr(recorded, 'stake_per_whist', None)!r} is not the game's"
    if list(getattr(recorded, "players", ())) != list(players):
        return f"the accounts {getattr(recorded, 'players', None)!r} are not the game's"
    if not isinstance(amounts, list) or sum(amounts) != 0:
        return f"the amounts {amounts!r} do not sum to zero"
    if amounts != list(expected):
        return (
            f"the amounts {amounts} (cents) do not follow from the settlement at the stake, "
            f"which gives {list(expected)}"
        )
    return None


def stakes_problem(stakes: Mapping[str, Any] | None, settlement: Sequence[str]) -> str | None:
    """What is wrong with a hand record's ``stakes`` (docs/HANDRECORD.md) for its settlement:
    the amounts must be the settlement's money at the stake; ``None`` if right or absent."""
    if stakes is None:
        return None
    expected = money(settlement_from_strings(settlement), stakes["stake_per_whist"])
    if list(stakes["amounts"]) != expected:
        return (
            f"the recorded stakes {list(stakes['amounts'])} (cents) are wrong: the settlement "
            f"at {stakes['stake_per_whist']} a whist gives {expected}"
        )
    return None
