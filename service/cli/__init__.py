"""The ``pref`` command line: the thin entry point of the service.

``pref demo`` plays a whole game (pulya) of three bots in the terminal and prints every deal and
the final scoresheet with the settlement. More commands arrive with the event store and the
gRPC server.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import secrets
import sys
import uuid
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.console import Console

from service.cli.keys import add_keys_parser
from service.cli.render import render_game

if TYPE_CHECKING:
    from service.app.application import PreferansApplication


def _seed(text: str | None) -> bytes:
    """A game seed: SHA-256 of the given text (reproducible), or 32 fresh random bytes."""
    if text is None:
        return secrets.token_bytes(32)
    return hashlib.sha256(text.encode()).digest()


def cmd_demo(args: argparse.Namespace) -> int:
    from domain.bots import make_bot
    from domain.rules import DEFAULT, play_game

    seed = _seed(args.seed)
    record = play_game(
        seed,
        [make_bot(), make_bot(), make_bot()],
        DEFAULT,
        first_dealer=args.dealer,
        max_deals=args.max_deals,
    )
    console = Console()
    render_game(console, record, show_deals=not args.quiet)
    return 0


def _open_app(store: str | None) -> PreferansApplication:
    from service.app.application import PreferansApplication
    from service.app.config import store_config

    return PreferansApplication(store_config(store).env)


def cmd_migrate(args: argparse.Namespace) -> int:
    """Create the event tables and the projection tables, and drop the tables of retired read
    models (idempotent)."""
    from projections import drop_retired, standard_runners

    app = _open_app(args.store)
    try:
        standard_runners(app, app.db)
        dropped = drop_retired(app.db)
    finally:
        app.close()
    if dropped:
        Console().print(f"dropped retired read models: {', '.join(dropped)}", markup=False)
    Console().print("tables are ready")
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    """Drop and rebuild projections from the event log, with a progress bar."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from projections import PROJECTION_NAMES, standard_runners
    from projections.runner import ProjectionFailed
    from projections.shadow import RebuildConflict

    names = tuple(args.names) or PROJECTION_NAMES
    app = _open_app(args.store)
    try:
        runners = standard_runners(app, app.db, names)
        total = next(iter(runners.values())).max_position()
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed:,}/{task.total:,} events"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
        ) as progress:
            for name, runner in runners.items():
                task = progress.add_task(f"rebuild {name}", total=total)
                runner.rebuild(partial(progress.advance, task))
                progress.update(task, completed=total)
    except (ProjectionFailed, RebuildConflict) as exc:
        # The live view is kept as it was; say which event stopped the rebuild, not its content.
        message = f"rebuild failed: {exc}; the live view is unchanged"
        Console(stderr=True).print(message, style="red", markup=False, soft_wrap=True)
        return 1
    finally:
        app.close()
    return 0


