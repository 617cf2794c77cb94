"""The balances read model: the virtual money of the ledger events, per player (docs/STAKES.md).

Built from the events alone: ``GameCreated`` (the game's league, for games with a stake) and
the ledger events ``StakesSettled`` and ``StakesAdjusted`` (each account's amount in hundredths
of a coin). Three tables:

- ``ledger_games``: the league of each game with a stake;
- ``ledger_entries``: one row per account of each ledger event (game, version, account);
- ``ledger_balances``: per scope and player, the sum of the player's entries, how many there
  are and how many games settled them; scope ``""`` is every game, a league tag that league's
  games only (an untagged game counts in ``""`` alone).

Like the other projections, a batch's events are collected in memory and written in ``flush``,
inside the runner's batch transaction; balances are added to (``ON CONFLICT … DO UPDATE``), so
nothing is cached between batches and a rebuild gives the same numbers. Every ledger event sums
to zero, so the balances of a scope always sum to zero as well.
"""

from __future__ import annotations

from typing import Any

from domain.model.decisions import event_name
from projections.db import Cursor

ALL_GAMES = ""
"""The scope of every game (a league's scope is its tag, never empty)."""

LEDGER_EVENTS = {"StakesSettled": "settled", "StakesAdjusted": "adjusted"}
"""The ledger events and the ``kind`` their entries are stored with."""


class Ledger:
    """Virtual money per player: entries and balances (overall and per league)."""

    name = "ledger"
    reads = frozenset({"GameCreated", *LEDGER_EVENTS})
    """The events ``process`` looks at: the runner decodes no other."""
    tables: tuple[str, ...] = ("ledger_games", "ledger_entries", "ledger_balances")
    indexes: tuple[str, ...] = ("ledger_entries_by_player", "ledger_balances_by_balance")

    def __init__(self) -> None:
        self._games: dict[str, str] = {}
        """League of each staked game created in this batch."""
        self._entries: list[dict[str, Any]] = []

    def create_tables(self, c: Cursor) -> None:
        c.execute(
            "CREATE TABLE IF NOT EXISTS ledger_games (game_id TEXT PRIMARY KEY, "
            "league TEXT NOT NULL)"
        )
        c.execute(
            "CREATE TABLE IF NOT EXISTS ledger_entries (game_id TEXT NOT NULL, version BIGINT "
            "NOT NULL, account INTEGER NOT NULL, player_id TEXT NOT NULL, league TEXT NOT NULL, "
            "kind TEXT NOT NULL, amount_cents BIGINT NOT NULL, stake_per_whist BIGINT NOT NULL, "
            "recorded_at TEXT NOT NULL, PRIMARY KEY (game_id, version, account))"
        )
        c.execute(
            "CREATE INDEX IF NOT EXISTS ledger_entries_by_player ON ledger_entries "
            "(player_id, recorded_at, game_id, version)"
        )
        c.execute(
            "CREATE TABLE IF NOT EXISTS ledger_balances (scope TEXT NOT NULL, player_id TEXT NOT "
            "NULL, balance_cents BIGINT NOT NULL, entries BIGINT NOT NULL, games BIGINT NOT "
            "NULL, PRIMARY KEY (scope, player_id))"
        )
        c.execute(
            "CREATE INDEX IF NOT EXISTS ledger_balances_by_balance ON ledger_balances "
            "(scope, balance_cents, player_id)"
        )

    def drop_tables(self, c: Cursor) -> None:
        for table in self.tables:
            c.execute(f"DROP TABLE IF EXISTS {table}")

    def process(self, event: Any, position: int) -> None:
        name = event_name(event)
        if name == "GameCreated" and event.stake_per_whist:
            self._games[str(event.originator_id)] = event.league
        elif name in LEDGER_EVENTS:
            for account, (player, amount) in enumerate(
                zip(event.players, event.amounts, strict=True)
            ):
                self._entries.append(
                    {
                        "game_id": str(event.originator_id),
                        "version": int(event.originator_version),
                        "account": account,
                        "player_id": player,
                        "kind": LEDGER_EVENTS[name],
                        "amount_cents": int(amount),
                        "stake_per_whist": int(event.stake_per_whist),
                        "recorded_at": event.timestamp.isoformat(),
                    }
                )

    def flush(self, c: Cursor) -> None:
        for game_id, league in self._games.items():
            c.execute(
                "INSERT INTO ledger_games (game_id, league) VALUES (?, ?) "
                "ON CONFLICT (game_id) DO NOTHING",
                (game_id, league),
            )
        leagues: dict[str, str] = {}
        for entry in self._entries:
            game_id = entry["game_id"]
            if game_id not in leagues:
                c.execute("SELECT league FROM ledger_games WHERE game_id = ?", (game_id,))
                found = c.fetchone()
                leagues[game_id] = "" if found is None else str(found[0])
            league = leagues[game_id]
            c.execute(
                "INSERT INTO ledger_entries (game_id, version, account, player_id, league, kind, "
                "amount_cents, stake_per_whist, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    entry["version"],
                    entry["account"],
                    entry["player_id"],
                    league,
                    entry["kind"],
                    entry["amount_cents"],
                    entry["stake_per_whist"],
                    entry["recorded_at"],
                ),
            )
            settled = 1 if entry["kind"] == "settled" else 0
            for scope in {ALL_GAMES, league}:
                c.execute(
                    "INSERT INTO ledger_balances (scope, player_id, balance_cents, entries, "
                    "games) VALUES (?, ?, ?, 1, ?) ON CONFLICT (scope, player_id) DO UPDATE SET "
                    "balance_cents = ledger_balances.balance_cents + excluded.balance_cents, "
                    "entries = ledger_balances.entries + 1, "
                    "games = ledger_balances.games + excluded.games",
                    (scope, entry["player_id"], entry["amount_cents"], settled),
                )
        self.reset()

    def reset(self) -> None:
        self._games.clear()
        self._entries.clear()
