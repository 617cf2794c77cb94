"""Browsers' protocols (issue 15, item 1): the five services over the Connect protocol and
gRPC-Web, answered by the same servicers and interceptors as native gRPC.

Play goes through the official ``connectrpc`` Python client (JSON and binary), on SQLite and
PostgreSQL; refusals are compared with native gRPC's for the same call (code, message and
``google.rpc`` details byte for byte); streams, the web table's files and the development
sign-in are checked over plain HTTP, as a browser sends them.
"""

from __future__ import annotations

import base64
import json
import queue
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from grpc_status import rpc_status

from service.app.config import StoreConfig
from service.connect.codecs import JsonCodec
from service.gen.preferans.v1 import (
    game_connect,
    stats_connect,
    stats_pb2,
    table_connect,
    table_pb2,
)
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import (
    CONNECT_ISSUER_KEY,
    UNTHROTTLED,
    dev_token,
    with_dev_auth,
)
from tests.e2e.connect_helpers import (
    END_STREAM,
    ConnectServerThread,
    envelope,
    error_of,
    frames,
    post_json,
    request,
)
from tests.e2e.helpers import PLAYERS

STREAM_TIMEOUT = 30.0


def _client(server: ConnectServerThread, *, json_codec: bool = True) -> Any:
    codec = JsonCodec(1 << 22) if json_codec else google_protobuf_binary_codec()
    return game_connect.GameServiceClientSync(server.base_url, codec=codec)


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _first_legal(view: pb.SeatView) -> pb.Action:
    """The first legal action that is not a claim (the rules offer one in every state)."""
    return next(a for a in view.legal if a.WhichOneof("kind") != "claim")


def _create(client: Any) -> pb.CreateGameResponse:
    request_message = pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in PLAYERS],
        rules=pb.RuleSet(pool_target=2),
        request_id=uuid.uuid4().hex,
    )
    response: pb.CreateGameResponse = client.create_game(request_message)
    return response


def _play_deal(client: Any, name: str, tokens: list[str]) -> int:
    """Play deal 1 to its end through ``client``; the game's version after it."""
    views = {
        seat: client.get_seat_view(pb.GetSeatViewRequest(name=name), headers=_bearer(token)).view
        for seat, token in enumerate(tokens)
    }
    version = max(view.version for view in views.values())
    for _ in range(300):
        actor = next(view for view in views.values() if view.to_act == view.seat)
        answer = client.submit_action(
            pb.SubmitActionRequest(
                name=name, action=_first_legal(actor), request_id=uuid.uuid4().hex
            ),
            headers=_bearer(tokens[actor.seat]),
        )
        version = int(answer.version)
        if answer.view.deal_number > 1 or answer.view.HasField("result"):
            return version
        views = {
            seat: client.get_seat_view(
                pb.GetSeatViewRequest(name=name, min_version=version), headers=_bearer(token)
            ).view
            for seat, token in enumerate(tokens)
        }
    raise AssertionError("the deal did not end in 300 actions")


class _Watch:
    """A Connect server stream read in a thread, so that every read has a timeout."""

    def __init__(self, stream: Iterator[Any]) -> None:
        self.items: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.stream = stream
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        try:
            for message in self.stream:
                self.items.put(("message", message))
        except ConnectError as error:
            self.items.put(("error", error))
        else:
            self.items.put(("end", None))

    def until(self, version: int) -> list[pb.WatchGameResponse]:
        seen = []
        while True:
            kind, value = self.items.get(timeout=STREAM_TIMEOUT)
            assert kind == "message", (kind, value)
            if value.HasField("heartbeat"):
                continue
            seen.append(value)
            if value.version >= version:
                return seen


