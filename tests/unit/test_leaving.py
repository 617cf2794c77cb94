"""Who plays a seat after a replacement, and when agreements adjourn or resume a game
(``domain.model.leaving``)."""

from __future__ import annotations

from domain.model.leaving import agreement, bot_seats_after, persons
from domain.model.terms import bot_player_id


def test_the_bot_seats_after_a_replacement() -> None:
    assert bot_seats_after([2], 0, bot_player_id(0)) == [0, 2]  # resigned: the bot plays on
    assert bot_seats_after([0, 2], 0, "dan") == [2]  # a person took the bot's seat
    assert bot_seats_after([2], 1, "dan") == [2]
    assert bot_seats_after([2], 1, bot_player_id(0)) == [2]  # not that seat's bot


def test_agreements_of_every_person_adjourn_and_resume() -> None:
    people = persons(3, [2])
    assert people == {0, 1}
    assert agreement({0}, False, people) == ({0}, False)
    assert agreement({0, 1}, False, people) == (set(), True)
    assert agreement({0, 1}, True, people) == (set(), False)
    assert agreement(set(), False, people) == (set(), False)


def test_a_game_without_persons_is_never_adjourned() -> None:
    assert agreement(set(), True, persons(3, [0, 1, 2])) == (set(), False)


def test_only_the_first_child_process_runs_the_keeper() -> None:
    import argparse

    from service.cli.supervise import child_args

    args = argparse.Namespace(no_projections=False, no_keeper=False, metrics_port=None)
    assert [child_args(args, i).no_keeper for i in range(3)] == [False, True, True]
    args.no_keeper = True
    assert child_args(args, 0).no_keeper
