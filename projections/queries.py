"""Reading the views (the query side). Every function returns plain data or ``None``."""

from __future__ import annotations

import json
from typing import Any

from projections.db import Database
from projections.views import read_totals


def seat_view(
    db: Database, game_id: str, seat: int, deal_number: int | None = None
) -> dict[str, Any] | None:
    """The seat's view of a deal (the current deal by default)."""
    with db.reading() as c:
        if deal_number is None:
            c.execute(
                "SELECT view FROM seat_views WHERE game_id = ? AND seat = ? "
                "ORDER BY deal_number DESC LIMIT 1",
                (game_id, seat),
            )
        else:
            c.execute(
                "SELECT view FROM seat_views WHERE game_id = ? AND seat = ? AND deal_number = ?",
                (game_id, seat, deal_number),
            )
        row = c.fetchone()
    return None if row is None else dict(json.loads(row[0]))


def scoresheet(db: Database, game_id: str) -> dict[str, Any] | None:
    """Totals, the settlement (once finished) and every deal's sheet entry."""
    with db.reading() as c:
        totals = read_totals(c, game_id)
        if totals is None:
            return None
        c.execute(
            "SELECT deal_number, kind, declarer, contract, tricks, entry FROM scoresheet_deals "
            "WHERE game_id = ? ORDER BY deal_number",
            (game_id,),
        )
        totals["entries"] = [
            {
                "deal_number": d[0],
                "kind": d[1],
                "declarer": d[2],
                "contract": d[3],
                "tricks": json.loads(d[4]),
                "entry": json.loads(d[5]),
            }
            for d in c.fetchall()
        ]
        c.execute(
            "SELECT version, kind, deal_number, seat, reason, auditor, adjustment FROM "
            "scoresheet_disputes WHERE game_id = ? ORDER BY version",
            (game_id,),
        )
        disputes = c.fetchall()
        totals["flags"] = [
            {"version": d[0], "deal_number": d[2], "seat": d[3], "reason": d[4]}
            for d in disputes
            if d[1] == "flag"
        ]
        totals["rulings"] = [
            {
                "version": d[0],
                "deal_number": d[2],
                "reason": d[4],
                "auditor": d[5],
                "adjustment": None if d[6] is None else json.loads(d[6]),
            }
            for d in disputes
            if d[1] == "ruling"
        ]
    return totals


def list_games(
    db: Database,
    *,
    status: str | None = None,
    league: str | None = None,
    limit: int = 100,
    after: tuple[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Games, newest first (ties by game id), optionally filtered by status or league;
    ``after`` is the ``(created_at, game_id)`` of the last game of the previous page (a keyset:
    games created meanwhile never shift a page)."""
    where, params = [], []
    if status:
        where.append("status = ?")
        params.append(status)
    if league is not None:
        where.append("league = ?")
        params.append(league)
    if after is not None:
        where.append("(created_at < ? OR (created_at = ? AND game_id > ?))")
        params.extend((after[0], after[0], after[1]))
    clause = f"WHERE {' AND '.join(where)} " if where else ""
    with db.reading() as c:
        c.execute(
            "SELECT game_id, created_at, updated_at, players, league, rules, status, deal_number, "
            f"version, settlement FROM games {clause}ORDER BY created_at DESC, game_id LIMIT ?",
            (*params, max(0, limit)),
        )
        rows = c.fetchall()
    return [
        {
            "game_id": r[0],
            "created_at": r[1],
            "updated_at": r[2],
            "players": json.loads(r[3]),
            "league": r[4],
            "rules": r[5],
            "status": r[6],
            "deal_number": r[7],
            "version": r[8],
            "settlement": json.loads(r[9]) if r[9] else None,
        }
        for r in rows
    ]


def game_history(db: Database, game_id: str) -> list[dict[str, Any]]:
    """Every deal of a game with its result, in order."""
    with db.reading() as c:
        c.execute(
            "SELECT deal_number, dealer, kind, declarer, contract, tricks FROM game_deals "
            "WHERE game_id = ? ORDER BY deal_number",
            (game_id,),
        )
        rows = c.fetchall()
    return [
        {
            "deal_number": r[0],
            "dealer": r[1],
            "kind": r[2],
            "declarer": r[3],
            "contract": r[4],
            "tricks": json.loads(r[5]),
        }
        for r in rows
    ]
