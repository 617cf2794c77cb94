"""Read models built from the event log: seat views, the scoresheet, the game list, league
statistics.

``standard_runners(app, db)`` makes one exactly-once runner per projection over an
application's notification log; ``queries`` reads the views.
"""

from __future__ import annotations

from typing import Any

from projections.db import Database
from projections.runner import Projection, ProjectionRunner, ProjectionWorker
from projections.stats import Stats
from projections.views import Games, Scoresheet, SeatViews

PROJECTION_NAMES = ("seat_views", "scoresheet", "games", "stats")


def standard_runners(
    app: Any, db: Database, names: tuple[str, ...] = PROJECTION_NAMES, batch: int = 1000
) -> dict[str, ProjectionRunner]:
    """One runner per named projection. ``app`` is the event-sourced application (its
    ``recorder``, ``mapper`` and ``repository`` are used, read-only)."""
    unknown = set(names) - set(PROJECTION_NAMES)
    if unknown:
        known = ", ".join(PROJECTION_NAMES)
        raise ValueError(f"unknown projections: {', '.join(sorted(unknown))}; known: {known}")

    def load(game_id: Any, version: int) -> Any:
        return app.repository.get(game_id, version=version).state

    def make(name: str) -> Projection:
        if name == "seat_views":
            return SeatViews(load)
        if name == "scoresheet":
            return Scoresheet(db)
        if name == "stats":
            return Stats(db)
        return Games()

    return {name: ProjectionRunner(app, db, make(name), batch) for name in names}


__all__ = [
    "PROJECTION_NAMES",
    "Database",
    "ProjectionRunner",
    "ProjectionWorker",
    "standard_runners",
]
