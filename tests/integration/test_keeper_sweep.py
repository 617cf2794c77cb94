"""The keeper's start-up sweep (docs/CLOCKS.md "The keeper"): a store or read model not ready
at start is swept again, with backoff, until the sweep succeeds; else games waiting for a
deadline with no further event would never be looked at."""

from __future__ import annotations

import time
from typing import Any

import pytest

from domain.model.terms import TimeControl
from projections import standard_runners
from projections.queries import list_games
from service.app import keeper as keeper_module
from service.app.application import PreferansApplication
from service.app.keeper import Keeper
from tests.integration.helpers import create


def test_a_failed_start_sweep_is_tried_again(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = create(app, time_control=TimeControl(move_ms=1000)).game_id
    for runner in standard_runners(app, app.db).values():
        runner.catch_up()
    assert [r["game_id"] for r in list_games(app.db, status="playing")] == [str(game_id)]
    real = list_games
    calls = {"n": 0}

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConnectionError("the store is not up yet")
        return real(*args, **kwargs)

    monkeypatch.setattr(keeper_module, "list_games", flaky)
    monkeypatch.setattr(keeper_module, "IDLE_SECONDS", 0.05)
    keeper = Keeper(app)
    keeper.start()
    try:
        time.sleep(1.5)
        assert game_id in keeper.followed or calls["n"] > 1, (
            "the sweep failed once and was never tried again: the game's deadline is never "
            "enforced until someone acts"
        )
    finally:
        keeper.stop()
