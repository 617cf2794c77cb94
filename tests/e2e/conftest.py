"""Fixtures of the end-to-end tests: a REAL gRPC server on port 0, real channels, real stores.

The server runs in a background thread with its own asyncio loop (``grpc.aio``), exactly as
``pref serve`` runs it; the tests talk to it with the synchronous ``service.client.GameClient``
from the test thread. PostgreSQL is real (``tests.integration.conftest`` explains where it is
expected); each test gets a fresh schema, dropped afterwards.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from psycopg import sql

from service.api.limits import Limits
from service.api.server import Server, create_server
from service.app.application import PreferansApplication
from service.app.config import StoreConfig, postgres_store, sqlite_store
from service.client import GameClient
from tests.integration.conftest import POSTGRES_URL, _admin_connection

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0


class ServerThread:
    """``create_server`` running in its own thread and event loop, until ``stop()``."""

    def __init__(self, store: StoreConfig, *, workers: int = 8, **options: Any) -> None:
        self.store = store
        self.workers = workers
        self.options = options
        """More keyword arguments of ``create_server`` (limits, tls, …)."""
        self.server: Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="e2e-server", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported by start()
            self._error = exc
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.server = await create_server(
            self.store, "127.0.0.1:0", workers=self.workers, **self.options
        )
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await self.server.stop(grace=1.0)

    def start(self) -> ServerThread:
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT):
            raise TimeoutError("the server did not start")
        if self._error is not None:
            raise self._error
        return self

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def app(self) -> PreferansApplication:
        assert self.server is not None
        return self.server.app

    def stop(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        self._thread.join(timeout=30)
        assert not self._thread.is_alive(), "the server thread did not stop"


ServerFactory = Callable[..., ServerThread]
"""``start_server(store, **options)``: a new server on that store (``options``: more arguments
of ``create_server``), stopped at teardown."""


@contextlib.contextmanager
def postgres_schema() -> Iterator[str]:
    """A fresh schema of the real PostgreSQL server (its URL), dropped afterwards."""
    schema = f"e2e_{uuid.uuid4().hex[:10]}"
    with _admin_connection() as admin:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield f"{POSTGRES_URL}?schema={schema}"
    finally:
        with _admin_connection() as admin:
            admin.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
            )


@pytest.fixture
def pg_url() -> Iterator[str]:
    """The URL (``postgresql://…?schema=…``) of a fresh PostgreSQL schema."""
    with postgres_schema() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreConfig]:
    """A fresh, empty store: an SQLite file, or a schema of the real PostgreSQL."""
    if request.param == "sqlite":
        yield sqlite_store(str(tmp_path / "events.sqlite"))
        return
    with postgres_schema() as url:
        yield postgres_store(url)


@pytest.fixture
def sqlite_only(tmp_path: Path) -> StoreConfig:
    return sqlite_store(str(tmp_path / "events.sqlite"))


@pytest.fixture
def start_server() -> Iterator[ServerFactory]:
    """Start servers; request it AFTER the store's fixture, so that the servers stop before
    their store is removed."""
    started: list[ServerThread] = []

    def factory(store: StoreConfig, **options: Any) -> ServerThread:
        running = ServerThread(store, **options).start()
        started.append(running)
        return running

    yield factory
    for running in reversed(started):
        running.stop()


UNTHROTTLED = Limits(creates_per_minute=0, open_games=0, calls_per_second=0, watch_streams=0)
"""No rate limits or quotas: for tests whose client plays as fast as it can on a loaded machine
(their subject is not the limits; ``test_limits`` checks those)."""


@pytest.fixture
def server(store: StoreConfig, start_server: ServerFactory) -> ServerThread:
    """One server on the test's store (SQLite and PostgreSQL)."""
    return start_server(store)


@pytest.fixture
def client(server: ServerThread) -> Iterator[GameClient]:
    game_client = GameClient(server.address)
    yield game_client
    game_client.close()


def with_dev_auth(store: StoreConfig, key: Path) -> StoreConfig:
    """``store`` with the development issuer trusted (``pref serve --dev-auth``), its key at
    ``key`` (``devissuer.load`` mints the tokens it accepts)."""
    from service.app import devissuer

    env = {devissuer.DEV_AUTH_ENV: "1", devissuer.DEV_KEY_FILE_ENV: str(key)}
    return StoreConfig({**store.env, **env})


def dev_token(key: Path, player: str) -> str:
    """A player's JWT from the development issuer whose key is at ``key``, as ``pref token``
    mints it."""
    from service.app import devissuer

    return devissuer.load({devissuer.DEV_KEY_FILE_ENV: str(key)}).mint(player)


LOBBY_KEY = Path(tempfile.mkdtemp(prefix="e2e-lobby-issuer-")) / "issuer.pem"
"""The development issuer's key of every ``lobby_server`` (``auth`` mints with it)."""
atexit.register(shutil.rmtree, LOBBY_KEY.parent, True)


def auth(player: str) -> tuple[tuple[str, str | bytes], ...]:
    """Metadata carrying ``player``'s JWT for a ``lobby_server``."""
    return (("authorization", f"Bearer {dev_token(LOBBY_KEY, player)}"),)


