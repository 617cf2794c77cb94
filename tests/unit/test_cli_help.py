"""Every ``pref`` option and argument has help text (issue 9, item 13)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

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
