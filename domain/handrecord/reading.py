"""Reading a hand record: JSON text to a record whose shape is checked by its JSON Schema
(``handrecord.schema.json`` beside this module, also docs/handrecord.schema.json) with the
``jsonschema`` library, with errors that name the field ("deals[0].tricks: missing").

Older versions are raised to the current one first (``upcast``). The schema cannot know the
table's size, so a second check does: every seat is one of the table's (0 to n-1, n the rule
set's ``players``) and every per-seat list has one entry per seat. Only the shape is checked
here; whether the deals are right is ``verify.verify_record``'s job.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from domain.handrecord.build import FORMAT, VERSION, Record
from domain.handrecord.upcast import KNOWN_VERSIONS, V3_FIELDS, known_version, upcast_record
from domain.rules.seats import positions

SCHEMA_FILE = "handrecord.schema.json"

_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "array": "a list",
    "object": "an object",
    "boolean": "true or false",
    "null": "null",
}


class HandRecordError(ValueError):
    """A file that is not a hand record this reader understands (with the reason)."""


def schema() -> dict[str, Any]:
    """The hand record's JSON Schema (a fresh copy)."""
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def _validator() -> jsonschema.protocols.Validator:
    document = schema()
    base = jsonschema.validators.validator_for(document)
    base.check_schema(document)
    # An integer is an int, as the record's readers index lists with it: not 1.0, not true.
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    )
    cls = jsonschema.validators.extend(base, type_checker=checker)  # type: ignore[no-untyped-call]
    validator: jsonschema.protocols.Validator = cls(document)
    return validator


