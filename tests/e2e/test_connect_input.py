"""What a browser (or anything speaking HTTP) may send the Connect port (issue 15, "Bad
input"): bad JSON, wrong content types, oversized bodies, unknown methods and foreign origins
get the protocol's proper error and record nothing; CORS answers only the configured origins;
tokens, budgets and watch-stream quotas are the native server's, shared across protocols."""

from __future__ import annotations

import base64
import json
import time
import uuid
from typing import Any

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.rpc import error_details_pb2

from service.api.limits import Limits
from service.app.config import StoreConfig
from service.connect.codecs import JsonCodec
from service.gen.preferans.v1 import game_connect, game_pb2_grpc
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import CONNECT_ISSUER_KEY, UNTHROTTLED, dev_token, with_dev_auth
from tests.e2e.connect_helpers import (
    ConnectServerThread,
    envelope,
    frames,
    post_json,
    request,
)
from tests.e2e.helpers import PLAYERS

CREATE = "/preferans.v1.GameService/CreateGame"
SLOW = 1e-6
"""A refill rate so slow that no token comes back while a test runs (no timing involved)."""


def stored(server: ConnectServerThread) -> int:
    """How many events the store holds (its highest notification id)."""
    return int(server.app.recorder.max_notification_id() or 0)


def create_json() -> dict[str, Any]:
    return {
        "players": [{"playerId": p} for p in PLAYERS],
        "rules": {"poolTarget": 2},
        "requestId": uuid.uuid4().hex,
    }


def _details(error: dict[str, Any]) -> dict[str, bytes]:
    return {
        d["type"]: base64.b64decode(d["value"] + "=" * (-len(d["value"]) % 4))
        for d in error.get("details", [])
    }


def test_bad_requests_get_the_protocols_errors_and_record_nothing(
    web: ConnectServerThread,
) -> None:
    port = web.http_port
    assert post_json(port, CREATE, create_json()).status == 200  # the control: one is recorded
    before = stored(web)
    assert before > 0
    # Bad JSON, and JSON that is not a CreateGameRequest: INVALID_ARGUMENT as native gRPC
    # gives for undecodable bytes (ErrorInfo MALFORMED_REQUEST naming the expected type only).
    for body in (b"{", b"[1, 2]", b'{"players": 5}', b'{"requestId": {"x": 1}}', b"\xff\xfe"):
        answer = post_json(port, CREATE, body)
        assert answer.status == 400, (body, answer)
        error = answer.json()
        assert error["code"] == "invalid_argument"
        assert (
            error["message"] == "the request is not a valid preferans.v1.CreateGameRequest message"
        )
        info = error_details_pb2.ErrorInfo.FromString(_details(error)["google.rpc.ErrorInfo"])
        assert info.reason == "MALFORMED_REQUEST"
    # Binary bytes that are not a message, over Connect and over gRPC-Web.
    binary = request(port, "POST", CREATE, b"\x0a\x05ab", {"Content-Type": "application/proto"})
    assert binary.status == 400 and binary.json()["code"] == "invalid_argument"
    grpc_web = request(
        port, "POST", CREATE, envelope(b"\xff"), {"Content-Type": "application/grpc-web+proto"}
    )
    trailer = [data for flags, data in frames(grpc_web.body) if flags & 0x80]
    assert trailer and b"grpc-status: 3" in trailer[-1].lower(), grpc_web
    # A content type no codec reads: 415, with what is accepted.
    plain = request(
        port, "POST", CREATE, json.dumps(create_json()).encode(), {"Content-Type": "text/plain"}
    )
    assert plain.status == 415
    # Larger than the server's largest request message (Limits.max_receive_bytes, as gRPC).
    huge = json.dumps({**create_json(), "league": "x" * (Limits().max_receive_bytes + 1)}).encode()
    too_big = post_json(port, CREATE, huge)
    assert too_big.status == 429 and too_big.json()["code"] == "resource_exhausted"
    # Unknown methods and services: 404 (clients read it as UNIMPLEMENTED).
    for path in ("/preferans.v1.GameService/Nope", "/preferans.v1.NoService/CreateGame"):
        assert post_json(port, path, create_json()).status == 404
    # A unary body sent to a stream method, and a stream body to a unary one.
    watch = post_json(port, "/preferans.v1.GameService/WatchGame", {"name": "games/x"})
    assert watch.status == 415
    enveloped = request(
        port,
        "POST",
        CREATE,
        envelope(json.dumps(create_json()).encode()),
        {"Content-Type": "application/connect+json"},
    )
    assert enveloped.status == 415
    # Connect's GET form (which any page's <img> can send, without an Origin): none of our
    # methods is free of side effects, so GET runs nothing.
    query = "/preferans.v1.GameService/CreateGame?encoding=json&message=" + json.dumps(
        create_json()
    ).replace(" ", "")
    assert request(port, "GET", query).status == 405
    # A page of a foreign origin: refused before anything runs, even a valid creation.
    foreign = post_json(port, CREATE, create_json(), {"Origin": "https://evil.example"})
    assert foreign.status == 403
    assert "access-control-allow-origin" not in foreign.headers
    assert stored(web) == before
    # The server is unharmed.
    assert post_json(port, CREATE, create_json()).status == 200


