"""Games followed through the events a projection sees, in the pure rules core.

A projection receives events in log order; folding each into its game's ``GameState`` (the rules
core only, no aggregate bookkeeping) keeps an exact copy of every game's state, so a view
derived from the rules core (a seat view) costs one rules step per event. After a restart
mid-game the cache is cold: the game is then loaded once from the store at the version just
before the event. The cache is bounded and evicts the least recently used game (never all of
them at once: a hot game stays while cold ones come and go).
"""

from __future__ import annotations

from typing import Any, Protocol
from uuid import UUID

from cachetools import LRUCache

from domain.model.replay import advance
from domain.rules import GameState


class GameLoader(Protocol):
    def __call__(self, game_id: UUID, version: int) -> GameState: ...


class GameCache:
    def __init__(self, load: GameLoader | None, maxsize: int = 5000) -> None:
        self._load = load
        self._games: LRUCache[UUID, tuple[int, GameState]] = LRUCache(maxsize=max(maxsize, 1))
        self.maxsize = maxsize

    def advance(self, event: Any) -> GameState:
        """The game after ``event``."""
        game_id = event.originator_id
        version = event.originator_version
        cached = self._games.get(game_id)
        state: GameState | None
        if version == 1:
            state = None
        elif cached is not None and cached[0] == version - 1:
            state = cached[1]
        elif self._load is not None:
            state = self._load(game_id, version - 1)
        else:
            raise LookupError(f"game {game_id} is not cached at version {version - 1}")
        state = advance(state, event)
        self._games[game_id] = (version, state)
        return state

    def clear(self) -> None:
        self._games.clear()
