"""End to end (SQLite and PostgreSQL): calling time with the creator's credential
(``GameService.CallTime``) and stopping early by every seat's agreement
(``GameService.AgreeEarlyStop``), with their typed refusals and their WatchGame events
(RULES.md §3.4 "End condition" by time, §3.0 and TV-27 "Early stop")."""

from __future__ import annotations

from fractions import Fraction

import grpc

from domain.rules import DEFAULT
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread
from tests.e2e.helpers import refused

PLAYERS = ["ann", "bob", "cid"]
SECRET = "c" * 32


def seat(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def test_call_time_and_agree_early_stop_through_grpc(server: ServerThread) -> None:
    client = GameClient(server.address)
    try:
        created = client.create_game(
            PLAYERS,
            DEFAULT.with_options(ending_by_time=True),
            request_id="time-game",
            creator_secret=SECRET,
        )
        name, tokens = created.game.name, list(created.seat_tokens)
        version = created.game.version

        def call_time(secret: str, created_with: str = "time-game") -> pb.CallTimeResponse:
            request = pb.CallTimeRequest(
                name=name, created_with=created_with, creator_secret=secret, request_id="t1"
            )
            answer: pb.CallTimeResponse = client.stub.CallTime(request)
            return answer

        wrong = refused(call_time, "x" * 32)
        assert wrong.code is grpc.StatusCode.PERMISSION_DENIED
        assert wrong.error_info is not None and wrong.error_info.reason == "NOT_CREATOR"
        assert refused(call_time, SECRET, "other").code is grpc.StatusCode.PERMISSION_DENIED
        assert client.get_game(name).version == version  # refusals record nothing

        called = call_time(SECRET)
        assert not called.replayed and called.version == version + 1
        assert call_time(SECRET).replayed
        game = client.get_game(name)
        assert game.time_called and game.status == pb.GAME_STATUS_PLAYING

        def agree(token: str, request_id: str) -> pb.AgreeEarlyStopResponse:
            request = pb.AgreeEarlyStopRequest(name=name, request_id=request_id)
            answer: pb.AgreeEarlyStopResponse = client.stub.AgreeEarlyStop(
                request, metadata=seat(token)
            )
            return answer

        anonymous = refused(
            client.stub.AgreeEarlyStop, pb.AgreeEarlyStopRequest(name=name, request_id="s-x")
        )
        assert anonymous.code is grpc.StatusCode.UNAUTHENTICATED
        first = agree(tokens[0], "s0")
        assert not first.finished
        again = refused(agree, tokens[0], "s0-again")
        assert again.code is grpc.StatusCode.FAILED_PRECONDITION
        assert again.error_info is not None and again.error_info.reason == "RULES_VIOLATION"
        assert client.get_game(name).stop_agreed == [0]
        assert not agree(tokens[1], "s1").finished
        last = agree(tokens[2], "s2")
        assert last.finished
        game = client.get_game(name)
        assert game.status == pb.GAME_STATUS_FINISHED and game.seed_hex
        sheet = client.scoresheet(name, min_version=last.version)
        assert sum(Fraction(v) for v in sheet.settlement) == 0
        over = refused(agree, tokens[1], "s-late")
        assert over.error_info is not None and over.error_info.reason == "GAME_OVER"

        seen = []
        for message in client.seat(name, tokens[0]).watch(from_version=0, heartbeat_seconds=1):
            kind = message.WhichOneof("event")
            if kind == "heartbeat":
                break
            seen.append(kind)
            if kind == "early_stop_agreed":
                last_agreed = list(message.early_stop_agreed.agreed)
        assert "time_called" in seen
        assert seen[-2:] == ["early_stop_agreed", "game_finished"]
        assert last_agreed == [0, 1, 2]
    finally:
        client.close()
