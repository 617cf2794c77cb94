"""Protobuf's canonical JSON, as ``json_format`` prints and parses it, faster.

``json_format`` walks every message in Python, asking the descriptor at each field, and was
the largest cost of a Connect JSON call (a seat view is encoded on every command). This
printer walks ``ListFields()`` (implemented in C by the upb backend: only the fields that are
set, as ``MessageToDict`` prints them) with one converter per field, made once per message
type and cached. Well-known types (``Timestamp``, ``Duration``, …) and messages with a float
field are left to ``json_format``, whose JSON forms for them are special. The output equals
``MessageToDict``'s with its defaults: tests/unit/test_protojson.py checks it on every message
type of the API, filled with every kind of value.

``parse`` reads the JSON of a message as ``json_format.Parse`` does (a tenth of a seat view's
parse time: the upb constructor builds the nested messages in C from plain arguments), and
hands anything unusual to ``json_format.Parse``, which then decides: so it accepts and refuses
exactly what ``json_format`` does (the same test checks it on valid and invalid documents).
"""

from __future__ import annotations

import base64
import functools
import json
import math
import re
from collections.abc import Callable
from typing import Any

import orjson
from google.protobuf import json_format, message_factory
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
        return _nested
    return _scalar(field)


# A nested message's JSON object, remembered by its type and wire bytes: a seat view repeats
# most of the one before it (the previous deal, the tricks played, every card's value), and a
# sub-message's bytes (serialised in C) and a hit in ``functools.lru_cache`` (C, thread-safe)
# cost far less than walking it again. Equal bytes of one type are equal messages, so a hit is
# exact; a message bigger than ``_MEMO_BYTES`` is walked. At most 8,192 entries of at most 2 KiB
# of wire bytes (and their JSON objects, about 3.5× that): under 80 MB however answers vary.
_MEMO_BYTES = 2048
_classes: dict[str, type[Message]] = {}


def _nested(message: Message) -> Any:
    data = message.SerializeToString()
    if len(data) > _MEMO_BYTES:
        return to_dict(message)
    name = message.DESCRIPTOR.full_name
    if name not in _classes:
        _classes[name] = type(message)
    return _remembered(name, data)


@functools.lru_cache(maxsize=8192)
def _remembered(name: str, data: bytes) -> Any:
    return to_dict(_classes[name].FromString(data))


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
    """``json_format.MessageToDict(message)``. The nested objects of the result may be shared
    with other results (``_nested``): read it, never change it."""
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


# ----------------------------------------------------------------------------------------
# parsing


class _Unusual(Exception):
    """Something the fast parser leaves to ``json_format.Parse`` (which decides)."""


_INT = re.compile(r"-?(0|[1-9][0-9]*)")
_INT64_KINDS = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)
_INT32_KINDS = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_FIXED32,
        FieldDescriptor.TYPE_SFIXED32,
    }
)
_readers: dict[str, dict[str, tuple[str, Convert, str | None]]] = {}


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Unusual("a key twice")
    return out


def _read_scalar(field: Any) -> Convert:
    kind = field.type
    if kind in _INT64_KINDS:

        def int64(value: Any) -> int:
            if isinstance(value, str) and _INT.fullmatch(value):
                return int(value)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            raise _Unusual("int64")

        return int64
    if kind in _INT32_KINDS:

        def int32(value: Any) -> int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            raise _Unusual("int32")

        return int32
    if kind == FieldDescriptor.TYPE_STRING:

        def string(value: Any) -> str:
            if isinstance(value, str):
                return value
            raise _Unusual("string")

        return string
    if kind == FieldDescriptor.TYPE_BOOL:

        def boolean(value: Any) -> bool:
            if isinstance(value, bool):
                return value
            raise _Unusual("bool")

        return boolean
    if kind == FieldDescriptor.TYPE_ENUM:
        numbers: dict[str, int] = {v.name: v.number for v in field.enum_type.values}

        def enum(value: Any) -> int:
            if isinstance(value, str) and value in numbers:
                return numbers[value]
            raise _Unusual("enum")

        return enum
    if kind == FieldDescriptor.TYPE_MESSAGE:
        if not field.message_type.full_name.startswith(_WELL_KNOWN):
            return _message_reader(field.message_type)
        # Timestamp, Duration, …: their special JSON forms are json_format's to read.
        well_known = message_factory.GetMessageClass(field.message_type)
        return lambda value: json_format.ParseDict(value, well_known())
    raise _Unusual("a kind left to json_format")


