"""``pref serve`` with its browser port (issue 15): started by the same command, request ids
logged as for native gRPC, tokens never logged, ``--no-connect`` turns it off, and SIGTERM
ends open browser streams and stops both listeners."""

from __future__ import annotations

import json
import signal
import socket
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from service.app.config import StoreConfig
from tests.e2e.conftest import ServeProcess, free_port
from tests.e2e.connect_helpers import ConnectServerThread, envelope, frames, post_json, request
from tests.e2e.helpers import PLAYERS


def _lines(server: ServeProcess) -> list[dict[str, object]]:
    out = []
    for line in server.log_path.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def test_pref_serve_serves_browsers_and_logs_their_request_ids(
    tmp_path: Path, serve_process: Callable[..., ServeProcess]
) -> None:
    port = free_port()
    server = serve_process(
        str(tmp_path / "events.sqlite"),
        log_level="info",
        extra=["--connect-port", str(port), "--dev-auth", "--web-root", str(tmp_path / "none")],
    )
    page = request(port, "GET", "/")
    assert page.status == 200 and b"npm run build" in page.body
    token = post_json(port, "/dev/token", {"name": "ann"}).json()["token"]
    request_id = f"rid-{uuid.uuid4().hex}"
    refused = post_json(
        port,
        "/preferans.v1.GameService/GetGame",
        {"name": "games/nope"},
        {"x-request-id": request_id, "authorization": f"Bearer {token}"},
    )
    assert refused.status == 400
    malformed_id = f"rid-{uuid.uuid4().hex}"
    malformed = post_json(
        port, "/preferans.v1.GameService/CreateGame", b"{", {"x-request-id": malformed_id}
    )
    assert malformed.status == 400
    created = post_json(
        port,
        "/preferans.v1.GameService/CreateGame",
        {"players": [{"playerId": p} for p in PLAYERS], "requestId": uuid.uuid4().hex},
    )
    assert created.status == 200
    lines = _lines(server)
    # A body refused before the servicers run is logged under its request id too.
    (refusal,) = [line for line in lines if line.get("request_id") == malformed_id]
    assert refusal["event"] == "request refused" and refusal["kind"] == "MalformedRequest"
    assert refusal["method"] == "/preferans.v1.GameService/CreateGame"
    mine = [line for line in lines if line.get("request_id") == request_id]
    assert mine, server.output()
    assert all(line["method"] == "/preferans.v1.GameService/GetGame" for line in mine)
    assert any(line["event"] == "request refused" for line in mine)
    assert any(
        line["event"] == "serving browsers (Connect, gRPC-Web, the web table)"
        and line["url"] == f"http://127.0.0.1:{port}/"
        for line in lines
    )
    text = server.log_path.read_text(errors="replace")
    assert token not in text
    for seat_token in created.json()["seatTokens"]:
        assert seat_token not in text


def test_no_connect_leaves_the_port_closed(
    tmp_path: Path, serve_process: Callable[..., ServeProcess]
) -> None:
    port = free_port()
    serve_process(
        str(tmp_path / "events.sqlite"), extra=["--connect-port", str(port), "--no-connect"]
    )
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_sigterm_ends_open_browser_streams_and_stops(
    tmp_path: Path, serve_process: Callable[..., ServeProcess]
) -> None:
    import http.client

    port = free_port()
    server = serve_process(str(tmp_path / "events.sqlite"), extra=["--connect-port", str(port)])
    created = post_json(
        port,
        "/preferans.v1.GameService/CreateGame",
        {"players": [{"playerId": p} for p in PLAYERS], "requestId": uuid.uuid4().hex},
    ).json()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    body = envelope(json.dumps({"name": created["game"]["name"]}).encode())
    connection.request(
        "POST",
        "/preferans.v1.GameService/WatchGame",
        body=body,
        headers={"Content-Type": "application/connect+json"},
    )
    response = connection.getresponse()
    assert response.status == 200
    first = response.read1(65536)
    assert first
    server.process.send_signal(signal.SIGTERM)
    rest = first + response.read()  # the server ends the stream: the read returns
    connection.close()
    ends = [json.loads(data) for flags, data in frames(rest) if flags & 0x02]
    assert ends and ends[-1]["error"]["code"] == "unavailable", ends
    assert "resume from version" in ends[-1]["error"]["message"]
    assert server.process.wait(timeout=60) == 0


def test_the_browser_port_serves_https_with_the_grpc_certificate(
    sqlite_only: StoreConfig, start_connect: Callable[..., ConnectServerThread], tmp_path: Path
) -> None:
    import http.client
    import ssl

    from service.api.tls import ServerTls
    from tests.e2e.test_tls import make_pki

    pki = make_pki(tmp_path / "pki")
    tls = ServerTls(str(pki.server_cert), str(pki.server_key))
    server = start_connect(sqlite_only, tls=tls)
    assert server.servers is not None and server.servers.connect is not None
    assert server.servers.connect.url.startswith("https://")
    context = ssl.create_default_context(cafile=str(pki.ca))
    connection = http.client.HTTPSConnection(
        "127.0.0.1", server.http_port, context=context, timeout=30
    )
    try:
        connection.request(
            "POST",
            "/preferans.v1.GameService/ListGames",
            body=b"{}",
            headers={"Content-Type": "application/json"},
        )
        assert connection.getresponse().status == 200
    finally:
        connection.close()
    # Plaintext is not answered as HTTP.
    with pytest.raises((http.client.HTTPException, ConnectionError)):
        request(server.http_port, "POST", "/preferans.v1.GameService/ListGames", b"{}")
