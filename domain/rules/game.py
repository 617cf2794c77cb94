"""A whole game (pulya): deals in turn, the dealer rotating, until every pool is closed.

``GameState`` is immutable like a deal. ``start_deal`` deals the next deal from a given shuffle,
``finish_deal`` writes the scored deal onto the sheet, moves the deal to the left and counts
raspasy in a row. ``play_game`` is the pure whole-game driver: from a seed and three policies
to the final sheet and settlement.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import NamedTuple

from domain.rules.actions import Action
from domain.rules.dealing import Shuffle, deal_cards, shuffle_from_seed
from domain.rules.engine import actor, apply, new_deal
from domain.rules.errors import GameOver, IllegalAction
from domain.rules.ruleset import DEFAULT, RuleSet
from domain.rules.scoresheet import ScoreSheet, SheetEntry, record, settle
from domain.rules.scoring import DealScore, score_deal
from domain.rules.seats import next_dealer, seat_of_hand
from domain.rules.state import DealResult, DealState, Kind, Phase
from domain.rules.view import SeatView, seat_view


class DealRecord(NamedTuple):
    number: int
    dealer: int
    final: DealState
    """The scored deal state (its ``dealt``, auction, tricks: the whole deal)."""
    actions: tuple[tuple[int, Action], ...]
    score: DealScore
    entry: SheetEntry


class GameState(NamedTuple):
    rules: RuleSet
    dealer: int
    """The dealer of the current (or next) deal."""
    deal_number: int
    """Number of the current deal (1-based), 0 before the first."""
    raspasy_streak: int
    sheet: ScoreSheet
    deal: DealState | None
    finished: bool


_DEAL = GameState._fields.index("deal")


def with_deal(game: GameState, deal: DealState) -> GameState:
    """``game._replace(deal=deal)`` without the keyword machinery (replay's hot path)."""
    fields = list(game)
    fields[_DEAL] = deal
    return tuple.__new__(GameState, fields)


def new_game(rules: RuleSet = DEFAULT, first_dealer: int = 0) -> GameState:
    """A new pulya; the first dealer is chosen by lot at the service edge."""
    if not 0 <= first_dealer < rules.players:
        raise IllegalAction(f"no seat {first_dealer} at a {rules.players}-player table")
    return GameState(rules, first_dealer, 0, 0, ScoreSheet.empty(rules.players), None, False)


def start_deal(game: GameState, shuffle: Shuffle) -> GameState:
    if game.finished:
        raise GameOver("the game is over: every pool is closed")
    if game.deal is not None and game.deal.phase is not Phase.SCORED:
        raise IllegalAction("the current deal is not finished")
    dealt = deal_cards(shuffle.order, game.dealer, shuffle.talon_pair, game.rules.players)
    deal = new_deal(dealt, game.dealer, game.rules, game.raspasy_streak)
    return game._replace(deal=deal, deal_number=game.deal_number + 1)


def finish_deal(game: GameState) -> tuple[GameState, DealScore, SheetEntry]:
    """Write the scored deal onto the sheet and pass the deal to the left."""
    deal = game.deal
    if deal is None or deal.result is None:
        raise IllegalAction("there is no finished deal to record")
    score = score_deal(deal)
    order = [
        seat_of_hand(deal.dealer, h, game.rules.players) for h in range(1, game.rules.players + 1)
    ]
    sheet, entry = record(game.sheet, score, game.rules, order)
    streak = game.raspasy_streak + 1 if deal.result.kind is Kind.RASPASY else 0
    dealer = next_dealer(game.dealer, game.rules.players)
    if deal.result.kind is Kind.UNDERBID:  # a void game is dealt again (RULES.md §3.1)
        dealer, streak = game.dealer, game.raspasy_streak
    return (
        game._replace(
            dealer=dealer,
            raspasy_streak=streak,
            sheet=sheet,
            deal=None,
            finished=sheet.all_closed(game.rules),
        ),
        score,
        entry,
    )


Policy = Callable[[SeatView], Action]
"""A player: sees only its seat's view and answers with an action."""


class GameRecord(NamedTuple):
    rules: RuleSet
    seed: bytes
    first_dealer: int
    deals: tuple[DealRecord, ...]
    sheet: ScoreSheet
    settlement: tuple[Fraction, ...]
    finished: bool
    """False if the driver stopped at ``max_deals`` (then the settlement is an early stop)."""


def play_deal(
    deal: DealState, policies: Sequence[Policy]
) -> tuple[DealState, tuple[tuple[int, Action], ...]]:
    """Play one deal to the end, asking each seat's policy with that seat's view only."""
    actions: list[tuple[int, Action]] = []
    while deal.phase is not Phase.SCORED:
        seat = actor(deal)
        action = policies[seat](seat_view(deal, seat))
        deal = apply(deal, action, seat)
        actions.append((seat, action))
    return deal, tuple(actions)


def play_game(
    seed: bytes,
    policies: Sequence[Policy],
    rules: RuleSet = DEFAULT,
    first_dealer: int = 0,
    max_deals: int = 500,
) -> GameRecord:
    """Play a whole pulya from ``seed`` until every pool is closed (or ``max_deals``)."""
    from domain.rules.scoresheet import early_stop

    game = new_game(rules, first_dealer)
    deals: list[DealRecord] = []
    while not game.finished and len(deals) < max_deals:
        game = start_deal(game, shuffle_from_seed(seed, game.deal_number + 1))
        assert game.deal is not None
        final, actions = play_deal(game.deal, policies)
        dealer, number = game.dealer, game.deal_number
        game, score, entry = finish_deal(game._replace(deal=final))
        deals.append(DealRecord(number, dealer, final, actions, score, entry))
    sheet = game.sheet if game.finished else early_stop(game.sheet, rules)
    return GameRecord(
        rules, seed, first_dealer, tuple(deals), game.sheet, settle(sheet, rules), game.finished
    )


def results(record: GameRecord) -> list[DealResult]:
    """The result of every deal of a game, in order."""
    return [d.final.result for d in record.deals if d.final.result is not None]
