"""League statistics: per player and league, per pair of players, per game; and a rating.

Everything is derived from the events alone (docs/EVENTS.md): ``GameCreated`` (league, player
ids by seat), the whist decisions (``WhistCalled``, ``WhistPassed``, ``HalfWhistCalled``,
``WhistReturned``), ``DealScored`` (kind, declarer, contract, tricks, score and sheet entry) and
``GameFinished`` (the settlement) and ``RulingRecorded`` (a ruling after the end changes the
settlement: the players' settlement totals, the league's sum, head-to-head and the game's results
follow it; one that changes who finished ahead re-rates the league, ``projections.ratings``).
What each number counts is documented in docs/STATS.md.

Like the other projections, events are folded into rows held in memory (loaded from the tables
on first use) and the touched rows are written in ``flush``, inside the runner's batch
transaction. Ratings are updated at each ``GameFinished`` in the log's order, so a rebuild
recomputes exactly the same floats.

Why over 400 lines: one fold over the events feeds the player, pair, game and league rows, and
their flush; the queries live in ``stats_queries`` and the export in ``stats_export``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, ClassVar
from uuid import UUID

from cachetools import LRUCache

from domain.model.decisions import event_name
from domain.rating import INITIAL_RATING, Skill, rate_game, rate_skill, settlement_ranks
from domain.rules.bids import Bid, Strain
from domain.rules.errors import RulesError
from domain.rules.recording import Birds, InitialRounds
from domain.rules.ruleset import RuleSet
from domain.rules.seats import HANDS, hand_mask
from domain.rules.start import initial_deals
from projections.db import Cursor, Database, copy_rows, execute_all, pipelined
from projections.ratings import (
    RESULT_COLUMNS,
    SKILL_COLUMNS,
    SKILL_DEFAULTS,
    add_result_columns,
    first_position,
    rerate_all,
    rerate_league,
    skill_columns,
)

STRAIN_COLUMNS = {
    Strain.SPADES: "strain_s",
    Strain.CLUBS: "strain_c",
    Strain.DIAMONDS: "strain_d",
    Strain.HEARTS: "strain_h",
    Strain.NO_TRUMP: "strain_nt",
}
"""The column counting contracts declared in each strain."""

LEVELS = (6, 7, 8, 9, 10)

_INT = "BIGINT NOT NULL DEFAULT 0"

CLASSIC_COUNTERS = (
    "bombs_declared",
    "bombs_joined",
    "bomb_signs",
    "bomb_signs_crossed",
    "dark_declared",
    "dark_made",
    "dark_misere_declared",
    "dark_misere_made",
    "no_talon_declared",
    "no_talon_made",
)
"""The Classic columns of ``stats_players`` (issue 12, docs/STATS.md "Classic")."""
_REAL = "DOUBLE PRECISION NOT NULL DEFAULT 0"

PLAYER_COUNTERS = (
    "games_started",
    "games",
    "deals",
    "settlement_num",
    "pool",
    "gora",
    "whists_written",
    "whists_received",
    "contracts_declared",
    "contracts_made",
    "contracts_failed",
    "undertricks",
    *(f"level_{level}" for level in LEVELS),
    *STRAIN_COLUMNS.values(),
    "misere_declared",
    "misere_made",
    "misere_failed",
    "misere_tricks",
    "whist_calls",
    "whist_passes",
    "half_whists",
    "whist_returns",
    "whists_earned",
    "penalties",
    "penalised_deals",
    "raspasy_deals",
    "raspasy_tricks",
    "true_zeros",
    *CLASSIC_COUNTERS,
    *(f"made_level_{level}" for level in LEVELS),
    *(f"made_{column}" for column in STRAIN_COLUMNS.values()),
    "misere_defended",
    "misere_caught",
    "whists_consolation",
    "whists_half",
    "whist_defended",
    "whist_defended_ok",
    "defence_open",
    "defence_open_penalised",
    "defence_open_whists",
    "defence_closed",
    "defence_closed_penalised",
    "defence_closed_whists",
    "help_given",
    "help_received",
    "raspasy_pool",
    "raspasy_gora",
)
"""Integer columns of ``stats_players`` (all start at 0; the club statistics of issue 16 come
last: made by level and strain, misère defence, the split of ``whists_earned``, whist success,
open and closed defence, help, raspasy pool and gora)."""

LEAGUE_COUNTERS = (
    "games_started",
    "games",
    "deals",
    "contracts_declared",
    "misere_declared",
    "raspasy_deals",
    "settlement_num",
    "bomb_deals",
    "dark_games",
    "no_talon_games",
)

PAIR_COUNTERS = ("games", "a_num", "b_num", "a_ahead", "b_ahead", "equal")

PLAYER_ORDERS = (
    "rating",
    "settlement_real",
    "games",
    "deals",
    "contracts_made",
    "skill_conservative",
)
"""The columns ``stats_players`` has an index for (the orders of a league's table)."""


CACHED_ROWS = 20_000
"""Rows (and settlements) kept in memory per table between batches, least recently used
evicted first; rows changed in the current batch are kept until it is flushed."""


KNOWN_KEYS = 2_000_000
"""At most this many keys' hashes are remembered as written (``_Table.written``, ~60 bytes
each); past it, a row missing from memory is looked up in the table again."""


class _Table:
    """Rows of one table held in memory by key: loaded on first use, upserted in ``flush``."""

    def __init__(
        self,
        db: Database,
        name: str,
        keys: Sequence[str],
        columns: dict[str, str],
        defaults: dict[str, Any],
    ) -> None:
        self.db = db
        self.name = name
        self.keys = tuple(keys)
        self.columns = columns
        """Column name → SQL type, keys included."""
        self.defaults = defaults
        self.rows: LRUCache[tuple[Any, ...], dict[str, Any]] = LRUCache(CACHED_ROWS)
        self.dirty: dict[tuple[Any, ...], dict[str, Any]] = {}
        """The rows changed since the last flush (kept even if ``rows`` evicts them)."""
        self.written: set[int] | None = None
        """Once the table has been created empty by this instance (a rebuild's shadow,
        ``Stats.create_tables``): the hash of every key changed since, a superset of the keys
        the table holds; a key not in it is not in the table, and is a new row without a
        query. ``None``: not known (a query decides). Valid exactly as long as the cached rows
        are: cleared with them (``clear``)."""

    def create(self, c: Cursor) -> None:
        """Create the table, or add the columns a table made by an earlier version lacks.

        Every column has a default that is right for the events before it existed (a counter
        of Classic events is 0 in a log written before Classic), so adding it with that default
        is the same as a rebuild, without one (the skill rating's columns are the exception:
        ``Stats.create_tables`` re-rates the leagues when it adds them)."""
        c.execute(self.create_sql())
        self.upgrade(c)

    def create_sql(self) -> str:
        """The statement creating the table if it does not exist."""
        cols = ", ".join(f"{name} {kind}" for name, kind in self.columns.items())
        return (
            f"CREATE TABLE IF NOT EXISTS {self.name} ({cols}, PRIMARY KEY ({', '.join(self.keys)}))"
        )

    def upgrade(self, c: Cursor) -> None:
        """Add the columns a table made by an earlier version lacks (``create``)."""
        c.execute(f"SELECT * FROM {self.name} LIMIT 0")
        present = {column[0].lower() for column in c.description or ()}
        for name, kind in self.columns.items():
            if name.lower() not in present:
                c.execute(f"ALTER TABLE {self.name} ADD COLUMN {name} {kind}")

    def get(self, *key: Any, write: bool = True) -> dict[str, Any]:
        """The row (to change in place unless ``write`` is false): from memory, else from the
        table, else a new row."""
        row = self.dirty.get(key)
        if row is None:
            row = self.rows.get(key)
        if row is None:
            names = list(self.columns)
            written = self.written
            if written is not None and hash(key) not in written:
                found = None  # never written since the table was empty: not in it
            else:
                where = " AND ".join(f"{k} = ?" for k in self.keys)
                with self.db.reading() as c:
                    c.execute(f"SELECT {', '.join(names)} FROM {self.name} WHERE {where}", key)
                    found = c.fetchone()
            if found is None:
                row = dict(self.defaults)
                row.update(zip(self.keys, key, strict=True))
            else:
                row = dict(zip(names, found, strict=True))
            self.rows[key] = row
        if write:
            self.dirty[key] = row
            if self.written is not None:
                if len(self.written) >= KNOWN_KEYS:
                    self.written = None  # too many to remember: queries decide again
                else:
                    self.written.add(hash(key))
        return row

    def flush(self, c: Cursor) -> None:
        if not self.dirty:
            return
        names = list(self.columns)
        updates = ", ".join(f"{n} = excluded.{n}" for n in names if n not in self.keys)
        c.executemany(
            f"INSERT INTO {self.name} ({', '.join(names)}) VALUES "
            f"({', '.join('?' for _ in names)}) ON CONFLICT ({', '.join(self.keys)}) "
            f"DO UPDATE SET {updates}",
            [[self.dirty[key][n] for n in names] for key in sorted(self.dirty)],
        )
        self.dirty.clear()

    def clear(self) -> None:
        self.rows.clear()
        self.dirty.clear()
        self.written = None


_compact = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode
"""``json.dumps(value, separators=(",", ":"), sort_keys=True)`` without making an encoder at
each call: the canonical text of the ``classic`` and ``club`` states."""


@lru_cache(maxsize=CACHED_ROWS)
def _text(game_id: UUID) -> str:
    """``str(game_id)``, remembered (the projection needs it at every event of a game)."""
    return str(game_id)


@lru_cache(maxsize=CACHED_ROWS)
def _seating_of(text: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """A ``stats_games.players`` value parsed (cached by its text: the projection reads it at
    nearly every event): the player of each account and the account at each seat."""
    players = json.loads(text)
    if isinstance(players, dict):
        return tuple(players["accounts"]), tuple(players["seats"])
    return tuple(players), tuple(range(len(players)))


@lru_cache(maxsize=CACHED_ROWS)
def _club_of(text: str) -> dict[str, Any]:
    """A ``stats_games.club`` value parsed (cached by its text; callers copy it before a
    change, and never change its ``cp`` list)."""
    state: dict[str, Any] = json.loads(text)
    return state


def add_fraction(row: dict[str, Any], prefix: str, value: Fraction) -> None:
    """Add ``value`` to the exact fraction ``<prefix>_num / <prefix>_den`` of a row, keeping the
    float ``<prefix>_real`` (for ordering) in step."""
    total = Fraction(int(row[f"{prefix}_num"]), int(row[f"{prefix}_den"])) + value
    row[f"{prefix}_num"] = total.numerator
    row[f"{prefix}_den"] = total.denominator
    if f"{prefix}_real" in row:
        row[f"{prefix}_real"] = float(total)


def _counters(names: Sequence[str]) -> dict[str, str]:
    return dict.fromkeys(names, _INT)


def _den(*names: str) -> dict[str, str]:
    return dict.fromkeys(names, "BIGINT NOT NULL DEFAULT 1")


class Stats:
    """League statistics per player, per league, per pair of players and per game."""

    name = "stats"
    reads: ClassVar[frozenset[str]]
    """The events ``process`` looks at (set below the event sets it is made of)."""
    tables: tuple[str, ...] = (
        "stats_games",
        "stats_players",
        "stats_leagues",
        "stats_pairs",
        "stats_results",
        "stats_deals",
    )
    indexes: tuple[str, ...] = (
        "stats_results_by_player",
        "stats_deals_by_league",
        *(f"stats_players_by_{c}" for c in PLAYER_ORDERS),
    )

    def __init__(self, db: Database) -> None:
        self.db = db
        self.games = _Table(
            db,
            "stats_games",
            ("game_id",),
            {
                "game_id": "TEXT NOT NULL",
                "league": "TEXT NOT NULL",
                "players": "TEXT NOT NULL",
                "classic": "TEXT NOT NULL DEFAULT ''",
                "dealer": f"BIGINT NOT NULL DEFAULT {NO_DEALER}",
                "club": "TEXT NOT NULL DEFAULT ''",
            },
            {"classic": "", "dealer": NO_DEALER, "club": ""},
        )
        self.players = _Table(
            db,
            "stats_players",
            ("league", "player_id"),
            {
                "league": "TEXT NOT NULL",
                "player_id": "TEXT NOT NULL",
                "rating": _REAL,
                "settlement_real": _REAL,
                **_den("settlement_den"),
                **SKILL_COLUMNS,
                **_counters(PLAYER_COUNTERS),
            },
            {
                "rating": INITIAL_RATING,
                "settlement_real": 0.0,
                "settlement_den": 1,
                **dict.fromkeys(PLAYER_COUNTERS, 0),
                **SKILL_DEFAULTS,
            },
        )
        self.leagues = _Table(
            db,
            "stats_leagues",
            ("league",),
            {"league": "TEXT NOT NULL", **_den("settlement_den"), **_counters(LEAGUE_COUNTERS)},
            {"settlement_den": 1, **dict.fromkeys(LEAGUE_COUNTERS, 0)},
        )
        self.pairs = _Table(
            db,
            "stats_pairs",
            ("league", "a", "b"),
            {
                "league": "TEXT NOT NULL",
                "a": "TEXT NOT NULL",
                "b": "TEXT NOT NULL",
                **_den("a_den", "b_den"),
                **_counters(PAIR_COUNTERS),
            },
            {"a_den": 1, "b_den": 1, **dict.fromkeys(PAIR_COUNTERS, 0)},
        )
        self._results: list[tuple[Any, ...]] = []
        """New rows of ``stats_results`` (one per player of each finished game)."""
        self._result_updates: list[tuple[Any, ...]] = []
        """Changed results of ``stats_results`` rows (after a ruling)."""
        self._deals: list[tuple[Any, ...]] = []
        """New rows of ``stats_deals`` (one per seat of each scored deal)."""
        self._settled: LRUCache[str, list[Fraction]] = LRUCache(CACHED_ROWS)
        """Finished games' current settlements (loaded from ``stats_results``)."""
        self._settling: dict[str, list[Fraction]] = {}
        """Settlements changed in this batch, until ``flush`` has written them."""
        self._skills: list[tuple[Any, ...]] = []
        """The skill after each new ``stats_results`` row's game (written after the rows)."""
        self._rerate: dict[str, set[str]] = {}
        """League → its games in which a ruling changed who finished ahead: the league is
        re-rated in ``flush`` from the first of them on."""
        self._dropped = False
        """Whether ``drop_tables`` ran since the last ``reset`` or ``create_tables``."""

    # -- tables ---------------------------------------------------------------------------

    def create_tables(self, c: Cursor) -> None:
        tables = (self.games, self.players, self.leagues, self.pairs)
        # The tables in one round trip on PostgreSQL (a rebuild creates them all); a table of
        # a new store has every column at once, in the order an older one gained them.
        execute_all(
            c,
            [
                *(table.create_sql() for table in tables),
                "CREATE TABLE IF NOT EXISTS stats_results (game_id TEXT NOT NULL, seat INTEGER "
                "NOT NULL, league TEXT NOT NULL, player_id TEXT NOT NULL, position BIGINT NOT "
                "NULL, result_num BIGINT NOT NULL, result_den BIGINT NOT NULL, result_real "
                "DOUBLE PRECISION NOT NULL, rating_before DOUBLE PRECISION NOT NULL, "
                f"rating_after DOUBLE PRECISION NOT NULL, {FINISHED_AT_SQL}, "
                + "".join(f"{name} {kind}, " for name, kind in RESULT_COLUMNS.items())
                + "PRIMARY KEY (game_id, seat))",
                f"CREATE TABLE IF NOT EXISTS stats_deals ({', '.join(DEAL_COLUMNS_SQL)}, "
                "PRIMARY KEY (game_id, deal, seat))",
            ],
        )
        for table in tables:
            table.upgrade(c)
        c.execute("SELECT * FROM stats_results LIMIT 0")
        if "finished_at" not in {column[0].lower() for column in c.description or ()}:
            c.execute(f"ALTER TABLE stats_results ADD COLUMN {FINISHED_AT_SQL}")
        rerate = add_result_columns(c)
        execute_all(
            c,
            [
                "CREATE INDEX IF NOT EXISTS stats_deals_by_league ON stats_deals "
                "(league, position, seat)",
                "CREATE INDEX IF NOT EXISTS stats_results_by_player ON stats_results "
                "(league, player_id, position)",
                *(
                    f"CREATE INDEX IF NOT EXISTS stats_players_by_{column} ON stats_players "
                    f"(league, {column}, player_id)"
                    for column in PLAYER_ORDERS
                ),
            ],
        )
        if rerate:
            rerate_all(c)  # a store projected before the skill rating: rate its leagues now
        if self._dropped:
            # Just created empty by this instance (a rebuild's shadow tables): every row they
            # will hold is one this instance writes, until the runner resets it.
            self._dropped = False
            for table in tables:
                table.written = set()

    def drop_tables(self, c: Cursor) -> None:
        execute_all(c, [f"DROP TABLE IF EXISTS {table}" for table in self.tables])
        self._dropped = True

    # -- events ---------------------------------------------------------------------------

    def _game(self, game_id: UUID) -> tuple[str, list[str]]:
        """The game's league and the player of each account (by seat until a replacement)."""
        league, accounts, _ = self._seating(game_id)
        return league, accounts

    def _seating(self, game_id: UUID) -> tuple[str, list[str], list[int]]:
        """The league, the player of each account, and the account at each seat. The
        ``players`` column is the list of players by seat, or after a replacement
        ``{"accounts": [...], "seats": [...]}``."""
        row = self.games.get(_text(game_id), write=False)
        accounts, seats = _seating_of(row["players"])
        return str(row["league"]), list(accounts), list(seats)

    def _seated(self, game_id: UUID) -> tuple[str, list[str]]:
        """The league and the player at each seat now."""
        league, accounts, seats = self._seating(game_id)
        return league, [accounts[a] for a in seats]

    def _holders(self, game_id: UUID, players: int) -> int:
        """Mask of the seats holding a hand in the game's current deal (RULES.md §3.6): every
        seat with three players; with four or five, all but the dealer "on the talon" (and,
        with five, the previous dealer), from the dealer of its last ``DealDealt``."""
        dealer = int(self.games.get(_text(game_id), write=False)["dealer"])
        if dealer == NO_DEALER:
            return (1 << players) - 1
        return hand_mask(dealer, players)

    def _dealt(self, event: Any) -> None:
        """A table with seats that sit out a deal (four or five players) keeps the deal's dealer,
        which decides who holds a hand; a three-player game has nothing to keep."""
        _, players = self._seated(event.originator_id)
        if len(players) > HANDS:
            self.games.get(_text(event.originator_id))["dealer"] = event.dealer

    def _replaced(self, event: Any) -> None:
        """A player joined in place of another (TV-27): a new account at the seat."""
        league, accounts, seats = self._seating(event.originator_id)
        seats[event.seat] = len(accounts)
        accounts.append(event.player)
        game = self.games.get(_text(event.originator_id))
        game["players"] = json.dumps({"accounts": accounts, "seats": seats})
        self.players.get(league, event.player)["games_started"] += 1

    def _aborted(self, event: Any) -> None:
        """A game aborted before its first deal was scored (AbortGame) is no game started:
        every account's start, and the league's, is taken back (docs/STATS.md)."""
        league, accounts = self._game(event.originator_id)
        for player in accounts:
            self.players.get(league, player)["games_started"] -= 1
        self.leagues.get(league)["games_started"] -= 1

    # -- Classic (issue 12) ----------------------------------------------------------------

    def _classic_state(self, game_id: UUID) -> dict[str, Any] | None:
        """The game's Classic bookkeeping (``None`` for a game without Classic features):
        ``initial`` bomb deals, this deal's ``bombers`` mask and each seat's last bid ``tier``
        (``light``, ``dark``, ``no_talon``), and each seat's ``owed`` bomb signs."""
        text = self.games.get(_text(game_id), write=False)["classic"]
        return json.loads(text) if text else None

    def _save_classic(self, game_id: UUID, state: dict[str, Any]) -> None:
        row = self.games.get(_text(game_id))
        row["classic"] = _compact(state)

    def _classic(self, event: Any, name: str) -> None:
        """Bombs, dark games and games without talon (docs/STATS.md "Classic"). Everything
        comes from the decisions of the auction and ``DealScored``: which deal is a bomb, which
        contract dark or without talon, and the bomb signs each seat owes (domain.rules.bombs:
        a played bomb gives each bomber a sign; a game declared on a sign and made crosses
        the first one out)."""
        game_id = event.originator_id
        state = self._classic_state(game_id)
        if state is None:
            return
        seat = getattr(event, "seat", -1)
        if name == "DealDealt":
            initial = event.number <= state["initial"]
            seats = len(state["tier"])  # one per seat
            dealer_sign = state.get("dealer_sign", False)
            state["bombers"] = initial_bombers(seats, event.dealer, dealer_sign) if initial else 0
            state["tier"] = ["light"] * seats
            if "bird" in state:
                state["passes"], state["bird"] = 0, -1
        elif name == "AuctionPassed":
            if "bird" in state:  # «Хулиганка»: the third pass in a row puts a bird
                state["passes"] += 1
                if state["passes"] == BIRD_PASS:
                    state["bird"] = seat
        elif name == "PlayerReplaced":
            state["owed"][seat] = 0  # his signs leave with him (TV-27)
        elif name in ("BombDeclared", "BombJoined"):
            state["bombers"] |= 1 << seat
            league, players = self._seated(game_id)
            column = "bombs_declared" if name == "BombDeclared" else "bombs_joined"
            self.players.get(league, players[seat])[column] += 1
        elif name in _TIERS:
            state["tier"][seat] = _TIERS[name]
            if "bird" in state:
                state["passes"] = 0
        elif name == "DealScored":
            self._classic_scored(event, state)
        self._save_classic(game_id, state)

    def _classic_scored(self, event: Any, state: dict[str, Any]) -> None:
        league, players = self._seated(event.originator_id)
        totals = self.leagues.get(league)
        kind, declarer, taken = event.kind, event.declarer, 0
        if kind == "raspasy":
            holders = self._holders(event.originator_id, len(players))
            bombers = state["bombers"]
            if bombers and state.get("dealer_sign"):
                # The dealer on the talon gets a played bomb's sign (S000 l.641).
                bombers |= 1 << int(
                    self.games.get(_text(event.originator_id), write=False)["dealer"]
                )
            if bombers:
                totals["bomb_deals"] += 1
            for s, player in enumerate(players):
                if (bombers | _birds(state, holders)) >> s & 1:
                    self.players.get(league, player)["bomb_signs"] += 1
                    state["owed"][s] += 1
            return
        row = self.players.get(league, players[declarer])
        taken = event.tricks[declarer]
        made = _made(kind, event.contract, taken)
        if kind not in ("underbid", "preferans") and state["owed"][declarer] and made:
            state["owed"][declarer] -= 1
            row["bomb_signs_crossed"] += 1
        tier = state["tier"][declarer]
        if tier == "dark":
            totals["dark_games"] += 1
            prefix = "dark_misere" if kind == "misere" else "dark"
            row[f"{prefix}_declared"] += 1
            row[f"{prefix}_made"] += made
        elif tier == "no_talon":
            totals["no_talon_games"] += 1
            row["no_talon_declared"] += 1
            row["no_talon_made"] += made

    # -- club statistics (issue 16) ---------------------------------------------------------

    def _club_state(self, game_id: UUID) -> dict[str, Any]:
        """The game's ``club`` bookkeeping: its ``system``, the consolation price by level
        (``cp``, 0 when the rules write none) and, for the deal in progress, its ``dealer``, the
        mask of the seats standing as whisters (``whisted``) and the defence chosen
        (``defence``: -1 none, 0 closed, 1 open; by ``chooser``). A game created before this
        column existed reads as the default system's prices (a rebuild gives its own)."""
        return dict(_club_of(self.games.get(_text(game_id), write=False)["club"] or _DEFAULT_CLUB))

    def _club(self, event: Any, name: str, position: int) -> None:
        game_id = event.originator_id
        state = self._club_state(game_id)
        seat = getattr(event, "seat", -1)
        if name == "DealDealt":
            state.update(dealer=event.dealer, whisted=0, defence=-1, chooser=-1)
        elif name in _WHISTER_EVENTS:
            state["whisted"] |= 1 << seat
        elif name in _NOT_WHISTER_EVENTS:
            state["whisted"] &= ~(1 << seat)
        elif name == "DefenceChosen":
            state["defence"], state["chooser"] = int(bool(event.open)), seat
        elif name == "DealScored":
            self._club_scored(event, state, position)
            return
        row = self.games.get(_text(game_id))
        row["club"] = _compact(state)

    def _club_scored(self, event: Any, state: dict[str, Any], position: int) -> None:
        """A scored deal's club statistics (docs/STATS.md) and its rows of ``stats_deals``."""
        league, players = self._seated(event.originator_id)
        n = len(players)
        rows = [self.players.get(league, p) for p in players]
        entry, score, tricks = event.entry, event.score, event.tricks
        kind, declarer = event.kind, event.declarer
        helps = [(int(h[0]), int(h[1]), int(h[2])) for h in entry.get("helps", ())]
        for helper, recipient, points in helps:
            rows[helper]["help_given"] += points
            rows[recipient]["help_received"] += points
        holders = self._holders(event.originator_id, n)
        held = [bool(holders >> seat & 1) for seat in range(n)]
        level, strain = 0, ""
        if kind == "raspasy":
            for seat, row in enumerate(rows):
                if held[seat]:
                    row["raspasy_pool"] += score["pool"][seat]
                    row["raspasy_gora"] += score["gora"][seat]
        elif declarer >= 0 and event.contract:
            contract = Bid.parse(event.contract)
            if contract.strain is not None:
                level, strain = contract.level, STRAIN_COLUMNS[contract.strain][len("strain_") :]
            defenders = [s for s in range(n) if s != declarer and held[s]]
            taken = tricks[declarer]
            if kind == "misere":
                for seat in defenders:
                    rows[seat]["misere_defended"] += 1
                    rows[seat]["misere_caught"] += taken > 0
            elif level:
                if _made(kind, event.contract, taken):
                    rows[declarer][f"made_level_{level}"] += 1
                    rows[declarer][f"made_strain_{strain}"] += 1
                if kind == "half-whist":
                    for seat in defenders:
                        rows[seat]["whists_half"] += score["whists"][seat][declarer]
                elif kind == "game":
                    self._club_defence(
                        rows, declarer, defenders, score, state, level, level - taken
                    )
        self._club_rows(event, state, position, league, players, level, strain, helps)

    @staticmethod
    def _club_defence(
        rows: list[dict[str, Any]],
        declarer: int,
        defenders: list[int],
        score: dict[str, Any],
        state: dict[str, Any],
        level: int,
        under: int,
    ) -> None:
        """A played trick game, for its defenders: the consolation in their whists, whist
        success (a whister without a penalty) and the open or closed defence chosen."""
        earned = {s: int(score["whists"][s][declarer]) for s in defenders}
        price = int(state["cp"][level - LEVELS[0]])
        consolation = consolation_shares(earned, under * price if under > 0 else 0)
        for seat in defenders:
            row = rows[seat]
            row["whists_consolation"] += consolation[seat]
            if state["whisted"] >> seat & 1:
                penalised = score["gora"][seat] > 0
                row["whist_defended"] += 1
                row["whist_defended_ok"] += not penalised
                if state["defence"] >= 0 and state["chooser"] == seat:
                    mode = "defence_open" if state["defence"] else "defence_closed"
                    row[mode] += 1
                    row[f"{mode}_penalised"] += penalised
                    row[f"{mode}_whists"] += earned[seat]

    def _club_rows(
        self,
        event: Any,
        state: dict[str, Any],
        position: int,
        league: str,
        players: list[str],
        level: int,
        strain: str,
        helps: list[tuple[int, int, int]],
    ) -> None:
        """The deal's rows of ``stats_deals``: one per seat, with the sheet entry written for
        it (after pool closing and help) and the help it gave and received."""
        entry, n, declarer = event.entry, len(players), event.declarer
        holders = self._holders(event.originator_id, n)
        for seat, player in enumerate(players):
            self._deals.append(
                (
                    _text(event.originator_id),
                    event.number,
                    seat,
                    league,
                    position,
                    event.timestamp.isoformat(),
                    state["system"],
                    n,
                    state["dealer"],
                    event.kind,
                    declarer,
                    players[declarer] if 0 <= declarer < n else "",
                    event.contract,
                    level,
                    strain,
                    player,
                    holders >> seat & 1,
                    state["whisted"] >> seat & 1,
                    event.tricks[seat],
                    entry["pool"][seat],
                    entry["gora"][seat],
                    sum(entry["whists"][seat]),
                    sum(entry["whists"][o][seat] for o in range(n)),
                    sum(points for helper, _, points in helps if helper == seat),
                    sum(points for _, recipient, points in helps if recipient == seat),
                )
            )

    def process(self, event: Any, position: int) -> None:
        name = event_name(event)
        if name == "GameCreated":
            self._created(event)
        elif name in _WHIST_COLUMNS:
            league, players = self._seated(event.originator_id)
            self.players.get(league, players[event.seat])[_WHIST_COLUMNS[name]] += 1
        elif name == "DealScored":
            self._scored(event)
        elif name == "GameFinished":
            self._finished(event, position)
        elif name == "RulingRecorded" and event.settlement is not None:
            self._resettled(event)
        elif name == "PlayerReplaced":
            self._replaced(event)
        elif name == "GameAborted":
            self._aborted(event)
        elif name == "DealDealt":
            self._dealt(event)
        if name in _CLASSIC_EVENTS:
            self._classic(event, name)
        if name in _CLUB_EVENTS:
            self._club(event, name, position)

    def _created(self, event: Any) -> None:
        game = self.games.get(_text(event.originator_id))
        game["league"] = event.league
        game["players"] = json.dumps(list(event.players))
        game["classic"], game["club"] = _game_start(event.rules)
        for player in event.players:
            self.players.get(event.league, player)["games_started"] += 1
        self.leagues.get(event.league)["games_started"] += 1

    def _scored(self, event: Any) -> None:
        league, players = self._seated(event.originator_id)
        rows = [self.players.get(league, p) for p in players]
        totals = self.leagues.get(league)
        totals["deals"] += 1
        entry, score, tricks = event.entry, event.score, event.tricks
        n = len(players)
        for seat, row in enumerate(rows):
            row["deals"] += 1
            row["pool"] += entry["pool"][seat]
            row["gora"] += entry["gora"][seat]
            row["whists_written"] += sum(entry["whists"][seat])
            row["whists_received"] += sum(entry["whists"][o][seat] for o in range(n))
        kind, declarer = event.kind, event.declarer
        if declarer < 0 and kind != "raspasy":
            return  # two players' redeal (RULES.md §3.6): a deal without play or declarer
        holders = self._holders(event.originator_id, n)
        if kind == "raspasy":
            totals["raspasy_deals"] += 1
            for seat, row in enumerate(rows):
                if not holders >> seat & 1:
                    continue  # sat out (the 4-player dealer's talon tricks are in his gora)
                row["raspasy_deals"] += 1
                row["raspasy_tricks"] += tricks[seat]
                row["true_zeros"] += tricks[seat] == 0
            return
        own = rows[declarer]
        taken = tricks[declarer]
        if kind == "misere":
            totals["misere_declared"] += 1
            own["misere_declared"] += 1
            own["misere_made" if taken == 0 else "misere_failed"] += 1
            own["misere_tricks"] += taken
            _defence(rows, declarer, score, holders)  # a whisted misère (S000 Classic)
            return
        contract = Bid.parse(event.contract)
        assert contract.strain is not None
        totals["contracts_declared"] += 1
        own["contracts_declared"] += 1
        own[f"level_{contract.level}"] += 1
        own[STRAIN_COLUMNS[contract.strain]] += 1
        under = max(0, contract.level - taken) if kind == "game" else 0
        # "Without three" and a proved underbid (RULES.md §3.1) are failures without play.
        failed = under > 0 or kind in ("conceded", "underbid")
        own["contracts_failed" if failed else "contracts_made"] += 1
        own["undertricks"] += under
        _defence(rows, declarer, score, holders)

    def _finished(self, event: Any, position: int) -> None:
        game_id = event.originator_id
        league, players = self._game(game_id)
        results = [Fraction(value) for value in event.settlement]
        rows = [self.players.get(league, p) for p in players]
        before = [float(row["rating"]) for row in rows]
        after = rate_game(before, results)
        skills = rate_skill([Skill(row["skill_mu"], row["skill_sigma"]) for row in rows], results)
        totals = self.leagues.get(league)
        totals["games"] += 1
        add_fraction(totals, "settlement", sum(results, Fraction(0)))
        for seat, row in enumerate(rows):
            row["games"] += 1
            row["rating"] = after[seat]
            row.update(skill_columns(skills[seat]))
            self._skills.append((skills[seat].mu, skills[seat].sigma, _text(game_id), seat))
            add_fraction(row, "settlement", results[seat])
            self._results.append(
                (
                    _text(game_id),
                    seat,
                    league,
                    players[seat],
                    position,
                    results[seat].numerator,
                    results[seat].denominator,
                    float(results[seat]),
                    before[seat],
                    after[seat],
                    event.timestamp.isoformat(),
                )
            )
        self._settling[_text(game_id)] = results
        for i in range(len(players)):
            for j in range(i + 1, len(players)):
                a, b = (i, j) if players[i] < players[j] else (j, i)
                pair = self.pairs.get(league, players[a], players[b])
                pair["games"] += 1
                add_fraction(pair, "a", results[a])
                add_fraction(pair, "b", results[b])
                pair[_outcome(results[a], results[b])] += 1

    def _settlement_of(self, game_id: str) -> list[Fraction]:
        settled = self._settling.get(game_id) or self._settled.get(game_id)
        if settled is None:
            with self.db.reading() as c:
                c.execute(
                    "SELECT result_num, result_den FROM stats_results WHERE game_id = ? "
                    "ORDER BY seat",
                    (game_id,),
                )
                settled = [Fraction(int(num), int(den)) for num, den in c.fetchall()]
            self._settled[game_id] = settled
        return settled

    def _resettled(self, event: Any) -> None:
        """A ruling after the end: the settlement changes by the difference; if who finished
        ahead changes, the league is re-rated in ``flush`` and each player of the game counts
        a rating ruling."""
        game_id = _text(event.originator_id)
        league, players = self._game(event.originator_id)
        before = self._settlement_of(game_id)
        after = [Fraction(value) for value in event.settlement]
        if len(before) != len(after):  # pragma: no cover - every finished game has results
            return
        totals = self.leagues.get(league)
        add_fraction(totals, "settlement", sum(after, Fraction(0)) - sum(before, Fraction(0)))
        if settlement_ranks(after) != settlement_ranks(before):
            self._rerate.setdefault(league, set()).add(game_id)
            for player in players:
                self.players.get(league, player)["rating_rulings"] += 1
        for seat, player in enumerate(players):
            add_fraction(self.players.get(league, player), "settlement", after[seat] - before[seat])
            result = after[seat]
            self._result_updates.append(
                (result.numerator, result.denominator, float(result), game_id, seat)
            )
        for i in range(len(players)):
            for j in range(i + 1, len(players)):
                a, b = (i, j) if players[i] < players[j] else (j, i)
                pair = self.pairs.get(league, players[a], players[b])
                add_fraction(pair, "a", after[a] - before[a])
                add_fraction(pair, "b", after[b] - before[b])
                pair[_outcome(before[a], before[b])] -= 1
                pair[_outcome(after[a], after[b])] += 1
        self._settling[game_id] = after

    # -- writing --------------------------------------------------------------------------

    def flush(self, c: Cursor) -> None:
        if self._deals:
            copy_rows(c, "stats_deals", DEAL_COLUMNS, self._deals)  # many rows: COPY
            self._deals.clear()
        with pipelined(c):  # the writes below in one round trip (PostgreSQL)
            self._write(c)
        for league, games in sorted(self._rerate.items()):
            for player, columns in rerate_league(c, league, first_position(c, games)).items():
                cached = self.players.rows.get((league, player))
                if cached is not None:
                    cached.update(columns)
        self._rerate.clear()
        self._settled.update(self._settling)
        self._settling.clear()

    def _write(self, c: Cursor) -> None:
        """The changed rows, the new results and the skills after them (nothing read)."""
        for table in (self.games, self.players, self.leagues, self.pairs):
            table.flush(c)
        if self._results:
            c.executemany(
                "INSERT INTO stats_results (game_id, seat, league, player_id, position, "
                "result_num, result_den, result_real, rating_before, rating_after, finished_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                self._results,
            )
            self._results.clear()
        if self._result_updates:
            c.executemany(
                "UPDATE stats_results SET result_num = ?, result_den = ?, result_real = ? "
                "WHERE game_id = ? AND seat = ?",
                self._result_updates,
            )
            self._result_updates.clear()
        if self._skills:
            c.executemany(
                "UPDATE stats_results SET skill_mu = ?, skill_sigma = ? "
                "WHERE game_id = ? AND seat = ?",
                self._skills,
            )
            self._skills.clear()

    def reset(self) -> None:
        for table in (self.games, self.players, self.leagues, self.pairs):
            table.clear()
        self._results.clear()
        self._result_updates.clear()
        self._deals.clear()
        self._settled.clear()
        self._settling.clear()
        self._skills.clear()
        self._rerate.clear()
        self._dropped = False


_WHIST_COLUMNS = {
    "WhistCalled": "whist_calls",
    "WhistPassed": "whist_passes",
    "HalfWhistCalled": "half_whists",
    "WhistReturned": "whist_returns",
    "WhistReconsidered": "whist_calls",
    "TenChecked": "whist_calls",
    "OwnWhistOffered": "half_whists",
}
"""Each whist decision event → the player's counter it adds one to."""


_TIERS = {
    "BidCalled": "light",
    "MisereCalled": "light",
    "HereSaid": "light",
    "DarkSwitchedToMisere": "light",
    "DarkBidCalled": "dark",
    "NoTalonBidCalled": "no_talon",
}
"""The auction calls that set the tier of a seat's last bid (the declarer's is the contract's:
dark, without talon, or ordinary; a dark declarer's switch to misère is an ordinary misère)."""

_CLASSIC_EVENTS = frozenset(
    {
        *_TIERS,
        "DealDealt",
        "DealScored",
        "BombDeclared",
        "BombJoined",
        "PlayerReplaced",
        "AuctionPassed",
    }
)

NO_DEALER = -1
"""``stats_games.dealer`` of a game whose every seat holds a hand (three players), and of rows
written before the column existed (every game was of three then)."""

BIRD_PASS = 3
"""«Хулиганка»: the pass after two passes puts a bird (``domain.rules.birds.third_passer``)."""


def _birds(state: dict[str, Any], holders: int) -> int:
    """The seats that put a bird on this raspasy (``domain.rules.birds.birds``; the simplified
    Classic variants): every seat holding a hand (``holders``), or the third passer in a row of
    the auction."""
    if state.get("birds") == Birds.EVERY_RASPASY_PLAYER.value:
        return holders
    bird = state.get("bird", -1)
    return 0 if bird < 0 else 1 << bird


def _ruleset(rules: dict[str, Any]) -> RuleSet | None:
    """``GameCreated.rules`` as a ``RuleSet`` (``None`` if it does not load)."""
    try:
        return RuleSet.from_dict(rules)
    except RulesError:  # pragma: no cover - every stored rule set loads (create_game checks)
        return None


def _game_start(rules: dict[str, Any]) -> tuple[str, str]:
    """A new game's ``stats_games.classic`` and ``club`` states from ``GameCreated.rules``
    (parsing a rule set costs a millisecond; most games share a few rule sets)."""
    try:
        text = _compact(rules)
    except TypeError:  # pragma: no cover - stored rules are JSON
        ruleset = _ruleset(rules)
        return classic_start(ruleset), club_start(ruleset)
    return _game_start_of(text)


@lru_cache(maxsize=256)
def _game_start_of(text: str) -> tuple[str, str]:
    """``_game_start`` by the rules' canonical JSON text."""
    ruleset = _ruleset(json.loads(text))
    return classic_start(ruleset), club_start(ruleset)


def classic_start(ruleset: RuleSet | None) -> str:
    """A new game's Classic bookkeeping as stored in ``stats_games.classic``: "" for a game
    without bombs, dark or no-talon bids (nothing to count), else the JSON state."""
    if ruleset is None:  # pragma: no cover - every stored rule set loads (create_game checks)
        return ""
    bombs = ruleset.initial_rounds in (
        InitialRounds.BOMBS_BY_DEALER,
        InitialRounds.BOMBS_BY_ROUND,
    )
    birds = ruleset.birds is not Birds.NONE
    if not (
        ruleset.dark_auction or ruleset.no_talon_levels or ruleset.no_talon_misere or bombs or birds
    ):
        return ""
    state: dict[str, Any] = {
        "initial": initial_deals(ruleset) if bombs else 0,
        "bombers": 0,
        "tier": ["light"] * ruleset.players,
        "owed": [0] * ruleset.players,
    }
    if birds:  # the simplified Classic variants (S000 l.651, l.653)
        state["birds"] = ruleset.birds.value
    if ruleset.birds is Birds.THIRD_PASSER:
        state["passes"], state["bird"] = 0, -1
    if ruleset.dealer_bomb_sign and ruleset.players > HANDS:  # four or five (S000 l.641)
        state["dealer_sign"] = True
    return _compact(state)


def initial_bombers(players: int, dealer: int, dealer_sign: bool = False) -> int:
    """Who gets the sign of an initial bomb (``domain.rules.start.bombers``): every seat holding
    a hand (RULES.md §3.6: none sits out with three players), and the dealer on the talon too
    under ``dealer_bomb_sign`` (``dealer_sign``)."""
    held = hand_mask(dealer, players)
    return held | 1 << dealer if dealer_sign else held


def _made(kind: str, contract: str, taken: int) -> bool:
    """Whether the declarer made his game (``domain.rules.bombs.made``): a trick game taken at
    its level, a misère without a trick, a game given without play (both passed, half-whist)."""
    if kind == "misere":
        return taken == 0
    if kind == "game":
        return taken >= Bid.parse(contract).level
    return kind in ("passed-out", "half-whist", "preferans")


def _outcome(a: Fraction, b: Fraction) -> str:
    """The head-to-head counter a game's two results add to."""
    if a == b:
        return "equal"
    return "a_ahead" if a > b else "b_ahead"


def _defence(
    rows: list[dict[str, Any]], declarer: int, score: dict[str, Any], holders: int
) -> None:
    """The defenders' whists on the declarer and their penalties, this deal: the seats holding
    a hand other than the declarer's (a seat sitting out writes his whists, counted in
    ``whists_written``, but is no defender)."""
    for seat, row in enumerate(rows):
        if seat != declarer and holders >> seat & 1:
            row["whists_earned"] += score["whists"][seat][declarer]
            row["penalties"] += score["gora"][seat]
            row["penalised_deals"] += score["gora"][seat] > 0


def consolation_shares(earned: dict[int, int], each: int) -> dict[int, int]:
    """The consolation in each defender's whists on a failed trick game (``earned``: the whists
    each wrote on the declarer; ``each``: the undertricks times the consolation price, what
    every defender is owed). Each defender's share is what he is owed, at most what he wrote;
    a consolation one defender wrote for the other (a return whist under A-02, a whister who
    writes the passer's) is then his, up to what he wrote (RULES.md §1.6–§1.7, §3.2)."""
    shares = {seat: min(whists, each) for seat, whists in earned.items()}
    left = each * len(earned) - sum(shares.values())
    for seat in sorted(earned):
        extra = min(left, earned[seat] - shares[seat])
        shares[seat] += extra
        left -= extra
    return shares


def club_start(ruleset: RuleSet | None) -> str:
    """A new game's ``stats_games.club`` state (``Stats._club_state``): the system's name and
    consolation price by level, no deal yet."""
    ruleset = ruleset or RuleSet()
    prices = [ruleset.consolation_price(level) if ruleset.consolation else 0 for level in LEVELS]
    state = {"system": ruleset.name, "cp": prices, "dealer": -1, "whisted": 0, "defence": -1}
    state["chooser"] = -1
    return _compact(state)


_DEFAULT_CLUB = club_start(None)
"""The ``club`` state of a game created before the column existed (the default prices)."""

_WHISTER_EVENTS = frozenset(
    {"WhistCalled", "WhistReconsidered", "WhistReturned", "OwnCardsWhistCalled"}
)
"""Decisions after which the seat stands as a whister, answering for the defence (a checked
ten, ``TenChecked``, is defended without obligations, so it makes no whister here)."""

_NOT_WHISTER_EVENTS = frozenset({"WhistPassed", "HalfWhistCalled", "OwnWhistOffered"})
"""Decisions after which the seat no longer stands as a whister (a withdrawn whist, A-03)."""

_CLUB_EVENTS = frozenset(
    {"DealDealt", "DealScored", "DefenceChosen", *_WHISTER_EVENTS, *_NOT_WHISTER_EVENTS}
)

Stats.reads = frozenset(
    {
        "GameCreated",
        *_WHIST_COLUMNS,
        "DealScored",
        "GameFinished",
        "RulingRecorded",
        "PlayerReplaced",
        "GameAborted",
        "DealDealt",
        *_CLASSIC_EVENTS,
        *_CLUB_EVENTS,
    }
)
"""Every event ``Stats.process`` looks at (keep the two in step): the runner decodes no other
(card plays, talons, discards and contracts are three quarters of a log)."""

DEAL_COLUMNS_SQL = (
    "game_id TEXT NOT NULL",
    "deal BIGINT NOT NULL",
    "seat BIGINT NOT NULL",
    "league TEXT NOT NULL",
    "position BIGINT NOT NULL",
    "scored_at TEXT NOT NULL",
    "system TEXT NOT NULL",
    "seats BIGINT NOT NULL",
    "dealer BIGINT NOT NULL",
    "kind TEXT NOT NULL",
    "declarer_seat BIGINT NOT NULL",
    "declarer TEXT NOT NULL",
    "contract TEXT NOT NULL",
    "level BIGINT NOT NULL",
    "strain TEXT NOT NULL",
    "player_id TEXT NOT NULL",
    "holds_hand BIGINT NOT NULL",
    "whisted BIGINT NOT NULL",
    "tricks BIGINT NOT NULL",
    "pool BIGINT NOT NULL",
    "gora BIGINT NOT NULL",
    "whists_written BIGINT NOT NULL",
    "whists_received BIGINT NOT NULL",
    "help_given BIGINT NOT NULL",
    "help_received BIGINT NOT NULL",
)
"""``stats_deals``: one row per scored deal and seat (docs/STATS.md "The per-deal table")."""

FINISHED_AT_SQL = "finished_at TEXT NOT NULL DEFAULT ''"
"""The ``stats_results`` column of a game's end (added after the others)."""

DEAL_COLUMNS = tuple(column.split()[0] for column in DEAL_COLUMNS_SQL)
