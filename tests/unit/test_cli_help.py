"""Every ``pref`` option and argument has help text (issue 9, item 13)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator

import pytest

from service.cli import build_parser


def _parsers(
    parser: argparse.ArgumentParser, path: str = "pref"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def test_every_option_has_help() -> None:
    missing = [
        f"{path} {'/'.join(action.option_strings) or action.dest}"
        for path, parser in _parsers(build_parser())
        for action in parser._actions
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
        and not (action.help and action.help.strip())
    ]
    assert missing == []


def test_every_command_has_help() -> None:
    for _path, parser in _parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                helped = {choice.dest for choice in action._choices_actions if choice.help}
                assert helped == set(action.choices), sorted(set(action.choices) - helped)


def test_a_leaderboard_order_is_one_of_its_columns(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    assert parser.parse_args(["stats", "--order-by", "games"]).order_by == "games"
    assert parser.parse_args(["stats"]).order_by == "rating"
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(["stats", "--order-by", "luck"])
    assert exited.value.code == 2
    assert "cannot order by 'luck'; one of: rating" in capsys.readouterr().err


def test_the_parser_does_not_load_the_read_models() -> None:
    """``pref`` starts fast: building its parser imports no projection module (they load
    psycopg and the statistics code) until a command that reads them runs."""
    code = (
        "import sys; from service.cli import build_parser; build_parser(); "
        "print(any(m.startswith('projections.stats') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
