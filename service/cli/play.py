"""``pref play``: a person plays a whole game in the terminal against bots, through the server.

The game is created through the gRPC API; the person keeps their own seat token and bots play
the other seats (two to four: ``rules.players``, RULES.md §3.6) in this process, each from its
own seat's view (as ``service.cli.botplay``). The person's seat watches the game's events
(``WatchGameBatches``, flattened); whenever the stream has caught up with the last command, the
table is redrawn and whoever is on turn decides.

Three parts, each testable without a terminal:

* ``render_view`` / ``render_deal_result`` / ``render_final``: pure functions from the API's
  messages (a seat's ``SeatView``, the ``Scoresheet``, ``DealScoredEvent``) to ``rich``
  renderables. They draw only what the message holds, so nothing hidden can leak.
* ``parse_choice``: the person's text and the legal actions → an action, a quit or a message.
* ``play_game``: the loop, with injectable input (``read``), output (``console``) and ``sleep``.

Why over 400 lines: the three parts above share the message shapes and are read together;
the terminal table is to be rebuilt to fit 80×24 (issue 16), and it is split then.
"""

from __future__ import annotations

import getpass
import json
import secrets
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import grpc
from grpc_status import rpc_status
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from domain.bots import make_bot
from domain.rules import (
    Action,
    Bid,
    Call,
    Card,
    Declare,
    InvalidAction,
    RuleSet,
    parse_action,
    parse_cards,
)
from domain.rules.robber import KINDS, Obligations, describe, parse_obligations
from domain.rules.seats import hand_seats, seat_name
from domain.rules.start import initial_deals
from service.app.application import ORDER_MINUTES
from service.cli.botplay import Creator, game_rules, order_choice
from service.cli.common import client_for, position, position_name, position_names
from service.cli.rules import rules_from_args
from service.cli.viewstate import sheet_from_proto, view_from_proto
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb

DEFAULT_SERVER = "127.0.0.1:50051"
QUIT_WORDS = frozenset({"q", "quit", "exit"})
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
HINT = (
    "Type a number, or the action as listed (ASCII works too: 6s, 7nt, Th, misere, "
    "discard 7c 8d); q quits."
)


# --- drawing ------------------------------------------------------------------------------


def _suit_style(suit: str) -> str:
    return "bold red" if suit in RED_SUITS else "bold"


def card_text(card: str) -> Text:
    """One card, ``10♥``, red for ♦ and ♥."""
    return Text(card, style=_suit_style(card[-1:]))


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
        out.append(f"{symbol} {' '.join(ranks)}", style=_suit_style(symbol))
    return out if out else Text("—", style="dim")


def _calls_text(calls: Iterable[Any], names: Sequence[str]) -> Text:
    out = Text()
    for call in calls:
        if out:
            out.append("  ·  ", style="dim")
        out.append(f"{names[call.seat]} ", style="cyan")
        out.append(_call_text(call.call))
    return out if out else Text("—", style="dim")


def _call_text(call: str) -> Text:
    if call[-1:] in RED_SUITS:
        return Text(call, style="bold red")
    return Text(call, style="bold")


def seat_count(view: pb.SeatView) -> int:
    """The seats at the table (2 to 5): ``view.seats``, or from a server that predates it the
    tricks of every seat."""
    return view.seats or len(view.tricks) or 3


def _dummy_hand(view: pb.SeatView) -> int:
    """Two players: the dummy's hand (rule option ``duo_dummy_hand``, RULES.md §3.6)."""
    if not view.rules.options_json:
        return 1
    return int(json.loads(view.rules.options_json).get("duo_dummy_hand", 1))


def _names(players: int) -> list[str]:
    """The labels of a deal's positions (with two players the dummy's too)."""
    return position_names(players)


def _short_names(view_seat: int, players: int = 3) -> list[str]:
    return [n + (" (you)" if s == view_seat else "") for s, n in enumerate(_names(players))]


def _with_dummy(names: list[str], players: int) -> list[str]:
    """Two players: the players' names and the dummy's position (RULES.md §3.6)."""
    return [*names, "dummy"] if players == 2 and len(names) == 2 else names


def _player_names(names: Sequence[str] | None, players: int = 3) -> list[str]:
    return list(names) if names else [""] * players


