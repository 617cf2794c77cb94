"""The command line answers mistakes with one line and a non-zero exit, never a traceback
(issue 9, item 13): usage errors exit 2 (argparse), a server or store that cannot be used exits
1; ``pref export`` and ``pref replay`` take the ``games/<id>`` form the CLI prints."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from domain.rules import RuleSet
from service.app.application import PreferansApplication
from service.cli import main as pref
from tests.integration.helpers import create, play, store_argument


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "--order-by", "foo"],
        ["stats", "export", "--formats", "xlsx"],
        ["stats", "export", "--formats", "csv,xlsx"],
        ["export", "x", "--format", "pdf"],
        ["projections", "rebuild", "games", "seat_views"],
        ["projections", "run", "scoresheet"],
    ],
    ids=[
        "order-by",
        "formats",
        "one unknown format",
        "export format",
        "a removed read model",
        "run a removed read model",
    ],
)
def test_usage_errors_exit_2_without_a_traceback(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with pytest.raises(SystemExit) as exited:
        pref([*argv, "--store", str(tmp_path / "s.sqlite")])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error:" in err


def test_bots_with_the_server_down(capsys: pytest.CaptureFixture[str]) -> None:
    assert pref(["bots", "--server", f"127.0.0.1:{_free_port()}"]) == 1
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("pref: cannot reach the server")


@pytest.mark.parametrize("command", ["serve", "migrate"])
def test_a_store_that_cannot_be_opened(command: str, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    argv = [sys.executable, "-m", "service.cli", command, "--store", str(blocker / "x.sqlite")]
    if command == "serve":
        argv += ["--port", str(_free_port())]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    line = _one_line(done.stderr)
    assert line.startswith("pref: the store cannot be used"), line


def test_export_and_replay_take_the_games_form(
    app: PreferansApplication,
    store_env: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    created = create(app, RuleSet(pool_target=2))
    play(app, created.game_id)
    store = store_argument(store_env)
    name = f"games/{created.game_id}"
    out = tmp_path / "record.json"
    assert pref(["export", name, "--store", store, "--out", str(out)]) == 0
    assert str(created.game_id) in out.read_text(encoding="utf-8")
    assert pref(["replay", name, "--deal", "1", "--store", store]) == 0
    capsys.readouterr()
    for command in ("export", "replay", "audit", "keys revoke"):
        with pytest.raises(SystemExit) as exited:  # a usage error, before the store is opened
            pref([*command.split(), "games/not-a-uuid", "--store", store])
        assert exited.value.code == 2, command
        err = capsys.readouterr().err
        assert "'games/not-a-uuid' is not a game id" in err and "Traceback" not in err, command


def test_audit_of_a_store_that_cannot_be_opened_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    game = "games/00000000-0000-0000-0000-000000000001"
    assert pref(["audit", game, "--store", str(blocker / "x.sqlite")]) == 2
    assert "the store cannot be used" in capsys.readouterr().err
