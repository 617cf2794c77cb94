"""The ``pref`` command line: the thin entry point of the service.

``pref demo`` plays a whole game (pulya) of three bots in the terminal and prints every deal and
the final scoresheet with the settlement. More commands arrive with the event store and the
gRPC server.
"""

from __future__ import annotations

import argparse
import hashlib
import secrets
import sys
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from rich.console import Console

from service.render import render_game

if TYPE_CHECKING:
    from service.application import PreferansApplication


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
    from service.application import PreferansApplication
    from service.config import store_config

    return PreferansApplication(store_config(store).env)


def cmd_migrate(args: argparse.Namespace) -> int:
    """Create the event tables and the projection tables (idempotent)."""
    from projections import standard_runners

    app = _open_app(args.store)
    try:
        standard_runners(app, app.db)
    finally:
        app.close()
    Console().print("tables are ready")
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    """Drop and rebuild projections from the event log, with a progress bar."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from projections import PROJECTION_NAMES, standard_runners

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
    finally:
        app.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
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

    proj = sub.add_parser("projections", help="manage read models")
    proj_sub = proj.add_subparsers(dest="action", required=True)
    rebuild = proj_sub.add_parser("rebuild", help="drop and rebuild projections from the log")
    rebuild.add_argument("names", nargs="*", help="seat_views, scoresheet, games (default: all)")
    rebuild.add_argument("--store", help=store_help)
    rebuild.set_defaults(func=cmd_rebuild)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
