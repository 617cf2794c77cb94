"""All proto ↔ domain mapping, in one module (STYLE.md §6). Servicers only convert and delegate.

Redaction lives here too: every message built for a seat goes through the rules core's view of
what that seat may see (``seat_view`` / ``visible_mask``), never around it.

Why over 400 lines: it is the one place for proto ↔ domain mapping on purpose (STYLE.md §6);
splitting it by message would scatter the redaction it has to keep in one view.
"""

from __future__ import annotations

import functools
import json
import threading
import uuid
from collections.abc import Sequence
from typing import Any

from cachetools import LRUCache
from google.protobuf.timestamp_pb2 import Timestamp

from domain.model import Game
from domain.model.replay import action_of, event_name
from domain.model.table import Table
from domain.model.terms import TimeControl
from domain.rules import (
    ACCEPT,
    ALLOW,
    CLOSED,
    HALF_WHIST,
    HERE,
    OPEN,
    OWN_WHIST,
    PASS,
    REFUSE,
    REJECT,
    TAKE_TALON,
    TO_POOL,
    WHIST,
    WRITE_OFF,
    AcceptClaim,
    Action,
    AnswerOwnWhist,
    Bid,
    Call,
    Card,
    ChooseDefence,
    Claim,
    CrossedSign,
    Declare,
    Discard,
    GameState,
    HalfWhist,
    Here,
    OwnWhist,
    Pass,
    Phase,
    PlayCard,
    RejectClaim,
    RuleSet,
    ScoreSheet,
    TakeTalon,
    Whist,
    accounts_sheet,
    awaiting_order,
    cards_of,
    game_orderer,
    seat_view,
    table_rules,
)
from domain.rules.actions import (
    BOMB,
    CALLS,
    CONCEDE,
    DARK_CALLS,
    DECLARES,
    INVITE_DEALER,
    LOOK,
    NO_TALON_CALLS,
    OWN_CARDS_WHIST,
    PLAYS,
    PREFERANS,
    RETRACT_PASS,
    RETURN_TALON,
    UNDERBID,
    VIEW_HANDS,
    Bomb,
    ClaimUnderbid,
    Concede,
    DarkCall,
    DeclarePreferans,
    GiveCards,
    InviteDealer,
    Look,
    NoTalonCall,
    OwnCardsWhist,
    RetractPass,
    ReturnTalon,
    ViewHand,
    WriteOff,
)
from domain.rules.errors import InvalidAction
from domain.rules.robber import KINDS, Obligations
from domain.rules.robber import penalty as robber_penalty
from domain.rules.start import MAX_END_TIME, GameOrder
from domain.rules.state import DealState
from domain.rules.systems import RULE_SETS
from domain.rules.view import SeatView, visible_cards
from service.api.clock_mapping import adjournment_to_proto, game_fields, time_expired_to_proto
from service.api.errors import BadInput
from service.api.values import (
    bid_value,
    card_value,
    card_values,
    contract_value,
    deal_kind,
    mask_values,
    text_values,
)
from service.app import validation
from service.app.rule_options import parse_options_json, rule_set_with
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import table_pb2 as table_pb

GAME_PREFIX = "games/"

_PHASES = {phase: getattr(pb, f"PHASE_{phase.name}") for phase in Phase}


def game_name(game_id: uuid.UUID) -> str:
    return f"{GAME_PREFIX}{game_id}"


def parse_game_name(name: str, field: str = "name") -> uuid.UUID:
    """``games/{uuid}`` → the id, or ``BadInput`` (which does not repeat the name)."""
    return _parse_name(name, GAME_PREFIX, "game", field)


def _parse_name(name: str, prefix: str, kind: str, field: str) -> uuid.UUID:
    """``{prefix}{uuid}`` → the id, or ``BadInput`` (which does not repeat the name)."""
    name = validation.game_name(name, field)
    if not name.startswith(prefix):
        raise BadInput(field, f"{field} must look like '{prefix}<uuid>'")
    try:
        return uuid.UUID(name[len(prefix) :])
    except ValueError:
        raise BadInput(field, f"{field} does not name a {kind}: the id is not a UUID") from None


def _cards(mask: int) -> list[str]:
    return [str(c) for c in cards_of(mask)]


def seat_cards(seat: int, mask: int) -> pb.SeatCards:
    """A seat's cards, in notation and as data."""
    return pb.SeatCards(seat=seat, cards=_cards(mask), card_values=mask_values(mask))


# The parts of a view that recur in every later view of a deal (a card played, a finished trick,
# an auction call) are built once and shared: protobuf copies them into each view that includes
# them (``extend``, ``CopyFrom``, a constructor), so the shared messages are never changed. A
# finished trick was rebuilt card by card for each view before: a third of the view's time.


@functools.lru_cache(maxsize=1024)
def _played(seat: int, card: int) -> pb.PlayedCard:
    return pb.PlayedCard(seat=seat, card=str(Card(card)), card_value=card_value(card))


@functools.lru_cache(maxsize=8192)
def _trick(trick: Any) -> pb.Trick:
    return pb.Trick(
        leader=trick.leader,
        winner=trick.winner,
        cards=[_played(s, c) for s, c in trick.cards],
    )


# --- rules -------------------------------------------------------------------------------


