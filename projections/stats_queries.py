"""Reading the league statistics (``projections.stats``) as plain data (exports:
``projections.stats_export``).

Settlement values are exact fractions written as strings (``"-275/3"``, ``"40"``, ``"0"``);
the rating is a float; everything else is an int (or a float average). What each number counts
is documented in docs/STATS.md.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from projections.db import Database
from projections.ratings import SKILL_COLUMNS
from projections.stats import DEAL_COLUMNS, LEVELS, PLAYER_COUNTERS, STRAIN_COLUMNS

ORDER_COLUMNS = {
    "rating": "rating",
    "settlement_total": "settlement_real",
    "games": "games",
    "deals": "deals",
    "contracts_made": "contracts_made",
    "skill": "skill_conservative",
}
"""Leaderboard orderings → the indexed column each one sorts on."""

PLAYER_COLUMNS = (
    "league",
    "player_id",
    "rating",
    "settlement_den",
    *PLAYER_COUNTERS,
    *SKILL_COLUMNS,
)
"""The ``stats_players`` columns ``player_from_row`` reads."""

STRAIN_NAMES = {"♠": "spades", "♣": "clubs", "♦": "diamonds", "♥": "hearts", "NT": "nt"}
"""Strain keys in exported column names (``contracts_by_strain_spades``): plain ASCII, so a
column name needs no quoting in SQL."""


def fraction_text(numerator: int, denominator: int) -> str:
    """An exact value as text: ``"-275/3"``, ``"40"``."""
    return str(Fraction(int(numerator), int(denominator)))


def leagues(db: Database, after: str | None = None, limit: int | None = None) -> list[str]:
    """The league tags that have at least one game (``""`` is the untagged league), in name
    order: after ``after`` (keyset paging), at most ``limit`` of them."""
    sql = "SELECT league FROM stats_leagues"
    params: list[Any] = []
    if after is not None:
        sql += " WHERE league > ?"
        params.append(after)
    sql += " ORDER BY league"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    with db.reading() as c:
        c.execute(sql, params)
        return [str(row[0]) for row in c.fetchall()]


def player_stats(db: Database, league: str, player_id: str) -> dict[str, Any] | None:
    """Everything known about one player in one league (``None`` if he never played in it)."""
    with db.reading() as c:
        c.execute(
            f"SELECT {', '.join(PLAYER_COLUMNS)} FROM stats_players WHERE league = ? AND "
            "player_id = ?",
            (league, player_id),
        )
        found = c.fetchone()
    if found is None:
        return None
    return player_from_row(dict(zip(PLAYER_COLUMNS, found, strict=True)))


def _rate(part: int, whole: int) -> float:
    """``part / whole``, 0.0 when ``whole`` is 0."""
    return part / whole if whole else 0.0


def player_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """A ``stats_players`` row (by column name) as ``player_stats`` gives it."""
    failed = int(row["contracts_failed"])
    games = int(row["games"])
    settlement = Fraction(int(row["settlement_num"]), int(row["settlement_den"]))
    by_level = {str(level): int(row[f"level_{level}"]) for level in LEVELS}
    made_level = {str(level): int(row[f"made_level_{level}"]) for level in LEVELS}
    by_strain = {s.symbol: int(row[col]) for s, col in STRAIN_COLUMNS.items()}
    made_strain = {s.symbol: int(row[f"made_{col}"]) for s, col in STRAIN_COLUMNS.items()}
    earned = int(row["whists_earned"])
    consolation, half = int(row["whists_consolation"]), int(row["whists_half"])
    return {
        "league": row["league"],
        "player_id": row["player_id"],
        "games_started": int(row["games_started"]),
        "games": int(row["games"]),
        "deals": int(row["deals"]),
        "rating": float(row["rating"]),
        "skill": skill_from_row(row),
        "rating_rulings": int(row["rating_rulings"]),
        "settlement_total": fraction_text(row["settlement_num"], row["settlement_den"]),
        "settlement_avg": float(settlement / games) if games else 0.0,
        "pool": int(row["pool"]),
        "gora": int(row["gora"]),
        "whists_written": int(row["whists_written"]),
        "whists_received": int(row["whists_received"]),
        "contracts": {
            "declared": int(row["contracts_declared"]),
            "made": int(row["contracts_made"]),
            "failed": failed,
            "by_level": by_level,
            "by_strain": by_strain,
            "undertricks": int(row["undertricks"]),
            "undertricks_avg": int(row["undertricks"]) / failed if failed else 0.0,
            "made_rate": _rate(int(row["contracts_made"]), int(row["contracts_declared"])),
            "made_by_level": made_level,
            "failed_by_level": {key: by_level[key] - made_level[key] for key in by_level},
            "made_by_strain": made_strain,
            "failed_by_strain": {key: by_strain[key] - made_strain[key] for key in by_strain},
        },
        "misere": {
            "declared": int(row["misere_declared"]),
            "made": int(row["misere_made"]),
            "failed": int(row["misere_failed"]),
            "tricks": int(row["misere_tricks"]),
            "made_rate": _rate(int(row["misere_made"]), int(row["misere_declared"])),
            "defended": int(row["misere_defended"]),
            "caught": int(row["misere_caught"]),
            "caught_rate": _rate(int(row["misere_caught"]), int(row["misere_defended"])),
        },
        "whist": {
            "whist": int(row["whist_calls"]),
            "pass": int(row["whist_passes"]),
            "half_whist": int(row["half_whists"]),
            "return": int(row["whist_returns"]),
            "whists_earned": earned,
            "penalties": int(row["penalties"]),
            "penalised_deals": int(row["penalised_deals"]),
            "whists_tricks": earned - consolation - half,
            "whists_consolation": consolation,
            "whists_half": half,
            "defended": int(row["whist_defended"]),
            "defended_ok": int(row["whist_defended_ok"]),
            "success_rate": _rate(int(row["whist_defended_ok"]), int(row["whist_defended"])),
        },
        "defence": {
            mode: {
                "deals": int(row[f"defence_{mode}"]),
                "penalised": int(row[f"defence_{mode}_penalised"]),
                "whists": int(row[f"defence_{mode}_whists"]),
            }
            for mode in ("open", "closed")
        },
        "help": {"given": int(row["help_given"]), "received": int(row["help_received"])},
        "raspasy": {
            "deals": int(row["raspasy_deals"]),
            "tricks": int(row["raspasy_tricks"]),
            "true_zeros": int(row["true_zeros"]),
            "pool": int(row["raspasy_pool"]),
            "gora": int(row["raspasy_gora"]),
        },
        "classic": {
            "bombs_declared": int(row["bombs_declared"]),
            "bombs_joined": int(row["bombs_joined"]),
            "bomb_signs": int(row["bomb_signs"]),
            "bomb_signs_crossed": int(row["bomb_signs_crossed"]),
            "dark": {
                "declared": int(row["dark_declared"]),
                "made": int(row["dark_made"]),
            },
            "dark_misere": {
                "declared": int(row["dark_misere_declared"]),
                "made": int(row["dark_misere_made"]),
            },
            "no_talon": {
                "declared": int(row["no_talon_declared"]),
                "made": int(row["no_talon_made"]),
            },
        },
    }


def skill_from_row(row: dict[str, Any]) -> dict[str, float]:
    """The skill rating with uncertainty (docs/STATS.md "The skill rating"): ``mu``,
    ``sigma`` and ``conservative`` (μ − 3σ, what the leaderboard's ``skill`` order sorts on)."""
    return {
        "mu": float(row["skill_mu"]),
        "sigma": float(row["skill_sigma"]),
        "conservative": float(row["skill_conservative"]),
    }


def leaderboard(
    db: Database,
    league: str,
    order_by: str = "rating",
    descending: bool = True,
    limit: int = 50,
    offset: int = 0,
    after: tuple[Any, str] | None = None,
) -> list[dict[str, Any]]:
    """The league's players in order (ties by player id ascending), one page of them: from
    ``offset``, or (a keyset, stable while rows change) after the row whose sort value and
    player id are ``after``. Each row carries its sort value as ``key``."""
    column = ORDER_COLUMNS.get(order_by)
    if column is None:
        raise ValueError(f"cannot order by {order_by!r}; one of: {', '.join(ORDER_COLUMNS)}")
    direction = "DESC" if descending else "ASC"
    where, params = "league = ?", [league]
    if after is not None:
        beyond = "<" if descending else ">"
        where += f" AND ({column} {beyond} ? OR ({column} = ? AND player_id > ?))"
        params.extend((after[0], after[0], after[1]))
    with db.reading() as c:
        c.execute(
            "SELECT player_id, games, deals, rating, settlement_num, settlement_den, "
            "contracts_made, contracts_failed, skill_mu, skill_sigma, skill_conservative, "
            f"rating_rulings, {column} FROM stats_players WHERE {where} "
            f"ORDER BY {column} {direction}, player_id ASC LIMIT ? OFFSET ?",
            (*params, max(0, limit), max(0, offset)),
        )
        rows = c.fetchall()
    return [
        {
            "player_id": r[0],
            "games": int(r[1]),
            "deals": int(r[2]),
            "rating": float(r[3]),
            "settlement_total": fraction_text(r[4], r[5]),
            "contracts_made": int(r[6]),
            "contracts_failed": int(r[7]),
            "skill": skill_from_row(
                {"skill_mu": r[8], "skill_sigma": r[9], "skill_conservative": r[10]}
            ),
            "rating_rulings": int(r[11]),
            "key": r[12],
        }
        for r in rows
    ]


def head_to_head(db: Database, league: str, a: str, b: str) -> dict[str, Any] | None:
    """How ``a`` and ``b`` fared in the finished games they both played (``None`` if none)."""
    first, second = sorted((a, b))
    with db.reading() as c:
        c.execute(
            "SELECT games, a_num, a_den, b_num, b_den, a_ahead, b_ahead, equal FROM stats_pairs "
            "WHERE league = ? AND a = ? AND b = ?",
            (league, first, second),
        )
        row = c.fetchone()
    if row is None or a == b:
        return None
    games, an, ad, bn, bd, a_ahead, b_ahead, equal = row
    sides = {
        first: (fraction_text(an, ad), int(a_ahead)),
        second: (fraction_text(bn, bd), int(b_ahead)),
    }
    return {
        "league": league,
        "a": a,
        "b": b,
        "games": int(games),
        "a_settlement": sides[a][0],
        "b_settlement": sides[b][0],
        "a_ahead": sides[a][1],
        "b_ahead": sides[b][1],
        "equal": int(equal),
    }


def league_totals(db: Database, league: str) -> dict[str, Any] | None:
    """The league as a whole (``None`` for an unknown league)."""
    with db.reading() as c:
        c.execute(
            "SELECT games_started, games, deals, contracts_declared, misere_declared, "
            "raspasy_deals, settlement_num, settlement_den, bomb_deals, dark_games, "
            "no_talon_games FROM stats_leagues WHERE league = ?",
            (league,),
        )
        row = c.fetchone()
        if row is None:
            return None
        c.execute("SELECT COUNT(*) FROM stats_players WHERE league = ?", (league,))
        players = int(c.fetchone()[0])
    return {
        "league": league,
        "games_started": int(row[0]),
        "games": int(row[1]),
        "deals": int(row[2]),
        "players": players,
        "contracts_declared": int(row[3]),
        "misere_declared": int(row[4]),
        "raspasy_deals": int(row[5]),
        "settlement_sum": fraction_text(row[6], row[7]),
        "bomb_deals": int(row[8]),
        "dark_games": int(row[9]),
        "no_talon_games": int(row[10]),
    }


def game_results(db: Database, league: str, player_id: str | None = None) -> list[dict[str, Any]]:
    """Each finished game's settlement result per player (in the log's order), with the
    game's order in the league (``game_order``: 1 for the first game finished), when it
    finished (``finished_at``, ISO 8601 UTC; "" for a row written before the column existed)
    and the player's rating before and after the game."""
    with db.reading() as c:
        c.execute(
            "SELECT game_id, seat, player_id, result_num, result_den, rating_before, "
            "rating_after, finished_at, position FROM stats_results WHERE league = ? "
            "ORDER BY position, seat",
            (league,),
        )
        rows = c.fetchall()
    out, order, last = [], 0, None
    for r in rows:
        if r[8] != last:
            order, last = order + 1, r[8]
        if player_id is not None and r[2] != player_id:
            continue
        out.append(
            {
                "game_order": order,
                "finished_at": str(r[7]),
                "game_id": r[0],
                "seat": int(r[1]),
                "player_id": r[2],
                "settlement": fraction_text(r[3], r[4]),
                "rating_before": float(r[5]),
                "rating_after": float(r[6]),
            }
        )
    return out


def deals(
    db: Database,
    league: str,
    player_id: str | None = None,
    after: tuple[int, int] | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The league's per-deal table: one row per scored deal and seat, in the log's order
    (docs/STATS.md "The per-deal table"); only ``player_id``'s rows if given; after the row
    at ``after`` (its position and seat: keyset paging), at most ``limit`` rows."""
    where = "league = ?"
    params: list[Any] = [league]
    if player_id is not None:
        where += " AND player_id = ?"
        params.append(player_id)
    if after is not None:
        where += " AND (position > ? OR (position = ? AND seat > ?))"
        params.extend((after[0], after[0], after[1]))
    sql = f"SELECT {', '.join(DEAL_COLUMNS)} FROM stats_deals WHERE {where} ORDER BY position, seat"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    with db.reading() as c:
        c.execute(sql, params)
        rows = c.fetchall()
    return [
        {
            name: value if isinstance(value, str) else int(value)
            for name, value in zip(DEAL_COLUMNS, row, strict=True)
        }
        for row in rows
    ]


def flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts as one level, in snake_case names that need no quoting in SQL: keys
    joined by ``_``, strains by name (``contracts_by_level_6``, ``contracts_by_strain_spades``,
    ``whist_pass``)."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{STRAIN_NAMES.get(key, key)}"
        if isinstance(value, dict):
            flat.update(flatten(value, f"{name}_"))
        else:
            flat[name] = value
    return flat


def export_tables(db: Database, league: str) -> dict[str, list[dict[str, Any]]]:
    """The league as flat tables: ``players`` (every player's ``player_stats``, flattened),
    ``head_to_head`` (every pair), ``results`` (every game's result per player) and ``deals``
    (every scored deal per seat)."""
    board = leaderboard(db, league, "rating", limit=1_000_000)
    ids = [row["player_id"] for row in board]
    players = []
    for player_id in ids:
        stats = player_stats(db, league, player_id)
        assert stats is not None
        players.append(flatten(stats))
    pairs = []
    for i, a in enumerate(sorted(ids)):
        for b in sorted(ids)[i + 1 :]:
            pair = head_to_head(db, league, a, b)
            if pair is not None:
                pairs.append(pair)
    return {
        "players": players,
        "head_to_head": pairs,
        "results": game_results(db, league),
        "deals": deals(db, league),
    }
