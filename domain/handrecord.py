"""Hand records: an open, versioned file format for deals and whole games (docs/HANDRECORD.md).

A hand record is plain JSON (``preferans-hand-record``, version 1; schema in
docs/handrecord.schema.json) with a readable text form in the spirit of bridge's PBN. Everything
here is pure: build a record from a game's decoded events or from a pure ``GameRecord``, render
the text form, parse the JSON back with clear errors, and verify a record by replaying it
through the rules core.

Each deal holds the exact sequence of decisions (``actions``: seat and notation) and, for
readers, the same deal in sections (auction, talon, discard, contract, whisting, tricks,
claims, result, score). Verification replays ``actions`` from the recorded hands and checks
that every decision is legal and that every section, the score and the sheet entry are what
the rules make of them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
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
    Kind,
    Phase,
    RulesError,
    RuleSet,
    ScoreSheet,
    TakeTalon,
    apply,
    deal_cards,
    format_cards,
    mask_of,
    new_deal,
    parse_action,
    parse_cards,
    record,
    score_deal,
    seed_commitment,
    settle,
    shuffle_from_seed,
)
from domain.rules.actions import AcceptClaim
from domain.rules.cards import Card, card_list
from domain.rules.seats import hand_number, next_dealer, seat_name, seat_of_hand

FORMAT = "preferans-hand-record"
VERSION = 1

Record = dict[str, Any]


class HandRecordError(ValueError):
    """A file that is not a hand record this reader understands (with the reason)."""


# --- building -------------------------------------------------------------------------------


def _sheet_dict(sheet: ScoreSheet) -> dict[str, Any]:
    return {
        "pool": list(sheet.pool),
        "gora": list(sheet.gora),
        "whists": [list(row) for row in sheet.whists],
    }


def _sheet_of(data: Mapping[str, Any]) -> ScoreSheet:
    return ScoreSheet(
        tuple(data["pool"]), tuple(data["gora"]), tuple(tuple(r) for r in data["whists"])
    )


def _cards(cards: Iterable[int]) -> str:
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


def deal_section(
    number: int,
    start: DealState,
    final: DealState,
    actions: Sequence[tuple[int, Action]],
    score: Mapping[str, Any],
    entry: Mapping[str, Any],
    sheet_before: ScoreSheet,
) -> dict[str, Any]:
    """One deal of a record: ``start`` as dealt, ``final`` scored after ``actions``."""
    result = final.result
    if result is None:
        raise ValueError(f"deal {number} is not finished")
    took_talon = any(isinstance(a, TakeTalon) for _, a in actions)
    defence = [{"seat": s, "open": a.open} for s, a in actions if isinstance(a, ChooseDefence)]
    return {
        "number": number,
        "dealer": final.dealer,
        "raspasy_streak": final.raspasy_streak,
        "sheet_before": _sheet_dict(sheet_before),
        "hands": [card_list(h) for h in final.dealt],
        "talon": _cards(final.talon),
        "auction": [{"seat": s, "call": str(a)} for s, a in final.auction.calls],
        "declarer": final.declarer,
        "talon_taken": _cards(final.talon) if took_talon else None,
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
        "actions": [{"seat": s, "action": str(a)} for s, a in actions],
        "result": {
            "kind": result.kind.value,
            "declarer": result.declarer,
            "contract": "" if result.contract is None else str(result.contract),
            "tricks": list(result.tricks),
            "claimed": result.claimed,
        },
        "score": {k: score[k] for k in ("pool", "gora", "whists")},
        "entry": {k: entry[k] for k in ("pool", "gora", "whists", "helps")},
    }


def _envelope(
    rules: RuleSet,
    players: Sequence[str],
    first_dealer: int,
    game_id: str | None,
    commitment: str | None,
) -> Record:
    return {
        "format": FORMAT,
        "version": VERSION,
        "game_id": game_id,
        "players": list(players),
        "rules": rules.to_dict(),
        "first_dealer": first_dealer,
        "seed_commitment": commitment,
        "deals": [],
        "complete": False,
        "settlement": None,
        "seed": None,
    }


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
    out["complete"] = False
    out["settlement"] = None
    return out


def record_from_events(
    events: Sequence[Any], game_id: str | None = None, deal_number: int | None = None
) -> Record:
    """The hand record of a game from its decoded events (one deal with ``deal_number``).

    Only finished deals are recorded; the seed and settlement once the game is over.
    """
    if not events or event_name(events[0]) != "GameCreated":
        raise ValueError("a game's events start with GameCreated")
    created = events[0]
    rules = RuleSet.from_dict(created.rules)
    out = _envelope(
        rules, created.players, created.first_dealer, game_id, created.seed_commitment or None
    )
    state: GameState | None = None
    start: DealState | None = None
    sheet_before = ScoreSheet.empty(rules.players)
    actions: list[tuple[int, Action]] = []
    for event in events:
        name = event_name(event)
        if name == "DealScored":
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
                )
            )
        elif name == "GameFinished":
            out["complete"] = True
            out["settlement"] = list(event.settlement)
            out["seed"] = event.seed
        elif name in BY_NAME:
            actions.append((event.seat, BY_NAME[name].read(event)))
        state = advance(state, event)
        if name == "DealDealt":
            assert state.deal is not None
            start, sheet_before, actions = state.deal, state.sheet, []
    return _select(out, deal_number)


def record_from_game(
    game: GameRecord,
    players: Sequence[str] = ("A", "B", "C"),
    game_id: str | None = None,
    deal_number: int | None = None,
) -> Record:
    """The hand record of a game played by the pure driver (``play_game``)."""
    rules = game.rules
    out = _envelope(rules, players, game.first_dealer, game_id, seed_commitment(game.seed))
    sheet = ScoreSheet.empty(rules.players)
    for deal in game.deals:
        final = deal.final
        start = new_deal(
            DealtCards(final.dealt, final.talon), deal.dealer, rules, final.raspasy_streak
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
            )
        )
        order = [seat_of_hand(deal.dealer, h, rules.players) for h in range(1, rules.players + 1)]
        sheet = record(sheet, deal.score, rules, order)[0]
    if game.finished:
        out["complete"] = True
        out["settlement"] = settlement_to_strings(game.settlement)
        out["seed"] = game.seed.hex()
    return _select(out, deal_number)


def record_from_deal(
    start: DealState,
    actions: Sequence[tuple[int, Action]],
    number: int = 1,
    players: Sequence[str] = ("A", "B", "C"),
    sheet_before: ScoreSheet | None = None,
    game_id: str | None = None,
) -> Record:
    """A one-deal record: ``actions`` (seat, action) applied to ``start`` by the rules core,
    scored and written on ``sheet_before`` (an empty sheet by default)."""
    rules = start.rules
    sheet = ScoreSheet.empty(rules.players) if sheet_before is None else sheet_before
    final = start
    for seat, action in actions:
        final = apply(final, action, seat)
    score = score_deal(final)
    order = [seat_of_hand(start.dealer, h, rules.players) for h in range(1, rules.players + 1)]
    entry = record(sheet, score, rules, order)[1]
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


# --- the text form --------------------------------------------------------------------------


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


def render_deal_text(deal: Mapping[str, Any], players: Sequence[str]) -> list[str]:
    n = len(players)
    dealer = deal["dealer"]
    order = sorted(range(n), key=lambda s: hand_number(dealer, s, n))
    lines = [f"[Deal {deal['number']}]", f"Dealer    {seat_name(dealer)}"]
    if deal["raspasy_streak"]:
        lines.append(f"Raspasy   {deal['raspasy_streak']} in a row before this deal")
    for s in order:
        mask = mask_of(parse_cards(deal["hands"][s]))
        lines.append(f"Hand {seat_name(s)} H{hand_number(dealer, s, n)}: {format_cards(mask)}")
    lines.append(f"Talon     {deal['talon']}")
    auction = ", ".join(f"{seat_name(c['seat'])} {c['call']}" for c in deal["auction"])
    lines.append(f"Auction   {auction}")
    if deal["talon_taken"] is not None:
        lines.append(f"Talon     taken by {seat_name(deal['declarer'])}: {deal['talon_taken']}")
    if deal["discard"] is not None:
        lines.append(f"Discard   {deal['discard']}")
    if deal["contract"] is not None:
        lines.append(f"Contract  {seat_name(deal['declarer'])} {deal['contract']}")
    if deal["whist"]:
        whist = ", ".join(f"{seat_name(c['seat'])} {c['call']}" for c in deal["whist"])
        lines.append(f"Whist     {whist}")
    if deal["defence"] is not None:
        d = deal["defence"]
        lines.append(f"Defence   {'open' if d['open'] else 'closed'} ({seat_name(d['seat'])})")
    for i, trick in enumerate(deal["tricks"], 1):
        cards = "  ".join(f"{seat_name(c['seat'])} {c['card']:<3}" for c in trick["cards"])
        lines.append(f"Trick {i:>2}  {cards}  won by {seat_name(trick['winner'])}")
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


def render_text(rec: Record) -> str:
    """The readable form: a header of tags, then each deal, then the settlement."""
    players = rec["players"]
    rules = rec["rules"]
    lines = [
        f"% {rec['format']} {rec['version']}",
        f'[Game "{rec["game_id"] or ""}"]',
        *(f'[Seat {seat_name(s)} "{p}"]' for s, p in enumerate(players)),
        f'[Rules "{rules.get("name", "")}, pool to {rules.get("pool_target", "")}"]',
        f'[FirstDealer "{seat_name(rec["first_dealer"])}"]',
    ]
    if rec["seed_commitment"]:
        lines.append(f'[SeedCommitment "{rec["seed_commitment"]}"]')
    for deal in rec["deals"]:
        lines.append("")
        lines.extend(render_deal_text(deal, players))
    if rec["complete"]:
        lines.append("")
        lines.append(
            '[Settlement "'
            + " ".join(f"{seat_name(s)} {v}" for s, v in enumerate(rec["settlement"] or []))
            + '"]'
        )
        if rec["seed"]:
            lines.append(f'[Seed "{rec["seed"]}"]')
    return "\n".join(lines) + "\n"


# --- parsing ----------------------------------------------------------------------------------


_ENVELOPE: dict[str, tuple[type, ...]] = {
    "format": (str,),
    "version": (int,),
    "game_id": (str, type(None)),
    "players": (list,),
    "rules": (dict,),
    "first_dealer": (int,),
    "seed_commitment": (str, type(None)),
    "deals": (list,),
    "complete": (bool,),
    "settlement": (list, type(None)),
    "seed": (str, type(None)),
}
_DEAL: dict[str, tuple[type, ...]] = {
    "number": (int,),
    "dealer": (int,),
    "raspasy_streak": (int,),
    "sheet_before": (dict,),
    "hands": (list,),
    "talon": (str,),
    "auction": (list,),
    "declarer": (int,),
    "talon_taken": (str, type(None)),
    "discard": (str, type(None)),
    "contract": (str, type(None)),
    "whist": (list,),
    "defence": (dict, type(None)),
    "tricks": (list,),
    "claims": (list,),
    "actions": (list,),
    "result": (dict,),
    "score": (dict,),
    "entry": (dict,),
}
_TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    list: "a list",
    dict: "an object",
    bool: "true or false",
    type(None): "null",
}


def _check(obj: Any, shape: Mapping[str, tuple[type, ...]], where: str) -> None:
    if not isinstance(obj, dict):
        raise HandRecordError(f"{where or 'the record'}: expected an object")
    for key, types in shape.items():
        if key not in obj:
            raise HandRecordError(f"{where + '.' if where else ''}{key}: missing")
        value = obj[key]
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if not ok:
            expected = " or ".join(_TYPE_NAMES[t] for t in types)
            raise HandRecordError(
                f"{where + '.' if where else ''}{key}: expected {expected}, "
                f"got {json.dumps(value, ensure_ascii=False)[:40]}"
            )


def _check_items(items: list[Any], keys: Mapping[str, tuple[type, ...]], where: str) -> None:
    for i, item in enumerate(items):
        _check(item, keys, f"{where}[{i}]")


def validate(rec: Any) -> Record:
    """Check the format, version and shape of a decoded record; raise ``HandRecordError``."""
    if not isinstance(rec, dict):
        raise HandRecordError("a hand record is a JSON object")
    if rec.get("format") != FORMAT:
        raise HandRecordError(
            f"not a hand record: format is {rec.get('format')!r}, expected {FORMAT!r}"
        )
    version = rec.get("version")
    if version != VERSION:
        raise HandRecordError(
            f"unsupported hand-record version {version!r}: this reader knows version {VERSION}"
        )
    _check(rec, _ENVELOPE, "")
    if not rec["deals"]:
        raise HandRecordError("deals: a hand record holds at least one deal")
    for i, deal in enumerate(rec["deals"]):
        where = f"deals[{i}]"
        _check(deal, _DEAL, where)
        if len(deal["hands"]) != len(rec["players"]):
            raise HandRecordError(f"{where}.hands: expected one hand per player")
        _check_items(deal["auction"], {"seat": (int,), "call": (str,)}, f"{where}.auction")
        _check_items(deal["whist"], {"seat": (int,), "call": (str,)}, f"{where}.whist")
        _check_items(deal["actions"], {"seat": (int,), "action": (str,)}, f"{where}.actions")
        _check_items(
            deal["tricks"],
            {"leader": (int,), "cards": (list,), "winner": (int,)},
            f"{where}.tricks",
        )
        for t, trick in enumerate(deal["tricks"]):
            _check_items(
                trick["cards"], {"seat": (int,), "card": (str,)}, f"{where}.tricks[{t}].cards"
            )
        _check_items(
            deal["claims"],
            {"seat": (int,), "tricks": (list,), "trick": (int,), "accepted": (bool,)},
            f"{where}.claims",
        )
        _check(
            deal["result"],
            {
                "kind": (str,),
                "declarer": (int,),
                "contract": (str,),
                "tricks": (list,),
                "claimed": (bool,),
            },
            f"{where}.result",
        )
        _check(
            deal["score"], {"pool": (list,), "gora": (list,), "whists": (list,)}, f"{where}.score"
        )
        _check(
            deal["entry"],
            {"pool": (list,), "gora": (list,), "whists": (list,), "helps": (list,)},
            f"{where}.entry",
        )
        _check(
            deal["sheet_before"],
            {"pool": (list,), "gora": (list,), "whists": (list,)},
            f"{where}.sheet_before",
        )
    return rec


def parse_record(text: str) -> Record:
    """Read a hand record from JSON text; raise ``HandRecordError`` with a plain reason."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HandRecordError(
            f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    return validate(data)


