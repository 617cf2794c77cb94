"""Hand records of stored games (SQLite and PostgreSQL): export → import → verify round trips
of whole bot games, one-deal exports, the text form, and the referee's replay frames."""

from __future__ import annotations

import random
import uuid
from pathlib import Path

import pytest
from rich.console import Console

from domain.handrecord import parse_record, verify_record
from domain.rules import RuleSet
from service.app.application import GameNotFound, PreferansApplication
from service.app.config import sqlite_store
from service.app.handrecord import export_game_record, game_record, import_record
from service.cli import main
from service.cli.replay import frames
from tests.integration.helpers import create, play, random_policy


def test_a_whole_bot_game_round_trips_and_verifies(app: PreferansApplication) -> None:
    game_id = create(app, RuleSet(pool_target=10)).game_id
    play(app, game_id)
    text = export_game_record(app, game_id, None, "json")
    rec, verdict = import_record(text)
    assert verdict.consistent, verdict.message
    game = app.get_game(game_id)
    assert rec["game_id"] == str(game_id)
    assert rec["players"] == list(game.players)
    assert rec["complete"] and rec["seed"] == game.seed_hex
    assert rec["settlement"] == game.settlement
    assert len(rec["deals"]) == verdict.deals == game.state.deal_number
    assert verdict.actions == sum(len(d["actions"]) for d in rec["deals"])
    # Every deal alone verifies too, and the text form shows it.
    for number in (1, verdict.deals):
        one, alone = import_record(export_game_record(app, game_id, number, "json"))
        assert alone.consistent, alone.message
        assert [d["number"] for d in one["deals"]] == [number]
        assert f"[Deal {number}]" in export_game_record(app, game_id, number, "text")


def test_a_game_with_rare_paths_round_trips(app: PreferansApplication) -> None:
    game_id = create(app, RuleSet(pool_target=6)).game_id
    play(app, game_id, random_policy(random.Random(7), bot_share=0.3))
    rec = game_record(app, game_id)
    verdict = verify_record(parse_record(export_game_record(app, game_id, None, "json")))
    assert verdict.consistent, verdict.message
    assert rec["complete"]


def test_an_unfinished_game_exports_its_finished_deals(app: PreferansApplication) -> None:
    game_id = create(app, RuleSet(pool_target=10)).game_id
    play(app, game_id, stop=lambda g: g.state.deal_number >= 3)
    rec, verdict = import_record(export_game_record(app, game_id, None, "json"))
    assert verdict.consistent, verdict.message
    assert [d["number"] for d in rec["deals"]] == [1, 2]
    assert not rec["complete"] and rec["seed"] is None
    with pytest.raises(ValueError, match="no finished deal 3"):
        export_game_record(app, game_id, 3, "text")
    with pytest.raises(ValueError, match="unknown hand-record format"):
        export_game_record(app, game_id, None, "pbn")
    with pytest.raises(GameNotFound):
        export_game_record(app, uuid.uuid4(), None, "json")


def test_replay_frames_of_a_stored_deal(app: PreferansApplication) -> None:
    game_id = create(app, RuleSet(pool_target=10)).game_id
    play(app, game_id, stop=lambda g: g.state.deal_number >= 2)
    rec = game_record(app, game_id, 1)
    shown = list(frames(rec))
    assert len(shown) == len(rec["deals"][0]["actions"]) + 2
    console = Console(record=True, width=120, color_system=None)
    console.print(shown[0])
    screen = console.export_text()
    assert "Deal 1 dealt by" in screen
    for player in rec["players"]:
        assert player in screen


def test_pref_export_import_and_replay_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI on a SQLite file: export to a file, import it, replay one deal."""
    store = str(tmp_path / "cli.sqlite")
    application = PreferansApplication(sqlite_store(store).env)
    try:
        game_id = create(application, RuleSet(pool_target=6)).game_id
        play(application, game_id)
    finally:
        application.close()
    out = tmp_path / "game.json"
    assert main(["export", str(game_id), "--store", store, "--out", str(out)]) == 0
    assert main(["import", str(out)]) == 0
    assert "consistent:" in capsys.readouterr().out
    assert main(["export", str(game_id), "--deal", "1", "--format", "text", "--store", store]) == 0
    assert "[Deal 1]" in capsys.readouterr().out
    assert main(["replay", str(game_id), "--deal", "1", "--store", store]) == 0
    assert "Deal 1 dealt by" in capsys.readouterr().out
    assert main(["export", str(game_id), "--deal", "999", "--store", store]) == 1