def rules_from_proto(message: pb.RuleSet) -> RuleSet:
    """The rule set a client asks for, fully validated (``InvalidAction`` naming the option)."""
    overrides = parse_options_json(message.options_json) if message.options_json else None
    return rule_set_with(message.name, overrides, message.pool_target)


@functools.lru_cache(maxsize=256)
def rules_in_force(rules: RuleSet) -> pb.RuleSet:
    """The rule set as its named system plus only the options that differ from it (the whole
    set when the name is not a known system). Cached: views carry it on every answer."""
    base = RULE_SETS.get(rules.name)
    options = rules.to_dict()
    if base is not None:
        named = base.to_dict()
        options = {k: v for k, v in options.items() if named.get(k) != v and k != "pool_target"}
    return pb.RuleSet(
        name=rules.name,
        pool_target=rules.pool_target,
        options_json=json.dumps(options, ensure_ascii=False, sort_keys=True) if options else "",
    )


def rules_to_proto(rules: RuleSet) -> pb.RuleSet:
    return pb.RuleSet(
        name=rules.name,
        pool_target=rules.pool_target,
        options_json=json.dumps(rules.to_dict(), ensure_ascii=False, sort_keys=True),
    )


# --- actions -----------------------------------------------------------------------------


def _card(text: str, field: str) -> Card:
    try:
        return Card.parse(validation.action_text(text, field))
    except InvalidAction as exc:
        raise BadInput(field, exc.message) from None


def _bid(text: str, field: str) -> Bid:
    try:
        return Bid.parse(validation.action_text(text, field))
    except InvalidAction as exc:
        raise BadInput(field, exc.message) from None


def action_from_proto(message: pb.Action) -> Action:
    """A proto action → the rules' action, or ``BadInput`` naming the field."""
    kind = message.WhichOneof("kind")
    if kind is None:
        raise BadInput("action", "the action is empty: set one of its fields")
    if kind == "bid":
        return CALLS[_bid(message.bid, "action.bid").index]
    if kind == "declare":
        return DECLARES[_bid(message.declare, "action.declare").index]
    if kind == "dark_bid":
        return DARK_CALLS[_bid(message.dark_bid, "action.dark_bid").index]
    if kind == "no_talon_bid":
        return NO_TALON_CALLS[_bid(message.no_talon_bid, "action.no_talon_bid").index]
    if kind == "play_card":
        return PLAYS[_card(message.play_card, "action.play_card")]
    if kind == "discard":
        cards = [_card(c, "action.discard.cards") for c in message.discard.cards]
        if len(cards) != 2 or cards[0] == cards[1]:
            raise BadInput("action.discard.cards", "a discard is exactly two different cards")
        return Discard((cards[0], cards[1]))
    if kind == "give_cards":  # two players "с вареником" (RULES.md §3.6)
        cards = [_card(c, "action.give_cards.cards") for c in message.give_cards.cards]
        if len(cards) != 2 or cards[0] == cards[1]:
            raise BadInput("action.give_cards.cards", "a gift is exactly two different cards")
        return GiveCards((cards[0], cards[1]))
    if kind == "claim":
        try:
            return Claim(tuple(message.claim.tricks))
        except InvalidAction as exc:
            raise BadInput("action.claim.tricks", exc.message) from None
    if kind == "choose_defence":
        return OPEN if message.choose_defence.open else CLOSED
    if kind == "write_off":
        return WRITE_OFF if message.write_off.off else TO_POOL
    if kind == "own_whist_answer":
        return ALLOW if message.own_whist_answer.allow else REFUSE
    if kind == "view_hand":
        seat = message.view_hand.seat
        if not 0 <= seat < len(VIEW_HANDS):
            raise BadInput("action.view_hand.seat", "a seat is 0 to 4")
        return VIEW_HANDS[seat]
    simple: dict[str, Action] = {
        "pass": PASS,
        "here": HERE,
        "look": LOOK,
        "bomb": BOMB,
        "take_talon": TAKE_TALON,
        "concede": CONCEDE,
        "claim_underbid": UNDERBID,
        "declare_preferans": PREFERANS,
        "whist": WHIST,
        "half_whist": HALF_WHIST,
        "own_whist": OWN_WHIST,
        "accept_claim": ACCEPT,
        "reject_claim": REJECT,
        "return_talon": RETURN_TALON,
        "invite_dealer": INVITE_DEALER,
        "retract_pass": RETRACT_PASS,
        "own_cards_whist": OWN_CARDS_WHIST,
    }
    return simple[kind]


