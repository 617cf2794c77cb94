"""The read models: each seat's view, the three-part scoresheet, and the game list with history.

Each projection collects changes in memory while a batch of events is processed and writes them
in ``flush``, inside the runner's batch transaction (so the view and the tracking position change
together). Within a batch only the last state of a row is written.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from domain.model.decisions import event_name
from domain.rules import Phase, seat_view
from domain.rules.state import DealState
from projections.db import Cursor, Database
from projections.replay import GameCache, GameLoader
from projections.seat_view import cards, view_to_dict


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def read_totals(c: Cursor, game_id: str) -> dict[str, Any] | None:
    """A game's scoresheet totals as stored (``None`` if the game has none)."""
    c.execute(
        "SELECT version, players, pool, gora, whists, deals, settlement FROM "
        "scoresheet_totals WHERE game_id = ?",
        (game_id,),
    )
    row = c.fetchone()
    if row is None:
        return None
    return {
        "version": row[0],
        "players": json.loads(row[1]),
        "pool": json.loads(row[2]),
        "gora": json.loads(row[3]),
        "whists": json.loads(row[4]),
        "deals": row[5],
        "settlement": json.loads(row[6]) if row[6] else None,
    }


class SeatViews:
    """For each game, deal and seat: exactly what that seat may see now (all, once it ended)."""

    name = "seat_views"
    tables: tuple[str, ...] = ("seat_views",)
    indexes: tuple[str, ...] = ()

    def __init__(self, load: GameLoader | None = None) -> None:
        self.games = GameCache(load)
        self._dirty: dict[tuple[UUID, int], tuple[int, DealState]] = {}

    def create_tables(self, c: Cursor) -> None:
        c.execute(
            "CREATE TABLE IF NOT EXISTS seat_views (game_id TEXT NOT NULL, deal_number INTEGER "
            "NOT NULL, seat INTEGER NOT NULL, version INTEGER NOT NULL, view TEXT NOT NULL, "
            "PRIMARY KEY (game_id, deal_number, seat))"
        )

    def drop_tables(self, c: Cursor) -> None:
        c.execute("DROP TABLE IF EXISTS seat_views")

    def process(self, event: Any, position: int) -> None:
        state = self.games.advance(event)
        deal = state.deal
        if deal is not None:
            # States are immutable: keep the latest per deal, render once per batch.
            key = (event.originator_id, state.deal_number)
            self._dirty[key] = (event.originator_version, deal)

    def flush(self, c: Cursor) -> None:
        rows = []
        for (game_id, number), (version, deal) in self._dirty.items():
            over = deal.phase is Phase.SCORED
            data: dict[str, Any] = {}
            for seat in range(len(deal.dealt)):
                if over and data:
                    # Once over, every seat sees everything: only "seat" and "hand" differ.
                    data = dict(data, seat=seat, hand=cards(deal.play.hands[seat]))
                else:
                    data = view_to_dict(seat_view(deal, seat), deal)
                data["deal_number"] = number
                data["version"] = version
                rows.append((str(game_id), number, seat, version, dumps(data)))
        c.executemany(
            "INSERT INTO seat_views (game_id, deal_number, seat, version, view) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, deal_number, seat) DO UPDATE SET "
            "version = excluded.version, view = excluded.view",
            rows,
        )
        self._dirty.clear()

    def reset(self) -> None:
        self._dirty.clear()
        self.games.clear()


