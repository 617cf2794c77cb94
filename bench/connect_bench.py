"""Card plays through the Connect port against native gRPC, in the same run (issue 15).

Run: ``.venv/bin/python bench/connect_bench.py`` (PostgreSQL at ``--url``, default
``postgresql://postgres@127.0.0.1:5432/test``, in a schema ``bench_<random>`` dropped at the
end; ``--store sqlite`` for a temporary SQLite file). One ``pref serve`` process serves both
ports; the client is one asyncio process, and the games are driven by ``grpc_bench``'s
``GameDriver`` (the same commands, choices and reads as the gRPC benchmark), either on a
``grpc.aio`` channel or on the official ``connectrpc`` async client (``ConnectStub``: the same
method names over the Connect protocol, JSON as the web table sends it, or binary).

1. Closed loop at ``--games`` (64) concurrent games, each protocol in turn on the same server,
   ``--rounds`` (3) times — native gRPC, Connect JSON, Connect binary — then native gRPC once
   more: commands/s and card plays/s. Each Connect row's share is its rate over the mean of the
   native rows just before and after it (a drift of the machine shows as those two differing);
   the verdict is the median share over the rounds. Target: ≥ 70 %, judged on commands/s (the
   share of card plays in a row depends on where its games are).
2. Open loop at half of Connect JSON's closed-loop commands/s, 64 games: the card plays'
   p99 latency (send to answer). Target: ≤ 25 ms. The same for native gRPC, for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pyqwest
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from psycopg import sql

from service.app.keys import new_key_line
from service.connect.bridge import connect_code
from service.connect.codecs import JsonCodec
from service.gen.preferans.v1 import game_connect, game_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grpc_bench import (  # a sibling script, not a package
    GameDriver,
    Run,
    ServerProcess,
    Sizes,
    channel_for,
    closed,
    free_port,
    header,
    open_loop,
    prime,
    row,
    running,
)
from store_bench import DEFAULT_URL, say

ROOT = Path(__file__).resolve().parent.parent
ORDER = ("grpc", "connect json", "connect proto")
"""One round of closed-loop rows; ``--rounds`` repeats it and a last native gRPC row closes the
run, so every Connect row has a native row before and after it (a drift of the machine shows
as the two differing, and the share is taken against their mean)."""
TARGET_SHARE = 0.70
TARGET_P99_MS = 25.0
OPEN_BASE = "connect json"
"""The open loop's rate is a share of this protocol's closed-loop commands/s."""


class ConnectStub:
    """``GameDriver``'s four calls over the Connect protocol (``metadata`` → headers); a
    Connect error is raised as grpc.aio's, so the driver and the loops treat it alike."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def _call(self, method: Any, request: Any, metadata: Any) -> Any:
        try:
            return await method(request, headers=dict(metadata or ()))
        except ConnectError as exc:
            code = getattr(grpc.StatusCode, exc.code.name, grpc.StatusCode.UNKNOWN)
            if exc.code.name == "CANCELED":
                code = grpc.StatusCode.CANCELLED
            assert connect_code(code) is exc.code
            raise grpc.aio.AioRpcError(
                code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=exc.message
            ) from None

    async def CreateGame(self, request: Any, metadata: Any = None) -> Any:  # noqa: N802
        return await self._call(self.client.create_game, request, metadata)

    async def GetGame(self, request: Any, metadata: Any = None) -> Any:  # noqa: N802
        return await self._call(self.client.get_game, request, metadata)

    async def GetSeatView(self, request: Any, metadata: Any = None) -> Any:  # noqa: N802
        return await self._call(self.client.get_seat_view, request, metadata)

    async def SubmitAction(self, request: Any, metadata: Any = None) -> Any:  # noqa: N802
        return await self._call(self.client.submit_action, request, metadata)


