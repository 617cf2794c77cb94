"""Verifying a hand record: replay its decisions from the recorded hands through the rules core,
check that every decision is legal and that every section, the score, the sheet entry, the
settlement and the revealed seed are what the rules make of them (docs/HANDRECORD.md).

Why over 400 lines: verification is one replay of the record's decisions, and the checks of each
section, the rulings placed between deals, the seating and the seed all read the state that
replay holds; split, each part would need the replay's internals.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from domain.handrecord.build import (
    Record,
    cards_text,
    deal_section,
    robber_before,
    sheet_of,
    system_of,
)
from domain.model.codec import entry_to_dict, score_to_dict, settlement_to_strings
from domain.model.disputes import apply_ruling, check_adjustment, check_reason
from domain.model.stakes import stakes_problem
from domain.rules import (
    Action,
    DealtCards,
    GameState,
    Phase,
    RulesError,
    RuleSet,
    ScoreSheet,
    apply,
    awaiting_order,
    deal_cards,
    finish_deal,
    mask_of,
    new_game,
    order_game,
    parse_action,
    parse_cards,
    replace_player,
    seed_commitment,
    settle_game,
    shuffle_for,
    table_rules,
)
from domain.rules.bombs import ledger_rows
from domain.rules.cards import card_list
from domain.rules.game import deal_state
from domain.rules.robber import Obligations
from domain.rules.seats import hand_seats, seat_name, sitters
from domain.rules.start import GameOrder, initial_deals


@dataclass(frozen=True)
class Verdict:
    """The outcome of ``verify_record``."""

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


def _compare_hands(number: int, recorded: list[Any], replayed: list[Any]) -> None:
    """Each decision names the hand it was for exactly when it was not the decider's own."""
    for i, (a, b) in enumerate(zip(recorded, replayed, strict=True), 1):
        if a.get("hand") != b.get("hand"):
            mine = "his own" if b.get("hand") is None else f"{seat_name(b['hand'])}'s"
            raise _Discrepancy(
                number,
                f"deal {number}, decision {i} ({seat_name(a['seat'])}: {a['action']}): the "
                f"record gives the hand as {_show(a.get('hand'))}; it was {mine}",
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
    rules = table_rules(game)
    try:
        hands = tuple(mask_of(parse_cards(h)) for h in deal["hands"])
        talon = parse_cards(deal["talon"])
        if len(talon) != 2:
            raise RulesError("the talon is two cards")
        start = deal_state(
            rules,
            DealtCards(hands, (talon[0], talon[1])),
            deal["dealer"],
            number,
            game.raspasy_streak,
            game.dealer_run,
            game.bomb_streak,
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
    # The rules core writes the deal as a live game would (help, endings, races, the dealer
    # after raspasy and the series).
    playing = game._replace(dealer=deal["dealer"], deal_number=number, deal=state)
    after, score, entry = finish_deal(playing)
    expected = deal_section(
        number,
        start,
        state,
        actions,
        score_to_dict(score),
        entry_to_dict(entry),
        game.sheet,
        game.bomb_signs,
        robber_before(game),
    )
    return after, expected


def _seats_only(sheet: ScoreSheet) -> ScoreSheet:
    """The part of a sheet a record's ``sheet_before`` shows: the players at the table."""
    return ScoreSheet(sheet.pool, sheet.gora, sheet.whists)


def _during(joined: Mapping[str, Any], number: int) -> bool:
    """Whether a recorded replacement happened during deal ``number`` (records made before
    the field existed say nothing: between deals)."""
    return joined["before_deal"] == number and bool(joined.get("during_deal", False))


def _replace(game: GameState, joined: Mapping[str, Any], number: int | None) -> GameState:
    """A recorded replacement (TV-27), checked by the rules core like a live one."""
    try:
        return replace_player(game, joined["seat"])
    except (RulesError, TypeError, KeyError) as exc:
        raise _Discrepancy(
            number, f"the replacement {_show(joined)} is not allowed: {exc}"
        ) from None


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
            sheet_of(first["sheet_before"]),
            None,
            False,
            first.get("dealer_run", 0),
            bomb_signs=tuple(tuple(row) for row in first.get("bomb_signs", ())),
            bomb_streak=first.get("classic", {}).get("bomb_streak", 0),
        )
    except (TypeError, KeyError) as exc:
        raise _Discrepancy(
            first["number"], f"the sheet before the first deal is malformed: {exc}"
        ) from None
    if first["number"] == 1 and (
        first["dealer"] != rec["first_dealer"]
        or first["raspasy_streak"] != 0
        or game.sheet != new_game(rules, rec["first_dealer"]).sheet
        or any(game.bomb_signs)
    ):
        raise _Discrepancy(
            1, "deal 1 must start the game: first dealer, the starting sheet, no raspasy, no bombs"
        )
    order = _order_of(rec)
    if order is not None and rules.order_game and game.deal_number > initial_deals(rules):
        # A record of deals after the first one ordered: what each seat still owed the robber
        # before its first deal (none recorded: nothing was owed, or the deadline had passed).
        owed = tuple(Obligations(**row) for row in first.get("robber_owed", ()))
        game = game._replace(order=order, robber_owed=owed, robber_written=not owed)
    rulings = _Rulings(rec, rules.players)
    actions = 0
    joining = list(rec.get("replacements") or ())
    for deal in rec["deals"]:
        number = deal["number"]
        game = rulings.between(game, number - 1)
        # Replacements between deals come before the order; one during deal N after it (the
        # order deals the first ordered deal at once, so a player can only join it later).
        while joining and joining[0]["before_deal"] <= number and not _during(joining[0], number):
            game = _replace(game, joining.pop(0), number)
        if number != game.deal_number + 1:
            raise _Discrepancy(number, f"deal {number} follows deal {game.deal_number}")
        if awaiting_order(game):
            if order is None:
                raise _Discrepancy(number, f"deal {number} is dealt before the game is ordered")
            try:
                game = order_game(game, order.seat, order.pool, order.ends_at, order.obligations)
            except RulesError as exc:
                raise _Discrepancy(number, f"the order of the game is not valid: {exc}") from None
        while joining and joining[0]["before_deal"] <= number:
            game = _replace(game, joining.pop(0), number)
        if game.finished:
            raise _Discrepancy(number, f"deal {number} was dealt after every pool closed")
        if deal["dealer"] != game.dealer:
            raise _Discrepancy(
                number,
                f"deal {number}: the dealer is {seat_name(game.dealer)} in turn, "
                f"not {seat_name(deal['dealer'])}",
            )
        if deal.get("dealer_run", 0) != game.dealer_run:
            raise _Discrepancy(
                number,
                f"deal {number}: the dealer had dealt {game.dealer_run} deals in a row before "
                f"it, not {deal.get('dealer_run', 0)}",
            )
        _check_seating(deal, game.dealer, rules.players, rules.duo_dummy_hand)
        before = robber_before(game)
        due = [o.as_dict() for o in before] if any(o.total for o in before) else None
        if deal.get("robber_owed") != due:
            raise _Discrepancy(
                number,
                f"deal {number}: what the seats owed the robber before it is {_show(due)}, "
                f"not {_show(deal.get('robber_owed'))}",
            )
        signs = ledger_rows(game.bomb_signs, rules.players)
        if deal.get("bomb_signs", [[] for _ in signs]) != signs:
            raise _Discrepancy(
                number,
                f"deal {number}: the bomb signs owed before it are {_show(signs)}, "
                f"not {_show(deal.get('bomb_signs'))}",
            )
        if deal["raspasy_streak"] != game.raspasy_streak:
            raise _Discrepancy(
                number,
                f"deal {number}: {game.raspasy_streak} raspasy in a row before it, "
                f"not {deal['raspasy_streak']}",
            )
        if sheet_of(deal["sheet_before"]) != _seats_only(game.sheet):
            raise _Discrepancy(
                number, f"deal {number}: the sheet before it is not what the deals before it wrote"
            )
        game = rulings.during(game, number - 1)
        game, expected = _replay_deal(deal, game)
        actions += len(deal["actions"])
        _compare_hands(number, deal["actions"], expected["actions"])
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
        if deal.get("classic") != expected.get("classic"):
            raise _Discrepancy(
                number,
                f"deal {number}: the record gives the Classic auction as "
                f"{_show(deal.get('classic'))}; the decisions give "
                f"{_show(expected.get('classic'))}",
            )
        _compare_numbers(number, "score", deal["score"], expected["score"])
        _compare_numbers(number, "sheet entry", deal["entry"], expected["entry"])
    for left in joining:  # after the last deal (a game that stopped before another)
        game = _replace(game, left, None)
    last = rec["deals"][-1]["number"]
    game = rulings.between(game, last)
    if rec["stopped"] == "time" and not rules.ending_by_time:
        raise _Discrepancy(None, "the record says time was called, but the rules play no time")
    if not rec["complete"] and (rec["settlement"], rec["settlement_at_end"]) != (None, None):
        raise _Discrepancy(
            None,
            "the record says the game is not over, but it records a settlement "
            f"{_show(rec['settlement'])} and a settlement at the end "
            f"{_show(rec['settlement_at_end'])}",
        )
    if rec["complete"]:
        if not game.finished and rec["stopped"] not in ("time", "agreed"):
            raise _Discrepancy(None, "the record says the game is over, but a pool is open")
        settlement = settlement_to_strings(settle_game(game))
        at_end = rec["settlement_at_end"]
        if at_end is None or [str(Fraction(v)) for v in at_end] != settlement:
            raise _Discrepancy(
                None,
                f"the recorded settlement at the end {_show(at_end)} is wrong: the sheet "
                f"settles as {_show(settlement)}",
            )
        problem = stakes_problem(rec.get("stakes"), settlement)
        if problem is not None:
            raise _Discrepancy(None, problem)
        game, settlement = rulings.after_end(game, settlement)
        recorded = rec["settlement"]
        if recorded is None or [str(Fraction(v)) for v in recorded] != settlement:
            raise _Discrepancy(
                None,
                f"the recorded settlement {_show(recorded)} is wrong: after the rulings the "
                f"sheet settles as {_show(settlement)}",
            )
    rulings.check_all_applied()
    _verify_seed(rec, RuleSet.from_dict(rec["rules"]))
    _check_system(rec, rules)  # derived from the rules: last, after what they decide
    return Verdict(True, "consistent", None, len(rec["deals"]), actions)


def _check_system(rec: Record, rules: RuleSet) -> None:
    """The ``system`` and ``options`` a record names are those of its rule set."""
    system, options = system_of(rules)
    if rec.get("system") != system or rec.get("options") != options:
        raise _Discrepancy(
            None,
            f"the record names the system {_show(rec.get('system'))} with the options "
            f"{_show(rec.get('options'))}; its rules are {_show(system)} with {_show(options)}",
        )


def _place(item: Mapping[str, Any]) -> tuple[int, bool, bool]:
    """Where a flag or ruling happened, in the order of the game."""
    return item["after_deal"], item["during_deal"], item["after_end"]


class _Rulings:
    """The record's flags and rulings, checked and applied where they happened: between
    deals before the next deal's sheet is checked, during a deal before it is written, after
    the last deal, and after the end (each with the settlement it recorded)."""

    def __init__(self, rec: Record, players: int) -> None:
        self.pending: list[tuple[int, Mapping[str, Any]]] = list(enumerate(rec["rulings"], 1))
        self.complete = bool(rec["complete"])
        first = rec["deals"][0]["number"]
        last = rec["deals"][-1]["number"]
        for i, flag in enumerate(rec["flags"], 1):
            self._check_place(f"flag {i}", flag, first, last)
            if flag["seat"] >= players:
                raise _Discrepancy(
                    flag["deal_number"], f"flag {i}: seat {flag['seat']} is not at the table"
                )
            self._check_reason(f"flag {i}", flag, "reason")
        previous = (first - 1, False, False)
        for i, ruling in self.pending:
            where = f"ruling {i}"
            self._check_place(where, ruling, first, last)
            self._check_reason(where, ruling, "reason")
            self._check_reason(where, ruling, "auditor")
            try:
                check_adjustment(ruling["adjustment"], players)
            except RulesError as exc:
                raise _Discrepancy(ruling["deal_number"], f"{where}: {exc}") from None
            place = _place(ruling)
            if place < previous:
                raise _Discrepancy(ruling["deal_number"], f"{where} is listed out of order")
            previous = place
            if ruling["after_end"] and not self.complete:
                raise _Discrepancy(
                    ruling["deal_number"],
                    f"{where} comes after the end, but the record says the game is not over",
                )
            if (ruling["settlement"] is None) == ruling["after_end"]:
                raise _Discrepancy(
                    ruling["deal_number"],
                    f"{where}: a ruling records a settlement exactly when it comes after the end",
                )

    def _check_place(self, where: str, item: Mapping[str, Any], first: int, last: int) -> None:
        number, after = item["deal_number"], item["after_deal"]
        if number > after:
            raise _Discrepancy(
                number, f"{where} is on deal {number}, before deal {number} was scored"
            )
        if after < first - 1 or (after == first - 1 and not item["during_deal"]):
            raise _Discrepancy(
                number, f"{where} comes before deal {first}: its effect is in that deal's sheet"
            )
        if self.complete and (after > last or (after == last and item["during_deal"])):
            raise _Discrepancy(number, f"{where} comes after deal {last}, the last of the game")
        if item["after_end"] and item["during_deal"]:
            raise _Discrepancy(number, f"{where} comes after the end, during a deal")

    @staticmethod
    def _check_reason(where: str, item: Mapping[str, Any], field: str) -> None:
        try:
            check_reason(item[field], field)
        except RulesError as exc:
            raise _Discrepancy(item["deal_number"], f"{where}: {exc}") from None

    def _take(self, game: GameState, after: int, during: bool, ended: bool) -> GameState:
        while self.pending and _place(self.pending[0][1]) == (after, during, ended):
            game = apply_ruling(game, self.pending.pop(0)[1]["adjustment"])
        return game

    def between(self, game: GameState, after: int) -> GameState:
        """``game`` with the rulings made after deal ``after`` was scored, between deals."""
        return self._take(game, after, False, False)

    def during(self, game: GameState, after: int) -> GameState:
        """``game`` with the rulings made while deal ``after + 1`` was played."""
        return self._take(game, after, True, False)

    def after_end(self, game: GameState, settlement: list[str]) -> tuple[GameState, list[str]]:
        """The game and its settlement after each ruling made after the end, each checked
        against the settlement it recorded."""
        while self.pending and self.pending[0][1]["after_end"]:
            index, ruling = self.pending.pop(0)
            game = apply_ruling(game, ruling["adjustment"])
            settlement = settlement_to_strings(settle_game(game))
            recorded = ruling["settlement"]
            if [str(Fraction(v)) for v in recorded] != settlement:
                raise _Discrepancy(
                    ruling["deal_number"],
                    f"ruling {index} records the settlement {_show(recorded)}; "
                    f"after it the sheet settles as {_show(settlement)}",
                )
        return game, settlement

    def check_all_applied(self) -> None:
        """Every ruling of a complete record was applied; in a record of a game still being
        played (or of some of its deals), those after its last deal change nothing checked."""
        if self.pending and self.complete:
            index, ruling = self.pending[0]
            raise _Discrepancy(
                ruling["deal_number"],
                f"ruling {index} is not where a ruling can be: after deal "
                f"{ruling['after_deal']}, {'during' if ruling['during_deal'] else 'between'} "
                "deals, of a game " + ("over" if ruling["after_end"] else "still being played"),
            )


def _seats_text(seats: list[int]) -> str:
    return ", ".join(seat_name(s) for s in seats) or "none"


def _check_seating(deal: Mapping[str, Any], dealer: int, players: int, dummy_hand: int = 1) -> None:
    """The seats of the hands H1, H2, H3 and those without a hand, as the rules seat them for
    the dealer (RULES.md §3.6; with two players the dummy, position 2, at ``dummy_hand``), and
    no cards for a seat without a hand."""
    number = deal["number"]
    held = hand_seats(dealer, players, dummy_hand)
    expected = {
        "hand_seats": ("the hands H1, H2, H3", list(held)),
        "sitters": ("the seats without a hand", list(sitters(dealer, players))),
    }
    for key, (what, seats) in expected.items():
        if deal[key] != seats:
            raise _Discrepancy(
                number,
                f"deal {number}: the record gives {what} as {_seats_text(deal[key])}; with "
                f"{players} players and {seat_name(dealer)} dealing they are {_seats_text(seats)}",
            )
    for seat in expected["sitters"][1]:
        if deal["hands"][seat].strip():
            raise _Discrepancy(
                number,
                f"deal {number}: {seat_name(seat)} holds no hand this deal, but the record deals "
                f"him {deal['hands'][seat]}",
            )


def _order_of(rec: Record) -> GameOrder | None:
    """The order the record names (S000 Classic), if any."""
    order = rec.get("order")
    if order is None:
        return None
    imposed = Obligations(**order.get("obligations", {}))
    return GameOrder(order["seat"], order["pool"], order["ends_at"], imposed)


def _verify_seed(rec: Record, rules: RuleSet) -> None:
    seed_hex = rec["seed"]
    if not seed_hex:
        return
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise _Discrepancy(None, "the revealed seed is not hexadecimal") from None
    commitment = rec["seed_commitment"]
    if commitment and seed_commitment(seed) != commitment:
        raise _Discrepancy(None, "the revealed seed does not match the seed commitment")
    for deal in rec["deals"]:
        shuffle = shuffle_for(seed, deal["number"], last_pair=rules.talon_last_pair)
        dealt = deal_cards(
            shuffle.order,
            deal["dealer"],
            shuffle.talon_pair,
            rules.players,
            last_pair=rules.talon_last_pair,
            dummy_hand=rules.duo_dummy_hand,
        )
        if [card_list(h) for h in dealt.hands] != deal["hands"] or cards_text(dealt.talon) != deal[
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
