"""Playing: ``pref demo`` (rules core only), ``pref bots`` and ``pref play`` (through a server)."""

from __future__ import annotations

import argparse
import secrets
import time
import uuid
from functools import partial
from typing import Any

from rich.console import Console

from domain.rules.errors import InvalidAction
from service.cli.common import client_for, seed_from
from service.cli.render import render_game
from service.cli.rules import rules_from_args


def cmd_demo(args: argparse.Namespace) -> int:
    from domain.bots import make_bot
    from domain.rules import play_game
    from service.cli.botplay import order_choice

    seed = seed_from(args.seed)
    rules = rules_from_args(args)
    if args.dealer >= rules.players:
        last = rules.players - 1
        raise InvalidAction(f"--dealer {args.dealer}: the seats are 0 to {last}", "--dealer")
    record = play_game(
        seed,
        [make_bot() for _ in range(rules.players)],
        rules,
        first_dealer=args.dealer,
        max_deals=args.max_deals,
        order=order_choice(rules, time.time()),
        time_after=args.deals if rules.play_until_time else None,
    )
    console = Console()
    render_game(console, record, show_deals=not args.quiet)
    return 0


def _advance(progress: Any, task: Any, _version: int) -> None:
    progress.advance(task)


def cmd_bots(args: argparse.Namespace) -> int:
    """Create a game (or join one with tokens) and let bots play it through the API."""
    from rich.progress import Progress

    from service.cli.botplay import Creator, play_with_bots, settlement_text

    rules = rules_from_args(args)
    client = client_for(args)
    console = Console()
    try:
        for number in range(args.games):
            creator = Creator(uuid.uuid4().hex, secrets.token_hex(16))
            created = client.create_game(
                [f"bot-{number}-{s}" for s in range(rules.players)],
                rules,
                league=args.league,
                request_id=creator.request_id,
                creator_secret=creator.secret,
            )
            name = created.game.name
            with Progress(console=console, transient=True) as progress:
                task = progress.add_task(f"{name}", total=None)
                game = play_with_bots(
                    client,
                    name,
                    created.seat_tokens,
                    on_action=partial(_advance, progress, task),
                    creator=creator,
                    time_deals=args.deals,
                )
            sheet = client.scoresheet(name, min_version=game.version)
            ordered = ""
            if game.HasField("order"):
                ordered = f", ordered by seat {game.order.seat}: pool to {game.order.pool}"
            timed = ", time called" if game.time_called else ""
            console.print(
                f"{name}: {game.deal_number} deals{ordered}{timed}, version {game.version}, "
                f"settlement {settlement_text(game, sheet)}"
            )
    finally:
        client.close()
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """A person plays a whole game against bots (one at every other seat) through a server."""
    from service.cli.play import run

    return run(args)