def test_cors_answers_configured_origins_only(sqlite_only: StoreConfig, start_connect: Any) -> None:
    allowed = "https://table.example"
    server = start_connect(sqlite_only, cors_origins=[allowed])
    port = server.http_port
    preflight_headers = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,connect-protocol-version,authorization",
    }
    preflight = request(port, "OPTIONS", CREATE, b"", {"Origin": allowed, **preflight_headers})
    assert preflight.status == 200, preflight
    assert preflight.headers["access-control-allow-origin"] == allowed
    allowed_headers = preflight.headers["access-control-allow-headers"].lower()
    for header in ("content-type", "connect-protocol-version", "authorization", "x-grpc-web"):
        assert header in allowed_headers
    call = post_json(port, "/preferans.v1.GameService/ListGames", {}, {"Origin": allowed})
    assert call.status == 200
    assert call.headers["access-control-allow-origin"] == allowed
    exposed = call.headers["access-control-expose-headers"].lower()
    for header in ("grpc-status", "grpc-message", "grpc-status-details-bin"):
        assert header in exposed
    foreign = request(
        port, "OPTIONS", CREATE, b"", {"Origin": "https://evil.example", **preflight_headers}
    )
    assert foreign.status == 403
    assert "access-control-allow-origin" not in foreign.headers
    # The server's own origin needs no configuration (the page it serves).
    own = post_json(
        port, "/preferans.v1.GameService/ListGames", {}, {"Origin": f"http://127.0.0.1:{port}"}
    )
    assert own.status == 200


def test_a_players_jwt_acts_over_connect_where_it_sits_only(web: ConnectServerThread) -> None:
    client = game_connect.GameServiceClientSync(web.base_url, codec=JsonCodec(1 << 22))
    created = client.create_game(
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            rules=pb.RuleSet(pool_target=2),
            request_id=uuid.uuid4().hex,
        )
    )
    name = created.game.name
    ann = {"authorization": f"Bearer {dev_token(CONNECT_ISSUER_KEY, 'ann')}"}
    view = client.get_seat_view(pb.GetSeatViewRequest(name=name), headers=ann).view
    assert view.seat == PLAYERS.index("ann") and len(view.hand) == 10
    stranger = {"authorization": f"Bearer {dev_token(CONNECT_ISSUER_KEY, 'zed')}"}
    with pytest.raises(ConnectError) as denied:
        client.get_seat_view(pb.GetSeatViewRequest(name=name), headers=stranger)
    assert denied.value.code is Code.PERMISSION_DENIED
    with pytest.raises(ConnectError) as forged:
        client.get_seat_view(
            pb.GetSeatViewRequest(name=name), headers={"authorization": "Bearer a.b.c"}
        )
    assert forged.value.code is Code.UNAUTHENTICATED
    client.close()


def test_call_budgets_are_shared_with_native_grpc(
    sqlite_only: StoreConfig, start_connect: Any
) -> None:
    limits = Limits(calls_per_second=SLOW, call_burst=2, creates_per_minute=0, open_games=0)
    server = start_connect(sqlite_only, limits=limits)
    path = "/preferans.v1.GameService/ListGames"
    assert post_json(server.http_port, path, {}).status == 200  # one token of two
    with grpc.insecure_channel(server.address) as channel:  # the second, by native gRPC
        game_pb2_grpc.GameServiceStub(channel).ListGames(pb.ListGamesRequest(), timeout=10)
    answer = post_json(server.http_port, path, {})
    assert answer.status == 429
    error = answer.json()
    assert error["code"] == "resource_exhausted"
    details = _details(error)
    assert "google.rpc.RetryInfo" in details
    failure = error_details_pb2.QuotaFailure.FromString(details["google.rpc.QuotaFailure"])
    assert failure.violations[0].subject == "peer 127.0.0.1"