def action_to_proto(action: Action, *, hide_cards: bool = False) -> pb.Action:
    """The rules' action → proto; ``hide_cards`` drops the cards of a discard or of a gift
    "с вареником" (for those who may not see them: spectators, the other seats)."""
    if isinstance(action, Call):
        return pb.Action(bid=str(action.bid), bid_value=bid_value(action.bid))
    if isinstance(action, Declare):
        return pb.Action(declare=str(action.contract), bid_value=bid_value(action.contract))
    if isinstance(action, DarkCall):
        return pb.Action(dark_bid=str(action.bid), bid_value=bid_value(action.bid))
    if isinstance(action, NoTalonCall):
        return pb.Action(no_talon_bid=str(action.bid), bid_value=bid_value(action.bid))
    if isinstance(action, Look):
        return pb.Action(look=pb.Look())
    if isinstance(action, Bomb):
        return pb.Action(bomb=pb.Bomb())
    if isinstance(action, PlayCard):
        return pb.Action(play_card=str(action.card), card_value=card_value(action.card))
    if isinstance(action, Discard):
        shown = () if hide_cards else action.cards
        return pb.Action(
            discard=pb.Discard(cards=[str(c) for c in shown], card_values=card_values(shown))
        )
    if isinstance(action, GiveCards):  # both players hold or held them; spectators not
        given = () if hide_cards else action.cards
        return pb.Action(
            give_cards=pb.GiveCards(cards=[str(c) for c in given], card_values=card_values(given))
        )
    if isinstance(action, RetractPass):
        return pb.Action(retract_pass=pb.RetractPass())
    if isinstance(action, OwnCardsWhist):
        return pb.Action(own_cards_whist=pb.OwnCardsWhist())
    if isinstance(action, Claim):
        return pb.Action(claim=pb.Claim(tricks=list(action.tricks)))
    if isinstance(action, ChooseDefence):
        return pb.Action(choose_defence=pb.ChooseDefence(open=action.open))
    if isinstance(action, Pass):
        message = pb.Action()
        getattr(message, "pass").SetInParent()
        return message
    if isinstance(action, Here):
        return pb.Action(here=pb.Here())
    if isinstance(action, TakeTalon):
        return pb.Action(take_talon=pb.TakeTalon())
    if isinstance(action, Concede):
        return pb.Action(concede=pb.Concede())
    if isinstance(action, DeclarePreferans):
        return pb.Action(declare_preferans=pb.DeclarePreferans())
    if isinstance(action, ClaimUnderbid):
        return pb.Action(claim_underbid=pb.ClaimUnderbid())
    if isinstance(action, Whist):
        return pb.Action(whist=pb.Whist())
    if isinstance(action, HalfWhist):
        return pb.Action(half_whist=pb.HalfWhist())
    if isinstance(action, OwnWhist):
        return pb.Action(own_whist=pb.OwnWhist())
    if isinstance(action, AnswerOwnWhist):
        return pb.Action(own_whist_answer=pb.OwnWhistAnswer(allow=action.allow))
    if isinstance(action, AcceptClaim):
        return pb.Action(accept_claim=pb.AcceptClaim())
    if isinstance(action, RejectClaim):
        return pb.Action(reject_claim=pb.RejectClaim())
    if isinstance(action, WriteOff):
        return pb.Action(write_off=pb.WriteOff(off=action.off))
    if isinstance(action, ViewHand):
        return pb.Action(view_hand=pb.ViewHand(seat=action.seat))
    if isinstance(action, ReturnTalon):
        return pb.Action(return_talon=pb.ReturnTalon())
    if isinstance(action, InviteDealer):
        return pb.Action(invite_dealer=pb.InviteDealer())
    raise InvalidAction(f"unknown action {action!r}")


# --- games, views, scoresheets -----------------------------------------------------------


def _timestamp(value: Any) -> Timestamp:
    stamp = Timestamp()
    if value is not None:
        stamp.FromDatetime(value)
    return stamp


def end_time_from_proto(request: pb.OrderGameRequest) -> int:
    """An order's end time in whole seconds since the epoch (0 when unset), or ``BadInput``
    for a timestamp that is not a time after the epoch (the application checks it is in the
    future by the server's clock)."""
    if not request.HasField("end_time"):
        return 0
    stamp = request.end_time
    if not 0 < stamp.seconds <= MAX_END_TIME or not 0 <= stamp.nanos < 1_000_000_000:
        raise BadInput("end_time", "end_time must be a valid time after 1970")
    return int(stamp.seconds)


def order_to_proto(order: GameOrder) -> pb.GameOrder:
    """The order of a game (S000 Classic); the end time unset when the game is not played
    until time; the robber's obligations set when it imposes some."""
    out = pb.GameOrder(seat=order.seat, pool=order.pool)
    if order.ends_at:
        out.end_time.FromSeconds(order.ends_at)
    if order.obligations.total:
        out.obligations.CopyFrom(obligations_to_proto(order.obligations))
    return out


def obligations_to_proto(obligations: Obligations) -> pb.Obligations:
    """The robber's obligatory games by contract (``domain.rules.robber``)."""
    return pb.Obligations(**obligations._asdict())


def obligations_from_proto(request: pb.OrderGameRequest) -> dict[str, int]:
    """The obligations an order asks for, every contract (zeros too): the rules core checks
    them and names the field (``obligations.nine`` …) of a count out of range."""
    if not request.HasField("obligations"):
        return {}
    given = request.obligations
    return {kind: int(getattr(given, kind)) for kind in KINDS}


def robber_to_proto(game: GameState) -> list[pb.RobberDebt]:
    """What each seat still owes the robber (or what was written for it at the deadline), with
    its price in gora by the table's prices; empty when the order imposed nothing."""
    rules = table_rules(game)
    return [
        pb.RobberDebt(seat=s, owed=obligations_to_proto(owed), gora=robber_penalty(rules, owed))
        for s, owed in enumerate(game.robber_owed)
    ]


def _orderer(game: Game) -> int:
    """The seat that must order the game now, or -1."""
    return game_orderer(game.state) if awaiting_order(game.state) else -1


