"""The tamper-evidence chain of a game's events (docs/AUDIT.md is the specification).

Every event of a game carries ``chain``: the hex SHA-256 of the previous event's ``chain`` (64
zeros before the first event), a newline, and the event's canonical form. The canonical form is
independent of the event store's encoding: the UTF-8 JSON, sorted keys, no spaces, of the
event's topic, game id, version, timestamp and every other field except ``chain`` itself.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

GENESIS = "0" * 64
"""The chain value "before" a game's first event."""

ENVELOPE = ("originator_id", "originator_version", "timestamp", "chain")
"""Fields read from the event's envelope (or the chain itself), not copied as they are."""

RESERVED = ("topic", "game", "version", "timestamp")


def canonical_fields(event: Any, version: int | None = None) -> dict[str, Any]:
    """The event's content as the chain covers it (``version`` overrides the stored one)."""
    state = event.__dict__
    content: dict[str, Any] = {name: value for name, value in state.items() if name not in ENVELOPE}
    clash = set(content) & set(RESERVED)
    if clash:  # pragma: no cover - no event has such a field
        raise ValueError(f"event fields clash with the canonical envelope: {sorted(clash)}")
    content["topic"] = type(event).TOPIC
    content["game"] = str(state["originator_id"])
    content["version"] = state["originator_version"] if version is None else version
    content["timestamp"] = state["timestamp"].isoformat()
    return content


_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
"""The reference encoder of the canonical form (one for every event: ``json.dumps`` with
options would build one per call)."""


_ORJSON = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def canonical(event: Any, version: int | None = None) -> bytes:
    """The canonical form: UTF-8 JSON with sorted keys and separators ``,`` and ``:``.

    ``orjson`` writes it about twice as fast, byte for byte as the reference encoder for what
    events hold: strings (every code point; tested), integers, booleans, null, arrays and
    objects with string keys (docs/AUDIT.md: no floating-point numbers). Anything it refuses
    (a non-string key, which the reference sorts before converting; an integer beyond 64 bits;
    a datetime or a dataclass, passed through to be refused) is left to the reference encoder.
    It would write a UUID, a plain ``Enum`` or a NaN that the reference refuses; no event holds
    one (``tests/unit/test_chain_canonical.py`` compares whole games of every system)."""
    fields = canonical_fields(event, version)
    try:
        return orjson.dumps(fields, option=_ORJSON)
    except TypeError:
        return _CANONICAL.encode(fields).encode("utf-8")


def link(previous: str, event: Any, version: int | None = None) -> str:
    """``SHA-256(previous as ASCII hex ‖ "\\n" ‖ canonical(event))`` in lowercase hex."""
    digest = hashlib.sha256(previous.encode("ascii"))
    digest.update(b"\n")
    digest.update(canonical(event, version))
    return digest.hexdigest()


def stored_chain(event: Any) -> str | None:
    """The chain value the event was recorded with (``None`` before tamper evidence)."""
    value = event.__dict__.get("chain")
    return value if isinstance(value, str) else None
