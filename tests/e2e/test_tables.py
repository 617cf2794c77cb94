"""The lobby over real gRPC, on both stores (issue 14 items 2 and 6; docs/TABLES.md): players
proven by JWTs of the development issuer (``pref serve --dev-auth``) open, list, join and
watch tables; the last seat starts the game and each join's token plays its seat; 20 racing
joins for the last seat give it to exactly one; refusals are typed."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

import grpc
import pytest

from domain.rules import parse_action
from service.api import table_servicer
from service.api.limits import Limits
from service.api.mapping import action_to_proto
from service.app.config import StoreConfig
from service.gen.preferans.v1 import (
    game_pb2,
    ledger_pb2,
    ledger_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)
from tests.e2e.conftest import LOBBY_KEY, ServerFactory, ServerThread, auth, with_dev_auth
from tests.e2e.helpers import refused


class Lobby:
    """A WatchTables stream read in a background thread, every read with a timeout."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.queue: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            for message in self.stream:
                self.queue.put(message)
        except grpc.RpcError as error:
            self.queue.put(error)

    def next(self) -> table_pb2.WatchTablesResponse:
        item = self.queue.get(timeout=20)
        assert isinstance(item, table_pb2.WatchTablesResponse), item
        return item

    def cancel(self) -> None:
        self.stream.cancel()


def listed(stub: Any, **filters: Any) -> list[str]:
    """Table names ListTables gives, once the lobby read model has caught up."""
    names: list[str] = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        names = [t.name for t in stub.ListTables(table_pb2.ListTablesRequest(**filters)).tables]
        if names:
            return names
        time.sleep(0.05)
    return names


def test_three_players_start_a_game_from_the_lobby(lobby: Any) -> None:
    tables, games = lobby
    opened = tables.CreateTable(
        table_pb2.CreateTableRequest(request_id="t", take_seat=True), metadata=auth("ann")
    )
    name = opened.table.name
    assert opened.seat == 0 and opened.seat_token
    assert listed(tables) == [name]
    assert listed(tables, free_seat_only=True, seats=3) == [name]
    bob = tables.JoinTable(
        table_pb2.JoinTableRequest(name=name, request_id="j"), metadata=auth("bob")
    )
    cid = tables.JoinTable(
        table_pb2.JoinTableRequest(name=name, request_id="j"), metadata=auth("cid")
    )
    assert cid.table.state == table_pb2.TABLE_STATE_STARTED
    assert list(cid.table.player_ids) == ["ann", "bob", "cid"]
    game = cid.table.game
    for token, seat in ((opened.seat_token, 0), (bob.seat_token, 1), (cid.seat_token, 2)):
        joined = games.JoinGame(
            game_pb2.JoinGameRequest(name=game), metadata=[("authorization", f"Bearer {token}")]
        )
        assert joined.seat == seat
    again = refused(
        tables.JoinTable,
        table_pb2.JoinTableRequest(name=name, request_id="j"),
        metadata=auth("dan"),
    )
    assert again.code == grpc.StatusCode.FAILED_PRECONDITION
    assert again.error_info is not None and again.error_info.reason == "TABLE_STARTED"
    left = refused(
        tables.LeaveTable,
        table_pb2.LeaveTableRequest(name=name, request_id="l"),
        metadata=auth("bob"),
    )
    assert left.code == grpc.StatusCode.FAILED_PRECONDITION


def test_refusals_are_typed(lobby: Any) -> None:
    tables, _ = lobby
    nobody = refused(tables.CreateTable, table_pb2.CreateTableRequest(request_id="t"))
    assert nobody.code == grpc.StatusCode.UNAUTHENTICATED
    bad = refused(
        tables.CreateTable,
        table_pb2.CreateTableRequest(request_id="t", league="x\u202e"),
        metadata=auth("ann"),
    )
    assert bad.code == grpc.StatusCode.INVALID_ARGUMENT and bad.fields == ["league"]
    private = tables.CreateTable(
        table_pb2.CreateTableRequest(request_id="p", visibility=table_pb2.VISIBILITY_PRIVATE),
        metadata=auth("ann"),
    ).table.name
    needs = refused(
        tables.JoinTable,
        table_pb2.JoinTableRequest(name=private, request_id="j"),
        metadata=auth("bob"),
    )
    assert needs.error_info is not None and needs.error_info.reason == "INVITATION_REQUIRED"
    code = tables.CreateInvitation(
        table_pb2.CreateInvitationRequest(name=private, request_id="i"), metadata=auth("ann")
    ).invitation_code
    seat = tables.JoinTable(
        table_pb2.JoinTableRequest(name=private, request_id="j", invitation_code=code),
        metadata=auth("bob"),
    ).seat
    assert seat == 0
    missing = refused(
        tables.GetTable,
        table_pb2.GetTableRequest(name="tables/00000000-0000-4000-8000-000000000000"),
    )
    assert missing.code == grpc.StatusCode.NOT_FOUND
    stranger = refused(
        tables.CloseTable,
        table_pb2.CloseTableRequest(name=private, request_id="c"),
        metadata=auth("bob"),
    )
    assert stranger.code == grpc.StatusCode.PERMISSION_DENIED


