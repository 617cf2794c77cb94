"""The event-sourced model: the ``Game`` aggregate and the codecs of its events."""

from domain.model.game import EVENT_PREFIX, Game, RequestReused, game_id_for

__all__ = ["EVENT_PREFIX", "Game", "RequestReused", "game_id_for"]