def _cards_held(view: pb.SeatView, seat: int) -> int:
    """How many cards a hidden hand still holds (from public facts only)."""
    played = sum(1 for t in view.played_tricks for p in t.cards if p.seat == seat)
    played += sum(1 for p in view.current_trick if p.seat == seat)
    held = 10
    if seat == view.declarer and view.phase == pb.PHASE_DISCARD:
        held = 12
    return max(held - played, 0)


def _trick_text(cards: Iterable[Any], names: Sequence[str], winner: int = -1) -> Text:
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


def _contract_text(view: pb.SeatView) -> Text:
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
        out.append_text(_call_text(view.contract))
    else:
        out.append("won the auction at ")
        out.append_text(_call_text(view.winning_bid))
    if view.dark:
        out.append(" dark", style="bold magenta")
    if view.no_talon:
        out.append(" without talon", style="bold magenta")
    if view.whist_calls:
        out.append("\nwhisting: ")
        out.append_text(_calls_text(view.whist_calls, _names(seat_count(view))))
    if view.whisters:
        out.append("\nwhisters: " + ", ".join(seat_name(s) for s in view.whisters))
    if view.HasField("open_defence"):
        out.append("\ndefence: " + ("open" if view.open_defence else "closed"))
    return out


def _talon_text(view: pb.SeatView) -> Text:
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
    players = _player_names(names, count)
    if sheet.HasField("order"):
        pool_target = sheet.order.pool
    title = "Scoresheet" + (f" — pool to {pool_target}" if pool_target else "")
    if sheet.HasField("order"):
        title += f" ({order_text(sheet.order)})"
    table = Table(title=title, title_justify="left", expand=False)
    table.add_column("seat")
    table.add_column("pool", justify="right")
    table.add_column("gora", justify="right")
    for other in range(count):
        table.add_column(f"whists on {seat_name(other)}", justify="right")
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


def render_view(
    view: pb.SeatView,
    sheet: pb.Scoresheet | None = None,
    *,
    names: Sequence[str] | None = None,
    pool_target: int = 0,
    log: Sequence[str] = (),
) -> RenderableType:
    """The whole table as ``view.seat`` sees it: a pure function of the API's messages."""
    count = seat_count(view)
    players = _with_dummy(_player_names(names, count), count)
    me = view.seat
    labels = _short_names(me, count)
    dummy_hand = _dummy_hand(view)
    held = hand_seats(view.dealer, count, dummy_hand)
    my_turn = view.actor == me and len(view.legal_actions) > 0

    header = Text()
    header.append(f"Deal {view.deal_number}", style="bold")
    header.append(f"   dealer {seat_name(view.dealer)}   phase {PHASE_WORDS[view.phase]}")
    if view.to_act >= 0:
        header.append("   turn: ")
        if my_turn:
            header.append("YOU", style="bold reverse green")
            if view.to_act != me:
                header.append(f" (playing {position_name(view.to_act, count)}'s open hand)")
        else:
            header.append(f"{labels[view.to_act]} {players[view.to_act]}", style="bold cyan")
    if view.raspasy_streak:
        header.append(f"   raspasy in a row: {view.raspasy_streak}", style="yellow")
    if view.bomb:
        bombers = " ".join(seat_name(s) for s in view.bombers)
        header.append(f"   {bomb_word(view.bomb)} bomb ({bombers})", style="bold magenta")
    if view.HasField("order"):
        header.append(f"\n{order_text(view.order)}", style="dim")

    seats = Table(expand=True, show_edge=False, pad_edge=False)
    seats.add_column("seat", no_wrap=True)
    seats.add_column("player", no_wrap=True)
    seats.add_column("position", no_wrap=True)
    seats.add_column("calls")
    seats.add_column("tricks", justify="right")
    seats.add_column("cards")
    visible = {h.seat: list(h.cards) for h in view.visible_hands}
    for seat in range(len(labels)):
        marker = "▶ " if seat == view.to_act else "  "
        role = position(view.dealer, seat, count, dummy_hand)
        if seat == view.declarer:
            role += " declarer"
        elif seat in view.whisters:
            role += " whister"
        calls = [c.call for c in view.auction if c.seat == seat]
        calls += [c.call for c in view.whist_calls if c.seat == seat]
        if seat not in held:
            cards = Text("no hand this deal", style="dim")
        elif seat in view.unseen:
            cards = Text(
                "face down (has not looked)" + (": look, or play dark" if seat == me else ""),
                style="magenta",
            )
        elif seat == me:
            cards = hand_text(view.hand)
        elif seat in visible:
            cards = hand_text(visible[seat])
            cards.append("  (open)", style="dim")
        else:
            cards = Text(f"{_cards_held(view, seat)} cards, hidden", style="dim")
        tricks = str(view.tricks[seat]) if len(view.tricks) > seat else "0"
        style = "bold green" if seat == me else ""
        seats.add_row(
            Text(marker + labels[seat], style=style),
            players[seat] or ("you" if seat == me else "bot"),
            role,
            " ".join(calls) or "—",
            tricks,
            cards,
        )

    auction = Panel(_calls_text(view.auction, _names(count)), title="Auction")
    contract = Panel(_contract_text(view), title="Contract")
    talon = Panel(_talon_text(view), title="Talon")
    trick_body = Text("now:  ")
    trick_body.append_text(_trick_text(view.current_trick, labels))
    trick_body.append("\nlast: ")
    if view.HasField("last_trick") and view.last_trick.cards:
        trick_body.append_text(
            _trick_text(view.last_trick.cards, labels, winner=view.last_trick.winner)
        )
    else:
        trick_body.append("—", style="dim")
    trick_body.append(f"\ntricks played: {view.tricks_played}")
    trick = Panel(trick_body, title="Trick")

    parts: list[RenderableType] = [
        Panel(header, title="Preferans", subtitle=view.name, subtitle_align="right"),
        seats,
        Columns([auction, contract, talon, trick], equal=False, expand=False),
    ]
    if view.HasField("pending_claim"):
        claim = "-".join(str(t) for t in view.pending_claim.tricks)
        parts.append(Text(f"Claim on the table by {seat_name(view.claimant)}: {claim}"))
    if sheet is not None:
        parts.append(scoresheet_table(sheet, players[:count], pool_target))
    if log:
        parts.append(Panel(Text("\n".join(log)), title="Last moves", expand=False))
    hand_title = f"Your hand ({seat_name(me)})"
    my_hand = hand_text(view.hand)
    if me not in held:
        where = position(view.dealer, me, count, dummy_hand)
        my_hand = Text(f"none this deal: you {where}", style="dim")
    elif me in view.unseen:
        my_hand = Text("face down: you have not looked at your cards", style="magenta")
    parts.append(Panel(my_hand, title=hand_title, expand=False, border_style="green"))
    if my_turn and view.to_act != me and view.to_act in visible:
        partner = f"{position_name(view.to_act, count)}'s hand — you play it"
        parts.append(Panel(hand_text(visible[view.to_act]), title=partner, expand=False))
    if my_turn:
        parts.append(render_actions(view.legal_actions, can_claim=view.can_claim))
    return Group(*parts)