def game_to_proto(game: Game) -> pb.Game:
    status = (
        pb.GAME_STATUS_ABORTED
        if game.aborted
        else pb.GAME_STATUS_FINISHED
        if game.finished
        else pb.GAME_STATUS_PLAYING
    )
    return pb.Game(
        name=game_name(game.id),
        players=[pb.Player(player_id=p) for p in game.players],
        rules=rules_to_proto(game.rule_set),
        league=game.league,
        status=status,
        deal_number=game.state.deal_number,
        dealer=game.state.deal.dealer if game.state.deal is not None else game.state.dealer,
        seed_commitment=game.seed_commitment,
        seed_hex=game.seed_hex or "",
        version=game.version,
        create_time=_timestamp(game.created_on),
        time_called=game.state.time_called,
        stop_agreed=sorted(game.state.stop_agreed),
        order=order_to_proto(game.state.order) if game.state.order is not None else None,
        orderer=_orderer(game),
        seats=game.rule_set.players,
        time_control=time_control_to_proto(game.time_control),
        bot_seats=game.bot_seats,
        stake_per_whist=game.stake_per_whist,
        adjournment_agreed=sorted(game.agreed),
        **game_fields(game),
    )


_TIMEOUT_ACTIONS = {
    pb.TIMEOUT_ACTION_UNSPECIFIED: "default_move",
    pb.TIMEOUT_ACTION_DEFAULT_MOVE: "default_move",
    pb.TIMEOUT_ACTION_FORFEIT: "forfeit",
}


def time_control_from_proto(message: pb.TimeControl, present: bool) -> TimeControl | None:
    """A client's time control (``None`` when the field is unset), validated by the domain."""
    if not present:
        return None
    on_timeout = _TIMEOUT_ACTIONS.get(message.on_timeout)
    if on_timeout is None:
        raise BadInput("time_control.on_timeout", "not a TimeoutAction")
    for field in ("move_seconds", "bank_seconds", "increment_seconds"):
        if getattr(message, field) < 0:
            raise BadInput(f"time_control.{field}", "must not be negative")
    return TimeControl(
        move_ms=message.move_seconds * 1000,
        bank_ms=message.bank_seconds * 1000,
        increment_ms=message.increment_seconds * 1000,
        on_timeout=on_timeout,
    )


def time_control_to_proto(control: TimeControl | None) -> pb.TimeControl | None:
    if control is None:
        return None
    return pb.TimeControl(
        move_seconds=control.move_ms // 1000,
        bank_seconds=control.bank_ms // 1000,
        increment_seconds=control.increment_ms // 1000,
        on_timeout=pb.TIMEOUT_ACTION_FORFEIT
        if control.on_timeout == "forfeit"
        else pb.TIMEOUT_ACTION_DEFAULT_MOVE,
    )


def _calls(calls: tuple[tuple[int, Action], ...]) -> list[pb.Call]:
    return [_call(seat, action) for seat, action in calls]


@functools.lru_cache(maxsize=4096)
def _call(seat: int, action: Action) -> pb.Call:
    return pb.Call(seat=seat, call=str(action), bid_value=_bid_of(action))


def _bid_of(action: Action) -> pb.Bid | None:
    """The bid an auction call names, as data (``None`` for a pass, "here" …)."""
    if isinstance(action, (Call, DarkCall, NoTalonCall)):
        return bid_value(action.bid)
    if isinstance(action, Declare):
        return bid_value(action.contract)
    return None


_VIEWS: LRUCache[tuple[uuid.UUID, int, int], pb.SeatView] = LRUCache(4096)
_VIEWS_GUARD = threading.Lock()


def cached_seat_view(game_id: uuid.UUID, version: int, seat: int) -> pb.SeatView | None:
    """The view ``seat_view_cached`` built for that game, version and seat, if still cached."""
    with _VIEWS_GUARD:
        return _VIEWS.get((game_id, version, seat))


def seat_view_cached(game: Game, seat: int) -> pb.SeatView:
    """``seat_view_to_proto``, built once per (game, version, seat) and kept in an LRU cache:
    a version's view never changes. The message is shared: copy it before changing it."""
    key = (game.id, game.version, seat)
    with _VIEWS_GUARD:  # the thread pool's workers share it
        view = _VIEWS.get(key)
    if view is None:
        view = seat_view_to_proto(game, seat)
        with _VIEWS_GUARD:
            _VIEWS[key] = view
    return view


