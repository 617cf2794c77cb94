"""``pref serve --processes N`` (docs/SCALING.md): N server processes on one port, supervised.
The children share the port (SO_REUSEPORT) and the store; a child that dies is started again;
SIGTERM stops them all gracefully; a child that cannot start stops the supervisor with exit 2."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from domain.rules import RuleSet
from service.client import GameClient
from tests.e2e.conftest import REPO, free_port
from tests.e2e.helpers import PLAYERS

LIVENESS_SECONDS = 60.0
"""A bound for a loaded machine to start or restart a process; not a performance figure."""


def _servers(supervisor: int) -> list[int]:
    """The supervisor's server children (not multiprocessing's resource tracker)."""
    found = []
    for task in Path(f"/proc/{supervisor}/task").iterdir():
        children = (task / "children").read_text().split()
        for pid in children:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except FileNotFoundError:
                continue
            if b"spawn_main" in cmdline:
                found.append(int(pid))
    return sorted(found)


def _wait(condition: object, what: str) -> None:
    deadline = time.monotonic() + LIVENESS_SECONDS
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {LIVENESS_SECONDS:g} s: {what}")


def _serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)
        try:
            answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
        except grpc.RpcError:
            return False
    return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)


@pytest.fixture
def supervisor(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str, Path]]:
    port = free_port()
    log = tmp_path / "supervisor.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "service.cli", "serve", "--processes", "2"),
                *("--store", str(tmp_path / "events.sqlite"), "--port", str(port)),
                *("--workers", "4", "--log-level", "warning"),
            ],
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        yield process, f"127.0.0.1:{port}", log
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_two_processes_share_a_port_restart_and_stop(
    supervisor: tuple[subprocess.Popen[bytes], str, Path],
) -> None:
    process, address, log = supervisor
    _wait(lambda: len(_servers(process.pid)) == 2 and _serving(address), "two servers serving")
    first = _servers(process.pid)
    names = []
    for _ in range(6):  # new connections: the kernel spreads them over the two processes
        client = GameClient(address)
        try:
            names.append(client.create_game(PLAYERS, RuleSet(pool_target=2)).game.name)
        finally:
            client.close()
    os.kill(first[1], signal.SIGKILL)
    _wait(lambda: len(set(_servers(process.pid)) - set(first)) == 1, "the dead child restarted")
    _wait(lambda: _serving(address), "serving again")
    client = GameClient(address)
    try:
        for name in names:  # every game is served by whichever process answers
            assert client.get_game(name).version >= 2
    finally:
        client.close()
    children = _servers(process.pid)
    process.send_signal(signal.SIGTERM)
    assert process.wait(LIVENESS_SECONDS) == 0, log.read_text()
    for pid in children:
        assert (
            not Path(f"/proc/{pid}").exists()
            or b"zombie" in Path(f"/proc/{pid}/status").read_bytes().lower()
        )
    assert "exited with" in log.read_text()  # the restart was reported


def test_a_child_that_cannot_start_stops_the_supervisor(tmp_path: Path) -> None:
    with socket.socket() as taken:  # a listener without SO_REUSEPORT holds the port
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [
                *(sys.executable, "-m", "service.cli", "serve", "--processes", "2"),
                *("--store", str(tmp_path / "events.sqlite"), "--port", str(port)),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert "could not start" in done.stderr and "Traceback" not in done.stderr


def test_a_bad_key_stops_the_supervisor_before_any_child(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "service.cli", "serve", "--processes", "2"),
            *("--store", str(tmp_path / "events.sqlite"), "--port", str(free_port())),
            *("--key-file", str(tmp_path / "no-such-keys")),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "cannot read the key file" in done.stderr and "server processes" not in done.stderr