class Scoresheet:
    """The three-part sheet deal by deal (pool, gora, whists written on each opponent) and the
    running totals with the settlement once the game ends; the seats' flags and the auditors'
    rulings, whose adjustments are in the totals (and a ruling after the end, in the
    settlement)."""

    name = "scoresheet"
    tables: tuple[str, ...] = ("scoresheet_deals", "scoresheet_totals", "scoresheet_disputes")
    indexes: tuple[str, ...] = ()

    def __init__(self, db: Database) -> None:
        self.db = db
        self._deals: list[tuple[Any, ...]] = []
        self._disputes: list[tuple[Any, ...]] = []
        self._totals: dict[UUID, dict[str, Any]] = {}
        self._dirty: set[UUID] = set()

    def create_tables(self, c: Cursor) -> None:
        c.execute(
            "CREATE TABLE IF NOT EXISTS scoresheet_deals (game_id TEXT NOT NULL, deal_number "
            "INTEGER NOT NULL, version INTEGER NOT NULL, kind TEXT NOT NULL, declarer INTEGER "
            "NOT NULL, contract TEXT NOT NULL, tricks TEXT NOT NULL, entry TEXT NOT NULL, "
            "PRIMARY KEY (game_id, deal_number))"
        )
        c.execute(
            "CREATE TABLE IF NOT EXISTS scoresheet_totals (game_id TEXT PRIMARY KEY, version "
            "INTEGER NOT NULL, players TEXT NOT NULL, pool TEXT NOT NULL, gora TEXT NOT NULL, "
            "whists TEXT NOT NULL, deals INTEGER NOT NULL, settlement TEXT)"
        )
        c.execute(
            "CREATE TABLE IF NOT EXISTS scoresheet_disputes (game_id TEXT NOT NULL, version "
            "INTEGER NOT NULL, kind TEXT NOT NULL, deal_number INTEGER NOT NULL, seat INTEGER "
            "NOT NULL, reason TEXT NOT NULL, auditor TEXT NOT NULL, adjustment TEXT, "
            "PRIMARY KEY (game_id, version))"
        )

    def drop_tables(self, c: Cursor) -> None:
        c.execute("DROP TABLE IF EXISTS scoresheet_deals")
        c.execute("DROP TABLE IF EXISTS scoresheet_totals")
        c.execute("DROP TABLE IF EXISTS scoresheet_disputes")

    def _current(self, game_id: UUID) -> dict[str, Any]:
        totals = self._totals.get(game_id)
        if totals is None:
            with self.db.reading() as c:
                totals = read_totals(c, str(game_id))
            if totals is None:
                raise LookupError(f"no scoresheet for game {game_id}")
            self._totals[game_id] = totals
        return totals

    def process(self, event: Any, position: int) -> None:
        name = event_name(event)
        game_id = event.originator_id
        if name == "GameCreated":
            n = len(event.players)
            self._totals[game_id] = {
                "version": event.originator_version,
                "players": list(event.players),
                "pool": [0] * n,
                "gora": [0] * n,
                "whists": [[0] * n for _ in range(n)],
                "deals": 0,
                "settlement": None,
            }
        elif name == "DealScored":
            totals = self._current(game_id)
            entry = event.entry
            self._deals.append(
                (
                    str(game_id),
                    event.number,
                    event.originator_version,
                    event.kind,
                    event.declarer,
                    event.contract,
                    dumps(event.tricks),
                    dumps(entry),
                )
            )
            n = len(totals["pool"])
            for seat in range(n):
                totals["pool"][seat] += entry["pool"][seat]
                totals["gora"][seat] += entry["gora"][seat]
                for other in range(n):
                    totals["whists"][seat][other] += entry["whists"][seat][other]
            totals["deals"] += 1
            totals["version"] = event.originator_version
        elif name == "GameFinished":
            totals = self._current(game_id)
            totals["settlement"] = list(event.settlement)
            totals["version"] = event.originator_version
        elif name == "DealFlagged":
            self._disputes.append(
                (
                    str(game_id),
                    event.originator_version,
                    "flag",
                    event.deal_number,
                    event.seat,
                    event.reason,
                    "",
                    None,
                )
            )
            return
        elif name == "RulingRecorded":
            totals = self._current(game_id)
            change = event.adjustment
            self._disputes.append(
                (
                    str(game_id),
                    event.originator_version,
                    "ruling",
                    event.deal_number,
                    event.seat,
                    event.reason,
                    event.auditor,
                    None if change is None else dumps(change),
                )
            )
            if change is not None:
                n = len(totals["gora"])
                for seat in range(n):
                    totals["gora"][seat] += change["gora"][seat]
                    for other in range(n):
                        totals["whists"][seat][other] += change["whists"][seat][other]
            if event.settlement is not None:
                totals["settlement"] = list(event.settlement)
            totals["version"] = event.originator_version
        else:
            return
        self._dirty.add(game_id)

    def flush(self, c: Cursor) -> None:
        if self._deals:
            c.executemany(
                "INSERT INTO scoresheet_deals (game_id, deal_number, version, kind, declarer, "
                "contract, tricks, entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                self._deals,
            )
        if self._disputes:
            c.executemany(
                "INSERT INTO scoresheet_disputes (game_id, version, kind, deal_number, seat, "
                "reason, auditor, adjustment) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                self._disputes,
            )
        rows = []
        for game_id in self._dirty:
            t = self._totals[game_id]
            settlement = None if t["settlement"] is None else dumps(t["settlement"])
            rows.append(
                (
                    str(game_id),
                    t["version"],
                    dumps(t["players"]),
                    dumps(t["pool"]),
                    dumps(t["gora"]),
                    dumps(t["whists"]),
                    t["deals"],
                    settlement,
                )
            )
        c.executemany(
            "INSERT INTO scoresheet_totals (game_id, version, players, pool, gora, whists, "
            "deals, settlement) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO "
            "UPDATE SET version = excluded.version, pool = excluded.pool, gora = "
            "excluded.gora, whists = excluded.whists, deals = excluded.deals, "
            "settlement = excluded.settlement",
            rows,
        )
        self._deals.clear()
        self._disputes.clear()
        self._dirty.clear()
        if len(self._totals) > 5000:
            self._totals.clear()

    def reset(self) -> None:
        self._deals.clear()
        self._disputes.clear()
        self._dirty.clear()
        self._totals.clear()