def render_order_prompt(
    sheet: pb.Scoresheet | None = None,
    *,
    names: Sequence[str] | None = None,
    timed: bool = True,
) -> RenderableType:
    """Classic (S000 "заказывает игру"): the initial rounds are over and this seat, with the
    largest gora, orders the game: the pool length and, in a game played until time, its end."""
    parts: list[RenderableType] = []
    if sheet is not None:
        parts.append(scoresheet_table(sheet, _player_names(names)))
    text = Text("The initial rounds are over. You have the largest gora: order the game — ")
    text.append("the pool length", style="bold")
    if timed:
        text.append(" and how many minutes to play (the game then ends by time)", style="bold")
    text.append(". Enter takes the default; q quits.")
    parts.append(Panel(text, title="Order the game", border_style="yellow"))
    return Group(*parts)


def render_actions(legal: Sequence[str], *, can_claim: bool = False) -> RenderableType:
    """The legal actions, numbered from 1 (claims are summarised in one line)."""
    if len(legal) > 24 and all(a.startswith("discard ") for a in legal):
        example = legal[-1].split()[1:]
        ascii_form = " ".join(Card.parse(c).ascii for c in example)
        text = Text(f"Discard two cards ({len(legal)} ways): type the two cards, like ")
        text.append(" ".join(example), style="bold")
        text.append(f" or {ascii_form}  (1 = {legal[0]}); q quits.")
        return Panel(text, title="Your move", border_style="yellow")
    items = []
    for number, action in enumerate(legal, start=1):
        item = Text(f"{number:>2}. ", style="bold yellow")
        item.append_text(_call_text(action))
        items.append(item)
    lines: list[RenderableType] = [Columns(items, padding=(0, 3))]
    if can_claim:
        lines.append(
            Text(
                "or claim the rest: 'claim A-B-C' gives the remaining tricks to seats A, B, C "
                "(like claim 2-0-0)"
            )
        )
    body = Group(*lines, Text(HINT, style="dim"))
    return Panel(body, title="Your move", border_style="yellow")