def _serve_metrics(args: argparse.Namespace, tls: Any = None) -> None:
    """Serve the Prometheus metrics if ``--metrics-port`` is given; over HTTPS with the gRPC
    listener's certificate and key when it serves TLS (``tls``: a ``ServerTls``)."""
    if args.metrics_port is None:
        return
    import structlog

    from projections.metrics import serve_metrics

    port = serve_metrics(
        args.metrics_host,
        args.metrics_port,
        certfile=tls.cert_file if tls is not None else None,
        keyfile=tls.key_file if tls is not None else None,
    )
    structlog.get_logger(__name__).info("metrics", address=args.metrics_host, port=port)


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the gRPC server until SIGTERM/SIGINT (exit 2 if it cannot start)."""
    import asyncio

    from service.api.limits import LIMIT_HELP, limits_from
    from service.api.logs import configure
    from service.api.server import BindError, serve
    from service.api.tls import TlsConfigError, server_tls
    from service.app.config import StoreConfig, store_config

    configure(args.log_level)
    store = store_config(args.store)
    if args.key_file:
        store = StoreConfig({**store.env, "PREF_KEY_FILE": args.key_file, "PREF_KEYS": ""})
    try:
        limits = limits_from(os.environ, {name: getattr(args, name) for name in LIMIT_HELP})
        tls = server_tls(args.tls_cert, args.tls_key, args.tls_client_ca)
        health_port = args.health_port or os.environ.get("PREF_HEALTH_PORT")
        if health_port is not None and not str(health_port).isdigit():
            raise ValueError(f"PREF_HEALTH_PORT={health_port!r} is not a port number")
    except ValueError as exc:  # TlsConfigError too
        print(f"pref serve: {exc}", file=sys.stderr)
        return 2
    _serve_metrics(args, tls)
    try:
        asyncio.run(
            serve(
                store,
                f"{args.host}:{args.port}",
                workers=args.workers,
                run_projections=not args.no_projections,
                auditor_token=args.auditor_token,
                limits=limits,
                tls=tls,
                reuse_port=args.reuse_port,
                health_address=f"{args.host}:{health_port}" if health_port else None,
            )
        )
    except (BindError, TlsConfigError) as exc:
        print(f"pref serve: {exc}", file=sys.stderr)
        return 2
    return 0


def _client(args: argparse.Namespace) -> Any:
    """The API client of ``pref bots``/``pref play`` (TLS with ``--tls-ca`` and friends)."""
    from service.client import GameClient

    return GameClient(args.server, tls_ca=args.tls_ca, tls_cert=args.tls_cert, tls_key=args.tls_key)


def _dispute(args: argparse.Namespace, record: Any) -> int:
    """Run a flag or a ruling against the store; print the outcome (exit 1 if refused)."""
    import uuid as uuid_module

    from domain.rules.errors import RulesError
    from service.app.application import ServiceError

    err = Console(stderr=True)
    try:
        game_id = uuid_module.UUID(args.game.removeprefix("games/"))
    except ValueError:
        err.print(f"[red]{args.game!r} is not a game id (a UUID)[/red]")
        return 2
    app = _open_app(args.store)
    try:
        result = record(app, game_id)
    except (RulesError, ServiceError) as exc:
        err.print(f"[red]refused: {getattr(exc, 'message', exc)}[/red]")
        return 1
    finally:
        app.close()
    replayed = " (already recorded: the first answer)" if result.replayed else ""
    Console().print(f"recorded at version {result.version}{replayed}")
    return 0


def cmd_flag(args: argparse.Namespace) -> int:
    """A seat flags a scored deal, with its seat token (as a client would through FlagDeal)."""

    def record(app: PreferansApplication, game_id: Any) -> Any:
        seat = app.seat_of_token(game_id, args.token)
        if seat is None:
            raise ValueError("the seat token is not one of this game's")
        return app.flag_deal(
            game_id, seat, args.deal, args.reason, args.request_id or uuid.uuid4().hex
        )

    try:
        return _dispute(args, record)
    except ValueError as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 1


def cmd_rule(args: argparse.Namespace) -> int:
    """An auditor's ruling on a scored deal, recorded by an operator with access to the store.

    ``--gora 0,2,-2`` and ``--whists 'w01,w02;w10,w12;w20,w21'`` give the adjustments (whists
    written by each seat on the two others, clockwise); neither means "no change"."""

    try:
        adjustment = _adjustment(args.gora, args.whists)
    except ValueError as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 2

    def record(app: PreferansApplication, game_id: Any) -> Any:
        return app.record_ruling(
            game_id,
            args.deal,
            args.reason,
            adjustment,
            args.request_id or uuid.uuid4().hex,
            auditor=args.auditor,
        )

    return _dispute(args, record)


def _adjustment(gora: str | None, whists: str | None) -> dict[str, Any] | None:
    if gora is None and whists is None:
        return None
    gora_row = [int(v) for v in gora.split(",")] if gora else [0, 0, 0]
    matrix = [[0, 0, 0] for _ in range(3)]
    if whists:
        rows = whists.split(";")
        if len(rows) != 3:
            raise ValueError("--whists needs three rows separated by ';' (one per seat)")
        for writer, row in enumerate(rows):
            values = [int(v) for v in row.split(",")]
            if len(values) != 2:
                raise ValueError("each --whists row gives the whists on the two other seats")
            others = [(writer + 1) % 3, (writer + 2) % 3]
            for target, value in zip(others, values, strict=True):
                matrix[writer][target] = value
    return {"gora": gora_row, "whists": matrix}


def cmd_audit(args: argparse.Namespace) -> int:
    """Re-check a stored game from its events alone (docs/AUDIT.md): exit 0 when verified, 1 on
    a discrepancy, 2 when the game cannot be read (no such game, no store, an unreadable event)."""
    import uuid as uuid_module

    from eventsourcing.persistence import PersistenceError

    from domain.audit import UNREADABLE
    from service.app.application import ServiceError
    from service.app.audit import verify_game

    text = args.game.removeprefix("games/")
    try:
        game_id = uuid_module.UUID(text)
    except ValueError:
        Console(stderr=True).print(f"[red]{args.game!r} is not a game id (a UUID)[/red]")
        return 2
    try:
        app = _open_app(args.store)
    except PersistenceError as exc:
        Console(stderr=True).print(f"[red]the store cannot be used: {exc}[/red]")
        return 2
    try:
        report = verify_game(app, game_id)
    except ServiceError as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 2
    finally:
        app.close()
    console = Console()
    console.print(f"game {game_id}")
    if report.verified:
        console.print(f"[green]{report.summary}[/green]")
    else:
        console.print(f"[red]{report.summary}[/red]")
    console.print(f"chain head {report.chain_head}")
    if report.discrepancy is not None and report.discrepancy.kind == UNREADABLE:
        return 2  # the game cannot be read (docs/AUDIT.md)
    return 0 if report.verified else 1


def _advance(progress: Any, task: Any, _version: int) -> None:
    progress.advance(task)


def cmd_bots(args: argparse.Namespace) -> int:
    """Create a game (or join one with tokens) and let bots play it through the API."""
    from rich.progress import Progress

    from domain.rules import RuleSet
    from service.cli.botplay import play_with_bots

    client = _client(args)
    console = Console()
    try:
        for number in range(args.games):
            created = client.create_game(
                [f"bot-{number}-{s}" for s in range(3)],
                RuleSet(pool_target=args.pool) if args.pool else None,
                league=args.league,
            )
            name = created.game.name
            with Progress(console=console, transient=True) as progress:
                task = progress.add_task(f"{name}", total=None)
                game = play_with_bots(
                    client,
                    name,
                    created.seat_tokens,
                    on_action=partial(_advance, progress, task),
                )
            sheet = client.scoresheet(name, min_version=game.version)
            console.print(
                f"{name}: {game.deal_number} deals, version {game.version}, "
                f"settlement {' / '.join(sheet.settlement)}"
            )
    finally:
        client.close()
    return 0


def cmd_projections_run(args: argparse.Namespace) -> int:
    """Keep projections caught up until SIGTERM/SIGINT."""
    import signal
    import threading

    from projections import PROJECTION_NAMES, ProjectionWorker, standard_runners
    from service.api.logs import configure

    configure()
    _serve_metrics(args)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    app = _open_app(args.store)
    worker = ProjectionWorker(
        list(standard_runners(app, app.db, tuple(args.names) or PROJECTION_NAMES).values()),
        interval=args.interval,
    )
    worker.start()
    try:
        stop.wait()
    finally:
        worker.stop()
        app.close()
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """A person plays a whole game against two bots through a server."""
    from service.cli.play import run

    return run(args)


def _stats_app(args: argparse.Namespace) -> PreferansApplication:
    """The application, with the stats projection caught up first (unless ``--no-catch-up``)."""
    from projections import standard_runners

    app = _open_app(args.store)
    if not args.no_catch_up:
        for runner in standard_runners(app, app.db, ("stats",)).values():
            runner.catch_up()
    return app


def cmd_stats(args: argparse.Namespace) -> int:
    """League statistics in the terminal: leaderboards, one player, or a head-to-head."""
    from rich.table import Table

    from projections import stats_queries as q

    console = Console()
    app = _stats_app(args)
    try:
        names = q.leagues(app.db) if args.league is None else [args.league]
        if args.player and args.against:
            pair = q.head_to_head(app.db, names[0] if names else "", args.player, args.against)
            keys = ("games", "a_settlement", "b_settlement", "a_ahead", "b_ahead", "equal")
            table = Table(*keys, title=f"{args.player} (a) vs {args.against} (b)")
            if pair is not None:
                table.add_row(*(str(pair[key]) for key in keys))
            console.print(table)
            return 0
        if args.player:
            for league in names:
                stats = q.player_stats(app.db, league, args.player)
                if stats is not None:
                    table = Table("statistic", "value", title=f"{args.player} in {league!r}")
                    for key, value in q.flatten(stats).items():
                        table.add_row(
                            key, f"{value:.1f}" if isinstance(value, float) else str(value)
                        )
                    console.print(table)
            return 0
        columns = ("player_id", "rating", "games", "deals", "settlement_total")
        for league in names:
            totals = q.league_totals(app.db, league) or {}
            table = Table(
                *columns,
                "contracts",
                title=f"league {league!r}",
                caption=(
                    f"{totals.get('games', 0)} games, {totals.get('deals', 0)} deals, "
                    f"{totals.get('players', 0)} players"
                ),
            )
            for row in q.leaderboard(app.db, league, args.order_by, limit=args.limit):
                made, failed = row["contracts_made"], row["contracts_failed"]
                cells = [f"{row['rating']:.1f}" if c == "rating" else str(row[c]) for c in columns]
                table.add_row(*cells, f"{made} made / {failed} failed")
            console.print(table)
    finally:
        app.close()
    return 0


def cmd_stats_export(args: argparse.Namespace) -> int:
    """Write league statistics to CSV and Parquet files (file names never come from league
    names: see docs/STATS.md, "Export")."""
    from pathlib import Path

    from projections.stats_export import export_stats

    app = _stats_app(args)
    try:
        leagues = None if args.league is None else [args.league]
        for path in export_stats(app.db, Path(args.out), leagues, args.formats):
            Console().print(str(path))
    finally:
        app.close()
    return 0


def _formats(text: str) -> list[str]:
    """``--formats``: a comma-separated subset of csv and parquet."""
    from projections.stats_export import FORMATS

    chosen = [part.strip() for part in text.split(",") if part.strip()]
    if not chosen or any(part not in FORMATS for part in chosen):
        raise argparse.ArgumentTypeError(f"choose from {', '.join(FORMATS)} (comma-separated)")
    return chosen


def cmd_simulate(args: argparse.Namespace) -> int:
    """Bots play whole games of a league through the application, with a progress bar."""
    from rich.progress import Progress

    from domain.rules import DEFAULT, RuleSet
    from domain.rules.errors import RulesError
    from projections import standard_runners
    from service.app.simulate import DEFAULT_PLAYERS, simulate

    app = _open_app(args.store)
    players = args.players.split(",") if args.players else list(DEFAULT_PLAYERS)
    try:
        with Progress(console=Console(stderr=True)) as progress:
            task = progress.add_task(f"league {args.league!r}", total=args.games)
            simulate(
                app,
                args.games,
                args.league,
                players,
                RuleSet(pool_target=args.pool) if args.pool else DEFAULT,
                seed=args.seed,
                on_game=lambda _game_id: progress.advance(task),
            )
        if not args.no_projections:
            for runner in standard_runners(app, app.db).values():
                runner.catch_up()
    except (ValueError, RulesError) as exc:
        Console(stderr=True).print(f"[red]refused: {getattr(exc, 'message', exc)}[/red]")
        return 2
    finally:
        app.close()
    Console().print(f"{args.games} games played in league {args.league!r}")
    return 0


def _game_id(text: str) -> uuid.UUID:
    """A game id given as a UUID or as ``games/<uuid>`` (the form the CLI prints)."""
    try:
        return uuid.UUID(text.removeprefix("games/"))
    except ValueError:
        raise SystemExit(
            f"pref: {text[:80]!r} is not a game id (a UUID, or games/<uuid>)"
        ) from None


def cmd_export(args: argparse.Namespace) -> int:
    """Write a game (or one deal of it) as a hand record, JSON or text (docs/HANDRECORD.md)."""
    from pathlib import Path

    from service.app.application import ServiceError
    from service.app.handrecord import export_game_record

    app = _open_app(args.store)
    try:
        text = export_game_record(app, _game_id(args.game), args.deal, args.format)
    except (ValueError, ServiceError) as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 1
    finally:
        app.close()
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Read a JSON hand record, replay it through the rules and report the first discrepancy."""
    from pathlib import Path

    from domain.handrecord import HandRecordError
    from service.app.handrecord import import_record

    console = Console(soft_wrap=True)
    try:
        _rec, verdict = import_record(Path(args.file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        console.print(f"[red]cannot read {args.file}: {exc}[/red]")
        return 2
    except HandRecordError as exc:
        console.print(f"[red]{args.file}: {exc}[/red]")
        return 2
    if verdict.consistent:
        console.print(
            f"consistent: {verdict.deals} deals, {verdict.actions} decisions replayed, "
            "every decision legal, every score as the rules give it"
        )
        return 0
    console.print(f"[red]discrepancy:[/red] {verdict.message}")
    return 1


def cmd_replay(args: argparse.Namespace) -> int:
    """A stored game as it was, decision by decision (every hand open, for a referee)."""
    from service.app.application import ServiceError
    from service.app.handrecord import game_record
    from service.cli.replay import run_replay

    app = _open_app(args.store)
    try:
        rec = game_record(app, _game_id(args.game), args.deal)
    except (ValueError, ServiceError) as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 1
    finally:
        app.close()
    return run_replay(rec, Console(), step=args.step)


def _tls_client_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tls-ca",
        default=os.environ.get("PREF_TLS_CA"),
        help="connect with TLS, trusting this CA (PEM; default: $PREF_TLS_CA)",
    )
    parser.add_argument(
        "--tls-cert",
        default=os.environ.get("PREF_TLS_CLIENT_CERT"),
        help="mTLS: this client's certificate (PEM; default: $PREF_TLS_CLIENT_CERT)",
    )
    parser.add_argument(
        "--tls-key",
        default=os.environ.get("PREF_TLS_CLIENT_KEY"),
        help="mTLS: this client's private key (PEM; default: $PREF_TLS_CLIENT_KEY)",
    )


def build_parser() -> argparse.ArgumentParser:
    """Every command and option of ``pref`` (each with its help text)."""
    from projections.stats_queries import ORDER_COLUMNS

    parser = argparse.ArgumentParser(prog="pref", description="Preferans game service")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play a whole game of three bots and print the scoresheet")
    demo.add_argument("--seed", help="any text; the same text replays the same game")
    demo.add_argument("--dealer", type=int, default=0, choices=(0, 1, 2), help="first dealer")
    demo.add_argument("--max-deals", type=int, default=500, help="stop early after this many")
    demo.add_argument("--quiet", action="store_true", help="print only the final scoresheet")
    demo.set_defaults(func=cmd_demo)

    store_help = (
        "postgresql://… URL or SQLite file (default: $PREF_STORE, POSTGRES_*, preferans.sqlite)"
    )
    migrate = sub.add_parser("migrate", help="create the event and projection tables")
    migrate.add_argument("--store", help=store_help)
    migrate.set_defaults(func=cmd_migrate)

    srv = sub.add_parser("serve", help="run the gRPC server (SQLite by default)")
    srv.add_argument("--store", help=store_help)
    srv.add_argument(
        "--host",
        default=os.environ.get("PREF_HOST", "127.0.0.1"),
        help="address to listen on (default: $PREF_HOST or 127.0.0.1; 0.0.0.0 for every one)",
    )
    srv.add_argument("--port", type=int, default=50051, help="port to listen on")
    srv.add_argument("--workers", type=int, default=16, help="threads for the store")
    srv.add_argument("--log-level", default="info", help="debug, info, warning or error")
    srv.add_argument(
        "--no-projections",
        action="store_true",
        help="do not run the projection worker in this process (run `pref projections run`)",
    )
    srv.add_argument(
        "--auditor-token",
        default=None,
        help="the auditor credential's secret (default: $PREF_AUDITOR_TOKEN; none: no audit API)",
    )
    srv.add_argument(
        "--reuse-port",
        action="store_true",
        help="let other processes listen on the same port (SO_REUSEPORT; off: refuse to start)",
    )
    srv.add_argument(
        "--health-port",
        type=int,
        default=None,
        help="also serve health checks alone, in plaintext, on this port (for probes that "
        "cannot speak TLS; default: $PREF_HEALTH_PORT or none)",
    )
    srv.add_argument("--tls-cert", help="serve TLS: certificate chain, PEM ($PREF_TLS_CERT)")
    srv.add_argument("--tls-key", help="serve TLS: private key, PEM ($PREF_TLS_KEY)")
    srv.add_argument(
        "--tls-client-ca",
        help="mTLS: require client certificates signed by this CA ($PREF_TLS_CLIENT_CA)",
    )
    from service.api.limits import LIMIT_HELP, OPTIONAL, Limits, env_name

    for name, text in LIMIT_HELP.items():
        default = getattr(Limits(), name)
        off = "; 0: no limit" if name in OPTIONAL else ""
        srv.add_argument(
            f"--{name.replace('_', '-')}",
            type=type(default),
            default=None,
            help=f"{text} (default: ${env_name(name)} or {default}{off})",
        )
    srv.add_argument(
        "--key-file",
        default=None,
        help="the server's key file (default: $PREF_KEYS, $PREF_KEY_FILE, or for SQLite "
        "<store>.key, created owner-only); docs/SECURITY.md",
    )
    _metrics_options(srv)
    srv.set_defaults(func=cmd_serve)
    add_keys_parser(sub, store_help)

    audit = sub.add_parser("audit", help="re-check a stored game from its event log")
    audit.add_argument("game", help="the game id (a UUID, or games/<uuid>)")
    audit.add_argument("--store", help=store_help)
    audit.set_defaults(func=cmd_audit)

    flag = sub.add_parser("flag", help="a seat disputes a scored deal (with its seat token)")
    flag.add_argument("game", help="the game id (or games/<id>)")
    flag.add_argument("--deal", type=int, required=True, help="the deal's number")
    flag.add_argument("--reason", required=True, help="why the deal is disputed (1-500 chars)")
    flag.add_argument("--token", required=True, help="the seat's token")
    flag.add_argument("--request-id", default=None, help="for a safe retry (default: fresh)")
    flag.add_argument("--store", help=store_help)
    flag.set_defaults(func=cmd_flag)

    rule = sub.add_parser("rule", help="record an auditor's ruling on a scored deal")
    rule.add_argument("game", help="the game id (or games/<id>)")
    rule.add_argument("--deal", type=int, required=True, help="the deal's number")
    rule.add_argument("--reason", required=True, help="the ruling's reason (1-500 chars)")
    rule.add_argument("--gora", help="gora deltas by seat, like 0,2,-2")
    rule.add_argument("--whists", help="whist deltas, 'w01,w02;w10,w12;w20,w21'")
    rule.add_argument("--auditor", default="auditor", help="who rules (a label)")
    rule.add_argument("--request-id", default=None, help="for a safe retry (default: fresh)")
    rule.add_argument("--store", help=store_help)
    rule.set_defaults(func=cmd_rule)

    bots = sub.add_parser("bots", help="bots play whole games through a server")
    bots.add_argument("--server", default="127.0.0.1:50051", help="the server's host:port")
    bots.add_argument("--games", type=int, default=1, help="how many games to play")
    bots.add_argument("--pool", type=int, default=0, help="pool target (default: the rule set's)")
    bots.add_argument("--league", default="", help="league tag of the games (default: none)")
    _tls_client_options(bots)
    bots.set_defaults(func=cmd_bots)

    play = sub.add_parser("play", help="play a game against two bots through a server")
    play.add_argument("--server", default="127.0.0.1:50051", help="the server's host:port")
    play.add_argument("--seat", type=int, default=0, choices=(0, 1, 2), help="your seat")
    play.add_argument("--pool", type=int, default=0, help="pool target (default: the rule set's)")
    play.add_argument("--name", default="", help="your player id (default: your login)")
    play.add_argument("--bot-delay", type=float, default=0.4, help="seconds before a bot moves")
    _tls_client_options(play)
    play.set_defaults(func=cmd_play)

    stats = sub.add_parser("stats", help="league statistics (leaderboards, players, pairs)")
    stats.add_argument("--store", help=store_help)
    stats.add_argument("--league", help="one league (default: every league)")
    stats.add_argument("--player", help="show this player's statistics")
    stats.add_argument("--against", help="with --player: their head-to-head")
    stats.add_argument(
        "--order-by",
        default="rating",
        choices=tuple(ORDER_COLUMNS),
        help="the leaderboard's order (default: rating)",
    )
    stats.add_argument("--limit", type=int, default=50, help="players per leaderboard")
    stats.add_argument("--no-catch-up", action="store_true", help="do not update the stats first")
    stats.set_defaults(func=cmd_stats)
    stats_sub = stats.add_subparsers(dest="action")
    export = stats_sub.add_parser("export", help="write the statistics as CSV and Parquet")
    # Options also accepted before "export" keep their value unless given again after it.
    export.add_argument("--store", help=store_help, default=argparse.SUPPRESS)
    export.add_argument(
        "--league", help="one league (default: every league)", default=argparse.SUPPRESS
    )
    export.add_argument("--out", default="stats-export", help="directory to write into")
    export.add_argument(
        "--formats",
        type=_formats,
        default=["csv", "parquet"],
        help="csv, parquet or csv,parquet (default: both)",
    )
    export.add_argument(
        "--no-catch-up",
        action="store_true",
        help="do not update the stats first",
        default=argparse.SUPPRESS,
    )
    export.set_defaults(func=cmd_stats_export)

    sim = sub.add_parser("simulate", help="bots play whole games of a league (in process)")
    sim.add_argument("--store", help=store_help)
    sim.add_argument("--games", type=int, default=10, help="how many games to play")
    sim.add_argument("--league", default="", help="league tag of the games (default: none)")
    sim.add_argument("--players", default="", help="comma-separated player ids (at least 3)")
    sim.add_argument("--pool", type=int, default=0, help="pool target (default: the rule set's)")
    sim.add_argument("--seed", help="any text: the same text seats the same players")
    sim.add_argument("--no-projections", action="store_true", help="do not update read models")
    sim.set_defaults(func=cmd_simulate)

    exp = sub.add_parser("export", help="write a game or one deal as a hand record")
    exp.add_argument("game", help="the game id (a UUID, or games/<uuid>)")
    exp.add_argument("--deal", type=int, help="only this deal (default: the whole game)")
    exp.add_argument(
        "--format", choices=("json", "text"), default="json", help="json (default) or text"
    )
    exp.add_argument("--out", help="file to write (default: standard output)")
    exp.add_argument("--store", help=store_help)
    exp.set_defaults(func=cmd_export)

    imp = sub.add_parser("import", help="replay a JSON hand record and verify it")
    imp.add_argument("file", help="a hand record written by `pref export` (JSON)")
    imp.set_defaults(func=cmd_import)

    rep = sub.add_parser("replay", help="a game as it was, decision by decision")
    rep.add_argument("game", help="the game id (a UUID, or games/<uuid>)")
    rep.add_argument("--deal", type=int, help="only this deal (default: every deal)")
    rep.add_argument("--step", action="store_true", help="wait for Enter between events")
    rep.add_argument("--store", help=store_help)
    rep.set_defaults(func=cmd_replay)

    proj = sub.add_parser("projections", help="manage read models")
    proj_sub = proj.add_subparsers(dest="action", required=True)
    rebuild = proj_sub.add_parser("rebuild", help="drop and rebuild projections from the log")
    rebuild.add_argument(
        "names", nargs="*", type=_projection_name, help="games, stats (default: all)"
    )
    rebuild.add_argument("--store", help=store_help)
    rebuild.set_defaults(func=cmd_rebuild)
    run = proj_sub.add_parser("run", help="keep projections caught up (a worker process)")
    run.add_argument("names", nargs="*", type=_projection_name, help="games, stats (default: all)")
    run.add_argument("--store", help=store_help)
    run.add_argument("--interval", type=float, default=0.2, help="seconds between polls")
    _metrics_options(run)
    run.set_defaults(func=cmd_projections_run)
    return parser


def _projection_name(name: str) -> str:
    """A read model's name, or a usage error naming the known ones (docs/READSIDE.md)."""
    from projections import PROJECTION_NAMES, RETIRED

    if name in PROJECTION_NAMES:
        return name
    why = " (removed: nothing read it)" if name in RETIRED else ""
    raise argparse.ArgumentTypeError(
        f"no read model {name[:40]!r}{why}; known: {', '.join(PROJECTION_NAMES)}"
    )


def _metrics_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        help="serve Prometheus metrics at http://HOST:PORT/metrics (default: not served)",
    )
    parser.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        help="address of the metrics listener (default: 127.0.0.1, this machine only)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; errors an operator can act on end in one line (``service.cli.errors``)."""
    from service.cli.errors import run_command

    args = build_parser().parse_args(argv)
    return run_command(args.func, args)


if __name__ == "__main__":
    sys.exit(main())
