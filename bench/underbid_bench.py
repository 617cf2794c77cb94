"""Cost of the underbid proof (RULES.md §3.1, ``domain.rules.underbid``): bot games under
``underbid_penalty``, timing every proof the review runs (one per whisted game played out).

Run: ``.venv/bin/python bench/underbid_bench.py`` (options: ``--games``). Prints the number of
proofs, their total, median and largest time, and how many were proved. The proof's work is
bounded by ``underbid.NODE_LIMIT`` cards tried, not by a clock.
"""

from __future__ import annotations

import argparse
import time

from domain.bots import make_bot
from domain.rules import RuleSet, play_game
from domain.rules import underbid as underbid_module
from domain.rules.ruleset import Underbid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    times: list[float] = []
    proved = 0
    original = underbid_module.proven

    def timed(state: object) -> bool:
        nonlocal proved
        start = time.perf_counter()
        value = original(state)  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
        proved += value
        return value

    underbid_module.proven = timed
    rules = RuleSet(underbid_penalty=Underbid.TWO, pool_target=10)
    bot = make_bot()
    for i in range(args.games):
        play_game(bytes([i, 3]) * 8, (bot, bot, bot), rules)
    times.sort()
    print(
        f"{len(times)} proofs ({proved} proved): total {sum(times):.2f} s, "
        f"median {times[len(times) // 2] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
