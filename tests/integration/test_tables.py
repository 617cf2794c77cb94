"""Tables and seats (issue 14 item 2; docs/TABLES.md), at the application, on both stores:
opening, joining, leaving, invitations, bots, the start of the game when every seat is taken,
request-id idempotency, races for the last seat, tokens of players who left, and a start that a
crash interrupted."""

from __future__ import annotations

import threading
import uuid

import pytest

from domain.model.table import NotTableCreator, TableRefused
from domain.model.terms import TimeControl, bot_player_id
from domain.rules import DEFAULT, RuleSet
from domain.rules.errors import InvalidAction
from projections import standard_runners
from projections.lobby import changes_after, list_tables
from service.app import tables
from service.app.application import GameNotFound, LeagueRulesDiffer, PreferansApplication
from service.app.audit import event_log, verify_game
from service.app.tables import Lobby, Seated, TableNotFound
from tests.integration.helpers import AppFactory, dump_tables

CLOCK = TimeControl(move_ms=30_000, on_timeout="default_move")


def open_table(lobby: Lobby, creator: str = "ann", **kwargs: object) -> uuid.UUID:
    opened = lobby.create_table(creator, f"open-{uuid.uuid4()}", DEFAULT, **kwargs)  # type: ignore[arg-type]
    return opened.table.id if isinstance(opened, Seated) else opened.id


def crash(*args: object, **kwargs: object) -> None:
    """``create_game`` in a process that dies before the game is created."""
    raise SystemExit("the process died before the game was created")


