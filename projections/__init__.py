"""Read models built from the event log: the game list, league statistics and balances.

``standard_runners(app, db)`` makes one exactly-once runner per projection over an
application's notification log; ``queries`` and ``stats_queries`` read the views. What is
served from a projection and what from the aggregate, and where the projections run, is in
docs/READSIDE.md.
"""

from __future__ import annotations

from typing import Any

from projections.db import Database
from projections.ledger import Ledger
from projections.lobby import LobbyTables
from projections.runner import TRACKING_TABLE, Projection, ProjectionRunner
from projections.shadow import SUFFIX
from projections.stats import Stats
from projections.views import Games
from projections.worker import ProjectionWorker

PROJECTION_NAMES = ("games", "stats", "ledger", "lobby")
"""Every read model a query serves (``ListGames``; ``StatsService`` and ``pref stats``;
``LedgerService``; ``ListTables`` and ``WatchTables``)."""

RETIRED: dict[str, tuple[str, ...]] = {
    "seat_views": ("seat_views",),
    "scoresheet": ("scoresheet_deals", "scoresheet_totals", "scoresheet_disputes"),
    "games": ("game_deals",),
}
"""Read models (projection name -> tables) that nothing read and that were removed; ``pref
migrate`` drops what is left of them (``drop_retired``). The seat views and the scoresheet are
read from the aggregate; ``game_deals`` was a per-game history that no query served."""


def standard_runners(
    app: Any, db: Database, names: tuple[str, ...] = PROJECTION_NAMES, batch: int = 1000
) -> dict[str, ProjectionRunner]:
    """One runner per named projection. ``app`` is the event-sourced application (its
    ``recorder`` and ``mapper`` are used, read-only)."""
    unknown = set(names) - set(PROJECTION_NAMES)
    if unknown:
        known = ", ".join(PROJECTION_NAMES)
        raise ValueError(f"unknown projections: {', '.join(sorted(unknown))}; known: {known}")

    def make(name: str) -> Projection:
        if name == "stats":
            return Stats(db)
        if name == "ledger":
            return Ledger()
        if name == "lobby":
            return LobbyTables()
        return Games()

    return {name: ProjectionRunner(app, db, make(name), batch) for name in names}


def drop_retired(db: Database) -> list[str]:
    """Drop the tables and tracking rows of retired read models (``RETIRED``), with any shadow
    copy a rebuild left; return the tables that were there. Idempotent."""
    if db.flavor == "postgres":
        exists = (
            "SELECT 1 FROM information_schema.tables WHERE table_name = ? "
            "AND table_schema = current_schema()"
        )
    else:
        exists = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    dropped = []
    with db.transaction() as c:
        c.execute(
            f"CREATE TABLE IF NOT EXISTS {TRACKING_TABLE} "
            "(name TEXT PRIMARY KEY, position BIGINT NOT NULL)"
        )
        for name, tables in RETIRED.items():
            db.lock(c, name)  # a runner's batch or a rebuild of this name waits for us
            for table in (t + suffix for t in tables for suffix in ("", SUFFIX)):
                c.execute(exists, (table,))
                if c.fetchone() is not None:
                    dropped.append(table)
                    c.execute(f"DROP TABLE {table}")
            if name not in PROJECTION_NAMES:
                c.execute(f"SELECT name FROM {TRACKING_TABLE}")
                rows = [row[0] for row in c.fetchall()]
                for row in rows:  # every shard's row too (``name@1``, ``name__rebuild@1``)
                    if row.split("@")[0] in (name, name + SUFFIX):
                        c.execute(f"DELETE FROM {TRACKING_TABLE} WHERE name = ?", (row,))
    return dropped


__all__ = [
    "PROJECTION_NAMES",
    "RETIRED",
    "Database",
    "ProjectionRunner",
    "ProjectionWorker",
    "drop_retired",
    "standard_runners",
]
