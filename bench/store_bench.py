"""Event-store benchmark: commands through the application, and projection rebuilds, each with
its raw baseline measured in the same run (see /work/shared/BENCHMARKS.md).

Run: ``.venv/bin/python bench/store_bench.py`` (PostgreSQL at ``--url``, default
``postgresql://postgres@127.0.0.1:5432/test``). The benchmark creates its own schema
``bench_<random>`` and drops it at the end.

A. Commands (closed loop): ``C`` client threads, each owning one game, send the next decision of
   a cheap deterministic policy (a seeded random choice among the legal non-claim actions,
   computed outside the timed call) as soon as the previous answer arrives. One
   ``PreferansApplication`` is shared by all threads; only ``app.act(...)`` is timed. Games that
   end are replaced by new ones (creation is neither timed nor counted).
B. Baseline at the same concurrency: raw psycopg, one ``INSERT`` per transaction (autocommit) of a
   row as large as the application's average stored event into a table with a bigserial id and a
   UNIQUE (stream uuid, version int) key; each thread appends to its own stream. Diagnostic
   variants add what the event store's recorder adds: ``NOTIFY``, and ``LOCK TABLE ... IN
   EXCLUSIVE MODE`` + ``NOTIFY`` (pipelined in one round trip).
C. Projection rebuild: ``runner.rebuild()`` of each standard projection, against reading the same
   events with the recorder (``select_notifications`` in batches of the runner's size) and
   decoding them (``mapper.to_domain_event``) without projecting.

With ``PREF_SHARDS=N`` in the environment the application's store has N shards (the raw
baselines stay one table). ``--sqlite`` adds the same on a temporary SQLite file (A at
concurrency 1 and 8 with a raw ``sqlite3`` insert baseline, and C). ``--profile N`` profiles
N single-threaded commands with cProfile (default store options and
``POSTGRES_ENABLE_DB_FUNCTIONS=y``).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import random
import secrets
import shlex
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

import psycopg
from psycopg import sql

from domain.model import Game
from domain.rules import Action, Claim, PlayCard, actor, legal_actions
from domain.rules.state import DealState
from projections import standard_runners
from service.app.application import PreferansApplication
from service.app.config import postgres_store, sqlite_store
from service.app.keys import new_key_line
from service.app.shards import recorders_of

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
TOPIC = "preferans.v1.CardPlayed"


# ---------------------------------------------------------------------------------------------
# measurement


@dataclass
class Result:
    """One closed-loop run: samples taken in the measurement window."""

    label: str
    store: str
    concurrency: int
    seconds: float
    latencies: list[float] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    errors: int = 0

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            return len(self.latencies)
        return sum(1 for k in self.kinds if k == kind)

    def rate(self, kind: str | None = None) -> float:
        return self.count(kind) / self.seconds

    def percentile(self, q: float, kind: str | None = None) -> float:
        """Latency percentile in milliseconds."""
        values = sorted(
            lat for lat, k in zip(self.latencies, self.kinds, strict=True) if kind in (None, k)
        )
        if not values:
            return float("nan")
        index = min(len(values) - 1, max(0, round(q / 100 * len(values) + 0.5) - 1))
        return values[index] * 1000


class Client(Protocol):
    def step(self) -> tuple[float, float, str]:
        """Do one operation; return (start, end, kind) by ``time.perf_counter``."""


def closed_loop(
    clients: Sequence[Client], seconds: float, warmup: float, label: str, store: str
) -> Result:
    """Each client in its own thread sends its next operation when the previous one returns.
    Only operations that start after ``warmup`` and end within the window are counted."""
    result = Result(label, store, len(clients), seconds)
    lock = threading.Lock()
    barrier = threading.Barrier(len(clients) + 1)
    window: list[float] = []

    def loop(client: Client) -> None:
        barrier.wait()
        begin, end = window
        lats: list[float] = []
        kinds: list[str] = []
        errors = 0
        while True:
            try:
                t0, t1, kind = client.step()
            except Exception as exc:  # count and go on; a benchmark must not hang
                errors += 1
                if errors <= 3:
                    print(f"  ! {label}: {type(exc).__name__}: {exc}", file=sys.stderr)
                if errors > 100:
                    break
                continue
            if t1 > end:
                break
            if t0 >= begin:
                lats.append(t1 - t0)
                kinds.append(kind)
        with lock:
            result.latencies.extend(lats)
            result.kinds.extend(kinds)
            result.errors += errors

    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        futures = [pool.submit(loop, client) for client in clients]
        now = time.perf_counter()
        window.extend([now + warmup, now + warmup + seconds])
        barrier.wait()
        for future in futures:
            future.result()
    return result


# ---------------------------------------------------------------------------------------------
# A: commands through the application


def choose(deal: DealState, rng: random.Random) -> Action:
    """The policy: a seeded random legal action, never a claim."""
    options = [a for a in legal_actions(deal) if not isinstance(a, Claim)]
    return options[int(rng.random() * len(options))]


class GameClient:
    """One client: owns one game at a time and plays all three seats of it."""

    def __init__(self, run: str, index: int) -> None:
        self.run = run
        self.index = index
        self.rng = random.Random(index)
        self.games = 0
        self.commands = 0
        self.app: PreferansApplication | None = None
        self.game_id = uuid.uuid4()
        self.game: Game | None = None

    def attach(self, app: PreferansApplication) -> None:
        """Serve from ``app`` (loads the game into its cache; untimed)."""
        self.app = app
        if self.game is None or self.game.finished:
            self.new_game()
        else:
            self.game = app.get_game(self.game_id)

    def new_game(self) -> None:
        assert self.app is not None
        self.games += 1
        players = [f"p{self.index}-{self.games}-{seat}" for seat in range(3)]
        created = self.app.create_game(players, f"{self.run}-g{self.index}-{self.games}")
        self.game_id = created.game_id
        self.game = self.app.get_game(self.game_id)

    def step(self) -> tuple[float, float, str]:
        app, game = self.app, self.game
        assert app is not None and game is not None
        if game.finished or game.state.deal is None:
            self.new_game()
            game = self.game
            assert game is not None
        deal = game.state.deal
        assert deal is not None
        action = choose(deal, self.rng)
        seat = actor(deal)
        self.commands += 1
        rid = f"{self.run}-c{self.index}-{self.commands}"
        t0 = time.perf_counter()
        answer = app.act(self.game_id, seat, action, rid)
        t1 = time.perf_counter()
        # The cache serves the very object the command mutated; reload only if it did not.
        if game.version != answer.version:
            self.game = app.get_game(self.game_id)
        return t0, t1, "play" if isinstance(action, PlayCard) else "other"


# ---------------------------------------------------------------------------------------------
# B: raw insert baselines


class PgInsertClient:
    """Raw psycopg: one INSERT per transaction into its own stream."""

    def __init__(self, url: str, table: str, schema: str, size: int, mode: str) -> None:
        self.conn = psycopg.connect(url, autocommit=True)
        self.stream = uuid.uuid4()
        self.version = 0
        self.payload = os.urandom(size)
        self.mode = mode
        ident = sql.Identifier(schema, table)
        self.insert = sql.SQL(
            "INSERT INTO {} (stream, version, topic, state) VALUES (%s, %s, %s, %s)"
        ).format(ident)
        self.lock = sql.SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(ident)
        self.notify = sql.SQL("NOTIFY {}").format(sql.Identifier(table))

    def step(self) -> tuple[float, float, str]:
        self.version += 1
        params = (self.stream, self.version, TOPIC, self.payload)
        conn = self.conn
        t0 = time.perf_counter()
        if self.mode == "raw":
            conn.execute(self.insert, params, prepare=True)
        else:
            with conn.pipeline(), conn.transaction(), conn.cursor() as cur:
                if "lock" in self.mode:
                    cur.execute(self.lock, prepare=True)
                if "notify" in self.mode:
                    cur.execute(self.notify, prepare=True)
                cur.execute(self.insert, params, prepare=True)
        return t0, time.perf_counter(), "insert"

    def close(self) -> None:
        self.conn.close()


class SqliteInsertClient:
    """Raw sqlite3: one INSERT per transaction (WAL, as the event store configures it)."""

    def __init__(self, path: str, size: int) -> None:
        self.conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        self.stream = uuid.uuid4().hex
        self.version = 0
        self.payload = os.urandom(size)

    def step(self) -> tuple[float, float, str]:
        self.version += 1
        t0 = time.perf_counter()
        self.conn.execute(
            "INSERT INTO baseline_events (stream, version, topic, state) VALUES (?, ?, ?, ?)",
            (self.stream, self.version, TOPIC, self.payload),
        )
        return t0, time.perf_counter(), "insert"

    def close(self) -> None:
        self.conn.close()


# ---------------------------------------------------------------------------------------------
# C: projection rebuild against read + decode


@dataclass
class Rebuild:
    name: str
    events: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.events / self.seconds


def log_head(app: PreferansApplication) -> int:
    """Events in the store: the sum of every shard's last notification id."""
    return sum(int(r.max_notification_id() or 0) for r in recorders_of(app.recorder))