def render_deal_result(
    event: pb.DealScoredEvent,
    names: Sequence[str] | None = None,
    *,
    dealer: int = -1,
    sheet: pb.Scoresheet | None = None,
    pool_target: int = 0,
    log: Sequence[str] = (),
    dummy_hand: int = 1,
) -> RenderableType:
    """The end of a deal: every hand as dealt, the talon, the contract, tricks, what was written
    (with two players the dummy's hand too, at hand ``dummy_hand``: RULES.md §3.6)."""
    count = len(event.entries) or len(names or ()) or max(len(event.tricks), 3)
    players = _with_dummy(_player_names(names, count), count)
    summary = Text()
    summary.append(f"Deal {event.deal_number}: ", style="bold")
    tricks = "  ".join(f"{position_name(s, count)} {t}" for s, t in enumerate(event.tricks))
    if event.kind == "raspasy" and event.bomb:
        summary.append(f"{bomb_word(event.bomb)} bomb", style="magenta")
    elif event.kind == "raspasy":
        summary.append("raspasy (all passed)")
    elif event.kind == "redeal":  # two players (RULES.md §3.6)
        summary.append("both passed: dealt again without play")
    else:
        summary.append(f"{seat_name(event.declarer)} ", style="cyan")
        summary.append_text(_call_text(event.contract or "?"))
        if event.kind == "passed-out":
            summary.append(" — both defenders passed")
        elif event.kind == "half-whist":
            summary.append(" — half-whist")
        elif event.declarer >= 0 and len(event.tricks) > event.declarer:
            taken = event.tricks[event.declarer]
            if event.kind == "misere":
                summary.append(" made" if taken == 0 else f" — {taken} tricks taken")
            else:
                level = Bid.parse(event.contract).level if event.contract else 0
                summary.append(" made" if taken >= level else f" — {level - taken} down")
    if event.dark:
        summary.append("   (dark game: ×2)", style="magenta")
    if event.sign:
        summary.append(f"   (on a {bomb_word(event.sign)} bomb sign)", style="magenta")
    summary.append(f"\ntricks: {tricks}")

    hands = Table(show_edge=False, pad_edge=False)
    hands.add_column("seat")
    hands.add_column("player")
    hands.add_column("hand as dealt")
    for dealt in event.dealt_hands:
        role = f" {position(dealer, dealt.seat, count, dummy_hand)}" if dealer >= 0 else ""
        label = position_name(dealt.seat, count) + role
        hands.add_row(label, players[dealt.seat], hand_text(dealt.cards))
    extra = Text("talon: ")
    extra.append_text(hand_text(event.talon))
    if event.discard:
        extra.append("   discard: ")
        extra.append_text(hand_text(event.discard))

    written = Table(title="Written this deal", title_justify="left", show_edge=False)
    written.add_column("seat")
    written.add_column("pool", justify="right")
    written.add_column("gora", justify="right")
    for other in range(count):
        written.add_column(f"whists on {seat_name(other)}", justify="right")
    for row in event.entries:
        whists = ["" if o == row.seat else f"{w:+d}" for o, w in enumerate(row.whists)]
        written.add_row(seat_name(row.seat), f"{row.pool:+d}", f"{row.gora:+d}", *whists)

    parts: list[RenderableType] = [summary, hands, extra, written]
    if log:
        parts.append(Text("last moves: " + "; ".join(log[-3:]), style="dim"))
    if sheet is not None:
        parts.append(scoresheet_table(sheet, players[:count], pool_target))
    return Panel(Group(*parts), title=f"Deal {event.deal_number} is over", border_style="magenta")


def render_final(
    sheet: pb.Scoresheet,
    names: Sequence[str] | None = None,
    *,
    settlement: Sequence[str] = (),
    pool_target: int = 0,
    seed_hex: str = "",
) -> RenderableType:
    """The end of the game: the final sheet and each seat's result in whists."""
    final = pb.Scoresheet()
    final.CopyFrom(sheet)
    if settlement and not final.settlement:
        final.settlement.extend(settlement)
    count = max(len(names or ()), len(sheet.totals)) or 3
    players = _player_names(names, count)
    parts: list[RenderableType] = [scoresheet_table(final, players, pool_target)]
    if final.settlement:
        line = Text("Settlement: ", style="bold")
        if len(final.accounts) > count:  # somebody joined in place of another: by account
            labels = [f"{a.player_id}" + (" (left)" if a.left else "") for a in final.accounts]
        else:
            labels = [f"{seat_name(s)} {players[s]}".strip() for s in range(count)]
        line.append(
            "   ".join(
                f"{label} {format_result(v)}"
                for label, v in zip(labels, final.settlement, strict=False)
            )
        )
        parts.append(line)
    parts.append(Text(f"{len(sheet.deals)} deals played."))
    if seed_hex:
        parts.append(Text(f"seed (check the shuffles): {seed_hex}", style="dim"))
    return Panel(Group(*parts), title="Game over", border_style="bold green")


