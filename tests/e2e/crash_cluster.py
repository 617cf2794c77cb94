"""Processes of the crash suite: ``pref serve`` and ``pref projections run`` as real
subprocesses on one store, killed with SIGKILL and restarted (``tests/e2e/test_crash.py``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.e2e.conftest import REPO, START_TIMEOUT, free_port


class Process:
    """A ``pref`` subcommand in its own process, with its output in a log file."""

    def __init__(self, args: list[str], log_path: Path) -> None:
        self.log_path = log_path
        self._log = log_path.open("ab")
        pref = Path(sys.executable).with_name("pref")
        self.process = subprocess.Popen(
            [str(pref), *args],
            cwd=REPO,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def kill9(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self._log.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self._log.close()


def _serving(address: str, process: Process) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    with grpc.insecure_channel(address) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)
        while True:
            if process.process.poll() is not None:
                raise AssertionError(f"pref serve exited: {process.log_path.read_text()[-3000:]}")
            with contextlib.suppress(grpc.RpcError):
                answer = stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"pref serve did not start: {process.log_path}")
            time.sleep(0.1)


@dataclass
class Cluster:
    """A server process and a projection worker process on one store, restartable."""

    store: str
    logs: Path
    server: Process | None = None
    worker: Process | None = None
    address: str = ""
    generation: int = 0
    """Bumped at each server start; the driver reconnects when it changes."""
    kills: Counter[str] = field(default_factory=Counter)
    ready: threading.Condition = field(default_factory=threading.Condition)

    def start_server(self) -> None:
        port = free_port()
        args = ["serve", "--store", self.store, "--host", "127.0.0.1", "--port", str(port)]
        args += ["--workers", "4", "--log-level", "warning", "--no-projections"]
        server = Process(args, self.logs / f"serve-{self.generation}.log")
        address = f"127.0.0.1:{port}"
        _serving(address, server)
        with self.ready:
            self.server, self.address = server, address
            self.generation += 1
            self.ready.notify_all()

    def start_worker(self) -> None:
        args = ["projections", "run", "--store", self.store, "--interval", "0.1"]
        self.worker = Process(args, self.logs / f"worker-{self.kills['worker']}.log")

    def kill(self, which: str) -> None:
        self.kills[which] += 1
        if which == "server":
            assert self.server is not None
            self.server.kill9()
            self.start_server()
        else:
            assert self.worker is not None
            self.worker.kill9()
            self.start_worker()

    def stop(self) -> None:
        for process in (self.server, self.worker):
            if process is not None:
                process.stop()
