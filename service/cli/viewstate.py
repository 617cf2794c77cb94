"""A proto ``SeatView`` back into the rules core's ``SeatView``, for bots playing through the API.

This proves the API carries everything a player needs: a bot that plays from the rules core's
view plays identically from the API's.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.rules import Bid, Card, Phase, ScoreSheet, Trick, mask_of, parse_action
from domain.rules.actions import Action
from domain.rules.state import ClaimState
from domain.rules.view import SeatView
from service.gen.preferans.v1 import game_pb2 as pb

_PHASES = {getattr(pb, f"PHASE_{phase.name}"): phase for phase in Phase}


def _mask(cards: object) -> int:
    return mask_of(Card.parse(c) for c in cards)  # type: ignore[attr-defined]


def _calls(calls: object) -> tuple[tuple[int, Action], ...]:
    return tuple((c.seat, parse_action(c.call)) for c in calls)  # type: ignore[attr-defined]


def sheet_from_proto(rows: Iterable[pb.ScoresheetRow]) -> ScoreSheet | None:
    """The sheet totals a seat view carries (Classic), by seat; ``None`` when it has none."""
    ordered = sorted(rows, key=lambda r: r.seat)
    if not ordered:
        return None
    return ScoreSheet(
        pool=tuple(r.pool for r in ordered),
        gora=tuple(r.gora for r in ordered),
        whists=tuple(tuple(r.whists) for r in ordered),
    )


def signs_from_proto(signs: Iterable[pb.BombSigns]) -> tuple[tuple[int, ...], ...]:
    """The bomb signs each seat owes, by seat, in order; ``()`` while none was played."""
    return tuple(tuple(b.owed) for b in sorted(signs, key=lambda b: b.seat))


def view_from_proto(view: pb.SeatView) -> SeatView:
    """The rules core's view of ``view``'s seat. Under rules with a dark auction (Classic) it
    carries the public game context too (``bomb_call``, the sheet before this deal, the bomb
    signs, the pool length in force), as ``domain.rules.game_seat_view`` gives it in-process:
    a bot decides a bomb or a dark bid from the API's view exactly as from the core's."""
    phase = _PHASES[view.phase]
    hands: list[int | None] = [None] * (len(view.tricks) or 3)  # a trick count per seat
    unseen = sum(1 << s for s in view.unseen)
    if not unseen >> view.seat & 1:  # Classic: a seat that has not looked sees no own card
        hands[view.seat] = _mask(view.hand)
    for other in view.visible_hands:
        hands[other.seat] = _mask(other.cards)
    talon = tuple(None if not c else int(Card.parse(c)) for c in view.talon) or (None, None)
    history = tuple(
        Trick(t.leader, tuple((p.seat, int(Card.parse(p.card))) for p in t.cards), t.winner)
        for t in view.played_tricks
    )
    claim = None
    if view.HasField("pending_claim"):
        claim = ClaimState(view.claimant, tuple(view.pending_claim.tricks), 0, view.to_act)
    in_play = phase is Phase.PLAY
    return SeatView(
        seat=view.seat,
        dealer=view.dealer,
        phase=phase,
        to_act=view.to_act,
        actor=view.actor,
        hand=_mask(view.hand),
        hands=tuple(hands),
        dealt=None,
        talon=(talon[0], talon[1]),
        discard=_mask(view.discard) if view.discard else None,
        auction=_calls(view.auction),
        declarer=view.declarer,
        bid=Bid.parse(view.winning_bid) if view.winning_bid else None,
        contract=Bid.parse(view.contract) if view.contract else None,
        whist_calls=_calls(view.whist_calls),
        whisters=tuple(view.whisters),
        open_defence=view.open_defence if view.HasField("open_defence") else None,
        trick=tuple((p.seat, int(Card.parse(p.card))) for p in view.current_trick),
        leader=view.leader,
        history=history,
        tricks=tuple(view.tricks),
        claim=claim,
        raspasy_streak=view.raspasy_streak,
        legal=tuple(parse_action(a, cards_first=in_play) for a in view.legal_actions),
        shown=_mask(view.shown_cards) if view.shown_cards else None,
        unseen=unseen,
        dark=view.dark,
        no_talon=view.no_talon,
        bomb=view.bomb,
        bombers=sum(1 << s for s in view.bombers),
        bomb_call=view.bomb_call,
        sheet=sheet_from_proto(view.sheet),
        bomb_signs=signs_from_proto(view.bomb_signs),
        pool_target=view.pool_target,
    )
