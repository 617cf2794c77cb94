"""Helpers of the Connect tests: a server with its browser listener, and raw HTTP calls.

Raw calls use the standard library (``http.client``), so a test sees exactly the status,
headers and body a browser would: the Connect protocol's unary calls are plain POSTs of JSON
(``application/json``), its streams length-prefixed envelopes (``application/connect+json``).
"""

from __future__ import annotations

import http.client
import json
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from service.connect.server import Servers, create_server
from tests.e2e.conftest import ServerThread

END_STREAM = 0x02


class ConnectServerThread(ServerThread):
    """``service.connect.server.create_server`` in its own thread: gRPC and the browser
    listener, both on free ports."""

    servers: Servers | None = None

    async def _main(self) -> None:
        import asyncio

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        options = dict(self.options)
        options.setdefault("connect_address", "127.0.0.1:0")
        self.servers = await create_server(
            self.store, "127.0.0.1:0", workers=self.workers, **options
        )
        self.server = self.servers.grpc
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await self.servers.stop(grace=1.0)

    @property
    def http_port(self) -> int:
        assert self.servers is not None and self.servers.connect is not None
        return self.servers.connect.port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    port: int,
    method: str,
    path: str,
    body: bytes = b"",
    headers: Mapping[str, str] | None = None,
) -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=dict(headers or {}))
        response = connection.getresponse()
        data = response.read()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    finally:
        connection.close()


def post_json(
    port: int, path: str, message: Any, headers: Mapping[str, str] | None = None
) -> Answer:
    """A Connect unary call with a JSON body (``path``: ``/preferans.v1.<Service>/<Method>``)."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return request(
        port, "POST", path, body, {"Content-Type": "application/json", **(headers or {})}
    )


def envelope(data: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


def frames(body: bytes) -> Iterator[tuple[int, bytes]]:
    """The (flags, data) envelopes of a Connect or gRPC-Web stream body."""
    offset = 0
    while offset < len(body):
        flags, size = struct.unpack(">BI", body[offset : offset + 5])
        yield flags, body[offset + 5 : offset + 5 + size]
        offset += 5 + size


def error_of(answer: Answer) -> dict[str, Any]:
    """A Connect error: the unary body, or a stream's end-of-stream message."""
    if answer.headers.get("content-type", "").startswith("application/connect+"):
        ends = [json.loads(data) for flags, data in frames(answer.body) if flags & END_STREAM]
        assert ends, "the stream has no end message"
        error: dict[str, Any] = ends[-1]["error"]
        return error
    document: dict[str, Any] = answer.json()
    return document