# --- input --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """What the person typed: an action, a wish to quit, or why it was not understood."""

    action: Action | None = None
    quit: bool = False
    error: str = ""


def parse_choice(text: str, legal: Sequence[str], *, in_play: bool = False) -> Choice:
    """The person's line → a choice. A number picks from ``legal`` (1-based); anything else is
    read as notation (ASCII too). Whether the action is legal is for the server to say."""
    raw = " ".join(text.strip().split())
    if not raw:
        return Choice(error="type a number from the list or an action (q quits)")
    if raw.lower() in QUIT_WORDS:
        return Choice(quit=True)
    if raw.isdigit():
        number = int(raw)
        if not legal:
            return Choice(error="it is not your turn")
        if not 1 <= number <= len(legal):
            return Choice(error=f"choose a number from 1 to {len(legal)}")
        return Choice(action=parse_action(legal[number - 1], cards_first=in_play))
    try:
        action = parse_action(raw, cards_first=in_play)
    except InvalidAction as exc:
        # Two bare cards while discarding mean the discard.
        if any(a.startswith("discard") for a in legal):
            try:
                if len(parse_cards(raw)) == 2:
                    return Choice(action=parse_action(f"discard {raw}"))
            except InvalidAction:
                pass
        return Choice(error=exc.message)
    if isinstance(action, Call) and any(a.startswith("declare ") for a in legal):
        return Choice(action=Declare(action.bid))  # a bare bid names the contract
    return Choice(action=action)


def describe_rpc_error(exc: grpc.RpcError) -> str:
    """The server's refusal in words: its message, plus the legal actions or the bad field."""
    code = exc.code() if hasattr(exc, "code") else None
    message = exc.details() if hasattr(exc, "details") else str(exc)
    extras: list[str] = []
    try:
        status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    except (ValueError, AttributeError):
        status = None
    if status is not None:
        from google.rpc import error_details_pb2

        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                if info.metadata.get("allowed"):
                    extras.append(f"allowed: {info.metadata['allowed']}")
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                extras += [f"{v.field}: {v.description}" for v in bad.field_violations]
    name = code.name if code is not None else "ERROR"
    text = f"{name}: {message}"
    extras = [e for e in extras if e.split(": ", 1)[-1] != message]
    return text + ("\n" + "\n".join(extras) if extras else "")


# --- the loop -----------------------------------------------------------------------------


def describe_action(event: pb.ActionEvent) -> str:
    """One line of the move log: ``B: 6♠``, ``C plays K♠``, ``A: discard (hidden)``."""
    action = event.action
    kind = action.WhichOneof("kind")
    who = seat_name(event.seat)
    if event.actor != event.seat:
        who += f" (by {seat_name(event.actor)})"
    if kind == "play_card":
        return f"{who} plays {action.play_card}"
    if kind == "bid":
        return f"{who}: {action.bid}"
    if kind == "declare":
        return f"{who} declares {action.declare}"
    if kind == "discard":
        cards = " ".join(action.discard.cards) or "two cards (hidden)"
        return f"{who} discards {cards}"
    if kind == "choose_defence":
        return f"{who}: {'open' if action.choose_defence.open else 'closed'} defence"
    if kind == "write_off":
        return f"{who}: {'writes it off his gora' if action.write_off.off else 'to pool'}"
    if kind == "own_whist_answer":
        return f"{who}: {'allows' if action.own_whist_answer.allow else 'refuses'} the own whist"
    if kind == "claim":
        return f"{who} claims {'-'.join(str(t) for t in action.claim.tricks)}"
    if kind == "dark_bid":
        return f"{who}: {action.dark_bid} dark"
    if kind == "no_talon_bid":
        return f"{who}: {action.no_talon_bid} without talon"
    words = {
        "pass": "pass",
        "here": "here",
        "take_talon": "takes the talon",
        "whist": "whist",
        "half_whist": "half-whist",
        "own_whist": "own whist",
        "accept_claim": "accepts the claim",
        "reject_claim": "rejects the claim",
        "look": "looks at his cards",
        "bomb": "bomb (pass dark)",
    }
    return f"{who}: {words.get(kind or '', kind or '?')}"


