"""The ``pref`` command line: the thin entry point of the service (``service.cli.parser`` lists
every command; the commands live in ``operate``, ``referee``, ``league`` and ``tables``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from service.cli.parser import build_parser

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; errors an operator can act on end in one line (``service.cli.errors``)."""
    from service.cli.errors import run_command

    args = build_parser().parse_args(argv)
    return run_command(args.func, args)


if __name__ == "__main__":
    sys.exit(main())