def server_process(args: argparse.Namespace, schema: str) -> tuple[ServerProcess, int]:
    """``pref serve`` with both ports, unthrottled (one client plays every seat)."""
    if args.store == "sqlite":
        store = str(Path(args.sqlite_dir) / "events.sqlite")
    else:
        store = f"{args.url}{'&' if '?' in args.url else '?'}schema={schema}"
    port, connect_port = free_port(), free_port()
    argv = [
        *(sys.executable, "-m", "service.cli", "serve", "--store", store),
        *("--host", "127.0.0.1", "--port", str(port), "--connect-port", str(connect_port)),
        *("--workers", str(args.workers), "--log-level", "warning"),
        *("--creates-per-minute", "0", "--open-games", "0", "--calls-per-second", "0"),
        *("--watch-streams", "0", "--streams-per-connection", "1000"),
        *(("--no-projections",) if args.no_projections else ()),
    ]
    fd, log_path = tempfile.mkstemp(prefix="connect_bench_", suffix=".log")
    with os.fdopen(fd, "wb") as log:
        process = subprocess.Popen(
            argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    return ServerProcess("game server", process, port, log_path), connect_port


async def drivers_for(
    stub: Any, run: str, label: str, games: int, sizes: Sizes
) -> list[GameDriver]:
    drivers = [GameDriver(stub, f"{run}-{label}", i, sizes) for i in range(games)]
    for chunk in range(0, games, 16):
        await asyncio.gather(*(d.new_game() for d in drivers[chunk : chunk + 16]))
    return drivers


async def bench(args: argparse.Namespace, run: str) -> list[Run]:
    schema = f"bench_{run}"
    admin = psycopg.connect(args.url, autocommit=True) if args.store == "postgres" else None
    if admin is not None:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    runs: list[Run] = []
    try:
        server, connect_port = server_process(args, schema)
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(running(server))
            pid = server.process.pid
            if args.profile_server:
                server.profiler = subprocess.Popen(
                    [
                        *(
                            shutil.which("py-spy", path=str(Path(sys.executable).parent))
                            or "py-spy",
                        ),
                        *("record", "--pid", str(pid), "--threads", "--gil", "--rate", "200"),
                        *("--format", "raw", "--output", args.profile_server, "--nonblocking"),
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            base = f"http://127.0.0.1:{connect_port}"
            say(f"server pid {pid}: gRPC {server.target}, Connect {base}")
            channel = await stack.enter_async_context(channel_for(server.target))
            http = pyqwest.Client()
            # Browsers accept gzip answers (fetch sends Accept-Encoding); --no-gzip asks for none.
            accept: Any = () if args.no_gzip else None
            json_client = game_connect.GameServiceClient(
                base,
                # reads the server's answers as a client of it may (no duplicate-key check,
                # as a browser's JSON.parse): the load generator shares the server's 2 cores
                codec=JsonCodec(1 << 22, trusted_input=True),
                http_client=http,
                send_compression=None,
                accept_compression=accept,
            )
            proto_client = game_connect.GameServiceClient(
                base,
                codec=google_protobuf_binary_codec(),
                http_client=http,
                send_compression=None,
                accept_compression=accept,
            )
            stubs: dict[str, Any] = {
                "grpc": game_pb2_grpc.GameServiceStub(channel),
                "connect json": ConnectStub(json_client),
                "connect proto": ConnectStub(proto_client),
            }
            sizes = Sizes()
            drivers = {
                label: await drivers_for(stub, run, label.replace(" ", "-"), args.games, sizes)
                for label, stub in stubs.items()
            }
            say(f"{args.games} games created per protocol (untimed)")
            say(header())
            order = [label for label in ORDER if label in args.protocols] * args.rounds
            if "grpc" in args.protocols and args.rounds > 0:
                order.append("grpc")
            primed: set[str] = set()
            for label in order:
                if label not in primed:  # later rounds find their games mid-play already
                    await prime(drivers[label], args.prime_seconds)
                    primed.add(label)
                runs.append(
                    await closed(drivers[label], label, args.store, args.seconds, args.warmup, pid)
                )
                say(row(runs[-1]))
            capacity = {
                label: [r.rate() for r in runs if r.label == label and r.loop == "closed"]
                for label in stubs
            }
            for label in [p for p in ("connect json", "grpc") if p in args.protocols]:
                measured = capacity.get(OPEN_BASE) or [0.0]
                rate = args.open_rate or round(args.open_fraction * statistics.median(measured))
                if rate <= 0:
                    continue
                await prime(drivers[label], args.prime_seconds)
                runs.append(
                    await open_loop(
                        drivers[label], rate, label, args.store, args.seconds, args.warmup, pid
                    )
                )
                say(row(runs[-1]))
            await json_client.close()
            await proto_client.close()
    finally:
        if admin is not None:
            admin.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
            )
            admin.close()
        if args.store == "sqlite":
            shutil.rmtree(args.sqlite_dir, ignore_errors=True)
    return runs


def summary(args: argparse.Namespace, runs: list[Run]) -> list[str]:
    closed_runs = [r for r in runs if r.loop == "closed"]
    native = [r.rate() for r in closed_runs if r.label == "grpc"]
    lines = [
        f"native gRPC at {args.games} games, {len(native)} rows: "
        + ", ".join(f"{rate:.0f}" for rate in native)
        + " commands/s"
    ]
    for label in [p for p in ("connect json", "connect proto") if p in args.protocols]:
        if not closed_runs:
            break
        shares, play_shares = [], []
        for i, r in enumerate(closed_runs):
            if r.label != label:
                continue
            # the native rows on either side of this one (the round's first, the next round's)
            before = next(n for n in reversed(closed_runs[:i]) if n.label == "grpc")
            after = next(n for n in closed_runs[i:] if n.label == "grpc")
            mean = (before.rate() + after.rate()) / 2
            mean_plays = (before.rate("play") + after.rate("play")) / 2
            shares.append(r.rate() / mean if mean else float("nan"))
            play_shares.append(r.rate("play") / mean_plays if mean_plays else float("nan"))
        share = statistics.median(shares)
        verdict = "met" if share >= TARGET_SHARE else "NOT met"
        # The verdict is on commands/s: the share of card plays among a row's commands
        # depends on where its games are (auctions or play), so plays/s compare less well.
        lines.append(
            f"{label}: median {share:.0%} of native's commands/s over {len(shares)} rounds "
            f"({', '.join(f'{x:.0%}' for x in shares)}; target ≥ {TARGET_SHARE:.0%}: "
            f"{verdict}); card plays: median {statistics.median(play_shares):.0%} "
            f"({', '.join(f'{x:.0%}' for x in play_shares)})"
        )
    for r in runs:
        if r.loop == "open":
            p99 = r.pct(99)
            verdict = "met" if p99 <= TARGET_P99_MS else "NOT met"
            target = f" (target ≤ {TARGET_P99_MS:g} ms: {verdict})" if "connect" in r.label else ""
            lines.append(
                f"{r.label} open loop at {r.offered:.0f} commands/s (half of Connect JSON's "
                f"capacity): card play p50 {r.pct(50):.1f} ms, p99 {p99:.1f} ms{target}; "
                f"{r.missed} slots missed, {r.result.errors} errors"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL URL (a schema is made)")
    parser.add_argument(
        "--store", choices=("postgres", "sqlite"), default="postgres", help="the event store"
    )
    parser.add_argument("--games", type=int, default=64, help="concurrent games")
    parser.add_argument("--seconds", type=float, default=6.0, help="measured seconds per row")
    parser.add_argument("--warmup", type=float, default=1.5, help="unmeasured seconds per row")
    parser.add_argument(
        "--open-fraction",
        type=float,
        default=0.5,
        help="open-loop rate as a share of Connect JSON's closed-loop commands/s",
    )
    parser.add_argument("--prime-seconds", type=float, default=8.0)
    parser.add_argument(
        "--open-rate",
        type=int,
        default=0,
        help="open-loop commands/s (default: --open-fraction of Connect JSON's capacity); "
        "with --rounds 0, only the open loops run",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of closed-loop rows (native, JSON, binary); the verdict is the median share",
    )
    parser.add_argument(
        "--protocols",
        nargs="+",
        choices=sorted(set(ORDER)),
        default=sorted(set(ORDER)),
        help="the protocols to run (default: all; the comparison needs grpc and connect json)",
    )
    parser.add_argument(
        "--profile-server", metavar="FILE", help="py-spy record the server (--gil) to FILE"
    )
    parser.add_argument(
        "--no-gzip", action="store_true", help="Connect clients accept no compressed answers"
    )
    parser.add_argument("--workers", type=int, default=16, help="the server's store threads")
    parser.add_argument(
        "--no-projections",
        action="store_true",
        help="the server runs no projections (as with a separate projection worker)",
    )
    args = parser.parse_args(argv)
    run = secrets.token_hex(4)
    if args.store == "sqlite":
        args.sqlite_dir = tempfile.mkdtemp(prefix="connect_bench_")
    load = os.getloadavg()
    say(
        f"connect_bench run {run}: {args.store}, {args.games} games; {os.cpu_count()} cores, "
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, python "
        f"{sys.version.split()[0]}, grpcio {grpc.__version__}"
    )
    started = time.perf_counter()
    runs = asyncio.run(bench(args, run))
    if not {"grpc", OPEN_BASE} <= set(args.protocols):
        return
    say("")
    say("== same-run comparison ==")
    for line in summary(args, runs):
        say("  " + line)
    say(f"  ({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    # A throwaway server key, unless one is configured: PostgreSQL stores need one.
    os.environ.setdefault("PREF_KEYS", new_key_line("bench"))
    main()