def test_a_deal_played_through_connect_json_streams_to_a_watching_seat(
    web: ConnectServerThread,
) -> None:
    """Create, read, act and watch over the Connect protocol with JSON, on both stores: the
    seat's stream carries every event, in order, and native gRPC reads back the same game."""
    client = _client(web)
    created = _create(client)
    name, tokens = created.game.name, list(created.seat_tokens)
    watch = _Watch(
        client.watch_game(
            pb.WatchGameRequest(name=name, from_version=0), headers=_bearer(tokens[0])
        )
    )
    final = _play_deal(client, name, tokens)
    events = watch.until(final)
    assert [e.version for e in events] == list(range(1, final + 1))
    client.close()
    with grpc.insecure_channel(web.address) as channel:
        from service.gen.preferans.v1 import game_pb2_grpc

        stub = game_pb2_grpc.GameServiceStub(channel)
        game = stub.GetGame(pb.GetGameRequest(name=name), timeout=10).game
    assert game.version == final


def test_binary_connect_and_grpc_web_calls_answer_like_json(
    store: StoreConfig, start_connect: Any
) -> None:
    server = start_connect(store, limits=UNTHROTTLED)
    binary = _client(server, json_codec=False)
    created = _create(binary)
    view = binary.get_seat_view(
        pb.GetSeatViewRequest(name=created.game.name), headers=_bearer(created.seat_tokens[1])
    ).view
    assert view.seat == 1 and len(view.hand) == 10
    binary.close()
    # gRPC-Web, binary, by hand: one enveloped request, then messages and a trailer frame.
    body = envelope(pb.GetGameRequest(name=created.game.name).SerializeToString())
    answer = request(
        server.http_port,
        "POST",
        "/preferans.v1.GameService/GetGame",
        body,
        {"Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1"},
    )
    assert answer.status == 200, answer
    parts = list(frames(answer.body))
    game = pb.GetGameResponse.FromString(parts[0][1]).game
    assert game.name == created.game.name
    trailer = parts[-1]
    assert trailer[0] & 0x80 and b"grpc-status: 0" in trailer[1].lower()
    # gRPC-Web with JSON messages.
    body = envelope(json.dumps({"name": created.game.name}).encode())
    answer = request(
        server.http_port,
        "POST",
        "/preferans.v1.GameService/GetGame",
        body,
        {"Content-Type": "application/grpc-web+json", "X-Grpc-Web": "1"},
    )
    parts = list(frames(answer.body))
    assert json.loads(parts[0][1])["game"]["name"] == created.game.name
    assert b"grpc-status: 0" in parts[-1][1].lower()


Refused = tuple[str, str, list[tuple[str, bytes]]]
"""A refusal as a client sees it: the code's name, the message, the details (type, bytes)."""


def _native_refusal(
    server: ConnectServerThread, method: str, message: Any, token: str | None
) -> Refused:
    with grpc.insecure_channel(server.address) as channel:
        call: Any = channel.unary_unary(method)
        metadata = (("authorization", f"Bearer {token}"),) if token else None
        with pytest.raises(grpc.RpcError) as caught:
            call(message.SerializeToString(), metadata=metadata, timeout=10)
    error = caught.value
    assert isinstance(error, grpc.Call)
    status = rpc_status.from_call(error)
    details = [(d.type_url.split("/")[-1], d.value) for d in status.details] if status else []
    return error.code().name, str(error.details()), details


def _connect_refusal(
    server: ConnectServerThread, method: str, message: Any, token: str | None
) -> Refused:
    from google.protobuf import json_format

    headers = {"authorization": f"Bearer {token}"} if token else {}
    answer = post_json(server.http_port, method, json_format.MessageToDict(message), headers)
    error = answer.json()
    details = [
        (d["type"], base64.b64decode(d["value"] + "=" * (-len(d["value"]) % 4)))
        for d in error.get("details", [])
    ]
    return error["code"].upper(), error["message"], details


