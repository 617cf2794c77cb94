"""The event-sourced model: the ``Game`` aggregate, its events, and their replay."""

from domain.model.decisions import EVENT_PREFIX, action_of, event_name
from domain.model.game import Game, RequestReused, game_id_for
from domain.model.league import League, league_id_for
from domain.model.replay import advance

__all__ = [
    "EVENT_PREFIX",
    "Game",
    "League",
    "RequestReused",
    "action_of",
    "advance",
    "event_name",
    "game_id_for",
    "league_id_for",
]