def seat_view_to_proto(game: Game, seat: int) -> pb.SeatView:
    """What ``seat`` may see of the current deal now (every field from ``seat_view``)."""
    deal = game.state.deal
    out = pb.SeatView(
        name=game_name(game.id),
        seat=seat,
        deal_number=game.state.deal_number,
        version=game.version,
        seats=game.rule_set.players,
        **game_fields(game),
    )
    out.rules.CopyFrom(rules_in_force(game.rule_set))
    if game.state.order is not None:
        out.order.CopyFrom(order_to_proto(game.state.order))
    out.orderer = _orderer(game)
    state = game.state
    out.pool_target = table_rules(state).pool_target
    if state.rules.dark_auction:  # a blind bomb or dark bid weighs the public game context
        _game_context(out, game)
    out.robber_owed.extend(robber_to_proto(game.state))
    out.robber_written = game.state.robber_written
    if game.deal_results:
        out.previous_deal.CopyFrom(_finished_deal(game.id, len(game.deal_results), game))
    if deal is None:  # the game is over, or waits for its order (``orderer``)
        out.phase = pb.PHASE_SCORED
        out.to_act = out.declarer = -1
        out.actor = out.orderer
        if out.orderer >= 0:
            out.dealer = game.state.dealer  # of the first deal after the order
        return out
    view: SeatView = seat_view(deal, seat)
    out.dealer = view.dealer
    out.phase = _PHASES[view.phase]
    out.to_act = view.to_act
    out.actor = view.actor
    out.hand.extend(_cards(view.hand))
    out.hand_values.extend(mask_values(view.hand))
    for other, mask in enumerate(view.hands):
        if other != seat and mask is not None:
            out.visible_hands.append(seat_cards(other, mask))
    out.talon.extend("" if c is None else str(Card(c)) for c in view.talon)
    out.talon_values.extend(card_values(view.talon))
    if view.discard is not None:
        out.discard.extend(_cards(view.discard))
        out.discard_values.extend(mask_values(view.discard))
    out.auction.extend(_calls(view.auction))
    out.declarer = view.declarer
    out.winning_bid = "" if view.bid is None else str(view.bid)
    if view.bid is not None:
        out.winning_bid_value.CopyFrom(bid_value(view.bid))
    out.contract = "" if view.contract is None else str(view.contract)
    if view.contract is not None:
        out.contract_value.CopyFrom(bid_value(view.contract))
    out.whist_calls.extend(_calls(view.whist_calls))
    out.whisters.extend(view.whisters)
    if view.open_defence is not None:
        out.open_defence = view.open_defence
    out.current_trick.extend(_played(s, c) for s, c in view.trick)
    if view.history:
        out.last_trick.CopyFrom(_trick(view.history[-1]))
    out.tricks.extend(view.tricks)
    out.tricks_played = len(view.history)
    out.played_tricks.extend(_trick(t) for t in view.history)
    out.raspasy_streak = view.raspasy_streak
    out.leader = view.leader
    if view.shown is not None:
        out.shown_cards.extend(_cards(view.shown))
        out.shown_card_values.extend(mask_values(view.shown))
    out.unseen.extend(s for s in range(len(view.tricks)) if (view.unseen >> s) & 1)
    out.dark = view.dark
    out.no_talon = view.no_talon
    out.bomb = view.bomb
    out.bombers.extend(s for s in range(len(view.tricks)) if (view.bombers >> s) & 1)
    out.bomb_call = view.bomb_call
    if view.claim is not None:
        out.pending_claim.CopyFrom(pb.Claim(tricks=list(view.claim.tricks)))
        out.claimant = view.claim.claimant
    else:
        out.claimant = -1
    for action in view.legal:
        if isinstance(action, Claim):
            out.can_claim = True
        else:
            out.legal_actions.append(str(action))
            out.legal.append(action_to_proto(action))
    if deal.result is not None:
        kind = deal.result.kind.value
        out.result.CopyFrom(
            pb.DealResult(kind=kind, tricks=deal.result.tricks, deal_kind=deal_kind(kind))
        )
    return out


def _game_context(out: pb.SeatView, game: Game) -> None:
    """The public game context of ``domain.rules.game.with_game`` (the sheet before this deal,
    the bomb signs), which a seat deciding without having looked weighs: only for rules with a
    dark auction (Classic), so the views of other systems cost nothing more."""
    state = game.state
    sheet = state.sheet
    out.sheet.extend(
        pb.ScoresheetRow(seat=s, pool=sheet.pool[s], gora=sheet.gora[s], whists=sheet.whists[s])
        for s in range(len(sheet.pool))
    )
    out.bomb_signs.extend(bomb_signs_to_proto(state.bomb_signs, state.bomb_signs_crossed))


def _rows(entry: dict[str, Any]) -> list[pb.ScoresheetRow]:
    return [
        pb.ScoresheetRow(
            seat=s, pool=entry["pool"][s], gora=entry["gora"][s], whists=entry["whists"][s]
        )
        for s in range(len(entry["pool"]))
    ]


_FINISHED: LRUCache[tuple[uuid.UUID, int], pb.DealScoredEvent] = LRUCache(4096)
_FINISHED_GUARD = threading.Lock()


def _finished_deal(game_id: uuid.UUID, number: int, game: Game) -> pb.DealScoredEvent:
    """A finished deal never changes: build its message once per game and deal."""
    key = (game_id, number)
    with _FINISHED_GUARD:  # the thread pool's workers share it
        message = _FINISHED.get(key)
    if message is None:
        message = deal_result_to_proto(game.deal_results[number - 1])
        with _FINISHED_GUARD:
            _FINISHED[key] = message
    return message


def deal_result_to_proto(result: dict[str, Any]) -> pb.DealScoredEvent:
    """A finished deal as the aggregate keeps it: result, sheet entry and every card."""
    discard = result["discard"].split()
    return pb.DealScoredEvent(
        deal_number=result["number"],
        kind=result["kind"],
        declarer=result["declarer"],
        contract=result["contract"],
        tricks=result["tricks"],
        entries=_rows(result["entry"]),
        dealt_hands=[
            pb.SeatCards(seat=s, cards=hand.split(), card_values=text_values(hand.split()))
            for s, hand in enumerate(result["dealt"])
        ],
        talon=result["talon"],
        discard=discard,
        bomb=result.get("bomb", 0),
        dark=result.get("dark", False),
        sign=result.get("sign", 0),
        deal_kind=deal_kind(result["kind"]),
        contract_value=contract_value(result["contract"]),
        talon_values=text_values(result["talon"]),
        discard_values=text_values(discard),
    )