class _Reason:
    """``with _Reason("TABLE_FULL"):`` expects a ``TableRefused`` with that reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: object, tb: object) -> bool:
        assert isinstance(error, TableRefused), f"expected {self.reason}, got {error!r}"
        assert error.reason == self.reason, error.reason
        return True


def test_the_game_starts_when_every_seat_is_taken(app: PreferansApplication) -> None:
    lobby = Lobby(app)
    opened = lobby.create_table(
        "ann", "t1", DEFAULT, time_control=CLOCK, stake_per_whist=2, take_seat=True
    )
    assert isinstance(opened, Seated) and opened.seat == 0
    table_id = opened.table.id
    bob = lobby.join_table(table_id, "bob", "j1")
    assert bob.seat == 1 and lobby.get_table(table_id).state == "open"
    cid = lobby.join_table(table_id, "cid", "j1")  # request ids are the player's own
    table = lobby.get_table(table_id)
    assert table.state == "started"
    game = app.get_game(table.game_id)
    assert game.players == ["ann", "bob", "cid"]
    assert (game.time_control, game.stake_per_whist) == (CLOCK, 2)
    # Each join returned the seat token of that game, for that seat only.
    for seated, seat in ((opened, 0), (bob, 1), (cid, 2)):
        assert app.seat_of_token(table.game_id, seated.token) == seat
    with _Reason("TABLE_STARTED"):
        lobby.join_table(table_id, "dan", "j1")
    with _Reason("TABLE_STARTED"):
        lobby.leave_table(table_id, "bob", "l1")


def test_retries_have_no_second_effect(app: PreferansApplication) -> None:
    lobby = Lobby(app)
    first = lobby.create_table("ann", "same", DEFAULT)
    again = lobby.create_table("ann", "same", DEFAULT)
    assert not isinstance(first, Seated) and not isinstance(again, Seated)
    assert first.id == again.id
    assert lobby.create_table("bob", "same", DEFAULT).id != first.id  # type: ignore[union-attr]
    with pytest.raises(InvalidAction, match="other terms"):
        lobby.create_table("ann", "same", DEFAULT, stake_per_whist=5)
    one = lobby.join_table(first.id, "bob", "join")
    two = lobby.join_table(first.id, "bob", "join")
    assert one.seat == two.seat == 0 and lobby.get_table(first.id).version == 2
    lobby.leave_table(first.id, "bob", "leave")
    version = lobby.get_table(first.id).version
    lobby.leave_table(first.id, "bob", "leave")
    assert lobby.get_table(first.id).version == version
    inv = lobby.create_invitation(first.id, "ann", "inv")
    assert lobby.create_invitation(first.id, "ann", "inv").code == inv.code
    with pytest.raises(InvalidAction, match="different command"):
        lobby.close_table(first.id, "ann", "inv")


def test_a_leaver_keeps_no_working_token(app: PreferansApplication) -> None:
    lobby = Lobby(app)
    table_id = open_table(lobby)
    bob = lobby.join_table(table_id, "bob", "j")
    lobby.leave_table(table_id, "bob", "l")
    dan = lobby.join_table(table_id, "dan", "j")
    assert dan.seat == bob.seat
    lobby.join_table(table_id, "eve", "j")
    lobby.join_table(table_id, "fay", "j")
    table = lobby.get_table(table_id)
    assert table.state == "started"
    assert app.seat_of_token(table.game_id, bob.token) is None
    assert app.seat_of_token(table.game_id, dan.token) == dan.seat


def test_invitations_hold_a_seat_and_private_tables_need_one(app: PreferansApplication) -> None:
    lobby = Lobby(app)
    table_id = open_table(lobby, visibility="private")
    with _Reason("INVITATION_REQUIRED"):
        lobby.join_table(table_id, "bob", "j")
    with pytest.raises(NotTableCreator):
        lobby.create_invitation(table_id, "bob", "i")
    with pytest.raises(InvalidAction):
        lobby.create_invitation(table_id, "ann", "i", seat=3)  # seats 0 to 2
    with pytest.raises(InvalidAction):
        lobby.create_invitation(table_id, "ann", "i", seconds=-1)
    inv = lobby.create_invitation(table_id, "ann", "i", seat=2)
    stored = lobby.get_table(table_id)
    assert inv.code not in str(stored.invitations) and inv.seat == 2
    with pytest.raises(InvalidAction):
        lobby.join_table(table_id, "bob", "j", code="not a code")
    with _Reason("INVITATION_INVALID"):
        lobby.join_table(table_id, "bob", "j", code="A" * 43)
    assert lobby.join_table(table_id, "bob", "j2", code=inv.code).seat == 2
    with _Reason("INVITATION_INVALID"):
        lobby.join_table(table_id, "cid", "j", code=inv.code)  # good for one seat


def test_the_creator_of_a_private_table_sits_without_an_invitation(
    app: PreferansApplication,
) -> None:
    """Only the creator: opening a private table with ``take_seat``, or sitting down later."""
    lobby = Lobby(app)
    opened = lobby.create_table(
        "ann", "private-seat", DEFAULT, visibility="private", take_seat=True
    )
    assert isinstance(opened, Seated) and opened.seat == 0
    table_id = open_table(lobby, "dan", visibility="private")
    assert lobby.join_table(table_id, "dan", "sit").seat == 0
    with _Reason("INVITATION_REQUIRED"):
        lobby.join_table(table_id, "bob", "j")


def test_an_invitation_expires(app: PreferansApplication) -> None:
    now = [1_000_000.0]
    lobby = Lobby(app, clock=lambda: now[0])
    table_id = open_table(lobby)
    inv = lobby.create_invitation(table_id, "ann", "i", seconds=60)
    now[0] += 61
    with _Reason("INVITATION_INVALID"):
        lobby.join_table(table_id, "bob", "j", code=inv.code)


def test_bots_fill_the_empty_seats_on_the_creators_request(app: PreferansApplication) -> None:
    lobby = Lobby(app)
    table_id = open_table(lobby)
    with _Reason("NO_PLAYER_SEATED"):
        lobby.fill_with_bots(table_id, "ann", "f")
    lobby.join_table(table_id, "bob", "j")
    with pytest.raises(NotTableCreator):
        lobby.fill_with_bots(table_id, "bob", "f")
    table = lobby.fill_with_bots(table_id, "ann", "f")
    assert table.state == "started"
    game = app.get_game(table.game_id)
    assert game.players == ["bob", bot_player_id(1), bot_player_id(2)]
    assert game.bot_seats == [1, 2]


def test_close_and_bad_input(app: PreferansApplication) -> None:
    lobby = Lobby(app)
    table_id = open_table(lobby)
    with pytest.raises(NotTableCreator):
        lobby.close_table(table_id, "bob", "c")
    lobby.join_table(table_id, "cid", "j")
    lobby.close_table(table_id, "ann", "c")
    with _Reason("TABLE_CLOSED"):
        lobby.join_table(table_id, "bob", "j")
    with _Reason("TABLE_CLOSED"):  # no token for a game that will never be
        lobby.join_table(table_id, "cid", "again")
    with pytest.raises(TableNotFound):
        lobby.get_table(uuid.uuid4())
    for bad in ({"league": "a\u202eb"}, {"visibility": "secret"}, {"stake_per_whist": -1}):
        with pytest.raises(InvalidAction):
            lobby.create_table("ann", "bad", DEFAULT, **bad)
    with pytest.raises(InvalidAction):
        lobby.create_table("ann\x00", "bad", DEFAULT)
    with pytest.raises(InvalidAction):
        lobby.join_table(table_id, bot_player_id(1), "j")  # bots' ids are the server's
    with pytest.raises(InvalidAction):
        lobby.join_table(table_id, "bob", "r" * 500)


def test_four_seats_come_from_the_rule_set(app: PreferansApplication) -> None:
    lobby = Lobby(app)
    rules = RuleSet.from_dict({**DEFAULT.to_dict(), "players": 4})
    table = lobby.create_table("ann", "four", rules)
    assert not isinstance(table, Seated) and len(table.players) == 4


def test_twenty_racing_joins_for_the_last_seat(open_app: AppFactory) -> None:
    """Two application objects on one store (two replicas): the in-process lock does not
    serialise them, the store's version check does."""
    replicas = [open_app(), open_app()]
    lobbies = [Lobby(r) for r in replicas]
    table_id = open_table(lobbies[0], take_seat=True)
    lobbies[0].join_table(table_id, "bob", "j")
    lobbies[1].get_table(table_id)  # both replicas hold the table in memory
    barrier = threading.Barrier(20)
    won: list[int] = []
    full: list[str] = []
    errors: list[BaseException] = []

    def join(i: int) -> None:
        barrier.wait()
        try:
            lobbies[i % 2].join_table(table_id, f"p{i}", "race")
            won.append(i)
        except TableRefused as exc:
            full.append(exc.reason)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=join, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(won) == 1
    assert set(full) <= {"TABLE_FULL", "TABLE_STARTED"} and len(full) == 19
    table = lobbies[0].get_table(table_id)
    assert table.state == "started"
    assert replicas[1].get_game(table.game_id).players[2] == f"p{won[0]}"


