"""``--system``, ``--option`` and ``--pool`` (issue 11 item 4): the command line chooses a
game's conventions through the same validated path as ``CreateGame``."""

from __future__ import annotations

import pytest

from domain.rules import DEFAULT
from domain.rules.errors import InvalidAction
from domain.rules.systems import RULE_SETS
from service.cli import main
from service.cli.parser import build_parser
from service.cli.rules import rules_from_args


def _rules(*argv: str):  # type: ignore[no-untyped-def]
    args = build_parser().parse_args(["demo", *argv])
    return rules_from_args(args)


def test_no_options_is_the_default_rule_set() -> None:
    assert _rules() == DEFAULT


@pytest.mark.parametrize("system", sorted(RULE_SETS))
def test_every_named_system_is_selectable(system: str) -> None:
    assert _rules("--system", system) == RULE_SETS[system]


def test_options_and_pool_override_the_system() -> None:
    rules = _rules(
        "--option", "raspasy_amnesty=true", "--option", "raspasy_trick_prices=[1, 2, 3]",
        "--pool", "10",
    )  # fmt: skip
    assert rules == DEFAULT.with_options(
        raspasy_amnesty=True, raspasy_trick_prices=(1, 2, 3), pool_target=10
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("foo=1", "unknown rule options: foo"),
        ("raspasy_amnesty=yes", "the value is not JSON"),
        ("raspasy_amnesty", "must be NAME=VALUE"),
        ("pool_target=0", "pool_target"),
        ('contract_values={"6": 2}', "contract_values"),
        ('name="sochi"', "not renamed by an option"),
    ],
)
def test_bad_options_are_refused_naming_the_option(option: str, message: str) -> None:
    with pytest.raises(InvalidAction, match=message):
        _rules("--option", option)


def test_an_unknown_system_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["demo", "--system", "moscow-nights"])
    assert exit_.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_demo_refuses_a_bad_option_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--quiet", "--option", 'bidding="leap"']) == 1
    err = capsys.readouterr().err
    assert err.startswith("pref: rule option bidding") and err.count("\n") == 1


def test_demo_plays_under_the_chosen_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--quiet", "--seed", "x", "--pool", "4"]) == 0
    assert "every pool is closed" in capsys.readouterr().out


def test_demo_says_how_the_system_ends_its_game(capsys: pytest.CaptureFixture[str]) -> None:
    """Leningrad ends by the sum of pools (TV-38), not when every pool is closed."""
    assert main(["demo", "--quiet", "--seed", "x", "--system", "leningrad", "--pool", "4"]) == 0
    assert "the pools reached their agreed sum (4 a player)" in capsys.readouterr().out