def scoresheet_to_proto(game: Game) -> pb.Scoresheet:
    sheet = game.state.sheet
    totals = {"pool": sheet.pool, "gora": sheet.gora, "whists": sheet.whists}
    return pb.Scoresheet(
        name=game_name(game.id),
        version=game.version,
        rules=rules_in_force(game.rule_set),
        totals=_rows(totals),
        deals=[
            pb.ScoresheetDeal(
                deal_number=d["number"],
                kind=d["kind"],
                declarer=d["declarer"],
                contract=d["contract"],
                tricks=d["tricks"],
                entries=_rows(d["entry"]),
                bomb=d.get("bomb", 0),
                dark=d.get("dark", False),
                sign=d.get("sign", 0),
                deal_kind=deal_kind(d["kind"]),
                contract_value=contract_value(d["contract"]),
            )
            for d in game.deal_results
        ],
        bomb_signs=bomb_signs_to_proto(game.state.bomb_signs, game.state.bomb_signs_crossed),
        settlement=game.settlement or [],
        rulings=[ruling_to_proto(r) for r in game.rulings],
        flags=[flag_to_proto(f) for f in game.flags],
        accounts=accounts_to_proto(sheet, game.accounts),
        order=order_to_proto(game.state.order) if game.state.order is not None else None,
        robber_owed=robber_to_proto(game.state),
        robber_written=game.state.robber_written,
    )


def bomb_signs_to_proto(
    owed: Sequence[Sequence[int]], crossed: Sequence[Sequence[CrossedSign]]
) -> list[pb.BombSigns]:
    """Each seat's bomb signs (Classic, TV-26): owed in order, and crossed out with the deal
    and the game made on them; none while no bomb was played."""
    if not owed and not crossed:
        return []
    seats = max(len(owed), len(crossed))
    return [
        pb.BombSigns(
            seat=s,
            owed=owed[s] if s < len(owed) else (),
            crossed=[
                pb.CrossedBombSign(level=c.level, deal_number=c.deal_number, contract=c.contract)
                for c in (crossed[s] if s < len(crossed) else ())
            ],
        )
        for s in range(seats)
    ]


def accounts_to_proto(sheet: ScoreSheet, players: Sequence[str]) -> list[pb.ScoresheetAccount]:
    """Every account of the sheet (``ScoreSheet.accounts``), in account order."""
    _, whists = accounts_sheet(sheet)
    out = [pb.ScoresheetAccount(account=a, player_id=players[a]) for a in range(len(whists))]
    for seat, (pool, gora) in enumerate(zip(sheet.pool, sheet.gora, strict=True)):
        row = out[sheet.account(seat)]
        row.seat, row.pool, row.gora = seat, pool, gora
    for gone in sheet.departed:
        row = out[gone.account]
        row.seat, row.pool, row.gora, row.left = gone.seat, gone.pool, gone.gora, True
    for account, row in enumerate(out):
        row.whists.extend(whists[account])
    return out


def ruling_to_proto(ruling: dict[str, Any]) -> pb.Ruling:
    """A ruling (``Game.rulings``, the audit report's, or a ``RulingRecorded`` event's)."""
    adjustment = ruling["adjustment"]
    rows = []
    if adjustment is not None:
        n = len(adjustment["gora"])
        rows = _rows({"pool": [0] * n, **adjustment})
    return pb.Ruling(
        version=ruling["version"],
        deal_number=ruling["deal_number"],
        reason=ruling["reason"],
        auditor=ruling["auditor"],
        no_change=adjustment is None,
        adjustment=rows,
    )


def flag_to_proto(flag: dict[str, Any]) -> pb.DealFlag:
    return pb.DealFlag(
        version=flag["version"],
        seat=flag["seat"],
        deal_number=flag["deal_number"],
        reason=flag["reason"],
    )


def adjustment_from_proto(rows: Any) -> dict[str, Any] | None:
    """A ruling's adjustment from its rows (one per seat: as many as the rows, which the rules
    core checks against the game's seats); ``None`` ("no change") for none."""
    if not rows:
        return None
    players = len(rows)
    if players > validation.MAX_SEATS:
        raise BadInput("adjustment", f"a table has at most {validation.MAX_SEATS} seats")
    seats = sorted(row.seat for row in rows)
    if seats != list(range(players)):
        raise BadInput(
            "adjustment", f"the adjustment needs one row for each seat 0 to {players - 1}"
        )
    gora = [0] * players
    whists = [[0] * players for _ in range(players)]
    for row in rows:
        if row.pool != 0:
            raise BadInput("adjustment", "the pool is never adjusted: pool must be 0")
        if len(row.whists) != players:
            raise BadInput("adjustment", f"each row needs whists on each of the {players} seats")
        gora[row.seat] = row.gora
        whists[row.seat] = list(row.whists)
    return {"gora": gora, "whists": whists}


# --- the stream: one event, redacted for one seat ----------------------------------------


SPECTATOR = -1
"""The viewer of a spectator (a watcher without a seat): it holds no card, so it sees what
every seat sees (``visible_cards`` of no seat). Its stream message comes last in each event's
messages (``watch_messages``), so ``messages[SPECTATOR]`` is it."""


def viewers(players: int) -> list[int]:
    """Whom a table's stream messages are built for: each seat, then the spectator."""
    return [*range(players), SPECTATOR]


