"""Records and replay benchmark (issue 16): a version-3 hand record and its verification, and
every page of ``ListGameEvents``, against reading and decoding the same game's events, in the
same run.

Run: ``.venv/bin/python bench/records_bench.py`` (a temporary SQLite file), or with
``--url postgresql://postgres@127.0.0.1:5432/test`` (a schema ``bench_records_<random>``, dropped
at the end).

Bots play one game of the default rules (pool target ``--pool``, 20) through the application;
an auditor rules on deal 1 after its end. Then, ``--repeat`` times each:

- ``read+decode``: ``app.game_events`` (the baseline: what any reader of the log pays);
- ``export``: ``record_from_events`` on the decoded events (what ``pref export`` builds);
- ``verify``: ``verify_record`` of that record (what ``pref import`` checks);
- ``build all``: every event's stream messages from version 0 at once (``streams.build``,
  what a WatchGame from version 0 costs the server the first time);
- ``ListGameEvents, pages of N``: every page in turn with a replay of the game to each page's
  start (``streams.page``), what ListGameEvents cost before it was served from the watch
  feeds (review rev-b; ``bench/list_events_bench.py`` measures both).

Prints a markdown snippet (medians) with the command line.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import sys
import uuid

from domain.handrecord import record_from_events, verify_record
from domain.rules import RuleSet
from service.api.streams import build, page
from service.app.application import PreferansApplication
from service.app.keys import new_key_line

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from audit_bench import play_game, store_env, timed  # a sibling script

AFTER = {"gora": [0, 4, 0], "whists": [[0, 0, 0], [0, 0, 7], [0, 0, 0]]}


def all_pages(app: PreferansApplication, game_id: uuid.UUID, size: int) -> int:
    last, more = 0, True
    while more:
        _, built, more = page(app, game_id, last, size)
        last += len(built)
    return last


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="PostgreSQL URL (default: a temporary SQLite file)")
    parser.add_argument("--pool", type=int, default=20, help="pool target of the game")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with store_env(args.url, "records") as (env, where):
        app = PreferansApplication(env)
        try:
            game_id = play_game(app, RuleSet(pool_target=args.pool), 0)
            deals = len(app.get_game(game_id).deal_results)
            app.record_ruling(game_id, 1, "after the end", AFTER, "bench-rule-after")
            events = app.game_events(game_id)
            rec = record_from_events(events, str(game_id))
            verdict = verify_record(rec)
            assert verdict.consistent, verdict.message
            assert all_pages(app, game_id, 200) == len(events)
            results: dict[str, list[float]] = {
                "read+decode (baseline)": timed(lambda: app.game_events(game_id), args.repeat),
                "export (record_from_events)": timed(
                    lambda: record_from_events(events, str(game_id)), args.repeat
                ),
                "verify (verify_record)": timed(lambda: verify_record(rec), args.repeat),
                "build all messages from version 0": timed(
                    lambda: build(events, None), args.repeat
                ),
            }
            for size in (1000, 200, 50):
                results[f"ListGameEvents, every page of {size}"] = timed(
                    lambda size=size: all_pages(app, game_id, size),  # type: ignore[misc]
                    args.repeat,
                )
        finally:
            app.close()
    command = shlex.join([".venv/bin/python", "bench/records_bench.py", *(argv or sys.argv[1:])])
    print(
        f"Command: `{command}` ({where}; python {platform.python_version()}; "
        f"median of {args.repeat} runs after one warm-up)\n"
    )
    print(f"Game: {deals} deals, {len(events)} events, pool target {args.pool}, one ruling.\n")
    print("| step | time (ms) | vs read+decode |")
    print("|---|---:|---:|")
    base = statistics.median(results["read+decode (baseline)"])
    for name, times in results.items():
        median = statistics.median(times)
        print(f"| {name} | {median * 1000:.1f} | {median / base:.2f}× |")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PREF_KEYS", new_key_line("bench"))
    sys.exit(main())
