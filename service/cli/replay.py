"""``pref replay``: a stored game as it was, decision by decision, for a referee (``rich``).

Pure parts, testable without a terminal: ``frames`` turns a hand record (docs/HANDRECORD.md)
into one renderable per event (the deal dealt, each decision, the score written), each showing
the whole table: every hand as it then stood, the talon, the discard, the auction, the
whisting, the trick on the table and the tricks so far. ``run_replay`` prints them, waiting for
Enter between them with ``step`` (``q`` quits).

Why over 400 lines: the referee's replay is one view (the table drawn at a position) with its
cursor moving forward and back; drawing, positions and the command loop share the rendered
frames.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

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
from domain.rules.seats import DUMMY, hand_number, seat_name
from service.cli.common import position
from service.cli.playinput import whole_number

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


def _score(deal: Mapping[str, Any], disputes: Sequence[str] = ()) -> RenderableType:
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
    notes = "".join(f"\n{line}" for line in disputes)
    return Group(Text(f"Result: {what}, tricks {tricks}{helps}"), table, Text(notes.lstrip("\n")))


def decision_title(step: Mapping[str, Any], action: Any, players: int) -> str:
    """Who decided and for which hand: ``B: 7♠``, or ``A: K♣ from C's hand (A decides for C)``
    when a seat decided for another's hand (a sole open whister plays his partner's cards,
    RULES.md §1.6 outcome 2; with two players the dummy's, §3.6)."""
    seat, hand = step["seat"], step.get("hand")
    if hand is None or hand == seat:
        return f"{seat_name(seat)}: {action}"
    whose = "Dummy" if players == 2 and hand == DUMMY else seat_name(hand)
    return (
        f"{seat_name(seat)}: {action} from {whose}'s hand ({seat_name(seat)} decides for {whose})"
    )


class Position(NamedTuple):
    """One position of a replay: a deal dealt, after one of its decisions, scored, a flag or a
    ruling where it happened, or the final settlement."""

    kind: str
    """``dealt``, ``decision``, ``scored``, ``flag``, ``ruling`` or ``settlement``."""
    deal: int
    """Index of the deal in the record (-1: after every deal)."""
    decisions: int = 0
    """Decisions of the deal applied (``dealt``: 0)."""
    item: Mapping[str, Any] | None = None
    """The flag or ruling."""


