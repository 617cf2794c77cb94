"""The shape of a stored game event: which fields it has and their JSON types.

A stored event can decode (its JSON parses, its topic names an event class) and still not be an
event of the game: a field missing, of the wrong type, or one no event of its kind has. The
audit asks ``malformed(event)`` before it reads anything of the event, so such a row is
reported at its position ("cannot be read") instead of raising. The expected fields are the
event classes' own declarations (``dataclasses.fields``), so there is one place for them.
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]


def _integer(value: Any) -> bool:
    return type(value) is int


def _list_of(item: Check) -> Check:
    return lambda value: isinstance(value, list) and all(item(v) for v in value)


def _or_none(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _string(value: Any) -> bool:
    return isinstance(value, str)


def _object(value: Any) -> bool:
    return isinstance(value, dict)


CHECKS: dict[str, Check] = {
    "int": _integer,
    "str": _string,
    "bool": lambda value: type(value) is bool,
    "list[int]": _list_of(_integer),
    "list[str]": _list_of(_string),
    "dict[str, Any]": _object,
    "dict[str, Any] | None": _or_none(_object),
    "list[str] | None": _or_none(_list_of(_string)),
    "list[int] | None": _or_none(_list_of(_integer)),
    "dict[str, int] | None": _or_none(
        lambda value: _object(value) and all(_integer(v) for v in value.values())
    ),
    "UUID": lambda value: isinstance(value, uuid.UUID),
    "datetime": lambda value: isinstance(value, datetime.datetime),
}
"""A check for each field type the game's events declare (as written in their annotations)."""

TYPE_NAMES = {"int": "an integer", "str": "text", "bool": "true or false"}

OPTIONAL = ("chain",)
"""Fields a stored event may have beyond its declared ones (absent before tamper evidence)."""


def event_topics() -> frozenset[str]:
    """The topics of the game's events: a stored row with any other topic is not decoded."""
    from domain.model.game import Game

    found: set[str] = set()
    pending: list[type] = [Game.Event]
    while pending:
        cls = pending.pop()
        sub: type
        for sub in cls.__subclasses__():
            pending.append(sub)
            topic = getattr(sub, "TOPIC", "")
            if topic and topic != Game.Event.TOPIC:
                found.add(topic)
    return frozenset(found)


def malformed(event: Any) -> str | None:
    """Why ``event`` is not a well-formed event of its kind, or ``None`` if it is."""
    if not dataclasses.is_dataclass(event) or isinstance(event, type):
        return f"{type(event).__name__} is not a game event"
    state = vars(event)
    declared = dataclasses.fields(event)
    for spec in declared:
        if spec.name not in state:
            if spec.default is not dataclasses.MISSING:
                continue  # a field added later with a default (absent from older events)
            return f"the field {spec.name!r} is missing"
        check = CHECKS.get(str(spec.type))
        if check is None:  # pragma: no cover - a new field type must be added to CHECKS
            return f"the field {spec.name!r} has a type the audit does not know ({spec.type})"
        if not check(state[spec.name]):
            wanted = TYPE_NAMES.get(str(spec.type), str(spec.type))
            return f"the field {spec.name!r} is not {wanted}"
    if "chain" in state and not isinstance(state["chain"], str):
        return "the field 'chain' is not text"
    names = {spec.name for spec in declared}
    extra = sorted(set(state) - names - set(OPTIONAL))
    if extra:
        shown = ", ".join(f"{name!r:.40}" for name in extra[:5])
        return f"unexpected field{'s' if len(extra) > 1 else ''} {shown}"
    return None