# --- verification -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    consistent: bool
    message: str
    """``"consistent"`` or the first discrepancy, in plain words."""
    deal: int | None = None
    """The deal of the discrepancy."""
    deals: int = 0
    """Deals checked."""
    actions: int = 0
    """Decisions replayed."""


class _Discrepancy(Exception):
    def __init__(self, deal: int | None, message: str) -> None:
        super().__init__(message)
        self.deal = deal
        self.message = message


_SECTIONS = (
    ("auction", "the auction"),
    ("declarer", "the declarer"),
    ("talon_taken", "the talon taken"),
    ("discard", "the discard"),
    ("contract", "the contract"),
    ("whist", "the whisting"),
    ("defence", "the defence choice"),
    ("claims", "the claims"),
    ("result", "the result"),
)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _trick_text(trick: Mapping[str, Any]) -> str:
    cards = " ".join(f"{seat_name(c['seat'])} {c['card']}" for c in trick["cards"])
    return f"{cards}, won by {seat_name(trick['winner'])}"


def _compare_tricks(number: int, recorded: list[Any], replayed: list[Any]) -> None:
    for i, (a, b) in enumerate(zip(recorded, replayed, strict=False), 1):
        if a != b:
            raise _Discrepancy(
                number,
                f"deal {number}, trick {i}: the record says {_trick_text(a)}; "
                f"the actions give {_trick_text(b)}",
            )
    if len(recorded) != len(replayed):
        raise _Discrepancy(
            number,
            f"deal {number}: the record lists {len(recorded)} tricks; "
            f"the actions play {len(replayed)}",
        )


