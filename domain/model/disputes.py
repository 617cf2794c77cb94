"""Disputes: a seat flags a scored deal, an auditor rules on it (docs/AUDIT.md, "Disputes").

A ruling either changes nothing ("no change", ``adjustment`` ``None``) or adds an adjustment to
the scoresheet: ``{"gora": [g0, g1, g2], "whists": [[…], […], […]]}`` (``whists[writer][target]``,
zero on the diagonal). The pool is never adjusted: closing the pools is what ends the game.
These checks are shared by the aggregate (before recording), the replay and the audit.
"""

from __future__ import annotations

import json
from typing import Any

from domain.rules import GameState, ScoreSheet
from domain.rules.errors import InvalidAction

MAX_REASON = 500
MAX_POINTS = 100_000
"""The largest adjustment of one cell (in either direction)."""


def check_reason(reason: Any, field: str = "reason") -> str:
    """A reason: 1 to 500 printable characters (not only spaces)."""
    if (
        not isinstance(reason, str)
        or not reason.strip()
        or len(reason) > MAX_REASON
        or not reason.isprintable()
    ):
        raise InvalidAction(
            f"the reason must be 1 to {MAX_REASON} printable characters", field=field
        )
    return reason


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_POINTS


def check_adjustment(adjustment: Any, players: int = 3) -> dict[str, Any] | None:
    """The adjustment in its recorded form (``None`` for "no change"); raises if malformed."""
    if adjustment is None:
        return None
    field = "adjustment"
    if not isinstance(adjustment, dict) or set(adjustment) != {"gora", "whists"}:
        raise InvalidAction(
            "an adjustment has exactly 'gora' and 'whists' (the pool is never adjusted)",
            field=field,
        )
    gora, whists = adjustment["gora"], adjustment["whists"]
    if not isinstance(gora, list) or len(gora) != players or not all(_int(g) for g in gora):
        raise InvalidAction(
            f"the gora adjustment must be {players} whole numbers of at most {MAX_POINTS}",
            field=field,
        )
    if (
        not isinstance(whists, list)
        or len(whists) != players
        or not all(isinstance(row, list) and len(row) == players for row in whists)
        or not all(_int(w) for row in whists for w in row)
    ):
        raise InvalidAction(
            f"the whists adjustment must be {players} rows of {players} whole numbers "
            f"of at most {MAX_POINTS}",
            field=field,
        )
    if any(whists[seat][seat] != 0 for seat in range(players)):
        raise InvalidAction("nobody writes whists on himself: the diagonal must be 0", field=field)
    if not any(gora) and not any(any(row) for row in whists):
        raise InvalidAction(
            "the adjustment changes nothing: record the ruling as 'no change' instead",
            field=field,
        )
    return {"gora": list(gora), "whists": [list(row) for row in whists]}


def adjusted(sheet: ScoreSheet, adjustment: dict[str, Any] | None) -> ScoreSheet:
    """The sheet with a ruling's adjustment added (the same sheet for "no change")."""
    if adjustment is None:
        return sheet
    gora = tuple(g + d for g, d in zip(sheet.gora, adjustment["gora"], strict=True))
    whists = tuple(
        tuple(w + d for w, d in zip(row, drow, strict=True))
        for row, drow in zip(sheet.whists, adjustment["whists"], strict=True)
    )
    return sheet._replace(gora=gora, whists=whists)


def apply_ruling(state: GameState, adjustment: dict[str, Any] | None) -> GameState:
    """The game with a ruling applied to its sheet."""
    if adjustment is None:
        return state
    return state._replace(sheet=adjusted(state.sheet, adjustment))


def flag_fingerprint(seat: int, deal_number: int, reason: str) -> str:
    """What a request id stands for when it flags a deal."""
    return "flag:" + json.dumps([seat, deal_number, reason], ensure_ascii=False)


def ruling_fingerprint(deal_number: int, reason: str, adjustment: dict[str, Any] | None) -> str:
    """What a request id stands for when it records a ruling."""
    return "ruling:" + json.dumps(
        [deal_number, reason, adjustment], ensure_ascii=False, sort_keys=True
    )