class Games:
    """The game list and each game's history of deal results."""

    name = "games"
    tables: tuple[str, ...] = ("games", "game_deals")
    indexes: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._games: dict[UUID, dict[str, Any]] = {}
        self._deals: list[tuple[str, tuple[Any, ...]]] = []

    def create_tables(self, c: Cursor) -> None:
        c.execute(
            "CREATE TABLE IF NOT EXISTS games (game_id TEXT PRIMARY KEY, created_at TEXT NOT "
            "NULL, updated_at TEXT NOT NULL, players TEXT NOT NULL, league TEXT NOT NULL, "
            "rules TEXT NOT NULL, status TEXT NOT NULL, deal_number INTEGER NOT NULL, "
            "version INTEGER NOT NULL, settlement TEXT)"
        )
        c.execute(
            "CREATE TABLE IF NOT EXISTS game_deals (game_id TEXT NOT NULL, deal_number INTEGER "
            "NOT NULL, dealer INTEGER NOT NULL, kind TEXT NOT NULL, declarer INTEGER NOT NULL, "
            "contract TEXT NOT NULL, tricks TEXT NOT NULL, PRIMARY KEY (game_id, deal_number))"
        )

    def drop_tables(self, c: Cursor) -> None:
        c.execute("DROP TABLE IF EXISTS games")
        c.execute("DROP TABLE IF EXISTS game_deals")

    def process(self, event: Any, position: int) -> None:
        name = event_name(event)
        game_id = event.originator_id
        stamp = event.timestamp.isoformat()
        row = self._games.setdefault(game_id, {})
        row["version"] = event.originator_version
        row["updated_at"] = stamp
        if name == "GameCreated":
            row.update(
                created_at=stamp,
                players=list(event.players),
                league=event.league,
                rules=event.rules.get("name", "default"),
                status="playing",
                deal_number=0,
                settlement=None,
                new=True,
            )
        elif name == "DealDealt":
            row["deal_number"] = event.number
            self._deals.append(
                (
                    "INSERT INTO game_deals (game_id, deal_number, dealer, kind, declarer, "
                    "contract, tricks) VALUES (?, ?, ?, 'playing', -1, '', '[]')",
                    (str(game_id), event.number, event.dealer),
                )
            )
        elif name == "DealScored":
            self._deals.append(
                (
                    "UPDATE game_deals SET kind = ?, declarer = ?, contract = ?, tricks = ? "
                    "WHERE game_id = ? AND deal_number = ?",
                    (
                        event.kind,
                        event.declarer,
                        event.contract,
                        dumps(event.tricks),
                        str(game_id),
                        event.number,
                    ),
                )
            )
        elif name == "GameFinished":
            row["status"] = "finished"
            row["settlement"] = list(event.settlement)
        elif name == "RulingRecorded" and event.settlement is not None:
            row["settlement"] = list(event.settlement)

    def flush(self, c: Cursor) -> None:
        for game_id, row in self._games.items():
            if row.get("new"):
                c.execute(
                    "INSERT INTO games (game_id, created_at, updated_at, players, league, rules, "
                    "status, deal_number, version, settlement) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                    "?, ?)",
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
            c.execute(
                f"UPDATE games SET {', '.join(sets)} WHERE game_id = ?", (*values, str(game_id))
            )
        for sql, params in self._deals:
            c.execute(sql, params)
        self.reset()

    def reset(self) -> None:
        self._games.clear()
        self._deals.clear()
