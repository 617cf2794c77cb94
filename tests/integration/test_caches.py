"""Bounded caches evict the least recently used entry, never everything at once."""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

from domain.model.replay import advance
from domain.rules import GameState
from projections.replay import GameCache
from service.application import PreferansApplication
from tests.integration.helpers import create, play


def _fold(events: list[Any]) -> GameState:
    state: GameState | None = None
    for event in events:
        state = advance(state, event)
    assert state is not None
    return state


def test_a_hot_game_is_not_reloaded_when_other_games_come_and_go(
    app: PreferansApplication,
) -> None:
    """Three games interleaved through a cache of two: one game has most events, the two
    others take turns. An LRU keeps the hot game; clearing the whole cache when it was full
    reloaded the hot game after every turn of a cold game."""
    streams = []
    for _ in range(3):
        game_id = create(app).game_id
        play(app, game_id, stop=lambda game: game.version >= 40)
        streams.append(app.game_events(game_id))
    hot, cold = streams[0], [iter(streams[1]), iter(streams[2])]
    order: list[Any] = []
    for index, event in enumerate(hot):
        order.append(event)
        if index % 4 == 3:  # a cold game's turn, alternating between the two
            order.append(next(cold[(index // 4) % 2]))
    by_id = {stream[0].originator_id: stream for stream in streams}
    loads: Counter[uuid.UUID] = Counter()

    def load(game_id: uuid.UUID, version: int) -> GameState:
        loads[game_id] += 1
        return _fold(by_id[game_id][:version])

    cache = GameCache(load, maxsize=2)
    for event in order:
        state = cache.advance(event)
        assert state == _fold(by_id[event.originator_id][: event.originator_version])
    cold_turns = len(order) - len(hot)
    assert loads[hot[0].originator_id] == 0
    # Each cold turn after the first of each cold game reloads that game (the other cold one
    # took its place), and nothing more.
    assert sum(loads.values()) == cold_turns - 2
