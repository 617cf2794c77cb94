"""End to end (SQLite and PostgreSQL): ``GameService.ReplacePlayer``, a player joining in place
of one who leaves (S000 "ПРАВИЛА ДЛЯ ОСОБЫХ СЛУЧАЕВ", TV-27; docs/SYSTEMS.md S-13): the
creator's credential, typed refusals, the leaver's token refused, the newcomer's token, the
scoresheet's accounts and the WatchGame event."""

from __future__ import annotations

import grpc
import pytest

from domain.rules import DEFAULT
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread
from tests.e2e.helpers import StreamReader, refused

PLAYERS = ["ann", "bob", "cid"]
SECRET = "j" * 32


def seat(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def test_replace_player_through_grpc(server: ServerThread) -> None:
    client = GameClient(server.address)
    try:
        created = client.create_game(
            PLAYERS, DEFAULT, request_id="join-game", creator_secret=SECRET
        )
        name, tokens = created.game.name, list(created.seat_tokens)
        version = created.game.version

        def replace(
            secret: str, player: str = "dan", which: int = 2, request_id: str = "r1"
        ) -> pb.ReplacePlayerResponse:
            request = pb.ReplacePlayerRequest(
                name=name,
                seat=which,
                player=pb.Player(player_id=player),
                created_with="join-game",
                creator_secret=secret,
                request_id=request_id,
            )
            answer: pb.ReplacePlayerResponse = client.stub.ReplacePlayer(request)
            return answer

        wrong = refused(replace, "x" * 32)
        assert wrong.code is grpc.StatusCode.PERMISSION_DENIED
        assert wrong.error_info is not None and wrong.error_info.reason == "NOT_CREATOR"
        assert refused(replace, SECRET, "bob").code is grpc.StatusCode.INVALID_ARGUMENT
        assert refused(replace, SECRET, "d\x00n").code is grpc.StatusCode.INVALID_ARGUMENT
        assert refused(replace, SECRET, "dan", 7).code is grpc.StatusCode.INVALID_ARGUMENT
        assert client.get_game(name).version == version  # refusals record nothing

        done = replace(SECRET)
        assert not done.replayed and done.version == version + 1 and done.seat_token
        again = replace(SECRET)
        assert again.replayed and again.version == done.version

        view_request = pb.GetSeatViewRequest(name=name, min_version=done.version)
        old = refused(client.stub.GetSeatView, view_request, metadata=seat(tokens[2]))
        assert old.code is grpc.StatusCode.UNAUTHENTICATED
        for token in (done.seat_token, again.seat_token):
            view = client.stub.GetSeatView(view_request, metadata=seat(token)).view
            assert view.seat == 2 and len(view.hand) == 10
        assert client.stub.GetSeatView(view_request, metadata=seat(tokens[0])).view.seat == 0

        game = client.get_game(name)
        assert [p.player_id for p in game.players] == ["ann", "bob", "dan"]
        sheet = client.scoresheet(name, min_version=done.version)
        accounts = [(a.account, a.player_id, a.seat, a.left) for a in sheet.accounts]
        assert accounts == [
            (0, "ann", 0, False),
            (1, "bob", 1, False),
            (2, "cid", 2, True),
            (3, "dan", 2, False),
        ]
        assert sheet.accounts[2].gora == 20  # left with an empty pool of 20: 20 to gora
        assert [len(a.whists) for a in sheet.accounts] == [4, 4, 4, 4]

        stream = client.stub.WatchGame(
            pb.WatchGameRequest(name=name), metadata=seat(done.seat_token)
        )
        try:
            for update in stream:
                if update.WhichOneof("event") == "player_replaced":
                    event = update.player_replaced
                    assert (event.seat, event.player.player_id, event.account) == (2, "dan", 3)
                    assert update.version == done.version
                    break
                assert update.version < done.version
        finally:
            stream.cancel()
    finally:
        client.close()


def test_an_open_stream_of_the_leaver_ends_at_the_replacement(server: ServerThread) -> None:
    """A WatchGame (or WatchGameBatches) stream opened with the leaver's token shows him the
    replacement, then ends UNAUTHENTICATED: it must not go on showing him the newcomer's cards
    (review finding, 2026-12-01). The newcomer's own stream from version 0 goes through it."""
    client = GameClient(server.address)
    try:
        created = client.create_game(
            PLAYERS, DEFAULT, request_id="watch-join", creator_secret=SECRET
        )
        name, tokens = created.game.name, list(created.seat_tokens)
        request = pb.WatchGameRequest(name=name, heartbeat_seconds=300)
        old = StreamReader(client.stub.WatchGame(request, metadata=seat(tokens[2])))
        batches = StreamReader(
            client.stub.WatchGameBatches(
                pb.WatchGameBatchesRequest(name=name, heartbeat_seconds=300),
                metadata=seat(tokens[2]),
            )
        )
        assert old.next().version == 1 and batches.next_batch().updates
        done = client.stub.ReplacePlayer(
            pb.ReplacePlayerRequest(
                name=name,
                seat=2,
                player=pb.Player(player_id="dan"),
                created_with="watch-join",
                creator_secret=SECRET,
                request_id="r1",
            )
        )
        seen = []
        with pytest.raises(grpc.RpcError) as ended:
            while True:
                seen.append(old.next().WhichOneof("event"))
        assert ended.value.code() is grpc.StatusCode.UNAUTHENTICATED
        assert seen[-1] == "player_replaced"
        with pytest.raises(grpc.RpcError) as ended:
            while True:
                batches.next_batch()
        assert ended.value.code() is grpc.StatusCode.UNAUTHENTICATED
        mine = StreamReader(client.stub.WatchGame(request, metadata=seat(done.seat_token)))
        versions = [m.version for m in mine.events_until(done.version)]
        assert versions[-1] == done.version
        mine.close()
    finally:
        client.close()
