"""End to end (SQLite and PostgreSQL) over real gRPC, with the server's keeper running on an
injected clock: a seat out of time gets its automatic move (TimeExpired, then its pass, in the
stream), and a seat that resigns is played by the server's bot; when every person has resigned
the bots finish the game, settled with the leavers by the early-leave rule."""

from __future__ import annotations

import time
from fractions import Fraction

import grpc

from domain.model.terms import bot_player_id
from domain.rules import DEFAULT
from service.api.mapping import rules_to_proto
from service.app.config import StoreConfig
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerFactory
from tests.e2e.helpers import StreamReader, refused

PLAYERS = ["ann", "bob", "cid"]


class Clock:
    """The keeper's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def create(client: GameClient, control: pb.TimeControl | None) -> pb.CreateGameResponse:
    request = pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in PLAYERS],
        rules=rules_to_proto(DEFAULT.with_options(pool_target=10)),
        request_id=f"clock-{time.monotonic_ns()}",
        creator_secret="c" * 32,
        time_control=control,
    )
    response: pb.CreateGameResponse = client.stub.CreateGame(request)
    return response


def test_a_seat_out_of_time_gets_its_automatic_move(
    store: StoreConfig, start_server: ServerFactory
) -> None:
    clock = Clock()
    server = start_server(store, keeper_clock=clock)
    client = GameClient(server.address)
    try:
        created = create(client, pb.TimeControl(move_seconds=1))
        game = created.game
        assert game.clock.seat >= 0 and game.clock.HasField("deadline")
        late = game.clock.seat
        stream = StreamReader(client.seat(game.name, created.seat_tokens[0]).watch())
        clock.now = game.clock.deadline.ToMilliseconds() / 1000 + 0.5
        # The keeper, woken by the creation, sleeps until the deadline by its clock: now past.
        seen = [m for m in stream.events_until(game.version + 2) if m.version > game.version]
        expired, move = seen[-2:]
        assert expired.time_expired.seat == late
        assert expired.time_expired.deadline == game.clock.deadline
        assert move.action.actor == late and move.action.action.HasField("pass")
        stream.close()
        after = client.get_game(game.name)
        assert after.clock.seat == (late + 1) % 3
    finally:
        client.close()


def test_a_resigned_seat_is_played_by_the_servers_bot(
    store: StoreConfig, start_server: ServerFactory
) -> None:
    server = start_server(store)
    client = GameClient(server.address)
    try:
        created = create(client, None)
        name, tokens = created.game.name, list(created.seat_tokens)

        def resign(which: int, request_id: str) -> pb.ResignGameResponse:
            return client.seat(name, tokens[which]).resign(request_id)

        done = resign(1, "resign-1")
        assert not done.replayed
        game = client.get_game(name)
        assert game.players[1].player_id == bot_player_id(1) and list(game.bot_seats) == [1]
        left = refused(resign, 1, "resign-1b")
        assert left.code is grpc.StatusCode.UNAUTHENTICATED  # the leaver's token is refused
        # The others resign too: the server's bots play the game to its end.
        resign(0, "resign-0")
        resign(2, "resign-2")
        deadline = time.monotonic() + 120
        while client.get_game(name).status != pb.GAME_STATUS_FINISHED:
            assert time.monotonic() < deadline, "the bots did not finish the game"
            time.sleep(0.2)
        game = client.get_game(name)
        sheet = client.scoresheet(name)
        assert len(game.players) == 3 and len(sheet.settlement) == 6
        assert sum(Fraction(v) for v in sheet.settlement) == 0
    finally:
        client.close()


def test_adjournment_by_every_person(store: StoreConfig, start_server: ServerFactory) -> None:
    server = start_server(store)
    client = GameClient(server.address)
    try:
        created = create(client, pb.TimeControl(move_seconds=600))
        name, tokens = created.game.name, list(created.seat_tokens)

        def adjourn(
            which: int, resume: bool = False, again: str = ""
        ) -> pb.AdjournGameResponse | pb.ResumeGameResponse:
            player = client.seat(name, tokens[which])
            request_id = f"{resume}-{which}{again}"
            return player.resume(request_id) if resume else player.adjourn(request_id)

        assert not adjourn(0).adjourned and not adjourn(1).adjourned
        assert adjourn(0).replayed  # idempotent by request id
        assert adjourn(2).adjourned
        game = client.get_game(name)
        assert game.adjourned and game.clock.seat == -1 and not game.clock.HasField("deadline")
        actor = client.seat(name, tokens[0]).view().actor
        mover = client.seat(name, tokens[actor])
        legal = mover.view().legal
        stopped = refused(mover.act, legal[0])
        assert stopped.code is grpc.StatusCode.FAILED_PRECONDITION
        assert stopped.error_info is not None and stopped.error_info.reason == "ADJOURNED"
        twice = refused(adjourn, 0, False, "-b")  # a new request: already adjourned
        assert twice.code is grpc.StatusCode.FAILED_PRECONDITION
        for which in range(3):
            adjourn(which, resume=True)
        game = client.get_game(name)
        assert not game.adjourned and game.clock.seat == actor
        assert mover.act(legal[0]).version > game.version
    finally:
        client.close()
