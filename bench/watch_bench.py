"""WatchGame benchmark: server CPU to resume a long game's stream, and to fan one game's events
out to many watchers, each with a no-op ``grpc.aio`` baseline measured in the same run (results
and commands in docs/PERFORMANCE.md).

Run: ``.venv/bin/python bench/watch_bench.py`` (a temporary SQLite store; ``--store URL`` for
another). The game server runs in its OWN process (``python -m service.cli serve
--no-projections``, per-caller limits off); its CPU time (user + system, all threads, from
``/proc``) is read around each measured window. The client is this process (``grpc.aio``).

A. Resume: 2 x ``--games`` games are played through the server to at least ``--events`` events
   each. "cold": the first ``WatchGame`` (first half of the games) or ``WatchGameBatches``
   (second half) from version 0 of each game (nothing built yet in the server); "warm":
   ``--repeat`` further ``WatchGame`` resumes, ``--batch-repeat`` ``WatchGameBatches`` ones,
   from version 0 of one game (its feed is built). Each reads every event up to the game's
   version, then closes. Baselines: a no-op server that streams the same number of messages of
   the same sizes (pre-built bytes) per call, for each of the two RPCs' messages.
B. Fan-out: ``W`` watchers (1 and ``--watchers``), spread over the three seats and over
   channels of at most 50 streams, follow one game from its current version. "paced": ``--steps``
   commands, each waiting until every watcher has the new version (at most one event per stream
   message); "back to back": ``--open-steps`` commands as fast as the client plays them, then
   every watcher catches up (a watcher gets what is waiting). For WatchGame, WatchGameBatches,
   and WatchGameBatches with each ``max_delay_ms`` of ``--max-delay-ms``: server CPU per event, W
   watchers against one, and stream messages per watcher per event. Baseline: a no-op server
   with ``W`` streams, each "event" is one unary call that pushes a pre-built message of the same
   size to every stream (paced).

C. In process, no transport: the same work on a ``PreferansApplication`` (a temporary SQLite
   store) and ``service.api.streams.GameStreams``: CPU (``time.process_time``) of a cold resume from
   version 0 (read and build every message), a warm one (the messages a watcher takes from the
   feed), and the first watch in a process from the current version (a copy of the game) and
   from 20 versions back (one ``game_at`` replay from the store).

No timing assertions: the numbers are printed, ratios against the same-run baselines.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from service.api.server import KEEPALIVE_OPTIONS
from service.app.keys import new_key_line
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import game_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grpc_bench import (  # a sibling script
    ServerProcess,
    cpu_seconds,
    run_generic_server,
    running,
    spawn,
)

NOOP_SERVICE = "bench.NoopWatch"
STREAMS_PER_CHANNEL = 50


def say(text: str) -> None:
    print(text, flush=True)


def x(value: float, base: float) -> str:
    """``value / base`` (``n/a`` when the base is below the clock's resolution)."""
    return f"{value / base:.2f}" if base > 0 else "n/a"


# ---------------------------------------------------------------------------------------------
# servers


def game_server(store: str, keys: str) -> ServerProcess:
    os.environ["PREF_KEYS"] = keys
    argv = [
        *(sys.executable, "-m", "service.cli", "serve", "--store", store),
        *("--host", "127.0.0.1", "--port", "{port}", "--log-level", "warning"),
        "--no-projections",
        *("--creates-per-minute", "0", "--open-games", "0", "--calls-per-second", "0"),
        *("--watch-streams", "0"),
    ]
    return spawn("game server", argv)


def noop_server(sizes: list[int]) -> ServerProcess:
    argv = [sys.executable, str(Path(__file__).resolve()), "--serve-noop", "{port}"]
    argv += ["--sizes", ",".join(str(s) for s in sizes)]
    return spawn("no-op server", argv)


async def serve_noop(port: int, sizes: list[int]) -> None:
    """The no-op server (a child process): ``Replay`` streams one pre-built message of each
    size; ``Follow`` streams whatever ``Publish`` pushes to every follower."""
    messages = [os.urandom(size) for size in sizes]
    followers: set[asyncio.Queue[bytes]] = set()

    async def replay(request: bytes, context: Any) -> AsyncIterator[bytes]:
        for message in messages:
            yield message

    async def follow(request: bytes, context: Any) -> AsyncIterator[bytes]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        followers.add(queue)
        try:
            yield b""  # subscribed
            while True:
                yield await queue.get()
        finally:
            followers.discard(queue)

    async def publish(request: bytes, context: Any) -> bytes:
        message = messages[len(request) % len(messages)]
        for queue in followers:
            queue.put_nowait(message)
        return b""

    await run_generic_server(
        port,
        NOOP_SERVICE,
        {
            "Replay": grpc.unary_stream_rpc_method_handler(replay),
            "Follow": grpc.unary_stream_rpc_method_handler(follow),
            "Publish": grpc.unary_unary_rpc_method_handler(publish),
        },
    )


def channel(target: str) -> grpc.aio.Channel:
    """A channel with its own connection (channels with equal arguments share one otherwise,
    and the server allows 100 concurrent streams per connection)."""
    options = [*KEEPALIVE_OPTIONS, ("grpc.use_local_subchannel_pool", 1)]
    return grpc.aio.insecure_channel(target, options=options)


# ---------------------------------------------------------------------------------------------
# the game side


class Player:
    """Plays one game through the server: a seeded random legal (non-claim) action each step."""

    def __init__(self, stub: game_pb2_grpc.GameServiceAsyncStub, seed: int) -> None:
        self.stub = stub
        self.rng = random.Random(seed)
        self.name = ""
        self.tokens: list[tuple[tuple[str, str], ...]] = []
        self.version = 0

    async def create(self, tag: str) -> None:
        created = await self.stub.CreateGame(
            pb.CreateGameRequest(
                players=[pb.Player(player_id=f"{tag}-{s}") for s in range(3)],
                rules=pb.RuleSet(name="default", pool_target=200),
                request_id=f"create-{tag}",
            )
        )
        self.name = created.game.name
        self.tokens = [(("authorization", f"Bearer {t}"),) for t in created.seat_tokens]
        self.version = created.game.version

    async def step(self) -> None:
        reply = await self.stub.GetSeatView(
            pb.GetSeatViewRequest(name=self.name, min_version=self.version),
            metadata=self.tokens[0],
        )
        view = reply.view
        if view.actor < 0:
            raise RuntimeError("the game ended: raise the pool target")
        if view.actor != 0:
            view = (
                await self.stub.GetSeatView(
                    pb.GetSeatViewRequest(name=self.name, min_version=self.version),
                    metadata=self.tokens[view.actor],
                )
            ).view
        legal = [a for a in view.legal if a.WhichOneof("kind") != "claim"]
        answer = await self.stub.SubmitAction(
            pb.SubmitActionRequest(
                name=self.name,
                action=self.rng.choice(legal),
                request_id=f"{self.name}-{self.version}",
            ),
            metadata=self.tokens[view.actor],
        )
        self.version = answer.version

    async def play_to(self, events: int) -> None:
        while self.version < events:
            await self.step()


async def read_stream(call: Any, until: int) -> list[int]:
    """Read a WatchGame stream until ``until``; the serialized sizes of its messages."""
    sizes = []
    async for message in call:
        if message.HasField("heartbeat"):
            continue
        sizes.append(message.ByteSize())
        if message.version >= until:
            break
    call.cancel()
    return sizes


async def resume(stub: Any, player: Player, seat: int = 0) -> list[int]:
    call = stub.WatchGame(
        pb.WatchGameRequest(name=player.name, from_version=0, heartbeat_seconds=300),
        metadata=player.tokens[seat],
    )
    return await read_stream(call, player.version)


async def resume_batches(stub: Any, player: Player, seat: int = 0) -> list[int]:
    """Read a WatchGameBatches stream from version 0 to the game's version; the serialized
    sizes of its messages (each a batch)."""
    call = stub.WatchGameBatches(
        pb.WatchGameBatchesRequest(name=player.name, from_version=0, heartbeat_seconds=300),
        metadata=player.tokens[seat],
    )
    sizes = []
    async for message in call:
        sizes.append(message.ByteSize())
        if message.updates[-1].version >= player.version:
            break
    call.cancel()
    return sizes


def per_call(server: ServerProcess, before: float, calls: int) -> float:
    return (cpu_seconds(server.process.pid) - before) / calls * 1000


async def resume_runs(
    args: argparse.Namespace, target: str, server: ServerProcess
) -> dict[str, Any]:
    async with channel(target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        players = [Player(stub, seed) for seed in range(2 * args.games)]
        for index, player in enumerate(players):
            await player.create(f"{args.run}-g{index}")
            await player.play_to(args.events)
            say(f"played game {index + 1}: {player.version} events")
        await asyncio.sleep(1.0)
        single, batched = players[: args.games], players[args.games :]
        before = cpu_seconds(server.process.pid)
        for player in single:
            sizes = await resume(stub, player)
        cold = per_call(server, before, len(single))
        before = cpu_seconds(server.process.pid)
        for player in batched:
            batch_sizes = await resume_batches(stub, player)
        cold_batched = per_call(server, before, len(batched))
        say("cold resumes done")
        events = single[-1].version
        before = cpu_seconds(server.process.pid)
        for _ in range(args.repeat):
            sizes = await resume(stub, single[-1])
        warm = per_call(server, before, args.repeat)
        assert len(sizes) == events
        await resume_batches(stub, batched[-1])
        before = cpu_seconds(server.process.pid)
        for _ in range(args.batch_repeat):
            batch_sizes = await resume_batches(stub, batched[-1])
        warm_batched = per_call(server, before, args.batch_repeat)
        batched_events = batched[-1].version
        before = cpu_seconds(server.process.pid)
        await asyncio.sleep(2.0)
        idle = (cpu_seconds(server.process.pid) - before) / 2.0 * 1000
    return {
        "cold": cold,
        "warm": warm,
        "events": events,
        "sizes": sizes,
        "idle": idle,
        "cold_batched": cold_batched,
        "warm_batched": warm_batched,
        "batch_sizes": batch_sizes,
        "batched_events": batched_events,
    }


async def noop_resume(args: argparse.Namespace, sizes: list[int], repeat: int) -> float:
    async with running(noop_server(sizes)) as server, channel(server.target) as ch:
        replay: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = ch.unary_stream(
            f"/{NOOP_SERVICE}/Replay"
        )
        for _ in range(2):  # warm up
            async for _message in replay(b""):
                pass
        before = cpu_seconds(server.process.pid)
        for _ in range(repeat):
            async for _message in replay(b""):
                pass
        return per_call(server, before, repeat)


class Watchers:
    """``count`` open WatchGame (or WatchGameBatches) streams from the player's version: the
    last version each received, and how many stream messages they received in all."""

    def __init__(
        self,
        channels: list[grpc.aio.Channel],
        player: Player,
        count: int,
        batched: bool,
        delay_ms: int = 0,
    ) -> None:
        self.seen = [player.version] * count
        self.messages = 0
        self.changed = asyncio.Event()
        self.tasks = []
        for index in range(count):
            stub = game_pb2_grpc.GameServiceStub(channels[index // STREAMS_PER_CHANNEL])
            metadata = player.tokens[index % 3]
            if batched:
                request = pb.WatchGameBatchesRequest(
                    name=player.name,
                    from_version=player.version,
                    heartbeat_seconds=300,
                    max_delay_ms=delay_ms,
                )
                call = stub.WatchGameBatches(request, metadata=metadata)
                self.tasks.append(asyncio.create_task(self._read_batches(index, call)))
            else:
                single = stub.WatchGame(
                    pb.WatchGameRequest(
                        name=player.name, from_version=player.version, heartbeat_seconds=300
                    ),
                    metadata=metadata,
                )
                self.tasks.append(asyncio.create_task(self._read(index, single)))

    async def _read(self, index: int, call: Any) -> None:
        async for message in call:
            if not message.HasField("heartbeat"):
                self.messages += 1
                self.seen[index] = message.version
                self.changed.set()

    async def _read_batches(self, index: int, call: Any) -> None:
        async for message in call:
            last = message.updates[-1]
            if not last.HasField("heartbeat"):
                self.messages += 1
                self.seen[index] = last.version
                self.changed.set()

    async def reach(self, version: int) -> None:
        async with asyncio.timeout(120):
            while min(self.seen) < version:
                self.changed.clear()
                await self.changed.wait()

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


@dataclass(frozen=True)
class Fan:
    """One fan-out run: server CPU ms per event, and stream messages per watcher per event."""

    cpu: float
    messages: float


async def fanout_run(
    args: argparse.Namespace,
    target: str,
    server: ServerProcess,
    count: int,
    *,
    batched: bool = False,
    paced: bool = True,
    delay_ms: int = 0,
) -> Fan:
    """``count`` watchers of one game: ``paced``, every watcher has each event before the
    next command (one event per stream message at most); else the commands go back to back
    and the watchers are waited for at the end (they receive what is waiting)."""
    channels = [channel(target) for _ in range((count - 1) // STREAMS_PER_CHANNEL + 1)]
    mode = ("batched" if batched else "per-event") + (", paced" if paced else ", back to back")
    mode += f", max_delay_ms {delay_ms}" if delay_ms else ""
    try:
        stub = game_pb2_grpc.GameServiceStub(channels[0])
        player = Player(stub, count + 7919 * batched + 104729 * (not paced) + delay_ms)
        await player.create(f"{args.run}-w{count}-{batched}-{paced}-{delay_ms}")
        await player.play_to(5)
        watchers = Watchers(channels, player, count, batched, delay_ms)
        say(f"{count} watchers opening ({mode})")
        await asyncio.sleep(1.0 + count / 500)  # every stream open and waiting
        await player.step()
        await watchers.reach(player.version)
        start, before = player.version, cpu_seconds(server.process.pid)
        received = watchers.messages
        for _ in range(args.steps if paced else args.open_steps):
            await player.step()
            if paced:
                await watchers.reach(player.version)
        await watchers.reach(player.version)
        events = player.version - start
        used = (cpu_seconds(server.process.pid) - before) / events * 1000
        messages = (watchers.messages - received) / count / events
        await watchers.close()
        return Fan(used, messages)
    finally:
        for ch in channels:
            await ch.close()


async def noop_fanout(args: argparse.Namespace, size: int, count: int) -> float:
    async with running(noop_server([size])) as server:
        channels = [channel(server.target) for _ in range((count - 1) // STREAMS_PER_CHANNEL + 1)]
        seen = [0] * count
        changed = asyncio.Event()

        async def read(index: int) -> None:
            follow: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = channels[
                index // STREAMS_PER_CHANNEL
            ].unary_stream(f"/{NOOP_SERVICE}/Follow")
            async for _message in follow(b""):
                seen[index] += 1
                changed.set()

        tasks = [asyncio.create_task(read(i)) for i in range(count)]
        publish: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channels[0].unary_unary(
            f"/{NOOP_SERVICE}/Publish"
        )

        async def event(n: int) -> None:
            await publish(b"")
            async with asyncio.timeout(120):
                while min(seen) < n + 1:
                    changed.clear()
                    await changed.wait()

        async with asyncio.timeout(120):
            while min(seen) < 1:
                changed.clear()
                await changed.wait()
        await event(1)
        before = cpu_seconds(server.process.pid)
        for n in range(2, 2 + args.steps):
            await event(n)
        used: float = (cpu_seconds(server.process.pid) - before) / args.steps * 1000
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for ch in channels:
            await ch.close()
        return used


async def in_process(args: argparse.Namespace, scratch: str) -> dict[str, float]:
    """Section C (see the module's docstring): CPU ms of each resume, without gRPC."""
    from concurrent.futures import ThreadPoolExecutor

    from domain.bots import make_bot
    from domain.rules import RuleSet, actor, seat_view
    from service.api.streams import Feed, GameStreams
    from service.app.application import PreferansApplication
    from service.app.config import sqlite_store
    from service.app.hub import EventHub

    env = dict(sqlite_store(f"{scratch}/in_process.sqlite").env, PREF_KEYS=new_key_line())
    app = PreferansApplication(env)
    bot = make_bot()
    game_id = app.create_game(["a", "b", "c"], "c", rules=RuleSet(pool_target=200)).game_id
    while (game := app.get_game(game_id)).version < args.events:
        assert game.deal is not None
        seat = actor(game.deal)
        app.act(game_id, seat, bot(seat_view(game.deal, seat)), f"r{game.version}")
    version = app.get_game(game_id).version
    found: dict[str, float] = {"events": version}

    async def until(feed: Feed) -> None:
        while feed.version < version:
            await feed.changed.wait()

    hub = EventHub()
    hub.bind(asyncio.get_running_loop())
    with ThreadPoolExecutor(4) as executor:
        streams = GameStreams(app, executor, hub)
        start = time.process_time()
        feed = await streams.open(game_id, 0)
        await until(feed)
        got = await streams.messages(feed, 0, 0)
        found["cold, from 0"] = (time.process_time() - start) * 1000
        streams.close(feed)
        start = time.process_time()
        for _ in range(args.repeat):
            feed = await streams.open(game_id, 0)
            got = await streams.messages(feed, 0, 0)
            streams.close(feed)
        found["warm, from 0"] = (time.process_time() - start) * 1000 / args.repeat
        for label, back in (
            ("the current version (a copy of the game)", 0),
            ("20 versions back (a replay from the store)", 20),
        ):
            streams = GameStreams(app, executor, hub)
            start = time.process_time()
            feed = await streams.open(game_id, version - back)
            await until(feed)
            tail = await streams.messages(feed, version - back, 0)
            found[f"cold, from {label}"] = (time.process_time() - start) * 1000
            assert len(tail) == back
            streams.close(feed)
        assert len(got) == version
    hub.stop()
    app.close()
    return found


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="watch_bench_") as scratch:
        store = args.store or f"sqlite:///{scratch}/events.sqlite"
        say(f"# watch_bench: {args.games} games of >= {args.events} events, store {store}")
        async with running(game_server(store, new_key_line())) as server:
            found = await resume_runs(args, server.target, server)
            fans: dict[tuple[bool, bool, int], dict[int, Fan]] = {}
            modes = [(b, p, 0) for p in (True, False) for b in (False, True)]
            delays = [int(ms) for ms in args.max_delay_ms.split(",") if ms]
            for batched, paced, delay in [*modes, *((True, False, ms) for ms in delays)]:
                fans[(batched, paced, delay)] = {
                    n: await fanout_run(
                        args,
                        server.target,
                        server,
                        n,
                        batched=batched,
                        paced=paced,
                        delay_ms=delay,
                    )
                    for n in (1, args.watchers)
                }
        sizes = found["sizes"]
        noop = await noop_resume(args, sizes, args.repeat)
        batch_sizes = found["batch_sizes"]
        noop_batched = await noop_resume(args, batch_sizes, args.batch_repeat)
        mean = sum(sizes) // len(sizes)
        noop_fan = {n: await noop_fanout(args, mean, n) for n in (1, args.watchers)}
        local = await in_process(args, scratch)
    events = found["events"]
    say(f"\n## A. Resume a {events}-event game from version 0 (server CPU per resume)")
    say(f"WatchGame: {len(sizes)} messages, mean {mean} B; WatchGameBatches")
    say(f"({found['batched_events']} events): {len(batch_sizes)} messages of {batch_sizes} B;")
    say(f"server idle CPU {found['idle']:.2f} ms/s")
    say("| | server CPU ms | x no-op per-event stream |")
    say("|---|---:|---:|")
    say(f"| no-op grpc.aio stream, one message per event (baseline) | {noop:.1f} | 1.00 |")
    ratio = x(noop_batched, noop)
    say(f"| no-op grpc.aio stream of the batches' sizes | {noop_batched:.2f} | {ratio} |")
    for label, key in (
        ("WatchGame, warm (feed built)", "warm"),
        ("WatchGame, cold (first watch)", "cold"),
        ("WatchGameBatches, warm", "warm_batched"),
        ("WatchGameBatches, cold (first watch)", "cold_batched"),
    ):
        say(f"| pref serve {label} | {found[key]:.2f} | {x(found[key], noop)} |")
    w = args.watchers
    say(f"\n## B. Fan-out: server CPU per event, {w} watchers against 1")
    say(f"(paced: {args.steps} events, each delivered to every watcher before the next command;")
    say(f" back to back: {args.open_steps} commands without waiting, then every watcher caught up)")
    say(
        "| | 1 watcher ms/event | "
        + f"{w} watchers ms/event | ratio | msgs per watcher per event (1 / {w}) | "
        + "extra watcher us/event | extra watcher us/message |"
    )
    say("|---|---:|---:|---:|---:|---:|---:|")
    noop_extra = (noop_fan[w] - noop_fan[1]) / (w - 1)
    say(
        f"| no-op grpc.aio, paced (baseline) | {noop_fan[1]:.2f} | {noop_fan[w]:.1f} | "
        f"{x(noop_fan[w], noop_fan[1])} | 1 / 1 | {noop_extra * 1000:.1f} | "
        f"{noop_extra * 1000:.1f} |"
    )
    for (batched, paced, delay), runs in fans.items():
        label = ("WatchGameBatches" if batched else "WatchGame") + (
            ", paced" if paced else ", back to back"
        )
        label += f", max_delay_ms {delay}" if delay else ""
        one, many = runs[1], runs[w]
        extra = (many.cpu - one.cpu) / (w - 1)
        per_message = extra / many.messages if many.messages else 0.0
        say(
            f"| pref serve {label} | {one.cpu:.2f} | {many.cpu:.1f} | {x(many.cpu, one.cpu)} | "
            f"{one.messages:.2f} / {many.messages:.2f} | {extra * 1000:.1f} | "
            f"{per_message * 1000:.1f} |"
        )

    say(f"\n## C. In process, no transport: a {local.pop('events'):.0f}-event game")
    say("| resume | CPU ms |")
    say("|---|---:|")
    for label, value in local.items():
        say(f"| {label} | {value:.2f} |")


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", default=None, help="the game server's store (default: temp)")
    parser.add_argument("--games", type=int, default=3, help="games for the cold resumes")
    parser.add_argument("--events", type=int, default=1000, help="events per game (at least)")
    parser.add_argument("--repeat", type=int, default=20, help="warm resumes")
    parser.add_argument("--watchers", type=int, default=1000, help="watchers of one game")
    parser.add_argument("--steps", type=int, default=30, help="commands in the paced fan-outs")
    parser.add_argument(
        "--open-steps", type=int, default=150, help="commands in the back-to-back fan-outs"
    )
    parser.add_argument(
        "--max-delay-ms",
        default="100,250",
        help="max_delay_ms of the last fan-out runs (comma-separated, one run each)",
    )
    parser.add_argument(
        "--batch-repeat", type=int, default=200, help="warm WatchGameBatches resumes"
    )
    parser.add_argument("--serve-noop", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.run = f"{int(time.time())}"
    return args


if __name__ == "__main__":
    # A throwaway server key, unless one is configured: PostgreSQL stores need one.
    os.environ.setdefault("PREF_KEYS", new_key_line("bench"))
    arguments = parse()
    if arguments.serve_noop is not None:
        asyncio.run(serve_noop(arguments.serve_noop, [int(s) for s in arguments.sizes.split(",")]))
    else:
        asyncio.run(main(arguments))
