"""Plain-data forms of rules values for event fields (JSON-ready: ints, strings, lists, dicts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from domain.rules import Action, DealScore, SheetEntry


def action_fingerprint(seat: int, action: Action) -> str:
    """What a request id stands for: the seat and the action in notation."""
    return f"{seat}:{action}"


TIME_FINGERPRINT = "time"
"""What a ``TimeCalled`` request id stands for."""


def order_fingerprint(
    seat: int, pool: int, ends_at: int, obligations: Mapping[str, int] | None = None
) -> str:
    """What a ``GameOrdered`` request id stands for (the robber's obligations, if any, in
    their canonical order)."""
    base = f"{seat}:order {pool} {ends_at}"
    if not obligations:
        return base
    return base + " " + ",".join(f"{k}={v}" for k, v in sorted(obligations.items()) if v)


def stop_fingerprint(seat: int) -> str:
    """What an ``EarlyStopAgreed`` request id stands for."""
    return f"{seat}:stop"


def abort_fingerprint(seat: int) -> str:
    """What a ``GameAborted`` request id stands for."""
    return f"{seat}:abort"


def replace_fingerprint(seat: int, player: str) -> str:
    """What a ``PlayerReplaced`` request id stands for."""
    return f"{seat}:replace:{player}"


def score_to_dict(score: DealScore) -> dict[str, Any]:
    return {
        "pool": list(score.pool),
        "gora": list(score.gora),
        "whists": [list(row) for row in score.whists],
    }


def entry_to_dict(entry: SheetEntry) -> dict[str, Any]:
    out: dict[str, Any] = {
        "pool": list(entry.pool),
        "gora": list(entry.gora),
        "whists": [list(row) for row in entry.whists],
        "helps": [[h.helper, h.recipient, h.points] for h in entry.helps],
    }
    if entry.race is not None:
        # Only games of races (TV-39) record it, so other games' events are unchanged.
        out["race"] = [entry.race.winner, entry.race.amnestier]
    return out


def settlement_to_strings(settlement: Sequence[Fraction]) -> list[str]:
    """Exact results as strings: ``"27/2"``, ``"-40"``."""
    return [str(value) for value in settlement]


def settlement_from_strings(values: Sequence[str]) -> tuple[Fraction, ...]:
    return tuple(Fraction(v) for v in values)
