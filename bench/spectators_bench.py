"""Spectator benchmark (issue 14): server CPU per event with 1,000 concurrent spectator streams
on one game against one spectator, each with a no-op ``grpc.aio`` fan-out measured in the same
run (results and command in docs/PERFORMANCE.md).

Run: ``.venv/bin/python bench/spectators_bench.py`` (a temporary SQLite store; about a minute).
The game server runs in its own process (``pref serve --no-projections``, per-caller limits off,
as ``bench/watch_bench.py`` starts it); its CPU time (user + system, all threads, ``/proc``) is
read around each measured window. The client is this process (``grpc.aio``): a player makes
random legal moves; ``W`` spectators (1, then ``--spectators``) follow the game without any
credential, spread over channels of at most 50 streams.

- "paced": ``--steps`` commands, each waiting until every spectator has the new event (one
  event per stream message), with ``WatchGame``;
- "max_delay_ms N": ``--open-steps`` commands back to back, the spectators on
  ``WatchGameBatches`` with ``max_delay_ms`` N (what spectators, who need no instant update,
  would use), then every spectator catches up.

Printed per run: server CPU ms per event with 1 and W spectators, their ratio (the target:
< 2x), the stream messages each spectator received per event, and the extra CPU per extra
spectator per event. Baseline: a no-op server pushing one pre-built message of the same size
to W open streams per event (paced): the transport's own cost of one write per stream.

No timing assertions: the numbers are printed, ratios within the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grpc_bench import cpu_seconds, running  # sibling scripts
from watch_bench import (
    STREAMS_PER_CHANNEL,
    Fan,
    Player,
    Watchers,
    channel,
    game_server,
    noop_fanout,
    say,
    x,
)

from service.app.keys import new_key_line
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import game_pb2_grpc


class Spectators(Watchers):
    """``count`` spectator streams (no credential) from the player's version: ``Watchers``
    (the last version each received, its ``reach`` and ``close``) without seat tokens, with
    ``WatchGameBatches`` when ``delay_ms``; also the bytes of the stream messages received."""

    def __init__(self, channels: list[Any], player: Player, count: int, delay_ms: int) -> None:
        self.seen = [player.version] * count
        self.messages = 0
        self.sizes = 0
        self.changed = asyncio.Event()
        self.tasks = []
        for index in range(count):
            stub = game_pb2_grpc.GameServiceStub(channels[index // STREAMS_PER_CHANNEL])
            if delay_ms:
                request = pb.WatchGameBatchesRequest(
                    name=player.name,
                    from_version=player.version,
                    heartbeat_seconds=300,
                    max_delay_ms=delay_ms,
                )
                call = stub.WatchGameBatches(request)
            else:
                single = pb.WatchGameRequest(
                    name=player.name, from_version=player.version, heartbeat_seconds=300
                )
                call = stub.WatchGame(single)
            self.tasks.append(asyncio.create_task(self._follow(index, call, bool(delay_ms))))

    async def _follow(self, index: int, call: Any, batched: bool) -> None:
        async for message in call:
            last = message.updates[-1] if batched else message
            if last.HasField("heartbeat"):
                continue
            self.messages += 1
            self.sizes += message.ByteSize()
            self.seen[index] = last.version
            self.changed.set()


async def spectate_run(
    args: argparse.Namespace, target: str, server: Any, count: int, delay_ms: int
) -> tuple[Fan, float]:
    """``count`` spectators of one game: server CPU ms per event, messages per spectator per
    event; and the mean stream message size."""
    channels = [channel(target) for _ in range((count - 1) // STREAMS_PER_CHANNEL + 1)]
    try:
        stub = game_pb2_grpc.GameServiceStub(channels[0])
        player = Player(stub, count * 31 + delay_ms)
        await player.create(f"{args.run}-s{count}-{delay_ms}")
        await player.play_to(5)
        spectators = Spectators(channels, player, count, delay_ms)
        say(f"{count} spectators opening" + (f" (max_delay_ms {delay_ms})" if delay_ms else ""))
        await asyncio.sleep(1.0 + count / 500)  # every stream open and waiting
        await player.step()
        await spectators.reach(player.version)
        start, before = player.version, cpu_seconds(server.process.pid)
        received, sized = spectators.messages, spectators.sizes
        for _ in range(args.open_steps if delay_ms else args.steps):
            await player.step()
            if not delay_ms:
                await spectators.reach(player.version)
        await spectators.reach(player.version)
        events = player.version - start
        used = (cpu_seconds(server.process.pid) - before) / events * 1000
        got = spectators.messages - received
        size = (spectators.sizes - sized) / got if got else 0.0
        await spectators.close()
        return Fan(used, got / count / events), size
    finally:
        for ch in channels:
            await ch.close()


async def main(args: argparse.Namespace) -> None:
    w = args.spectators
    delays = [0, *(int(ms) for ms in args.max_delay_ms.split(",") if ms)]
    runs: dict[int, dict[int, Fan]] = {}
    size = 0.0
    with tempfile.TemporaryDirectory(prefix="spectators_bench_") as scratch:
        store = f"sqlite:///{scratch}/events.sqlite"
        say(f"# spectators_bench: 1 and {w} spectators of one game, store {store}")
        async with running(game_server(store, new_key_line())) as server:
            for delay in delays:
                runs[delay] = {}
                for n in (1, w):
                    fan, mean = await spectate_run(args, server.target, server, n, delay)
                    runs[delay][n] = fan
                    size = size or mean
        noop = {n: await noop_fanout(args, max(int(size), 1), n) for n in (1, w)}
    say(f"\n## Server CPU per event: {w} spectators against 1 (mean message {size:.0f} B)")
    say(
        f"| | 1 spectator ms/event | {w} spectators ms/event | ratio (target < 2) | "
        f"msgs per spectator per event (1 / {w}) | extra spectator us/event |"
    )
    say("|---|---:|---:|---:|---:|---:|")
    extra = (noop[w] - noop[1]) / (w - 1) * 1000
    say(
        f"| no-op grpc.aio, paced (baseline) | {noop[1]:.2f} | {noop[w]:.1f} | "
        f"{x(noop[w], noop[1])} | 1 / 1 | {extra:.1f} |"
    )
    for delay, fans in runs.items():
        label = f"WatchGameBatches, max_delay_ms {delay}" if delay else "WatchGame, paced"
        one, many = fans[1], fans[w]
        extra = (many.cpu - one.cpu) / (w - 1) * 1000
        say(
            f"| spectators, {label} | {one.cpu:.2f} | {many.cpu:.1f} | {x(many.cpu, one.cpu)} "
            f"| {one.messages:.2f} / {many.messages:.2f} | {extra:.1f} |"
        )


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spectators", type=int, default=1000, help="spectators of one game")
    parser.add_argument("--steps", type=int, default=30, help="commands in the paced runs")
    parser.add_argument(
        "--open-steps", type=int, default=150, help="commands in the max_delay_ms runs"
    )
    parser.add_argument(
        "--max-delay-ms",
        default="500",
        help="max_delay_ms of the WatchGameBatches runs (comma-separated, one run each)",
    )
    args = parser.parse_args()
    args.run = f"{int(time.time())}"
    return args


if __name__ == "__main__":
    os.environ.setdefault("PREF_KEYS", new_key_line("bench"))
    asyncio.run(main(parse()))