def test_list_tables_pages_are_bound_to_their_query(lobby: Any) -> None:
    tables, _ = lobby
    for i in range(3):
        tables.CreateTable(table_pb2.CreateTableRequest(request_id=f"t{i}"), metadata=auth("ann"))
    deadline = time.monotonic() + 10
    while len(listed(tables)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    first = tables.ListTables(table_pb2.ListTablesRequest(page_size=2))
    assert len(first.tables) == 2 and first.next_page_token
    tables.CreateTable(table_pb2.CreateTableRequest(request_id="late"), metadata=auth("ann"))
    second = tables.ListTables(
        table_pb2.ListTablesRequest(page_size=2, page_token=first.next_page_token)
    )
    assert len(second.tables) == 1 and not second.next_page_token  # inserts never shift a page
    other = refused(
        tables.ListTables,
        table_pb2.ListTablesRequest(page_size=2, page_token=first.next_page_token, league="x"),
    )
    assert other.code == grpc.StatusCode.INVALID_ARGUMENT and other.fields == ["page_token"]


def test_watch_tables_streams_the_lobby_and_resumes(lobby: Any) -> None:
    tables, _ = lobby
    reader = Lobby(tables.WatchTables(table_pb2.WatchTablesRequest()))
    name = tables.CreateTable(
        table_pb2.CreateTableRequest(request_id="w", take_seat=True), metadata=auth("ann")
    ).table.name
    tables.CreateTable(
        table_pb2.CreateTableRequest(request_id="hidden", visibility=table_pb2.VISIBILITY_PRIVATE),
        metadata=auth("ann"),
    )
    first = reader.next()
    assert first.table.name == name and list(first.table.player_ids) == ["ann", "", ""]
    tables.JoinTable(table_pb2.JoinTableRequest(name=name, request_id="j"), metadata=auth("bob"))
    second = reader.next()
    assert second.table.name == name and second.table.position > first.table.position
    reader.cancel()
    resumed = Lobby(
        tables.WatchTables(table_pb2.WatchTablesRequest(after_position=first.table.position))
    )
    assert resumed.next().table.player_ids[1] == "bob"  # the private table is never sent
    resumed.cancel()


def test_watch_tables_beats_while_nothing_changes(
    lobby: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables, _ = lobby
    monkeypatch.setattr(table_servicer, "POLL_SECONDS", 0.05)
    monkeypatch.setattr(table_servicer, "HEARTBEAT_SECONDS", 0.2)
    tables.CreateTable(table_pb2.CreateTableRequest(request_id="w"), metadata=auth("ann"))
    assert listed(tables)  # the lobby read model has it: the stream's first message
    reader = Lobby(tables.WatchTables(table_pb2.WatchTablesRequest()))
    opened = reader.next()
    beat = reader.next()
    assert beat.WhichOneof("kind") == "heartbeat_position"
    assert beat.heartbeat_position == opened.table.position
    reader.cancel()
    refusal = refused(
        lambda: next(tables.WatchTables(table_pb2.WatchTablesRequest(after_position=-1)))
    )
    assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT


def test_a_table_is_not_a_game(lobby: Any) -> None:
    tables, games = lobby
    table = tables.CreateTable(table_pb2.CreateTableRequest(request_id="t"), metadata=auth("ann"))
    as_game = "games/" + table.table.name.removeprefix("tables/")
    for _ in range(2):  # the second time the table is in the application's memory
        missing = refused(games.GetGame, game_pb2.GetGameRequest(name=as_game))
        assert missing.code == grpc.StatusCode.NOT_FOUND
        tables.GetTable(table_pb2.GetTableRequest(name=table.table.name))


def test_table_openings_count_per_player(
    sqlite_only: StoreConfig, start_server: ServerFactory
) -> None:
    limits = Limits(creates_per_minute=1, create_burst=2, calls_per_second=0)
    running = start_server(with_dev_auth(sqlite_only, LOBBY_KEY), limits=limits)
    with grpc.insecure_channel(running.address) as channel:
        tables = table_pb2_grpc.TableServiceStub(channel)
        for i in range(2):
            tables.CreateTable(
                table_pb2.CreateTableRequest(request_id=f"t{i}"), metadata=auth("ann")
            )
        over = refused(
            tables.CreateTable, table_pb2.CreateTableRequest(request_id="t2"), metadata=auth("ann")
        )
        assert over.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        tables.CreateTable(table_pb2.CreateTableRequest(request_id="t2"), metadata=auth("bob"))


def test_bots_fill_a_table_and_the_keeper_plays_their_seats(lobby: Any) -> None:
    """A person alone at a table asks for bots (FillWithBots): the game starts at once, the
    server's bots sit at the other seats and the keeper plays them, so whenever the game waits,
    it waits for the person — who plays with the JWT of the lobby (issue 14 items 2 and 3)."""
    tables, games = lobby
    opened = tables.CreateTable(
        table_pb2.CreateTableRequest(request_id="solo", take_seat=True), metadata=auth("ann")
    )
    filled = tables.FillWithBots(
        table_pb2.FillWithBotsRequest(name=opened.table.name, request_id="bots"),
        metadata=auth("ann"),
    )
    assert filled.table.state == table_pb2.TABLE_STATE_STARTED
    assert list(filled.table.bot_seats) == [1, 2]
    game_name = filled.table.game
    game = games.GetGame(game_pb2.GetGameRequest(name=game_name)).game
    assert list(game.bot_seats) == [1, 2]
    assert [p.player_id for p in game.players] == ["ann", "bot:seat1", "bot:seat2"]
    me = auth("ann")
    decisions = 0
    deadline = time.monotonic() + 60
    while decisions < 12:
        assert time.monotonic() < deadline, "the bots stopped playing their seats"
        view = games.GetSeatView(game_pb2.GetSeatViewRequest(name=game_name), metadata=me).view
        if view.actor != 0 or not view.legal_actions:
            time.sleep(0.05)  # a bot is to act: the keeper decides for it
            continue
        playable = [a for a in view.legal_actions if not a.startswith("claim")]
        cards_first = view.phase == game_pb2.PHASE_PLAY  # "8♦" is a card here, not a bid
        action = action_to_proto(parse_action(playable[0], cards_first=cards_first))
        games.SubmitAction(
            game_pb2.SubmitActionRequest(
                name=game_name, action=action, request_id=f"ann-{decisions}"
            ),
            metadata=me,
        )
        decisions += 1
    # The bots' seats were played by the keeper: the game holds their decisions too.
    game = games.GetGame(game_pb2.GetGameRequest(name=game_name)).game
    stream = games.WatchGame(
        game_pb2.WatchGameRequest(name=game_name, from_version=0, heartbeat_seconds=300),
        metadata=me,
        timeout=60,
    )
    deciders = set()
    for message in stream:
        if message.HasField("action"):
            deciders.add(message.action.decider)
        if message.version >= game.version:
            break
    stream.cancel()
    assert {0, 1, 2} <= deciders


def test_get_balance_without_a_player_id_is_the_caller_s(lobby_server: ServerThread) -> None:
    """GetBalance with no ``player_id`` answers for the player the JWT proves; a seat token
    names a seat, not a player, and no credential names nobody (UNAUTHENTICATED)."""
    with grpc.insecure_channel(lobby_server.address) as channel:
        ledger = ledger_pb2_grpc.LedgerServiceStub(channel)
        tables = table_pb2_grpc.TableServiceStub(channel)
        mine = ledger.GetBalance(ledger_pb2.GetBalanceRequest(), metadata=auth("zoe"))
        assert mine.balance.player_id == "zoe" and mine.balance.balance_cents == 0
        opened = tables.CreateTable(
            table_pb2.CreateTableRequest(request_id="me", take_seat=True), metadata=auth("zoe")
        )
        seat = (("authorization", f"Bearer {opened.seat_token}"),)
        for metadata in (seat, ()):
            refusal = refused(ledger.GetBalance, ledger_pb2.GetBalanceRequest(), metadata=metadata)
            assert refusal.code == grpc.StatusCode.UNAUTHENTICATED
