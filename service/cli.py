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

from rich.console import Console

from service.render import render_game


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
        seed, [make_bot(), make_bot(), make_bot()], DEFAULT, first_dealer=args.dealer,
        max_deals=args.max_deals,
    )
    console = Console()
    render_game(console, record, show_deals=not args.quiet)
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
