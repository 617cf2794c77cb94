"""Protobuf's canonical JSON of a message, as ``json_format.MessageToDict`` makes it, faster.

``json_format`` walks every message in Python, asking the descriptor at each field, and was
the largest cost of a Connect JSON call (a seat view is encoded on every command). This
printer walks ``ListFields()`` (implemented in C by the upb backend: only the fields that are
set, as ``MessageToDict`` prints them) with one converter per field, made once per message
type and cached. Well-known types (``Timestamp``, ``Duration``, …) and messages with a float
field are left to ``json_format``, whose JSON forms for them are special. The output equals
``MessageToDict``'s with its defaults: tests/unit/test_protojson.py checks it on every message
type of the API, filled with every kind of value.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

Convert = Callable[[Any], Any]

_WELL_KNOWN = "google.protobuf."
_converters: dict[str, dict[str, tuple[str, Convert | None]]] = {}


def _double(value: float) -> Any:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _scalar(field: Any) -> Convert | None:
    """The converter of one value of a scalar field (``None``: the value is its own JSON)."""
    kind = field.type
    if kind in (
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    ):
        return str
    if kind == FieldDescriptor.TYPE_DOUBLE:
        return _double
    if kind == FieldDescriptor.TYPE_BYTES:
        return lambda data: base64.b64encode(data).decode("ascii")
    if kind == FieldDescriptor.TYPE_ENUM:
        names = {v.number: v.name for v in field.enum_type.values}
        null_value = field.enum_type.full_name == "google.protobuf.NullValue"
        return (lambda n: None) if null_value else (lambda n: names.get(n, n))
    return None


def _single(field: Any) -> Convert | None:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return to_dict
    return _scalar(field)


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def _convert(field: Any) -> Convert | None:
    """The converter of a field's value as ``ListFields`` gives it (``None``: a float field,
    whose shortest-repr rounding is left to ``json_format``)."""
    message_type = field.message_type
    if message_type is not None and message_type.GetOptions().map_entry:
        value_field = message_type.fields_by_name["value"]
        if value_field.type == FieldDescriptor.TYPE_FLOAT:
            return None
        value = _single(value_field) or _same
        return lambda entries: {_key(k): value(v) for k, v in entries.items()}
    if field.type == FieldDescriptor.TYPE_FLOAT:
        return None
    one = _single(field)
    if field.is_repeated:
        if one is None:
            return list
        return lambda values: [one(v) for v in values]
    return one if one is not None else _same


def _same(value: Any) -> Any:
    return value


def _fields(descriptor: Any) -> dict[str, tuple[str, Convert | None]]:
    table = _converters.get(descriptor.full_name)
    if table is None:
        table = {f.name: (f.json_name, _convert(f)) for f in descriptor.fields}
        _converters[descriptor.full_name] = table
    return table


def to_dict(message: Message) -> Any:
    """``json_format.MessageToDict(message)``."""
    descriptor = message.DESCRIPTOR
    if descriptor.full_name.startswith(_WELL_KNOWN):  # their JSON forms are special
        return json_format.MessageToDict(message)
    table = _fields(descriptor)
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        entry = table.get(field.name)
        if entry is None or entry[1] is None or field.is_extension:
            return json_format.MessageToDict(message)
        out[entry[0]] = entry[1](value)
    return out
