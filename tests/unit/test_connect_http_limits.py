"""The browser port's HTTP limits (service/connect/protocol.py, docs/CONNECT.md "Limits").

Review rev-c found a 200 MB request head buffered and answered 200, and slow or idle
connections held forever (their descriptors starved native gRPC). Each test serves a small
ASGI app with uvicorn and the limited protocol, and talks raw HTTP/1.1 to it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from structlog.testing import capture_logs

from service.connect.protocol import HttpLimits, limited_protocol
from service.connect.server import (
    OUT_OF_RESOURCES,
    QuietAcceptErrors,
    _bind,
    _InLoopServer,
    _started,
)

LIMITS = HttpLimits(max_head_bytes=2048, head_timeout=0.5, body_timeout=0.5, max_connections=3)


async def echo(scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Any) -> None:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"got " + str(len(body)).encode()})


@asynccontextmanager
async def serving(limits: HttpLimits = LIMITS) -> AsyncIterator[int]:
    sock = _bind("127.0.0.1", 0)
    config = uvicorn.Config(
        echo, lifespan="off", log_config=None, access_log=False, http=limited_protocol(limits)
    )
    server = _InLoopServer(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    await _started(server, task)
    try:
        yield int(sock.getsockname()[1])
    finally:
        server.should_exit = True
        await task
        sock.close()


async def exchange(port: int, data: bytes) -> bytes:
    """Send ``data``, then read until the server closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), timeout=20)
    writer.close()
    return answer


def request(headers: bytes = b"", body: bytes = b"") -> bytes:
    return (
        b"POST /x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        + headers
        + b"Content-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


def test_a_head_within_the_limit_is_served_with_its_body() -> None:
    async def run() -> bytes:
        async with serving() as port:
            return await exchange(port, request(b"X-A: " + b"a" * 1500 + b"\r\n", b"b" * 5000))

    answer = asyncio.run(run())
    assert answer.startswith(b"HTTP/1.1 200") and b"got 5000" in answer


def test_a_head_over_the_limit_is_refused_with_431_before_it_is_buffered() -> None:
    async def run() -> tuple[bytes, bytes]:
        async with serving() as port:
            one_header = await exchange(port, request(b"X-A: " + b"a" * 3000 + b"\r\n"))
            many = b"".join(b"X-%d: v\r\n" % i for i in range(400))
            return one_header, await exchange(port, request(many))

    for answer in asyncio.run(run()):
        assert answer.startswith(b"HTTP/1.1 431"), answer[:80]


def test_an_endless_head_is_cut_off_at_the_limit() -> None:
    """The 200 MB header of the review: the server stops the connection (431, or a reset
    when the client is still sending) long before it could have buffered it all."""

    async def run() -> int:
        async with serving() as port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
            sent = 0
            try:
                while sent < 640 * 1024 * 1024:
                    writer.write(b"a" * 65536)
                    await writer.drain()
                    sent += 65536
                answer = await asyncio.wait_for(reader.read(), timeout=20)
                assert answer.startswith(b"HTTP/1.1 431")
            except ConnectionError:
                pass
            writer.close()
            return sent

    assert asyncio.run(run()) < 64 * 1024 * 1024


def test_a_slow_head_and_a_slow_body_are_closed() -> None:
    async def run() -> tuple[bytes, bytes, bytes]:
        async with serving() as port:
            idle = await exchange(port, b"")
            half_head = await exchange(port, b"GET / HTTP/1.1\r\nHost: localh")
            half_body = await exchange(port, request(body=b"x" * 100)[:-50])
            return idle, half_head, half_body

    assert asyncio.run(run()) == (b"", b"", b"")


def test_a_kept_alive_connection_serves_its_next_request() -> None:
    async def run() -> bytes:
        async with serving() as port:
            first = b"POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\nab"
            return await exchange(port, first + request(b"X-A: " + b"a" * 1500 + b"\r\n", b"c"))

    answer = asyncio.run(run())
    assert answer.count(b"HTTP/1.1 200") == 2 and b"got 1\r\n" in answer


def test_connections_beyond_the_cap_get_503_at_once() -> None:
    async def run() -> bytes:
        async with serving() as port:
            held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
            await asyncio.sleep(0.05)  # let the server accept them (not a timing assertion)
            answer = await exchange(port, b"")
            for _, writer in held:
                writer.close()
            return answer

    assert asyncio.run(run()).startswith(b"HTTP/1.1 503")


def test_accept_failures_for_lack_of_descriptors_are_logged_once_a_minute() -> None:
    """rev-c: ~36 000 EMFILE tracebacks were logged while descriptors were exhausted."""
    seen: list[dict[str, Any]] = []

    async def run() -> None:
        loop = asyncio.get_running_loop()
        handler = QuietAcceptErrors(lambda _loop, context: seen.append(context))
        failure = {"message": OUT_OF_RESOURCES, "exception": OSError(24, "Too many open files")}
        with capture_logs() as logged:
            for _ in range(1000):
                handler(loop, failure)
            handler(loop, {"message": "something else"})
        assert [entry["log_level"] for entry in logged] == ["warning"]
        assert "traceback" not in str(logged) and "exc_info" not in logged[0]

    asyncio.run(run())
    assert seen == [{"message": "something else"}]
