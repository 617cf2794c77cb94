"""End-to-end gRPC benchmark: card plays through the real server, with its baselines measured
in the same run (see /work/shared/BENCHMARKS.md).

Run: ``.venv/bin/python bench/grpc_bench.py`` (PostgreSQL at ``--url``, default
``postgresql://postgres@127.0.0.1:5432/test``). The benchmark creates its own schema
``bench_<random>`` and drops it at the end; every server process it starts is stopped.

The server runs in its OWN process (``python -m service.cli serve --store
postgresql://…?schema=bench_<random>``), so the load generator and the server do not share a
GIL. The client is one asyncio process: one ``grpc.aio`` channel, one task per game.

1. Games, closed loop, at 8 and 64 concurrent games: each game's task sends the next command
   (a seeded random choice among the ``legal`` actions of the actor's view, never a claim) as
   soon as the answer arrives. The ``SubmitAction`` response carries the acting seat's view;
   when another seat acts next (nearly always: the turn passes), the task reads that seat's view
   with ``GetSeatView`` (its token, ``min_version`` = the command's version) before its next
   command, like ``pref bots`` does. Only ``SubmitAction`` is a command; its latency (send to
   answer) is what the percentiles report, card plays (``play_card``) separately.
2. Games, open loop, 64 games: commands are scheduled at a fixed offered rate (by default 50 %
   and 80 % of the closed-loop commands/s measured at 64). Slot k goes to game k mod 64; a game
   still waiting for its previous answer (or its next view) is skipped for the next ready one,
   and counted; a slot with no ready game at all is counted as missed (not sent). Latency is
   measured from the send; the scheduler's lag (send minus slot time) is reported too.
3. Baseline (b): a no-op ``grpc.aio`` unary RPC server in its own process (a generic handler
   answering bytes), driven by the same client code, channel options and concurrency: one call
   per command with the measured average ``SubmitAction`` request / response sizes (and the
   same ``authorization`` metadata size). Diagnostic ``noop+view``: the client's call pattern,
   i.e. after the command-sized call, the measured share of ``GetSeatView``-sized calls.
4. Baseline (c), ``floor`` (``--no-floor`` skips it): the least any server of this
   architecture must do per command, a ``grpc.aio`` server in its own process (generic
   handlers, like (b)). Its ``Submit`` (the measured ``SubmitAction`` sizes) appends one row
   as large as the average stored event to a table shaped like (a)'s (``floor_events`` in the
   bench schema; the stream id is the request's first 16 bytes, one per client "game", the
   version counted in the server) and answers only once the row is committed: group commit as
   in ``service.app.groupcommit``, one thread with one psycopg connection inserting every row
   queued since its last commit in ONE transaction (``--floor-insert unnest``, the default:
   one ``INSERT ... SELECT FROM unnest(...)`` like eventsourcing's recorder, cheaper in client
   CPU than ``executemany`` in a pipeline in a micro-run), the event loop awaiting an asyncio
   future the thread completes with ``loop.call_soon_threadsafe`` (one callback per batch).
   Its ``View`` (the ``GetSeatView`` sizes) answers bytes: a view is served from memory. The
   client is the ``noop+view`` pattern (one command-sized call, then the measured share of
   view-sized calls), closed loop at the same concurrencies and open loop at the game runs'
   offered rates and at ``--open-fractions`` of its own closed-loop rate (can any durable
   server here keep the p99 target at 80 % of its capacity?). No decoding, domain, seat
   views, authentication, ``LOCK TABLE`` or ``NOTIFY``: what is left is the transport of 1.8
   RPCs and a durable group-committed write.
5. Baseline (a): raw psycopg, one ``INSERT`` per transaction of a row as large as the average
   stored event, at the same concurrency (``store_bench.PgInsertClient`` / ``closed_loop``).

Ratios are printed against the lower of (a) and (b) at the same concurrency, and against each;
the floor against (b), and the game server against (b) and (c), with the server CPU per
command of each (the CPU of the server processes only, not PostgreSQL's).

Scale-out (docs/SCALING.md): ``--servers N`` starts N game server processes on the same store
(the first runs the projections unless ``--no-projections``), N no-op and N floor servers,
and routes each game to one process by its id (``service.client.routing.pick``: client-side
game affinity); the server CPU is the sum over the processes. ``--shards N`` creates the store
with N shards; ``--store sqlite`` puts the events in SQLite files in a temporary directory
instead of the PostgreSQL schema (the raw-insert and floor baselines stay PostgreSQL).
The targets printed are issue 10's: commands >= 40 % of noop at 64 games (and, from before,
>= 40 % of raw insert), card-play p99 <= 10 ms in the open loop (the floor's p99 beside it).
``--profile-server FILE`` runs the game server under py-spy (``record``, all threads, speedscope
or flamegraph by extension, ``--profile-format raw`` for collapsed stacks) during the game runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import queue
import random
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import psycopg
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from psycopg import sql

from service.api.server import KEEPALIVE_OPTIONS
from service.app.keys import new_key_line
from service.client.routing import pick
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import game_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from store_bench import (  # a sibling script, not a package
    DEFAULT_URL,
    TOPIC,
    PgInsertClient,
    Result,
    closed_loop,
    say,
)

ROOT = Path(__file__).resolve().parent.parent
NOOP_SERVICE = "bench.Noop"
SUBMIT = f"/{NOOP_SERVICE}/Submit"
VIEW = f"/{NOOP_SERVICE}/View"
FLOOR_TABLE = "floor_events"
SHARE_TARGET = 0.4
"""Issue 10: card plays through gRPC at 64 games, closed loop, >= 40 % of the no-op server."""
P99_TARGET_MS = 10.0
"""Issue 10: card-play p99 <= 10 ms in the open loop at 80 % of the measured capacity."""
COMMAND_KINDS = ("play", "other")
MAX_ERRORS = 200


# ---------------------------------------------------------------------------------------------
# server processes


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    """A server in a child process, stopped by its pid (SIGTERM, then SIGKILL)."""

    label: str
    process: subprocess.Popen[bytes]
    port: int
    log_path: str
    profiler: subprocess.Popen[bytes] | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError), open(self.log_path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
        return ""

    def stop(self) -> None:
        if self.profiler is not None and self.profiler.poll() is None:
            self.profiler.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
            try:
                self.profiler.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.profiler.kill()
                self.profiler.wait()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.log_path)


async def wait_serving(server: ServerProcess, timeout: float = 60.0) -> None:
    """Poll the standard health service until it says SERVING (or the process dies)."""
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)  # the stubs type only sync channels
        while True:
            if server.process.poll() is not None:
                raise RuntimeError(
                    f"{server.label} exited with {server.process.returncode}:\n{server.log_tail()}"
                )
            with contextlib.suppress(grpc.aio.AioRpcError):
                reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{server.label} not SERVING after {timeout:g} s")
            await asyncio.sleep(0.1)


def spawn(label: str, argv: list[str]) -> ServerProcess:
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in argv]
    fd, log_path = tempfile.mkstemp(prefix="grpc_bench_", suffix=".log")
    with os.fdopen(fd, "wb") as log:
        process = subprocess.Popen(
            argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    return ServerProcess(label, process, port, log_path)


@contextlib.asynccontextmanager
async def running(server: ServerProcess) -> AsyncIterator[ServerProcess]:
    try:
        await wait_serving(server)
        yield server
    finally:
        server.stop()


def game_server(args: argparse.Namespace, schema: str, index: int = 0) -> ServerProcess:
    if args.store == "sqlite":
        store = str(Path(args.sqlite_dir) / "events.sqlite")
    else:
        store = f"{args.url}{'&' if '?' in args.url else '?'}schema={schema}"
    argv = [
        sys.executable,
        "-m",
        "service.cli",
        "serve",
        "--store",
        store,
        "--host",
        "127.0.0.1",
        "--port",
        "{port}",
        "--workers",
        str(args.workers),
        "--log-level",
        "warning",
        # One load generator plays every seat of every game from one address: measure the
        # server, not its per-caller limits.
        *("--creates-per-minute", "0", "--open-games", "0", "--calls-per-second", "0"),
        *("--watch-streams", "0"),
        # ... nor its per-connection stream limit: all 64 games share one channel, and at the
        # default 100 the server refuses streams (RST_STREAM REFUSED_STREAM) once answers come
        # faster than grpc.aio retires finished calls (docs/PERFORMANCE.md).
        *("--streams-per-connection", "1000"),
    ]
    if args.shards > 1:
        argv += ["--shards", str(args.shards)]
    if args.no_projections or index > 0:
        argv.append("--no-projections")
    server = spawn(f"game server {index}", argv)
    if args.profile_server and index == 0:  # one profile file: the first server's
        py_spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy"
        out = str(Path(args.profile_server).resolve())
        fmt = "speedscope" if out.endswith(".json") else args.profile_format
        server.profiler = subprocess.Popen(
            [
                *(py_spy, "record", "--pid", str(server.process.pid), "--threads"),
                *(["--idle"] if args.profile_idle else ["--gil"]),
                *("--rate", "200", "--format", fmt, "--output", out, "--nonblocking"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return server


def noop_server(submit_size: int, view_size: int) -> ServerProcess:
    argv = [sys.executable, str(Path(__file__).resolve()), "--serve-noop", "{port}"]
    argv += ["--noop-sizes", str(submit_size), str(view_size)]
    return spawn("no-op server", argv)


async def serve_noop(port: int, submit_size: int, view_size: int) -> None:
    """The no-op server (run in a child process): answers bytes of the given sizes."""
    submit_answer = os.urandom(submit_size)
    view_answer = os.urandom(view_size)

    async def submit(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        return submit_answer

    async def view(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        return view_answer

    await run_generic_server(
        port,
        NOOP_SERVICE,
        {
            "Submit": grpc.unary_unary_rpc_method_handler(submit),
            "View": grpc.unary_unary_rpc_method_handler(view),
        },
    )


def floor_server(args: argparse.Namespace, schema: str, sizes: Sizes) -> ServerProcess:
    argv = [sys.executable, str(Path(__file__).resolve()), "--serve-floor", "{port}"]
    argv += ["--noop-sizes", str(Sizes.mean(sizes.submit_resp)), str(Sizes.mean(sizes.view_resp))]
    argv += ["--url", args.url, "--floor-table", schema, FLOOR_TABLE]
    argv += ["--row-size", str(args.row_size), "--floor-insert", args.floor_insert]
    return spawn("floor server", argv)


class FloorCommitter:
    """The floor server's group commit, mirroring ``service.app.groupcommit.GroupCommitter``:
    one thread with one psycopg connection takes every row queued since its last commit and
    inserts them in ONE transaction; the event loop awaits an asyncio future that the thread
    completes with ``loop.call_soon_threadsafe`` once the transaction is committed (one
    callback per batch: the least any implementation must do)."""

    def __init__(
        self,
        url: str,
        schema: str,
        table: str,
        row_size: int,
        insert: str,
        loop: asyncio.AbstractEventLoop,
        max_batch: int = 128,
    ) -> None:
        # autocommit: ``transaction()`` is then exactly BEGIN ... COMMIT, as in the recorder.
        self.conn = psycopg.connect(url, autocommit=True)
        self.loop = loop
        self.max_batch = max_batch
        self.payload = os.urandom(row_size)
        self.insert = insert
        ident = sql.Identifier(schema, table)
        if insert == "unnest":  # one statement for the batch, like eventsourcing's recorder
            self.statement = sql.SQL(
                "INSERT INTO {} (stream, version, topic, state) "
                "SELECT * FROM unnest(%s::uuid[], %s::int4[], %s::text[], %s::bytea[])"
            ).format(ident)
        else:  # executemany in a pipeline: one INSERT per row, one round trip
            self.statement = sql.SQL(
                "INSERT INTO {} (stream, version, topic, state) VALUES (%s, %s, %s, %s)"
            ).format(ident)
        self.queue: queue.SimpleQueue[tuple[uuid.UUID, int, asyncio.Future[None]] | None] = (
            queue.SimpleQueue()
        )
        self.batches = 0
        self.rows = 0
        self.thread = threading.Thread(target=self._run, name="floor-commit", daemon=True)
        self.thread.start()

    def submit(self, stream: uuid.UUID, version: int) -> asyncio.Future[None]:
        """Queue one row; the future is done once it is committed (or failed)."""
        done: asyncio.Future[None] = self.loop.create_future()
        self.queue.put((stream, version, done))
        return done

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join(timeout=10)
        self.conn.close()

    def _run(self) -> None:
        stop = False
        while not stop:
            item = self.queue.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < self.max_batch:
                try:
                    more = self.queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            futures = [done for _, _, done in batch]
            try:
                self._write(batch)
            except BaseException as exc:  # every caller of the batch gets the failure
                self.loop.call_soon_threadsafe(_fail, futures, exc)
            else:
                self.loop.call_soon_threadsafe(_resolve, futures)

    def _write(self, batch: list[tuple[uuid.UUID, int, asyncio.Future[None]]]) -> None:
        self.batches += 1
        self.rows += len(batch)
        conn = self.conn
        if self.insert == "unnest":
            params = (
                [stream for stream, _, _ in batch],
                [version for _, version, _ in batch],
                [TOPIC] * len(batch),
                [self.payload] * len(batch),
            )
            with conn.transaction():
                conn.execute(self.statement, params, prepare=True)
        else:
            rows = [(stream, version, TOPIC, self.payload) for stream, version, _ in batch]
            with conn.pipeline(), conn.transaction(), conn.cursor() as cur:
                cur.executemany(self.statement, rows)


def _resolve(futures: list[asyncio.Future[None]]) -> None:
    for done in futures:
        if not done.done():  # a cancelled call
            done.set_result(None)


def _fail(futures: list[asyncio.Future[None]], exc: BaseException) -> None:
    for done in futures:
        if not done.done():
            done.set_exception(exc)


async def serve_floor(
    port: int,
    submit_size: int,
    view_size: int,
    url: str,
    schema: str,
    table: str,
    row_size: int,
    insert: str,
) -> None:
    """The floor server (run in a child process): ``Submit`` appends one row of ``row_size``
    bytes to ``schema.table`` with the group commit and answers ``submit_size`` bytes once the
    row is committed; ``View`` answers ``view_size`` bytes (a view is served from memory).
    A request starts with its game's stream id (16 bytes); the version is counted here, as the
    real server knows each game's version in memory."""
    submit_answer = os.urandom(submit_size)
    view_answer = os.urandom(view_size)
    committer = FloorCommitter(url, schema, table, row_size, insert, asyncio.get_running_loop())
    versions: dict[bytes, int] = {}

    async def submit(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        key = request[:16]
        version = versions.get(key, 0) + 1
        versions[key] = version
        await committer.submit(uuid.UUID(bytes=key), version)
        return submit_answer

    async def view(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        return view_answer

    try:
        await run_generic_server(
            port,
            NOOP_SERVICE,
            {
                "Submit": grpc.unary_unary_rpc_method_handler(submit),
                "View": grpc.unary_unary_rpc_method_handler(view),
            },
        )
    finally:
        committer.close()


async def run_generic_server(
    port: int, service: str, handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]
) -> None:
    """A bare ``grpc.aio`` server (the same keepalive options as ``pref serve``) with health
    checking and the given generic handlers, on 127.0.0.1:``port`` until SIGTERM/SIGINT."""
    server = grpc.aio.server(options=KEEPALIVE_OPTIONS)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(1.0)


# ---------------------------------------------------------------------------------------------
# clients: one task per game (or per no-op "game")


@dataclass
class Sizes:
    """Serialized sizes seen by the client (sampled), for the no-op baseline."""

    submit_req: list[int] = field(default_factory=list)
    submit_resp: list[int] = field(default_factory=list)
    view_req: list[int] = field(default_factory=list)
    view_resp: list[int] = field(default_factory=list)
    commands: int = 0
    views: int = 0
    metadata: int = 0

    @staticmethod
    def mean(values: list[int]) -> int:
        return round(sum(values) / len(values)) if values else 0

    @property
    def views_per_command(self) -> float:
        return self.views / self.commands if self.commands else 0.0


Sample = tuple[float, float, str]
"""(start, end, kind) by ``time.perf_counter``; kind: play, other (commands) or view."""


class Driver:
    """What the loops drive: ``step()`` sends one command (and whatever the client needs before
    the next one) and returns the samples."""

    busy: bool = False

    async def step(self) -> list[Sample]:
        raise NotImplementedError


class GameDriver(Driver):
    """One game, all three seats (each with its own token), through the real API."""

    def __init__(
        self,
        stub: game_pb2_grpc.GameServiceAsyncStub,
        run: str,
        index: int,
        sizes: Sizes,
        route: Any = None,
    ) -> None:
        self.stub = stub
        self.creator = stub
        self.route = route
        """Game name -> the stub of the process that serves it (``--servers``), or None."""
        self.run = run
        self.index = index
        self.rng = random.Random(index)
        self.sizes = sizes
        self.games = 0
        self.commands = 0
        self.name = ""
        self.metadata: list[tuple[tuple[str, str], ...]] = []
        self.view = pb.SeatView()

    async def new_game(self) -> None:
        self.games += 1
        players = [pb.Player(player_id=f"p{self.index}-{self.games}-{s}") for s in range(3)]
        created = await self.creator.CreateGame(
            pb.CreateGameRequest(
                players=players,
                rules=pb.RuleSet(name="default"),
                request_id=f"{self.run}-g{self.index}-{self.games}",
            )
        )
        self.name = created.game.name
        if self.route is not None:
            self.stub = self.route(self.name)
        self.metadata = [(("authorization", f"Bearer {t}"),) for t in created.seat_tokens]
        self.sizes.metadata = len(self.metadata[0][0][0]) + len(self.metadata[0][0][1])
        await self.refresh(created.game.version)

    async def refresh(self, version: int) -> None:
        """Find the actor (and its view) from seat 0's view; a new game if this one is over."""
        for _ in range(20):
            reply = await self.stub.GetSeatView(
                pb.GetSeatViewRequest(name=self.name, min_version=version),
                metadata=self.metadata[0],
            )
            view = reply.view
            if view.actor < 0:
                game = (await self.stub.GetGame(pb.GetGameRequest(name=self.name))).game
                if game.status == pb.GAME_STATUS_FINISHED:
                    await self.new_game()
                    return
                version = game.version
                continue
            if view.actor != 0:
                reply = await self.stub.GetSeatView(
                    pb.GetSeatViewRequest(name=self.name, min_version=version),
                    metadata=self.metadata[view.actor],
                )
                view = reply.view
            self.view = view
            return
        raise RuntimeError(f"{self.name}: no actor after 20 reads")

    def choose(self) -> pb.Action:
        legal = self.view.legal
        for _ in range(8):
            action = legal[int(self.rng.random() * len(legal))]
            if action.WhichOneof("kind") != "claim":
                return action
        return next(a for a in legal if a.WhichOneof("kind") != "claim")

    async def step(self) -> list[Sample]:
        view = self.view
        seat = view.actor
        action = self.choose()
        kind = "play" if action.WhichOneof("kind") == "play_card" else "other"
        self.commands += 1
        request = pb.SubmitActionRequest(
            name=self.name, action=action, request_id=f"{self.run}-{self.index}-{self.commands}"
        )
        t0 = time.perf_counter()
        try:
            reply = await self.stub.SubmitAction(request, metadata=self.metadata[seat])
        except grpc.aio.AioRpcError:
            await self.refresh(0)
            raise
        t1 = time.perf_counter()
        samples = [(t0, t1, kind)]
        sizes = self.sizes
        sizes.commands += 1
        sample = sizes.commands % 16 == 0
        if sample and kind == "play":
            sizes.submit_req.append(request.ByteSize())
            sizes.submit_resp.append(reply.ByteSize())
        after = reply.view
        if after.actor == seat and len(after.legal):
            self.view = after
        elif after.actor < 0:
            await self.refresh(reply.version)
        else:
            sizes.views += 1
            view_request = pb.GetSeatViewRequest(name=self.name, min_version=reply.version)
            t2 = time.perf_counter()
            got = await self.stub.GetSeatView(view_request, metadata=self.metadata[after.actor])
            samples.append((t2, time.perf_counter(), "view"))
            if sample:
                sizes.view_req.append(view_request.ByteSize())
                sizes.view_resp.append(got.ByteSize())
            self.view = got.view
            if self.view.actor != after.actor or not len(self.view.legal):
                await self.refresh(reply.version)
        return samples


class NoopDriver(Driver):
    """The same client doing no-op calls of the measured sizes: one command-sized call per step,
    plus (``views_per_command`` > 0) view-sized calls at the measured share. With ``stream``
    (the floor server) the command's request starts with a stream id of its own, one per
    driver, as a game's commands name their game."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        sizes: Sizes,
        views_per_command: float,
        stream: bool = False,
    ) -> None:
        self.submit: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(SUBMIT)
        self.view: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(VIEW)
        self.submit_payload = os.urandom(Sizes.mean(sizes.submit_req))
        if stream:  # the floor server: the request starts with this "game"'s stream id
            self.submit_payload = uuid.uuid4().bytes + self.submit_payload[16:]
        self.view_payload = os.urandom(Sizes.mean(sizes.view_req))
        token = "x" * max(1, sizes.metadata - len("authorization") - len("Bearer "))
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.views_per_command = views_per_command
        self.credit = 0.0

    async def step(self) -> list[Sample]:
        t0 = time.perf_counter()
        await self.submit(self.submit_payload, metadata=self.metadata)
        samples = [(t0, time.perf_counter(), "play")]
        self.credit += self.views_per_command
        if self.credit >= 1.0:
            self.credit -= 1.0
            t2 = time.perf_counter()
            await self.view(self.view_payload, metadata=self.metadata)
            samples.append((t2, time.perf_counter(), "view"))
        return samples


# ---------------------------------------------------------------------------------------------
# loops


@dataclass
class Run:
    """One measured run: the samples in the window, plus open-loop bookkeeping."""

    result: Result
    loop: str  # "closed" or "open"
    offered: float = 0.0
    slots: int = 0
    skipped: int = 0
    missed: int = 0
    lags: list[float] = field(default_factory=list)
    load: float = 0.0
    server_cpu: float = float("nan")
    client_cpu: float = float("nan")

    def cpu_share(self, seconds: float) -> float:
        """CPU seconds in the window as a share of one core."""
        return seconds / self.result.seconds

    def cpu_per_command(self) -> float:
        """Server CPU milliseconds per command."""
        return self.server_cpu / self.commands() * 1000 if self.commands() else float("nan")

    @property
    def label(self) -> str:
        return self.result.label

    @property
    def concurrency(self) -> int:
        return self.result.concurrency

    def commands(self, kind: str | None = None) -> int:
        kinds = COMMAND_KINDS if kind is None else (kind,)
        return sum(self.result.count(k) for k in kinds)

    def rate(self, kind: str | None = None) -> float:
        return self.commands(kind) / self.result.seconds

    def rpcs(self) -> float:
        return self.result.rate()

    def pct(self, q: float, kind: str = "play") -> float:
        return self.result.percentile(q, kind)

    def lag(self, q: float) -> float:
        if not self.lags:
            return float("nan")
        values = sorted(self.lags)
        return values[min(len(values) - 1, round(q / 100 * len(values)))] * 1000


def cpu_seconds(pid: int | Sequence[int] | None) -> float:
    """User + system CPU seconds of a process (all its threads), of several, or of this one."""
    if pid is None:
        return time.process_time()
    if not isinstance(pid, int):
        return sum(cpu_seconds(one) for one in pid)
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def probe(run: Run, pid: int | Sequence[int] | None, begin: float, end: float) -> None:
    """CPU used by the server process and by this client process in the window."""
    await asyncio.sleep(max(0.0, begin - time.perf_counter()))
    server, client = cpu_seconds(pid) if pid else 0.0, cpu_seconds(None)
    await asyncio.sleep(max(0.0, end - time.perf_counter()))
    run.server_cpu = cpu_seconds(pid) - server if pid else float("nan")
    run.client_cpu = cpu_seconds(None) - client


def keep(result: Result, samples: list[Sample], begin: float, end: float) -> None:
    for t0, t1, kind in samples:
        if t0 >= begin and t1 <= end:
            result.latencies.append(t1 - t0)
            result.kinds.append(kind)


def note_error(result: Result, exc: BaseException) -> None:
    result.errors += 1
    if result.errors <= 3:
        print(f"  ! {result.label}: {type(exc).__name__}: {exc}", file=sys.stderr)


async def closed(
    drivers: Sequence[Driver],
    label: str,
    store: str,
    seconds: float,
    warmup: float,
    pid: int | Sequence[int] | None = None,
) -> Run:
    """Every driver sends its next command as soon as the previous step returns."""
    result = Result(label, store, len(drivers), seconds)
    run = Run(result, "closed")
    start = time.perf_counter()
    begin, end = start + warmup, start + warmup + seconds
    probing = asyncio.create_task(probe(run, pid, begin, end))

    async def loop(driver: Driver) -> None:
        while time.perf_counter() < end and result.errors < MAX_ERRORS:
            try:
                samples = await driver.step()
            except (grpc.aio.AioRpcError, RuntimeError) as exc:
                note_error(result, exc)
                continue
            keep(result, samples, begin, end)

    await asyncio.gather(*(loop(d) for d in drivers))
    await probing
    run.load = os.getloadavg()[0]
    return run


async def open_loop(
    drivers: Sequence[Driver],
    rate: float,
    label: str,
    store: str,
    seconds: float,
    warmup: float,
    pid: int | Sequence[int] | None = None,
) -> Run:
    """Commands at a fixed offered rate: slot k goes to driver k mod n, or the next ready one."""
    result = Result(label, store, len(drivers), seconds)
    run = Run(result, "open", offered=rate)
    n = len(drivers)
    interval = 1.0 / rate
    start = time.perf_counter()
    begin, end = start + warmup, start + warmup + seconds
    tasks: set[asyncio.Task[None]] = set()
    probing = asyncio.create_task(probe(run, pid, begin, end))

    async def one(driver: Driver, slot: float) -> None:
        try:
            samples = await driver.step()
        except (grpc.aio.AioRpcError, RuntimeError) as exc:
            note_error(result, exc)
        else:
            keep(result, samples, begin, end)
            if samples and begin <= slot and samples[0][1] <= end:
                run.lags.append(samples[0][0] - slot)
        finally:
            driver.busy = False

    k = 0
    while result.errors < MAX_ERRORS:
        slot = start + k * interval
        if slot >= end:
            break
        k += 1
        now = time.perf_counter()
        if slot > now:
            await asyncio.sleep(slot - now)
        counted = slot >= begin
        run.slots += counted
        first = k % n
        for i in range(n):
            driver = drivers[(first + i) % n]
            if not driver.busy:
                break
        else:
            run.missed += counted
            continue
        run.skipped += i * counted
        driver.busy = True
        task = asyncio.create_task(one(driver, slot))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks, timeout=30)
    await probing
    run.load = os.getloadavg()[0]
    return run


# ---------------------------------------------------------------------------------------------
# the runs


def channel_for(target: str) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(target, options=[("grpc.keepalive_time_ms", 30_000)])


@dataclass
class Report:
    runs: list[Run] = field(default_factory=list)
    sizes: Sizes = field(default_factory=Sizes)
    event_size: float = 0.0
    play_event_size: float = 0.0
    rates: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, run: Run) -> Run:
        self.runs.append(run)
        say(row(run))
        return run

    def find(self, label: str, concurrency: int, loop: str = "closed") -> Run | None:
        for r in self.runs:
            if r.label == label and r.concurrency == concurrency and r.loop == loop:
                return r
        return None


async def prime(drivers: Sequence[GameDriver], limit: float) -> None:
    """Untimed: play every game until a card is to be played (bounded by ``limit`` seconds), so
    that the measured window is not all auctions (it takes about 8 commands to reach the play
    and about 30 card plays to finish a deal)."""
    deadline = time.perf_counter() + limit

    async def one(driver: GameDriver) -> None:
        for _ in range(60):
            if driver.view.phase == pb.PHASE_PLAY or time.perf_counter() > deadline:
                return
            with contextlib.suppress(grpc.aio.AioRpcError, RuntimeError):
                await driver.step()

    await asyncio.gather(*(one(d) for d in drivers))


async def game_runs(args: argparse.Namespace, run: str, schema: str, report: Report) -> None:
    async with contextlib.AsyncExitStack() as stack:
        servers = []
        for index in range(args.servers):  # one after the other: the first creates the store
            server = await stack.enter_async_context(running(game_server(args, schema, index)))
            servers.append(server)
            say(f"game server pid {server.process.pid} on {server.target} ({args.workers} workers)")
        stubs = {}
        for server in servers:
            channel = await stack.enter_async_context(channel_for(server.target))
            stubs[server.target] = game_pb2_grpc.GameServiceStub(channel)
        targets = list(stubs)

        def route(name: str) -> Any:
            return stubs[pick(name, targets)]

        most = max([*args.concurrency, args.open_games])
        drivers = [
            GameDriver(stubs[targets[i % len(targets)]], run, i, report.sizes, route)
            for i in range(most)
        ]
        t0 = time.perf_counter()
        for chunk in range(0, most, 16):
            await asyncio.gather(*(d.new_game() for d in drivers[chunk : chunk + 16]))
        say(f"{most} games created in {time.perf_counter() - t0:.1f} s (untimed)")
        pid = [server.process.pid for server in servers]
        say(header())
        for c in args.concurrency:
            await prime(drivers[:c], args.prime_seconds)
            report.add(
                await closed(drivers[:c], "grpc games", "pg", args.seconds, args.warmup, pid)
            )
        base = report.find("grpc games", args.open_games) or report.runs[-1]
        rates = [round(f * base.rate()) for f in args.open_fractions] + list(args.rate)
        report.rates = [r for r in rates if r > 0]
        for rate in report.rates:
            await prime(drivers[: args.open_games], args.prime_seconds)
            report.add(
                await open_loop(
                    drivers[: args.open_games],
                    rate,
                    "grpc games",
                    "pg",
                    args.seconds,
                    args.warmup,
                    pid,
                )
            )
        games = sum(d.games for d in drivers)
        report.notes.append(
            f"{games} games played in the game runs ({sum(d.commands for d in drivers)} commands)"
        )
    if args.profile_server:
        say(f"py-spy profile of the game server written to {args.profile_server}")


async def noop_runs(args: argparse.Namespace, report: Report) -> None:
    sizes = report.sizes
    async with contextlib.AsyncExitStack() as stack:
        channels = []
        pid = []
        for _ in range(args.servers):
            server = noop_server(Sizes.mean(sizes.submit_resp), Sizes.mean(sizes.view_resp))
            await stack.enter_async_context(running(server))
            channels.append(await stack.enter_async_context(channel_for(server.target)))
            pid.append(server.process.pid)
            say(f"no-op server pid {server.process.pid} on {server.target}")
        patterns: list[tuple[str, float]] = [("noop", 0.0)]
        if not args.no_view_pattern:
            patterns.append(("noop+view", sizes.views_per_command))
        for label, views in patterns:
            drivers = [
                NoopDriver(channels[i % len(channels)], sizes, views)
                for i in range(max(args.concurrency))
            ]
            for c in args.concurrency:
                report.add(await closed(drivers[:c], label, "noop", args.seconds, args.warmup, pid))
            if label == "noop":
                for rate in report.rates:
                    report.add(
                        await open_loop(
                            drivers[: args.open_games],
                            rate,
                            label,
                            "noop",
                            args.seconds,
                            args.warmup,
                            pid,
                        )
                    )


async def floor_runs(args: argparse.Namespace, schema: str, report: Report) -> None:
    """The floor: Submit-sized calls that each wait for a durable row (group commit), plus the
    measured share of View-sized calls, closed loop and open loop at the game runs' rates."""
    sizes = report.sizes
    async with contextlib.AsyncExitStack() as stack:
        channels = []
        pid = []
        for _ in range(args.servers):
            server = await stack.enter_async_context(running(floor_server(args, schema, sizes)))
            channels.append(await stack.enter_async_context(channel_for(server.target)))
            pid.append(server.process.pid)
            say(f"floor server pid {server.process.pid} on {server.target} ({args.floor_insert})")
        drivers = [
            NoopDriver(channels[i % len(channels)], sizes, sizes.views_per_command, stream=True)
            for i in range(max(args.concurrency))
        ]
        for c in args.concurrency:
            report.add(await closed(drivers[:c], "floor", "floor", args.seconds, args.warmup, pid))
        own = report.find("floor", args.open_games) or report.find("floor", max(args.concurrency))
        # The game runs' rates, and the same fractions of the floor's own capacity: whether any
        # durable server on this stack keeps the p99 target at 80 % of what it can do.
        rates = list(report.rates)
        if own is not None:
            rates += [round(f * own.rate()) for f in args.open_fractions]
        for rate in dict.fromkeys(rates):
            report.add(
                await open_loop(
                    drivers[: args.open_games],
                    rate,
                    "floor",
                    "floor",
                    args.seconds,
                    args.warmup,
                    pid,
                )
            )


def create_baseline_table(admin: psycopg.Connection[Any], schema: str, table: str) -> None:
    """The raw-insert baseline's table (the floor server writes to one of the same shape)."""
    admin.execute(
        sql.SQL(
            "CREATE TABLE {} (id bigserial PRIMARY KEY, stream uuid NOT NULL, "
            "version integer NOT NULL, topic text NOT NULL, state bytea NOT NULL, "
            "UNIQUE (stream, version))"
        ).format(sql.Identifier(schema, table))
    )


def raw_runs(args: argparse.Namespace, schema: str) -> list[Run]:
    runs = []
    for c in args.concurrency:
        inserters = [
            PgInsertClient(args.url, "baseline_events", schema, args.row_size, "raw")
            for _ in range(c)
        ]
        try:
            result = closed_loop(inserters, args.seconds, args.warmup, "raw insert", "pg")
        finally:
            for inserter in inserters:
                inserter.close()
        runs.append(Run(result, "closed", load=os.getloadavg()[0]))
    return runs


def event_sizes(admin: psycopg.Connection[Any], schema: str) -> tuple[float, float]:
    row_ = admin.execute(
        sql.SQL(
            "SELECT coalesce(avg(octet_length(state)), 0)::float8, "
            "coalesce(avg(octet_length(state)) FILTER (WHERE topic LIKE %s), 0)::float8 FROM {}"
        ).format(sql.Identifier(schema, "preferans_events")),
        ("%CardPlayed%",),
    ).fetchone()
    assert row_ is not None
    return float(row_[0]), float(row_[1])


def sqlite_event_sizes(directory: str) -> tuple[float, float]:
    """``event_sizes`` of the SQLite store's main file."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(Path(directory) / "events.sqlite")) as conn:
        row_ = conn.execute(
            "SELECT coalesce(avg(length(state)), 0), coalesce(avg(CASE WHEN topic LIKE ? THEN "
            "length(state) END), 0) FROM stored_events",
            ("%CardPlayed%",),
        ).fetchone()
    return float(row_[0]), float(row_[1])


# ---------------------------------------------------------------------------------------------
# reporting


def header() -> str:
    return (
        f"{'run':11} {'loop':14} {'C':>3} {'cmds/s':>7} {'plays/s':>7} {'rpc/s':>7} "
        f"{'play p50':>8} {'play p99':>8} {'view p50':>8} {'skip':>6} {'miss':>5} "
        f"{'lag p99':>7} {'srv cpu':>7} {'ms/cmd':>6} {'cli cpu':>7} {'err':>4} {'load':>5}"
    )


def row(r: Run) -> str:
    loop = "closed" if r.loop == "closed" else f"open @{r.offered:.0f}/s"
    views = r.result.count("view")
    view = f"{r.pct(50, 'view'):8.2f}" if views else f"{'':8}"
    opened = r.loop == "open"
    play_kind = "insert" if r.result.store == "pg" and r.label == "raw insert" else "play"
    commands = r.result.rate() if play_kind == "insert" else r.rate()
    plays = r.result.rate("insert") if play_kind == "insert" else r.rate("play")
    return (
        f"{r.label:11} {loop:14} {r.concurrency:3d} {commands:7.0f} {plays:7.0f} "
        f"{r.rpcs() if play_kind == 'play' else 0:7.0f} {r.pct(50, play_kind):8.2f} "
        f"{r.pct(99, play_kind):8.2f} {view} "
        f"{str(r.skipped) if opened else '':>6} {str(r.missed) if opened else '':>5} "
        f"{f'{r.lag(99):.2f}' if opened else '':>7} {cpu(r.cpu_share(r.server_cpu), '7.0%')} "
        f"{cpu(r.cpu_per_command(), '6.2f')} {cpu(r.cpu_share(r.client_cpu), '7.0%')} "
        f"{r.result.errors:4d} {r.load:5.1f}"
    )


def cpu(value: float, spec: str) -> str:
    width = int(spec.split(".")[0] or 0)
    return " " * width if math.isnan(value) else format(value, spec)


def ratio(x: float, y: float) -> str:
    return f"{x / y:.0%}" if y else "n/a"


def summary(args: argparse.Namespace, report: Report) -> list[str]:
    """The comparison lines: project vs the lower of (a) and (b), and vs each; the floor (c)
    against noop, and the project against both."""
    lines = []
    for c in args.concurrency:
        game = report.find("grpc games", c)
        raw = report.find("raw insert", c)
        noop = report.find("noop", c)
        pattern = report.find("noop+view", c)
        floor = report.find("floor", c)
        if game is None or noop is None:
            continue
        noop_rate = noop.rate()
        if raw is not None:
            raw_rate = raw.result.rate()
            lower = min(raw_rate, noop_rate)
            which = "raw insert" if raw_rate <= noop_rate else "noop"
            lines.append(
                f"C={c:<3} commands {game.rate():6.0f}/s (card plays {game.rate('play'):5.0f}/s): "
                f"{ratio(game.rate(), lower)} of the lower baseline ({which} {lower:.0f}/s); "
                f"{ratio(game.rate(), raw_rate)} of raw insert ({raw_rate:.0f}/s), "
                f"{ratio(game.rate(), noop_rate)} of noop ({noop_rate:.0f}/s)"
                + (
                    f", {ratio(game.rate(), pattern.rate())} of noop+view ({pattern.rate():.0f}/s)"
                    if pattern
                    else ""
                )
            )
        if floor is not None:
            lines.append(
                f"C={c:<3} floor {floor.rate():6.0f}/s (server CPU "
                f"{cpu(floor.cpu_per_command(), '.2f').strip()} ms/command; noop "
                f"{cpu(noop.cpu_per_command(), '.2f').strip()}, game "
                f"{cpu(game.cpu_per_command(), '.2f').strip()}): "
                f"{ratio(floor.rate(), noop_rate)} of noop; the game server "
                f"({game.rate():.0f}/s) is {ratio(game.rate(), noop_rate)} of noop and "
                f"{ratio(game.rate(), floor.rate())} of the floor"
            )
    return lines


def targets(args: argparse.Namespace, report: Report) -> list[str]:
    lines = []
    raw = report.find("raw insert", args.open_games)
    game = report.find("grpc games", args.open_games)
    if raw is not None and game is not None:
        share = game.rate() / raw.result.rate()
        lines.append(
            f"throughput target (>= 40% of raw insert at C={args.open_games}): "
            f"{share:.0%} -> {'met' if share >= 0.4 else 'MISSED'}"
        )
    noop = report.find("noop", args.open_games)
    floor = report.find("floor", args.open_games)
    if noop is not None and game is not None:
        share = game.rate() / noop.rate()
        line = (
            f"throughput target (>= {SHARE_TARGET:.0%} of noop at C={args.open_games}): "
            f"{share:.0%} -> {'met' if share >= SHARE_TARGET else 'MISSED'}"
        )
        if floor is not None:
            floor_share = floor.rate() / noop.rate()
            line += (
                f"; the floor reaches {floor_share:.0%} of noop, so the target is "
                f"{'within reach of' if floor_share >= SHARE_TARGET else 'above'} the floor"
            )
        lines.append(line)
    for r in report.runs:
        if r.loop == "open" and r.label in ("grpc games", "floor"):
            p99 = r.pct(99)
            what = "card play" if r.label == "grpc games" else "floor Submit"
            lines.append(
                f"latency target ({what} p99 <= {P99_TARGET_MS:g} ms at {r.concurrency} games), "
                f"open loop offered {r.offered:.0f}/s, achieved {r.rate():.0f}/s: p99 "
                f"{p99:.1f} ms -> {'met' if p99 <= P99_TARGET_MS else 'MISSED'}"
            )
    return lines


def markdown(args: argparse.Namespace, report: Report, argv: Sequence[str]) -> list[str]:
    load = os.getloadavg()
    s = report.sizes
    command = shlex.join([".venv/bin/python", "bench/grpc_bench.py", *argv])
    lines = [
        "### gRPC end to end: card plays through the server",
        "",
        f"`{command}` ({os.cpu_count()} cores, load average {load[0]:.1f} at the end; python "
        f"{sys.version.split()[0]}, grpcio {grpc.__version__}, psycopg {psycopg.__version__}; "
        f"{args.seconds:g} s measured per row after {args.warmup:g} s warm-up). The server runs "
        f"in its own process (`pref serve`, {args.workers} workers, projections "
        f"{'off' if args.no_projections else 'on'}, PostgreSQL); the client is one asyncio "
        "process with one `grpc.aio` channel and one task per game, playing all three seats "
        "(seeded random legal action, no claims). After each `SubmitAction` the next actor's "
        "view is read with `GetSeatView` when the turn passes "
        f"({s.views_per_command:.2f} reads per command). Latencies are `SubmitAction` send to "
        "answer, card plays only. Closed loop: each game sends its next command when the "
        "previous answer (and view) arrived. Open loop: commands at a fixed offered rate over "
        f"{args.open_games} games (a game still busy is skipped for the next ready one: "
        "`skipped`; a slot with no ready game is not sent: `missed`).",
        "",
        f"Baselines in the same run: (a) raw psycopg, one INSERT per transaction of a "
        f"{args.row_size}-byte row (the average stored event; CardPlayed "
        f"{report.play_event_size:.0f} bytes) into a table with a bigserial and UNIQUE "
        "(stream, version); (b) `noop`: a no-op `grpc.aio` unary server in its own process, "
        f"the same client, requests of {Sizes.mean(s.submit_req)} bytes and answers of "
        f"{Sizes.mean(s.submit_resp)} bytes (the average card-play `SubmitAction`), one call "
        "per command; `noop+view` also makes the view-sized calls the game client makes "
        f"({Sizes.mean(s.view_req)} / {Sizes.mean(s.view_resp)} bytes).",
        "",
        *(
            [
                "(c) `floor`: the least any server of this architecture does per command, a "
                "`grpc.aio` server in its own process whose command-sized call appends one "
                f"{args.row_size}-byte row to a table of the same shape as (a) and answers only "
                "once it is committed, with group commit (one thread, one psycopg connection, "
                "every row queued since its last commit in one transaction, "
                f"`{args.floor_insert}`), and whose view-sized call answers bytes (views are "
                f"served from memory); the client makes the `noop+view` call pattern "
                f"({s.views_per_command:.2f} view-sized calls per command). Not done by the "
                "floor: decoding, the domain, seat views, authentication, `LOCK TABLE` and "
                "`NOTIFY`.",
                "",
            ]
            if not args.no_floor
            else []
        ),
        "| run | loop | games | commands/s | card plays/s | RPCs/s | play p50 ms | "
        "play p99 ms | skipped | missed | server CPU | server CPU ms/command |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report.runs:
        insert = r.label == "raw insert"
        loop = "closed" if r.loop == "closed" else f"open, offered {r.offered:.0f}/s"
        kind = "insert" if insert else "play"
        cmds = r.result.rate() if insert else r.rate()
        plays = "" if insert else f"{r.rate('play'):.0f}"
        lines.append(
            f"| {r.label} | {loop} | {r.concurrency} | {cmds:.0f} | {plays} | "
            f"{'' if insert else f'{r.rpcs():.0f}'} | {r.pct(50, kind):.2f} | "
            f"{r.pct(99, kind):.2f} | {r.skipped if r.loop == 'open' else ''} | "
            f"{r.missed if r.loop == 'open' else ''} | "
            f"{cpu(r.cpu_share(r.server_cpu), '.0%').strip()} | "
            f"{cpu(r.cpu_per_command(), '.2f').strip()} |"
        )
    lines += ["", *(f"- {line}" for line in summary(args, report))]
    lines += [f"- {line}" for line in targets(args, report)]
    return lines


# ---------------------------------------------------------------------------------------------
# main


async def bench(args: argparse.Namespace, run: str, argv: Sequence[str]) -> None:
    schema = f"bench_{run}"
    report = Report()
    admin = psycopg.connect(args.url, autocommit=True)
    admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    say(f"schema {schema} created")
    try:
        await game_runs(args, run, schema, report)
        if args.store == "postgres":
            report.event_size, report.play_event_size = event_sizes(admin, schema)
        else:
            report.event_size, report.play_event_size = sqlite_event_sizes(args.sqlite_dir)
        if not args.row_size:
            args.row_size = round(report.event_size)
        s = report.sizes
        say(
            f"   sizes: card-play SubmitAction request {Sizes.mean(s.submit_req)} B, answer "
            f"{Sizes.mean(s.submit_resp)} B; GetSeatView request {Sizes.mean(s.view_req)} B, "
            f"answer {Sizes.mean(s.view_resp)} B; authorization metadata {s.metadata} B; "
            f"{s.views_per_command:.2f} GetSeatView per command; stored event "
            f"{report.event_size:.0f} B (CardPlayed {report.play_event_size:.0f} B)"
        )
        await noop_runs(args, report)
        if not args.no_floor:
            create_baseline_table(admin, schema, FLOOR_TABLE)
            await floor_runs(args, schema, report)
        create_baseline_table(admin, schema, "baseline_events")
        try:
            for raw in raw_runs(args, schema):
                report.add(raw)
        except psycopg.OperationalError as exc:  # a shared server's connection limit
            report.notes.append(f"raw insert baseline not measured: {str(exc).strip()[-80:]}")
    finally:
        admin.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
        admin.close()
        if args.store == "sqlite":
            shutil.rmtree(args.sqlite_dir, ignore_errors=True)
        say(f"schema {schema} dropped")
    say("")
    say("== ratios (closed loop, commands/s against baselines at the same concurrency) ==")
    for line in summary(args, report):
        say("  " + line)
    say("== targets ==")
    for line in targets(args, report):
        say("  " + line)
    for line in report.notes:
        say("  note: " + line)
    say("\n---- markdown for docs/PERFORMANCE.md ----\n")
    for line in markdown(args, report, argv):
        say(line)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL URL (a schema is made)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--seconds", type=float, default=6.0, help="measured seconds per row")
    parser.add_argument("--warmup", type=float, default=1.5, help="unmeasured seconds per row")
    parser.add_argument("--open-games", type=int, default=64, help="games in the open loop")
    parser.add_argument(
        "--open-fractions",
        type=float,
        nargs="*",
        default=[0.5, 0.8],
        help="open-loop offered rates as fractions of the closed-loop commands/s at --open-games",
    )
    parser.add_argument(
        "--rate", type=float, nargs="*", default=[], help="extra open-loop offered rates (/s)"
    )
    parser.add_argument(
        "--prime-seconds",
        type=float,
        default=8.0,
        help="at most this long (untimed) to bring the games to their card play before a row",
    )
    parser.add_argument("--workers", type=int, default=16, help="the server's store threads")
    parser.add_argument("--no-projections", action="store_true", help="server without projections")
    parser.add_argument(
        "--row-size", type=int, default=0, help="raw insert row bytes (default: average event)"
    )
    parser.add_argument(
        "--no-view-pattern", action="store_true", help="skip the noop+view diagnostic"
    )
    parser.add_argument(
        "--profile-server", metavar="FILE", help="py-spy record the game server to FILE"
    )
    parser.add_argument(
        "--profile-format", default="flamegraph", choices=("flamegraph", "raw", "speedscope")
    )
    parser.add_argument(
        "--profile-idle",
        action="store_true",
        help="py-spy: all threads, idle too (wall time); default: the GIL holder",
    )
    parser.add_argument(
        "--servers", type=int, default=1, help="game (and no-op) server processes, games routed"
    )
    parser.add_argument("--shards", type=int, default=1, help="the store's shards (--shards)")
    parser.add_argument(
        "--store", choices=("postgres", "sqlite"), default="postgres", help="the event store"
    )
    parser.add_argument("--serve-noop", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--noop-sizes", type=int, nargs=2, default=[0, 0], help=argparse.SUPPRESS)
    parser.add_argument(
        "--no-floor", action="store_true", help="skip the floor baseline (group-committed rows)"
    )
    parser.add_argument(
        "--floor-insert",
        choices=("unnest", "executemany"),
        default="unnest",
        help="the floor's batch insert: one INSERT ... SELECT FROM unnest (the default, as the "
        "recorder does), or executemany in a pipeline",
    )
    parser.add_argument("--serve-floor", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--floor-table", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_noop:
        asyncio.run(serve_noop(args.serve_noop, *args.noop_sizes))
        return
    if args.serve_floor:
        schema, table = args.floor_table
        submit_size, view_size = args.noop_sizes
        asyncio.run(
            serve_floor(
                args.serve_floor,
                submit_size,
                view_size,
                args.url,
                schema,
                table,
                args.row_size,
                args.floor_insert,
            )
        )
        return
    if args.open_games > max(args.concurrency):
        args.concurrency.append(args.open_games)
    run = secrets.token_hex(4)
    if args.store == "sqlite":
        args.sqlite_dir = tempfile.mkdtemp(prefix="grpc_bench_")
    load = os.getloadavg()
    say(
        f"grpc_bench run {run}: {args.servers} server process(es), {args.shards} shard(s), "
        f"{args.store}; {os.cpu_count()} cores, load average {load[0]:.1f} "
        f"{load[1]:.1f} {load[2]:.1f}, python {sys.version.split()[0]}, grpcio "
        f"{grpc.__version__}, psycopg {psycopg.__version__}"
    )
    asyncio.run(bench(args, run, sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    # A throwaway server key, unless one is configured: PostgreSQL stores need one.
    os.environ.setdefault("PREF_KEYS", new_key_line("bench"))
    main()