class Visibility:
    """What a viewer (a seat, or ``SPECTATOR``) can see of the game at one moment (to tell
    what an event revealed)."""

    __slots__ = ("deal_number", "hands", "talon", "viewer")

    def __init__(self, game: Game | None, seat: int) -> None:
        self.viewer = seat
        self.deal_number = -1
        self.hands: dict[int, int] = {}
        """Each visible hand (the seat's own included): seat → cards."""
        self.talon: frozenset[int] = frozenset()
        deal = None if game is None else game.state.deal
        if game is None or deal is None:
            return
        self.deal_number = game.state.deal_number
        hands, talon = visible_cards(deal, seat)
        self.hands = {s: h for s, h in enumerate(hands) if h is not None}
        self.talon = frozenset(c for c in talon if c is not None)


def watch_messages(
    event: Any,
    before: Sequence[Visibility],
    deal_before: DealState | None,
    game: Game,
    after: Sequence[Visibility],
) -> tuple[pb.WatchGameResponse, ...]:
    """The stream message of ``event`` for every viewer, as each may see it: ``before[i]``
    and ``deal_before`` were taken just before the event was applied to ``game``, ``after[i]``
    just after (one ``Visibility`` per viewer, in the same order: each seat, and
    ``SPECTATOR`` for the spectators). What all see is built once, then each viewer's part."""
    public, secret = _public_part(event, deal_before, game)
    return tuple(
        _for_seat(public, secret, seen.viewer, was, seen, game)
        for was, seen in zip(before, after, strict=True)
    )


def _public_part(
    event: Any, deal_before: DealState | None, game: Game
) -> tuple[pb.WatchGameResponse, tuple[tuple[int, ...], pb.Action] | None]:
    """What every viewer sees of ``event`` (a discard or a gift without its cards), and for a
    discard or a gift the seats that see its cards and the action with them: a discard its
    discarder, a gift "с вареником" both players (the giver and the dealer who gets them)."""
    name = event_name(event)
    secret: tuple[tuple[int, ...], pb.Action] | None = None
    out = pb.WatchGameResponse(version=event.originator_version, time=_timestamp(event.timestamp))
    if name == "GameCreated":
        rules = RuleSet.from_dict(event.rules)
        out.game_created.CopyFrom(
            pb.GameCreatedEvent(
                players=[pb.Player(player_id=p) for p in event.players],
                rules=rules_to_proto(rules),
                league=event.league,
                seed_commitment=event.seed_commitment,
                first_dealer=event.first_dealer,
                seats=rules.players,
                time_control=time_control_to_proto(TimeControl.from_dict(event.time_control)),
                bot_seats=event.bot_seats or (),
                stake_per_whist=event.stake_per_whist,
            )
        )
    elif name == "DealDealt":
        out.deal_dealt.CopyFrom(pb.DealDealtEvent(deal_number=event.number, dealer=event.dealer))
    elif (action := action_of(event)) is not None:
        hand = deal_before.to_act if deal_before is not None else event.seat
        out.action.CopyFrom(
            pb.ActionEvent(
                seat=hand,
                actor=event.seat,
                action=action_to_proto(action, hide_cards=True),
                hand=hand,
                decider=event.seat,
            )
        )
        if isinstance(action, Discard):
            # The discarder decided it: the declarer, or "с вареником" the dealer (two players).
            secret = ((event.seat,), action_to_proto(action))
        elif isinstance(action, GiveCards):
            secret = (tuple(range(len(game.players))), action_to_proto(action))
    elif name == "DealScored":
        # The game after the event keeps the finished deal with every card (all public now).
        out.deal_scored.CopyFrom(deal_result_to_proto(game.deal_results[-1]))
    elif name == "GameFinished":
        out.game_finished.CopyFrom(
            pb.GameFinishedEvent(seed_hex=event.seed, settlement=list(event.settlement))
        )
    elif name == "DealFlagged":
        out.deal_flagged.CopyFrom(flag_to_proto(game.flags[-1]))
    elif name == "RulingRecorded":
        out.ruling_recorded.CopyFrom(ruling_to_proto(game.rulings[-1]))
    elif name == "TimeCalled":
        out.time_called.CopyFrom(pb.TimeCalledEvent(deal_number=game.state.deal_number))
    elif name == "GameOrdered":
        imposed = Obligations(**(getattr(event, "obligations", None) or {}))
        order = GameOrder(event.seat, event.pool, event.ends_at, imposed)
        out.game_ordered.CopyFrom(order_to_proto(order))
    elif name == "EarlyStopAgreed":
        agreed = sorted(game.state.stop_agreed)  # the game just after the event
        out.early_stop_agreed.CopyFrom(pb.EarlyStopAgreedEvent(seat=event.seat, agreed=agreed))
    elif name == "GameAborted":
        out.game_aborted.CopyFrom(pb.GameAbortedEvent(seat=event.seat))
    elif name in ("StakesSettled", "StakesAdjusted"):
        out.stakes_moved.CopyFrom(
            pb.StakesMovedEvent(
                players=list(event.players),
                amount_cents=list(event.amounts),
                stake_per_whist=event.stake_per_whist,
                adjustment=name == "StakesAdjusted",
            )
        )
    elif name == "PlayerReplaced":
        out.player_replaced.CopyFrom(
            pb.PlayerReplacedEvent(
                seat=event.seat,
                player=pb.Player(player_id=event.player),
                account=game.state.sheet.account(event.seat),
                reason=getattr(event, "reason", ""),
            )
        )
    elif name == "TimeExpired":
        out.time_expired.CopyFrom(time_expired_to_proto(event))
    elif name in ("AdjournmentAgreed", "ResumptionAgreed"):
        adjourn = name == "AdjournmentAgreed"
        out.adjournment.CopyFrom(adjournment_to_proto(event, game, adjourn))
    return out, secret


