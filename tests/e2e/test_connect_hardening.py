"""The browser port's defences found missing by review rev-c (docs/SECURITY.md "Browsers: the
Connect port"): DNS rebinding on a non-loopback ``--dev-auth`` listener, framing and sniffing
headers, deep JSON and vanished callers at ``/dev/token``, unchecked ``--cors-origin``, and
the head size limit end to end."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from service.app.config import StoreConfig
from tests.e2e.conftest import CONNECT_ISSUER_KEY, UNTHROTTLED, with_dev_auth
from tests.e2e.connect_helpers import post_json, request

CREATE = "/preferans.v1.GameService/CreateGame"
LIST = "/preferans.v1.GameService/ListGames"


def test_dev_auth_on_a_public_address_answers_its_own_host_names_only(
    sqlite_only: StoreConfig, start_connect: Any
) -> None:
    """rev-c: with ``--host 0.0.0.0 --dev-auth`` a request with Host and Origin
    attacker.example got a JWT (the Host check was on for loopback listeners only)."""
    server = start_connect(
        with_dev_auth(sqlite_only, CONNECT_ISSUER_KEY),
        limits=UNTHROTTLED,
        connect_address="0.0.0.0:0",
        public_hosts=("table.example",),
        cors_origins=("HTTPS://App.Example/",),
    )
    port = server.http_port
    rebound = {"Host": f"attacker.example:{port}", "Origin": f"http://attacker.example:{port}"}
    assert post_json(port, "/dev/token", {"name": "ann"}, rebound).status == 403
    assert post_json(port, CREATE, {}, rebound).status == 403
    assert (
        post_json(port, "/dev/token", {"name": "ann"}, {"Host": "attacker.example"}).status == 403
    )
    for host in (f"table.example:{port}", "TABLE.example", "app.example", f"localhost:{port}"):
        answer = post_json(port, "/dev/token", {"name": "ann"}, {"Host": host})
        assert answer.status == 200, host
        assert post_json(port, LIST, {}, {"Host": host}).status == 200, host
    # the configured origin, normalised as browsers send it, may call the API
    cross = {"Host": f"table.example:{port}", "Origin": "https://app.example"}
    answer = post_json(port, LIST, {}, cross)
    assert answer.status == 200
    assert answer.headers["access-control-allow-origin"] == "https://app.example"


def test_every_answer_forbids_framing_and_sniffing(
    sqlite_only: StoreConfig, start_connect: Any, tmp_path: Path
) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>")
    server = start_connect(sqlite_only, web_root=tmp_path)
    answers = [
        request(server.http_port, "GET", "/"),
        request(server.http_port, "GET", "/missing.js"),
        post_json(server.http_port, LIST, {}),
        post_json(server.http_port, LIST, {}, {"Origin": "https://evil.example"}),
    ]
    assert [a.status for a in answers] == [200, 404, 200, 403]
    for answer in answers:
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"
        policy = answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
        assert "connect-src 'self'" in policy


def test_deeply_nested_json_at_dev_token_is_a_bad_request(
    sqlite_only: StoreConfig, start_connect: Any, tmp_path: Path
) -> None:
    server = start_connect(with_dev_auth(sqlite_only, tmp_path / "dev.pem"))
    for body in (b"[" * 1024, b'{"a":' * 200 + b"[" * 800):
        answer = post_json(server.http_port, "/dev/token", body[:1024])
        assert answer.status == 400, answer
        assert "token" not in answer.json()


def test_a_request_head_over_16_kib_is_refused_like_grpc_metadata(
    sqlite_only: StoreConfig, start_connect: Any
) -> None:
    server = start_connect(sqlite_only)
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=30) as sock:
        sock.sendall(
            b"POST " + LIST.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nX-Big: " + b"a" * 20_000 + b"\r\n"
            b"Content-Length: 2\r\n\r\n{}"
        )
        answer = sock.recv(200)
    assert answer.startswith(b"HTTP/1.1 431"), answer
    small = post_json(server.http_port, LIST, {}, {"X-Big": "a" * 12_000})
    assert small.status == 200


def _serve(*options: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "service.cli", "serve", "--store", str(tmp_path / "s.sqlite")]
    return subprocess.run(
        [*argv, "--port", "0", "--connect-port", "0", *options],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_serve_refuses_a_bad_cors_origin_and_an_unnamed_public_dev_auth(tmp_path: Path) -> None:
    for options, says in (
        (("--cors-origin", "app.example"), "is not an origin"),
        (("--cors-origin", "https://app.example/path"), "is not an origin"),
        (("--dev-auth", "--host", "0.0.0.0"), "needs --public-host"),
        (("--connect-max-header-bytes", "0"), "must be positive"),
        (("--processes", "2", "--cors-origin", "https://a.example/x"), "is not an origin"),
    ):
        done = _serve(*options, tmp_path=tmp_path)
        assert done.returncode == 2, (options, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0], (options, done.stderr)