def _compare_numbers(
    number: int, what: str, recorded: Mapping[str, Any], expected: Mapping[str, Any]
) -> None:
    for key in expected:
        if recorded.get(key) != expected[key]:
            raise _Discrepancy(
                number,
                f"deal {number}: the recorded {what} is wrong: {key} is "
                f"{_show(recorded.get(key))} in the record, but the rules give "
                f"{_show(expected[key])}",
            )


def _replay_deal(deal: Mapping[str, Any], game: GameState) -> tuple[GameState, dict[str, Any]]:
    number = deal["number"]
    rules = game.rules
    n = rules.players
    try:
        hands = tuple(mask_of(parse_cards(h)) for h in deal["hands"])
        talon = parse_cards(deal["talon"])
        if len(talon) != 2:
            raise RulesError("the talon is two cards")
        start = new_deal(
            DealtCards(hands, (talon[0], talon[1])), deal["dealer"], rules, game.raspasy_streak
        )
    except RulesError as exc:
        raise _Discrepancy(
            number, f"deal {number}: the cards as dealt are not a deal: {exc}"
        ) from None
    state = start
    actions: list[tuple[int, Action]] = []
    for i, step in enumerate(deal["actions"], 1):
        seat, text = step["seat"], step["action"]
        where = f"deal {number}, decision {i} ({seat_name(seat)}: {text})"
        if state.phase is Phase.SCORED:
            raise _Discrepancy(number, f"{where}: the deal was already over")
        try:
            action = parse_action(text, cards_first=state.phase is Phase.PLAY)
            state = apply(state, action, seat)
        except RulesError as exc:
            raise _Discrepancy(number, f"{where} is not legal: {exc}") from None
        actions.append((seat, action))
    if state.phase is not Phase.SCORED:
        raise _Discrepancy(
            number,
            f"deal {number}: the recorded decisions stop before the deal is over "
            f"({state.phase.value})",
        )
    score = score_deal(state)
    kind = state.result.kind if state.result is not None else None
    order = [seat_of_hand(deal["dealer"], h, n) for h in range(1, n + 1)]
    sheet, entry = record(game.sheet, score, rules, order)
    expected = deal_section(
        number, start, state, actions, score_to_dict(score), entry_to_dict(entry), game.sheet
    )
    after = game._replace(
        dealer=next_dealer(deal["dealer"], n),
        deal_number=number,
        raspasy_streak=game.raspasy_streak + 1 if kind is Kind.RASPASY else 0,
        sheet=sheet,
        deal=None,
        finished=sheet.all_closed(rules),
    )
    return after, expected


