"""Building hand records: from a game's decoded events, from a pure ``GameRecord`` played by the
driver, or from one deal's start and decisions (docs/HANDRECORD.md).

Each deal holds the exact sequence of decisions (``actions``: seat and notation) and, for
readers, the same deal in sections (auction, talon, discard, contract, whisting, tricks,
claims, result, score); ``deal_section`` writes them, and verification (``verify``) rebuilds
them from the decisions to compare.

Why over 400 lines: the record is built from three sources (stored events, a pure
``GameRecord``, one deal) that must write the same sections with the same functions, so they
share this module; verification, which reads them back, is ``verify``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC
from typing import Any

from domain.model.codec import entry_to_dict, score_to_dict, settlement_to_strings
from domain.model.decisions import BY_NAME, event_name
from domain.model.replay import advance
from domain.rules import (
    Action,
    ChooseDefence,
    Claim,
    DealState,
    DealtCards,
    GameRecord,
    GameState,
    Phase,
    RuleSet,
    ScoreSheet,
    TakeTalon,
    apply,
    new_game,
    score_deal,
    seed_commitment,
    write_deal,
)
from domain.rules.actions import AcceptClaim, PlayCard
from domain.rules.birds import sign_givers
from domain.rules.bombs import (
    BombLedger,
    CrossedLedger,
    first_sign,
    ledger_rows,
    multiplied,
    signs_after,
)
from domain.rules.cards import Card, card_list
from domain.rules.game import deal_state, robber_after
from domain.rules.robber import Obligations
from domain.rules.seats import hand_seats, seat_name, sitters
from domain.rules.start import GameOrder, initial_deals
from domain.rules.systems import RULE_SETS

FORMAT = "preferans-hand-record"
VERSION = 3
"""Version 3 (issue 16): the flags and rulings of the game with where they happened, the
settlement after the rulings (``settlement``) beside the one the game ended with
(``settlement_at_end``), the tags Date/Event/Site/Round, the system and its options, and each
decision's hand when another seat decided for it. Version 2 (issue 13): any number of seats
(2 to 5); each deal names the seats of its three hands (``hand_seats``) and the seats without a
hand (``sitters``). Older records are read by ``upcast.upcast_record``."""

TAGS = ("date", "event", "site", "round")
"""The header tags of version 3, as in PBN: the date the game was created (``YYYY-MM-DD``,
UTC), the event (the league), the site and the round (given by whoever exports; ``None`` when
unknown)."""

MAX_TAG = 200
"""The longest tag value (as the schema says)."""

Record = dict[str, Any]


def sheet_dict(sheet: ScoreSheet) -> dict[str, Any]:
    """A scoresheet as a record writes it (``pool``, ``gora``, ``whists[writer][target]``)."""
    return {
        "pool": list(sheet.pool),
        "gora": list(sheet.gora),
        "whists": [list(row) for row in sheet.whists],
    }


def sheet_of(data: Mapping[str, Any]) -> ScoreSheet:
    """The scoresheet a record's ``sheet_dict`` form describes."""
    return ScoreSheet(
        tuple(data["pool"]), tuple(data["gora"]), tuple(tuple(r) for r in data["whists"])
    )


def cards_text(cards: Iterable[int]) -> str:
    """Cards in notation, in the given order, separated by spaces."""
    return " ".join(str(Card(c)) for c in cards)


def _claims(start: DealState, actions: Sequence[tuple[int, Action]]) -> list[dict[str, Any]]:
    """Every claim made in the deal, the trick it was made in, and whether it stood."""
    claims: list[dict[str, Any]] = []
    deal = start
    for seat, action in actions:
        if isinstance(action, Claim):
            claims.append(
                {
                    "seat": seat,
                    "tricks": list(action.tricks),
                    "trick": deal.trick_number + 1,
                    "accepted": False,
                }
            )
        deal = apply(deal, action, seat)
        if isinstance(action, AcceptClaim) and deal.phase is Phase.SCORED and claims:
            claims[-1]["accepted"] = True
    return claims


