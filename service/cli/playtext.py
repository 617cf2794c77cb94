"""The pieces ``pref play`` draws with (``service.cli.playdraw`` composes them into screens):
cards and hands in colour, calls, tricks, the contract, the talon, the Classic order and bomb
signs, the scoresheet. Pure functions of the API's messages: they draw only what a message
holds, so nothing hidden can leak."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from rich.table import Table
from rich.text import Text

from domain.rules import Card
from domain.rules.robber import KINDS, Obligations, describe
from domain.rules.seats import seat_name
from service.cli.common import position_names
from service.gen.preferans.v1 import game_pb2 as pb

RED_SUITS = frozenset({"♦", "♥"})
SUITS = ("♠", "♣", "♦", "♥")
PHASE_WORDS = {
    pb.PHASE_UNSPECIFIED: "—",
    pb.PHASE_BIDDING: "bidding",
    pb.PHASE_TALON: "talon",
    pb.PHASE_DISCARD: "discard",
    pb.PHASE_CONTRACT: "contract",
    pb.PHASE_WHISTING: "whisting",
    pb.PHASE_DEFENCE: "defence",
    pb.PHASE_PLAY: "play",
    pb.PHASE_CLAIM: "claim",
    pb.PHASE_SCORED: "scored",
    pb.PHASE_WRITE_OFF: "write-off",
    pb.PHASE_REVIEW: "review",
}


def suit_style(suit: str) -> str:
    return "bold red" if suit in RED_SUITS else "bold"


def card_text(card: str) -> Text:
    """One card, ``10♥``, red for ♦ and ♥."""
    return Text(card, style=suit_style(card[-1:]))


def hand_text(cards: Iterable[str]) -> Text:
    """Cards grouped by suit (♠ ♣ ♦ ♥), highest first: ``♠ A K 9   ♥ 10 7``; ``—`` if none."""
    parsed = sorted((Card.parse(c) for c in cards if c), reverse=True)
    out = Text()
    for symbol in SUITS:
        ranks = [str(c)[:-1] for c in parsed if str(c).endswith(symbol)]
        if not ranks:
            continue
        if out:
            out.append("   ")
        out.append(f"{symbol} {' '.join(ranks)}", style=suit_style(symbol))
    return out if out else Text("—", style="dim")


def calls_text(calls: Iterable[Any], names: Sequence[str]) -> Text:
    out = Text()
    for call in calls:
        if out:
            out.append("  ·  ", style="dim")
        out.append(f"{names[call.seat]} ", style="cyan")
        out.append(call_text(call.call))
    return out if out else Text("—", style="dim")


def call_text(call: str) -> Text:
    if call[-1:] in RED_SUITS:
        return Text(call, style="bold red")
    return Text(call, style="bold")


def seat_count(view: pb.SeatView) -> int:
    """The seats at the table (2 to 5): ``view.seats``, or from a server that predates it the
    tricks of every seat."""
    return view.seats or len(view.tricks) or 3


def dummy_hand(view: pb.SeatView) -> int:
    """Two players: the dummy's hand (rule option ``duo_dummy_hand``, RULES.md §3.6)."""
    if not view.rules.options_json:
        return 1
    return int(json.loads(view.rules.options_json).get("duo_dummy_hand", 1))


def position_labels(players: int) -> list[str]:
    """The labels of a deal's positions (with two players the dummy's too)."""
    return position_names(players)


def short_names(view_seat: int, players: int = 3) -> list[str]:
    return [
        n + (" (you)" if s == view_seat else "") for s, n in enumerate(position_labels(players))
    ]


def with_dummy(names: list[str], players: int) -> list[str]:
    """Two players: the players' names and the dummy's position (RULES.md §3.6)."""
    return [*names, "dummy"] if players == 2 and len(names) == 2 else names


def player_names(names: Sequence[str] | None, players: int = 3) -> list[str]:
    return list(names) if names else [""] * players


def cards_held(view: pb.SeatView, seat: int) -> int:
    """How many cards a hidden hand still holds (from public facts only)."""
    played = sum(1 for t in view.played_tricks for p in t.cards if p.seat == seat)
    played += sum(1 for p in view.current_trick if p.seat == seat)
    held = 10
    if seat == view.declarer and view.phase == pb.PHASE_DISCARD:
        held = 12
    return max(held - played, 0)


def trick_text(cards: Iterable[Any], names: Sequence[str], winner: int = -1) -> Text:
    out = Text()
    for played in cards:
        if out:
            out.append("  ")
        who = names[played.seat] if 0 <= played.seat < len(names) else "talon"
        out.append(f"{who} ", style="cyan")
        out.append_text(card_text(played.card))
    if not out:
        return Text("—", style="dim")
    if winner >= 0:
        out.append(f"   → {seat_name(winner)}", style="green")
    return out


def contract_text(view: pb.SeatView) -> Text:
    out = Text()
    if view.declarer < 0:
        if view.phase == pb.PHASE_PLAY and view.bomb:
            out.append(
                f"{bomb_word(view.bomb)} bomb: take as few tricks as you can", style="magenta"
            )
        elif view.phase == pb.PHASE_PLAY and not view.winning_bid:
            out.append("raspasy (all passed): take as few tricks as you can", style="yellow")
        else:
            out.append("no contract yet", style="dim")
        return out
    out.append(f"{seat_name(view.declarer)} ", style="cyan")
    if view.contract:
        out.append("plays ")
        out.append_text(call_text(view.contract))
    else:
        out.append("won the auction at ")
        out.append_text(call_text(view.winning_bid))
    if view.dark:
        out.append(" dark", style="bold magenta")
    if view.no_talon:
        out.append(" without talon", style="bold magenta")
    if view.whist_calls:
        out.append("\nwhisting: ")
        out.append_text(calls_text(view.whist_calls, position_labels(seat_count(view))))
    if view.whisters:
        out.append("\nwhisters: " + ", ".join(seat_name(s) for s in view.whisters))
    if view.HasField("open_defence"):
        out.append("\ndefence: " + ("open" if view.open_defence else "closed"))
    return out


