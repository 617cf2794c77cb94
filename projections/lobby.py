"""The lobby read model: one row per table (``ListTables``, ``WatchTables``).

Built from the ``Table`` events (``domain.model.table``) like the game list (``views.Games``):
changes are collected in memory and written in ``flush`` inside the runner's batch transaction.
Each row's ``seq`` is the log position (``ProjectionRunner``: the notification id with one shard)
of the table's last event: the lobby stream's position, the same in a rebuilt read model. A
client resuming from a position gets every table changed since, in its current state. Rows of
started and closed tables stay (so a stream reports them); lists show open tables only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from domain.model.decisions import event_name
from domain.model.table import TABLE_EVENTS
from domain.model.terms import bot_player_id
from projections.db import Cursor, Database

COLUMNS = (
    "table_id",
    "seq",
    "opened_at",
    "creator",
    "system",
    "seats",
    "empty",
    "league",
    "visibility",
    "state",
    "players",
    "bot_seats",
    "rules",
    "time_control",
    "stake_per_whist",
    "game_id",
    "version",
)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class LobbyTables:
    """The lobby: each table's terms, seats and state."""

    name = "lobby"
    reads = TABLE_EVENTS
    """The events ``process`` looks at: the runner decodes no other."""
    tables: tuple[str, ...] = ("lobby_tables",)
    indexes: tuple[str, ...] = (
        "lobby_tables_listing",
        "lobby_tables_seq",
        "lobby_tables_private",
        "lobby_tables_creator",
    )

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, Any]] = {}
        self._changes: list[tuple[str, str, Any, int]] = []

    def create_tables(self, c: Cursor) -> None:
        c.execute(
            "CREATE TABLE IF NOT EXISTS lobby_tables (table_id TEXT PRIMARY KEY, seq BIGINT NOT "
            "NULL, opened_at TEXT NOT NULL, creator TEXT NOT NULL, system TEXT NOT NULL, seats "
            "INTEGER NOT NULL, empty INTEGER NOT NULL, league TEXT NOT NULL, visibility TEXT NOT "
            "NULL, state TEXT NOT NULL, players TEXT NOT NULL, bot_seats TEXT NOT NULL, rules "
            "TEXT NOT NULL, time_control TEXT, stake_per_whist INTEGER NOT NULL, game_id TEXT "
            "NOT NULL, version INTEGER NOT NULL)"
        )
        # The list: open public tables, newest first; the stream: changes by position.
        c.execute(
            "CREATE INDEX IF NOT EXISTS lobby_tables_listing ON lobby_tables "
            "(state, visibility, opened_at DESC, table_id)"
        )
        c.execute("CREATE INDEX IF NOT EXISTS lobby_tables_seq ON lobby_tables (seq)")
        # ListGames leaves out the games of private tables (``queries.list_games``).
        c.execute(
            "CREATE INDEX IF NOT EXISTS lobby_tables_private ON lobby_tables (visibility, game_id)"
        )
        c.execute(
            "CREATE INDEX IF NOT EXISTS lobby_tables_creator ON lobby_tables (creator, state)"
        )

    def drop_tables(self, c: Cursor) -> None:
        c.execute("DROP TABLE IF EXISTS lobby_tables")

    def process(self, event: Any, position: int) -> None:
        name = event_name(event)
        if name not in TABLE_EVENTS:
            return
        table_id = str(event.originator_id)
        stamp = event.timestamp.isoformat()
        if name == "TableOpened":
            seats = int(event.seats)
            self._rows[table_id] = {
                "table_id": table_id,
                "opened_at": stamp,
                "creator": event.player,
                "system": str(event.rules.get("name", "default")),
                "seats": seats,
                "league": event.league,
                "visibility": event.visibility,
                "state": "open",
                "players": [None] * seats,
                "bot_seats": [],
                "rules": _dumps(event.rules),
                "time_control": None if event.time_control is None else _dumps(event.time_control),
                "stake_per_whist": int(event.stake_per_whist),
                "game_id": event.game_id,
            }
        self._changes.append((table_id, name, event, position))

    def flush(self, c: Cursor) -> None:
        touched: dict[str, dict[str, Any]] = {}
        for table_id, name, event, position in self._changes:
            row = touched.get(table_id) or self._rows.get(table_id) or _read(c, table_id)
            if row is None:
                continue  # not reached: a table's events follow its TableOpened in the log
            touched[table_id] = row
            row["version"] = event.originator_version
            row["seq"] = position
            if name == "SeatTaken":
                row["players"][event.seat] = event.player
            elif name == "SeatLeft":
                row["players"][event.seat] = None
            elif name == "BotSeated":
                row["players"][event.seat] = bot_player_id(event.seat)
                row["bot_seats"] = sorted({*row["bot_seats"], event.seat})
            elif name == "TableStarted":
                row["state"] = "started"
                row["game_id"] = event.game_id
            elif name == "TableClosed":
                row["state"] = "closed"
        for row in touched.values():
            row["empty"] = sum(1 for p in row["players"] if p is None)
            values = [row[k] for k in COLUMNS]
            values[COLUMNS.index("players")] = _dumps(row["players"])
            values[COLUMNS.index("bot_seats")] = _dumps(row["bot_seats"])
            c.execute(
                f"INSERT INTO lobby_tables ({', '.join(COLUMNS)}) VALUES "
                f"({', '.join('?' for _ in COLUMNS)}) ON CONFLICT (table_id) DO UPDATE SET "
                + ", ".join(f"{k} = excluded.{k}" for k in COLUMNS[1:]),
                values,
            )
        self.reset()

    def reset(self) -> None:
        self._rows.clear()
        self._changes.clear()


