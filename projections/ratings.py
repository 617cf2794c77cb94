"""Re-rating a league of the ``stats`` projection after a ruling changed who finished ahead.

A league's ratings (Elo and the skill with uncertainty, ``domain.rating``) are a fold over its
finished games in the log's order. A ruling after a game's end that changes the order of its
settlement results changes that game's rating changes and so every later rating of the league;
``rerate_league`` folds the league again from that game on, over the results as they stand in
``stats_results`` (every ruling applied), starting from each player's ratings after his last
game before it (``stats_results`` keeps each game's Elo and skill after it), and writes what
differs: each game's ``rating_before``/``rating_after``/``skill_mu``/``skill_sigma`` and each
player's current ratings. The fold is the one the projection makes game by game, with the same
floats in the same order, so a re-rated league equals a rebuild of the log, bit for bit
(docs/STATS.md "Rulings"); its cost is that of the games from the ruled one on.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from domain.rating import SKILL_MU, SKILL_SIGMA, RatedGame, Skill, Standing, rate_games
from projections.db import Cursor

SKILL_COLUMNS = {
    "skill_mu": f"DOUBLE PRECISION NOT NULL DEFAULT {SKILL_MU!r}",
    "skill_sigma": f"DOUBLE PRECISION NOT NULL DEFAULT {SKILL_SIGMA!r}",
    "skill_conservative": f"DOUBLE PRECISION NOT NULL DEFAULT {Skill().conservative!r}",
    "rating_rulings": "BIGINT NOT NULL DEFAULT 0",
}
"""The ``stats_players`` columns of the skill rating (``domain.rating.rate_skill``) and the
count of rulings that re-rated the player's games (docs/STATS.md "The skill rating")."""

SKILL_DEFAULTS: dict[str, Any] = {
    "skill_mu": SKILL_MU,
    "skill_sigma": SKILL_SIGMA,
    "skill_conservative": Skill().conservative,
    "rating_rulings": 0,
}
"""A new player's values of ``SKILL_COLUMNS``."""

PLAYER_RATING_COLUMNS = ("rating", "skill_mu", "skill_sigma", "skill_conservative")
"""The ``stats_players`` columns holding a player's current ratings."""


def skill_columns(skill: Skill) -> dict[str, float]:
    """A skill as the ``stats_players`` columns."""
    return {
        "skill_mu": skill.mu,
        "skill_sigma": skill.sigma,
        "skill_conservative": skill.conservative,
    }


def standing_columns(standing: Standing) -> dict[str, float]:
    """A standing as the ``stats_players`` rating columns."""
    return {"rating": standing.rating, **skill_columns(standing.skill)}


RESULT_COLUMNS = {
    "skill_mu": f"DOUBLE PRECISION NOT NULL DEFAULT {SKILL_MU!r}",
    "skill_sigma": f"DOUBLE PRECISION NOT NULL DEFAULT {SKILL_SIGMA!r}",
}
"""The ``stats_results`` columns of the player's skill after the game."""


def add_result_columns(c: Cursor) -> bool:
    """Give ``stats_results`` the skill columns if it lacks them; whether it did (a store
    projected by an earlier version: its leagues must be rated, ``rerate_all``)."""
    c.execute("SELECT * FROM stats_results LIMIT 0")
    present = {column[0].lower() for column in c.description or ()}
    missing = [name for name in RESULT_COLUMNS if name not in present]
    for name in missing:
        c.execute(f"ALTER TABLE stats_results ADD COLUMN {name} {RESULT_COLUMNS[name]}")
    return bool(missing)


def first_position(c: Cursor, game_ids: Iterable[str]) -> int:
    """The log position of the first of these finished games."""
    games = sorted(game_ids)
    c.execute(
        f"SELECT MIN(position) FROM stats_results WHERE game_id IN ({', '.join('?' * len(games))})",
        games,
    )
    found = c.fetchone()
    return int(found[0]) if found and found[0] is not None else 0


def _standing_before(c: Cursor, league: str, player: str, position: int) -> Standing | None:
    """The player's ratings after his last game of the league before ``position`` (``None``
    for none: a new player's)."""
    c.execute(
        "SELECT rating_after, skill_mu, skill_sigma FROM stats_results WHERE league = ? AND "
        "player_id = ? AND position < ? ORDER BY position DESC LIMIT 1",
        (league, player, position),
    )
    found = c.fetchone()
    if found is None:
        return None
    return Standing(float(found[0]), Skill(float(found[1]), float(found[2])))


def rerate_league(c: Cursor, league: str, since: int = 0) -> dict[str, dict[str, float]]:
    """Rate the league's finished games from log position ``since`` on again, in log order,
    and write what changed; return the rating columns of every player of those games (to
    refresh cached rows)."""
    c.execute(
        "SELECT position, game_id, seat, player_id, result_num, result_den, rating_before, "
        "rating_after, skill_mu, skill_sigma FROM stats_results WHERE league = ? AND "
        "position >= ? ORDER BY position, seat",
        (league, since),
    )
    games: list[tuple[tuple[int, str], list[tuple[Any, ...]]]] = []
    for position, game_id, seat, player, num, den, *ratings in c.fetchall():
        key = (int(position), str(game_id))
        row = (int(seat), str(player), Fraction(int(num), int(den)), *map(float, ratings))
        if games and games[-1][0] == key:
            games[-1][1].append(row)
        else:
            games.append((key, [row]))
    start = {}
    for player in sorted({row[1] for _, rows in games for row in rows}):
        standing = _standing_before(c, league, player, since)
        if standing is not None:
            start[player] = standing
    rated, standings = rate_games(
        (RatedGame(tuple(r[1] for r in rows), tuple(r[2] for r in rows)) for _, rows in games),
        start,
    )
    changed = []
    for ((_, game_id), rows), game in zip(games, rated, strict=True):
        for row, before, after in zip(rows, game.before, game.after, strict=True):
            now = (before.rating, after.rating, after.skill.mu, after.skill.sigma)
            if tuple(row[3:]) != now:
                changed.append((*now, game_id, row[0]))
    if changed:
        c.executemany(
            "UPDATE stats_results SET rating_before = ?, rating_after = ?, skill_mu = ?, "
            "skill_sigma = ? WHERE game_id = ? AND seat = ?",
            changed,
        )
    columns = {player: standing_columns(s) for player, s in sorted(standings.items())}
    c.executemany(
        f"UPDATE stats_players SET {', '.join(f'{n} = ?' for n in PLAYER_RATING_COLUMNS)} "
        "WHERE league = ? AND player_id = ?",
        [
            (*(values[n] for n in PLAYER_RATING_COLUMNS), league, player)
            for player, values in columns.items()
        ],
    )
    return columns


def rerate_all(c: Cursor) -> None:
    """Rate every league from its first game (a store whose tables have just gained the
    skill columns: their values follow from the results already projected, without a
    rebuild)."""
    c.execute("SELECT DISTINCT league FROM stats_results ORDER BY league")
    for (league,) in c.fetchall():
        rerate_league(c, str(league))
