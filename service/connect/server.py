"""The browser listener: uvicorn serving ``service.connect.web`` in the gRPC server's loop.

``start_connect(running, address)`` starts it beside a running ``service.api.server.Server``:
the same application, event hub, keeper, servicers and interceptors answer both listeners,
in one asyncio loop (uvicorn is started with ``Server.serve`` on a socket bound here, so port
0 works and the port is known before the first request). It stops with the gRPC server
(``Server.before_stop``). ``create_server``/``serve`` are ``service.api.server``'s with the
browser listener added.

uvicorn serves HTTP/1.1, which is all browsers need for the Connect protocol and gRPC-Web
(both work over HTTP/1.1, unlike native gRPC); native gRPC clients keep the gRPC port.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from ssl import CERT_REQUIRED
from typing import Any

import structlog
import uvicorn
from connectrpc.compression.gzip import GzipCompression

from service.api.server import BindError, Server, tune_collector
from service.api.server import create_server as create_grpc_server
from service.api.tls import ServerTls, is_loopback
from service.app.config import StoreConfig
from service.app.devissuer import DevIssuer
from service.app.devissuer import load as load_dev_issuer
from service.connect.bridge import Bridge, GrpcMethods, RequestIds
from service.connect.codecs import codecs
from service.connect.protocol import HttpLimits, limited_protocol
from service.connect.web import ASGIApp, browser_app
from service.gen.preferans.v1 import (
    audit_connect,
    game_connect,
    ledger_connect,
    stats_connect,
    table_connect,
)

log = structlog.get_logger(__name__)

DEFAULT_CONNECT_PORT = 8080
DEFAULT_WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"
"""``clients/web/dist`` of this checkout (``npm run build`` in ``clients/web`` makes it)."""
APPLICATIONS = (
    game_connect.GameServiceASGIApplication,
    table_connect.TableServiceASGIApplication,
    stats_connect.StatsServiceASGIApplication,
    ledger_connect.LedgerServiceASGIApplication,
    audit_connect.AuditServiceASGIApplication,
)


class _InLoopServer(uvicorn.Server):
    """uvicorn without its signal handlers: ``pref serve`` handles SIGTERM/SIGINT for both
    listeners (``serve`` below)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


@dataclass
class ConnectListener:
    server: uvicorn.Server
    task: asyncio.Task[None]
    port: int
    url: str

    async def stop(self, grace: float) -> None:
        self.server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(self.task), timeout=grace + 1.0)
        except TimeoutError:
            self.server.force_exit = True
            await self.task


def connect_applications(running: Server) -> dict[str, ASGIApp]:
    """One generated Connect application per service, all answered by one ``Bridge``."""
    bridge = Bridge(GrpcMethods(running.handlers, running.interceptors))
    limits = running.limits
    apps: dict[str, ASGIApp] = {}
    request_ids = RequestIds()
    for application in APPLICATIONS:
        app: Any = application(
            bridge,
            interceptors=[request_ids],
            read_max_bytes=limits.max_receive_bytes,
            codecs=codecs(limits.max_send_bytes),
            # Level 1: answers are small protobuf JSON; level 6 (the default) cost CPU for
            # a few percent more compression (docs/PERFORMANCE.md).
            compressions=[GzipCompression(level=1)],
        )
        apps[app.path.strip("/")] = app
    return apps


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit it: uvicorn writes a response's head and body
        # separately, and with Nagle's algorithm the body waits for the client's delayed ACK
        # of the head (about 40 ms on every call).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(1024)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise BindError(f"cannot listen on {host}:{port} for browsers: {exc.strerror}") from None
    return sock


OUT_OF_RESOURCES = "socket.accept() out of system resource"
"""asyncio's message when ``accept`` fails with EMFILE/ENFILE/ENOBUFS/ENOMEM (it then pauses
that listener for a second and tries again)."""


