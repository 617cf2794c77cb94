"""End to end (SQLite): ordering a Classic game (``GameService.OrderGame``) with its typed
refusals, the order in GetGame, the seat view, the scoresheet and WatchGame, and the service
calling time itself once the ordered end time has passed (issue 12; S000 "КЛАССИКА" "заказывает
игру … до 50 очков в пулю до 23 часов", TV-26)."""

from __future__ import annotations

import time

import grpc

from domain.rules import DEFAULT, InitialRounds
from service.app.config import StoreConfig
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerFactory
from tests.e2e.helpers import refused

PLAYERS = ["ann", "bob", "cid"]
RULES = DEFAULT.with_options(
    initial_rounds=InitialRounds.GORA,
    initial_gora=10,
    order_game=True,
    ending_by_time=True,
    play_until_time=True,
)


def test_order_game_through_grpc_then_time_is_called_by_the_service(
    sqlite_only: StoreConfig, start_server: ServerFactory
) -> None:
    server = start_server(sqlite_only)
    client = GameClient(server.address)
    try:
        created = client.create_game(PLAYERS, RULES)
        name, tokens = created.game.name, list(created.seat_tokens)
        game = client.get_game(name)
        orderer = game.orderer
        assert orderer == (game.dealer + 1) % 3  # equal goras: the first hand orders
        assert game.deal_number == 0 and not game.HasField("order")
        seats = [client.seat(name, token) for token in tokens]
        view = seats[orderer].view()
        assert view.orderer == orderer and view.actor == orderer and view.to_act == -1
        assert not view.legal_actions

        other = seats[(orderer + 1) % 3]
        later = int(time.time()) + 3
        turn = refused(other.order_game, 50, later)
        assert turn.code is grpc.StatusCode.FAILED_PRECONDITION
        assert turn.error_info is not None and turn.error_info.reason == "NOT_YOUR_TURN"
        for pool, end, field in ((0, later, "pool"), (50, 0, "end_time"), (50, 1000, "end_time")):
            bad = refused(seats[orderer].order_game, pool, end)
            assert bad.code is grpc.StatusCode.INVALID_ARGUMENT, (pool, end)
            assert bad.fields == [field]
        anonymous = refused(client.stub.OrderGame, pb.OrderGameRequest(name=name, pool=50))
        assert anonymous.code is grpc.StatusCode.UNAUTHENTICATED
        assert client.get_game(name).version == game.version  # refusals record nothing

        ordered = seats[orderer].order_game(50, later, request_id="order")
        assert ordered.version == game.version + 2
        assert seats[orderer].order_game(50, later, request_id="order").replayed
        game = client.get_game(name)
        assert game.orderer == -1 and game.deal_number == 1
        assert game.order.seat == orderer and game.order.pool == 50
        assert game.order.end_time.seconds == later
        assert client.scoresheet(name).order.pool == 50
        assert seats[0].view().order.pool == 50

        time.sleep(max(0.0, later - time.time()) + 0.2)
        acted = False
        for seat in seats:
            view = seat.view()
            if view.actor == view.seat and view.legal:
                seat.act(view.legal[0])
                acted = True
                break
        assert acted
        game = client.get_game(name)
        assert game.time_called and game.status == pb.GAME_STATUS_PLAYING

        seen = []
        for message in seats[0].watch(from_version=0, heartbeat_seconds=1):
            kind = message.WhichOneof("event")
            if kind == "heartbeat":
                break
            seen.append(kind)
            if kind == "game_ordered":
                assert message.game_ordered.pool == 50
        assert seen.index("game_ordered") < seen.index("deal_dealt") < seen.index("time_called")
        assert seen[seen.index("time_called") + 1] == "action"
    finally:
        client.close()
