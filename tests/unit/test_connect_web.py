"""``service.connect.web`` pieces without a server: ``/dev/token`` when its caller leaves
while sending the body (review rev-c: a ClientDisconnect traceback was logged), and
``--cors-origin`` normalisation (rev-c: ``HTTPS://App.Example/`` passed the guard but
starlette's CORS refused its preflights)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from service.connect.web import DevToken, normalise_origin


def test_a_caller_that_leaves_mid_body_gets_no_answer_and_no_error() -> None:
    sent: list[Any] = []
    messages = [
        {"type": "http.request", "body": b'{"na', "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> Any:
        return messages.pop(0)

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/dev/token",
        "headers": [(b"content-type", b"application/json"), (b"host", b"localhost")],
    }
    issuer: Any = object()  # never reached: nothing is minted for a vanished caller
    asyncio.run(DevToken(issuer)(scope, receive, send))
    assert sent == []


@pytest.mark.parametrize(
    ("given", "origin"),
    [
        ("HTTPS://App.Example/", "https://app.example"),
        ("https://app.example:443", "https://app.example"),
        ("http://Localhost:5173", "http://localhost:5173"),
        ("http://[::1]:8080/", "http://[::1]:8080"),
    ],
)
def test_origins_are_normalised_as_browsers_send_them(given: str, origin: str) -> None:
    assert normalise_origin(given) == origin


@pytest.mark.parametrize(
    "given",
    [
        "app.example",
        "*",
        "ftp://app.example",
        "https://",
        "https://a.example/x",
        "https://a:b",
        "https://user@a.example",
        "https://a.example?x",
    ],
)
def test_what_is_not_an_origin_is_refused(given: str) -> None:
    with pytest.raises(ValueError, match="is not an origin"):
        normalise_origin(given)


def test_the_connection_cap_stays_below_half_the_open_file_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """rev-c's fd_exhaust.sh ran the server with ``ulimit -n 256``: a fixed cap of 512 would
    not have kept descriptors for the gRPC port."""
    import resource

    from service.cli.operate import browser_limits
    from service.cli.parser import build_parser

    args = build_parser().parse_args(["serve"])
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (256, 4096))
    assert browser_limits(args).max_connections == 128
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (65536, 65536))
    assert browser_limits(args).max_connections == 512
    explicit = build_parser().parse_args(["serve", "--connect-max-connections", "40"])
    assert browser_limits(explicit).max_connections == 40