@pytest.fixture
def lobby_server(store: StoreConfig, start_server: ServerFactory) -> ServerThread:
    """A server (both stores) trusting the development issuer of ``auth``, unthrottled."""
    running: ServerThread = start_server(with_dev_auth(store, LOBBY_KEY), limits=UNTHROTTLED)
    return running


@pytest.fixture
def lobby(lobby_server: ServerThread) -> Iterator[tuple[Any, Any]]:
    """The table and game stubs of a ``lobby_server``."""
    from service.gen.preferans.v1 import game_pb2_grpc, table_pb2_grpc

    channel = grpc.insecure_channel(lobby_server.address)
    yield table_pb2_grpc.TableServiceStub(channel), game_pb2_grpc.GameServiceStub(channel)
    channel.close()


@pytest.fixture
def dev_key(tmp_path: Path) -> Path:
    """Where the development issuer's key of ``dev_server`` is (created on first use)."""
    return tmp_path / "dev-issuer.pem"


@pytest.fixture
def dev_server(
    sqlite_only: StoreConfig, start_server: ServerFactory, dev_key: Path
) -> ServerThread:
    """A server on SQLite that trusts the development issuer, unthrottled."""
    return start_server(with_dev_auth(sqlite_only, dev_key), limits=UNTHROTTLED)


@pytest.fixture
def dev_client(dev_server: ServerThread) -> Iterator[GameClient]:
    game_client = GameClient(dev_server.address)
    yield game_client
    game_client.close()


@pytest.fixture
def open_app() -> Iterator[Callable[[StoreConfig], PreferansApplication]]:
    """Applications opened by the test itself on a server's store (to read the log)."""
    opened: list[PreferansApplication] = []

    def factory(store: StoreConfig) -> PreferansApplication:
        application = PreferansApplication(store.env)
        opened.append(application)
        return application

    yield factory
    for application in opened:
        application.close()


# ----------------------------------------------------------------------------------------
# `pref serve` subprocesses


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class ServeProcess:
    """A real ``pref serve`` process on a free port."""

    def __init__(
        self, store: str, log_path: Path, log_level: str = "warning", extra: Sequence[str] = ()
    ) -> None:
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = log_path.open("wb")
        pref = Path(sys.executable).with_name("pref")
        self.process = subprocess.Popen(
            [
                str(pref),
                "serve",
                "--store",
                store,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                "4",
                "--log-level",
                log_level,
                *extra,
            ],
            cwd=REPO,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def wait_serving(self, timeout: float = START_TIMEOUT) -> None:
        """Until the standard health check answers SERVING."""
        deadline = time.monotonic() + timeout
        with grpc.insecure_channel(self.address) as channel:
            stub: Any = health_pb2_grpc.HealthStub(channel)
            while True:
                if self.process.poll() is not None:
                    raise AssertionError(f"pref serve exited early: {self.output()}")
                try:
                    answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                    if answer.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.RpcError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"pref serve did not start: {self.output()}")
                time.sleep(0.1)

    def output(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-4000:]

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM, then the exit code (killed if it does not stop in time)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            raise
        finally:
            self._log.close()
        return code


@pytest.fixture
def serve_process(tmp_path: Path) -> Iterator[Callable[..., ServeProcess]]:
    """Start ``pref serve`` processes (``factory(store, log_level="warning", extra=())``;
    ``extra``: more options); each is stopped (SIGTERM, else killed) at teardown."""
    started: list[ServeProcess] = []

    def factory(store: str, log_level: str = "warning", extra: Sequence[str] = ()) -> ServeProcess:
        running = ServeProcess(store, tmp_path / f"serve-{len(started)}.log", log_level, extra)
        started.append(running)
        running.wait_serving()
        return running

    yield factory
    for running in started:
        if running.process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                running.terminate()


# ----------------------------------------------------------------------------------------
# servers with their browser listener (service.connect; tests/e2e/test_connect*.py)


@pytest.fixture
def start_connect(start_server: ServerFactory) -> Iterator[Callable[..., Any]]:
    """``factory(store, **options)``: a server with its browser listener, both on free ports
    (``tests.e2e.connect_helpers.ConnectServerThread``), stopped at teardown."""
    from tests.e2e.connect_helpers import ConnectServerThread

    started: list[ConnectServerThread] = []

    def factory(store: StoreConfig, **options: Any) -> ConnectServerThread:
        running = ConnectServerThread(store, **options)
        running.start()
        started.append(running)
        return running

    yield factory
    for running in reversed(started):
        running.stop()


CONNECT_ISSUER_KEY = Path(tempfile.mkdtemp(prefix="e2e-connect-issuer-")) / "issuer.pem"
"""The development issuer's key of every ``web`` server (``dev_token(CONNECT_ISSUER_KEY, …)``)."""
atexit.register(shutil.rmtree, CONNECT_ISSUER_KEY.parent, True)


@pytest.fixture
def web(store: StoreConfig, start_connect: Callable[..., Any]) -> Any:
    """A server on the test's store (both) with its browser listener, trusting the
    development issuer of ``CONNECT_ISSUER_KEY``, unthrottled."""
    return start_connect(with_dev_auth(store, CONNECT_ISSUER_KEY), limits=UNTHROTTLED)
