"""The browser port's listening socket: every accepted connection has Nagle's algorithm off.

uvicorn writes a response's head and body in two writes; with Nagle's algorithm on, the body
waits for the client's delayed ACK of the head, about 40 ms on every call (measured: 44 ms per
call with it, 1 ms without; docs/PERFORMANCE.md). asyncio does not turn it off for connections
accepted on a socket handed to it, so the listener sets TCP_NODELAY, which accepted sockets
inherit."""

from __future__ import annotations

import socket

from service.connect.server import _bind


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
