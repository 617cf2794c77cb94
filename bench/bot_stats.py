"""Bot-vs-bot statistics: what whole games of ``make_bot()`` players look like.

Run: ``.venv/bin/python bench/bot_stats.py --deals 10000`` (``--system sochi`` for a named
system of docs/SYSTEMS.md; default: the default profile). Plays whole games (``play_game``)
over successive seeds until at least ``--deals`` deals are played, then prints the share of
each deal kind, how often played trick contracts and misères are made, the average contract
level, how many games finished (by the rule set's ending) and the bot-vs-bot deals per second.
Under a Classic auction (``--system classic``) also the bombs declared and joined, the dark
games (made, switched to misère) and the games without talon; ``--max-deals`` caps each game
(a Classic game played until time never ends in this clockless driver). ``--players 4`` (or 5)
seats a bot at every seat of a larger table (RULES.md §3.6: every deal still has three hands).
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field

from domain.bots import make_bot
from domain.rules import DEFAULT, RULE_SETS, DealRecord, Kind, Policy, RuleSet, play_game
from domain.rules.actions import Bomb, DarkCall, NoTalonCall


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
    classic: Counter[str] = field(default_factory=Counter)
    """Classic auction counts (bombs, dark and no-talon games), see ``classic_counts``."""


def game_seed(number: int) -> bytes:
    """The seed of game ``number``: reproducible, 32 bytes."""
    return hashlib.sha256(f"bot-stats/{number}".encode()).digest()


def classic_counts(deal: DealRecord) -> Counter[str]:
    """What a deal adds to the Classic counts: an initial bomb (no auction), a bomb declared in
    the auction (and its joins), dark calls, dark games (made; switched to misère before the
    talon), dark misères, no-talon calls and games."""
    final = deal.final
    actions = [a for _, a in deal.actions]
    out: Counter[str] = Counter()
    bombs = sum(isinstance(a, Bomb) for a in actions)
    dark_calls = [a for a in actions if isinstance(a, DarkCall)]
    out["dark calls"] += len(dark_calls)
    out["no-talon calls"] += sum(isinstance(a, NoTalonCall) for a in actions)
    if final.bomb and not final.auction.calls:
        out["initial bombs"] += 1
    elif final.bomb and bombs:
        out["bombs played"] += 1
        out["bomb joins"] += bombs - 1
    elif bombs:
        out["bombs beaten"] += 1
    result = final.result
    bid = final.bid
    if final.dark and bid is not None and result is not None:
        key = "dark misères" if bid.is_misere else "dark games"
        out[key] += 1
        contract = result.contract
        if result.kind is Kind.GAME and contract is not None:
            out["dark games made"] += result.tricks[result.declarer] >= contract.level
    elif bid is not None and bid.is_misere and any(not a.bid.is_misere for a in dark_calls):
        seat = final.declarer
        if any(s == seat and isinstance(a, DarkCall) for s, a in deal.actions):
            out["switched to misère"] += 1
    if final.no_talon and bid is not None:
        out["no-talon games"] += 1
    return out


def run(
    deals: int, policies: list[Policy], rules: RuleSet = DEFAULT, max_deals: int = 500
) -> Stats:
    """Play whole games under ``rules`` until at least ``deals`` deals are played (each game
    at most ``max_deals``)."""
    stats = Stats()
    start = time.perf_counter()
    while stats.deals < deals:
        record = play_game(game_seed(stats.games), policies, rules, max_deals=max_deals)
        stats.games += 1
        stats.finished += record.finished
        for deal in record.deals:
            if rules.dark_auction:
                stats.classic.update(classic_counts(deal))
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
    if stats.classic:
        order = (
            "initial bombs",
            "bombs played",
            "bomb joins",
            "bombs beaten",
            "dark calls",
            "dark games",
            "dark games made",
            "switched to misère",
            "dark misères",
            "no-talon calls",
            "no-talon games",
        )
        lines.append("classic: " + ", ".join(f"{k}: {stats.classic[k]}" for k in order))
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
    parser.add_argument("--max-deals", type=int, default=500, help="deals per game (at most)")
    parser.add_argument(
        "--players", type=int, default=0, choices=(3, 4, 5), help="seats (default: the system's)"
    )
    args = parser.parse_args()
    rules = RULE_SETS[args.system]
    if args.players:
        rules = rules.with_options(players=args.players)
    bots: list[Policy] = [make_bot(args.style) for _ in range(rules.players)]
    print(f"system: {args.system}, {rules.players} players")
    print(report(run(args.deals, bots, rules, args.max_deals)))


if __name__ == "__main__":
    main()
