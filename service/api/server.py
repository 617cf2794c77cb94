"""The gRPC server: ``create_server`` builds it (bind to port 0 in tests); ``pref serve`` runs it
with the browser listener beside it (``service.connect.server.serve``).

The composition root: one application (event store), one thread pool for it, one event hub
(one store subscription per process), the projection worker, health checking and reflection.
``Server.stop`` stops it gracefully (on SIGTERM or SIGINT under ``pref serve``): health turns
NOT_SERVING, in-flight calls finish within the grace period, then the store is closed.

The listener serves TLS when given ``ServerTls`` (``service.api.tls``); every call is charged to its
caller's budgets (``service.api.quotas``). The port is this server's alone: gRPC's default
SO_REUSEPORT would let a second server share it silently, so it is off unless ``reuse_port``.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from projections import ProjectionWorker, standard_runners
from service.api.audit_servicer import AuditServicer
from service.api.auth import AuthInterceptor
from service.api.game_servicer import GameServicer, batch_bytes
from service.api.game_servicer import add_to_server as add_game_servicer
from service.api.ledger_servicer import LedgerServicer
from service.api.limits import Limits
from service.api.logs import RequestIdInterceptor
from service.api.malformed import MalformedRequestInterceptor
from service.api.pagetoken import PageTokens
from service.api.projection_health import report_projection_health
from service.api.quotas import CallerIdentity, QuotaInterceptor, still_open_games
from service.api.stats_servicer import StatsServicer
from service.api.table_servicer import TableServicer
from service.api.tls import ServerTls, is_loopback
from service.app.application import PreferansApplication
from service.app.config import StoreConfig
from service.app.hub import EventHub
from service.app.keeper import Keeper
from service.app.tables import Lobby
from service.gen.preferans.v1 import (
    audit_pb2,
    audit_pb2_grpc,
    game_pb2,
    ledger_pb2,
    ledger_pb2_grpc,
    stats_pb2,
    stats_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)

log = structlog.get_logger(__name__)
SERVICE_NAME = game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
STATS_SERVICE_NAME = stats_pb2.DESCRIPTOR.services_by_name["StatsService"].full_name
AUDIT_SERVICE_NAME = audit_pb2.DESCRIPTOR.services_by_name["AuditService"].full_name
LEDGER_SERVICE_NAME = ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"].full_name
TABLE_SERVICE_NAME = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
AUDITOR_TOKEN_ENV = "PREF_AUDITOR_TOKEN"

KEEPALIVE_OPTIONS = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.http2.max_pings_without_data", 0),
    # Long streams are re-balanced across replicas behind a headless Service.
    ("grpc.max_connection_age_ms", 30 * 60_000),
    ("grpc.max_connection_age_grace_ms", 60_000),
]


class BindError(RuntimeError):
    """The server cannot listen on its address (in use, or not an address of this host)."""


COLLECTOR_THRESHOLDS = (20_000, 20, 10)
"""Python's collector thresholds under ``pref serve``: a young collection every 20,000 net
allocations (the default, 700, ran one every few commands), the older ones as often as before
relative to it. The full collection still runs (cycles in evicted games are freed)."""


def tune_collector() -> None:
    """Freeze what the server holds once it has started (modules, descriptors, rule tables:
    about 110,000 objects) out of every later collection, and raise the young threshold
    (``COLLECTOR_THRESHOLDS``). A full collection then scans only what the games created: its
    pauses of the event loop went from 30–135 ms to 10–75 ms, and the collector's share of the
    server's CPU from 3–4 % to under 1 % (docs/PERFORMANCE.md, "Garbage collection")."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def _listen(
    server: grpc.aio.Server, address: str, tls: ServerTls | None, *, warn: bool = True
) -> int:
    """Bind ``address`` (TLS when configured); the port bound, or ``BindError``."""
    credentials = tls.credentials() if tls is not None else None
    try:
        if credentials is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, credentials)
    except RuntimeError:
        port = 0
    if not port:
        raise BindError(f"cannot listen on {address}: the address is in use or not available")
    if warn and tls is None and not is_loopback(address.rpartition(":")[0]):
        log.warning(
            "serving without TLS on a non-loopback address: seat tokens and the auditor "
            "credential travel in clear text (give --tls-cert and --tls-key)",
            address=address,
        )
    return port


