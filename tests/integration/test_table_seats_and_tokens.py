"""The lobby: seat tokens of leavers, unstartable tables, racing joins, invitation request ids."""

from __future__ import annotations

import time
import uuid
from typing import Any, cast

import pytest

from domain.model.table import TableRefused
from domain.rules import DEFAULT, DealState, RuleSet, actor
from service.app.application import LeagueRulesDiffer, PreferansApplication, StoreUnavailable
from service.app.tables import Lobby, Seated


def _started(lobby: Lobby) -> tuple[uuid.UUID, uuid.UUID, dict[str, Seated]]:
    opened = lobby.create_table("ann", "t", DEFAULT, take_seat=True)
    assert isinstance(opened, Seated)
    seated = {"ann": opened}
    for p in ("bob", "cid"):
        seated[p] = lobby.join_table(opened.table.id, p, "j")
    table = lobby.get_table(opened.table.id)
    assert table.state == "started"
    return table.id, table.game_id, seated


def test_a_resigned_player_is_refused_a_token_by_join_table(app: PreferansApplication) -> None:
    """After ResignGame the seat is the server bot's: JoinTable refuses the leaver NOT_SEATED
    (it used to mint him a fresh token, issued after the resignation's revocation)."""
    lobby = Lobby(app)
    table_id, game_id, seated = _started(lobby)
    app.resign(game_id, seated["bob"].seat, "resign-1")
    assert app.get_game(game_id).players[seated["bob"].seat] == "bot:seat1"
    assert app.seat_of_token(game_id, seated["bob"].token) is None
    later = Lobby(app, clock=lambda: time.time() + 1)  # a moment later (not the same ms)
    with pytest.raises(TableRefused) as refused:
        later.join_table(table_id, "bob", "j-again")
    assert refused.value.reason == "NOT_SEATED"


def test_a_resigned_creator_is_refused_a_token_by_a_create_table_retry(
    app: PreferansApplication,
) -> None:
    lobby = Lobby(app)
    _, game_id, _ = _started(lobby)
    app.resign(game_id, 0, "resign-1")
    later = Lobby(app, clock=lambda: time.time() + 1)
    with pytest.raises(TableRefused) as refused:
        later.create_table("ann", "t", DEFAULT, take_seat=True)
    assert refused.value.reason == "NOT_SEATED"


def test_a_seated_players_tokens_are_issued_when_he_took_the_seat(
    app: PreferansApplication,
) -> None:
    """A token JoinTable mints for a seated player on a replica whose clock is ahead is still
    issued at the seat's taking: the resignation that follows revokes it."""
    lobby = Lobby(app)
    table_id, game_id, _ = _started(lobby)
    seat = actor(cast(DealState, app.get_game(game_id).state.deal))
    leaver = app.get_game(game_id).players[seat]
    ahead = Lobby(app, clock=lambda: time.time() + 60)
    token = ahead.join_table(table_id, leaver, "j-again").token
    assert app.seat_of_token(game_id, token) == seat  # he still sits there: it works
    app.resign(game_id, seat, "resign-1")
    assert app.seat_of_token(game_id, token) is None, f"{leaver} resigned, yet acts for {seat}"


def _poisoned(app: PreferansApplication) -> uuid.UUID:
    """A full, open table whose game can never be created: two tables of a new league with
    other rules both pass CreateTable's league check; the first to fill fixes the league's
    rules, so the second's ``create_game`` raises LeagueRulesDiffer at its last join."""
    lenient = RuleSet.from_dict({**DEFAULT.to_dict(), "pool_target": 10})
    lobby = Lobby(app)
    first = lobby.create_table("ann", "t1", lenient, league="club")
    second = lobby.create_table("zed", "t2", DEFAULT, league="club")
    assert not isinstance(first, Seated) and not isinstance(second, Seated)
    for p in ("a1", "a2", "a3"):
        lobby.join_table(first.id, p, "j")
    assert lobby.get_table(first.id).state == "started"  # the league now plays `lenient`
    lobby.join_table(second.id, "b1", "j")
    lobby.join_table(second.id, "b2", "j")
    return second.id


