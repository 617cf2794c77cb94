"""``pref play``'s saved games (``service.cli.playstore``): the seat tokens a person needs to
resume a game are kept readable by that person only, and refused if others may read them; and
the table's own commands at the prompt (``service.cli.playinput.parse_command``)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from service.cli import playstore
from service.cli.playinput import Command, parse_command


def _saved(game: str = "games/abc") -> playstore.SavedGame:
    return playstore.SavedGame(
        server="127.0.0.1:1",
        game=game,
        seat=1,
        tokens=["t0", "t1", "t2"],
        names=["bot-A", "ann", "bot-C"],
        pool_target=10,
        creator={"request_id": "r", "secret": "s"},
    )


def test_a_saved_game_is_readable_by_its_owner_only_and_loads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREF_HOME", str(tmp_path / "home"))
    before = os.umask(0o022)  # a usual umask: new files readable by all
    try:
        path = playstore.save(_saved())
    finally:
        os.umask(before)
    assert path == tmp_path / "home" / "games" / "abc.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    loaded = playstore.load("abc")
    assert loaded == _saved() and playstore.load("games/abc") == loaded
    assert loaded.creator_credential() is not None


def test_an_older_file_open_to_others_is_closed_when_saved_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREF_HOME", str(tmp_path))
    path = playstore.save(_saved())
    path.chmod(0o644)
    with pytest.raises(playstore.SavedGameError, match="chmod 600"):
        playstore.load("abc")
    playstore.save(_saved())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert playstore.load("abc").seat == 1


def test_a_missing_or_malformed_saved_game_is_refused_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREF_HOME", str(tmp_path))
    with pytest.raises(playstore.SavedGameError, match="no saved game nope"):
        playstore.load("nope")
    path = playstore.save(_saved("games/bad"))
    path.write_text('{"server": 1}', encoding="utf-8")
    with pytest.raises(playstore.SavedGameError, match="is not a saved game"):
        playstore.load("bad")


def test_without_pref_home_games_are_kept_under_the_xdg_data_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PREF_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert playstore.games_dir() == tmp_path / "pref" / "games"


def _command(text: str) -> Command:
    command = parse_command(text)
    assert command is not None, text
    return command


def test_the_tables_commands_at_the_prompt() -> None:
    assert _command("?") == _command(" help ") == _command("H") == Command("help")
    assert _command("sheet").kind == "sheet"
    assert _command("u") == _command("UNDO") == Command("undo")
    flag = _command("flag 3  the   count is wrong")
    assert (flag.deal, flag.reason, flag.error) == (3, "the count is wrong", "")
    assert _command("flag three").error and _command("flag 3").error
    for action in ("1", "6s", "pass", "claim 3-0-0", "q", ""):
        assert parse_command(action) is None