def test_a_start_interrupted_by_a_crash_is_finished_later(
    app: PreferansApplication, open_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    lobby = Lobby(app)
    table_id = open_table(lobby)
    lobby.join_table(table_id, "bob", "j")
    lobby.join_table(table_id, "cid", "j")

    monkeypatch.setattr(app, "create_game", crash)
    with pytest.raises(SystemExit):
        lobby.join_table(table_id, "dan", "j")
    restarted = Lobby(open_app())
    table = restarted.get_table(table_id)  # any later read finishes the start
    assert table.state == "started"
    assert restarted.app.get_game(table.game_id).players == ["bob", "cid", "dan"]
    assert table.game_id == lobby.game_id_for(table_id)
    assert restarted.sweep([table_id]) == 0


def test_the_sweep_finishes_starts_a_crash_interrupted(
    app: PreferansApplication, open_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    lobby = Lobby(app)
    table_id = open_table(lobby, take_seat=True)
    lobby.join_table(table_id, "bob", "j")

    monkeypatch.setattr(app, "create_game", crash)
    with pytest.raises(SystemExit):
        lobby.join_table(table_id, "cid", "j")
    restarted = Lobby(open_app())
    runner = standard_runners(restarted.app, restarted.app.db, ("lobby",))["lobby"]
    while runner.run_once():
        pass
    assert restarted.sweep_pending() == 1
    table = restarted.app._load_any(table_id, fresh=True)
    assert table.state == "started"
    restarted.app.get_game(table.game_id)
    while runner.run_once():
        pass
    assert restarted.sweep_pending() == 0


def test_the_lobby_read_model(app: PreferansApplication) -> None:
    lobby = Lobby(app)
    runner = standard_runners(app, app.db, ("lobby",))["lobby"]
    public = open_table(lobby, league="club")
    private = open_table(lobby, visibility="private")
    full = open_table(lobby)
    for p in ("bob", "cid", "dan"):
        lobby.join_table(full, p, "j")
    while runner.run_once():
        pass
    listed = list_tables(app.db)
    assert [r["table_id"] for r in listed] == [str(public)]
    assert listed[0]["empty"] == 3 and listed[0]["system"] == DEFAULT.name
    assert list_tables(app.db, league="other") == []
    assert list_tables(app.db, seats=4) == []
    changes = changes_after(app.db, 0)
    assert {r["table_id"] for r in changes} == {str(public), str(private), str(full)}
    assert changes[-1]["state"] == "started"
    last = changes[-1]["seq"]
    lobby.close_table(public, "ann", "c")
    while runner.run_once():
        pass
    after = changes_after(app.db, last)
    assert [(r["table_id"], r["state"]) for r in after] == [(str(public), "closed")]


def test_the_lobby_rebuilt_equals_the_live_one(app: PreferansApplication) -> None:
    """Positions are the log's, not a count of the runner's batches: a rebuild in one batch
    gives every row the same position as the live read model built one event at a time."""
    lobby = Lobby(app)
    runner = standard_runners(app, app.db, ("lobby",), batch=1)["lobby"]
    first = open_table(lobby, take_seat=True)
    second = open_table(lobby, visibility="private")
    lobby.join_table(first, "bob", "j")
    lobby.create_invitation(second, "ann", "i")
    lobby.leave_table(first, "bob", "l")
    lobby.close_table(second, "ann", "c")
    while runner.run_once():
        pass
    live = dump_tables(app.db, ("lobby_tables",))
    standard_runners(app, app.db, ("lobby",), batch=1000)["lobby"].rebuild()
    assert dump_tables(app.db, ("lobby_tables",)) == live


def test_a_retry_after_a_restart_is_still_answered_once(
    app: PreferansApplication, open_app: AppFactory
) -> None:
    """The table remembers requests in its event bodies: a table read back from the store
    answers a retry as the live one did."""
    lobby = Lobby(app)
    table_id = open_table(lobby)
    lobby.join_table(table_id, "bob", "j")
    lobby.leave_table(table_id, "bob", "l")
    lobby.create_invitation(table_id, "ann", "i", seat=1)
    restarted = Lobby(open_app())
    version = restarted.get_table(table_id).version
    restarted.leave_table(table_id, "bob", "l")
    assert restarted.create_invitation(table_id, "ann", "i", seat=1).seat == 1
    assert restarted.get_table(table_id).version == version
    with pytest.raises(InvalidAction, match="different command"):
        restarted.fill_with_bots(table_id, "ann", "i")


def test_a_table_is_no_game_to_audit(app: PreferansApplication) -> None:
    table_id = open_table(Lobby(app))
    with pytest.raises(GameNotFound):
        verify_game(app, table_id)
    with pytest.raises(GameNotFound):
        event_log(app, table_id, 0, 10)
    with pytest.raises(GameNotFound):
        app.get_game(table_id)


def test_a_league_table_plays_the_leagues_rules(app: PreferansApplication) -> None:
    lenient = RuleSet.from_dict({**DEFAULT.to_dict(), "pool_target": 10})
    app.create_game(["a", "b", "c"], "league-first", rules=lenient, league="club")
    before = app.recorder.max_notification_id()
    with pytest.raises(LeagueRulesDiffer):
        Lobby(app).create_table("ann", "t", DEFAULT, league="club")
    assert app.recorder.max_notification_id() == before
    table = Lobby(app).create_table("ann", "t", lenient, league="club")
    assert not isinstance(table, Seated) and table.league == "club"


def test_a_player_has_a_bounded_number_of_open_tables(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables, "MAX_OPEN_TABLES", 2)
    lobby = Lobby(app)
    runner = standard_runners(app, app.db, ("lobby",))["lobby"]
    first = open_table(lobby)
    open_table(lobby)
    while runner.run_once():
        pass
    before = app.recorder.max_notification_id()
    with _Reason("TOO_MANY_TABLES"):
        open_table(lobby)
    assert app.recorder.max_notification_id() == before
    open_table(lobby, creator="bob")  # another player's count
    lobby.close_table(first, "ann", "c")
    while runner.run_once():
        pass
    open_table(lobby)


def test_a_leave_whose_revocation_was_lost_is_revoked_at_the_start(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    lobby = Lobby(app)
    table_id = open_table(lobby)
    bob = lobby.join_table(table_id, "bob", "j")
    revoke = app.revocations.revoke
    monkeypatch.setattr(app.revocations, "revoke", crash)
    with pytest.raises(SystemExit):  # SeatLeft recorded, the process died before revoking
        lobby.leave_table(table_id, "bob", "l")
    monkeypatch.setattr(app.revocations, "revoke", revoke)
    for player in ("cid", "dan", "eve"):
        lobby.join_table(table_id, player, "j")
    table = lobby.get_table(table_id)
    assert table.state == "started" and "bob" not in table.players
    assert app.seat_of_token(table.game_id, bob.token) is None