def test_refusals_carry_the_same_code_message_and_details_as_native_grpc(
    web: ConnectServerThread,
) -> None:
    client = _client(web)
    created = _create(client)
    name, tokens = created.game.name, list(created.seat_tokens)
    first = client.get_seat_view(pb.GetSeatViewRequest(name=name), headers=_bearer(tokens[0]))
    actor = first.view.to_act
    view = client.get_seat_view(
        pb.GetSeatViewRequest(name=name), headers=_bearer(tokens[actor])
    ).view
    waiting = next(seat for seat in range(3) if seat != actor)
    not_your_turn = pb.SubmitActionRequest(
        name=name, action=_first_legal(view), request_id="r-not-your-turn"
    )
    cases: list[tuple[str, Any, str | None]] = [
        ("/preferans.v1.GameService/GetGame", pb.GetGameRequest(name="games/nope"), None),
        (
            "/preferans.v1.GameService/GetGame",
            pb.GetGameRequest(name=f"games/{uuid.uuid4()}"),
            None,
        ),
        ("/preferans.v1.GameService/GetSeatView", pb.GetSeatViewRequest(name=name), None),
        (
            "/preferans.v1.GameService/GetSeatView",
            pb.GetSeatViewRequest(name=name),
            "forged.x.0.1.y",
        ),
        ("/preferans.v1.GameService/SubmitAction", not_your_turn, tokens[waiting]),
        ("/preferans.v1.GameService/CreateGame", pb.CreateGameRequest(request_id="x"), None),
        ("/preferans.v1.TableService/CreateTable", table_pb2.CreateTableRequest(), None),
        (
            "/preferans.v1.StatsService/GetPlayerStats",
            stats_pb2.GetPlayerStatsRequest(player_id=""),
            None,
        ),
    ]
    for method, message, token in cases:
        native = _native_refusal(web, method, message, token)
        connect = _connect_refusal(web, method, message, token)
        assert connect == native, (method, native, connect)
    client.close()


def test_stats_and_table_services_answer_over_connect(web: ConnectServerThread) -> None:
    stats = stats_connect.StatsServiceClientSync(web.base_url, codec=JsonCodec(1 << 20))
    assert list(stats.list_leagues(stats_pb2.ListLeaguesRequest()).leagues) == []
    tables = table_connect.TableServiceClientSync(web.base_url, codec=JsonCodec(1 << 20))
    token = dev_token(CONNECT_ISSUER_KEY, "ann")
    created = tables.create_table(
        table_pb2.CreateTableRequest(request_id=uuid.uuid4().hex, take_seat=True),
        headers=_bearer(token),
    )
    assert created.table.name.startswith("tables/")
    with pytest.raises(ConnectError) as caught:
        tables.create_table(table_pb2.CreateTableRequest(request_id="y"))
    assert caught.value.code is Code.UNAUTHENTICATED
    stats.close()
    tables.close()


def test_the_web_root_serves_the_build_and_nothing_outside_it(
    sqlite_only: StoreConfig, start_connect: Any, tmp_path: Path
) -> None:
    root = tmp_path / "dist"
    root.mkdir()
    (root / "index.html").write_text("<!doctype html><title>table</title>")
    (root / "app.js").write_text("console.log('hi')")
    (tmp_path / "secret.txt").write_text("do not serve")
    server = start_connect(sqlite_only, web_root=root)
    port = server.http_port
    index = request(port, "GET", "/")
    assert index.status == 200 and b"<title>table</title>" in index.body
    assert request(port, "GET", "/app.js").body == b"console.log('hi')"
    for path in (
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/app.js/../../secret.txt",
    ):
        answer = request(port, "GET", path)
        assert b"do not serve" not in answer.body, path
        assert answer.status == 404, (path, answer.status)
    assert request(port, "POST", "/").status == 405


def test_without_a_build_the_root_says_how_to_make_one(
    sqlite_only: StoreConfig, start_connect: Any, tmp_path: Path
) -> None:
    server = start_connect(sqlite_only, web_root=tmp_path / "missing")
    answer = request(server.http_port, "GET", "/")
    assert answer.status == 200 and b"npm run build" in answer.body
    assert request(server.http_port, "GET", "/app.js").status == 404


