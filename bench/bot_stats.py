"""Bot-vs-bot statistics: what whole games of three ``make_bot()`` players look like.

Run: ``.venv/bin/python bench/bot_stats.py --deals 10000`` (``--system sochi`` for a named
system of docs/SYSTEMS.md; default: the default profile). Plays whole games (``play_game``)
over successive seeds until at least ``--deals`` deals are played, then prints the share of
each deal kind, how often played trick contracts and misères are made, the average contract
level, how many games finished (by the rule set's ending) and the bot-vs-bot deals per second.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field

from domain.bots import make_bot
from domain.rules import DEFAULT, RULE_SETS, Kind, Policy, RuleSet, play_game


@dataclass
class Stats:
    """Counters over all deals played."""

    deals: int = 0
    games: int = 0
    finished: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    games_played: int = 0
    games_made: int = 0
    miseres_made: int = 0
    levels: list[int] = field(default_factory=list)
    seconds: float = 0.0


def game_seed(number: int) -> bytes:
    """The seed of game ``number``: reproducible, 32 bytes."""
    return hashlib.sha256(f"bot-stats/{number}".encode()).digest()


def run(deals: int, policies: list[Policy], rules: RuleSet = DEFAULT) -> Stats:
    """Play whole games under ``rules`` until at least ``deals`` deals are played."""
    stats = Stats()
    start = time.perf_counter()
    while stats.deals < deals:
        record = play_game(game_seed(stats.games), policies, rules)
        stats.games += 1
        stats.finished += record.finished
        for deal in record.deals:
            result = deal.final.result
            assert result is not None
            stats.deals += 1
            stats.kinds[result.kind.value] += 1
            contract = result.contract
            if contract is not None and not contract.is_misere:
                stats.levels.append(contract.level)
            if result.kind is Kind.GAME:
                assert contract is not None
                stats.games_played += 1
                stats.games_made += result.tricks[result.declarer] >= contract.level
            elif result.kind is Kind.MISERE:
                stats.miseres_made += result.tricks[result.declarer] == 0
    stats.seconds = time.perf_counter() - start
    return stats


def report(stats: Stats) -> str:
    """The printed summary."""
    n = stats.deals
    finished = f"{stats.finished} finished by the rule set's ending"
    lines = [f"deals: {n} in {stats.games} games ({finished})"]
    for kind in Kind:
        count = stats.kinds[kind.value]
        lines.append(f"  {kind.value:<11} {count:>6}  {count / n:6.1%}")
    played = stats.games_played
    misere = stats.kinds[Kind.MISERE.value]
    made = stats.games_made / played if played else 0.0
    lines.append(f"made trick contracts (played): {stats.games_made}/{played} = {made:.1%}")
    made_mis = stats.miseres_made / misere if misere else 0.0
    lines.append(f"made misères: {stats.miseres_made}/{misere} = {made_mis:.1%}")
    levels = stats.levels
    average = sum(levels) / len(levels) if levels else 0.0
    lines.append(f"average level of declared trick contracts (played or not): {average:.2f}")
    by_level = Counter(levels)
    lines.append("  levels: " + ", ".join(f"{k}: {by_level[k]}" for k in sorted(by_level)))
    lines.append(
        f"bot-vs-bot full deals per second: {n / stats.seconds:,.0f} ({stats.seconds:.1f} s)"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=10000, help="deals to play (at least)")
    parser.add_argument("--style", default="normal", help="bot style: cautious, normal, bold")
    parser.add_argument(
        "--system", default="default", choices=sorted(RULE_SETS), help="the rule system"
    )
    args = parser.parse_args()
    bots: list[Policy] = [make_bot(args.style), make_bot(args.style), make_bot(args.style)]
    print(f"system: {args.system}")
    print(report(run(args.deals, bots, RULE_SETS[args.system])))


if __name__ == "__main__":
    main()