def _for_seat(
    public: pb.WatchGameResponse,
    secret: tuple[tuple[int, ...], pb.Action] | None,
    seat: int,
    before: Visibility,
    after: Visibility,
    game: Game,
) -> pb.WatchGameResponse:
    """``public`` with what only ``seat`` sees: its discard's cards (the discarder), a gift's
    cards (the two players "с вареником"), and what became visible to it with this event (own
    hand when dealt, opened hands, talon cards)."""
    out = pb.WatchGameResponse()
    out.CopyFrom(public)
    if secret is not None and seat in secret[0]:
        out.action.action.CopyFrom(secret[1])
    deal = game.state.deal
    if deal is not None and not out.HasField("deal_scored"):
        fresh_deal = after.deal_number != before.deal_number
        talon = after.talon if fresh_deal else after.talon - before.talon
        told = sum(1 << c for c in talon)
        for s in sorted(after.hands):
            # A hand is sent when it becomes visible, and again when it gains cards the talon
            # field does not tell (a dark declarer's unseen talon, which only he sees). A seat
            # out of the deal (four or five players: the dealer on the talon) holds none.
            gained = after.hands[s] & ~before.hands.get(s, 0) & ~told
            if after.hands[s] and (fresh_deal or s not in before.hands or gained):
                out.revealed.append(seat_cards(s, after.hands[s]))
        shown = [c for c in deal.talon if c in talon]
        out.talon.extend(str(Card(c)) for c in shown)
        out.talon_values.extend(card_values(shown))
    return out


# --- tables (TableService) -----------------------------------------------------------------

TABLE_PREFIX = "tables/"
_VISIBILITY = {"public": table_pb.VISIBILITY_PUBLIC, "private": table_pb.VISIBILITY_PRIVATE}
_VISIBILITY_FROM: dict[table_pb.Visibility.ValueType, str] = {
    table_pb.VISIBILITY_UNSPECIFIED: "public",
    table_pb.VISIBILITY_PUBLIC: "public",
    table_pb.VISIBILITY_PRIVATE: "private",
}
_TABLE_STATE = {
    "open": table_pb.TABLE_STATE_OPEN,
    "started": table_pb.TABLE_STATE_STARTED,
    "closed": table_pb.TABLE_STATE_CLOSED,
}


def table_name(table_id: uuid.UUID | str) -> str:
    return f"{TABLE_PREFIX}{table_id}"


def parse_table_name(name: str, field: str = "name") -> uuid.UUID:
    """``tables/{uuid}`` → the id, or ``BadInput`` (which does not repeat the name)."""
    return _parse_name(name, TABLE_PREFIX, "table", field)


def visibility_from_proto(value: table_pb.Visibility.ValueType) -> str:
    visibility = _VISIBILITY_FROM.get(value)
    if visibility is None:
        raise BadInput("visibility", "not a Visibility")
    return visibility


@functools.lru_cache(maxsize=256)
def _table_rules(recorded: str) -> pb.RuleSet:
    """A table's recorded rule set (canonical JSON) as sent: cached, since loading a rule set
    is far dearer than the rest of a lobby row (ListTables sends 50 of them)."""
    return rules_in_force(RuleSet.from_dict(json.loads(recorded)))


def table_to_proto(table: Table) -> table_pb.Table:
    """A table aggregate as the client sees it (no invitation, ever)."""
    return table_pb.Table(
        name=table_name(table.id),
        creator=table.creator,
        rules=_table_rules(json.dumps(table.rules, ensure_ascii=False, sort_keys=True)),
        seats=table.seat_count,
        player_ids=[p or "" for p in table.players],
        bot_seats=table.bot_seats,
        visibility=_VISIBILITY[table.visibility],
        league=table.league,
        time_control=time_control_to_proto(TimeControl.from_dict(table.time_control)),
        stake_per_whist=table.stake_per_whist,
        state=_TABLE_STATE[table.state],
        game=game_name(table.game_id),
        version=table.version,
    )


def lobby_row_to_proto(row: dict[str, Any]) -> table_pb.Table:
    """A row of the lobby read model (``projections.lobby``) as a table."""
    control = json.loads(row["time_control"]) if row["time_control"] else None
    return table_pb.Table(
        name=table_name(row["table_id"]),
        creator=row["creator"],
        rules=_table_rules(row["rules"]),
        seats=row["seats"],
        player_ids=[p or "" for p in row["players"]],
        bot_seats=row["bot_seats"],
        visibility=_VISIBILITY[row["visibility"]],
        league=row["league"],
        time_control=time_control_to_proto(TimeControl.from_dict(control)),
        stake_per_whist=row["stake_per_whist"],
        state=_TABLE_STATE[row["state"]],
        game=f"{GAME_PREFIX}{row['game_id']}",
        version=row["version"],
        position=row["seq"],
    )
