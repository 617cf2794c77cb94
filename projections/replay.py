"""Games reconstructed from the events a projection sees, without re-reading the store.

A projection receives events in log order; applying each to the game it belongs to (the
aggregate's own ``mutate``) keeps an exact copy of every game's state, so a view derived from
the rules core (a seat view) costs one state step per event. After a restart mid-game the cache
is cold: the game is then loaded once from the store at the version just before the event.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Protocol
from uuid import UUID

from domain.model import Game


class GameLoader(Protocol):
    def __call__(self, game_id: UUID, version: int) -> Game: ...


class GameCache:
    def __init__(self, load: GameLoader | None, maxsize: int = 5000) -> None:
        self._load = load
        self._games: OrderedDict[UUID, Game] = OrderedDict()
        self.maxsize = maxsize

    def advance(self, event: Any) -> Game:
        """The game after ``event``."""
        game_id = event.originator_id
        version = event.originator_version
        game = self._games.pop(game_id, None)
        if version == 1:
            game = event.mutate(None)
        else:
            if game is None or game.version != version - 1:
                if self._load is None:
                    raise LookupError(f"game {game_id} is not cached at version {version - 1}")
                game = self._load(game_id, version - 1)
            game = event.mutate(game)
        assert isinstance(game, Game)
        self._games[game_id] = game
        if len(self._games) > self.maxsize:
            self._games.popitem(last=False)
        return game

    def clear(self) -> None:
        self._games.clear()