def read_and_decode(app: PreferansApplication, batch: int) -> Rebuild:
    """The store's read limit: every notification, in batches, decoded to a domain event."""
    events = 0
    t0 = time.perf_counter()
    for shard in recorders_of(app.recorder):  # every shard's log (PREF_SHARDS)
        start = 1
        while True:
            notifications = shard.select_notifications(start=start, limit=batch)
            if not notifications:
                break
            for notification in notifications:
                app.mapper.to_domain_event(notification)
            events += len(notifications)
            start = notifications[-1].id + 1
    return Rebuild("read+decode", events, time.perf_counter() - t0)


def rebuilds(app: PreferansApplication) -> tuple[list[Rebuild], list[Rebuild], int]:
    """(raw baselines before and after, projection rebuilds, batch size)."""
    runners = standard_runners(app, app.db)
    batch = next(iter(runners.values())).rebuild_batch  # what a rebuild reads at a time
    raw = [read_and_decode(app, batch)]
    done = []
    for name, runner in runners.items():
        t0 = time.perf_counter()
        count = runner.rebuild()
        done.append(Rebuild(name, count, time.perf_counter() - t0))
    raw.append(read_and_decode(app, batch))
    return raw, done, batch


def fill(app: PreferansApplication, run: str, needed: int) -> int:
    """Store at least ``needed`` more events quickly: games played in memory with the same
    policy, saved once per deal (untimed; only to give the rebuild enough events)."""
    rng = random.Random(7)
    stored = games = 0
    while stored < needed:
        games += 1
        created = app.create_game(["a", "b", "c"], f"{run}-fill-{games}")
        stored += created.version
        game = app.get_game(created.game_id)
        seed = app._seed(created.game_id)
        n = 0
        while not game.finished and stored < needed:
            before = game.version
            number = game.state.deal_number
            while not game.finished and game.state.deal_number == number:
                deal = game.state.deal
                assert deal is not None
                n += 1
                game.act(actor(deal), choose(deal, rng), f"{run}-fill-{games}-{n}", seed)
            app.save(game)
            stored += game.version - before
    return stored