def hand_of(deal: DealState, seat: int, action: Action) -> int:
    """The hand (its seat, or the dummy's position) a decision of ``seat`` is made for: in
    the play, a card comes from the hand on turn (a sole open whister plays his partner's
    cards, RULES.md §1.6 outcome 2; with two players the dummy's are played by its defender,
    §3.6); every
    other decision is the seat's own."""
    if isinstance(action, PlayCard):
        return deal.to_act
    return seat


def decisions(start: DealState, actions: Sequence[tuple[int, Action]]) -> list[dict[str, Any]]:
    """Every decision in order: the seat that decided, the action, and ``hand`` when the
    decision was for another seat's hand (version 3)."""
    out: list[dict[str, Any]] = []
    deal = start
    for seat, action in actions:
        step: dict[str, Any] = {"seat": seat, "action": str(action)}
        hand = hand_of(deal, seat, action)
        if hand != seat:
            step["hand"] = hand
        out.append(step)
        deal = apply(deal, action, seat)
    return out


def deal_section(
    number: int,
    start: DealState,
    final: DealState,
    actions: Sequence[tuple[int, Action]],
    score: Mapping[str, Any],
    entry: Mapping[str, Any],
    sheet_before: ScoreSheet,
    signs_before: BombLedger = (),
    robber_before: Sequence[Obligations] = (),
) -> dict[str, Any]:
    """One deal of a record: ``start`` as dealt, ``final`` scored after ``actions``;
    ``signs_before`` the bomb signs owed before it (Classic), recorded only when there are any
    (its declarer's game is played on his first: the score depends on it); ``robber_before``
    what each seat still owed the robber before it (before the deadline), recorded only when
    something is owed (what the deal that closes every pool writes depends on it)."""
    result = final.result
    if result is None:
        raise ValueError(f"deal {number} is not finished")
    took_talon = any(isinstance(a, TakeTalon) for _, a in actions)
    defence = [{"seat": s, "open": a.open} for s, a in actions if isinstance(a, ChooseDefence)]
    out: dict[str, Any] = {
        "number": number,
        "dealer": final.dealer,
        "raspasy_streak": final.raspasy_streak,
        "dealer_run": final.dealer_run,
        "sheet_before": sheet_dict(sheet_before),
        "hand_seats": list(hand_seats(final.dealer, final.players, final.rules.duo_dummy_hand)),
        "sitters": list(sitters(final.dealer, final.players)),
        "hands": [card_list(h) for h in final.dealt],
        "talon": cards_text(final.talon),
        "auction": [{"seat": s, "call": str(a)} for s, a in final.auction.calls],
        "declarer": final.declarer,
        "talon_taken": cards_text(final.talon) if took_talon else None,
        "discard": card_list(final.discard) if final.discard else None,
        "contract": None if final.contract is None else str(final.contract),
        "whist": [{"seat": s, "call": str(a)} for s, a in final.whist.calls],
        "defence": defence[-1] if defence else None,
        "tricks": [
            {
                "leader": t.leader,
                "cards": [{"seat": s, "card": str(Card(c))} for s, c in t.cards],
                "winner": t.winner,
            }
            for t in final.play.history
        ],
        "claims": _claims(start, actions),
        "actions": decisions(start, actions),
        "result": {
            "kind": result.kind.value,
            "declarer": result.declarer,
            "contract": "" if result.contract is None else str(result.contract),
            "tricks": list(result.tricks),
            "claimed": result.claimed,
        },
        "score": {k: score[k] for k in ("pool", "gora", "whists")},
        "entry": {k: entry[k] for k in ("pool", "gora", "whists", "helps")},
        **_classic(final),
    }
    if any(signs_before):
        out["bomb_signs"] = ledger_rows(signs_before, final.players)
    if any(owed.total for owed in robber_before):
        out["robber_owed"] = [owed.as_dict() for owed in robber_before]
    return out


def robber_before(state: GameState) -> tuple[Obligations, ...]:
    """What each seat owes the robber before the next deal of ``state`` (none once written)."""
    return () if state.robber_written else state.robber_owed