def talon_text(view: pb.SeatView) -> Text:
    out = Text()
    for card in view.talon:
        if out:
            out.append(" ")
        if card:
            out.append_text(card_text(card))
        else:
            out.append("▮▮", style="blue")
    if view.discard:
        out.append("\ndiscard: ")
        out.append_text(hand_text(view.discard))
    return out if out else Text("—", style="dim")


def scoresheet_table(
    sheet: pb.Scoresheet, names: Sequence[str] | None = None, pool_target: int = 0
) -> Table:
    """Totals: pool, gora and whists written by each seat on the others (and the settlement):
    a row per seat, a whists column per seat (blank on the seat's own row)."""
    count = max(len(names or ()), len(sheet.totals), *(len(r.whists) for r in sheet.totals)) or 3
    players = player_names(names, count)
    if sheet.HasField("order"):
        pool_target = sheet.order.pool
    title = "Scoresheet" + (f" — pool to {pool_target}" if pool_target else "")
    if sheet.HasField("order"):
        title += f" ({order_text(sheet.order)})"
    table = Table(
        title=title,
        title_justify="left",
        expand=False,
    )
    table.add_column("seat", no_wrap=True, max_width=16)
    table.add_column("pool", justify="right")
    table.add_column("gora", justify="right")
    for other in range(count):
        table.add_column(f"on {seat_name(other)}", justify="right")  # whists on that seat
    signs = {row.seat: row for row in sheet.bomb_signs}
    if signs:
        table.add_column("bombs")
    robber = {debt.seat: debt for debt in sheet.robber_owed}
    if robber:
        table.add_column("robber: written" if sheet.robber_written else "robber: owes")
    if sheet.settlement:
        table.add_column("result", justify="right", no_wrap=True)
    rows = {row.seat: row for row in sheet.totals}
    for seat in range(count):
        row = rows.get(seat)
        label = seat_name(seat) + (f" {players[seat]}" if players[seat] else "")
        whists = list(row.whists) if row else []
        whists += [0] * (count - len(whists))
        cells: list[str | Text] = [label, str(row.pool if row else 0), str(row.gora if row else 0)]
        cells += ["" if other == seat else str(whists[other]) for other in range(count)]
        if signs:
            cells.append(bomb_signs_text(signs.get(seat)))
        if robber:
            cells.append(robber_text(robber.get(seat)))
        if sheet.settlement:
            account = next(
                (a.account for a in sheet.accounts if a.seat == seat and not a.left), seat
            )
            cells.append(format_result(sheet.settlement[account]))
        table.add_row(*cells)
    return table


def bomb_signs_text(signs: pb.BombSigns | None) -> Text:
    """A seat's bomb signs (Classic) as on a paper sheet: the crossed-out ones struck through
    with the game made on them, then the levels still owed, in order."""
    out = Text()
    if signs is None:
        return out
    for crossed in signs.crossed:
        out.append(str(crossed.level), style="strike dim")
        out.append(f"({crossed.contract}) ", style="dim")
    out.append(" ".join(str(level) for level in signs.owed))
    return out


BOMB_WORDS = {1: "single", 2: "double", 3: "triple"}


def bomb_word(level: int) -> str:
    """A bomb level in words: single, double, triple, then ``4×``."""
    return BOMB_WORDS.get(level, f"{level}×")


def order_text(order: pb.GameOrder) -> str:
    """The order of a Classic game: ``B ordered: pool to 20, until 2026-12-01 23:00 UTC``
    (and the robber's obligatory games: ``; each must declare nine ×2, eight ×3``)."""
    text = f"{seat_name(order.seat)} ordered: pool to {order.pool}"
    if order.HasField("end_time") and order.end_time.seconds:
        moment = datetime.fromtimestamp(order.end_time.seconds, UTC)
        text += f", until {moment:%Y-%m-%d %H:%M} UTC"
    imposed = obligations_of(order.obligations)
    if imposed.total:
        text += f"; each must declare {describe(imposed)}"
    return text


def obligations_of(message: pb.Obligations) -> Obligations:
    """The robber's obligations of a proto message."""
    return Obligations(**{kind: getattr(message, kind) for kind in KINDS})


def robber_text(debt: pb.RobberDebt | None) -> str:
    """What a seat owes the robber: ``nine ×1, eight ×2 (100)``; ``—`` when nothing."""
    if debt is None:
        return ""
    owed = obligations_of(debt.owed)
    return f"{describe(owed)} ({debt.gora})" if owed.total else "—"


def format_result(value: str) -> str:
    """A settlement fraction (``"-275/3"``) as a signed number: ``-91.67 (-275/3)``."""
    fraction = Fraction(value)
    if fraction.denominator == 1:
        return f"{fraction.numerator:+d}"
    return f"{float(fraction):+.2f} ({value})"


def line(text: Text) -> Text:
    """One screen line: never wrapped, cut with an ellipsis at the screen's edge."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text
