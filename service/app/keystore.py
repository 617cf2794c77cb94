"""What the database holds about keys and tokens: no key, ever.

- The legacy ``preferans_secrets`` table (where the server key used to live): the application
  refuses to start while it still holds a key; ``pref keys migrate-legacy`` moves the key to a
  key file (as the verification-only key ``legacy``) and deletes it from the database.
- Token revocations (``preferans_token_revocations``): per game and seat, the moment before
  which the seat's tokens are refused. Not a secret and not game state (a denylist kept by the
  operator), so it is a table beside the events rather than an event. Each process caches a
  game's revocations for ``CACHE_SECONDS``: a revocation takes effect on every replica within
  that time (at once in the process that records it).
"""

from __future__ import annotations

import threading
import time
import uuid

from cachetools import LRUCache

from projections.db import Database

LEGACY_TABLE = "preferans_secrets"
REVOCATIONS_TABLE = "preferans_token_revocations"
CACHE_SECONDS = 2.0
_CACHE_LIMIT = 10_000
LEGACY_KEY_MESSAGE = (
    "the database still holds the server key of an earlier version (table preferans_secrets); "
    "move it out first: pref keys migrate-legacy --store STORE --out KEYFILE, then start with "
    "--key-file KEYFILE (or PREF_KEY_FILE)"
)


def _table_exists(db: Database, table: str) -> bool:
    with db.reading() as c:
        if db.flavor == "sqlite":
            c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))
        else:
            c.execute("SELECT to_regclass(?) IS NOT NULL", (table,))
            row = c.fetchone()
            return bool(row and row[0])
        return c.fetchone() is not None


def legacy_key(db: Database) -> bytes | None:
    """The server key an earlier version kept in the database, if it is still there."""
    if not _table_exists(db, LEGACY_TABLE):
        return None
    with db.reading() as c:
        c.execute(f"SELECT value FROM {LEGACY_TABLE} WHERE name = ?", ("server_key",))
        row = c.fetchone()
    return bytes.fromhex(row[0]) if row else None


def drop_legacy_key(db: Database) -> None:
    """Remove the legacy key and its table from the database."""
    with db.transaction() as c:
        c.execute(f"DROP TABLE IF EXISTS {LEGACY_TABLE}")


class Revocations:
    """Seat-token revocations: tokens issued at or before ``revoked_ms`` are refused."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._cache: LRUCache[uuid.UUID, tuple[float, dict[int, int]]] = LRUCache(_CACHE_LIMIT)
        self._guard = threading.Lock()
        with db.transaction() as c:
            c.execute(
                f"CREATE TABLE IF NOT EXISTS {REVOCATIONS_TABLE} "
                "(game_id TEXT NOT NULL, seat INTEGER NOT NULL, revoked_ms BIGINT NOT NULL, "
                "PRIMARY KEY (game_id, seat))"
            )

    def revoke(self, game_id: uuid.UUID, seats: list[int], now_ms: int | None = None) -> int:
        """Refuse every token of these seats issued until now; returns the moment (ms)."""
        moment = int(time.time() * 1000) if now_ms is None else now_ms
        with self._db.transaction() as c:
            for seat in seats:
                c.execute(
                    f"INSERT INTO {REVOCATIONS_TABLE} (game_id, seat, revoked_ms) "
                    "VALUES (?, ?, ?) ON CONFLICT (game_id, seat) DO UPDATE SET "
                    "revoked_ms = excluded.revoked_ms",
                    (str(game_id), seat, moment),
                )
        with self._guard:
            self._cache.pop(game_id, None)
        return moment

    def cached(self, game_id: uuid.UUID) -> dict[int, int] | None:
        """The game's revocations if known in this process and fresh (no store access)."""
        with self._guard:
            entry = self._cache.get(game_id)
        if entry is None or time.monotonic() - entry[0] > CACHE_SECONDS:
            return None
        return entry[1]

    def of_game(self, game_id: uuid.UUID) -> dict[int, int]:
        """The game's revocations, seat → moment (ms); from the cache when fresh."""
        known = self.cached(game_id)
        if known is not None:
            return known
        with self._db.reading() as c:
            c.execute(
                f"SELECT seat, revoked_ms FROM {REVOCATIONS_TABLE} WHERE game_id = ?",
                (str(game_id),),
            )
            rows = {int(seat): int(moment) for seat, moment in c.fetchall()}
        with self._guard:
            self._cache[game_id] = (time.monotonic(), rows)
        return rows
