"""Ratings benchmark: what the skill rating adds to each finished game, and what re-rating a
league after a ruling costs (docs/STATS.md "Rulings"), each against a baseline measured in the
same run (see /work/shared/BENCHMARKS.md).

Run: ``.venv/bin/python bench/rating_bench.py [--games 1000 10000] [--repeat 5]``.

1. Per game: ``rate_skill`` (OpenSkill Plackett-Luce) against ``rate_game`` (Elo) on the same
   3-player games with random results, best of ``--repeat``.
2. Re-rating: a league of ``--games`` finished games among 100 players (three drawn per game,
   seeded), written into the ``stats`` projection's own tables in a SQLite file (the rows a
   projection would hold); ``projections.ratings.rerate_league`` on it in one transaction,
   after a ruling (simulated: the game's results change sign, so its order is reversed) on
   the first game (the worst case: every later rating changes) and on the 10th last game,
   against the baseline of selecting and decoding all the league's ``stats_results`` rows in
   the same kind of transaction. Best of ``--repeat`` each.
3. With ``--rebuild-schema NAME`` (a league kept by ``bench/stats_bench.py --keep-schema NAME``
   on PostgreSQL at ``--url``): the ``stats`` projection's rebuild with the skill rating,
   against the same rebuild with ``rate_skill`` replaced by one that returns the skills
   unchanged, alternated ``--rounds`` times in the same run (the box is shared: the best of
   each is compared).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path

from domain.rating import Skill, rate_game, rate_skill
from projections.db import Database
from projections.ratings import first_position, rerate_league
from projections.stats import Stats

LEAGUE = "bench"


def best(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def random_results(rng: random.Random) -> list[Fraction]:
    a, b = rng.randint(-60, 60), rng.randint(-60, 60)
    return [Fraction(a, 3), Fraction(b, 3), Fraction(-a - b, 3)]


def per_game(games: int, repeat: int) -> None:
    rng = random.Random(1)
    results = [random_results(rng) for _ in range(games)]
    elo = best(repeat, lambda: [rate_game([1500.0] * 3, r) for r in results])
    skill = best(repeat, lambda: [rate_skill([Skill()] * 3, r) for r in results])
    print(
        f"per game ({games} games): Elo {elo / games * 1e6:.1f} µs, skill "
        f"{skill / games * 1e6:.1f} µs, skill/Elo {skill / elo:.1f}×"
    )


def league(db: Database, games: int) -> None:
    stats = Stats(db)
    with db.transaction() as c:
        stats.create_tables(c)
        rng = random.Random(games)
        players = [f"p{n:03d}" for n in range(100)]
        rows = []
        for game in range(games):
            seated = rng.sample(players, 3)
            for seat, (player, result) in enumerate(zip(seated, random_results(rng), strict=True)):
                rows.append(
                    (f"g{game}", seat, LEAGUE, player, game + 1, result.numerator,
                     result.denominator, float(result), 0.0, 0.0)
                )  # fmt: skip
        c.executemany(
            "INSERT INTO stats_results (game_id, seat, league, player_id, position, result_num, "
            "result_den, result_real, rating_before, rating_after) VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        c.executemany(
            "INSERT INTO stats_players (league, player_id) VALUES (?, ?)",
            [(LEAGUE, p) for p in players],
        )
        rerate_league(c, LEAGUE)


def reverse(db: Database, game: int) -> None:
    """As a ruling would: the game's results change sign (its order is reversed)."""
    with db.transaction() as c:
        c.execute(
            "UPDATE stats_results SET result_num = -result_num, result_real = -result_real "
            "WHERE game_id = ?",
            (f"g{game}",),
        )


def rerating(games: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(
            {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(Path(tmp) / "s")}
        )
        league(db, games)

        def read() -> None:
            with db.transaction() as c:
                c.execute(
                    "SELECT position, game_id, seat, player_id, result_num, result_den, "
                    "rating_before, rating_after FROM stats_results WHERE league = ? "
                    "ORDER BY position, seat",
                    (LEAGUE,),
                )
                [(Fraction(int(r[4]), int(r[5])), float(r[6])) for r in c.fetchall()]

        def rerate(game: int) -> Callable[[], None]:
            def run() -> None:
                reverse(db, game)
                with db.transaction() as c:
                    rerate_league(c, LEAGUE, first_position(c, [f"g{game}"]))

            return run

        base = best(repeat, read)
        first = best(repeat, rerate(0))
        recent = best(repeat, rerate(games - 10))
        db.close()
    print(
        f"league of {games} games: reading all its results {base * 1e3:.1f} ms; re-rating after "
        f"a ruling on the first game {first * 1e3:.0f} ms ({first / base:.1f}×, "
        f"{first / games * 1e6:.0f} µs per game), on the 10th last {recent * 1e3:.1f} ms "
        f"({recent / base:.2f}×)"
    )


def rebuilds(url: str, schema: str, rounds: int) -> None:
    import projections.stats as stats_module
    from projections import standard_runners
    from service.app.application import PreferansApplication

    sys.path.insert(0, str(Path(__file__).parent))
    from store_bench import pg_env

    app = PreferansApplication(pg_env(url, schema, 4, {}))
    names = vars(stats_module)  # the projection's own binding of rate_skill is swapped
    with_skill = names["rate_skill"]

    def unchanged(skills: Sequence[Skill], results: Sequence[Fraction]) -> tuple[Skill, ...]:
        return tuple(skills)

    times: dict[str, list[float]] = {"with skill": [], "without": []}
    try:
        for _ in range(rounds):
            for label, rate in (("with skill", with_skill), ("without", unchanged)):
                names["rate_skill"] = rate
                runner = standard_runners(app, app.db, names=("stats",))["stats"]
                start = time.perf_counter()
                events = runner.rebuild()
                times[label].append(time.perf_counter() - start)
    finally:
        names["rate_skill"] = with_skill
        app.close()
    best_with, best_without = min(times["with skill"]), min(times["without"])
    print(
        f"stats rebuild of {events} events: with the skill rating {best_with:.2f} s, without "
        f"{best_without:.2f} s (best of {rounds}); ratio {best_with / best_without:.3f}; all "
        + ", ".join(f"{k}: {' '.join(f'{t:.1f}' for t in v)}" for k, v in times.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rebuild-schema", metavar="NAME", help="a kept stats_bench league")
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--rounds", type=int, default=3, help="rebuilds of each kind")
    args = parser.parse_args()
    print(f"rating_bench: load average {os.getloadavg()[0]:.1f}")
    if args.rebuild_schema:
        rebuilds(args.url, args.rebuild_schema, args.rounds)
        return
    per_game(max(args.games), args.repeat)
    for games in args.games:
        rerating(games, args.repeat)


if __name__ == "__main__":
    main()
