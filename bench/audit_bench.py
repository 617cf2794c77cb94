"""Audit benchmark: full verification of one stored game, against merely reading and decoding
the same events, in the same run.

Run: ``.venv/bin/python bench/audit_bench.py`` (a temporary SQLite file), or with
``--url postgresql://postgres@127.0.0.1:5432/test`` (a schema ``bench_audit_<random>``,
dropped at the end).

Bots play games of the default rules (pool target ``--pool``, 20) through the application
until one finishes with ``--min-deals`` (30) to ``--max-deals`` (34) deals. Then,
``--repeat`` times each:

- ``read+decode``: ``recorder.select_events(game)`` and ``mapper.to_domain_event`` per row
  (the baseline: what any reader of the log pays);
- ``verify (pure)``: ``domain.audit.verify`` on the decoded events (chain, fairness against
  the seed, every decision through the rules core with the acting seat, scores, settlement);
- ``read+decode+verify``: ``service.app.audit.verify_game``, what ``pref audit`` and
  ``AuditService.VerifyGame`` run.

Prints a markdown snippet (medians) with the command line.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
from psycopg import sql

from domain.audit import verify
from domain.bots import make_bot
from domain.rules import RuleSet, actor, seat_view
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.config import postgres_store, sqlite_store
from service.app.keys import new_key_line

PLAYERS = ["ann", "bob", "cid"]


@contextlib.contextmanager
def store_env(url: str | None, name: str = "audit") -> Iterator[tuple[dict[str, str], str]]:
    """A store for one benchmark run: a temporary SQLite file, or a PostgreSQL schema
    ``bench_<name>_<random>`` dropped at the end."""
    if url is None:
        with tempfile.TemporaryDirectory() as tmp:
            yield sqlite_store(f"{tmp}/{name}.sqlite").env, "SQLite (temporary file)"
        return
    schema = f"bench_{name}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield postgres_store(f"{url}?schema={schema}").env, f"PostgreSQL ({schema})"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def play_game(app: PreferansApplication, rules: RuleSet, number: int) -> uuid.UUID:
    bot = make_bot()
    game_id = app.create_game(PLAYERS, f"bench-audit-{uuid.uuid4()}", rules=rules).game_id
    step = 0
    while True:
        game = app.get_game(game_id)
        if game.finished:
            return game_id
        deal = game.deal
        assert deal is not None
        seat = actor(deal)
        app.act(game_id, seat, bot(seat_view(deal, seat)), request_id=f"g{number}-{step}")
        step += 1


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="PostgreSQL URL (default: a temporary SQLite file)")
    parser.add_argument("--pool", type=int, default=20, help="pool target of the game")
    parser.add_argument("--min-deals", type=int, default=30)
    parser.add_argument("--max-deals", type=int, default=34)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    with store_env(args.url) as (env, where):
        app = PreferansApplication(env)
        try:
            rules = RuleSet(pool_target=args.pool)
            for number in range(40):
                game_id = play_game(app, rules, number)
                deals = app.get_game(game_id).state.deal_number
                if args.min_deals <= deals <= args.max_deals:
                    break
            else:
                print(f"no game of {args.min_deals}-{args.max_deals} deals", file=sys.stderr)
                return 1

            def read_decode() -> list[Any]:
                rows = app.recorder.select_events(game_id)
                return [app.mapper.to_domain_event(row) for row in rows]

            log = read_decode()
            report = verify_game(app, game_id)
            assert report.verified, report.summary
            events = len(log)
            results = {
                "read+decode (baseline)": timed(read_decode, args.repeat),
                "verify (pure, decoded events)": timed(
                    lambda: verify(str(game_id), log), args.repeat
                ),
                "read+decode+verify (`pref audit`)": timed(
                    lambda: verify_game(app, game_id), args.repeat
                ),
            }
        finally:
            app.close()
    command = shlex.join([".venv/bin/python", "bench/audit_bench.py", *(argv or sys.argv[1:])])
    print(
        f"Command: `{command}` ({where}; python {platform.python_version()}; "
        f"median of {args.repeat} runs after one warm-up)\n"
    )
    print(f"Game: {report.deals} deals, {events} events, pool target {args.pool}, finished.\n")
    print("| step | time (ms) | events/s | vs read+decode |")
    print("|---|---:|---:|---:|")
    base = statistics.median(results["read+decode (baseline)"])
    for name, times in results.items():
        median = statistics.median(times)
        print(f"| {name} | {median * 1000:.1f} | {events / median:,.0f} | {median / base:.2f}× |")
    return 0


if __name__ == "__main__":
    # A throwaway server key, unless one is configured: PostgreSQL stores need one.
    os.environ.setdefault("PREF_KEYS", new_key_line("bench"))
    sys.exit(main())