def test_dev_token_signs_in_a_player_only_with_dev_auth(
    sqlite_only: StoreConfig, start_connect: Any, tmp_path: Path
) -> None:
    plain = start_connect(sqlite_only)
    assert post_json(plain.http_port, "/dev/token", {"name": "ann"}).status == 404
    dev = start_connect(with_dev_auth(sqlite_only, tmp_path / "dev.pem"))
    port = dev.http_port
    answer = post_json(port, "/dev/token", {"name": "ann"})
    assert answer.status == 200, answer
    token = answer.json()["token"]
    assert answer.headers["cache-control"] == "no-store"
    tables = table_connect.TableServiceClientSync(dev.base_url, codec=JsonCodec(1 << 20))
    created = tables.create_table(
        table_pb2.CreateTableRequest(request_id=uuid.uuid4().hex, take_seat=True),
        headers=_bearer(token),
    )
    assert created.table.creator == "ann"
    tables.close()
    for body in (
        b"{",
        b"[]",
        b'{"name": 5}',
        json.dumps({"name": ""}).encode(),
        json.dumps({"name": "bot:x"}).encode(),
        json.dumps({"name": "x" * 65}).encode(),
    ):
        refused = post_json(port, "/dev/token", body)
        assert refused.status == 400, (body, refused)
        assert "token" not in refused.json()
    wrong_type = request(
        port, "POST", "/dev/token", b'{"name":"ann"}', {"Content-Type": "text/plain"}
    )
    assert wrong_type.status == 415
    foreign = post_json(port, "/dev/token", {"name": "ann"}, {"Origin": "http://evil.example"})
    assert foreign.status == 403
    own = post_json(port, "/dev/token", {"name": "ann"}, {"Origin": f"http://127.0.0.1:{port}"})
    assert own.status == 200


def test_a_spectator_stream_over_raw_connect_json_ends_with_an_error_frame_on_refusal(
    web: ConnectServerThread,
) -> None:
    body = envelope(json.dumps({"name": "games/not-a-uuid"}).encode())
    answer = request(
        web.http_port,
        "POST",
        "/preferans.v1.GameService/WatchGame",
        body,
        {"Content-Type": "application/connect+json"},
    )
    assert answer.status == 200
    ends = [json.loads(data) for flags, data in frames(answer.body) if flags & END_STREAM]
    assert ends and ends[-1]["error"]["code"] == "invalid_argument"
    assert error_of(answer)["details"][0]["type"] == "google.rpc.BadRequest"


def test_batched_and_lobby_streams_over_connect(web: ConnectServerThread) -> None:
    """``WatchGameBatches`` and ``WatchTables`` stream over Connect too."""
    client = _client(web)
    created = _create(client)
    name, version = created.game.name, created.game.version
    batches = client.watch_game_batches(
        pb.WatchGameBatchesRequest(name=name, from_version=0),
        headers=_bearer(created.seat_tokens[0]),
        timeout_ms=30_000,
    )
    seen: list[int] = []
    for batch in batches:
        seen += [u.version for u in batch.updates if not u.HasField("heartbeat")]
        if seen and seen[-1] >= version:
            break
    assert seen == list(range(1, version + 1))
    client.close()
    tables = table_connect.TableServiceClientSync(web.base_url, codec=JsonCodec(1 << 20))
    token = dev_token(CONNECT_ISSUER_KEY, "bob")
    opened = tables.create_table(
        table_pb2.CreateTableRequest(request_id=uuid.uuid4().hex, take_seat=True),
        headers=_bearer(token),
    )
    watch = table_pb2.WatchTablesRequest(after_position=0)
    for message in tables.watch_tables(watch, timeout_ms=30_000):
        if message.HasField("table") and message.table.name == opened.table.name:
            assert message.table.creator == "bob"
            break
    tables.close()
