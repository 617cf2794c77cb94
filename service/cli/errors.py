"""The command line's top-level error handling: one line for errors an operator can act on.

Usage errors exit 2 (argparse does it before a command runs). Errors an operator can act on — a
server that cannot be reached, a store that cannot be used, a file that cannot be written, a
command the rules or the application refuse — print ``pref: <one line>`` on stderr and exit 1.
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

MAX_LINE = 500
"""The longest error line printed (messages may quote input)."""


def known_error(error: BaseException) -> str | None:
    """A one-line explanation of an error an operator can act on, or ``None`` for a bug."""
    import grpc
    from eventsourcing.persistence import PersistenceError

    from domain.rules.errors import RulesError
    from service.app.application import ServiceError

    if isinstance(error, grpc.RpcError) and isinstance(error, grpc.Call):
        code, details = error.code(), error.details() or ""
        if code == grpc.StatusCode.UNAVAILABLE:
            return f"cannot reach the server: {details}"
        return f"the server refused: {code.name}: {details}"
    if isinstance(error, PersistenceError):
        return f"the store cannot be used: {error}"
    if isinstance(error, OSError):
        where = f": {error.filename}" if error.filename else ""
        return f"{error.strerror or error}{where}"
    if isinstance(error, RulesError):
        return error.message
    if isinstance(error, ServiceError):
        return str(error)
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return None
    if isinstance(error, psycopg.Error):
        return f"the store cannot be used: {error}"
    return None


def run_command(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``func(args)``, with known errors as one line on stderr and exit 1 (130 on Ctrl-C; 2 for
    a configuration that cannot work: keys, store or schema)."""
    from service.app.config import ConfigError

    try:
        return func(args)
    except ConfigError as error:
        print(f"pref: {' '.join(str(error).split())[:MAX_LINE]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pref: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        message = known_error(error)
        if message is None:
            raise
        line = " ".join(message.split())
        print(f"pref: {line[:MAX_LINE]}", file=sys.stderr)
        return 1