Reader = Callable[[str], str]


@dataclass
class PlaySession:
    """One person at one seat, bots at the others, one game on the server."""

    client: GameClient
    name: str
    tokens: Sequence[str]
    seat: int
    console: Console
    read: Reader
    names: Sequence[str] = ("", "", "")
    pool_target: int = 0
    bot_delay: float = 0.4
    sleep: Callable[[float], None] = time.sleep
    clear: bool = False
    rules: RuleSet | None = None
    """The table's rules (Classic: to order the game and to know its initial deals)."""
    creator: Creator | None = None
    """The creator's credential: with ``time_deals`` the person's client calls time."""
    time_deals: int = 0
    """A game played until time: time is called after this many deals of the ordered pool
    (0: play until the ordered end time, when the server calls it)."""
    clock: Callable[[], float] = time.time
    remote: bool = False
    """The other seats are not played here (people elsewhere, the server's bots): ``tokens``
    holds only the person's credential (a seat token or a JWT), the move prompt also takes the
    commands of ``service.cli.online`` and the clock is shown."""

    def __post_init__(self) -> None:
        if self.remote:
            tokens = [self.tokens[0]] * (self.seat + 1)
            self.seats: list[SeatClient] = [self.client.seat(self.name, t) for t in tokens]
        else:
            self.seats = [self.client.seat(self.name, t) for t in self.tokens]
        self.bots = [make_bot() for _ in self.seats]
        self.head = 0
        self.dealer = -1
        self.log: deque[str] = deque(maxlen=6)
        self.time_called = False

    # -- output --

    def _show(self, renderable: RenderableType) -> None:
        if self.clear:
            self.console.clear()
        self.console.print(renderable)

    def _ask(self, prompt: str) -> str | None:
        """A line from the person, or ``None`` if the input is closed or interrupted."""
        try:
            return self.read(prompt)
        except (EOFError, KeyboardInterrupt):
            return None

    # -- the game --

    def run(self, stream: Iterator[Any]) -> bool:
        """Play until the game is over (True) or the person quits (False)."""
        me = self.seats[self.seat]
        for message in stream:
            kind = message.WhichOneof("event")
            if kind == "heartbeat" or kind is None:
                continue
            if kind == "deal_dealt":
                self.dealer = message.deal_dealt.dealer
                self.log.clear()
            elif kind == "action":
                self.log.append(describe_action(message.action))
            elif kind == "game_ordered":
                self.log.append(order_text(message.game_ordered))
            elif kind == "time_called":
                self.time_called = True
                last = message.time_called.deal_number
                self.log.append(f"time is called: deal {last} is the last")
            elif kind == "deal_scored":
                if not self._deal_over(message.deal_scored, message.version):
                    return False
            elif kind == "game_finished":
                self._game_over(message.game_finished, message.version)
                return True
            elif kind == "game_aborted":
                seat = message.game_aborted.seat
                self.console.print(f"{self.names[seat]} aborted the game: nothing is settled")
                return True
            if message.version < self.head:
                continue  # more events of the last command are on their way
            view = me.view(min_version=self.head)
            if view.actor < 0:
                continue
            if self.remote and view.actor != self.seat:
                self._waiting(view)
                continue
            if view.orderer >= 0:
                if not self._order(view):
                    return False
                continue
            if self._time_is_up(view):
                self._call_time()
                continue
            sheet = self.client.scoresheet(self.name, min_version=self.head)
            self._show(
                render_view(
                    view,
                    sheet,
                    names=self.names,
                    pool_target=self.pool_target,
                    log=list(self.log),
                )
            )
            if view.actor == self.seat:
                if not self._person_moves(me, view):
                    return False
            else:
                self._bot_moves(view.actor)
        return False

    def _waiting(self, view: pb.SeatView) -> None:
        """Another seat decides (remote play): ``service.cli.online`` says so."""

    def _command(self, me: SeatClient, view: pb.SeatView, line: str) -> bool | None:
        """A command of the move prompt besides an action (``service.cli.online``): ``True``
        when done and play goes on, ``False`` to leave, ``None`` if the line is no command."""
        return None

    def _time_is_up(self, view: pb.SeatView) -> bool:
        """Whether this client calls time now (``time_deals`` pool deals have been dealt)."""
        rules = self.rules
        return (
            rules is not None
            and rules.play_until_time
            and self.creator is not None
            and self.time_deals > 0
            and not self.time_called
            and view.HasField("order")
            and view.deal_number - initial_deals(rules) >= self.time_deals
        )

    def _call_time(self) -> None:
        """The creator calls time (``CallTime``): the deal in progress is the last."""
        assert self.creator is not None
        self.time_called = True
        called = self.client.call_time(self.name, self.creator.request_id, self.creator.secret)
        self.head = max(self.head, called.version)

    def _order(self, view: pb.SeatView) -> bool:
        """The game waits for its order (Classic): the orderer's bot orders, or the person is
        asked for the pool length and, in a game played until time, how long to play."""
        rules = self.rules or RuleSet(pool_target=self.pool_target or 20)
        context = sheet_from_proto(view.sheet)
        pool, ends_at = order_choice(rules, self.clock(), sheet=context, seat=view.orderer)
        seat = self.seats[view.orderer]
        if view.orderer != self.seat:
            self.sleep(self.bot_delay)
            self.head = max(self.head, seat.order_game(pool, ends_at).version)
            return True
        sheet = self.client.scoresheet(self.name, min_version=self.head)
        self._show(render_order_prompt(sheet, names=self.names, timed=rules.ending_by_time))
        while True:
            chosen = self._ask_number(f"Pool length [{pool}]> ", pool)
            if chosen is None:
                return False
            ends = 0
            if rules.ending_by_time:
                prompt = f"Play for how many minutes [{ORDER_MINUTES}]> "
                minutes = self._ask_number(prompt, ORDER_MINUTES)
                if minutes is None:
                    return False
                ends = int(self.clock()) + minutes * 60
            obligations: dict[str, int] = {}
            if rules.robber:
                asked = self._ask_obligations()
                if asked is None:
                    return False
                obligations = asked
            try:
                response = seat.order_game(chosen, ends, obligations=obligations)
            except grpc.RpcError as exc:
                if exc.code() not in (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.INVALID_ARGUMENT,
                ):
                    raise
                self.console.print(
                    Text(f"Refused by the server — {describe_rpc_error(exc)}", "red")
                )
                continue
            self.head = max(self.head, response.version)
            self.pool_target = chosen
            return True

    def _ask_obligations(self) -> dict[str, int] | None:
        """The robber's obligatory games from the person (S000 "Разбойник"), e.g. "misere 1,
        ten 1, nine 2, eight 3" (Enter: none); ``None`` to quit. The server checks the counts."""
        while True:
            line = self._ask("Obligatory games, e.g. 'misere 1, ten 1, nine 2, eight 3' [none]> ")
            if line is None or line.strip().lower() in QUIT_WORDS:
                return None
            try:
                return parse_obligations(line)
            except InvalidAction as exc:
                self.console.print(Text(str(exc), "red"))

    def _ask_number(self, prompt: str, default: int) -> int | None:
        """A whole number from the person (Enter: ``default``); ``None`` to quit."""
        while True:
            line = self._ask(prompt)
            if line is None or line.strip().lower() in QUIT_WORDS:
                return None
            text = line.strip()
            if not text:
                return default
            if text.isdigit():
                return int(text)
            self.console.print(Text("type a whole number (Enter: the default; q quits)", "red"))

    def _bot_moves(self, seat: int) -> None:
        self.sleep(self.bot_delay)
        client = self.seats[seat]
        view = client.view(min_version=self.head)
        action = self.bots[seat](view_from_proto(view))
        self.head = max(self.head, client.act(action).version)

    def _person_moves(self, me: SeatClient, view: pb.SeatView) -> bool:
        in_play = view.phase == pb.PHASE_PLAY
        while True:
            line = self._ask(self.move_prompt)
            if line is None:
                return False
            command = self._command(me, view, line)
            if command is not None:
                return command
            choice = parse_choice(line, list(view.legal_actions), in_play=in_play)
            if choice.quit:
                return False
            if choice.action is None:
                self.console.print(Text(choice.error, style="red"))
                continue
            try:
                response = me.act(choice.action)
            except grpc.RpcError as exc:
                if exc.code() not in (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.INVALID_ARGUMENT,
                ):
                    raise
                self.console.print(
                    Text(f"Refused by the server — {describe_rpc_error(exc)}", "red")
                )
                if self.remote and me.view().actor != self.seat:
                    return True  # too late: out of time, the server moved for the seat
                continue
            self.head = max(self.head, response.version)
            return True

    move_prompt = "Your move> "

    def _deal_over(self, event: pb.DealScoredEvent, version: int) -> bool:
        sheet = self.client.scoresheet(self.name, min_version=version)
        self._show(
            render_deal_result(
                event,
                self.names,
                dealer=self.dealer,
                dummy_hand=self.rules.duo_dummy_hand if self.rules else 1,
                sheet=sheet,
                pool_target=self.pool_target,
                log=list(self.log),
            )
        )
        if sheet.settlement or self.remote:
            return True  # over, or played on by the others (a prompt would hold the clock)
        line = self._ask("Enter: next deal, q: quit> ")
        return line is not None and line.strip().lower() not in QUIT_WORDS

    def _game_over(self, event: pb.GameFinishedEvent, version: int) -> None:
        sheet = self.client.scoresheet(self.name, min_version=version)
        self.console.print(
            render_final(
                sheet,
                self.names,
                settlement=list(event.settlement),
                pool_target=self.pool_target,
                seed_hex=event.seed_hex,
            )
        )


