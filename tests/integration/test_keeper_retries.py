"""What the keeper tries again (docs/CLOCKS.md "The keeper"): the start-up sweep, when the store
or read model is not ready at start (else games waiting for a deadline with no further event
would never be looked at), and a time-out that failed after maybe being recorded (else a
forfeit's revocation lost after the save would never be made)."""

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


def test_a_forfeit_whose_revocation_failed_is_revoked_by_the_keepers_retry(
    app: PreferansApplication,
) -> None:
    from tests.integration.test_keeper import Clock

    secret = "k" * 32
    created = app.create_game(
        ["ann", "bob", "cid"],
        "keeper-revoke",
        creator_secret=secret,
        time_control=TimeControl(move_ms=1000, on_timeout="forfeit"),
    )
    game_id = created.game_id
    game = app.get_game(game_id)
    assert game.clock is not None and game.deadline_ms is not None
    seat = game.clock.actor
    clock = Clock(game.deadline_ms / 1000 + 1)
    keeper = Keeper(app, clock=clock)
    revocations = app.revocations
    real = revocations.revoke

    def crash(*args: Any, **kwargs: Any) -> int:
        raise ConnectionError("the key store is down")

    revocations.revoke = crash  # type: ignore[method-assign]
    try:
        keeper.watch(game_id)
        keeper.run_once()  # the forfeit is saved; its revocation fails
    finally:
        revocations.revoke = real  # type: ignore[method-assign]
    assert app.seat_of_token(game_id, created.tokens[seat]) == seat
    clock.now += 60
    keeper.run_once()
    assert app.seat_of_token(game_id, created.tokens[seat]) is None
