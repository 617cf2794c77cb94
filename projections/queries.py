"""Reading the game list (``ListGames``). League statistics are read by ``stats_queries``.

Everything about one game (its record, seat views, scoresheet) is read from the aggregate, not
from here: docs/READSIDE.md says which query reads what, and why."""

from __future__ import annotations

import json
from typing import Any

from projections.db import Database


def list_games(
    db: Database,
    *,
    status: str | None = None,
    league: str | None = None,
    limit: int = 100,
    after: tuple[str, str] | None = None,
    hide_private: bool = False,
) -> list[dict[str, Any]]:
    """Games, newest first (ties by game id), optionally filtered by status or league;
    ``after`` is the ``(created_at, game_id)`` of the last game of the previous page (a keyset:
    games created meanwhile never shift a page). ``hide_private`` leaves out the games of
    private tables (the lobby read model's ``lobby_tables``, which must exist: ``Lobby``)."""
    where, params = [], []
    if hide_private:
        where.append(
            "game_id NOT IN (SELECT game_id FROM lobby_tables WHERE visibility = 'private')"
        )
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
            f"version, settlement, seats FROM games {clause}ORDER BY created_at DESC, game_id "
            "LIMIT ?",
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
            "seats": r[10],
        }
        for r in rows
    ]
