"""The browser port's listening socket: every accepted connection has Nagle's algorithm off.

uvicorn writes a response's head and body in two writes; with Nagle's algorithm on, the body
waits for the client's delayed ACK of the head, about 40 ms on every call (measured: 44 ms per
call with it, 1 ms without; docs/PERFORMANCE.md). asyncio does not turn it off for connections
accepted on a socket handed to it, so the listener sets TCP_NODELAY, which accepted sockets
inherit."""

from __future__ import annotations

import asyncio
import socket

import pytest
import uvicorn

from service.api.server import BindError
from service.connect.server import _bind, _InLoopServer, _started


def test_accepted_connections_have_nagle_off() -> None:
    listener = _bind("127.0.0.1", 0)
    try:
        listener.setblocking(True)
        with socket.create_connection(listener.getsockname()[:2], timeout=10):
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        listener.close()


def test_a_listener_that_cannot_start_fails_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn loads its protocol classes inside ``serve``: a venv without ``httptools`` (or any
    failure there) ended that task while ``pref serve`` logged "serving browsers" with a dead
    port. The start now waits for uvicorn's own start and fails with the reason."""

    def broken_load(self: uvicorn.Config) -> None:
        raise ImportError("No module named 'httptools'")

    monkeypatch.setattr(uvicorn.Config, "load", broken_load)

    async def start() -> None:
        sock = _bind("127.0.0.1", 0)
        server = _InLoopServer(uvicorn.Config(lambda *a: None, lifespan="off", log_config=None))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            await _started(server, task)
        finally:
            sock.close()

    with pytest.raises(BindError, match="httptools"):
        asyncio.run(start())


def test_a_listener_that_starts_is_reported_started() -> None:
    async def start() -> bool:
        sock = _bind("127.0.0.1", 0)
        server = _InLoopServer(uvicorn.Config(lambda *a: None, lifespan="off", log_config=None))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        await _started(server, task)
        started = bool(server.started)
        server.should_exit = True
        await task
        sock.close()
        return started

    assert asyncio.run(start())
