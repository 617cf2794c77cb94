"""Every command and option of ``pref``, each with its help text."""

from __future__ import annotations

import argparse
import os

from service.cli.common import game_id_arg, metrics_options, tls_client_options
from service.cli.identity import add_identity_options, add_token_parser
from service.cli.keys import add_keys_parser
from service.cli.league import (
    cmd_simulate,
    cmd_stats,
    cmd_stats_export,
    export_formats,
    player_ids,
    seats_or_ids,
)
from service.cli.operate import (
    PROCESSES_HELP,
    SHARDS_HELP,
    cmd_migrate,
    cmd_projections_run,
    cmd_rebuild,
    cmd_reshard,
    cmd_serve,
    processes_arg,
    projection_name,
    shards_arg,
)
from service.cli.playopts import add_lobby_options, add_online_options
from service.cli.referee import cmd_audit, cmd_export, cmd_flag, cmd_import, cmd_replay, cmd_rule
from service.cli.rules import SEATS_HELP, add_rules_options
from service.cli.tables import cmd_bots, cmd_demo, cmd_play


def build_parser() -> argparse.ArgumentParser:
    """Every command and option of ``pref`` (each with its help text)."""
    parser = argparse.ArgumentParser(prog="pref", description="Preferans game service")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play a whole game of bots and print the scoresheet")
    demo.add_argument("--seed", help="any text; the same text replays the same game")
    demo.add_argument(
        "--dealer", type=int, default=0, choices=range(5), help="first dealer (a seat: 0, 1, …)"
    )
    demo.add_argument("--max-deals", type=int, default=500, help="stop early after this many")
    demo.add_argument("--quiet", action="store_true", help="print only the final scoresheet")
    demo.add_argument("--deals", type=deals_arg, default=DEFAULT_TIME_DEALS, help=DEALS_HELP)
    add_rules_options(demo)
    demo.set_defaults(func=cmd_demo)

    store_help = (
        "postgresql://… URL or SQLite file (default: $PREF_STORE, POSTGRES_*, preferans.sqlite)"
    )
    migrate = sub.add_parser("migrate", help="create the event and projection tables")
    migrate.add_argument("--store", help=store_help)
    migrate.add_argument("--shards", type=shards_arg, default=None, help=SHARDS_HELP)
    migrate.set_defaults(func=cmd_migrate)

    resh = sub.add_parser(
        "reshard",
        help="copy a stopped store into a new store with another shard count (docs/SCALING.md)",
    )
    resh.add_argument("--from", dest="source", required=True, help="the store to copy (only read)")
    resh.add_argument("--to", dest="target", required=True, help="a new, empty store")
    resh.add_argument("--shards", type=shards_arg, required=True, help="the new store's shards")
    resh.set_defaults(func=cmd_reshard)

    srv = sub.add_parser("serve", help="run the gRPC server (SQLite by default)")
    srv.add_argument("--store", help=store_help)
    srv.add_argument(
        "--host",
        default=os.environ.get("PREF_HOST", "127.0.0.1"),
        help="address to listen on (default: $PREF_HOST or 127.0.0.1; 0.0.0.0 for every one)",
    )
    srv.add_argument("--port", type=int, default=50051, help="port to listen on")
    srv.add_argument(
        "--connect-port",
        type=int,
        default=int(os.environ.get("PREF_CONNECT_PORT", "8080")),
        help="port for browsers on the same host: Connect, gRPC-Web and the web table "
        "(default: $PREF_CONNECT_PORT or 8080; docs/CONNECT.md)",
    )
    srv.add_argument(
        "--no-connect", action="store_true", help="serve native gRPC only (no browser port)"
    )
    srv.add_argument(
        "--web-root",
        default=os.environ.get("PREF_WEB_ROOT"),
        help="the built web table to serve at / (default: $PREF_WEB_ROOT or clients/web/dist)",
    )
    srv.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web origin (https://host[:port]) whose pages may call the API; repeatable "
        "(default: none besides the server's own)",
    )
    srv.add_argument(
        "--public-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name browsers use to reach this server (answered besides loopback names "
        "and --cors-origin hosts when --dev-auth is on); repeatable; required for --dev-auth "
        "on a non-loopback --host",
    )
    srv.add_argument(
        "--connect-max-header-bytes",
        type=int,
        default=16384,
        help="largest request line and headers on the browser port, bytes (default 16384; "
        "more: 431)",
    )
    srv.add_argument(
        "--connect-head-timeout",
        type=float,
        default=10.0,
        help="seconds for a request's head to arrive on the browser port (default 10)",
    )
    srv.add_argument(
        "--connect-body-timeout",
        type=float,
        default=30.0,
        help="seconds for a request's body to arrive after its head (default 30)",
    )
    srv.add_argument(
        "--connect-max-connections",
        type=int,
        default=None,
        help="open connections on the browser port; more are answered 503 (default 512, or "
        "half the open-file limit if lower)",
    )
    srv.add_argument("--workers", type=int, default=16, help="threads for the store")
    srv.add_argument("--shards", type=shards_arg, default=None, help=SHARDS_HELP)
    srv.add_argument(
        "--processes",
        type=processes_arg,
        default=os.environ.get("PREF_PROCESSES", "1"),  # a string: argparse checks it too
        help=PROCESSES_HELP,
    )
    srv.add_argument("--log-level", default="info", help="debug, info, warning or error")
    srv.add_argument(
        "--no-projections",
        action="store_true",
        help="do not run the projection worker in this process (run `pref projections run`)",
    )
    srv.add_argument(
        "--no-keeper",
        action="store_true",
        help="do not run the keeper in this process (it plays the server's bot seats and times "
        "out seats out of time; docs/CLOCKS.md)",
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
    add_identity_options(srv)
    metrics_options(srv)
    srv.set_defaults(func=cmd_serve)
    add_keys_parser(sub, store_help)
    add_token_parser(sub, store_help)

    audit = sub.add_parser("audit", help="re-check a stored game from its event log")
    audit.add_argument("game", type=game_id_arg, help="the game id (a UUID, or games/<uuid>)")
    audit.add_argument("--store", help=store_help)
    audit.set_defaults(func=cmd_audit)

    flag = sub.add_parser("flag", help="a seat disputes a scored deal (with its seat token)")
    flag.add_argument("game", type=game_id_arg, help="the game id (or games/<id>)")
    flag.add_argument("--deal", type=int, required=True, help="the deal's number")
    flag.add_argument("--reason", required=True, help="why the deal is disputed (1-500 chars)")
    flag.add_argument("--token", required=True, help="the seat's token")
    flag.add_argument("--request-id", default=None, help="for a safe retry (default: fresh)")
    flag.add_argument("--store", help=store_help)
    flag.set_defaults(func=cmd_flag)

    rule = sub.add_parser("rule", help="record an auditor's ruling on a scored deal")
    rule.add_argument("game", type=game_id_arg, help="the game id (or games/<id>)")
    rule.add_argument("--deal", type=int, required=True, help="the deal's number")
    rule.add_argument("--reason", required=True, help="the ruling's reason (1-500 chars)")
    rule.add_argument("--gora", help="gora deltas by seat, like 0,2,-2")
    rule.add_argument(
        "--whists",
        help="whist deltas, a row per seat of its whists on the others clockwise from "
        "its left, like 'w01,w02;w12,w10;w20,w21' for three seats",
    )
    rule.add_argument("--auditor", default="auditor", help="who rules (a label)")
    rule.add_argument("--request-id", default=None, help="for a safe retry (default: fresh)")
    rule.add_argument("--store", help=store_help)
    rule.set_defaults(func=cmd_rule)

    bots = sub.add_parser("bots", help="bots play whole games through a server")
    bots.add_argument("--server", default="127.0.0.1:50051", help="the server's host:port")
    bots.add_argument("--games", type=int, default=1, help="how many games to play")
    add_rules_options(bots)
    bots.add_argument("--league", default="", help="league tag of the games (default: none)")
    bots.add_argument("--deals", type=deals_arg, default=DEFAULT_TIME_DEALS, help=DEALS_HELP)
    tls_client_options(bots)
    bots.set_defaults(func=cmd_bots)

    play = sub.add_parser("play", help="play a game against bots through a server")
    play.add_argument("--server", default="127.0.0.1:50051", help="the server's host:port")
    play.add_argument(
        "--seat", type=int, default=0, choices=range(5), help="your seat (0, 1, … players - 1)"
    )
    add_rules_options(play)
    play.add_argument("--name", default="", help="your player id (default: your login)")
    play.add_argument("--bot-delay", type=float, default=0.4, help="seconds before a bot moves")
    play.add_argument(
        "--deals",
        type=deals_arg,
        default=0,
        help="a game played until time (Classic): call time after this many deals of the "
        "ordered pool (default: 0, play until the ordered end time)",
    )
    play.add_argument(
        "--resume",
        metavar="GAME",
        help="sit down again at a game pref play started here (its seat tokens are saved "
        "with mode 0600; see docs/CLIENTS.md)",
    )
    play.add_argument(
        "--no-confirm",
        action="store_true",
        help="send each action as typed (default: it is held until Enter, u takes it back)",
    )
    add_online_options(play)
    add_lobby_options(play)
    tls_client_options(play)
    play.set_defaults(func=cmd_play)

    stats = sub.add_parser("stats", help="league statistics (leaderboards, players, pairs)")
    stats.add_argument("--store", help=store_help)
    stats.add_argument("--league", help="one league (default: every league)")
    stats.add_argument("--player", help="show this player's statistics")
    stats.add_argument("--against", help="with --player: their head-to-head")
    stats.add_argument(
        "--order-by",
        default="rating",
        type=order_column,
        help="the leaderboard's order: a column of it (default: rating; a wrong one lists them)",
    )
    stats.add_argument("--limit", type=int, default=50, help="players per leaderboard")
    stats.add_argument("--no-catch-up", action="store_true", help="do not update the stats first")
    stats.add_argument(
        "--deals",
        action="store_true",
        help="the per-deal table (each deal's contract, tricks and sheet entries; with --player "
        "only his rows)",
    )
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
        type=export_formats,
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
    sim.add_argument(
        "--players",
        type=seats_or_ids,
        default=None,
        metavar="N",
        help=f"{SEATS_HELP}; comma-separated player ids are read as --player-ids",
    )
    sim.add_argument(
        "--player-ids",
        type=player_ids,
        default=None,
        metavar="IDS",
        help="comma-separated player ids, at least as many as the seats; each game seats some "
        "of them at random (default: ann,bob,cid,dan,eve)",
    )
    add_rules_options(sim, players=False)
    sim.add_argument("--seed", help="any text: the same text seats the same players")
    sim.add_argument("--deals", type=deals_arg, default=DEFAULT_TIME_DEALS, help=DEALS_HELP)
    sim.add_argument("--no-projections", action="store_true", help="do not update read models")
    sim.set_defaults(func=cmd_simulate)

    exp = sub.add_parser("export", help="write a game or one deal as a hand record")
    exp.add_argument("game", type=game_id_arg, help="the game id (a UUID, or games/<uuid>)")
    exp.add_argument("--deal", type=int, help="only this deal (default: the whole game)")
    exp.add_argument(
        "--format", choices=("json", "text"), default="json", help="json (default) or text"
    )
    exp.add_argument("--out", help="file to write (default: standard output)")
    for tag in ("event", "site", "round"):  # the record's tags (docs/HANDRECORD.md, version 3)
        exp.add_argument(f"--{tag}", help=f"the record's {tag.capitalize()} tag")
    exp.add_argument("--store", help=store_help)
    exp.set_defaults(func=cmd_export)

    imp = sub.add_parser("import", help="replay a JSON hand record and verify it")
    imp.add_argument("file", help="a hand record written by `pref export` (JSON)")
    imp.set_defaults(func=cmd_import)

    rep = sub.add_parser("replay", help="a game as it was, decision by decision")
    rep.add_argument("game", type=game_id_arg, help="the game id (a UUID, or games/<uuid>)")
    rep.add_argument("--deal", type=int, help="only this deal (default: every deal)")
    rep.add_argument(
        "--step",
        action="store_true",
        help="step through: Enter next, b back, d N / t N / p N jump to a deal, trick, position",
    )
    rep.add_argument("--store", help=store_help)
    rep.set_defaults(func=cmd_replay)

    proj = sub.add_parser("projections", help="manage read models")
    proj_sub = proj.add_subparsers(dest="action", required=True)
    rebuild = proj_sub.add_parser("rebuild", help="drop and rebuild projections from the log")
    rebuild.add_argument(
        "names", nargs="*", type=projection_name, help="games, stats, ledger, lobby (default: all)"
    )
    rebuild.add_argument("--store", help=store_help)
    rebuild.set_defaults(func=cmd_rebuild)
    run = proj_sub.add_parser("run", help="keep projections caught up (a worker process)")
    run.add_argument(
        "names", nargs="*", type=projection_name, help="games, stats, ledger, lobby (default: all)"
    )
    run.add_argument("--store", help=store_help)
    run.add_argument("--interval", type=float, default=0.2, help="seconds between polls")
    metrics_options(run)
    run.set_defaults(func=cmd_projections_run)
    return parser


DEFAULT_TIME_DEALS = 6
DEALS_HELP = (
    "a game played until time (Classic): time is called after this many deals of the ordered "
    f"pool (default: {DEFAULT_TIME_DEALS})"
)


def deals_arg(text: str) -> int:
    """``--deals``: a whole number of deals, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of deals: {text[:40]!r}") from None
    if not 0 <= value <= 10_000:
        raise argparse.ArgumentTypeError("the number of deals must be from 0 to 10000")
    return value


def order_column(text: str) -> str:
    """``--order-by``: a leaderboard column (``projections.stats_queries.ORDER_COLUMNS``),
    imported only when ``pref stats`` runs: the read models are not loaded for other commands."""
    from projections.stats_queries import ORDER_COLUMNS

    if text not in ORDER_COLUMNS:
        raise argparse.ArgumentTypeError(
            f"cannot order by {text[:40]!r}; one of: {', '.join(ORDER_COLUMNS)}"
        )
    return text