def _verify(rec: Record) -> Verdict:
    try:
        rules = RuleSet.from_dict(rec["rules"])
    except (RulesError, TypeError, ValueError) as exc:
        raise _Discrepancy(None, f"the rule set is not valid: {exc}") from None
    first = rec["deals"][0]
    try:
        game = GameState(
            rules,
            first["dealer"],
            first["number"] - 1,
            first["raspasy_streak"],
            _sheet_of(first["sheet_before"]),
            None,
            False,
        )
    except (TypeError, KeyError) as exc:
        raise _Discrepancy(
            first["number"], f"the sheet before the first deal is malformed: {exc}"
        ) from None
    if first["number"] == 1 and (
        first["dealer"] != rec["first_dealer"]
        or first["raspasy_streak"] != 0
        or game.sheet != ScoreSheet.empty(rules.players)
    ):
        raise _Discrepancy(1, "deal 1 must start the game: first dealer, empty sheet, no raspasy")
    actions = 0
    for deal in rec["deals"]:
        number = deal["number"]
        if number != game.deal_number + 1:
            raise _Discrepancy(number, f"deal {number} follows deal {game.deal_number}")
        if game.finished:
            raise _Discrepancy(number, f"deal {number} was dealt after every pool closed")
        if deal["dealer"] != game.dealer:
            raise _Discrepancy(
                number,
                f"deal {number}: the dealer is {seat_name(game.dealer)} in turn, "
                f"not {seat_name(deal['dealer'])}",
            )
        if deal["raspasy_streak"] != game.raspasy_streak:
            raise _Discrepancy(
                number,
                f"deal {number}: {game.raspasy_streak} raspasy in a row before it, "
                f"not {deal['raspasy_streak']}",
            )
        if _sheet_of(deal["sheet_before"]) != game.sheet:
            raise _Discrepancy(
                number, f"deal {number}: the sheet before it is not what the deals before it wrote"
            )
        game, expected = _replay_deal(deal, game)
        actions += len(deal["actions"])
        for key, what in _SECTIONS[:7]:
            if deal[key] != expected[key]:
                raise _Discrepancy(
                    number,
                    f"deal {number}: the record gives {what} as {_show(deal[key])}; "
                    f"the decisions give {_show(expected[key])}",
                )
        _compare_tricks(number, deal["tricks"], expected["tricks"])
        for key, what in _SECTIONS[7:]:
            if deal[key] != expected[key]:
                raise _Discrepancy(
                    number,
                    f"deal {number}: the record gives {what} as {_show(deal[key])}; "
                    f"the decisions give {_show(expected[key])}",
                )
        _compare_numbers(number, "score", deal["score"], expected["score"])
        _compare_numbers(number, "sheet entry", deal["entry"], expected["entry"])
    if rec["complete"]:
        if not game.finished:
            raise _Discrepancy(None, "the record says the game is over, but a pool is open")
        settlement = settlement_to_strings(settle(game.sheet, rules))
        recorded = rec["settlement"]
        if recorded is None or [str(Fraction(v)) for v in recorded] != settlement:
            raise _Discrepancy(
                None,
                f"the recorded settlement {_show(recorded)} is wrong: the sheet settles "
                f"as {_show(settlement)}",
            )
    _verify_seed(rec)
    return Verdict(True, "consistent", None, len(rec["deals"]), actions)


def _verify_seed(rec: Record) -> None:
    seed_hex = rec["seed"]
    if not seed_hex:
        return
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise _Discrepancy(None, "the revealed seed is not hexadecimal") from None
    commitment = rec["seed_commitment"]
    if commitment and hashlib.sha256(seed).hexdigest() != commitment:
        raise _Discrepancy(None, "the revealed seed does not match the seed commitment")
    for deal in rec["deals"]:
        shuffle = shuffle_from_seed(seed, deal["number"])
        dealt = deal_cards(shuffle.order, deal["dealer"], shuffle.talon_pair)
        if [card_list(h) for h in dealt.hands] != deal["hands"] or _cards(dealt.talon) != deal[
            "talon"
        ]:
            raise _Discrepancy(
                deal["number"],
                f"deal {deal['number']}: the cards are not the shuffle of the revealed seed",
            )


def verify_record(rec: Record) -> Verdict:
    """Replay a (validated) record through the rules core: ``consistent`` or the first
    discrepancy with a plain explanation."""
    try:
        return _verify(rec)
    except _Discrepancy as exc:
        return Verdict(False, exc.message, exc.deal)
