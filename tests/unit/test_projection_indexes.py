"""Every index a read model creates is in its ``indexes``: a rebuild (``projections.shadow``)
names, drops and renames exactly those, so an index left out would be lost by a rebuild on
PostgreSQL (docs/READSIDE.md "Rebuilding")."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from projections.ledger import Ledger
from projections.lobby import LobbyTables
from projections.stats import Stats
from projections.views import Games


@pytest.mark.parametrize(
    "make",
    [Games, Ledger, LobbyTables, lambda: Stats(None)],  # type: ignore[arg-type]
    ids=["games", "ledger", "lobby", "stats"],
)
def test_a_projection_lists_every_index_it_creates(make: Any) -> None:
    projection = make()
    cursor = sqlite3.connect(":memory:").cursor()
    projection.create_tables(cursor)
    cursor.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'"
    )
    created = {row[0] for row in cursor.fetchall()}
    assert created == set(projection.indexes)
