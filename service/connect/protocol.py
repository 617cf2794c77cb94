"""uvicorn's httptools protocol with the limits a public HTTP port needs (docs/CONNECT.md).

uvicorn (0.3x) buffers a request head of any size and waits for it, and for a body, forever;
its ``limit_concurrency`` answers 503 only once a head has arrived, so slow connections still
hold file descriptors. These limits are enforced where the bytes arrive, before httptools
buffers them (an ASGI application sees a request only once its head is complete):

- ``max_head_bytes``: the request line and headers together (native gRPC refuses metadata over
  16 KiB); more → 431 and the connection is closed.
- ``head_timeout``: seconds from a connection's start, or from a request's first byte, until
  its head is complete; ``body_timeout``: seconds from a complete head until the whole body
  has arrived. Past either → the connection is closed (slow-loris).
- ``max_connections``: open connections on the port; a connection beyond it is answered 503
  and closed at once (its descriptor is given back without waiting for a head).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import structlog
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class HttpLimits:
    max_head_bytes: int = 16 * 1024
    head_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 512


def _plain(status: bytes, text: bytes) -> bytes:
    return (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"content-length: " + str(len(text)).encode() + b"\r\nconnection: close\r\n\r\n" + text
    )


TOO_LARGE = _plain(b"431 Request Header Fields Too Large", b"request head too large")
BUSY = _plain(b"503 Service Unavailable", b"too many connections")


def limited_protocol(limits: HttpLimits) -> type[HttpToolsProtocol]:
    """An ``HttpToolsProtocol`` class enforcing ``limits`` (give it as uvicorn's ``http``)."""

    class LimitedHttpToolsProtocol(HttpToolsProtocol):
        _in_head = True
        _head_bytes = 0  # bytes of the current head seen so far
        _timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                log.warning("browser connection refused", code="TOO_MANY_CONNECTIONS")
                self._refuse(BUSY)
                return
            self._arm(limits.head_timeout)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self._timer = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _expired(self) -> None:
            self._timer = None
            if not self.transport.is_closing():
                log.info("browser connection closed", code="REQUEST_TIMEOUT")
                self.transport.close()

        def _refuse(self, answer: bytes) -> None:
            self._disarm()
            if not self.transport.is_closing():
                self.transport.write(answer)
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.transport.is_closing():
                return
            counting = self._in_head
            if counting:
                # Counted before httptools buffers it, so a head never grows past the limit
                # plus one read; what follows a complete head in the same read is not head
                # (``on_headers_complete`` measures the parsed head exactly).
                self._head_bytes += len(data)
            super().data_received(data)
            if counting and self._in_head and self._head_bytes > limits.max_head_bytes:
                self._refuse(TOO_LARGE)

        def send_400_response(self, msg: str) -> None:
            if not self.transport.is_closing():
                super().send_400_response(msg)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if not self._in_head:  # the next request on a kept-alive connection
                self._in_head = True
                self._head_bytes = 0
                self._arm(limits.head_timeout)

        def on_headers_complete(self) -> None:
            self._in_head = False
            self._head_bytes = 0
            if self.transport.is_closing():
                return
            size = len(self.url) + sum(len(k) + len(v) + 4 for k, v in self.headers)
            if size > limits.max_head_bytes:
                self._refuse(TOO_LARGE)
                return
            self._arm(limits.body_timeout)
            super().on_headers_complete()

        def on_body(self, body: bytes) -> None:
            if not self.transport.is_closing():
                super().on_body(body)

        def on_message_complete(self) -> None:
            self._disarm()
            if not self.transport.is_closing():
                super().on_message_complete()

    return LimitedHttpToolsProtocol
