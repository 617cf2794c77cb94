"""Reading the balances read model (``projections.ledger``) as plain data: amounts are integer
hundredths of a virtual coin (docs/STAKES.md)."""

from __future__ import annotations

from typing import Any

from projections.db import Database
from projections.ledger import ALL_GAMES


def balance(db: Database, player_id: str, league: str = ALL_GAMES) -> dict[str, Any]:
    """A player's balance in a scope (every game, or a league's); zero if he has no entry."""
    with db.reading() as c:
        c.execute(
            "SELECT balance_cents, entries, games FROM ledger_balances WHERE scope = ? AND "
            "player_id = ?",
            (league, player_id),
        )
        found = c.fetchone()
    cents, entries, games = (0, 0, 0) if found is None else (int(v) for v in found)
    return {
        "player_id": player_id,
        "league": league,
        "balance_cents": cents,
        "entries": entries,
        "games": games,
    }


def entries(
    db: Database,
    player_id: str,
    league: str = ALL_GAMES,
    limit: int = 50,
    after: tuple[str, str, int] | None = None,
) -> list[dict[str, Any]]:
    """A player's ledger entries, newest first (ties: game id, then version, descending), one
    page of them: after the entry whose (recorded_at, game_id, version) is ``after``."""
    where, params = "player_id = ?", list[Any]([player_id])
    if league != ALL_GAMES:
        where += " AND league = ?"
        params.append(league)
    if after is not None:
        where += (
            " AND (recorded_at < ? OR (recorded_at = ? AND (game_id < ? OR "
            "(game_id = ? AND version < ?))))"
        )
        params.extend((after[0], after[0], after[1], after[1], after[2]))
    with db.reading() as c:
        c.execute(
            "SELECT game_id, version, account, league, kind, amount_cents, stake_per_whist, "
            f"recorded_at FROM ledger_entries WHERE {where} "
            "ORDER BY recorded_at DESC, game_id DESC, version DESC LIMIT ?",
            (*params, max(0, limit)),
        )
        rows = c.fetchall()
    return [
        {
            "game_id": r[0],
            "version": int(r[1]),
            "account": int(r[2]),
            "league": r[3],
            "kind": r[4],
            "amount_cents": int(r[5]),
            "stake_per_whist": int(r[6]),
            "recorded_at": r[7],
        }
        for r in rows
    ]


def balances(
    db: Database,
    league: str = ALL_GAMES,
    descending: bool = True,
    limit: int = 50,
    after: tuple[int, str] | None = None,
) -> list[dict[str, Any]]:
    """The players of a scope by balance (ties by player id ascending), one page: after the row
    whose balance and player id are ``after`` (a keyset, stable while balances change)."""
    direction = "DESC" if descending else "ASC"
    where, params = "scope = ?", list[Any]([league])
    if after is not None:
        beyond = "<" if descending else ">"
        where += f" AND (balance_cents {beyond} ? OR (balance_cents = ? AND player_id > ?))"
        params.extend((after[0], after[0], after[1]))
    with db.reading() as c:
        c.execute(
            "SELECT player_id, balance_cents, entries, games FROM ledger_balances "
            f"WHERE {where} ORDER BY balance_cents {direction}, player_id ASC LIMIT ?",
            (*params, max(0, limit)),
        )
        rows = c.fetchall()
    return [
        {
            "player_id": r[0],
            "league": league,
            "balance_cents": int(r[1]),
            "entries": int(r[2]),
            "games": int(r[3]),
        }
        for r in rows
    ]
