"""Bounded caches of the service evict the least recently used entry, never all at once."""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import Any

from service.api import mapping

RESULT: dict[str, Any] = {
    "number": 1,
    "kind": "game",
    "declarer": 0,
    "contract": "6♠",
    "tricks": [6, 2, 2],
    "entry": {"pool": [2, 0, 0], "gora": [0, 0, 0], "whists": [[0, 0, 0]] * 3},
    "dealt": ["A♠ K♠", "7♥ 8♥", "9♦ T♦"],
    "talon": ["J♣", "Q♣"],
    "discard": "J♣ Q♣",
}


def test_a_finished_deal_in_use_stays_cached_while_others_come_and_go() -> None:
    game: Any = SimpleNamespace(deal_results=[RESULT])
    hot = uuid.uuid4()
    first = mapping._finished_deal(hot, 1, game)
    for _ in range(5000):  # more games than the cache holds; the hot one is used throughout
        assert mapping._finished_deal(hot, 1, game) is first
        mapping._finished_deal(uuid.uuid4(), 1, game)
    assert mapping._finished_deal(hot, 1, game) is first
