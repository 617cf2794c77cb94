"""The screens at the end of a deal and of the game in ``pref play`` (80×24, as
``service.cli.playdraw``): every hand as dealt, what was written, the sheet, how to dispute the
deal; the final sheet and settlement. Pure functions of the API's messages."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from domain.rules import Bid
from domain.rules.seats import seat_name
from service.cli.common import position, position_name
from service.cli.playtext import (
    bomb_word,
    call_text,
    format_result,
    hand_text,
    line,
    player_names,
    scoresheet_table,
    with_dummy,
)
from service.gen.preferans.v1 import game_pb2 as pb


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
    (with two players the dummy's hand too, at hand ``dummy_hand``: RULES.md §3.6), the sheet
    and how to dispute the deal."""
    count = len(event.entries) or len(names or ()) or max(len(event.tricks), 3)
    players = with_dummy(player_names(names, count), count)
    summary = Text(f"Deal {event.deal_number} is over: ", style="bold magenta")
    summary.append_text(_deal_summary(event))
    tricks = "  ".join(f"{position_name(s, count)} {t}" for s, t in enumerate(event.tricks))
    summary.append(f"   tricks: {tricks}")
    parts: list[RenderableType] = [line(summary)]
    for dealt in event.dealt_hands:
        role = f" {position(dealer, dealt.seat, count, dummy_hand)}" if dealer >= 0 else ""
        who = f"{position_name(dealt.seat, count)}{role} {players[dealt.seat]}".strip()
        parts.append(line(Text(f"{who}: ") + hand_text(dealt.cards)))
    extra = Text("talon: ")
    extra.append_text(hand_text(event.talon))
    if event.discard:
        extra.append("   discard: ")
        extra.append_text(hand_text(event.discard))
    parts.append(line(extra))
    written = Text("written: ")
    for row in event.entries:
        whists = [f"on {seat_name(o)} {w:+d}" for o, w in enumerate(row.whists) if o != row.seat]
        cells = [f"pool {row.pool:+d}", f"gora {row.gora:+d}", *whists]
        changed = [c for c in cells if not c.endswith(" +0")]
        if changed:
            written.append(f"{seat_name(row.seat)} ", style="cyan")
            written.append(", ".join(changed) + "  ")
    parts.append(written)
    if log:
        parts.append(line(Text("last moves: " + "; ".join(log[-3:]), style="dim")))
    if sheet is not None:
        parts.append(scoresheet_table(sheet, players[:count], pool_target))
    flag = f"To dispute this deal type: flag {event.deal_number} <why> (a referee rules on it)"
    parts.append(line(Text(flag, style="dim")))
    return Group(*parts)


def _deal_summary(event: pb.DealScoredEvent) -> Text:
    out = Text()
    if event.kind == "raspasy" and event.bomb:
        out.append(f"{bomb_word(event.bomb)} bomb", style="magenta")
    elif event.kind == "raspasy":
        out.append("raspasy (all passed)")
    elif event.kind == "redeal":  # two players (RULES.md §3.6)
        out.append("both passed: dealt again without play")
    else:
        out.append(f"{seat_name(event.declarer)} ", style="cyan")
        out.append_text(call_text(event.contract or "?"))
        if event.kind == "passed-out":
            out.append(" — both defenders passed")
        elif event.kind == "half-whist":
            out.append(" — half-whist")
        elif event.declarer >= 0 and len(event.tricks) > event.declarer:
            taken = event.tricks[event.declarer]
            if event.kind == "misere":
                out.append(" made" if taken == 0 else f" — {taken} tricks taken")
            else:
                level = Bid.parse(event.contract).level if event.contract else 0
                out.append(" made" if taken >= level else f" — {level - taken} down")
    if event.dark:
        out.append(" (dark: ×2)", style="magenta")
    if event.sign:
        out.append(f" (on a {bomb_word(event.sign)} bomb sign)", style="magenta")
    return out


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
    players = player_names(names, count)
    parts: list[RenderableType] = [
        Text("Game over", style="bold green"),
        scoresheet_table(final, players, pool_target),
    ]
    if final.settlement:
        result = Text("Settlement: ", style="bold")
        if len(final.accounts) > count:  # somebody joined in place of another: by account
            labels = [f"{a.player_id}" + (" (left)" if a.left else "") for a in final.accounts]
        else:
            labels = [f"{seat_name(s)} {players[s]}".strip() for s in range(count)]
        result.append(
            "   ".join(
                f"{label} {format_result(v)}"
                for label, v in zip(labels, final.settlement, strict=False)
            )
        )
        parts.append(result)
    parts.append(Text(f"{len(sheet.deals)} deals played."))
    if seed_hex:
        parts.append(line(Text(f"seed (check the shuffles): {seed_hex}", style="dim")))
    return Group(*parts)
