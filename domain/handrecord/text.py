"""The readable text form of a hand record, in the spirit of bridge's PBN (docs/HANDRECORD.md):
a header of tags, then each deal section by section, then the settlement."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from domain.handrecord.build import Record
from domain.rules import format_cards, mask_of, parse_cards
from domain.rules.robber import Obligations, describe
from domain.rules.seats import DUMMY, seat_name

_seat_name = seat_name


def _list(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values)


def _whists(rows: Sequence[Sequence[int]]) -> str:
    """``A on B 6, C on B 2`` (writer on target), or ``none``."""
    parts = [
        f"{seat_name(w)} on {seat_name(t)} {v}"
        for w, row in enumerate(rows)
        for t, v in enumerate(row)
        if v
    ]
    return ", ".join(parts) or "none"


def _classic_text(classic: Mapping[str, Any] | None) -> str:
    """The Classic auction's outcome in words (issue 12): a bomb and its bombers, a dark game,
    a game without talon; "" when there is nothing to say."""
    if not classic:
        return ""
    parts = []
    if classic["bomb"]:
        bombers = ", ".join(seat_name(s) for s in classic["bombers"])
        parts.append(f"bomb of level {classic['bomb']} declared by {bombers}")
    if classic["dark"]:
        parts.append("a dark game (talon taken unseen)")
    if classic["no_talon"]:
        parts.append("without talon (talon put aside)")
    return "; ".join(parts)


def _duo_name(seat: int) -> str:
    """A two-player deal's position: seat A or B, or the dummy (RULES.md §3.6)."""
    return "Dummy" if seat == DUMMY else _seat_name(seat)


def render_deal_text(deal: Mapping[str, Any], players: Sequence[str]) -> list[str]:
    """One deal of a record as lines of text: the hands H1, H2, H3 by their seats, and the
    seats without a hand (4 and 5 players, RULES.md §3.6) on a ``Sitting`` line; with two
    players the dummy (position 2 of the deal's hands and tricks) is named "Dummy"."""
    dealer = deal["dealer"]
    seat_name = _duo_name if len(players) == 2 else _seat_name
    lines = [f"[Deal {deal['number']}]", f"Dealer    {seat_name(dealer)}"]
    if deal["sitters"]:
        sitting = ", ".join(
            seat_name(s) + (" (dealer)" if s == dealer else " (dealt before)")
            for s in deal["sitters"]
        )
        lines.append(f"Sitting   {sitting}: no hand this deal")
    if deal["raspasy_streak"]:
        lines.append(f"Raspasy   {deal['raspasy_streak']} in a row before this deal")
    if deal.get("dealer_run"):
        lines.append(f"Dealer    dealt {deal['dealer_run']} deal(s) in a row before this one")
    if deal.get("bomb_signs"):
        owed = "; ".join(
            f"{seat_name(s)} {' '.join(map(str, row)) or '-'}"
            for s, row in enumerate(deal["bomb_signs"])
        )
        lines.append(f"Bombs     signs owed before this deal (levels, in order): {owed}")
    for number, s in enumerate(deal["hand_seats"], 1):
        mask = mask_of(parse_cards(deal["hands"][s]))
        lines.append(f"Hand {seat_name(s)} H{number}: {format_cards(mask)}")
    lines.append(f"Talon     {deal['talon']}")
    auction = ", ".join(f"{seat_name(c['seat'])} {c['call']}" for c in deal["auction"])
    lines.append(f"Auction   {auction or 'none: a compulsory raspasy (RULES.md §3.3)'}")
    if deal["talon_taken"] is not None:
        lines.append(f"Talon     taken by {seat_name(deal['declarer'])}: {deal['talon_taken']}")
    if deal["discard"] is not None:
        lines.append(f"Discard   {deal['discard']}")
    if deal["contract"] is not None:
        lines.append(f"Contract  {seat_name(deal['declarer'])} {deal['contract']}")
    classic = _classic_text(deal.get("classic"))
    if classic:
        lines.append(f"Classic   {classic}")
    if deal["whist"]:
        whist = ", ".join(f"{seat_name(c['seat'])} {c['call']}" for c in deal["whist"])
        lines.append(f"Whist     {whist}")
    if deal["defence"] is not None:
        d = deal["defence"]
        lines.append(f"Defence   {'open' if d['open'] else 'closed'} ({seat_name(d['seat'])})")
    talon = deal["talon"].split()
    for i, trick in enumerate(deal["tricks"], 1):
        cards = "  ".join(f"{seat_name(c['seat'])} {c['card']:<3}" for c in trick["cards"])
        won = f"won by {seat_name(trick['winner'])}"
        if trick["winner"] not in {c["seat"] for c in trick["cards"]} and i <= len(talon):
            # 4 and 5 players: on raspasy the talon card is the dealer's lead (RULES.md §3.6).
            won += f" with the talon's {talon[i - 1]}"
        lines.append(f"Trick {i:>2}  {cards}  {won}")
    for claim in deal["claims"]:
        verdict = "accepted" if claim["accepted"] else "rejected"
        lines.append(
            f"Claim     {seat_name(claim['seat'])} in trick {claim['trick']}: "
            f"{'-'.join(str(t) for t in claim['tricks'])} {verdict}"
        )
    result = deal["result"]
    tricks = "-".join(str(t) for t in result["tricks"])
    what = result["kind"]
    if result["declarer"] >= 0:
        what += f", {seat_name(result['declarer'])} {result['contract']}"
    lines.append(f"Result    {what}, tricks {tricks}{' (claimed)' if result['claimed'] else ''}")
    score, entry = deal["score"], deal["entry"]
    lines.append(f"Score     pool {_list(score['pool'])}; gora {_list(score['gora'])}")
    lines.append(f"Whists    {_whists(score['whists'])}")
    lines.append(
        f"Written   pool {_list(entry['pool'])}; gora {_list(entry['gora'])}; "
        f"whists {_whists(entry['whists'])}"
    )
    for helper, recipient, points in entry["helps"]:
        lines.append(f"Help      {seat_name(helper)} → {seat_name(recipient)}: {points}")
    return lines