class Replay:
    """A hand record laid out as positions a referee can step through in both directions
    (``Cursor``) or jump to: a deal, a trick of it, a position by number.

    The state of the table at a position is computed from the deal's start and its decisions
    by the rules core (``state_at``); nothing is cached, so going back shows exactly what going
    forward did (``Cursor`` goes forward one decision at a time)."""

    def __init__(self, rec: Record, deal_number: int | None = None) -> None:
        self.rec = rec
        self.rules = RuleSet.from_dict(rec["rules"])
        self.players: Sequence[str] = rec["players"]
        chosen = [
            i
            for i, d in enumerate(rec["deals"])
            if deal_number is None or d["number"] == deal_number
        ]
        if not chosen:
            raise ValueError(f"no finished deal {deal_number} in this game")
        self.starts: dict[int, DealState] = {}
        self.actions: dict[int, list[tuple[int, Any]]] = {}
        self.positions: list[Position] = []
        flags = [("flag", f) for f in rec.get("flags", ())]
        rulings = [("ruling", r) for r in rec.get("rulings", ())]
        disputes = sorted(
            flags + rulings,
            key=lambda kv: (kv[1]["after_deal"], kv[1]["during_deal"], kv[1]["after_end"]),
        )
        for index in chosen:
            deal = rec["deals"][index]
            start = self._start(deal)
            self.starts[index] = start
            state, parsed = start, []
            self.positions.append(Position("dealt", index))
            for i, step in enumerate(deal["actions"], 1):
                action = parse_action(step["action"], cards_first=state.phase is Phase.PLAY)
                parsed.append((step["seat"], action))
                state = apply(state, action, step["seat"])
                self.positions.append(Position("decision", index, i))
            self.actions[index] = parsed
            self.positions.append(Position("scored", index, len(parsed)))
            for kind, item in disputes:
                if not item["after_end"] and item["after_deal"] == deal["number"]:
                    self.positions.append(Position(kind, index, len(parsed), item))
        numbers = {rec["deals"][i]["number"] for i in chosen}
        for kind, item in disputes:
            if item["after_end"] and (deal_number is None or item["deal_number"] in numbers):
                self.positions.append(Position(kind, -1, 0, item))
        if rec.get("complete") and deal_number is None:
            self.positions.append(Position("settlement", -1))

    def _start(self, deal: Mapping[str, Any]) -> DealState:
        hands = tuple(mask_of(parse_cards(h)) for h in deal["hands"])
        a, b = parse_cards(deal["talon"])
        # deal_state: an initial deal of Classic (a bomb or raspasy round) starts in play.
        return deal_state(
            self.rules,
            DealtCards(hands, (a, b)),
            deal["dealer"],
            deal["number"],
            deal["raspasy_streak"],
            deal.get("dealer_run", 0),
            deal.get("classic", {}).get("bomb_streak", 0),
        )

    def __len__(self) -> int:
        return len(self.positions)

    def state_at(self, index: int) -> DealState | None:
        """The table at position ``index``, from its deal's start (``None`` after every deal)."""
        pos = self.positions[index]
        if pos.deal < 0:
            return None
        state = self.starts[pos.deal]
        for seat, action in self.actions[pos.deal][: pos.decisions]:
            state = apply(state, action, seat)
        return state

    def after(self, index: int, state: DealState | None) -> DealState | None:
        """The table at position ``index + 1`` from the table at ``index`` (one decision
        applied when the next position is the deal's next decision)."""
        pos, nxt = self.positions[index], self.positions[index + 1]
        if state is not None and nxt.deal == pos.deal and nxt.decisions == pos.decisions + 1:
            seat, action = self.actions[pos.deal][pos.decisions]
            return apply(state, action, seat)
        return self.state_at(index + 1)

    def deal_position(self, number: int) -> int:
        """The position where deal ``number`` is dealt."""
        for i, pos in enumerate(self.positions):
            if pos.kind == "dealt" and self.rec["deals"][pos.deal]["number"] == number:
                return i
        raise ValueError(f"no deal {number} in this replay")

    def trick_position(self, deal_index: int, trick: int) -> int:
        """The position right after the last card of trick ``trick`` (1-10) of a deal."""
        state: DealState | None = None
        for i, pos in enumerate(self.positions):
            if trick < 1:
                break
            if pos.deal != deal_index or pos.kind != "decision":
                continue
            state = self.state_at(i) if state is None else self.after(i - 1, state)
            if state is not None and len(state.play.history) >= trick:
                return i
        raise ValueError(f"deal {self.rec['deals'][deal_index]['number']} has no trick {trick}")

    def frame(self, index: int, state: DealState | None = None) -> RenderableType:
        """What position ``index`` shows (``state``: its table, when the caller has it)."""
        pos = self.positions[index]
        where = f"#{index + 1}/{len(self.positions)} "
        if pos.kind in ("dealt", "decision"):
            deal = self.rec["deals"][pos.deal]
            table = self.state_at(index) if state is None else state
            assert table is not None
            number = deal["number"]
            if pos.kind == "dealt":
                title = f"Deal {number} dealt by {seat_name(deal['dealer'])}"
            else:
                step = deal["actions"][pos.decisions - 1]
                action = self.actions[pos.deal][pos.decisions - 1][1]
                said = decision_title(step, action, len(self.players))
                title = f"Deal {number} · {pos.decisions}. {said}"
            return render_table(table, deal, self.players, where + title)
        if pos.kind == "scored":
            deal = self.rec["deals"][pos.deal]
            return Panel(_score(deal, self._on_deal(deal["number"])), title=where + "Scored")
        if pos.kind == "settlement":
            return Panel(_settlement(self.rec), title=where + "Settlement")
        assert pos.item is not None
        title = "Flag" if pos.kind == "flag" else "Ruling"
        return Panel(Text(dispute_line(pos.kind, pos.item)), title=where + title)

    def _on_deal(self, number: int) -> list[str]:
        """The flags and rulings on deal ``number``, wherever they were made."""
        out = []
        for kind in ("flag", "ruling"):
            for item in self.rec.get(kind + "s", ()):
                if item["deal_number"] == number:
                    out.append(dispute_line(kind, item))
        return out


def _when(item: Mapping[str, Any]) -> str:
    if item["after_end"]:
        return "after the end of the game"
    if item["during_deal"]:
        return f"while deal {item['after_deal'] + 1} was played"
    return f"after deal {item['after_deal']}"


def dispute_line(kind: str, item: Mapping[str, Any]) -> str:
    """A flag or a ruling in words, with where it was made and, for a ruling, its effect."""
    if kind == "flag":
        return (
            f"{seat_name(item['seat'])} flagged deal {item['deal_number']} ({_when(item)}): "
            f"{item['reason']}"
        )
    adjustment = item["adjustment"]
    if adjustment is None:
        effect = "no change"
    else:
        gora = " ".join(f"{seat_name(s)} {g:+d}" for s, g in enumerate(adjustment["gora"]) if g)
        whists = ", ".join(
            f"{seat_name(w)} on {seat_name(t)} {v:+d}"
            for w, row in enumerate(adjustment["whists"])
            for t, v in enumerate(row)
            if v
        )
        effect = "; ".join(
            p for p in (f"gora {gora}" if gora else "", f"whists {whists}" if whists else "") if p
        )
    settled = f"; settlement now {' '.join(item['settlement'])}" if item["settlement"] else ""
    return (
        f"ruling by {item['auditor']} on deal {item['deal_number']} ({_when(item)}): "
        f"{item['reason']} — {effect}{settled}"
    )


