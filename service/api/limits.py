"""The server's limits: per-caller budgets, message sizes and streams, with their defaults.

One place for each limit's default, environment variable (``PREF_`` + its name in capitals) and
help text; ``pref serve`` makes a flag of each (``--creates-per-minute`` …). Light on purpose
(standard library only): the command line reads it to build its options.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Limits:
    """Every limit of a server; 0 turns off one of the ``OPTIONAL`` rate limits and quotas."""

    creates_per_minute: float = 30.0
    create_burst: int = 10
    open_games: int = 100
    calls_per_second: float = 100.0
    call_burst: int = 200
    watch_streams: int = 16
    streams_per_connection: int = 100
    max_receive_bytes: int = 64 * 1024
    max_send_bytes: int = 4 * 1024 * 1024
    max_callers: int = 100_000

    def grpc_options(self) -> list[tuple[str, int]]:
        """The channel arguments that enforce the message and stream limits."""
        return [
            ("grpc.max_receive_message_length", self.max_receive_bytes),
            ("grpc.max_send_message_length", self.max_send_bytes),
            ("grpc.max_concurrent_streams", self.streams_per_connection),
        ]


OPTIONAL = frozenset({"creates_per_minute", "open_games", "calls_per_second", "watch_streams"})
"""The limits that 0 turns off; every other one must be at least 1."""

LIMIT_HELP: dict[str, str] = {
    "creates_per_minute": "game creations a caller may make per minute (refill rate)",
    "create_burst": "game creations a caller may make at once (bucket size)",
    "open_games": "games a caller may have created here and not yet finished",
    "calls_per_second": "other calls (commands and reads) per caller per second",
    "call_burst": "other calls a caller may make at once (bucket size)",
    "watch_streams": "concurrent WatchGame, WatchGameBatches and WatchTables streams per caller",
    "streams_per_connection": "concurrent calls on one HTTP/2 connection",
    "max_receive_bytes": "largest request message, in bytes",
    "max_send_bytes": "largest response message, in bytes",
    "max_callers": "callers whose budgets are remembered (least recently seen forgotten first)",
}


def env_name(field: str) -> str:
    """The environment variable of a limit: ``PREF_`` and the field's name in capitals."""
    return f"PREF_{field.upper()}"


def limits_from(env: Mapping[str, str], overrides: Mapping[str, float | None]) -> Limits:
    """The defaults, then the environment (``PREF_CREATES_PER_MINUTE``, …), then ``overrides``
    (command-line flags; ``None`` means not given). Raises ``ValueError`` for a bad value."""
    limits = Limits()
    for spec in fields(Limits):
        kind = float if isinstance(getattr(limits, spec.name), float) else int
        value: float | None = overrides.get(spec.name)
        text = env.get(env_name(spec.name))
        if value is None and text:
            try:
                value = kind(text)
            except ValueError:
                raise ValueError(f"{env_name(spec.name)}={text!r} is not a number") from None
        if value is None:
            continue
        least = 0 if spec.name in OPTIONAL else 1
        if not math.isfinite(value) or value < least:
            raise ValueError(f"{spec.name.replace('_', '-')} must be a number >= {least}")
        changes: dict[str, Any] = {spec.name: kind(value)}
        limits = replace(limits, **changes)
    return limits