def _when(item: Mapping[str, Any]) -> str:
    if item["after_end"]:
        return "after the end"
    if item["during_deal"]:
        return f"during deal {item['after_deal'] + 1}"
    return f"after deal {item['after_deal']}"


def _adjustment(adjustment: Mapping[str, Any] | None) -> str:
    if adjustment is None:
        return "no change"
    gora = " ".join(f"{g:+d}" if g else "0" for g in adjustment["gora"])
    return f"gora {gora}; whists {_whists(adjustment['whists'])}"


def disputes_text(rec: Record, after: int, *, ended: bool = False) -> list[str]:
    """The flags and rulings made after deal ``after`` (between deals or during the next), or
    after the end with ``ended``, in the order of the game (version 3)."""
    lines = []
    items = [("Flag", f) for f in rec.get("flags", ())] + [
        ("Ruling", r) for r in rec.get("rulings", ())
    ]
    for kind, item in items:
        if item["after_end"] != ended or (not ended and item["after_deal"] != after):
            continue
        if kind == "Flag":
            lines.append(
                f"Flag      {seat_name(item['seat'])} on deal {item['deal_number']} "
                f"({_when(item)}): {item['reason']}"
            )
        else:
            settled = f"; settlement {' '.join(item['settlement'])}" if item["settlement"] else ""
            lines.append(
                f"Ruling    on deal {item['deal_number']} by {item['auditor']} ({_when(item)}): "
                f"{item['reason']}; {_adjustment(item['adjustment'])}{settled}"
            )
    return lines


def _header(rec: Record) -> list[str]:
    """The version-3 tags: date, event, site, round (when known), the system and its options."""
    lines = [
        f'[{key.capitalize()} "{_quoted(value)}"]'
        for key, value in (rec.get("tags") or {}).items()
        if value is not None
    ]
    if rec.get("system"):
        lines.append(f'[System "{rec["system"]}"]')
    options = rec.get("options") or {}
    if options:
        shown = "; ".join(f"{k}={_option(v)}" for k, v in options.items())
        lines.append(f'[Options "{shown}"]')
    return lines


def _quoted(value: str) -> str:
    """A tag value as PBN quotes it: a backslash before each quote and backslash."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _option(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def render_text(rec: Record) -> str:
    """The readable form: a header of tags, then each deal, then the settlement."""
    players = rec["players"]
    rules = rec["rules"]
    lines = [
        f"% {rec['format']} {rec['version']}",
        f'[Game "{rec["game_id"] or ""}"]',
        *_header(rec),
        *(f'[Seat {seat_name(s)} "{p}"]' for s, p in enumerate(players)),
        f'[Rules "{rules.get("name", "")}, pool to {rules.get("pool_target", "")}"]',
        f'[FirstDealer "{seat_name(rec["first_dealer"])}"]',
    ]
    if rec["seed_commitment"]:
        lines.append(f'[SeedCommitment "{rec["seed_commitment"]}"]')
    order = rec.get("order")
    if order:
        until = ""
        if order["ends_at"]:
            when = datetime.fromtimestamp(order["ends_at"], UTC)
            until = f", until {when.strftime('%Y-%m-%d %H:%M')} UTC"
        imposed = order.get("obligations") or {}
        duties = describe(Obligations(**imposed))
        owes = f"; each must declare {duties}" if imposed else ""
        lines.append(f'[Order "{seat_name(order["seat"])}: pool to {order["pool"]}{until}{owes}"]')
    for deal in rec["deals"]:
        lines.append("")
        lines.extend(render_deal_text(deal, players))
        lines.extend(disputes_text(rec, deal["number"]))
    if rec["complete"]:
        lines.append("")
        if rec["stopped"]:
            stopped = {"time": "time called", "agreed": "stop agreed by every seat"}
            lines.append(f'[Stopped "{stopped[rec["stopped"]]}"]')
        joined = rec.get("replacements") or []
        for j in joined:
            lines.append(
                f'[Joined "{j["player"]} in place of {seat_name(j["seat"])} '
                f'before deal {j["before_deal"]}"]'
            )
        # By account: by seat, then each who joined (the players' ids once anyone has).
        labels = (
            [*rec["players"], *(j["player"] for j in joined)]
            if joined
            else [seat_name(s) for s in range(len(rec["players"]))]
        )

        def settled(values: Sequence[str] | None) -> str:
            return " ".join(f"{who} {v}" for who, v in zip(labels, values or [], strict=False))

        after_end = disputes_text(rec, 0, ended=True)
        if after_end:
            lines.append(f'[SettlementAtEnd "{settled(rec.get("settlement_at_end"))}"]')
            lines.extend(after_end)
        lines.append(f'[Settlement "{settled(rec["settlement"])}"]')
        if rec["seed"]:
            lines.append(f'[Seed "{rec["seed"]}"]')
    return "\n".join(lines) + "\n"
