"""The screens of ``pref play``, each fitting an 80×24 terminal with the prompt below it.

``render_view`` is the table (one line per seat, the auction, the contract, the trick, the last
moves, your hand, your choices); ``render_deal_result``, ``render_final``, ``render_sheet``,
``render_help`` and ``render_order_prompt`` are the other screens. The session
(``service.cli.play``) clears the terminal and draws one of them after every decision, so the
table is redrawn in place. All are pure functions of the API's messages: they draw only what a
message holds, so nothing hidden can leak. The full scoresheet (whists on each seat) is on its
own screen (``sheet``); the table shows each seat's pool and gora.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from domain.rules import Card
from domain.rules.seats import hand_seats, seat_name
from service.cli.common import position, position_name
from service.cli.playinput import HINT
from service.cli.playtext import (
    PHASE_WORDS,
    bomb_word,
    call_text,
    calls_text,
    card_text,
    cards_held,
    dummy_hand,
    hand_text,
    line,
    order_text,
    player_names,
    position_labels,
    scoresheet_table,
    seat_count,
    short_names,
    talon_text,
    trick_text,
    with_dummy,
)
from service.gen.preferans.v1 import game_pb2 as pb

WIDTH = 80
HEIGHT = 24
"""The terminal every screen fits, prompt and one message line included."""

HELP = """\
[bold]Playing[/bold]
  Type a choice's number, or the action: 6s or 6♠, 7nt, misere, pass, whist,
  Th or 10♥ (a card), discard 7c 8d, claim 3-0-0 (tricks left to A-B-C).
  A typed action is [bold]held, not sent[/bold]: Enter sends it, u takes it back, another
  action replaces it. Once sent it stands: the rules have no take-back.
[bold]Commands[/bold]
  [bold]? help[/bold]     this screen          [bold]sheet[/bold]       the whole scoresheet
  [bold]flag N why[/bold]  dispute scored deal N (a referee rules on it)
  [bold]q[/bold]           leave; the game waits for you (see below)
  [bold]resign[/bold], [bold]adjourn[/bold], [bold]resume[/bold]   in online games with people
[bold]The table[/bold]
  ▶ the hand on turn; H1 H2 H3 the hands from the dealer's left; tr tricks
  this deal; p pool and g gora so far. On the sheet "on B": whists on B.
[bold]Claims[/bold]
  Bots accept a claim exactly when it is guaranteed: however the cards they
  cannot see lie and however the others play.