def _reader(field: Any) -> Convert:
    try:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            raise _Unusual("map")
        one = _read_scalar(field)
    except _Unusual:

        def unusual(value: Any) -> Any:
            raise _Unusual(field.name)

        return unusual
    if field.is_repeated:

        def repeated(values: Any) -> list[Any]:
            if not isinstance(values, list):
                raise _Unusual("not a list")
            return [one(v) for v in values]

        return repeated
    return one


def _message_reader(descriptor: Any) -> Convert:
    """The reader of one nested message of this type. A type whose fields are all single enums
    (a card's rank and suit: most of a seat view's objects) remembers what it read, by the
    object's items: only objects of enum names are ever read without raising, and equal names
    are the same input, so a hit is exact. What is remembered is bounded by the enums' names
    (a client's own strings are never kept: a request is read before it is authenticated)."""
    if not all(
        f.type == FieldDescriptor.TYPE_ENUM and not f.is_repeated and f.containing_oneof is None
        for f in descriptor.fields
    ):
        return lambda value: _read(descriptor, value)
    kept: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}

    def leaf(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _Unusual("not an object")
        try:
            key = tuple(value.items())
            found = kept.get(key)
        except TypeError:  # an unhashable value: not text, _read refuses it
            key, found = None, None
        if found is None:
            found = _read(descriptor, value)
            if key is not None:  # enum names only, each one of the type's
                kept[key] = found
        return found

    return leaf


def _read(descriptor: Any, value: Any) -> dict[str, Any]:
    """Constructor arguments (proto field names) of the message ``value`` is the JSON of."""
    if not isinstance(value, dict):
        raise _Unusual("not an object")
    table = _readers.get(descriptor.full_name)
    if table is None:
        table = {}
        for field in descriptor.fields:
            oneof = field.containing_oneof.name if field.containing_oneof is not None else None
            reading: tuple[str, Convert, str | None] = (str(field.name), _reader(field), oneof)
            table[field.json_name] = reading
            table[field.name] = reading
        _readers[descriptor.full_name] = table
    out: dict[str, Any] = {}
    oneofs: set[str] = set()
    for key, item in value.items():
        entry = table.get(key)
        if entry is None or item is None:
            raise _Unusual("an unknown key or a null")
        name, read, oneof = entry
        if name in out:
            raise _Unusual("a field twice")
        if oneof is not None:
            if oneof in oneofs:
                raise _Unusual("two members of a oneof")
            oneofs.add(oneof)
        out[name] = read(item)
    return out


def parse(data: bytes | str, message_class: type[Any], *, trusted: bool = False) -> Any:
    """``json_format.Parse(data, message_class(), ignore_unknown_fields=True)``: the common
    shapes converted here to constructor arguments (the upb constructor builds the nested
    messages in C), anything unusual (unknown keys, nulls, maps, well-known types, numbers as
    strings, …) handed to ``json_format``, which decides.

    ``trusted``: the document comes from this service (a client reading its server's answers),
    so a key given twice in one object need not be refused: orjson reads it (the last value
    wins, as in a browser's ``JSON.parse``) without the per-object duplicate check, in a third
    of the time. Requests are never read so."""
    try:
        if trusted:
            document = orjson.loads(data)
        else:
            document = json.loads(data, object_pairs_hook=_no_duplicates)
        return message_class(**_read(message_class.DESCRIPTOR, document))
    except Exception:  # _Unusual, or what json.loads or the constructor refused
        message = message_class()
        json_format.Parse(data, message, ignore_unknown_fields=True)
        return message
