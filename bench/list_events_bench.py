"""The cost of one ListGameEvents page early and late in a long game (review rev-b, defect 1),
before and after serving pages from the watch feeds, in the same run.

Run: ``.venv/bin/python bench/list_events_bench.py`` (a temporary SQLite file; ``--pool`` sets
the pool target of the game the bots play, 20 by default: about 1,100 events).

- ``replay per page`` is what ListGameEvents did before (``streams.page``: a replay of the game
  to the token's version, then the page's events);
- ``feed, first page`` is the first page of the game served from its feed
  (``GameStreams.page``): the feed is built once, from version 0;
- ``feed`` is every later page (any version, any caller): a slice of the built messages.

Each a page of ONE event after version 1 and after the last version but one; median of
``--repeat`` calls after one warm-up (the first-page line: ``--repeat`` fresh feeds). Prints a
markdown table with same-run ratios against the replay-per-page page at version 1.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audit_bench import play_game  # a sibling script

from domain.rules import RuleSet
from service.api.streams import GameStreams, page
from service.app.application import PreferansApplication
from service.app.config import sqlite_store
from service.app.hub import EventHub


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


async def amedian_ms(fn: Callable[[], Awaitable[Any]], repeat: int, warm: bool = True) -> float:
    if warm:
        await fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=20, help="pool target of the game")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        app = PreferansApplication(sqlite_store(f"{tmp}/events.sqlite").env)
        game_id = play_game(app, RuleSet(pool_target=args.pool), 0)
        n = app.get_game(game_id).version
        late = n - 1
        rows: dict[str, tuple[float, float]] = {
            "replay per page (before)": (
                median_ms(lambda: page(app, game_id, 1, 1), args.repeat),
                median_ms(lambda: page(app, game_id, late, 1), args.repeat),
            )
        }

        async def feeds() -> None:
            hub = EventHub()
            hub.bind(asyncio.get_running_loop())
            with ThreadPoolExecutor(2) as executor:

                def fresh(last: int) -> Callable[[], Awaitable[Any]]:
                    return lambda: GameStreams(app, executor, hub).page(game_id, last, 1)

                rows["feed, first page (builds the feed)"] = (
                    await amedian_ms(fresh(1), args.repeat, warm=False),
                    await amedian_ms(fresh(late), args.repeat, warm=False),
                )
                streams = GameStreams(app, executor, hub)
                rows["feed (after)"] = (
                    await amedian_ms(lambda: streams.page(game_id, 1, 1), args.repeat),
                    await amedian_ms(lambda: streams.page(game_id, late, 1), args.repeat),
                )

        asyncio.run(feeds())
    base = rows["replay per page (before)"][0]
    print(f"Command: `{shlex.join(['.venv/bin/python', *sys.argv])}`; game: {n} events\n")
    print(f"| one page of 1 event | after version 1 (ms) | after version {late:,} (ms) |")
    print("|---|---:|---:|")
    for name, (early, last) in rows.items():
        print(f"| {name} | {early:,.2f} ({early / base:.2f}×) | {last:,.2f} ({last / base:.2f}×) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