def _classic(final: DealState) -> dict[str, Any]:
    """The Classic auction's outcome (issue 12), only under rules that have one: bombs in a row
    before the deal, the bomb played and its bombers, a dark game, a game without talon."""
    rules = final.rules
    if not (rules.dark_auction or rules.no_talon_levels or rules.no_talon_misere):
        return {}
    return {
        "classic": {
            "bomb_streak": final.bomb_streak,
            "bomb": final.bomb,
            "bombers": [s for s in range(final.players) if (final.bombers >> s) & 1],
            "dark": final.dark,
            "no_talon": final.no_talon,
        }
    }


def system_of(rules: RuleSet) -> tuple[str | None, dict[str, Any]]:
    """The named system a rule set starts from (``rules.name``, docs/SYSTEMS.md) and the
    options it sets otherwise (field → value, as ``RuleSet.to_dict`` writes them); ``None``
    and every field for a name that is no system."""
    table = rules.to_dict()
    base = RULE_SETS.get(rules.name)
    if base is None:
        return None, table
    known = base.to_dict()
    return rules.name, {k: v for k, v in table.items() if k != "name" and known.get(k) != v}


def empty_tags() -> dict[str, str | None]:
    """The header tags (``TAGS``), all unknown."""
    return dict.fromkeys(TAGS)


def _envelope(
    rules: RuleSet,
    players: Sequence[str],
    first_dealer: int,
    game_id: str | None,
    commitment: str | None,
) -> Record:
    system, options = system_of(rules)
    return {
        "format": FORMAT,
        "version": VERSION,
        "game_id": game_id,
        "tags": empty_tags(),
        "players": list(players),
        "rules": rules.to_dict(),
        "system": system,
        "options": options,
        "first_dealer": first_dealer,
        "seed_commitment": commitment,
        "deals": [],
        "complete": False,
        "settlement": None,
        "settlement_at_end": None,
        "seed": None,
        "stopped": None,
        "replacements": [],
        "flags": [],
        "rulings": [],
    }


def _where(state: GameState | None, scored: int, ended: bool) -> dict[str, Any]:
    """Where a flag or a ruling happened: after deal ``after_deal`` was scored, during the
    next deal (``during_deal``) or between deals, and whether after the game's end."""
    playing = state is not None and state.deal is not None and state.deal.phase is not Phase.SCORED
    return {"after_deal": scored, "during_deal": playing and not ended, "after_end": ended}


def order_dict(order: GameOrder) -> dict[str, Any]:
    """The order of a game (S000 Classic, ``GameOrdered``) as a record writes it; the robber's
    obligatory games only when the order imposes some (``RuleSet.robber``)."""
    out: dict[str, Any] = {"seat": order.seat, "pool": order.pool, "ends_at": order.ends_at}
    imposed = order.obligations.as_dict()
    if imposed:
        out["obligations"] = imposed
    return out


def _select(out: Record, deal_number: int | None) -> Record:
    if deal_number is None:
        return out
    chosen = [d for d in out["deals"] if d["number"] == deal_number]
    if not chosen:
        scored = len(out["deals"])
        raise ValueError(
            f"no finished deal {deal_number}: the game has {scored} finished deal"
            f"{'' if scored == 1 else 's'}"
        )
    out["deals"] = chosen
    out["replacements"] = [r for r in out["replacements"] if r["before_deal"] == deal_number]
    # The flags and rulings on the deal, and the rulings made while it was played (applied to
    # the sheet it is written on); those before it are in its ``sheet_before``. Not the rulings
    # made after the end: each records the game's settlement, which only a whole game's record
    # carries and checks (a record that is not complete has none).
    out["flags"] = [f for f in out["flags"] if f["deal_number"] == deal_number]
    out["rulings"] = [
        r
        for r in out["rulings"]
        if not r["after_end"]
        and (
            r["deal_number"] == deal_number
            or (r["during_deal"] and r["after_deal"] == deal_number - 1)
        )
    ]
    out["complete"] = False
    out["settlement"] = None
    out["settlement_at_end"] = None
    out.pop("stakes", None)
    return out