def test_the_join_that_would_fill_an_unstartable_table_is_refused_before_recording(
    app: PreferansApplication,
) -> None:
    table_id = _poisoned(app)
    before = app.recorder.max_notification_id()
    with pytest.raises(LeagueRulesDiffer):
        Lobby(app).join_table(table_id, "b3", "j")
    assert app.recorder.max_notification_id() == before
    assert Lobby(app).get_table(table_id).state == "open"


def test_a_table_whose_game_cannot_be_created_can_still_be_closed(
    app: PreferansApplication,
) -> None:
    table_id = _poisoned(app)
    lobby = Lobby(app)
    with pytest.raises(LeagueRulesDiffer):
        lobby.join_table(table_id, "b3", "j")
    lobby.close_table(table_id, "zed", "close")
    assert lobby.get_table(table_id).state == "closed"


def test_a_full_table_whose_game_can_never_be_created_is_closed_with_the_reason(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The league check of the filling join passed (the other table of the league filled at
    the same moment, on another replica): the start closes the table, and the join is
    refused TABLE_CLOSED."""
    table_id = _poisoned(app)
    lobby = Lobby(app)
    monkeypatch.setattr(lobby, "_check_league", lambda league, rules: None)
    with pytest.raises(TableRefused) as refused:
        lobby.join_table(table_id, "b3", "j")
    assert refused.value.reason == "TABLE_CLOSED"
    table = Lobby(app).get_table(table_id)
    assert table.state == "closed" and table.closed_reason == "LEAGUE_RULES_DIFFER"


def _crashed_before_its_game(
    lobby: Lobby, creator: str, monkeypatch: pytest.MonkeyPatch
) -> uuid.UUID:
    """A full, open table: the process died between its last seat and its game."""
    table = lobby.create_table(creator, "t", DEFAULT)
    assert not isinstance(table, Seated)
    lobby.join_table(table.id, f"{creator}1", "j")
    lobby.join_table(table.id, f"{creator}2", "j")

    def crash(*args: object, **kwargs: object) -> None:
        raise SystemExit("died before the game was created")

    with monkeypatch.context() as m:
        m.setattr(lobby.app, "create_game", crash)
        with pytest.raises(SystemExit):
            lobby.join_table(table.id, f"{creator}3", "j")
    return table.id


def test_one_table_that_fails_to_start_does_not_stop_the_sweep_for_the_others(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    lobby = Lobby(app)
    failing = _crashed_before_its_game(lobby, "cy", monkeypatch)
    other = _crashed_before_its_game(lobby, "dee", monkeypatch)
    failing_game = lobby.game_id_for(failing)
    real = app.create_game

    def store_down_for_one(players: list[str], **kwargs: Any) -> Any:
        if kwargs["request_id"] == lobby.game_request(failing)[0]:
            raise StoreUnavailable("the store is down for this one")
        return real(players, **kwargs)

    monkeypatch.setattr(app, "create_game", store_down_for_one)
    assert lobby.sweep([failing, other]) == 1
    assert app._load_any(other, fresh=True).state == "started"
    assert lobby._load(failing, fresh=True).state == "open"  # the next sweep retries it
    monkeypatch.undo()
    assert lobby.sweep([failing, other]) == 1
    assert lobby._load(failing, fresh=True).game_id == failing_game


def test_a_join_racing_the_same_players_leave_mints_no_token_that_outlives_the_leave(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seated player's JoinTable reads the table without its lock and mints a token 'now';
    if his LeaveTable (another call, another replica) lands in between, the token is issued
    after ``left_ms`` and so survives the leave's revocation: it then acts for whoever takes
    the seat next."""
    ticks = iter(range(10**9))
    lobby = Lobby(app, clock=lambda: 1.8e9 + next(ticks))  # every reading a second later
    table_id = open_table_id = lobby.create_table("ann", "t", DEFAULT).id  # type: ignore[union-attr]
    bob = lobby.join_table(table_id, "bob", "j")
    other_replica = Lobby(app, clock=lambda: 1.8e9 + next(ticks))
    load = lobby._load

    def load_then_leave(table_id: uuid.UUID, fresh: bool = False):  # type: ignore[no-untyped-def]
        table = load(table_id, fresh)
        if table.seat_of("bob") is not None and not fresh:
            other_replica.leave_table(table_id, "bob", "l")  # lands meanwhile
        return table

    monkeypatch.setattr(lobby, "_load", load_then_leave)
    stale = lobby.join_table(table_id, "bob", "j2")  # 'you already sit here': a fresh token
    monkeypatch.undo()
    for p in ("dan", "eve", "fay"):
        other_replica.join_table(open_table_id, p, "j")
    table = other_replica.get_table(table_id)
    assert table.state == "started" and "bob" not in table.players
    assert app.seat_of_token(table.game_id, bob.token) is None  # revoked: fine
    holder = table.players[stale.seat]
    assert app.seat_of_token(table.game_id, stale.token) is None, (
        f"bob left, yet his token acts for seat {stale.seat}, now {holder}'s"
    )


def test_a_leave_on_a_replica_whose_clock_is_behind_still_revokes_the_leavers_token(
    app: PreferansApplication,
) -> None:
    """``left_ms`` is the leaving replica's clock, the join's token the joining replica's: with
    replica X's clock a few seconds ahead of Y's, a player who joined through X and left
    through Y keeps a working token for the seat (issued after ``left_ms``)."""
    x = Lobby(app, clock=lambda: time.time() + 5)  # five seconds ahead
    y = Lobby(app)
    table_id = y.create_table("ann", "t", DEFAULT).id  # type: ignore[union-attr]
    bob = x.join_table(table_id, "bob", "j")
    y.leave_table(table_id, "bob", "l")
    for p in ("dan", "eve", "fay"):
        y.join_table(table_id, p, "j")
    table = y.get_table(table_id)
    assert table.state == "started" and "bob" not in table.players
    holder = table.players[bob.seat]
    assert app.seat_of_token(table.game_id, bob.token) is None, (
        f"bob left, yet his token acts for seat {bob.seat}, now {holder}'s"
    )


def test_two_joins_of_one_player_both_get_his_seat(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """table.proto: 'A caller already seated gets a fresh token for their seat.' A second
    JoinTable (another request id: a client retrying after a lost answer, on another replica)
    that read the table just before the first one landed is refused ALREADY_SEATED instead, a
    reason neither table.proto nor docs/TABLES.md lists."""
    lobby = Lobby(app)
    table_id = lobby.create_table("ann", "t", DEFAULT).id  # type: ignore[union-attr]
    other_replica = Lobby(app)
    load = lobby._load
    calls: list[int] = []

    def load_after_the_other(table_id: uuid.UUID, fresh: bool = False):  # type: ignore[no-untyped-def]
        table = load(table_id, fresh)
        if not calls:
            calls.append(1)
            other_replica.join_table(table_id, "bob", "first")  # lands meanwhile
        return table

    monkeypatch.setattr(lobby, "_load", load_after_the_other)
    second = lobby.join_table(table_id, "bob", "second")
    assert second.seat == 0


def test_a_request_id_reused_for_an_invitation_to_another_seat_is_refused(
    app: PreferansApplication,
) -> None:
    """The invitation's fingerprint is only "invite": the same request id asking for another
    seat silently answers with the first invitation (seat 1), where GameService refuses a
    request id reused with other parameters (INVALID_ARGUMENT)."""
    from domain.model import RequestReused

    lobby = Lobby(app)
    table_id = lobby.create_table("ann", "t", DEFAULT, take_seat=True).table.id  # type: ignore[union-attr]
    first = lobby.create_invitation(table_id, "ann", "inv", seat=1)
    assert first.seat == 1
    with pytest.raises(RequestReused):
        lobby.create_invitation(table_id, "ann", "inv", seat=2)
