"""The scale-out options of ``pref serve`` and ``pref migrate`` (docs/SCALING.md) are checked
before anything starts: a bad value is a usage error (exit 2), never a traceback."""

from __future__ import annotations

import pytest

from service.cli.operate import cmd_serve
from service.cli.parser import build_parser


@pytest.mark.parametrize("value", ["0", "65", "-2", "two", ""])
def test_bad_process_counts_are_usage_errors(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", "--processes", value])
    assert exited.value.code == 2
    assert "--processes" in capsys.readouterr().err


def test_process_count_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREF_PROCESSES", "3")
    assert build_parser().parse_args(["serve"]).processes == 3
    assert build_parser().parse_args(["serve", "--processes", "2"]).processes == 2
    monkeypatch.setenv("PREF_PROCESSES", "lots")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve"])


def test_defaults_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREF_PROCESSES", raising=False)
    args = build_parser().parse_args(["serve"])
    assert args.processes == 1 and args.shards is None
    assert build_parser().parse_args(["migrate"]).shards is None
    assert build_parser().parse_args(["migrate", "--shards", "8"]).shards == 8


def test_processes_need_a_fixed_port(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["serve", "--processes", "2", "--port", "0"])
    assert cmd_serve(args) == 2
    assert "fixed --port" in capsys.readouterr().err