class QuietAcceptErrors:
    """A loop exception handler: asyncio's "out of system resource" at ``accept`` is logged as
    one warning a minute without a traceback (rev-c: ~36 000 tracebacks while descriptors
    were exhausted); anything else goes to the previous handler."""

    def __init__(self, previous: Any = None, every: float = 60.0) -> None:
        self.previous = previous
        self.every = every
        self.quiet_until: float | None = None
        self.suppressed = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != OUT_OF_RESOURCES:
            if self.previous is not None:
                self.previous(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        now = loop.time()
        if self.quiet_until is not None and now < self.quiet_until:
            self.suppressed += 1
            return
        log.warning(
            "cannot accept connections: out of file descriptors or memory; retrying",
            error=str(context.get("exception")),
            suppressed=self.suppressed,
        )
        self.quiet_until = now + self.every
        self.suppressed = 0


START_SECONDS = 30.0
"""How long the browser listener may take to start before ``pref serve`` gives up."""


async def _started(server: uvicorn.Server, task: asyncio.Task[None]) -> None:
    """Return once uvicorn has started serving; ``BindError`` with the reason if its task
    ends first (it loads its protocol classes, ``httptools`` among them, inside ``serve``)
    or does not start within ``START_SECONDS``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_SECONDS
    while not server.started:
        if task.done():
            reason = "it stopped at start"
            if not task.cancelled() and task.exception() is not None:
                reason = f"{type(task.exception()).__name__}: {task.exception()}"
            raise BindError(f"the browser listener failed to start: {reason}")
        if loop.time() > deadline:
            server.should_exit = True
            raise BindError("the browser listener did not start in time")
        await asyncio.sleep(0.005)


def dev_issuer_of(running: Server) -> DevIssuer | None:
    """The development issuer when the server trusts it (``--dev-auth``), else ``None``."""
    if not running.app.identity.dev:
        return None
    return load_dev_issuer(running.app.env)


async def start_connect(
    running: Server,
    address: str = "127.0.0.1:0",
    *,
    web_root: Path | None = None,
    cors_origins: Sequence[str] = (),
    tls: ServerTls | None = None,
    http_limits: HttpLimits | None = None,
    public_hosts: Sequence[str] = (),
) -> ConnectListener:
    """Serve the browser application on ``address`` (port 0 picks one) until ``running``
    stops; over HTTPS with ``tls``'s certificate (read at start; with its client CA, client
    certificates are required as on the gRPC port); HTTP limits from ``http_limits``
    (``service.connect.protocol``)."""
    host, _, port_text = address.rpartition(":")
    sock = _bind(host, int(port_text))
    port = int(sock.getsockname()[1])
    app = browser_app(
        connect_applications(running),
        web_root or DEFAULT_WEB_ROOT,
        dev_issuer_of(running),
        cors_origins,
        loopback=is_loopback(host.strip("[]")),
        public_hosts=public_hosts,
    )
    ssl: dict[str, Any] = {}
    if tls is not None:
        ssl = {"ssl_certfile": tls.cert_file, "ssl_keyfile": tls.key_file}
        if tls.client_ca_file:
            ssl.update(ssl_ca_certs=tls.client_ca_file, ssl_cert_reqs=CERT_REQUIRED)
    config = uvicorn.Config(
        app,
        **ssl,
        lifespan="off",
        log_config=None,
        access_log=False,
        server_header=False,
        proxy_headers=False,
        ws="none",
        # uvicorn's httptools protocol (the C parser; h11, uvicorn's other one, is pure
        # Python) with head size, head/body timeouts and a connection cap.
        http=limited_protocol(http_limits or HttpLimits()),
        # Browsers keep idle connections for minutes: closing them after uvicorn's default 5 s
        # races with a request sent on one just then (the client sees a reset).
        timeout_keep_alive=75,
        timeout_graceful_shutdown=5,
    )
    loop = asyncio.get_running_loop()
    if not isinstance(loop.get_exception_handler(), QuietAcceptErrors):
        loop.set_exception_handler(QuietAcceptErrors(loop.get_exception_handler()))
    server = _InLoopServer(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await _started(server, task)
    except BaseException:
        sock.close()
        raise
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    url = f"{'https' if tls else 'http'}://{shown}:{port}/"
    listener = ConnectListener(server, task, port, url)
    running.before_stop.append(listener.stop)
    if tls is None and not is_loopback(host.strip("[]")):
        log.warning(
            "serving browsers without TLS on a non-loopback address: tokens travel in clear "
            "text (give --tls-cert and --tls-key)",
            address=address,
        )
    log.info("serving browsers (Connect, gRPC-Web, the web table)", url=url)
    return listener


@dataclass
class Servers:
    """The gRPC server and, unless turned off, the browser listener beside it."""

    grpc: Server
    connect: ConnectListener | None

    async def stop(self, grace: float = 5.0) -> None:
        await self.grpc.stop(grace)


async def create_server(
    store: StoreConfig,
    address: str = "127.0.0.1:0",
    *,
    connect_address: str | None = "127.0.0.1:0",
    web_root: Path | None = None,
    cors_origins: Sequence[str] = (),
    http_limits: HttpLimits | None = None,
    public_hosts: Sequence[str] = (),
    **options: Any,
) -> Servers:
    """``service.api.server.create_server(store, address, **options)`` and the browser
    listener on ``connect_address`` (``None``: none)."""
    running = await create_grpc_server(store, address, **options)
    connect = None
    if connect_address is not None:
        try:
            connect = await start_connect(
                running,
                connect_address,
                web_root=web_root,
                cors_origins=cors_origins,
                tls=options.get("tls"),
                http_limits=http_limits,
                public_hosts=public_hosts,
            )
        except BaseException:
            await running.stop(0)
            raise
    return Servers(running, connect)


async def serve(store: StoreConfig, address: str, **options: Any) -> None:
    """Run ``create_server(store, address, **options)`` until SIGTERM or SIGINT, then stop
    gracefully."""
    servers = await create_server(store, address, **options)
    tune_collector()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping")
    await servers.stop(grace=10.0)
    log.info("stopped")
