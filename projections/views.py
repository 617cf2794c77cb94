"""The game list read model (``ListGames``; docs/READSIDE.md says why it is a projection).

The projection collects changes in memory while a batch of events is processed and writes them
in ``flush``, inside the runner's batch transaction (so the view and the tracking position change
together). Within a batch only the last state of a row is written.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from domain.model.decisions import event_name
from domain.model.league import LEAGUE_EVENTS
from domain.model.table import TABLE_EVENTS
from projections.db import Cursor


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Games:
    """The game list: one row per game (players, seats, league, rules, status, deal number,
    version, settlement), for listing and filtering across games."""

    name = "games"
    tables: tuple[str, ...] = ("games",)
    indexes: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._games: dict[UUID, dict[str, Any]] = {}

    def create_tables(self, c: Cursor) -> None:
        c.execute(
            "CREATE TABLE IF NOT EXISTS games (game_id TEXT PRIMARY KEY, created_at TEXT NOT "
            "NULL, updated_at TEXT NOT NULL, players TEXT NOT NULL, league TEXT NOT NULL, "
            "rules TEXT NOT NULL, status TEXT NOT NULL, deal_number INTEGER NOT NULL, "
            "version INTEGER NOT NULL, settlement TEXT, seats INTEGER NOT NULL DEFAULT 3)"
        )
        # A table made before tables of 2, 4 and 5 seats lacks the column: every game then had
        # three seats, so adding it with that default equals a rebuild, without one.
        c.execute("SELECT * FROM games LIMIT 0")
        if "seats" not in {column[0].lower() for column in c.description or ()}:
            c.execute("ALTER TABLE games ADD COLUMN seats INTEGER NOT NULL DEFAULT 3")

    def drop_tables(self, c: Cursor) -> None:
        c.execute("DROP TABLE IF EXISTS games")

    def process(self, event: Any, position: int) -> None:
        name = event_name(event)
        if name in LEAGUE_EVENTS or name in TABLE_EVENTS:
            return
        game_id = event.originator_id
        stamp = event.timestamp.isoformat()
        row = self._games.setdefault(game_id, {})
        row["version"] = event.originator_version
        row["updated_at"] = stamp
        if name == "GameCreated":
            row.update(
                created_at=stamp,
                players=list(event.players),
                seats=int(event.rules.get("players", 3)),
                league=event.league,
                rules=event.rules.get("name", "default"),
                status="playing",
                deal_number=0,
                settlement=None,
                new=True,
            )
        elif name == "DealDealt":
            row["deal_number"] = event.number
        elif name == "GameFinished":
            row["status"] = "finished"
            row["settlement"] = list(event.settlement)
        elif name == "GameAborted":
            row["status"] = "aborted"
        elif name == "RulingRecorded" and event.settlement is not None:
            row["settlement"] = list(event.settlement)
        elif name == "PlayerReplaced":  # the settlement is by account: every player, in order
            if row.get("new"):
                row["players"].append(event.player)
            else:
                row.setdefault("joined", []).append(event.player)

    def flush(self, c: Cursor) -> None:
        for game_id, row in self._games.items():
            if row.get("new"):
                c.execute(
                    "INSERT INTO games (game_id, created_at, updated_at, players, league, rules, "
                    "status, deal_number, version, settlement, seats) VALUES (?, ?, ?, ?, ?, ?, "
                    "?, ?, ?, ?, ?)",
                    (
                        str(game_id),
                        row["created_at"],
                        row["updated_at"],
                        dumps(row["players"]),
                        row["league"],
                        row["rules"],
                        row["status"],
                        row["deal_number"],
                        row["version"],
                        None if row["settlement"] is None else dumps(row["settlement"]),
                        row["seats"],
                    ),
                )
                continue
            sets = ["updated_at = ?", "version = ?"]
            values: list[Any] = [row["updated_at"], row["version"]]
            if "deal_number" in row:
                sets.append("deal_number = ?")
                values.append(row["deal_number"])
            if row.get("status"):
                sets.append("status = ?")
                values.append(row["status"])
            if row.get("settlement") is not None:
                sets.append("settlement = ?")
                values.append(dumps(row["settlement"]))
            if row.get("joined"):
                c.execute("SELECT players FROM games WHERE game_id = ?", (str(game_id),))
                found = c.fetchone()
                before = [] if found is None else list(json.loads(found[0]))
                sets.append("players = ?")
                values.append(dumps(before + row["joined"]))
            c.execute(
                f"UPDATE games SET {', '.join(sets)} WHERE game_id = ?", (*values, str(game_id))
            )
        self.reset()

    def reset(self) -> None:
        self._games.clear()