def test_a_closed_watch_stream_gives_its_quota_back(
    sqlite_only: StoreConfig, start_connect: Any
) -> None:
    """One watch stream per caller: a stream the browser drops (its connection closes) is
    counted out, so the page can reconnect."""
    limits = Limits(watch_streams=1, calls_per_second=0, creates_per_minute=0, open_games=0)
    server = start_connect(sqlite_only, limits=limits)
    client = game_connect.GameServiceClientSync(server.base_url, codec=JsonCodec(1 << 22))
    created = client.create_game(
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            rules=pb.RuleSet(pool_target=2),
            request_id=uuid.uuid4().hex,
        )
    )
    watch = pb.WatchGameRequest(name=created.game.name, from_version=0)
    first = client.watch_game(watch)
    assert next(iter(first)).version == 1
    # While it is open, a second stream of the same caller is over the quota.
    second = game_connect.GameServiceClientSync(server.base_url, codec=JsonCodec(1 << 22))
    with pytest.raises(ConnectError) as over:
        next(iter(second.watch_game(watch)))
    assert over.value.code is Code.RESOURCE_EXHAUSTED
    second.close()
    first.close()  # type: ignore[attr-defined]
    client.close()
    # The server sees the connection close and ends the stream: the quota comes back.
    deadline = time.monotonic() + 30
    while True:
        again = game_connect.GameServiceClientSync(server.base_url, codec=JsonCodec(1 << 22))
        try:
            assert next(iter(again.watch_game(watch))).version == 1
            again.close()
            break
        except ConnectError as error:
            again.close()
            assert error.code is Code.RESOURCE_EXHAUSTED
            assert time.monotonic() < deadline, "the dropped stream kept its quota"
            time.sleep(0.2)


def test_stream_messages_over_grpc_web_and_connect_carry_the_same_events(
    web: ConnectServerThread,
) -> None:
    created = post_json(web.http_port, CREATE, create_json()).json()
    name = created["game"]["name"]
    version = int(created["game"]["version"])
    message = pb.WatchGameRequest(name=name, from_version=0, heartbeat_seconds=1)
    # Raw Connect JSON: the stream is read until the game's version, then dropped.
    connect_versions = _read_stream(
        web.http_port,
        envelope(json.dumps({"name": name, "fromVersion": "0", "heartbeatSeconds": 1}).encode()),
        "application/connect+json",
        version,
        lambda data: int(json.loads(data).get("version", 0)),
    )
    grpc_web_versions = _read_stream(
        web.http_port,
        envelope(message.SerializeToString()),
        "application/grpc-web+proto",
        version,
        lambda data: pb.WatchGameResponse.FromString(data).version,
    )
    assert connect_versions == grpc_web_versions == list(range(1, version + 1))


def _read_stream(
    port: int, body: bytes, content_type: str, until: int, version_of: Any
) -> list[int]:
    """The event versions of a watch stream until ``until`` (heartbeats skipped)."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(
            "POST",
            "/preferans.v1.GameService/WatchGame",
            body=body,
            headers={"Content-Type": content_type},
        )
        response = connection.getresponse()
        assert response.status == 200
        versions: list[int] = []
        buffer = b""
        while not versions or versions[-1] < until:
            chunk = response.read1(65536)
            assert chunk, "the stream ended"
            buffer += chunk
            whole = b""
            for flags, data in frames(buffer):
                if len(data) < int.from_bytes(buffer[len(whole) + 1 : len(whole) + 5], "big"):
                    break
                whole += buffer[len(whole) : len(whole) + 5 + len(data)]
                assert not flags & 0x82, data  # no end of stream, no trailer
                version = version_of(data)
                if version and version not in versions:
                    versions.append(version)
            buffer = buffer[len(whole) :]
        return versions
    finally:
        connection.close()


def test_nothing_is_recorded_for_refused_origins_on_postgres_too(
    store: StoreConfig, start_connect: Any
) -> None:
    server = start_connect(with_dev_auth(store, CONNECT_ISSUER_KEY), limits=UNTHROTTLED)
    before = stored(server)
    for origin in ("https://evil.example", "null", f"http://localhost:{server.http_port}"):
        answer = post_json(server.http_port, CREATE, create_json(), {"Origin": origin})
        assert answer.status == 403, origin
    assert (
        post_json(server.http_port, "/dev/token", {"name": "ann"}, {"Origin": "null"}).status == 403
    )
    # DNS rebinding: a foreign name pointed at this loopback server is "same-origin" to the
    # page, so a loopback listener answers loopback Host names only.
    rebound = {"Host": f"evil.example:{server.http_port}"}
    rebound_origin = {**rebound, "Origin": f"http://evil.example:{server.http_port}"}
    assert post_json(server.http_port, CREATE, create_json(), rebound).status == 403
    assert post_json(server.http_port, CREATE, create_json(), rebound_origin).status == 403
    assert post_json(server.http_port, "/dev/token", {"name": "ann"}, rebound_origin).status == 403
    assert request(server.http_port, "GET", "/", headers=rebound).status == 403
    assert stored(server) == before
    for host in (f"localhost:{server.http_port}", f"[::1]:{server.http_port}", "127.0.0.2"):
        answer = post_json(
            server.http_port, "/preferans.v1.GameService/ListGames", {}, {"Host": host}
        )
        assert answer.status == 200, host