def _health_listener(
    servicer: health.aio.HealthServicer, address: str, reuse_port: bool
) -> grpc.aio.Server:
    """A plaintext listener with nothing but ``grpc.health.v1``: for probes that cannot speak
    TLS (the kubelet's gRPC probe). It reveals only whether the server is SERVING."""
    server = grpc.aio.server(
        options=[
            ("grpc.so_reuseport", 1 if reuse_port else 0),
            ("grpc.max_receive_message_length", 1024),
            ("grpc.max_concurrent_streams", 8),
        ]
    )
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    _listen(server, address, None, warn=False)
    return server


@dataclass
class Server:
    server: grpc.aio.Server
    port: int
    app: PreferansApplication
    hub: EventHub
    executor: ThreadPoolExecutor
    health: health.aio.HealthServicer
    projections: ProjectionWorker | None = None
    health_server: grpc.aio.Server | None = None
    keeper: Keeper | None = None
    stopped: bool = field(default=False)
    sweeper: asyncio.Task[None] | None = None
    """Finishes the starts of full tables a crash interrupted (``sweep_starts``)."""
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = field(default_factory=dict)
    """Every method handler of the five services, by path (``/preferans.v1.GameService/…``),
    as registered: other adapters (``service.connect``) call them behind ``interceptors``."""
    interceptors: tuple[grpc.aio.ServerInterceptor, ...] = ()
    """The server's interceptors, in order (the same objects: budgets are shared)."""
    limits: Limits = field(default_factory=Limits)
    before_stop: list[Callable[[float], Awaitable[None]]] = field(default_factory=list)
    """Stopped (with the grace period) after the watch streams are told to end and before the
    gRPC server stops: other listeners of the same application (``service.connect``)."""

    async def stop(self, grace: float = 5.0) -> None:
        if self.stopped:
            return
        self.stopped = True
        await self.health.enter_graceful_shutdown()
        self.hub.close_watchers()
        for stop in self.before_stop:
            try:
                await stop(grace)
            except Exception:
                log.warning("a listener failed to stop", exc_info=True)
        if self.keeper is not None:
            self.keeper.stop()
        if self.sweeper is not None:
            self.sweeper.cancel()
        await self.server.stop(grace)
        if self.health_server is not None:
            await self.health_server.stop(0)
        self.hub.stop()
        if self.projections is not None:
            self.projections.stop()
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.app.close()