# ---------------------------------------------------------------------------------------------
# orchestration


@dataclass
class Section:
    store: str
    commands: list[Result] = field(default_factory=list)
    raw_reads: list[Rebuild] = field(default_factory=list)
    projections: list[Rebuild] = field(default_factory=list)
    batch: int = 0
    event_size: float = 0.0
    play_size: float = 0.0
    events: int = 0
    notes: list[str] = field(default_factory=list)


def say(text: str) -> None:
    print(text, flush=True)


def pg_env(url: str, schema: str, pool: int, extra: dict[str, str]) -> dict[str, str]:
    env = dict(postgres_store(url).env)
    env.update(
        POSTGRES_SCHEMA=schema,
        POSTGRES_POOL_SIZE=str(pool),
        POSTGRES_MAX_OVERFLOW="4",
        POSTGRES_CONNECT_TIMEOUT="30",
        PREF_READ_POOL_SIZE="4",
    )
    env.update(extra)
    return env


@contextlib.contextmanager
def application(env: dict[str, str]) -> Iterator[PreferansApplication]:
    app = PreferansApplication(env)
    try:
        yield app
    finally:
        app.close()


APP_VARIANTS: dict[str, dict[str, str]] = {
    "app": {},
    "app db-functions": {"POSTGRES_ENABLE_DB_FUNCTIONS": "y"},
    "app no-fastforward": {"AGGREGATE_CACHE_FASTFORWARD": "n"},
}
RAW_VARIANTS = ("raw", "raw+lock", "raw+notify", "raw+lock+notify")


def run_commands(
    make_app: Callable[
        [int, dict[str, str]], contextlib.AbstractContextManager[PreferansApplication]
    ],
    clients: list[GameClient],
    variant: str,
    args: argparse.Namespace,
    store: str,
) -> Result:
    with make_app(len(clients), APP_VARIANTS[variant]) as app:
        for client in clients:
            client.attach(app)
        result = closed_loop(clients, args.seconds, args.warmup, variant, store)
    say(row(result))
    return result


