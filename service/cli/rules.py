"""``--system``, ``--option``, ``--pool`` and ``--players``: how the command line chooses a game's
conventions.

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
SEATS_HELP = (
    "seats at the table, 2 to 5 (RULES.md §3.6; 2: with a dummy; the rule option players: "
    "the same as --option players=N; default: the system's, 3)"
)


def seats_arg(text: str) -> int:
    """``--players N``: a number of seats (the rule set's schema checks the range)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seats: {text[:40]!r}") from None


def add_rules_options(parser: argparse.ArgumentParser, *, players: bool = True) -> None:
    """Add ``--system``, ``--option`` (repeatable), ``--pool`` and, with ``players``,
    ``--players N`` to a command (``pref simulate`` reads its own ``--players``)."""
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
    if players:
        parser.add_argument("--players", type=seats_arg, default=None, metavar="N", help=SEATS_HELP)


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
    seats = getattr(args, "players", None)
    # --players N is the rule option ``players``.
    if isinstance(seats, int) and overrides.setdefault("players", seats) != seats:
        raise InvalidAction(
            f"--players {seats} and --option players={overrides['players']} disagree",
            field="--players",
        )
    return rule_set_with(args.system, overrides, args.pool)
