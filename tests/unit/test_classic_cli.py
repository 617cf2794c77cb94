"""``pref demo`` and ``pref simulate`` under Classic (issue 12; S000 "КЛАССИКА": bomb rounds,
then the largest gora "заказывает игру … до 50 очков в пулю до 23 часов", and "Игра ведется
не до закрытия пули, а по времени"): the command line orders the game (the table's pool and an
end time an hour ahead: its own choice, the bots do not order) and ends it by time after
``--deals`` deals of the ordered pool."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from domain.rules.start import initial_deals
from domain.rules.systems import CLASSIC
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.config import sqlite_store
from service.app.simulate import simulate
from service.cli import main
from service.cli.botplay import order_choice
from tests.integration.helpers import topic

BOMB_ROUNDS = initial_deals(CLASSIC)


def test_order_choice_is_the_agreed_pool_and_an_hour_ahead() -> None:
    assert order_choice(CLASSIC, 1_000.4) == (CLASSIC.pool_target, 1_000 + 3600)
    untimed = CLASSIC.with_options(play_until_time=False, ending_by_time=False)
    assert order_choice(untimed, 1_000.0) == (CLASSIC.pool_target, 0)


def test_demo_classic_bomb_rounds_then_the_order_then_time_after_the_deals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--seed", "x", "--system", "classic", "--deals", "3"]) == 0
    out = capsys.readouterr().out
    assert f"{BOMB_ROUNDS + 3} deals, finished: time was called" in out
    assert re.search(r"[ABC] ordered: pool to 20, until \d{4}-\d\d-\d\d \d\d:\d\d UTC", out)
    for level in ("single", "double", "triple"):
        assert f"{level} bomb (A B C): raspasy" in out  # the initial bomb rounds
    assert "results sum to 0" in out


def test_demo_deals_only_end_games_played_until_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Other systems end as before (every pool closed), whatever ``--deals`` says."""
    assert main(["demo", "--quiet", "--seed", "x", "--pool", "4", "--deals", "1"]) == 0
    assert "finished: every pool is closed" in capsys.readouterr().out


def test_demo_refuses_a_negative_number_of_deals(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["demo", "--system", "classic", "--deals", "-1"])
    assert "from 0 to 10000" in capsys.readouterr().err


def test_simulate_classic_orders_and_its_creator_calls_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "league.sqlite")
    argv = ["simulate", "--store", store, "--system", "classic", "--games", "2"]
    assert main([*argv, "--league", "classic", "--deals", "2", "--seed", "s"]) == 0
    assert "2 games played in league 'classic'" in capsys.readouterr().out
    app = PreferansApplication(sqlite_store(store).env)
    try:
        with app.db.reading() as c:
            c.execute("SELECT game_id, status, deal_number FROM games")
            rows = c.fetchall()
        assert len(rows) == 2
        for game_id, status, deal_number in rows:
            assert status == "finished" and deal_number == BOMB_ROUNDS + 2
            game = app.get_game(uuid.UUID(str(game_id)))
            assert game.state.order is not None and game.state.time_called
    finally:
        app.close()
    # The referee's tools read the Classic game: replay (the initial bomb deals start in
    # play, every seat a bomber), audit and the text hand record with the order.
    game_id = str(rows[0][0])
    capsys.readouterr()
    assert main(["replay", game_id, "--store", store]) == 0
    out = capsys.readouterr().out
    assert "Classic   bomb of level 1 (A B C)" in out and "not looked: " in out
    assert main(["audit", game_id, "--store", store]) == 0
    assert f"{BOMB_ROUNDS + 2} deals, game finished" in capsys.readouterr().out
    assert main(["export", game_id, "--store", store, "--format", "text"]) == 0
    assert re.search(r'\[Order "[ABC]: pool to 20, until ', capsys.readouterr().out)


def test_simulated_classic_games_are_ordered_timed_and_verify(tmp_path: Path) -> None:
    app = PreferansApplication(sqlite_store(str(tmp_path / "sim.sqlite")).env)
    try:
        ids = simulate(app, 2, "classic", ["ann", "bob", "cid"], CLASSIC, seed="a", time_deals=2)
        for game_id in ids:
            game = app.get_game(game_id)
            assert game.finished and game.state.time_called
            order = game.state.order
            assert order is not None and order.pool == CLASSIC.pool_target
            assert order.ends_at > app.clock()  # an hour ahead: time was called, not reached
            assert game.state.deal_number == BOMB_ROUNDS + 2
            names = [topic(e) for e in app.game_events(game_id)]
            assert names.count("GameOrdered") == 1 and names.count("TimeCalled") == 1
            assert names.index("GameOrdered") < names.index("TimeCalled")
            report = verify_game(app, game_id)
            assert report.verified, report.summary
    finally:
        app.close()