def _settlement(rec: Record) -> RenderableType:
    """The final settlement (after every ruling) beside the one the game ended with."""
    table = Table(box=None)
    table.add_column("account")
    table.add_column("at the end", justify="right")
    table.add_column("after rulings", justify="right")
    joined = [j["player"] for j in rec.get("replacements") or ()]
    accounts = [f"{seat_name(s)} {p}" for s, p in enumerate(rec["players"])] + joined
    at_end = rec.get("settlement_at_end") or rec["settlement"] or []
    final = rec["settlement"] or []
    for who, a, b in zip(accounts, at_end, final, strict=False):
        table.add_row(who, a, b)
    return table


class Cursor:
    """A referee's place in a ``Replay``: forward applies the next decision to the table it
    holds; back and jumps rebuild the table from the deal's start."""

    def __init__(self, replay: Replay, index: int = 0) -> None:
        self.replay = replay
        self.index = index
        self.state = replay.state_at(index)

    def frame(self) -> RenderableType:
        return self.replay.frame(self.index, self.state)

    def forward(self) -> bool:
        if self.index + 1 >= len(self.replay):
            return False
        self.state = self.replay.after(self.index, self.state)
        self.index += 1
        return True

    def back(self) -> bool:
        if self.index == 0:
            return False
        self.go(self.index - 1)
        return True

    def go(self, index: int) -> None:
        if not 0 <= index < len(self.replay):
            raise ValueError(f"positions are 1 to {len(self.replay)}")
        self.index = index
        self.state = self.replay.state_at(index)

    def deal(self) -> int:
        """The record index of the deal at the cursor (the last one after every deal)."""
        for pos in reversed(self.replay.positions[: self.index + 1]):
            if pos.deal >= 0:
                return int(pos.deal)
        return int(self.replay.positions[0].deal)


def frames(rec: Record, deal_number: int | None = None) -> Iterator[RenderableType]:
    """Every position of the record (or of deal ``deal_number``), forward: each deal dealt,
    every decision, scored, the flags and rulings where they were made, the settlement."""
    cursor = Cursor(Replay(rec, deal_number))
    yield cursor.frame()
    while cursor.forward():
        yield cursor.frame()


LAST = "this is the last position"
HELP = (
    "Enter or n: next · b: back · d N: deal N · t N: trick N of this deal · "
    "p N: position N · q: quit"
)


def command(cursor: Cursor, answer: str) -> str | None:
    """Apply one typed command to ``cursor``; a message for the referee, or ``None``."""
    words = answer.strip().lower().split()
    if not words or words[0] in ("n", "next"):
        return None if cursor.forward() else LAST
    if words[0] in ("b", "back"):
        return None if cursor.back() else "this is the first position"
    value = whole_number(words[1]) if len(words) == 2 else None
    if words[0] in ("d", "t", "p") and value is not None:
        replay = cursor.replay
        try:
            if words[0] == "d":
                cursor.go(replay.deal_position(value))
            elif words[0] == "t":
                cursor.go(replay.trick_position(cursor.deal(), value))
            else:
                cursor.go(value - 1)
        except ValueError as exc:
            return str(exc)
        return None
    return HELP


def run_replay(
    rec: Record,
    console: Console,
    *,
    deal_number: int | None = None,
    step: bool = False,
    read: Callable[[str], str] | None = None,
) -> int:
    """Print every position forward; with ``step`` let the referee move: Enter next, ``b``
    back, ``d N``, ``t N``, ``p N`` jumps, ``q`` quits (``HELP``); ``read`` asks (``input``)."""
    ask = read or (lambda prompt: input(prompt))
    cursor = Cursor(Replay(rec, deal_number))
    if not step:
        console.print(cursor.frame())
        while cursor.forward():
            console.print(cursor.frame())
        return 0
    console.print(cursor.frame())
    while True:
        try:
            answer = ask("Enter: next, b: back, d N / t N / p N: jump, q: quit ")
        except EOFError:
            return 0
        if answer.strip().lower() in QUIT_WORDS:
            return 0
        message = command(cursor, answer)
        if message == LAST:
            return 0
        if message is not None:
            console.print(message)
            continue
        console.print(cursor.frame())
