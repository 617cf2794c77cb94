"""``pref replay``: a stored game as it was, decision by decision, for a referee (``rich``).

Pure parts, testable without a terminal: ``frames`` turns a hand record (docs/HANDRECORD.md)
into one renderable per event (the deal dealt, each decision, the score written), each showing
the whole table: every hand as it then stood, the talon, the discard, the auction, the
whisting, the trick on the table and the tricks so far. ``run_replay`` prints them, waiting for
Enter between them with ``step`` (``q`` quits).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from domain.handrecord import Record
from domain.rules import (
    DealState,
    DealtCards,
    Phase,
    RuleSet,
    apply,
    format_cards,
    mask_of,
    parse_action,
    parse_cards,
)
from domain.rules.cards import Card
from domain.rules.game import deal_state
from domain.rules.seats import hand_number, seat_name
from service.cli.common import position

QUIT_WORDS = frozenset({"q", "quit", "exit"})


def _hand(mask: int) -> Text:
    text = Text()
    for i, group in enumerate(format_cards(mask).split("  ")):
        if i:
            text.append("  ")
        text.append(group, style="bold red" if group[:1] in ("♦", "♥") else "bold")
    return text


def _calls(calls: Sequence[tuple[int, Any]]) -> str:
    return ", ".join(f"{seat_name(s)} {a}" for s, a in calls) or "—"


def _trick(cards: Sequence[tuple[int, int]]) -> str:
    return "  ".join(f"{seat_name(s)} {Card(c)}" for s, c in cards) or "—"


def render_table(
    state: DealState, deal: Mapping[str, Any], players: Sequence[str], title: str
) -> RenderableType:
    """The whole table at one moment of a deal (every hand open: this is for a referee)."""
    n = len(players)
    dealer = deal["dealer"]
    hands = Table(show_header=True, box=None, padding=(0, 2))
    hands.add_column("seat")
    hands.add_column("player")
    hands.add_column("cards")
    hands.add_column("tricks", justify="right")
    for seat in sorted(range(n), key=lambda s: hand_number(dealer, s, n)):
        role = f"{seat_name(seat)} {position(dealer, seat, n)}"
        if seat == state.declarer:
            role += " declarer"
        hands.add_row(
            role, players[seat], _hand(state.play.hands[seat]), str(state.play.tricks[seat])
        )
    lines = [
        f"Talon     {' '.join(str(Card(c)) for c in state.talon)}"
        + ("  (taken)" if state.talon_open else ""),
        f"Auction   {_calls(state.auction.calls)}",
    ]
    classic = _classic_line(state)
    if classic:
        lines.append(f"Classic   {classic}")
    if state.discard:
        lines.append(f"Discard   {format_cards(state.discard)}")
    if state.contract is not None:
        lines.append(f"Contract  {seat_name(state.declarer)} {state.contract}")
    if state.whist.calls:
        lines.append(f"Whist     {_calls(state.whist.calls)}")
    if state.whist.open is not None:
        lines.append(f"Defence   {'open' if state.whist.open else 'closed'}")
    history = state.play.history
    if history:
        last = history[-1]
        lines.append(
            f"Trick {len(history):>2}  {_trick(last.cards)}  won by {seat_name(last.winner)}"
        )
    if state.play.trick:
        lines.append(f"On table  {_trick(state.play.trick)}")
    if state.claim is not None:
        claim = "-".join(str(t) for t in state.claim.tricks)
        lines.append(f"Claim     {seat_name(state.claim.claimant)}: {claim}")
    return Panel(Group(hands, Text("\n".join(lines))), title=title, title_align="left")


def _seats(mask: int) -> str:
    return " ".join(seat_name(s) for s in range(mask.bit_length()) if mask >> s & 1)


def _classic_line(state: DealState) -> str:
    """Classic marks of the moment: the bomb and its bombers, a dark or no-talon contract, who
    has not looked yet ("" when none)."""
    parts = []
    if state.bomb:
        parts.append(f"bomb of level {state.bomb} ({_seats(state.bombers)})")
    elif state.auction.bombers:
        parts.append(f"bomb standing ({_seats(state.auction.bombers)})")
    if state.dark:
        parts.append("dark game")
    if state.no_talon:
        parts.append("without talon")
    if state.unseen:
        parts.append(f"not looked: {_seats(state.unseen)}")
    return "; ".join(parts)


def _score(deal: Mapping[str, Any]) -> RenderableType:
    table = Table(title=f"Deal {deal['number']} written on the sheet", box=None)
    table.add_column("seat")
    for key in ("pool", "gora"):
        table.add_column(key, justify="right")
    table.add_column("whists written", justify="left")
    entry = deal["entry"]
    for seat, row in enumerate(entry["whists"]):
        whists = ", ".join(f"on {seat_name(t)} {v}" for t, v in enumerate(row) if v) or "—"
        table.add_row(seat_name(seat), str(entry["pool"][seat]), str(entry["gora"][seat]), whists)
    result = deal["result"]
    what = result["kind"]
    if result["declarer"] >= 0:
        what += f", {seat_name(result['declarer'])} {result['contract']}"
    tricks = "-".join(str(t) for t in result["tricks"])
    helps = "".join(f"\nHelp: {seat_name(h)} → {seat_name(r)} {p}" for h, r, p in entry["helps"])
    return Group(Text(f"Result: {what}, tricks {tricks}{helps}"), table)


def frames(rec: Record, deal_number: int | None = None) -> Iterator[RenderableType]:
    """One renderable per event of each deal (or of deal ``deal_number``): dealt, every
    decision, scored."""
    rules = RuleSet.from_dict(rec["rules"])
    players = rec["players"]
    chosen = [d for d in rec["deals"] if deal_number is None or d["number"] == deal_number]
    if not chosen:
        raise ValueError(f"no finished deal {deal_number} in this game")
    for deal in chosen:
        number = deal["number"]
        hands = tuple(mask_of(parse_cards(h)) for h in deal["hands"])
        a, b = parse_cards(deal["talon"])
        # deal_state: an initial deal of Classic (a bomb or raspasy round) starts in play.
        state = deal_state(
            rules,
            DealtCards(hands, (a, b)),
            deal["dealer"],
            number,
            deal["raspasy_streak"],
            deal.get("dealer_run", 0),
            deal.get("classic", {}).get("bomb_streak", 0),
        )
        yield render_table(
            state, deal, players, f"Deal {number} dealt by {seat_name(deal['dealer'])}"
        )
        for i, step in enumerate(deal["actions"], 1):
            action = parse_action(step["action"], cards_first=state.phase is Phase.PLAY)
            state = apply(state, action, step["seat"])
            title = f"Deal {number} · {i}. {seat_name(step['seat'])}: {action}"
            yield render_table(state, deal, players, title)
        yield _score(deal)


def run_replay(
    rec: Record,
    console: Console,
    *,
    deal_number: int | None = None,
    step: bool = False,
    read: Callable[[str], str] = input,
) -> int:
    """Print the frames; with ``step`` wait for Enter between them (``q`` quits)."""
    for frame in frames(rec, deal_number):
        console.print(frame)
        if step:
            try:
                answer = read("Enter: next, q: quit ")
            except EOFError:
                return 0
            if answer.strip().lower() in QUIT_WORDS:
                return 0
    return 0