async def create_server(
    store: StoreConfig,
    address: str = "127.0.0.1:0",
    *,
    workers: int = 16,
    run_projections: bool = True,
    auditor_token: str | None = None,
    limits: Limits | None = None,
    tls: ServerTls | None = None,
    reuse_port: bool = False,
    health_address: str | None = None,
    run_keeper: bool = True,
    keeper_clock: Callable[[], float] | None = None,
) -> Server:
    """Build and start a server on ``address`` (port 0 picks a free port).

    ``auditor_token`` is the secret of the auditor credential (default: ``$PREF_AUDITOR_TOKEN``;
    without one, the audit API refuses every call). ``limits``: the per-caller budgets and
    message limits (default: ``Limits()``); ``tls``: serve TLS (optionally mTLS); ``reuse_port``:
    let other processes bind the same port (off: a second server fails with ``BindError``);
    ``health_address``: also serve health checks alone, in plaintext, there (for probes);
    ``run_keeper``: run the keeper (``service.app.keeper``: bot seats, clocks), on
    ``keeper_clock`` (default: the server's clock)."""
    if auditor_token is None:
        auditor_token = os.environ.get(AUDITOR_TOKEN_ENV) or None
    env = dict(store.env)
    if store.flavor == "postgres":
        env.setdefault("POSTGRES_POOL_SIZE", str(workers + 2))
        env.setdefault("POSTGRES_MAX_OVERFLOW", str(workers))
    app = PreferansApplication(env)
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="app")
    hub = EventHub()
    hub.bind(asyncio.get_running_loop())
    keeper = Keeper(app, clock=keeper_clock or time.time) if run_keeper else None
    if keeper is not None:  # every write the hub hears of, this process's or another's
        hub.on_notify = keeper.watch
    hub.follow(app.recorder, on_event=app.invalidate)
    projections = None
    if run_projections:
        projections = ProjectionWorker(list(standard_runners(app, app.db).values()))
        projections.start()
    limits = limits if limits is not None else Limits()
    quotas = QuotaInterceptor(
        limits, CallerIdentity(app, auditor_token), still_open_games(app), executor
    )
    interceptors = (
        RequestIdInterceptor(),
        AuthInterceptor(app),
        quotas,
        MalformedRequestInterceptor(),
    )
    server = grpc.aio.server(
        interceptors=interceptors,
        options=[
            *KEEPALIVE_OPTIONS,
            *limits.grpc_options(),
            ("grpc.so_reuseport", 1 if reuse_port else 0),
        ],
    )
    # Page tokens are signed with a key derived from the server key: every replica accepts them.
    page_tokens = PageTokens.derived_from(app.keys.current[1])
    game_servicer = GameServicer(
        app, executor, hub, projections, page_tokens, batch_bytes=batch_bytes(limits)
    )
    add_game_servicer(game_servicer, server)
    stats_servicer = StatsServicer(app.db, executor, page_tokens)
    stats_pb2_grpc.add_StatsServiceServicer_to_server(stats_servicer, server)
    ledger_servicer = LedgerServicer(app.db, executor, page_tokens)
    ledger_pb2_grpc.add_LedgerServiceServicer_to_server(ledger_servicer, server)
    audit_servicer = AuditServicer(app, executor, auditor_token, page_tokens)
    audit_servicer.after_write = game_servicer.after_write
    audit_pb2_grpc.add_AuditServiceServicer_to_server(audit_servicer, server)
    lobby = Lobby(app)
    lobby.on_game_created = hub.notify  # a started table's game: its bots play at once
    if projections is not None:  # the lobby read model follows each change at once
        worker = projections
        lobby.on_change = lambda table_id: worker.poke()
    table_servicer = TableServicer(lobby, executor, page_tokens, hub)
    table_pb2_grpc.add_TableServiceServicer_to_server(table_servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    services = (SERVICE_NAME, STATS_SERVICE_NAME, AUDIT_SERVICE_NAME, LEDGER_SERVICE_NAME)
    for name in ("", *services, TABLE_SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if projections is not None:
        await report_projection_health(projections, health_servicer)
    reflection.enable_server_reflection(
        (
            SERVICE_NAME,
            STATS_SERVICE_NAME,
            AUDIT_SERVICE_NAME,
            LEDGER_SERVICE_NAME,
            TABLE_SERVICE_NAME,
            health.SERVICE_NAME,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    health_server = None
    try:
        port = _listen(server, address, tls)
        if health_address is not None:
            health_server = _health_listener(health_servicer, health_address, reuse_port)
    except BaseException:
        hub.stop()
        if projections is not None:
            projections.stop()
        executor.shutdown(wait=False, cancel_futures=True)
        app.close()
        raise
    await server.start()
    if health_server is not None:
        await health_server.start()
    if keeper is not None:
        keeper.after_write = game_servicer.after_write
        keeper.start()
    log.info("serving", address=address, port=port, store=store.describe(), tls=tls is not None)
    running = Server(
        server, port, app, hub, executor, health_servicer, projections, health_server, keeper
    )
    running.handlers = registered_handlers(
        game_servicer, stats_servicer, ledger_servicer, audit_servicer, table_servicer
    )
    running.interceptors = interceptors
    running.limits = limits
    running.sweeper = asyncio.create_task(sweep_starts(table_servicer.lobby, executor))
    return running


class _Recorder:
    """Stands in for a server to the registration functions, keeping the handlers by path."""

    def __init__(self) -> None:
        self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        """Kept by ``add_registered_method_handlers`` instead."""

    def add_registered_method_handlers(
        self, service: str, handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        for name, handler in handlers.items():
            self.handlers[f"/{service}/{name}"] = handler


def registered_handlers(
    game: GameServicer,
    stats: StatsServicer,
    ledger: LedgerServicer,
    audit: AuditServicer,
    table: TableServicer,
) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """The method handlers the five servicers register, by path, exactly as the gRPC server
    has them (the game service's watch methods with their pass-through serializer)."""
    recorder = _Recorder()
    server = cast(grpc.aio.Server, recorder)
    add_game_servicer(game, server)
    stats_pb2_grpc.add_StatsServiceServicer_to_server(stats, server)
    ledger_pb2_grpc.add_LedgerServiceServicer_to_server(ledger, server)
    audit_pb2_grpc.add_AuditServiceServicer_to_server(audit, server)
    table_pb2_grpc.add_TableServiceServicer_to_server(table, server)
    return recorder.handlers


SWEEP_SECONDS = 30.0
"""How often a server looks for full tables whose game a crash kept from starting."""


async def sweep_starts(lobby: Lobby, executor: ThreadPoolExecutor) -> None:
    """Every ``SWEEP_SECONDS`` (and at once), finish the starts the lobby read model shows as
    due (``Lobby.sweep_pending``); a failure is logged and tried again next time."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            started = await loop.run_in_executor(executor, lobby.sweep_pending)
            if started:
                log.info("finished interrupted table starts", tables=started)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("sweeping table starts failed; retrying later", exc_info=True)
        await asyncio.sleep(SWEEP_SECONDS)
