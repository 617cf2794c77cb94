"""Re-rating a league of the ``stats`` projection after a ruling changed who finished ahead.

A league's ratings (Elo and the skill with uncertainty, ``domain.rating``) are a fold over its
finished games in the log's order. A ruling after a game's end that changes the order of its
settlement results changes that game's rating changes and so every later rating of the
league; ``rerate_league`` folds the league again from its first game, over the results as they
stand in ``stats_results`` (every ruling applied), and writes the ratings that differ: each
game's ``rating_before``/``rating_after`` and each player's current ratings. The fold is the
one the projection makes game by game, with the same floats in the same order, so a re-rated
league equals a rebuild of the log, bit for bit (docs/STATS.md "Rulings").

Folding from the first game rather than from the ruled one needs no per-game history of the
skill rating and also repairs ratings left by a version that did not re-rate; it costs one pass
over the league's results per ruling that changes an order (measured in docs/PERFORMANCE.md).
"""

from __future__ import annotations

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


def rerate_league(c: Cursor, league: str) -> dict[str, dict[str, float]]:
    """Rate the league's finished games again, in log order, and write what changed; return
    the rating columns of every player of those games (to refresh cached rows)."""
    c.execute(
        "SELECT position, game_id, seat, player_id, result_num, result_den, rating_before, "
        "rating_after FROM stats_results WHERE league = ? ORDER BY position, seat",
        (league,),
    )
    games: list[tuple[tuple[int, str], list[tuple[Any, ...]]]] = []
    for position, game_id, seat, player, num, den, before, after in c.fetchall():
        key = (int(position), str(game_id))
        row = (int(seat), str(player), Fraction(int(num), int(den)), float(before), float(after))
        if games and games[-1][0] == key:
            games[-1][1].append(row)
        else:
            games.append((key, [row]))
    rated, standings = rate_games(
        RatedGame(tuple(r[1] for r in rows), tuple(r[2] for r in rows)) for _, rows in games
    )
    changed = []
    for ((_, game_id), rows), game in zip(games, rated, strict=True):
        for row, before, after in zip(rows, game.before, game.after, strict=True):
            if (row[3], row[4]) != (before.rating, after.rating):
                changed.append((before.rating, after.rating, game_id, row[0]))
    if changed:
        c.executemany(
            "UPDATE stats_results SET rating_before = ?, rating_after = ? "
            "WHERE game_id = ? AND seat = ?",
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
    """Re-rate every league (a store whose ``stats_players`` has just gained the skill
    columns: their values follow from the results already projected, without a rebuild)."""
    c.execute("SELECT DISTINCT league FROM stats_results ORDER BY league")
    for (league,) in c.fetchall():
        rerate_league(c, str(league))
