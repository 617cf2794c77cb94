"""Over gRPC: a player who resigned gets no working seat token back from JoinTable."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest

from service.gen.preferans.v1 import game_pb2, table_pb2
from tests.e2e.conftest import auth


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def test_a_resigned_player_cannot_get_back_into_the_bots_seat(lobby: Any) -> None:
    tables, games = lobby
    opened = tables.CreateTable(
        table_pb2.CreateTableRequest(request_id="t", take_seat=True), metadata=auth("ann")
    )
    name = opened.table.name
    bob = tables.JoinTable(
        table_pb2.JoinTableRequest(name=name, request_id="j"), metadata=auth("bob")
    )
    cid = tables.JoinTable(
        table_pb2.JoinTableRequest(name=name, request_id="j"), metadata=auth("cid")
    )
    game = cid.table.game
    games.ResignGame(
        game_pb2.ResignGameRequest(name=game, request_id="r"), metadata=bearer(bob.seat_token)
    )
    players = games.GetGame(game_pb2.GetGameRequest(name=game)).game.players
    assert players[bob.seat].player_id == f"bot:seat{bob.seat}"
    time.sleep(0.01)  # a later millisecond than the resignation's revocation
    with pytest.raises(grpc.RpcError) as refused:
        tables.JoinTable(
            table_pb2.JoinTableRequest(name=name, request_id="back"), metadata=auth("bob")
        )
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "NOT_SEATED" in str(refused.value.trailing_metadata())
