"""``--players N`` (issue 13): where the command line creates games (``pref demo``, ``bots``,
``play``, ``simulate``) it chooses the number of seats, the rule option ``players`` (RULES.md
§3.6), through the same validated path as ``CreateGame``. (Bots and the terminal table at four
and five seats are tested with them, ``domain.bots``.)"""

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
@pytest.mark.parametrize("seats", [4, 5])
def test_players_chooses_a_table_of_four_or_five(command: str, seats: int) -> None:
    """§3.6: the dealer sits on the talon (and with five, the previous dealer sits out)."""
    rules = rules_from_args(_args(command, "--players", str(seats), "--pool", "10"))
    assert rules == DEFAULT.with_options(players=seats, pool_target=10)
    same = rules_from_args(_args(command, "--option", f"players={seats}", "--pool", "10"))
    assert same == rules


@pytest.mark.parametrize("command", ["demo", "bots", "play"])
def test_players_and_the_players_option_must_agree(command: str) -> None:
    with pytest.raises(InvalidAction, match="--players 3 and --option players=4 disagree"):
        rules_from_args(_args(command, "--players", "3", "--option", "players=4"))


@pytest.mark.parametrize("value", ["1", "6", "0"])
def test_a_seat_count_outside_the_rules_is_refused_naming_the_option(value: str) -> None:
    """§3.6: tables of 2 ("гусарик", with a dummy), 3, 4 and 5."""
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
    five = _args("simulate", "--players", "5")
    assert rules_from_args(five).players == 5 and five.player_ids is None


def test_a_simulated_league_needs_a_player_for_every_seat() -> None:
    """``pref simulate --players 4`` seats four of the ids in each game: three ids are too few
    (refused before anything is played)."""
    from service.app.simulate import simulate

    four = DEFAULT.with_options(players=4)
    with pytest.raises(ValueError, match="4-seat games needs at least 4 different players"):
        simulate(None, 1, players=["ann", "bob", "cid", "ann"], rules=four)  # type: ignore[arg-type]
