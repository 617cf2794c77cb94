"""Reading a hand record: JSON text to a record whose shape is checked by its JSON Schema
(``handrecord.schema.json`` beside this module, also docs/handrecord.schema.json) with the
``jsonschema`` library, with errors that name the field ("deals[0].tricks: missing").

Only the shape is checked here; whether the deals are right is ``verify.verify_record``'s job.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from domain.handrecord.build import FORMAT, VERSION, Record

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
    """Check the format, version and shape of a decoded record; raise ``HandRecordError``."""
    if not isinstance(rec, dict):
        raise HandRecordError("a hand record is a JSON object")
    if rec.get("format") != FORMAT:
        raise HandRecordError(
            f"not a hand record: format is {rec.get('format')!r}, expected {FORMAT!r}"
        )
    version = rec.get("version")
    if version != VERSION:
        raise HandRecordError(
            f"unsupported hand-record version {version!r}: this reader knows version {VERSION}"
        )
    checked: Record = rec
    if "stopped" not in checked:
        # Records exported before games could be stopped by time or agreement lack the field.
        checked = {**checked, "stopped": None}
    if "replacements" not in checked:
        # Records exported before players could be replaced (TV-27) lack the field.
        checked = {**checked, "replacements": []}
    error = jsonschema.exceptions.best_match(_validator().iter_errors(checked))
    if error is not None:
        raise HandRecordError(_message(error))
    return checked


def parse_record(text: str) -> Record:
    """Read a hand record from JSON text; raise ``HandRecordError`` with a plain reason."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HandRecordError(
            f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    return validate(data)
