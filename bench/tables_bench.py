"""ListTables with 10,000 open tables: open-loop latency through gRPC, against ListGames in the
same run (results and command in docs/PERFORMANCE.md; issue 14: ListTables p99 ≤ 20 ms).

Run: ``.venv/bin/python bench/tables_bench.py [--tables 10000] [--rate 100] [--seconds 15]``.

1. Fill: a fresh SQLite store in a temporary directory gets ``--tables`` open public tables,
   written through the application in batches (``app.save`` of many ``Table`` aggregates per
   transaction, not one RPC each), and the ``lobby`` read model is brought up to date.
2. A real server (``python -m service.cli serve``, its own process) serves that store.
3. Open loop at ``--rate`` calls/s from one ``grpc.aio`` client, three kinds of call in turn
   (so all meet the same noise of the shared machine): ``ListGames`` (page size 50, the
   baseline: the same server, client and page size, an empty game list), ``ListTables`` (page
   size 50, no filter) and ``ListTables`` with filters (seats 3, free seat only). Each call is
   sent at its slot whether or not earlier ones answered; latency is send to answer.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import grpc

from domain.model.table import Table
from domain.rules import DEFAULT
from projections import standard_runners
from service.app.application import PreferansApplication
from service.app.config import sqlite_store
from service.app.tables import Lobby
from service.gen.preferans.v1 import game_pb2, game_pb2_grpc, table_pb2, table_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grpc_bench import running, spawn  # a sibling script, not a package

BATCH = 500


def fill(path: str, count: int) -> float:
    """Open ``count`` public tables in ``path`` and project them; the seconds it took."""
    began = time.perf_counter()
    app = PreferansApplication(sqlite_store(path).env)
    lobby = Lobby(app)
    try:
        for start in range(0, count, BATCH):
            tables = []
            for i in range(start, min(count, start + BATCH)):
                table_id = uuid.uuid4()
                tables.append(
                    Table.open(
                        table_id,
                        creator=f"player{i % 997}",
                        request_id=f"bench-{i}",
                        rules=DEFAULT.to_dict(),
                        seats=DEFAULT.players,
                        visibility="public",
                        league="",
                        time_control=None,
                        stake_per_whist=0,
                        game_id=lobby.game_id_for(table_id),
                    )
                )
            app.save(*tables)
        runner = standard_runners(app, app.db, ("lobby",), batch=5000)["lobby"]
        while runner.run_once():
            pass
    finally:
        app.close()
    return time.perf_counter() - began


async def open_loop(calls: list[Any], rate: float, seconds: float) -> list[list[float]]:
    """Latencies (ms) of each kind of call, sent in turn at ``rate`` calls per second for
    ``seconds`` (so every kind meets the same noise of a shared machine)."""
    latencies: list[list[float]] = [[] for _ in calls]
    tasks = []

    async def one(kind: int) -> None:
        sent = time.perf_counter()
        await calls[kind]()
        latencies[kind].append((time.perf_counter() - sent) * 1000)

    began = time.perf_counter()
    for k in range(int(rate * seconds)):
        delay = began + k / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.ensure_future(one(k % len(calls))))
    await asyncio.gather(*tasks)
    return latencies


def summary(name: str, latencies: list[float]) -> tuple[float, float]:
    ordered = sorted(latencies)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(f"{name:<28} n={len(ordered):>5}  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms")
    return p50, p99


async def measure(port: int, rate: float, seconds: float) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        games = game_pb2_grpc.GameServiceStub(channel)
        tables = table_pb2_grpc.TableServiceStub(channel)
        listed = await tables.ListTables(table_pb2.ListTablesRequest(page_size=50))
        assert len(listed.tables) == 50, "the lobby read model is not filled"
        for _ in range(50):  # warm up
            await games.ListGames(game_pb2.ListGamesRequest(page_size=50))
            await tables.ListTables(table_pb2.ListTablesRequest(page_size=50))
        base, plain, filtered = await open_loop(
            [
                lambda: games.ListGames(game_pb2.ListGamesRequest(page_size=50)),
                lambda: tables.ListTables(table_pb2.ListTablesRequest(page_size=50)),
                lambda: tables.ListTables(
                    table_pb2.ListTablesRequest(page_size=50, seats=3, free_seat_only=True)
                ),
            ],
            rate,
            seconds,
        )
    print(f"open loop at {rate:g} calls/s for {seconds:g} s, the three kinds in turn, page size 50")
    base50, base99 = summary("ListGames (baseline, empty)", base)
    plain50, plain99 = summary("ListTables", plain)
    filtered50, filtered99 = summary("ListTables seats=3 free", filtered)
    for label, ours, theirs in (
        ("p50", (plain50, filtered50), base50),
        ("p99", (plain99, filtered99), base99),
    ):
        print(
            f"{label} ratio to baseline: ListTables {ours[0] / theirs:.2f}, "
            f"filtered {ours[1] / theirs:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tables_bench_") as directory:
        path = str(Path(directory) / "events.sqlite")
        took = fill(path, args.tables)
        print(f"filled {args.tables} open tables in {took:.1f} s")
        argv = [
            sys.executable,
            *("-m", "service.cli", "serve", "--store", path),
            *("--host", "127.0.0.1", "--port", "{port}", "--log-level", "warning"),
            *("--calls-per-second", "0", "--streams-per-connection", "1000"),
        ]

        async def run() -> None:
            async with running(spawn("server", argv)) as server:
                await measure(server.port, args.rate, args.seconds)

        asyncio.run(run())


if __name__ == "__main__":
    main()
