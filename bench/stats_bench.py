"""League statistics benchmark: the ``stats`` projection's rebuild against reading and decoding
the same events (measured in the same run), and the leaderboard's latency on a league of at
least 1,000 games, directly and through gRPC (see /work/shared/BENCHMARKS.md).

Run: ``.venv/bin/python bench/stats_bench.py`` (PostgreSQL at ``--url``, default
``postgresql://postgres@127.0.0.1:5432/test``). The league is stored in a schema
``bench_stats_<random>``, dropped at the end; with ``--keep-schema NAME`` the schema ``NAME``
is used (created if missing), kept, and reused by later runs: games it already holds are not
played again (``bench_stats_info`` records how many there are and how long they took).

1. The league (untimed for the results; its generation time is reported): ``--games`` games of
   ``--pool`` pool points among ``--players`` players (three drawn per game, seeded), played by
   ``make_bot()`` in every seat through the application: each game is created with
   ``app.create_game`` (league ``bench``), each decision is ``Game.act`` on the application's
   aggregate (the same validation and events as ``app.act``) with the bot seeing only the
   actor's ``seat_view``, and the game is saved once per deal (fewer commits; the stored
   events are the same). ``--threads`` games are played at once.
2. Rebuild: ``ProjectionRunner.rebuild()`` of the ``stats`` projection (drop, create, project
   the whole log in batches), against the store's read limit: every notification selected in
   batches of the rebuild's size and decoded (``mapper.to_domain_event``), measured before and
   after the rebuild; the ratio uses the faster of the two. The process's CPU seconds of the
   three are printed too (the wall clock means little on a shared machine).
3. Leaderboard latency, open loop: ``--calls`` calls at ``--rate`` per second, spread over
   ``--clients`` worker threads; call k asks the first page (``--page-size`` entries) in one of
   the five orders, alternately descending and ascending. Latency is measured from the call's
   scheduled time (so a call that waits for a free worker counts its wait). Direct:
   ``stats_queries.leaderboard`` in this process. gRPC: ``ListLeaderboard`` on a ``pref serve``
   process (``--no-projections``) on the same schema, from a synchronous client. Also, closed
   loop and one caller, the other queries (player stats, head to head, league totals).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import psycopg
from psycopg import sql

from domain.bots import make_bot
from domain.rules import RuleSet, actor, seat_view
from projections import standard_runners, stats_queries
from service.app.application import PreferansApplication
from service.app.keys import new_key_line
from service.gen.preferans.v1 import stats_pb2 as spb
from service.gen.preferans.v1 import stats_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grpc_bench import game_server, wait_serving  # siblings, not a package
from store_bench import DEFAULT_URL, Rebuild, pg_env, read_and_decode, say

LEAGUE = "bench"
INFO_TABLE = "bench_stats_info"
ORDERS = ("rating", "settlement_total", "games", "deals", "contracts_made")
PB_ORDERS = {
    "rating": spb.LEADERBOARD_ORDER_RATING,
    "settlement_total": spb.LEADERBOARD_ORDER_SETTLEMENT_TOTAL,
    "games": spb.LEADERBOARD_ORDER_GAMES,
    "deals": spb.LEADERBOARD_ORDER_DEALS,
    "contracts_made": spb.LEADERBOARD_ORDER_CONTRACTS_MADE,
}


# ---------------------------------------------------------------------------------------------
# 1. the league


@dataclass
class League:
    games: int = 0
    deals: int = 0
    events: int = 0
    seconds: float = 0.0
    """Generation time of all the games in the schema (summed over the runs that made them)."""
    new_games: int = 0
    new_seconds: float = 0.0


def play_game(app: PreferansApplication, index: int, players: list[str], pool: int) -> int:
    """Create game ``index`` and play it to its end with bots; return its deals played."""
    request = f"{LEAGUE}-g{index}"
    created = app.create_game(players, request, rules=RuleSet(pool_target=pool), league=LEAGUE)
    game = app.get_game(created.game_id)
    seed = app._seed(created.game_id)
    bots = [make_bot() for _ in players]
    n = 0
    while not game.finished:
        number = game.state.deal_number
        while not game.finished and game.state.deal_number == number:
            deal = game.state.deal
            assert deal is not None
            seat = actor(deal)
            n += 1
            game.act(seat, bots[seat](seat_view(deal, seat)), f"{request}-{n}", seed)
        app.save(game)
    return int(game.state.deal_number)


def read_info(conn: psycopg.Connection[Any], schema: str) -> tuple[int, int, float]:
    """(games, deals, seconds) recorded in the schema, or zeros."""
    table = sql.Identifier(schema, INFO_TABLE)
    conn.execute(
        sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (league TEXT PRIMARY KEY, games INT NOT NULL, "
            "deals INT NOT NULL, seconds DOUBLE PRECISION NOT NULL)"
        ).format(table)
    )
    row = conn.execute(
        sql.SQL("SELECT games, deals, seconds FROM {} WHERE league = %s").format(table), (LEAGUE,)
    ).fetchone()
    return (int(row[0]), int(row[1]), float(row[2])) if row else (0, 0, 0.0)


def write_info(
    conn: psycopg.Connection[Any], schema: str, games: int, deals: int, seconds: float
) -> None:
    conn.execute(
        sql.SQL(
            "INSERT INTO {} (league, games, deals, seconds) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (league) DO UPDATE SET games = excluded.games, deals = excluded.deals, "
            "seconds = excluded.seconds"
        ).format(sql.Identifier(schema, INFO_TABLE)),
        (LEAGUE, games, deals, seconds),
    )


def make_league(
    app: PreferansApplication, conn: psycopg.Connection[Any], schema: str, args: argparse.Namespace
) -> League:
    """At least ``--games`` finished games in the league (only the missing ones are played)."""
    have, deals, seconds = read_info(conn, schema)
    league = League(games=have, deals=deals, seconds=seconds)
    missing = range(have, args.games)
    if missing:
        say(
            f"playing {len(missing)} games (pool {args.pool}, {args.players} players, "
            f"{args.threads} threads) into schema {schema} ..."
        )
        names = [f"p{i:03d}" for i in range(args.players)]
        lock = threading.Lock()
        done = [0, 0]
        t0 = time.perf_counter()

        def one(index: int) -> None:
            players = random.Random(index).sample(names, 3)
            played = play_game(app, index, players, args.pool)
            with lock:
                done[0] += 1
                done[1] += played
                if done[0] % 100 == 0:
                    rate = done[0] / (time.perf_counter() - t0)
                    say(f"  {done[0]} games, {done[1]} deals ({rate:.1f} games/s)")

        with ThreadPoolExecutor(max_workers=args.threads) as pool:
            for future in [pool.submit(one, i) for i in missing]:
                future.result()
        league.new_games = len(missing)
        league.new_seconds = time.perf_counter() - t0
        league.games = args.games
        league.deals += done[1]
        league.seconds += league.new_seconds
        write_info(conn, schema, league.games, league.deals, league.seconds)
        say(f"  played in {league.new_seconds:.1f} s")
    league.events = int(app.recorder.max_notification_id() or 0)
    return league


# ---------------------------------------------------------------------------------------------
# 2. rebuild


CPU: list[float] = []
"""This process's CPU seconds of read+decode (before), the rebuild, read+decode (after):
unlike the wall clock, hardly moved by other processes on a shared machine (PostgreSQL's own
work is not in it, for the baseline as for the rebuild)."""


def rebuild(app: PreferansApplication) -> tuple[list[Rebuild], Rebuild, int]:
    """(read+decode before and after, the stats rebuild, batch size); the CPU times in
    ``CPU``."""
    runner = standard_runners(app, app.db, names=("stats",))["stats"]
    CPU.clear()
    c0 = time.process_time()
    raw = [read_and_decode(app, runner.rebuild_batch)]
    c1 = time.process_time()
    t0 = time.perf_counter()
    count = runner.rebuild()
    done = Rebuild("stats", count, time.perf_counter() - t0)
    c2 = time.process_time()
    raw.append(read_and_decode(app, runner.rebuild_batch))
    CPU.extend((c1 - c0, c2 - c1, time.process_time() - c2))
    return raw, done, runner.rebuild_batch


# ---------------------------------------------------------------------------------------------
# 3. latency


@dataclass
class Latency:
    label: str
    loop: str
    rate: float
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    errors: int = 0

    def pct(self, q: float, values: list[float] | None = None) -> float:
        data = sorted(self.latencies if values is None else values)
        if not data:
            return float("nan")
        index = min(len(data) - 1, max(0, round(q / 100 * len(data) + 0.5) - 1))
        return data[index] * 1000

    @property
    def achieved(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0


def open_loop(
    label: str, call: Callable[[int], object], calls: int, rate: float, clients: int
) -> Latency:
    """``calls`` calls, call k scheduled at ``k / rate`` s; latency from the scheduled time."""
    result = Latency(label, "open", rate)
    lock = threading.Lock()
    start = time.perf_counter() + 0.05

    def one(k: int) -> None:
        slot = start + k / rate
        begun = time.perf_counter()
        try:
            call(k)
        except Exception as exc:  # counted; a benchmark must not hang
            with lock:
                result.errors += 1
                if result.errors <= 3:
                    say(f"  ! {label}: {type(exc).__name__}: {exc}")
            return
        end = time.perf_counter()
        with lock:
            result.latencies.append(end - slot)
            result.lags.append(begun - slot)

    with ThreadPoolExecutor(max_workers=clients) as pool:
        for k in range(calls):
            delay = start + k / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            pool.submit(one, k)
    result.seconds = time.perf_counter() - start
    return result


def closed_loop(label: str, call: Callable[[int], object], calls: int) -> Latency:
    result = Latency(label, "closed", 0.0)
    t0 = time.perf_counter()
    for k in range(calls):
        begun = time.perf_counter()
        call(k)
        result.latencies.append(time.perf_counter() - begun)
    result.seconds = time.perf_counter() - t0
    result.rate = result.achieved
    return result


def order_of(k: int) -> tuple[str, bool]:
    return ORDERS[k % len(ORDERS)], (k // len(ORDERS)) % 2 == 0


def direct_runs(app: PreferansApplication, args: argparse.Namespace) -> list[Latency]:
    db = app.db
    size = args.page_size

    def board(k: int) -> object:
        order, descending = order_of(k)
        rows = stats_queries.leaderboard(db, LEAGUE, order, descending, limit=size)
        assert rows, "empty leaderboard"
        return rows

    for k in range(50):  # warm the pool and the caches
        board(k)
    runs = [open_loop("leaderboard (direct)", board, args.calls, args.rate, args.clients)]
    ids = [r["player_id"] for r in stats_queries.leaderboard(db, LEAGUE, limit=1_000_000)]
    n = max(100, args.calls // 4)
    rng = random.Random(1)
    pairs = [rng.sample(ids, 2) for _ in range(n)]

    def player(k: int) -> object:
        return stats_queries.player_stats(db, LEAGUE, ids[k % len(ids)])

    def versus(k: int) -> object:
        return stats_queries.head_to_head(db, LEAGUE, *pairs[k])

    def totals(k: int) -> object:
        return stats_queries.league_totals(db, LEAGUE)

    runs.append(closed_loop("player_stats (direct)", player, n))
    runs.append(closed_loop("head_to_head (direct)", versus, n))
    runs.append(closed_loop("league_totals (direct)", totals, n))
    return runs


def grpc_runs(schema: str, ids: list[str], args: argparse.Namespace) -> list[Latency]:
    """``ListLeaderboard`` through a ``pref serve`` process on the same schema."""
    server = game_server(
        argparse.Namespace(
            url=args.url,
            workers=args.server_workers,
            no_projections=True,
            profile_server=None,
        ),
        schema,
    )
    try:
        asyncio.run(wait_serving(server))
        with grpc.insecure_channel(server.target) as channel:
            stub: Any = stats_pb2_grpc.StatsServiceStub(channel)

            def board(k: int) -> object:
                order, descending = order_of(k)
                request = spb.ListLeaderboardRequest(
                    league=LEAGUE,
                    order_by=PB_ORDERS[order],
                    descending=descending,
                    page_size=args.page_size,
                )
                answer = stub.ListLeaderboard(request, timeout=10)
                assert answer.entries, "empty leaderboard"
                return answer

            def player(k: int) -> object:
                request = spb.GetPlayerStatsRequest(league=LEAGUE, player_id=ids[k % len(ids)])
                return stub.GetPlayerStats(request, timeout=10)

            for k in range(50):
                board(k)
            runs = [open_loop("ListLeaderboard (gRPC)", board, args.calls, args.rate, args.clients)]
            runs.append(closed_loop("GetPlayerStats (gRPC)", player, max(100, args.calls // 4)))
            return runs
    finally:
        server.stop()


# ---------------------------------------------------------------------------------------------
# orchestration and report


@contextlib.contextmanager
def schema_for(args: argparse.Namespace) -> Iterator[str]:
    keep = args.keep_schema is not None
    schema = args.keep_schema or f"bench_stats_{secrets.token_hex(4)}"
    with psycopg.connect(args.url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
    try:
        yield schema
    finally:
        if not keep:
            with psycopg.connect(args.url, autocommit=True) as admin:
                admin.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
                )


def table(runs: Sequence[Latency]) -> list[str]:
    lines = [
        "| query | loop | offered/s | calls | achieved/s | p50 ms | p99 ms | max ms | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        offered = f"{r.rate:.0f}" if r.loop == "open" else "-"
        lines.append(
            f"| {r.label} | {r.loop} | {offered} | {len(r.latencies)} | {r.achieved:.0f} | "
            f"{r.pct(50):.2f} | {r.pct(99):.2f} | {r.pct(100):.2f} | {r.errors} |"
        )
    return lines


def report(
    args: argparse.Namespace,
    argv: Sequence[str],
    league: League,
    raw: list[Rebuild],
    done: Rebuild,
    batch: int,
    runs: list[Latency],
    players: int,
) -> None:
    best = max(raw, key=lambda b: b.rate)
    ratio = done.rate / best.rate
    board = [r for r in runs if r.loop == "open"]
    worst_p99 = max(r.pct(99) for r in board) if board else float("nan")
    load = os.getloadavg()
    served = (
        ""
        if args.no_grpc
        else f"; the gRPC server is a `pref serve --no-projections` process with "
        f"{args.server_workers} workers"
    )
    generated = (
        f"{league.new_games:,} games played in this run in {league.new_seconds:.1f} s "
        f"({league.new_games / league.new_seconds:.1f} games/s)"
        if league.new_games
        else "no game played in this run (the kept schema had them)"
    )
    say("\n---- markdown for docs/PERFORMANCE.md ----\n")
    say("### League statistics: projection rebuild and leaderboard\n")
    say(
        f"`{shlex.join(['.venv/bin/python', 'bench/stats_bench.py', *argv])}` "
        f"({os.cpu_count()} cores, load average {load[0]:.1f} at the end; PostgreSQL). League: "
        f"{league.games:,} finished games, {league.deals:,} deals, {league.events:,} events, "
        f"{players} players, pool {args.pool}, bots in every seat; {generated}; all of them "
        f"took {league.seconds:.1f} s to play and store ({args.threads} threads, one "
        "application, saved once per deal).\n"
    )
    raws = " / ".join(f"{b.rate:,.0f}" for b in raw)
    say(
        f"Rebuild of the `stats` projection, batches of {batch}; baseline read+decode {raws} "
        "events/s (before / after; the ratio uses the faster). Target: at least 50 %.\n"
    )
    say("| projection | events | seconds | events/s | vs read+decode |")
    say("|---|---:|---:|---:|---:|")
    say(f"| stats | {done.events:,} | {done.seconds:.2f} | {done.rate:,.0f} | {ratio:.0%} |")
    say("")
    if CPU:
        before, rebuilt, after = CPU
        say(
            f"CPU seconds of this process (other processes' load hardly moves them; "
            f"PostgreSQL's work is not in them): read+decode {before:.2f} / {after:.2f}, "
            f"rebuild {rebuilt:.2f}: the rebuild at {min(before, after) / rebuilt:.0%} of "
            "read+decode's events per CPU second.\n"
        )
    say(
        f"Query latency (first page of {args.page_size}, the five orders, both directions; open "
        f"loop from the scheduled time, {args.clients} worker threads{served}). Target: "
        f"leaderboard p99 at most 50 ms — worst here {worst_p99:.2f} ms.\n"
    )
    for line in table(runs):
        say(line)
    say("")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL URL")
    parser.add_argument("--keep-schema", metavar="NAME", help="use, keep and reuse this schema")
    parser.add_argument("--games", type=int, default=1000, help="finished games in the league")
    parser.add_argument("--players", type=int, default=100, help="players in the league")
    parser.add_argument("--pool", type=int, default=4, help="pool target of every game")
    parser.add_argument("--threads", type=int, default=4, help="games played at once")
    parser.add_argument("--calls", type=int, default=2000, help="leaderboard calls per run")
    parser.add_argument("--rate", type=float, default=100.0, help="offered leaderboard calls/s")
    parser.add_argument("--clients", type=int, default=4, help="caller threads (open loop)")
    parser.add_argument("--page-size", type=int, default=50, help="leaderboard page size")
    parser.add_argument("--server-workers", type=int, default=8, help="gRPC server workers")
    parser.add_argument("--no-grpc", action="store_true", help="skip the gRPC runs")
    args = parser.parse_args(argv)
    shown = list(sys.argv[1:] if argv is None else argv)
    load = os.getloadavg()
    say(
        f"stats_bench: {os.cpu_count()} cores, load average {load[0]:.1f}, python "
        f"{sys.version.split()[0]}, psycopg {psycopg.__version__}"
    )
    with schema_for(args) as schema:
        env = pg_env(args.url, schema, args.threads + 2, {})
        app = PreferansApplication(env)
        try:
            with psycopg.connect(args.url, autocommit=True) as conn:
                league = make_league(app, conn, schema, args)
            say(f"league: {league.games} games, {league.deals} deals, {league.events} events")
            raw, done, batch = rebuild(app)
            say(
                f"rebuild: stats {done.events} events in {done.seconds:.2f} s "
                f"({done.rate:,.0f}/s); read+decode " + " / ".join(f"{b.rate:,.0f}/s" for b in raw)
            )
            totals = stats_queries.league_totals(app.db, LEAGUE)
            assert totals is not None and totals["games"] == league.games, totals
            runs = direct_runs(app, args)
            ids = [r["player_id"] for r in stats_queries.leaderboard(app.db, LEAGUE, limit=10**6)]
        finally:
            app.close()
        if not args.no_grpc:
            runs += grpc_runs(schema, ids, args)
        report(args, shown, league, raw, done, batch, runs, int(totals["players"]))


if __name__ == "__main__":
    # A throwaway server key, unless one is configured: PostgreSQL stores need one.
    os.environ.setdefault("PREF_KEYS", new_key_line("bench"))
    main()
