"""Simulated leagues (``pref simulate``): bots play whole games through the application.

Every game is created with ``PreferansApplication.create_game`` (with the league tag) and every
decision goes through ``act``, exactly as a client's would, so the log of a simulated league is
an ordinary log: the statistics projection cannot tell it from real play.
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import Callable, Sequence

from domain.bots import Bot, make_bot, order_choice
from domain.rules import DEFAULT, RuleSet, actor, awaiting_order, game_orderer
from domain.rules.game import game_seat_view
from domain.rules.start import initial_deals
from service.app.application import ORDER_MINUTES, PreferansApplication

DEFAULT_PLAYERS = ("ann", "bob", "cid", "dan", "eve")
"""The player ids of a simulated league unless others are given (enough for five seats)."""

TIME_DEALS = 6
"""Deals of the ordered pool a simulated game played until time lasts before its creator
calls time."""


def play_game(
    app: PreferansApplication,
    game_id: uuid.UUID,
    prefix: str,
    on_action: Callable[[], None] | None = None,
    *,
    creator_secret: str = "",
    time_deals: int = TIME_DEALS,
) -> int:
    """Play a game to its end with a bot in every seat (each sees only its own seat's view);
    return the game's final version.

    Classic: a game waiting for its order is ordered by its orderer's bot (the pool length,
    ``domain.bots.order_choice``) and, until time, an end time ``ORDER_MINUTES`` after the
    application's clock (a bot has no clock); each bot sees the public game context (the
    sheet, the bomb signs) that a bomb or a dark bid weighs. A game played until
    time is ended by its creator calling time (``prefix`` is the creation's request id and
    ``creator_secret`` its secret) once ``time_deals`` deals of the pool have been dealt."""
    bots: list[Bot] = []
    while True:
        game = app.get_game(game_id)
        bots = bots or [make_bot() for _ in range(game.rule_set.players)]
        if game.finished:
            return game.version
        state = game.state
        if awaiting_order(state):
            rules = state.rules
            ends_at = int(app.clock()) + ORDER_MINUTES * 60 if rules.ending_by_time else 0
            seat = game_orderer(state)
            pool = order_choice(rules, state.sheet, seat)
            app.order_game(game_id, seat, pool, ends_at, f"{prefix}-order")
            continue
        if (
            state.rules.play_until_time
            and not state.time_called
            and state.deal_number - initial_deals(state.rules) >= time_deals
        ):
            app.call_time(game_id, prefix, creator_secret, f"{prefix}-time")
            continue
        deal = game.deal
        assert deal is not None
        seat = actor(deal)
        action = bots[seat](game_seat_view(state, seat))
        app.act(game_id, seat, action, request_id=f"{prefix}-{game.version}")
        if on_action is not None:
            on_action()


def simulate(
    app: PreferansApplication,
    games: int,
    league: str = "",
    players: Sequence[str] = DEFAULT_PLAYERS,
    rules: RuleSet = DEFAULT,
    seed: str | None = None,
    on_action: Callable[[], None] | None = None,
    on_game: Callable[[uuid.UUID], None] | None = None,
    time_deals: int = TIME_DEALS,
) -> list[uuid.UUID]:
    """Play ``games`` whole games of the league; each game seats ``rules.players`` of
    ``players`` drawn at random (reproducibly with ``seed``). Return the games' ids in the order
    played. A game played until time (Classic) lasts ``time_deals`` deals of its pool, then time
    is called."""
    seats = rules.players
    pool = list(dict.fromkeys(players))
    if len(pool) < seats:
        raise ValueError(f"a league of {seats}-seat games needs at least {seats} different players")
    rng = random.Random(seed)
    run = uuid.uuid4().hex[:12]
    played = []
    for number in range(games):
        seated = rng.sample(pool, seats)
        request = f"simulate-{run}-{number}"
        secret = secrets.token_hex(16)
        created = app.create_game(
            seated, request, rules=rules, league=league, creator_secret=secret
        )
        play_game(
            app,
            created.game_id,
            request,
            on_action,
            creator_secret=secret,
            time_deals=time_deals,
        )
        played.append(created.game_id)
        if on_game is not None:
            on_game(created.game_id)
    return played
