"""The seat view as plain data: exactly what one seat may see now (DESIGN.md "Security model").

``view_to_dict`` turns the rules core's ``SeatView`` into JSON-ready data with cards in
notation. It is the only place that turns a view into data, for the read model and the API.
"""

from __future__ import annotations

from typing import Any

from domain.rules import CARDS, SeatView
from domain.rules.cards import card_texts
from domain.rules.state import DealState


def cards(mask: int | None) -> list[str] | None:
    return None if mask is None else card_texts(mask)


def _card(card: int | None) -> str | None:
    return None if card is None else str(CARDS[card])


def view_to_dict(view: SeatView, deal: DealState) -> dict[str, Any]:
    """The seat's view as data. ``deal`` is used only for public facts (calls, counts)."""
    last = view.history[-1] if view.history else None
    return {
        "seat": view.seat,
        "dealer": view.dealer,
        "phase": view.phase.value,
        "to_act": view.to_act,
        "actor": view.actor,
        "hand": cards(view.hand),
        "hands": [cards(h) for h in view.hands],
        "dealt": None if view.dealt is None else [cards(h) for h in view.dealt],
        "talon": [_card(c) for c in view.talon],
        "discard": cards(view.discard),
        "auction": [{"seat": s, "call": str(a)} for s, a in view.auction],
        "declarer": view.declarer,
        "bid": None if view.bid is None else str(view.bid),
        "contract": None if view.contract is None else str(view.contract),
        "whist_calls": [{"seat": s, "call": str(a)} for s, a in view.whist_calls],
        "whisters": list(view.whisters),
        "open_defence": view.open_defence,
        "trick": [{"seat": s, "card": str(CARDS[c])} for s, c in view.trick],
        "leader": view.leader,
        "last_trick": None
        if last is None
        else {
            "leader": last.leader,
            "winner": last.winner,
            "cards": [{"seat": s, "card": str(CARDS[c])} for s, c in last.cards],
        },
        "tricks": list(view.tricks),
        "tricks_played": len(view.history),
        "claim": None
        if view.claim is None
        else {"claimant": view.claim.claimant, "tricks": list(view.claim.tricks)},
        "legal": [str(a) for a in view.legal],
        "result": None
        if deal.result is None
        else {"kind": deal.result.kind.value, "tricks": list(deal.result.tricks)},
    }