def postgres_section(args: argparse.Namespace, run: str) -> Section:
    section = Section("PostgreSQL")
    schema = f"bench_{run}"
    admin = psycopg.connect(args.url, autocommit=True)
    admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        say(f"schema {schema} created")

        def make_app(
            concurrency: int, extra: dict[str, str]
        ) -> contextlib.AbstractContextManager[PreferansApplication]:
            return application(pg_env(args.url, schema, concurrency + 4, extra))

        admin.execute(
            sql.SQL(
                "CREATE TABLE {} (id bigserial PRIMARY KEY, stream uuid NOT NULL, "
                "version integer NOT NULL, topic text NOT NULL, state bytea NOT NULL, "
                "UNIQUE (stream, version))"
            ).format(sql.Identifier(schema, "baseline_events"))
        )
        events_table = sql.Identifier(schema, "preferans_events")
        say(header())
        for concurrency in args.concurrency:
            clients = [GameClient(run, 1000 * concurrency + i) for i in range(concurrency)]
            for variant in args.variants:
                section.commands.append(run_commands(make_app, clients, variant, args, "pg"))
                if not section.event_size:
                    sizes = admin.execute(
                        sql.SQL(
                            "SELECT avg(octet_length(state))::float8, "
                            "avg(octet_length(state)) FILTER (WHERE topic = %s)::float8 FROM {}"
                        ).format(events_table),
                        (TOPIC,),
                    ).fetchone()
                    assert sizes is not None
                    section.event_size, section.play_size = float(sizes[0]), float(sizes[1])
                    say(
                        f"   (average stored event state: {section.event_size:.0f} bytes; "
                        f"CardPlayed: {section.play_size:.0f} bytes; baseline rows use "
                        f"{round(section.event_size)} bytes)"
                    )
            for mode in args.raw:
                inserters = [
                    PgInsertClient(
                        args.url, "baseline_events", schema, round(section.event_size), mode
                    )
                    for _ in range(concurrency)
                ]
                try:
                    result = closed_loop(inserters, args.seconds, args.warmup, mode, "pg")
                finally:
                    for inserter in inserters:
                        inserter.close()
                section.commands.append(result)
                say(row(result))
        with make_app(4, {}) as app:
            section.events = log_head(app)
            if section.events < args.min_events:
                t0 = time.perf_counter()
                added = fill(app, run, args.min_events - section.events)
                say(
                    f"stored {added} more events for the rebuild in "
                    f"{time.perf_counter() - t0:.1f} s (games played in memory, one save a deal)"
                )
            section.events = log_head(app)
            section.raw_reads, section.projections, section.batch = rebuilds(app)
    finally:
        admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
        admin.close()
        say(f"schema {schema} dropped")
    return section


def sqlite_section(args: argparse.Namespace, run: str) -> Section:
    section = Section("SQLite")
    with tempfile.TemporaryDirectory(prefix="store_bench_") as tmp:
        path = os.path.join(tmp, "bench.sqlite")

        def make_app(
            concurrency: int, extra: dict[str, str]
        ) -> contextlib.AbstractContextManager[PreferansApplication]:
            return application(dict(sqlite_store(path).env))

        base = os.path.join(tmp, "baseline.sqlite")
        conn = sqlite3.connect(base, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(
            "CREATE TABLE baseline_events (id INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT "
            "NULL, version INTEGER NOT NULL, topic TEXT NOT NULL, state BLOB NOT NULL, "
            "UNIQUE (stream, version))"
        )
        conn.close()
        say(header())
        for concurrency in args.sqlite_concurrency:
            clients = [GameClient(run, 1000 * concurrency + i) for i in range(concurrency)]
            section.commands.append(run_commands(make_app, clients, "app", args, "sqlite"))
            if not section.event_size:
                db = sqlite3.connect(path)
                sizes = db.execute(
                    "SELECT avg(length(state)), avg(CASE WHEN topic = ? THEN length(state) END) "
                    "FROM stored_events",
                    (TOPIC,),
                ).fetchone()
                db.close()
                section.event_size, section.play_size = float(sizes[0]), float(sizes[1])
            inserters = [SqliteInsertClient(base, round(section.event_size)) for _ in clients]
            try:
                result = closed_loop(inserters, args.seconds, args.warmup, "raw", "sqlite")
            finally:
                for inserter in inserters:
                    inserter.close()
            section.commands.append(result)
            say(row(result))
        with make_app(1, {}) as app:
            section.events = log_head(app)
            if section.events < args.min_events:
                added = fill(app, run, args.min_events - section.events)
                say(f"stored {added} more events for the rebuild")
            section.events = log_head(app)
            section.raw_reads, section.projections, section.batch = rebuilds(app)
    return section


# ---------------------------------------------------------------------------------------------
# profile


def profile(args: argparse.Namespace, run: str, count: int) -> None:
    schema = f"bench_{run}_prof"
    admin = psycopg.connect(args.url, autocommit=True)
    admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        for variant in ("app", "app db-functions"):
            env = pg_env(args.url, schema, 2, APP_VARIANTS[variant])
            with application(env) as app:
                client = GameClient(f"{run}{variant[-3:]}", 1)
                client.attach(app)
                for _ in range(50):
                    client.step()
                profiler = cProfile.Profile()
                lats = []
                t0 = time.perf_counter()
                profiler.enable()
                for _ in range(count):
                    start, end, _kind = client.step()
                    lats.append(end - start)
                profiler.disable()
                wall = time.perf_counter() - t0
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out)
            stats.sort_stats("tottime").print_stats(22)
            say(
                f"\n--- cProfile, {variant}, 1 thread, {count} commands: "
                f"{count / wall:.0f} commands/s under the profiler, median act "
                f"{statistics.median(lats) * 1000:.2f} ms ---"
            )
            say(out.getvalue())
    finally:
        admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
        admin.close()


