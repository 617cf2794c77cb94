"""Who plays a seat after a replacement, and when agreements adjourn or resume a game
(``domain.model.leaving``)."""

from __future__ import annotations

from domain.model.leaving import agreement, bot_seats_after, persons
from domain.model.terms import bot_player_id, fresh_bot_id, is_bot_of


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


def test_a_seat_that_goes_to_the_bot_again_gets_a_fresh_bot_account() -> None:
    """docs/CLOCKS.md "Resignation": one account per player of the sheet, so a seat's second
    bot is ``bot:seat<N>.2``; only the seat's own bot ids make it a bot seat."""
    assert fresh_bot_id(1, ["ann", "bob", "cid"]) == "bot:seat1"
    assert fresh_bot_id(1, ["ann", "bob", "cid", "bot:seat1", "dan"]) == "bot:seat1.2"
    assert fresh_bot_id(1, ["bot:seat1", "bot:seat1.2"]) == "bot:seat1.3"
    assert is_bot_of("bot:seat1", 1) and is_bot_of("bot:seat1.2", 1)
    for other in ("bot:seat2", "bot:seat1.", "bot:seat1.1", "bot:seat1.02", "bot:seat1.x", "dan"):
        assert not is_bot_of(other, 1), other
    assert bot_seats_after([], 1, "bot:seat1.2") == [1]
    assert bot_seats_after([1], 1, "dan") == []