def _row(values: Sequence[Any]) -> dict[str, Any]:
    row = dict(zip(COLUMNS, values, strict=True))
    row["players"] = json.loads(row["players"])
    row["bot_seats"] = json.loads(row["bot_seats"])
    return row


def _read(c: Cursor, table_id: str) -> dict[str, Any] | None:
    c.execute(f"SELECT {', '.join(COLUMNS)} FROM lobby_tables WHERE table_id = ?", (table_id,))
    found = c.fetchone()
    return None if found is None else _row(found)


def list_tables(
    db: Database,
    *,
    system: str | None = None,
    seats: int | None = None,
    league: str | None = None,
    free_only: bool = False,
    limit: int = 100,
    after: tuple[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Open public tables, newest first (ties by table id), filtered; ``after`` is the
    ``(opened_at, table_id)`` of the previous page's last table (a keyset: tables opened
    meanwhile never shift a page)."""
    where = ["state = 'open'", "visibility = 'public'"]
    params: list[Any] = []
    for column, value in (("system", system), ("seats", seats), ("league", league)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    if free_only:
        where.append("empty > 0")
    if after is not None:
        where.append("(opened_at < ? OR (opened_at = ? AND table_id > ?))")
        params.extend((after[0], after[0], after[1]))
    with db.reading() as c:
        c.execute(
            f"SELECT {', '.join(COLUMNS)} FROM lobby_tables WHERE {' AND '.join(where)} "
            "ORDER BY state, visibility, opened_at DESC, table_id LIMIT ?",
            (*params, max(0, limit)),
        )
        return [_row(r) for r in c.fetchall()]


def changes_after(db: Database, position: int, limit: int = 100) -> list[dict[str, Any]]:
    """Tables changed after the lobby position ``position``, in order of their last change,
    each in its current state (public and private alike: the caller filters)."""
    with db.reading() as c:
        c.execute(
            f"SELECT {', '.join(COLUMNS)} FROM lobby_tables WHERE seq > ? ORDER BY seq LIMIT ?",
            (position, limit),
        )
        return [_row(r) for r in c.fetchall()]


def pending_starts(db: Database, limit: int = 1000) -> list[str]:
    """Open tables with no empty seat: their start is due (``Lobby.sweep`` finishes it)."""
    with db.reading() as c:
        c.execute(
            "SELECT table_id FROM lobby_tables WHERE state = 'open' AND empty = 0 LIMIT ?",
            (limit,),
        )
        return [str(r[0]) for r in c.fetchall()]


def open_tables_of(db: Database, creator: str) -> int:
    """How many open tables ``creator`` opened (as far as the read model has followed)."""
    with db.reading() as c:
        c.execute(
            "SELECT COUNT(*) FROM lobby_tables WHERE creator = ? AND state = 'open'", (creator,)
        )
        found = c.fetchone()
    return int(found[0]) if found else 0
