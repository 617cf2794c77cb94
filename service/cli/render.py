"""Terminal rendering of deals and scoresheets with ``rich`` (for people, not for machines)."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

from rich.console import Console
from rich.table import Table

from domain.rules import DealRecord, Ending, GameRecord, Kind, RuleSet, format_cards
from domain.rules.robber import describe
from domain.rules.seats import hand_seats, seat_name
from domain.rules.start import GameOrder
from service.cli.common import position_name


def describe_deal(deal: DealRecord) -> str:
    """One line: what was played and how it ended (Classic: the bomb, dark, without talon)."""
    return _classic_prefix(deal) + _describe(deal)


BOMB_WORDS = {1: "single", 2: "double", 3: "triple"}


def _classic_prefix(deal: DealRecord) -> str:
    """Classic marks of a deal: ``triple bomb (A B C): ``, ``dark ``, ``without talon ``."""
    final = deal.final
    if final.bomb:
        level = BOMB_WORDS.get(final.bomb, f"{final.bomb}×")
        bombers = " ".join(seat_name(s) for s in range(final.players) if final.bombers >> s & 1)
        return f"{level} bomb ({bombers}): "
    return ("dark " if final.dark else "") + ("without talon " if final.no_talon else "")


def describe_order(order: GameOrder | None) -> str:
    """The order of a Classic game in words: ``B ordered: pool to 20, until 2026-12-01 23:00
    UTC`` ("" when not ordered)."""
    if order is None:
        return ""
    text = f"{seat_name(order.seat)} ordered: pool to {order.pool}"
    if order.ends_at > 1:
        moment = datetime.fromtimestamp(order.ends_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
        text += f", until {moment}"
    elif order.ends_at:
        text += ", until time is called"
    if order.obligations.total:
        text += f"; each must declare {describe(order.obligations)}"
    return text


def _describe(deal: DealRecord) -> str:
    final = deal.final
    result = final.result
    assert result is not None
    tricks = "-".join(str(t) for t in result.tricks)
    if result.kind is Kind.RASPASY:
        return f"raspasy, tricks {tricks}"
    if result.kind is Kind.REDEAL:
        return "both passed: dealt again without play (RULES.md §3.6)"
    who = seat_name(result.declarer)
    if result.kind is Kind.PASSED_OUT:
        return f"{who} {result.contract}, both defenders passed"
    if result.kind is Kind.PREFERANS:
        return f"{who} declared preferans: every pool closes and the game ends"
    if result.kind is Kind.UNDERBID:
        return f"{who} {result.contract}: underbid proved, the game is void and dealt again"
    if result.kind is Kind.CONCEDED:
        return f"{who} {result.contract}, went without three (no play, no whists)"
    if result.kind is Kind.HALF_WHIST:
        return f"{who} {result.contract}, half-whist by {seat_name(result.half_whister)}"
    if result.kind is Kind.MISERE:
        taken = result.tricks[result.declarer]
        return f"{who} misère, {'made' if taken == 0 else f'{taken} tricks taken'}"
    assert result.contract is not None
    taken = result.tricks[result.declarer]
    made = "made" if taken >= result.contract.level else f"{result.contract.level - taken} down"
    whisters = ", ".join(seat_name(s) for s in result.whisters) or "nobody"
    claimed = " (claimed)" if result.claimed else ""
    return f"{who} {result.contract} {made}, tricks {tricks}, whist: {whisters}{claimed}"


def _fraction(value: Fraction) -> str:
    if value.denominator == 1:
        return f"{value.numerator:+d}"
    return f"{float(value):+.2f} ({value})"


def render_game(console: Console, record: GameRecord, *, show_deals: bool = True) -> None:
    players = record.rules.players
    names = [seat_name(s) for s in range(players)]
    if show_deals:
        deals = Table(title="Deals", show_lines=False)
        deals.add_column("#", justify="right")
        deals.add_column("dealer")
        deals.add_column("hands (as dealt, H1 first)")
        deals.add_column("result")
        for deal in record.deals:
            held = hand_seats(deal.dealer, players, record.rules.duo_dummy_hand)
            hands = " | ".join(
                f"{position_name(s, players)}: {format_cards(deal.final.dealt[s])}" for s in held
            )
            dealer = seat_name(deal.dealer) + ("" if deal.dealer in held else " (on the talon)")
            deals.add_row(str(deal.number), dealer, hands, describe_deal(deal))
        console.print(deals)
    pool = record.rules.pool_target if record.order is None else record.order.pool
    sheet = Table(title=f"Scoresheet — {record.rules.name} rules, pool to {pool}")
    sheet.add_column("player")
    sheet.add_column("pool", justify="right")
    sheet.add_column("gora", justify="right")
    for name in names:
        sheet.add_column(f"whists on {name}", justify="right")
    sheet.add_column("result", justify="right")
    for seat in range(players):
        row = [names[seat], str(record.sheet.pool[seat]), str(record.sheet.gora[seat])]
        row += [
            "" if other == seat else str(record.sheet.whists[seat][other])
            for other in range(players)
        ]
        row.append(_fraction(record.settlement[seat]))
        sheet.add_row(*row)
    console.print(sheet)
    if record.order is not None:
        console.print(describe_order(record.order) + ".")
    status = f"finished: {_ending(record.rules)}" if record.finished else "stopped early"
    console.print(
        f"{len(record.deals)} deals, {status}; the results sum to {sum(record.settlement)}."
    )


def _ending(rules: RuleSet) -> str:
    """How a finished game ended, in the words of its rule set's ending (RULES.md §3.4)."""
    if rules.play_until_time:
        return "time was called"
    if rules.races:
        return f"the last of {rules.races} races was run"
    return {
        Ending.POOLS: "every pool is closed",
        Ending.POOL_SUM: f"the pools reached their agreed sum ({rules.pool_target} a player)",
        Ending.DEALS: f"the agreed {rules.ending_deals} deals were played",
    }[rules.ending]
