"""``pref serve --processes N``: N server processes on one machine, one port (docs/SCALING.md).

One Python process serves on about one core (the GIL), so a machine with more cores runs
several. The supervisor starts N children (``multiprocessing`` spawn: fresh interpreters, no
gRPC state inherited), each a complete ``pref serve`` listening on the same port with
``SO_REUSEPORT``: the kernel spreads new connections over them. Only the first child runs the
projection worker and the keeper (the others are started as with ``--no-projections
--no-keeper``; a second one would only lose races) and the metrics listener, if any, is on
``--metrics-port + i`` for child ``i``.

Any child accepts any game: the event store's optimistic concurrency keeps two processes
writing one game correct, and each process forgets games that others changed (the event hub).
Affinity here is per connection (the kernel's hash of the client's address), so a client that
keeps one connection keeps one process; a router that hashes the game id (k8s/router.yaml)
gives affinity per game.

SIGTERM or SIGINT is passed to every child (each stops gracefully); a child that dies is
restarted after a delay that doubles up to ``MAX_RESTART_DELAY``; a child that fails to start
(exit 2: bad configuration, port in use) stops them all with exit 2.
"""

from __future__ import annotations

import argparse
import multiprocessing
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

RESTART_DELAY = 1.0
MAX_RESTART_DELAY = 30.0
STOP_TIMEOUT = 30.0


def child_args(args: argparse.Namespace, index: int) -> argparse.Namespace:
    """The options of child ``index``: one process, the shared port, projections and the
    keeper only in 0."""
    child = argparse.Namespace(**vars(args))
    child.processes = 1
    child.reuse_port = True
    child.no_projections = args.no_projections or index > 0
    # One keeper per machine is enough (each process sees every event); more would only
    # lose races (their request ids make a second one harmless).
    child.no_keeper = getattr(args, "no_keeper", False) or index > 0
    # The browser port is one process's (child 0): browsers are few beside native clients.
    child.no_connect = getattr(args, "no_connect", False) or index > 0
    if args.metrics_port:
        child.metrics_port = args.metrics_port + index
    return child


def _run_child(args: argparse.Namespace) -> None:
    """A child's body (in a spawned interpreter): the ordinary single-process ``pref serve``."""
    from service.cli.errors import run_command
    from service.cli.operate import cmd_serve

    sys.exit(run_command(cmd_serve, args))


def supervise(
    args: argparse.Namespace,
    target: Callable[[argparse.Namespace], None] = _run_child,
    say: Callable[[str], None] | None = None,
) -> int:
    """Run ``args.processes`` children until SIGTERM/SIGINT; the exit code (see the module)."""
    say = say or (lambda text: print(f"pref serve: {text}", file=sys.stderr, flush=True))
    context = multiprocessing.get_context("spawn")
    stopping = threading.Event()
    children: list[Any] = [None] * args.processes
    delays = [RESTART_DELAY] * args.processes
    due = [0.0] * args.processes

    def start(index: int) -> None:
        process = context.Process(
            target=target, args=(child_args(args, index),), name=f"pref-serve-{index}"
        )
        process.start()
        children[index] = process

    def stop(*_: Any) -> None:
        stopping.set()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        for index in range(args.processes):
            start(index)
        say(f"{args.processes} server processes on port {args.port} (SO_REUSEPORT)")
        code = 0
        while not stopping.wait(0.2):
            now = time.monotonic()
            for index, process in enumerate(children):
                if process is None:
                    if now >= due[index]:
                        start(index)
                    continue
                if process.is_alive():
                    continue
                if process.exitcode == 2:  # configuration: restarting would fail the same way
                    say(f"process {index} could not start (exit 2); stopping")
                    code = 2
                    stopping.set()
                    break
                say(
                    f"process {index} (pid {process.pid}) exited with {process.exitcode}; "
                    f"restarting in {delays[index]:g} s"
                )
                children[index] = None
                due[index] = now + delays[index]
                delays[index] = min(MAX_RESTART_DELAY, delays[index] * 2)
        for process in children:
            if process is not None and process.is_alive() and process.pid is not None:
                process.terminate()  # SIGTERM: the child stops gracefully
        deadline = time.monotonic() + STOP_TIMEOUT
        for process in children:
            if process is None:
                continue
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(5)
        return code
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