def record_from_events(
    events: Sequence[Any],
    game_id: str | None = None,
    deal_number: int | None = None,
    tags: Mapping[str, str | None] | None = None,
) -> Record:
    """The hand record of a game from its decoded events (one deal with ``deal_number``).

    Only finished deals are recorded; the seed and settlement once the game is over; every
    flag and ruling where it happened, and the settlement after the rulings. The tags are the
    date the game was created and its league (the event) unless ``tags`` gives them.
    """
    if not events or event_name(events[0]) != "GameCreated":
        raise ValueError("a game's events start with GameCreated")
    created = events[0]
    rules = RuleSet.from_dict(created.rules)
    out = _envelope(
        rules, created.players, created.first_dealer, game_id, created.seed_commitment or None
    )
    when = getattr(created, "timestamp", None)
    out["tags"].update(
        date=when.astimezone(UTC).date().isoformat() if when is not None else None,
        event=getattr(created, "league", "") or None,
    )
    for key, value in (tags or {}).items():
        if value is None:
            continue
        if key not in TAGS or not value.strip() or len(value) > MAX_TAG or not value.isprintable():
            raise ValueError(f"the {key} tag must be 1 to {MAX_TAG} printable characters")
        out["tags"][key] = value
    scored = 0
    ended = False
    state: GameState | None = None
    start: DealState | None = None
    sheet_before = ScoreSheet.empty(rules.players)
    signs_before: BombLedger = ()
    owed_before: tuple[Obligations, ...] = ()
    actions: list[tuple[int, Action]] = []
    for event in events:
        name = event_name(event)
        if name == "DealScored":
            scored = event.number
            assert state is not None and state.deal is not None and start is not None
            out["deals"].append(
                deal_section(
                    event.number,
                    start,
                    state.deal,
                    actions,
                    event.score,
                    event.entry,
                    sheet_before,
                    signs_before,
                    owed_before,
                )
            )
        elif name == "TimeCalled":
            out["stopped"] = "time"
        elif name == "PlayerReplaced":
            assert state is not None
            playing = state.deal is not None and state.deal.phase is not Phase.SCORED
            out["replacements"].append(
                {
                    "seat": event.seat,
                    "player": event.player,
                    "before_deal": state.deal_number + (0 if playing else 1),
                    "during_deal": playing,
                }
            )
        elif name == "GameOrdered":
            imposed = Obligations(**(getattr(event, "obligations", None) or {}))
            out["order"] = order_dict(GameOrder(event.seat, event.pool, event.ends_at, imposed))
        elif name == "GameFinished":
            ended = True
            out["complete"] = True
            out["settlement"] = list(event.settlement)
            out["settlement_at_end"] = list(event.settlement)
            out["seed"] = event.seed
        elif name == "DealFlagged":
            out["flags"].append(
                {
                    "seat": event.seat,
                    "deal_number": event.deal_number,
                    "reason": event.reason,
                    **_where(state, scored, ended),
                }
            )
        elif name == "RulingRecorded":
            settled = None if event.settlement is None else list(event.settlement)
            out["rulings"].append(
                {
                    "deal_number": event.deal_number,
                    "reason": event.reason,
                    "auditor": event.auditor,
                    "adjustment": event.adjustment,
                    **_where(state, scored, ended),
                    "settlement": settled,
                }
            )
            if settled is not None:
                out["settlement"] = settled
        elif name == "StakesSettled":  # the money of the recorded settlement (docs/STAKES.md)
            out["stakes"] = {
                "stake_per_whist": event.stake_per_whist,
                "amounts": list(event.amounts),
            }
        elif name in BY_NAME:
            actions.append((event.seat, BY_NAME[name].read(event)))
        state = advance(state, event)
        if name == "EarlyStopAgreed" and state.finished:
            out["stopped"] = "agreed"
        if name == "PlayerReplaced":
            # A deal in progress is written on the newcomer's sheet (``replace_player``), and
            # played on his bomb signs and robber debts (the leaver's left with him).
            sheet_before = state.sheet
            signs_before = state.bomb_signs
            owed_before = robber_before(state)
        if name == "DealDealt":
            assert state.deal is not None
            start, sheet_before, actions = state.deal, state.sheet, []
            signs_before = state.bomb_signs
            owed_before = robber_before(state)
    return _select(out, deal_number)