# ---------------------------------------------------------------------------------------------
# reporting


def header() -> str:
    return (
        f"{'store':7} {'run':18} {'C':>3} {'ops/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'plays/s':>8} {'play p50':>8} {'play p99':>8} {'err':>4}"
    )


def row(r: Result) -> str:
    plays = r.count("play")
    play = (
        f"{r.rate('play'):8.0f} {r.percentile(50, 'play'):8.2f} {r.percentile(99, 'play'):8.2f}"
        if plays
        else f"{'':8} {'':8} {'':8}"
    )
    return (
        f"{r.store:7} {r.label:18} {r.concurrency:3d} {r.rate():8.0f} {r.percentile(50):7.2f} "
        f"{r.percentile(99):7.2f} {play} {r.errors:4d}"
    )


def find(section: Section, label: str, concurrency: int) -> Result | None:
    for r in section.commands:
        if r.label == label and r.concurrency == concurrency:
            return r
    return None


def summary(section: Section) -> list[str]:
    """Markdown lines for one store."""
    lines = [
        f"**{section.store}**: average stored event {section.event_size:.0f} bytes "
        f"(CardPlayed {section.play_size:.0f} bytes); closed loop, one game per client thread, "
        "one shared application.",
        "",
        "| run | clients | ops/s | p50 ms | p99 ms | card plays/s | play p50 ms | play p99 ms "
        "| vs raw insert |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in section.commands:
        base = find(section, "raw", r.concurrency)
        ratio = f"{r.rate() / base.rate():.0%}" if base and base.rate() else ""
        plays = r.count("play")
        play = (
            f"{r.rate('play'):.0f} | {r.percentile(50, 'play'):.2f} | "
            f"{r.percentile(99, 'play'):.2f}"
            if plays
            else " | | "
        )
        lines.append(
            f"| {r.label} | {r.concurrency} | {r.rate():.0f} | {r.percentile(50):.2f} | "
            f"{r.percentile(99):.2f} | {play} | {ratio} |"
        )
    if section.projections:
        best = max(section.raw_reads, key=lambda b: b.rate)
        raws = " / ".join(f"{b.rate:,.0f}" for b in section.raw_reads)
        lines += [
            "",
            f"Projection rebuild over {section.events:,} events, batches of {section.batch}; "
            f"baseline read+decode {raws} events/s (before / after; the ratio uses the faster):",
            "",
            "| projection | events | seconds | events/s | vs read+decode |",
            "|---|---:|---:|---:|---:|",
        ]
        for p in section.projections:
            lines.append(
                f"| {p.name} | {p.events:,} | {p.seconds:.2f} | {p.rate:,.0f} | "
                f"{p.rate / best.rate:.0%} |"
            )
    return lines


def report(sections: list[Section], args: argparse.Namespace) -> None:
    say("")
    for section in sections:
        say(f"== {section.store}: commands (app) / inserts (raw), ratio to raw insert ==")
        for concurrency in sorted({r.concurrency for r in section.commands}):
            base = find(section, "raw", concurrency)
            for r in section.commands:
                if r.concurrency != concurrency or r.label == "raw" or base is None:
                    continue
                say(
                    f"  C={concurrency:<3} {r.label:18} {r.rate():8.0f}/s vs raw "
                    f"{base.rate():8.0f}/s  = {r.rate() / base.rate():6.1%}"
                )
        if section.projections:
            say(f"== {section.store}: projection rebuild over {section.events} events ==")
            for b in section.raw_reads:
                say(f"  {b.name:12} {b.events:8d} events {b.seconds:7.2f} s {b.rate:9.0f}/s")
            best = max(section.raw_reads, key=lambda b: b.rate)
            for p in section.projections:
                say(
                    f"  {p.name:12} {p.events:8d} events {p.seconds:7.2f} s {p.rate:9.0f}/s"
                    f"  = {p.rate / best.rate:6.1%} of read+decode"
                )
    load = os.getloadavg()
    say("\n---- markdown for docs/PERFORMANCE.md ----\n")
    say("### Event store: commands and projection rebuild\n")
    say(
        f"`{shlex.join(['.venv/bin/python', 'bench/store_bench.py', *sys.argv[1:]])}` "
        f"({os.cpu_count()} cores, load average {load[0]:.1f} at the end; psycopg "
        f"{psycopg.__version__}, {psycopg.pq.__impl__} implementation; {args.seconds:g} s "
        f"measured per row after {args.warmup:g} s warm-up). Policy: seeded random legal "
        "action, no claims, chosen outside the timed `app.act`. Baseline `raw`: psycopg, one "
        "INSERT per transaction into a table with a bigserial and UNIQUE (stream, version); "
        "`raw+lock` / `raw+notify` / `raw+lock+notify` add what the eventsourcing recorder does "
        "in each insert transaction (`LOCK TABLE ... IN EXCLUSIVE MODE`, `NOTIFY`; pipelined "
        "in one round trip).\n"
    )
    if any(r.label == "app db-functions" for s in sections for r in s.commands):
        say(
            "`app db-functions` is `POSTGRES_ENABLE_DB_FUNCTIONS=y`: one round trip per insert, "
            "but the library's insert function takes no `LOCK TABLE`, so notification ids can "
            "commit out of order and a reader tailing the log (the projection runner) can skip "
            "events for good. Shown for comparison only; not safe with the projections as they "
            "are.\n"
        )
    for section in sections:
        for line in summary(section):
            say(line)
        say("")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL URL (a schema is made)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--seconds", type=float, default=6.0, help="measured seconds per row")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds per row")
    parser.add_argument(
        "--variants",
        nargs="+",
        default=["app", "app db-functions"],
        choices=sorted(APP_VARIANTS),
        help="application store options to run",
    )
    parser.add_argument(
        "--raw",
        nargs="+",
        default=list(RAW_VARIANTS),
        choices=RAW_VARIANTS,
        help="raw insert baselines to run ('raw' is the one the ratio uses)",
    )
    parser.add_argument("--min-events", type=int, default=20_000, help="events for rebuilds")
    parser.add_argument("--sqlite", action="store_true", help="also run on a SQLite file")
    parser.add_argument("--sqlite-concurrency", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--no-postgres", action="store_true", help="skip PostgreSQL")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="instead: cProfile N single-threaded commands on PostgreSQL",
    )
    args = parser.parse_args(argv)
    if "raw" not in args.raw:
        args.raw.insert(0, "raw")
    run = secrets.token_hex(4)
    load = os.getloadavg()
    say(
        f"store_bench run {run}: {os.cpu_count()} cores, load average {load[0]:.1f}, "
        f"python {sys.version.split()[0]}, psycopg {psycopg.__version__} "
        f"({psycopg.pq.__impl__} implementation)"
    )
    if args.profile:
        profile(args, run, args.profile)
        return
    sections: list[Section] = []
    if not args.no_postgres:
        sections.append(postgres_section(args, run))
    if args.sqlite:
        sections.append(sqlite_section(args, run))
    report(sections, args)


if __name__ == "__main__":
    # A throwaway server key, unless one is configured: PostgreSQL stores need one.
    os.environ.setdefault("PREF_KEYS", new_key_line("bench"))
    main()
