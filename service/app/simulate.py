"""Simulated leagues (``pref simulate``): bots play whole games through the application.

Every game is created with ``PreferansApplication.create_game`` (with the league tag) and every
decision goes through ``act``, exactly as a client's would, so the log of a simulated league is
an ordinary log: the statistics projection cannot tell it from real play.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Sequence

from domain.bots import make_bot
from domain.rules import DEFAULT, RuleSet, actor, seat_view
from service.app.application import PreferansApplication

DEFAULT_PLAYERS = ("ann", "bob", "cid", "dan", "eve")
"""The player ids of a simulated league unless others are given."""

SEATS = 3


def play_game(
    app: PreferansApplication,
    game_id: uuid.UUID,
    prefix: str,
    on_action: Callable[[], None] | None = None,
) -> int:
    """Play a game to its end with a bot in every seat (each sees only its own seat's view);
    return the game's final version."""
    bots = [make_bot() for _ in range(SEATS)]
    while True:
        game = app.get_game(game_id)
        if game.finished:
            return game.version
        deal = game.deal
        assert deal is not None
        seat = actor(deal)
        action = bots[seat](seat_view(deal, seat))
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
) -> list[uuid.UUID]:
    """Play ``games`` whole games of the league; each game seats three of ``players`` drawn
    at random (reproducibly with ``seed``). Return the games' ids in the order played."""
    pool = list(dict.fromkeys(players))
    if len(pool) < SEATS:
        raise ValueError(f"a league needs at least {SEATS} different players")
    rng = random.Random(seed)
    run = uuid.uuid4().hex[:12]
    played = []
    for number in range(games):
        seated = rng.sample(pool, SEATS)
        request = f"simulate-{run}-{number}"
        created = app.create_game(seated, request, rules=rules, league=league)
        play_game(app, created.game_id, request, on_action)
        played.append(created.game_id)
        if on_game is not None:
            on_game(created.game_id)
    return played
