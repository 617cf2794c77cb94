"""Bots filling the seats of a game through the API (``pref bots``): demos, load, simulation."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from domain.bots import make_bot
from domain.rules import Action, parse_action
from service.cli.viewstate import view_from_proto
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb


def bot_step(seat: SeatClient, view: pb.SeatView, policy: Callable[..., Action]) -> int:
    """If it is this seat's turn, decide with the bot and send the action; return the version."""
    action = policy(view_from_proto(view))
    return seat.act(action).version


def play_with_bots(
    client: GameClient,
    name: str,
    tokens: Sequence[str],
    *,
    on_action: Callable[[int], None] | None = None,
) -> pb.Game:
    """Play the game to its end with a bot in every seat (each sees only its own view)."""
    seats = [client.seat(name, t) for t in tokens]
    bots = [make_bot() for _ in seats]
    version = 0
    while True:
        view = seats[0].view(min_version=version)
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


__all__ = ["parse_action", "play_with_bots"]
