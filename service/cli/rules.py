"""``--system``, ``--option`` and ``--pool``: how the command line chooses a game's conventions.

The same path as the API's ``CreateGame`` (``service.app.rule_options.rule_set_with``): a named
system (docs/SYSTEMS.md) with some options overridden, every value validated by the options'
JSON Schema and the rule set's own checks before anything is played or recorded.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from domain.rules import RuleSet
from domain.rules.errors import InvalidAction
from domain.rules.systems import RULE_SETS

MAX_OPTION_LENGTH = 512
"""The longest ``--option NAME=VALUE`` accepted (the longest option fits in far less)."""


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--system``, ``--option`` (repeatable) and ``--pool`` to a command."""
    parser.add_argument(
        "--system",
        default="default",
        choices=sorted(RULE_SETS),
        help="the named rule system (docs/SYSTEMS.md; default: default)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="change one rule option, e.g. --option raspasy_amnesty=true (repeatable)",
    )
    parser.add_argument("--pool", type=int, default=0, help="pool target (default: the system's)")


def _override(item: str) -> tuple[str, Any]:
    if len(item) > MAX_OPTION_LENGTH:
        raise InvalidAction(f"--option is longer than {MAX_OPTION_LENGTH} characters", "--option")
    name, sep, text = item.partition("=")
    if not sep or not name.strip():
        raise InvalidAction("--option must be NAME=VALUE (VALUE in JSON)", field="--option")
    try:
        value = json.loads(text)
    except ValueError:
        raise InvalidAction(
            f"--option {name.strip():.40}: the value is not JSON (e.g. true, 2, [1, 2])",
            field="--option",
        ) from None
    return name.strip(), value


def rules_from_args(args: argparse.Namespace) -> RuleSet:
    """The rule set the command line asks for (``InvalidAction`` naming the bad option)."""
    from service.app.rule_options import rule_set_with  # jsonschema: only when a game starts

    overrides = dict(_override(item) for item in args.option)
    return rule_set_with(args.system, overrides, args.pool)