[bold]Your seat[/bold]
  Come back with: pref play --resume {game}
  Its tokens are saved, readable by you only, in:"""


def render_view(
    view: pb.SeatView,
    sheet: pb.Scoresheet | None = None,
    *,
    names: Sequence[str] | None = None,
    pool_target: int = 0,
    log: Sequence[str] = (),
    pending: str = "",
) -> RenderableType:
    """The table as ``view.seat`` sees it, in at most ``HEIGHT - 2`` lines of ``WIDTH``."""
    count = seat_count(view)
    players = with_dummy(player_names(names, count), count)
    me = view.seat
    labels = short_names(me, count)
    held = hand_seats(view.dealer, count, dummy_hand(view))
    my_turn = view.actor == me and len(view.legal_actions) > 0
    parts: list[RenderableType] = [_header(view, labels, players, my_turn, sheet, pool_target)]
    if view.HasField("order"):
        parts.append(line(Text(order_text(view.order), style="dim")))
    parts.append(_seats(view, sheet, labels, players, held))
    parts.append(line(_auction_line(view, count)))
    parts.append(line(_talon_trick_line(view, labels)))
    if view.HasField("pending_claim"):
        claim = "-".join(str(t) for t in view.pending_claim.tricks)
        claimant = seat_name(view.claimant)
        parts.append(line(Text(f"Claim by {claimant}: {claim} (tricks A-B-C)", "bold yellow")))
    if log:
        parts.append(line(Text("last: " + " · ".join(log[-3:]), style="dim")))
    parts.append(line(_my_hand(view, held, count)))
    visible = {h.seat: list(h.cards) for h in view.visible_hands}
    for seat in sorted(visible):
        who = position_name(seat, count)
        title = f"{who}'s hand — you play it: " if my_turn and view.to_act == seat else ""
        open_hand = Text(title or f"{who} (open): ", style="bold" if title else "")
        parts.append(line(open_hand + hand_text(visible[seat])))
    if my_turn:
        parts.append(render_actions(view.legal_actions, can_claim=view.can_claim))
    if pending:
        parts.append(line(_pending_text(pending)))
    return Group(*parts)


def _pending_text(pending: str) -> Text:
    out = Text("Held, not sent: ", style="bold yellow")
    out.append(pending, style="bold")
    out.append(" — Enter sends it, u takes it back", style="yellow")
    return out


def _header(
    view: pb.SeatView,
    labels: Sequence[str],
    players: Sequence[str],
    my_turn: bool,
    sheet: pb.Scoresheet | None,
    pool_target: int,
) -> Text:
    out = Text(f"Deal {view.deal_number}", style="bold")
    out.append(f"  dealer {seat_name(view.dealer)}  {PHASE_WORDS[view.phase]}")
    if view.to_act >= 0:
        out.append("  turn: ")
        if my_turn:
            out.append("YOU", style="bold reverse green")
        else:
            out.append(f"{labels[view.to_act]} {players[view.to_act]}".strip(), "bold cyan")
    if view.raspasy_streak:
        out.append(f"  raspasy ×{view.raspasy_streak}", style="yellow")
    if view.bomb:
        bombers = " ".join(seat_name(s) for s in view.bombers)
        out.append(f"  {bomb_word(view.bomb)} bomb ({bombers})", style="bold magenta")
    if sheet is not None and sheet.HasField("order"):
        pool_target = sheet.order.pool
    if pool_target:
        out.append(f"  pool to {pool_target}", style="dim")
    out.append(f"  {view.name}  ? help", style="dim")
    return line(out)


def _seats(
    view: pb.SeatView,
    sheet: pb.Scoresheet | None,
    labels: Sequence[str],
    players: Sequence[str],
    held: Sequence[int],
) -> Table:
    me = view.seat
    count = seat_count(view)
    totals = {row.seat: row for row in sheet.totals} if sheet is not None else {}
    table = Table(box=None, pad_edge=False, padding=(0, 1), show_edge=False, expand=False)
    for header, justify in (
        ("seat", "left"),
        ("hand", "left"),
        ("calls", "left"),
        ("tr", "right"),
        ("p", "right"),
        ("g", "right"),
        ("cards", "left"),
    ):
        table.add_column(header, justify=justify, no_wrap=True, overflow="ellipsis")  # type: ignore[arg-type]
    table.columns[0].max_width = 22
    table.columns[2].max_width = 18
    visible = {h.seat for h in view.visible_hands}
    for seat in range(len(labels)):
        marker = "▶" if seat == view.to_act else " "
        name = players[seat] or ("you" if seat == me else "bot")
        label = Text(f"{marker} {labels[seat]} {name}", style="bold green" if seat == me else "")
        role = position(view.dealer, seat, count, dummy_hand(view))
        if seat == view.declarer:
            role += " decl."
        elif seat in view.whisters:
            role += " whist"
        calls = [c.call for c in view.auction if c.seat == seat]
        calls += [c.call for c in view.whist_calls if c.seat == seat]
        if seat not in held:
            cards = Text("no hand", style="dim")
        elif seat in view.unseen:
            cards = Text("face down", style="magenta")
        elif seat == me:
            cards = Text("yours ↓", style="green")
        elif seat in visible:
            cards = Text("open ↓", style="dim")
        else:
            cards = Text(f"{cards_held(view, seat)} hidden", style="dim")
        row = totals.get(seat)
        tricks = str(view.tricks[seat]) if len(view.tricks) > seat else "0"
        table.add_row(
            label,
            role,
            " ".join(calls[-3:]) or "—",
            tricks,
            str(row.pool) if row else "",
            str(row.gora) if row else "",
            cards,
        )
    return table


def _auction_line(view: pb.SeatView, count: int) -> Text:
    """The auction while it runs, then the contract, the whisting and the defence."""
    if (view.declarer < 0 and view.phase == pb.PHASE_BIDDING) or not view.auction:
        out = Text("auction: ")
        return out + calls_text(view.auction[-6:], position_labels(count))
    out = Text("contract: ")
    if view.declarer < 0:
        if view.bomb:
            return out + Text(f"{bomb_word(view.bomb)} bomb: take few tricks", "magenta")
        if view.phase == pb.PHASE_PLAY:
            return out + Text("raspasy (all passed): take as few tricks as you can", "yellow")
        return out + Text("none yet", style="dim")
    out.append(f"{seat_name(view.declarer)} ", style="cyan")
    if view.contract:
        out.append("plays ")
        out.append_text(call_text(view.contract))
    else:
        out.append("won at ")
        out.append_text(call_text(view.winning_bid))
    if view.dark:
        out.append(" dark", style="bold magenta")
    if view.no_talon:
        out.append(" without talon", style="bold magenta")
    if view.whist_calls:
        out.append("  whisting: ")
        out.append_text(calls_text(view.whist_calls, position_labels(count)))
    if view.HasField("open_defence"):
        out.append("  defence: " + ("open" if view.open_defence else "closed"))
    return out


def _talon_trick_line(view: pb.SeatView, labels: Sequence[str]) -> Text:
    short = [label.split(" ")[0] for label in labels]
    out = Text("talon: ")
    out.append_text(talon_text(view))
    out.append("   trick: ")
    out.append_text(trick_text(view.current_trick, short))
    if view.HasField("last_trick") and view.last_trick.cards:
        out.append("   last: ")
        out.append_text(trick_text(view.last_trick.cards, short, winner=view.last_trick.winner))
    return out


def _my_hand(view: pb.SeatView, held: Sequence[int], count: int) -> Text:
    me = view.seat
    out = Text(f"your hand ({seat_name(me)}): ", style="bold green")
    if me not in held:
        where = position(view.dealer, me, count, dummy_hand(view))
        return out + Text(f"none this deal: you {where}", style="dim")
    if me in view.unseen:
        return out + Text("face down: you have not looked at your cards", style="magenta")
    return out + hand_text(view.hand)


def render_actions(legal: Sequence[str], *, can_claim: bool = False) -> RenderableType:
    """The legal actions, numbered from 1 (claims are summarised in one line)."""
    title = Text("Your move: ", style="bold yellow")
    if len(legal) > 24 and all(a.startswith("discard ") for a in legal):
        example = legal[-1].split()[1:]
        ascii_form = " ".join(Card.parse(c).ascii for c in example)
        title.append(f"discard two cards ({len(legal)} ways): type them, like ")
        title.append(" ".join(example), style="bold")
        title.append(f" or {ascii_form}; q quits.")
        return Group(line(title), line(Text(HINT, style="dim")))
    items = []
    for number, action in enumerate(legal, start=1):
        item = Text(f"{number}.", style="bold yellow")
        item.append_text(call_text(action))
        items.append(item)
    lines: list[RenderableType] = [title, Columns(items, padding=(0, 1))]
    hint = HINT
    if can_claim:
        hint = "or claim the rest: claim 2-1-0 gives the tricks left to A, B, C. " + HINT
    lines.append(line(Text(hint, style="dim")))
    return Group(*lines)


def render_help(game: str, tokens: str) -> RenderableType:
    """The help screen (``help`` or ``?``)."""
    game_id = game.removeprefix("games/")
    if not tokens:
        text = HELP.rsplit("\n", 2)[0] + "\n  Online: sit down again with pref play --game {game}"
        return Text.from_markup(text.format(game=game_id))
    return Group(
        Text.from_markup(HELP.format(game=game_id)),
        line(Text(f"  {tokens}")),
    )


def render_sheet(sheet: pb.Scoresheet, names: Sequence[str], pool_target: int) -> RenderableType:
    """The whole scoresheet on its own screen (``sheet``)."""
    return Group(scoresheet_table(sheet, names, pool_target), Text("Enter: back to the table"))


def render_order_prompt(
    sheet: pb.Scoresheet | None = None,
    *,
    names: Sequence[str] | None = None,
    timed: bool = True,
) -> RenderableType:
    """Classic (S000 "заказывает игру"): the initial rounds are over and this seat, with the
    largest gora, orders the game: the pool length and, in a game played until time, its end."""
    parts: list[RenderableType] = [Text("Order the game", style="bold yellow")]
    if sheet is not None:
        parts.append(scoresheet_table(sheet, player_names(names)))
    text = Text("The initial rounds are over. You have the largest gora: order the game — ")
    text.append("the pool length", style="bold")
    if timed:
        text.append(" and how many minutes to play (the game then ends by time)", style="bold")
    text.append(". Enter takes the default; q quits.")
    parts.append(text)
    return Group(*parts)


__all__ = [
    "HEIGHT",
    "WIDTH",
    "card_text",
    "render_actions",
    "render_help",
    "render_order_prompt",
    "render_sheet",
    "render_view",
]
