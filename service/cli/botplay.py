"""Bots filling the seats of a game through the API (``pref bots``): demos, load, simulation."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from domain.bots import make_bot
from domain.bots import order_choice as bot_order
from domain.rules import Action, RuleSet, ScoreSheet, parse_action
from domain.rules.start import initial_deals
from service.app.application import ORDER_MINUTES
from service.app.simulate import TIME_DEALS
from service.cli.viewstate import sheet_from_proto, view_from_proto
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb


@dataclass(frozen=True)
class Creator:
    """The creator's credential of a game (its creation's request id and secret): what
    ``CallTime`` asks for."""

    request_id: str
    secret: str


def bot_step(seat: SeatClient, view: pb.SeatView, policy: Callable[..., Action]) -> int:
    """If it is this seat's turn, decide with the bot and send the action; return the version."""
    action = policy(view_from_proto(view))
    return seat.act(action).version


def game_rules(game: pb.Game) -> RuleSet:
    """The rule set of a game as ``GetGame`` sends it (every option in ``options_json``)."""
    options = json.loads(game.rules.options_json) if game.rules.options_json else {}
    options.setdefault("name", game.rules.name)
    return RuleSet.from_dict(options)


def order_choice(
    rules: RuleSet,
    now: float,
    minutes: int = ORDER_MINUTES,
    sheet: ScoreSheet | None = None,
    seat: int = -1,
) -> tuple[int, int]:
    """What the command line's bots order (Classic, S000 "заказывает игру"): the pool length a
    bot names (``domain.bots.order_choice``, given the sheet and the orderer's seat when
    known) and, in a game played until time, an end time ``minutes`` after ``now`` (a bot has
    no clock: the command line's)."""
    ends_at = int(now) + minutes * 60 if rules.ending_by_time else 0
    return bot_order(rules, sheet, seat), ends_at


def play_with_bots(
    client: GameClient,
    name: str,
    tokens: Sequence[str],
    *,
    on_action: Callable[[int], None] | None = None,
    creator: Creator | None = None,
    time_deals: int = TIME_DEALS,
    clock: Callable[[], float] = time.time,
) -> pb.Game:
    """Play the game to its end with a bot in every seat (each sees only its own view).

    Classic: when the game waits for its order, the orderer's bot orders (``order_choice``).
    Each bot decides from its seat view, which under Classic carries the public game context
    (the bomb level, the sheet, the bomb signs, the pool length): it bombs and bids dark as
    the bots of ``pref simulate`` do in-process.
    A game played until time ends by time only: with the ``creator``'s credential time is
    called once ``time_deals`` deals of the ordered pool have been dealt; without it the game
    goes on until the ordered end time, when the server calls time itself."""
    seats = [client.seat(name, t) for t in tokens]
    bots = [make_bot() for _ in seats]
    rules = game_rules(client.get_game(name))
    version = 0
    called = False
    while True:
        view = seats[0].view(min_version=version)
        if view.orderer >= 0:
            sheet = sheet_from_proto(view.sheet)  # public: the same in every seat's view
            pool, ends_at = order_choice(rules, clock(), sheet=sheet, seat=view.orderer)
            version = seats[view.orderer].order_game(pool, ends_at).version
            continue
        if (
            creator is not None
            and rules.play_until_time
            and not called
            and view.HasField("order")
            and view.deal_number - initial_deals(rules) >= time_deals
        ):
            version = client.call_time(name, creator.request_id, creator.secret).version
            called = True
            continue
        if view.actor < 0:
            game = client.get_game(name)
            if game.status == pb.GAME_STATUS_FINISHED:
                return game
            view = seats[0].view(min_version=game.version)
            if view.actor < 0:
                continue
        actor = view.actor
        actor_view = view if actor == 0 else seats[actor].view(min_version=version)
        version = bot_step(seats[actor], actor_view, bots[actor])
        if on_action is not None:
            on_action(version)


def decimal(value: str) -> str:
    """A settlement fraction (``"-160/3"``) as a signed decimal: ``-53.33``; whole: ``+20``."""
    fraction = Fraction(value)
    if fraction.denominator == 1:
        return f"{fraction.numerator:+d}"
    return f"{float(fraction):+.2f}"


def settlement_text(game: pb.Game, sheet: pb.Scoresheet) -> str:
    """Each player's result by name, in decimals: ``bot-0-0 +6.67, bot-0-1 +46.67, …``
    (by account when somebody took a seat over: the leaver's account keeps its name)."""
    if len(sheet.accounts) == len(sheet.settlement):
        names = [a.player_id for a in sheet.accounts]
    else:
        names = [p.player_id for p in game.players]
    names += [f"seat {s}" for s in range(len(names), len(sheet.settlement))]
    return ", ".join(
        f"{name} {decimal(value)}" for name, value in zip(names, sheet.settlement, strict=False)
    )


__all__ = ["Creator", "order_choice", "parse_action", "play_with_bots", "settlement_text"]