def _where(path: Any) -> str:
    """``deals[0].tricks[2]`` from a path of keys and indexes."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _short(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:40]


def _message(error: ValidationError) -> str:
    where = _where(error.absolute_path)
    # The error's typed fields may be ``Unset``; a reported error has them all.
    rule: Any = error.validator
    value: Any = error.instance
    expected: Any = error.validator_value
    subschema: Any = error.schema
    if rule == "required" and isinstance(value, dict):
        missing = next(key for key in expected if key not in value)
        return f"{where + '.' if where else ''}{missing}: missing"
    if rule == "additionalProperties" and isinstance(value, dict):
        known = subschema.get("properties", {})
        extra = next(str(key) for key in value if key not in known)
        return f"{where + '.' if where else ''}{extra[:40]}: not a field of a hand record"
    where = where or "the record"
    if rule == "type":
        types = [expected] if isinstance(expected, str) else list(expected)
        names = " or ".join(_TYPE_NAMES.get(t, t) for t in types)
        return f"{where}: expected {names}, got {_short(value)}"
    if rule == "minItems":
        return f"{where}: expected at least {expected} item{'s' if expected != 1 else ''}"
    if rule == "maxItems":
        return f"{where}: expected at most {expected} item{'s' if expected != 1 else ''}"
    if rule in ("minimum", "maximum"):
        return f"{where}: {_short(value)} is {'below' if rule == 'minimum' else 'above'} {expected}"
    if rule == "pattern":
        return f"{where}: {_short(value)} is not in the expected form"
    if rule in ("const", "enum"):
        allowed = [expected] if rule == "const" else list(expected)
        return f"{where}: expected one of {_short(allowed)}, got {_short(value)}"
    return f"{where}: not valid ({rule})"


def validate(rec: Any) -> Record:
    """Check the format, version and shape of a decoded record, raised to the current version
    (the same object when it is already current); raise ``HandRecordError``."""
    if not isinstance(rec, dict):
        raise HandRecordError("a hand record is a JSON object")
    if rec.get("format") != FORMAT:
        raise HandRecordError(
            f"not a hand record: format is {rec.get('format')!r}, expected {FORMAT!r}"
        )
    version = rec.get("version")
    if not known_version(version):
        known = (
            f"version {VERSION}"
            if len(KNOWN_VERSIONS) == 1
            else f"versions {KNOWN_VERSIONS[0]} to {KNOWN_VERSIONS[-1]}"
        )
        raise HandRecordError(
            f"unsupported hand-record version {version!r}: this reader knows {known}"
        )
    later = [key for key in V3_FIELDS if key in rec] if rec["version"] < 3 else []
    if later:  # read as version 2 with none of them (docs/HANDRECORD.md), never applied
        raise HandRecordError(
            f"a version-{version} hand record has no field {later[0]!r}: version 3 added it"
        )
    checked = upcast_record(rec)
    error = jsonschema.exceptions.best_match(_validator().iter_errors(checked))
    if error is not None:
        raise HandRecordError(_message(error))
    problem = _seat_problem(checked)
    if problem is not None:
        raise HandRecordError(problem)
    return checked


RULES_PLAYERS = (2, 5)
"""The table sizes a record may have (RULES.md §3.6)."""

DEFAULT_PLAYERS = 3
"""A rule set that does not name its players is for three (``RuleSet.players``)."""

_SEAT_FIELDS: tuple[tuple[str | int, ...], ...] = (
    ("first_dealer",),
    ("replacements", "*", "seat"),
    ("flags", "*", "seat"),
    ("order", "seat"),
    ("deals", "*", "dealer"),
    ("deals", "*", "declarer"),
    ("deals", "*", "sitters", "*"),
    ("deals", "*", "auction", "*", "seat"),
    ("deals", "*", "whist", "*", "seat"),
    ("deals", "*", "defence", "seat"),
    ("deals", "*", "claims", "*", "seat"),
    ("deals", "*", "actions", "*", "seat"),
    ("deals", "*", "result", "declarer"),
    ("deals", "*", "classic", "bombers", "*"),
    ("deals", "*", "entry", "helps", "*", 0),
    ("deals", "*", "entry", "helps", "*", 1),
)
"""Where a record names a seat (``-1``, "nobody", is the schema's business)."""

_POSITION_FIELDS: tuple[tuple[str | int, ...], ...] = (
    ("deals", "*", "hand_seats", "*"),
    ("deals", "*", "tricks", "*", "leader"),
    ("deals", "*", "tricks", "*", "winner"),
    ("deals", "*", "tricks", "*", "cards", "*", "seat"),
    ("deals", "*", "actions", "*", "hand"),
)
"""Where a record names a hand's position: a seat, or with two players the dummy (position
``DUMMY``, 2; RULES.md §3.6)."""

_SHEETS = ("sheet_before", "score", "entry")

_PER_SEAT: tuple[tuple[str | int, ...], ...] = (
    ("players",),
    *(("deals", "*", sheet, key) for sheet in _SHEETS for key in ("pool", "gora", "whists")),
    *(("deals", "*", sheet, "whists", "*") for sheet in _SHEETS),
    ("deals", "*", "bomb_signs"),
    ("deals", "*", "robber_owed"),
)
"""Lists with one entry per seat."""

_PER_POSITION: tuple[tuple[str | int, ...], ...] = (
    ("deals", "*", "hands"),
    ("deals", "*", "result", "tricks"),
    ("deals", "*", "claims", "*", "tricks"),
)
"""Lists with one entry per hand's position: per seat, and with two players the dummy's third
(``positions``, RULES.md §3.6)."""


def _found(
    value: Any, path: tuple[str | int, ...], at: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Each value at ``path`` (``"*"``: every item of a list), with its full path; absent
    optional fields and ``null`` sections yield nothing."""
    if not path:
        yield at, value
        return
    step, rest = path[0], path[1:]
    if step == "*":
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield from _found(item, rest, (*at, i))
    elif isinstance(step, int):
        if isinstance(value, list) and step < len(value):
            yield from _found(value[step], rest, (*at, step))
    elif isinstance(value, dict) and step in value:
        yield from _found(value[step], rest, (*at, step))


def table_size(rec: Record) -> int:
    """The number of seats: the rule set's ``players`` (when it is a table size a record may
    have), else as many as the record's players."""
    players = rec["rules"].get("players", DEFAULT_PLAYERS)
    low, high = RULES_PLAYERS
    if type(players) is int and low <= players <= high:
        return players
    return len(rec["players"])


def _seat_problem(rec: Record) -> str | None:
    """The first seat outside the table or per-seat list of the wrong length, in the schema
    checks' words (``deals[0].dealer: 3 is above 2``), or ``None``."""
    seats = table_size(rec)
    places = positions(seats)
    for paths, n in ((_PER_SEAT, seats), (_PER_POSITION, places)):
        for path in paths:
            for at, value in _found(rec, path):
                if isinstance(value, list) and len(value) != n:
                    bound = "at least" if len(value) < n else "at most"
                    return f"{_where(at)}: expected {bound} {n} item{'s' if n != 1 else ''}"
    for paths, n in ((_SEAT_FIELDS, seats), (_POSITION_FIELDS, places)):
        for path in paths:
            for at, value in _found(rec, path):
                if type(value) is int and value >= n:
                    return f"{_where(at)}: {value} is above {n - 1}"
    return None


def parse_record(text: str) -> Record:
    """Read a hand record from JSON text; raise ``HandRecordError`` with a plain reason."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HandRecordError(
            f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    return validate(data)
