"""``--players N`` (issue 13): where the command line creates games (``pref demo``, ``bots``,
``play``, ``simulate``) it chooses the number of seats, the rule option ``players`` (RULES.md
§3.6), through the same validated path as ``CreateGame``."""

from __future__ import annotations

import argparse

import pytest

from domain.rules import DEFAULT
from domain.rules.errors import InvalidAction
from service.cli.parser import build_parser
from service.cli.rules import rules_from_args


def _args(command: str, *argv: str) -> argparse.Namespace:
    return build_parser().parse_args([command, *argv])


@pytest.mark.parametrize("command", ["demo", "bots", "play"])
def test_three_players_is_the_default_and_the_same_as_saying_so(command: str) -> None:
    assert _args(command).players is None
    assert rules_from_args(_args(command)) == DEFAULT
    assert rules_from_args(_args(command, "--players", "3")) == DEFAULT
    assert rules_from_args(_args(command, "--players", "3", "--option", "players=3")) == DEFAULT


@pytest.mark.parametrize("command", ["demo", "bots", "play"])
def test_players_and_the_players_option_must_agree(command: str) -> None:
    with pytest.raises(InvalidAction, match="--players 3 and --option players=4 disagree"):
        rules_from_args(_args(command, "--players", "3", "--option", "players=4"))


@pytest.mark.parametrize("value", ["2", "6", "0"])
def test_a_seat_count_outside_the_rules_is_refused_naming_the_option(value: str) -> None:
    """§3.6: tables of 3, 4 and 5 (two-handed "Гусарик" is not played here yet)."""
    with pytest.raises(InvalidAction, match="players"):
        rules_from_args(_args("bots", "--players", value))


def test_players_must_be_a_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        _args("bots", "--players", "four")
    assert exit_.value.code == 2
    assert "not a number of seats" in capsys.readouterr().err


def test_simulate_reads_a_number_as_seats_and_a_list_as_player_ids() -> None:
    """``pref simulate --players a,b,c`` kept its meaning (the ids a league draws from)."""
    assert _args("simulate", "--players", "3").players == 3
    assert _args("simulate", "--players", "ann,bob,cid,dan").players == ["ann", "bob", "cid", "dan"]
    ids = _args("simulate", "--players", "3", "--player-ids", "ann, bob,cid")
    assert (ids.players, ids.player_ids) == (3, ["ann", "bob", "cid"])
    assert rules_from_args(ids) == DEFAULT


def test_play_refuses_a_seat_the_table_does_not_have() -> None:
    from service.cli.play import play_game

    with pytest.raises(InvalidAction, match="seat 3 is not at a table of 3"):
        play_game(None, seat=3, rules=DEFAULT, read=input, console=None)  # type: ignore[arg-type]


def test_a_ruling_on_the_command_line_has_a_row_per_seat_of_the_game() -> None:
    """``pref rule``: one --gora value and one --whists row per seat, each row the whists on the
    other seats clockwise from the writer; the rules core checks the count against the game."""
    from service.cli.referee import _adjustment

    three = _adjustment("0,2,-2", "1,0;0,3;0,0")
    assert three == {"gora": [0, 2, -2], "whists": [[0, 1, 0], [3, 0, 0], [0, 0, 0]]}
    four = _adjustment(None, "1,2,3;0,0,0;0,0,0;4,0,0")
    assert four == {
        "gora": [0, 0, 0, 0],
        "whists": [[0, 1, 2, 3], [0, 0, 0, 0], [0, 0, 0, 0], [4, 0, 0, 0]],
    }
    with pytest.raises(ValueError, match="--whists needs 4 rows"):
        _adjustment("0,0,0,0", "1,0;0,0;0,0")
    with pytest.raises(ValueError, match="on the 3 other seats"):
        _adjustment(None, "1,0;0,0;0,0;0,0")