def seat_labels(players: int) -> tuple[str, ...]:
    """Player ids for a record without any: the seats' display names (A, B, C, …)."""
    return tuple(seat_name(s) for s in range(players))


def record_from_game(
    game: GameRecord,
    players: Sequence[str] | None = None,
    game_id: str | None = None,
    deal_number: int | None = None,
) -> Record:
    """The hand record of a game played by the pure driver (``play_game``); ``players`` by
    seat, the seat names (A, B, C, …) by default."""
    rules = game.rules
    if players is None:
        players = seat_labels(rules.players)
    out = _envelope(rules, players, game.first_dealer, game_id, seed_commitment(game.seed))
    sheet = new_game(rules, game.first_dealer).sheet
    owed: BombLedger = ()
    crossed: CrossedLedger = ()
    robber: tuple[Obligations, ...] = ()
    written = False
    if game.order is not None:
        out["order"] = order_dict(game.order)
        imposed = game.order.obligations
        robber = (imposed,) * rules.players if imposed.total else ()
    for deal in game.deals:
        ordered = deal.number > initial_deals(rules)
        before = robber if ordered and not written else ()
        final = deal.final
        start = deal_state(
            final.rules,  # the table rules: the ordered pool length once ordered
            DealtCards(final.dealt, final.talon),
            deal.dealer,
            deal.number,
            final.raspasy_streak,
            final.dealer_run,
            final.bomb_streak,
        )
        out["deals"].append(
            deal_section(
                deal.number,
                start,
                final,
                deal.actions,
                score_to_dict(deal.score),
                entry_to_dict(deal.entry),
                sheet,
                owed,
                before,
            )
        )
        sheet = write_deal(sheet, final, deal.score, final.rules)[0]
        if before:  # the robber's obligations, and the deadline (``game.finish_deal``)
            sheet, robber, written = robber_after(sheet, robber, final, final.rules)
        result = final.result
        assert result is not None
        sign = first_sign(owed, result.declarer) if multiplied(result.kind) else 0
        owed, crossed = signs_after(
            owed,
            crossed,
            result,
            bomb=final.bomb,
            bombers=sign_givers(final),
            sign=sign,
            deal_number=deal.number,
            players=rules.players,
        )
    if game.finished:
        out["complete"] = True
        out["settlement"] = settlement_to_strings(game.settlement)
        out["settlement_at_end"] = out["settlement"]
        out["seed"] = game.seed.hex()
    return _select(out, deal_number)


def record_from_deal(
    start: DealState,
    actions: Sequence[tuple[int, Action]],
    number: int = 1,
    players: Sequence[str] | None = None,
    sheet_before: ScoreSheet | None = None,
    game_id: str | None = None,
) -> Record:
    """A one-deal record: ``actions`` (seat, action) applied to ``start`` by the rules core,
    scored and written on ``sheet_before`` (an empty sheet by default)."""
    rules = start.rules
    if players is None:
        players = seat_labels(rules.players)
    sheet = ScoreSheet.empty(rules.players) if sheet_before is None else sheet_before
    final = start
    for seat, action in actions:
        final = apply(final, action, seat)
    score = score_deal(final, sheet.any_closed(rules))
    entry = write_deal(sheet, final, score, rules)[1]
    out = _envelope(rules, players, start.dealer, game_id, None)
    out["deals"].append(
        deal_section(
            number, start, final, actions, score_to_dict(score), entry_to_dict(entry), sheet
        )
    )
    return out


def to_json(rec: Record) -> str:
    """The JSON form (UTF-8 text, card symbols kept as they are)."""
    return json.dumps(rec, ensure_ascii=False, indent=1) + "\n"