def play_game(
    client: GameClient,
    *,
    seat: int = 0,
    player: str = "you",
    pool: int = 0,
    rules: RuleSet | None = None,
    read: Reader,
    console: Console,
    bot_delay: float = 0.4,
    sleep: Callable[[float], None] = time.sleep,
    clear: bool = False,
    time_deals: int = 0,
    clock: Callable[[], float] = time.time,
) -> int:
    """Create a game on the server and play it: 0 when it is over, 1 if the person quit.
    ``rules`` (default: the server's default rule set, with ``pool`` as its pool target if
    given) are the table's conventions. A game played until time (Classic) ends at its
    ordered end time, or with ``time_deals`` after that many deals of the ordered pool (this
    client, the game's creator, calls time)."""
    if rules is None and pool:
        rules = RuleSet(pool_target=pool)
    count = 3 if rules is None else rules.players
    if not 0 <= seat < count:
        raise InvalidAction(f"--seat {seat}: the seats are 0 to {count - 1}", "--seat")
    bots = [f"bot-{seat_name(s)}" for s in range(count)]
    players = [player if s == seat else bots[s] for s in range(count)]
    if player in bots:
        players = [player if s == seat else f"{bots[s]}-bot" for s in range(count)]
    creator = Creator(uuid.uuid4().hex, secrets.token_hex(16))
    created = client.create_game(
        players, rules, request_id=creator.request_id, creator_secret=creator.secret
    )
    name = created.game.name
    pool_target = created.game.rules.pool_target or pool
    session = PlaySession(
        client,
        name,
        list(created.seat_tokens),
        seat,
        console,
        read,
        names=players,
        pool_target=pool_target,
        bot_delay=bot_delay,
        sleep=sleep,
        clear=clear,
        rules=game_rules(created.game),
        creator=creator,
        time_deals=time_deals,
        clock=clock,
    )
    session.head = created.game.version
    stream = session.seats[seat].watch_updates(from_version=0)
    try:
        finished = session.run(stream)
    finally:
        cancel = getattr(stream, "cancel", None)
        if cancel is not None:
            cancel()
    if not finished:
        console.print(f"You left the game {name}. Bye!")
        return 1
    return 0


def run(args: Any) -> int:
    """``pref play``: the command-line entry point."""
    from service.cli.online import run_online

    console = Console()
    player = args.name or _default_name()
    client = client_for(args)
    try:
        online = run_online(args, client, console)
        if online is None:
            from service.cli.lobby import run_lobby

            online = run_lobby(args, client, console)
        if online is not None:
            return online
        return play_game(
            client,
            seat=args.seat,
            player=player,
            rules=rules_from_args(args),
            read=console.input,
            console=console,
            bot_delay=args.bot_delay,
            clear=console.is_terminal,
            time_deals=args.deals,
        )
    except grpc.RpcError as exc:
        console.print(Text(f"The server at {args.server} failed: {describe_rpc_error(exc)}", "red"))
        return 2
    except KeyboardInterrupt:
        console.print("Interrupted. Bye!")
        return 130
    finally:
        client.close()


def _default_name() -> str:
    try:
        return getpass.getuser() or "player"
    except (KeyError, OSError):
        return "player"
