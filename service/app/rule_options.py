"""Rule options from clients: bounded JSON parsing and JSON Schema validation, before anything
is recorded.

``parse_options_json`` turns a client's ``options_json`` into a dict of options or refuses it
with ``InvalidAction`` naming the option; ``check_rule_set`` is the last check before a game is
saved: the rule set's recorded form must be valid against the schema and load back equal
(so no game can be recorded that cannot be loaded).

Limits: the text is at most ``MAX_OPTIONS_BYTES`` UTF-8 bytes and ``MAX_DEPTH`` nested
objects/arrays deep (checked before parsing); ``NaN``/``Infinity``, non-integer numbers and
repeated keys are refused; every number's range is the schema's (domain.rules.ruleset_schema).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from decimal import Decimal
from functools import cache
from typing import Any

import jsonschema
from cachetools import LRUCache
from jsonschema.exceptions import ValidationError

from domain.rules import RuleSet, rule_set
from domain.rules.errors import InvalidAction
from domain.rules.ruleset_schema import options_schema
from domain.rules.scoring import DEFENCE_SCORERS

FIELD = "rules.options_json"
MAX_OPTIONS_BYTES = 8192
"""The longest ``options_json`` accepted (every option at its longest fits in well under 2 KiB)."""
MAX_DEPTH = 4
"""The deepest nesting of objects and arrays (the options need 2)."""


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = options_schema(sorted(DEFENCE_SCORERS))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


def _depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings (the text is bounded)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise InvalidAction(f"{name} is not a number JSON allows", field=FIELD)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise InvalidAction(f"the key {key!r:.40} is given twice", field=FIELD)
        result[key] = value
    return result


def _option(error: ValidationError) -> str:
    """The option an error is about, as a dotted path (``defence_norms.6``)."""
    return ".".join(str(part) for part in error.absolute_path)


def _describe(error: ValidationError) -> str:
    """A short explanation that does not echo the client's value."""
    rule, bound = error.validator, error.validator_value
    if rule == "enum" and isinstance(bound, list):
        return "must be one of " + ", ".join(str(v) for v in bound)
    if rule == "type":
        return f"must be of type {bound}"
    if rule in ("minimum", "maximum"):
        return f"must be {'at least' if rule == 'minimum' else 'at most'} {bound}"
    if rule == "const":
        return f"must be {bound}"
    if rule in ("minItems", "maxItems"):
        return f"needs {'at least' if rule == 'minItems' else 'at most'} {bound} entries"
    if rule == "uniqueItems":
        return "must not repeat an entry"
    if rule == "required":
        return "needs every level 6 to 10"
    if rule == "pattern":
        return "must be 1 to 32 lowercase letters, digits or dashes"
    if rule == "propertyNames":
        return "keys must be levels 6 to 10"
    if rule == "additionalProperties":
        return "is not a rule option"
    return f"is not valid ({rule})"


def check_options(options: Any, field: str = FIELD) -> None:
    """``InvalidAction`` naming the first invalid option, if ``options`` breaks the schema."""
    error = jsonschema.exceptions.best_match(_validator().iter_errors(options))
    if error is None:
        return
    where = _option(error)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = options_schema(sorted(DEFENCE_SCORERS))["properties"]
        extra = sorted(str(key) for key in error.instance if key not in known)
        named = ", ".join(f"{key:.40}" for key in extra[:5])
        raise InvalidAction(f"unknown rule options: {named}", field=field)
    name = f"{field}.{where}" if where else field
    raise InvalidAction(
        f"rule option {where or '(the whole object)'} {_describe(error)}", field=name
    )


def parse_options_json(text: str) -> dict[str, Any]:
    """A client's ``options_json`` → a dict of valid options, or ``InvalidAction``."""
    if len(text.encode("utf-8")) > MAX_OPTIONS_BYTES:
        raise InvalidAction(f"options_json is longer than {MAX_OPTIONS_BYTES} bytes", field=FIELD)
    if _depth(text) > MAX_DEPTH:
        raise InvalidAction(f"options_json nests deeper than {MAX_DEPTH} levels", field=FIELD)
    try:
        options = json.loads(
            text,
            parse_constant=_no_constant,
            parse_float=Decimal,  # not an integer: the schema refuses it, naming the option
            object_pairs_hook=_unique_keys,
        )
    except (ValueError, RecursionError) as exc:  # also an integer of too many digits
        raise InvalidAction(f"not valid JSON: {exc!s:.80}", field=FIELD) from None
    if not isinstance(options, dict):
        raise InvalidAction("must be a JSON object of rule options", field=FIELD)
    check_options(options)
    return options


def rule_set_with(
    name: str, overrides: Mapping[str, Any] | None = None, pool_target: int = 0
) -> RuleSet:
    """The named rule set (``rules.name``: "default", "sochi", …) with some options changed,
    fully validated (``InvalidAction`` naming the option): one path for the API and the CLI."""
    options: dict[str, Any] = rule_set(name or "default").to_dict()
    if overrides and overrides.get("name", options["name"]) != options["name"]:
        # Views show the system's name and only the options that differ from it: a rule set
        # renamed by an option would pass one system's name off for other conventions.
        raise InvalidAction(
            "the system is chosen by its name (rules.name), not renamed by an option",
            field=f"{FIELD}.name",
        )
    if overrides:
        options.update(overrides)
    if pool_target:
        options["pool_target"] = pool_target
    _schema_checked(options)
    rules = RuleSet.from_dict(options)
    check_rule_set(rules)
    return rules


_VALID_OPTIONS: LRUCache[str, bool] = LRUCache(maxsize=256)
_VALID_GUARD = threading.Lock()


def _schema_checked(options: Mapping[str, Any]) -> None:
    """``check_options(options)``, remembered for options found valid: a table or game is
    created with one of a few rule sets, and each JSON Schema validation costs about 1 ms. The
    key is the options' ``repr``, which tells ``True`` from ``1`` and ``1.0``, a tuple from a
    list and ``6`` from ``"6"`` (equal values of other types may be judged differently by the
    schema); a refusal is never remembered."""
    key = repr(options)
    with _VALID_GUARD:
        if key in _VALID_OPTIONS:
            return
    check_options(options, field="rules")
    with _VALID_GUARD:
        _VALID_OPTIONS[key] = True


def check_rule_set(rules: RuleSet) -> None:
    """Refuse (``InvalidAction``) a rule set whose recorded form is invalid or does not load
    back equal: the last check before a game's creation is recorded (the schema check of the
    recorded form remembered as in ``_schema_checked``; the load-back is checked every time)."""
    recorded = rules.to_dict()
    _schema_checked(recorded)
    try:
        loaded = RuleSet.from_dict(json.loads(json.dumps(recorded)))
    except (TypeError, ValueError) as exc:
        raise InvalidAction(f"the rule set cannot be recorded: {exc}", field="rules") from None
    if loaded != rules:
        raise InvalidAction("the rule set does not load back as it is", field="rules")
