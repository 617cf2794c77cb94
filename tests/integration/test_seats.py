"""A game's seats are its rule set's ``players`` (RULES.md §3.6; issue 13), through the
application on both stores: one seat token per seat, seat numbers checked against the table,
revocation of every seat, the creation retried with the creator's secret."""

from __future__ import annotations

import uuid

import pytest

from domain.rules import DEFAULT
from domain.rules.errors import InvalidAction
from service.app.application import PreferansApplication

NAMES = ["ann", "bob", "cid", "dan", "eve"]
SECRET = "a-creator-secret-of-the-seats-test"


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_game_has_a_seat_token_for_each_of_its_seats(
    app: PreferansApplication, players: int
) -> None:
    rules = DEFAULT.with_options(players=players)
    request_id = f"seats-{uuid.uuid4()}"
    created = app.create_game(NAMES[:players], request_id, rules=rules, creator_secret=SECRET)
    assert len(created.tokens) == players
    assert [app.seat_of_token(created.game_id, t) for t in created.tokens] == list(range(players))
    game = app.get_game(created.game_id)
    assert game.players == NAMES[:players] and game.rule_set.players == players
    assert game.state.dealer in range(players)
    # A retry with the creator's secret: the same game, a fresh token for every seat.
    again = app.create_game(NAMES[:players], request_id, rules=rules, creator_secret=SECRET)
    assert again.game_id == created.game_id and len(again.tokens) == players
    assert [app.seat_of_token(created.game_id, t) for t in again.tokens] == list(range(players))
    # Every seat's tokens are revoked by default, the fresh ones too.
    app.revoke_tokens(created.game_id)
    assert all(app.seat_of_token(created.game_id, t) is None for t in again.tokens)


def test_the_players_given_must_fill_the_tables_seats(app: PreferansApplication) -> None:
    four = DEFAULT.with_options(players=4)
    for given in (NAMES[:3], NAMES[:5]):
        with pytest.raises(InvalidAction, match="needs 4 players") as refused:
            app.create_game(given, f"r-{uuid.uuid4()}", rules=four)
        assert refused.value.field == "players"
    with pytest.raises(InvalidAction, match="the 4 players must be different"):
        app.create_game(["ann", "bob", "cid", "ann"], f"r-{uuid.uuid4()}", rules=four)
    with pytest.raises(InvalidAction, match="needs 3 players"):
        app.create_game(NAMES[:4], f"r-{uuid.uuid4()}")  # the default table has three


def test_seat_numbers_are_the_tables(app: PreferansApplication) -> None:
    """Seat 3 is a seat of a four-seat game, not of a three-seat one; seat 4 of neither."""
    four = DEFAULT.with_options(players=4)
    request_id = f"seats-{uuid.uuid4()}"
    created = app.create_game(NAMES[:4], request_id, rules=four, creator_secret=SECRET)
    game_id = created.game_id
    with pytest.raises(InvalidAction, match=r"seats are 0, 1, 2 and 3"):
        app.replace_player(game_id, 4, "fay", request_id, SECRET, "r1")
    with pytest.raises(InvalidAction, match=r"seats are 0, 1, 2 and 3"):
        app.revoke_tokens(game_id, [4])
    with pytest.raises(InvalidAction, match="no table has a seat 9"):
        app.replace_player(game_id, 9, "fay", request_id, SECRET, "r1")
    result, token = app.replace_player(game_id, 3, "fay", request_id, SECRET, "r2")
    assert not result.replayed and app.seat_of_token(game_id, token) == 3
    assert app.seat_of_token(game_id, created.tokens[3]) is None
    assert app.seat_of_token(game_id, created.tokens[2]) == 2

    three = app.create_game(NAMES[:3], f"seats-{uuid.uuid4()}", creator_secret=SECRET)
    with pytest.raises(InvalidAction, match=r"seats are 0, 1 and 2"):
        app.revoke_tokens(three.game_id, [3])
