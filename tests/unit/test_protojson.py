"""``service.connect.protojson.to_dict`` prints exactly what ``json_format.MessageToDict`` prints,
and ``parse`` reads (and refuses) exactly what ``json_format.Parse`` does,
for every message type of the API, filled with every kind of value it has (int64 as strings,
enums by name and unknown enum numbers, optional fields set to zero, oneofs, repeated
messages, maps, Timestamp and Duration, doubles including NaN and infinities)."""

from __future__ import annotations

import gc
import json
import math
import tracemalloc
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from service.connect.codecs import JsonCodec
from service.connect.protojson import parse, to_dict
from service.gen.preferans.v1 import audit_pb2, game_pb2, ledger_pb2, stats_pb2, table_pb2

MODULES = (game_pb2, table_pb2, stats_pb2, ledger_pb2, audit_pb2)


def _messages() -> list[type[Message]]:
    out = []
    for module in MODULES:
        for descriptor in module.DESCRIPTOR.message_types_by_name.values():
            out.append(_class(module, descriptor))
    return out


def _class(module: Any, descriptor: Any) -> type[Message]:
    cls: type[Message] = getattr(module, descriptor.name)
    return cls


def _value(field: Any, variant: int) -> Any:
    kind = field.type
    if kind == FieldDescriptor.TYPE_STRING:
        return f"x{variant}♠"
    if kind == FieldDescriptor.TYPE_BOOL:
        return variant % 2 == 1
    if kind == FieldDescriptor.TYPE_DOUBLE:
        return [1.5, -0.25, math.inf, -math.inf, 3.0][variant % 5]
    if kind == FieldDescriptor.TYPE_ENUM:
        numbers = [v.number for v in field.enum_type.values]
        return numbers[variant % len(numbers)] if variant < 3 else 99  # 99: unknown
    if kind in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64):
        return 2**40 + variant
    return variant + 1


def _fill(message: Message, depth: int, variant: int) -> Message:
    for field in message.DESCRIPTOR.fields:
        if (
            field.containing_oneof is not None
            and field.containing_oneof.fields[variant % len(field.containing_oneof.fields)]
            is not field
        ):
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            entries = getattr(message, field.name)
            value_field = field.message_type.fields_by_name["value"]
            for i in range(2):
                entries[f"k{i}"] = _value(value_field, variant + i)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth <= 0:
                continue
            if field.is_repeated:
                for i in range(2):
                    _fill(getattr(message, field.name).add(), depth - 1, variant + i)
            else:
                _fill(getattr(message, field.name), depth - 1, variant)
        elif field.is_repeated:
            getattr(message, field.name).extend([_value(field, variant + i) for i in range(2)])
        else:
            setattr(message, field.name, _value(field, variant))
    if message.DESCRIPTOR.full_name == "google.protobuf.Timestamp":
        message.seconds, message.nanos = 1_700_000_000 + variant, 5_000_000  # type: ignore[attr-defined]
    if message.DESCRIPTOR.full_name == "google.protobuf.Duration":
        message.seconds, message.nanos = variant, 250_000_000  # type: ignore[attr-defined]
    return message


@pytest.mark.parametrize("cls", _messages(), ids=lambda c: c.DESCRIPTOR.full_name)
def test_to_dict_prints_what_json_format_prints(cls: type[Message]) -> None:
    assert to_dict(cls()) == json_format.MessageToDict(cls())
    for variant in range(4):
        message = _fill(cls(), depth=3, variant=variant)
        assert to_dict(message) == json_format.MessageToDict(message), variant


def test_zero_values_of_optional_fields_are_printed_as_json_format_prints_them() -> None:
    view = game_pb2.SeatView(open_defence=False, seat=0, declarer=-1)
    assert to_dict(view) == json_format.MessageToDict(view)
    assert to_dict(view)["openDefence"] is False


def test_a_nan_double_is_the_string_json_format_writes() -> None:
    doubles = [
        (d.containing_type, d)
        for module in MODULES
        for message in module.DESCRIPTOR.message_types_by_name.values()
        for d in message.fields
        if d.type == FieldDescriptor.TYPE_DOUBLE
    ]
    assert doubles, "no double field left: drop this test"
    owner, field = doubles[0]
    module = next(m for m in MODULES if m.DESCRIPTOR.name == owner.file.name)
    message = getattr(module, owner.name)()
    setattr(message, field.name, math.nan)
    assert to_dict(message) == json_format.MessageToDict(message)


def _json_format_parse(data: bytes, cls: type[Message]) -> Message | str:
    message = cls()
    try:
        json_format.Parse(data, message, ignore_unknown_fields=True)
    except json_format.ParseError:
        return "refused"
    return message


def _fast_parse(data: bytes, cls: type[Message]) -> Message | str:
    try:
        result: Message = parse(data, cls)
    except json_format.ParseError:
        return "refused"
    return result


@pytest.mark.parametrize("trusted", [False, True], ids=["request", "trusted"])
@pytest.mark.parametrize("cls", _messages(), ids=lambda c: c.DESCRIPTOR.full_name)
def test_parse_reads_what_json_format_reads(cls: type[Message], trusted: bool) -> None:
    for variant in range(4):
        message = _fill(cls(), depth=3, variant=variant)
        for data in (
            json.dumps(json_format.MessageToDict(message)).encode(),
            json.dumps(json_format.MessageToDict(message, preserving_proto_field_name=True)),
        ):
            raw = data if isinstance(data, bytes) else data.encode()
            assert parse(raw, cls, trusted=trusted) == message, variant


def test_only_a_trusted_document_may_give_a_key_twice() -> None:
    """A request naming a field twice is refused (as json_format refuses it); an answer read by
    a client (``trusted``) keeps the last value, as a browser's ``JSON.parse`` does."""
    data = b'{"name": "games/x", "name": "games/y"}'
    cls = game_pb2.GetSeatViewRequest
    assert _fast_parse(data, cls) == "refused"
    assert parse(data, cls, trusted=True).name == "games/y"


def _text_leaves() -> list[tuple[type[Message], Any, Any]]:
    """(message class, field, leaf field): a single nested message whose fields are all single
    strings or enums (the reader remembers those)."""
    out = []
    for cls in _messages():
        for field in cls.DESCRIPTOR.fields:
            leaf: Any = field.message_type
            if (
                field.type == FieldDescriptor.TYPE_MESSAGE
                and not field.is_repeated
                and not leaf.GetOptions().map_entry
                and not leaf.full_name.startswith("google.")
                and leaf.fields
                and all(
                    f.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_ENUM)
                    and not f.is_repeated
                    and f.containing_oneof is None
                    for f in leaf.fields
                )
            ):
                out.append((cls, field, leaf.fields[0]))
    return out


def test_remembered_leaves_are_read_as_json_format_reads_them() -> None:
    """The remembered reading of an all-text object is exact: a number, ``true`` or a list where
    a string is due is still refused or read as json_format reads it (an enum's number), the
    second time too (when a valid equal-looking object has been remembered)."""
    leaves = _text_leaves()
    assert leaves, "no message with an all-text nested message left: drop this test"
    for cls, field, leaf in leaves:
        if leaf.type == FieldDescriptor.TYPE_ENUM:
            good, number = leaf.enum_type.values[-1].name, leaf.enum_type.values[-1].number
        else:
            good, number = "text", 1
        for value in (good, str(number), number, True, 1.0, [good], {"x": good}, None, good):
            data = json.dumps({field.json_name: {leaf.json_name: value}}).encode()
            for _ in range(2):
                assert _fast_parse(data, cls) == _json_format_parse(data, cls), data


ODD_DOCUMENTS = [
    b"",
    b"{",
    b"[]",
    b"null",
    b'{"name": null}',
    b'{"name": 5}',
    b'{"name": "games/x", "name": "games/y"}',
    b'{"minVersion": "12"}',
    b'{"minVersion": 12}',
    b'{"minVersion": "1e3"}',
    b'{"minVersion": "-0"}',
    b'{"minVersion": 1.5}',
    b'{"minVersion": true}',
    b'{"unknownField": 1}',
    b'{"name": "\\ud800"}',
    b'{"name": "games/x", "min_version": "3"}',
    b'{"name": "games/x", "minVersion": "3", "min_version": "4"}',
]


def test_parse_accepts_and_refuses_what_json_format_does() -> None:
    cls = game_pb2.GetSeatViewRequest
    for data in ODD_DOCUMENTS:
        assert _fast_parse(data, cls) == _json_format_parse(data, cls), data
    action = game_pb2.SubmitActionRequest
    for data in (
        b'{"action": {"playCard": "7S", "bid": "6S"}}',
        b'{"action": {"playCard": "7S"}}',
        b'{"action": {"pass": {}}}',
        b'{"action": []}',
        b'{"action": {"claim": {"tricks": 99999999999}}}',
    ):
        assert _fast_parse(data, action) == _json_format_parse(data, action), data
    enums = game_pb2.ListGamesRequest
    for data in (b'{"status": "GAME_STATUS_FINISHED"}', b'{"status": 2}', b'{"status": "NOPE"}'):
        assert _fast_parse(data, enums) == _json_format_parse(data, enums), data


def test_well_known_types_are_read_as_json_format_reads_them() -> None:
    cls = game_pb2.GetGameResponse
    for data in (
        b'{"game": {"name": "games/x", "createTime": "2026-12-02T01:02:03.5Z"}}',
        b'{"game": {"createTime": "2026-12-02T01:02:03+01:00"}}',
        b'{"game": {"createTime": "yesterday"}}',
        b'{"game": {"createTime": 5}}',
        b'{"game": {"createTime": {"seconds": 5}}}',
    ):
        assert _fast_parse(data, cls) == _json_format_parse(data, cls), data


def test_equal_bytes_of_two_message_types_are_not_taken_for_each_other() -> None:
    """The nested-message memo is keyed by type and wire bytes: a sub-message whose bytes equal
    another type's (field 1 = 7 in both, different field names) still prints its own names,
    and a second print of the same messages (every sub-message then a memo hit) is unchanged."""
    pairs = []
    for cls in _messages():
        nested = [
            f
            for f in cls.DESCRIPTOR.fields
            if f.type == FieldDescriptor.TYPE_MESSAGE
            and not f.is_repeated
            and f.containing_oneof is None
            and _first_int32(f) is not None
        ]
        for a in nested:
            for b in nested:
                if _first_int32(a).json_name != _first_int32(b).json_name:
                    pairs.append((cls, a, b))
    assert pairs, "no message with two such sub-messages left: pick another pair"
    for cls, a, b in pairs:
        message = cls()
        for field in (a, b):
            setattr(getattr(message, field.name), _first_int32(field).name, 7)
        assert getattr(message, a.name).SerializeToString() == (
            getattr(message, b.name).SerializeToString()
        )
        for _ in range(2):
            assert to_dict(message) == json_format.MessageToDict(message)


def _first_int32(field: Any) -> Any:
    """Field number 1 of ``field``'s message type if it is a single int32, else ``None``."""
    first = field.message_type.fields_by_number.get(1)
    if first is None or first.type != FieldDescriptor.TYPE_INT32 or first.is_repeated:
        return None
    return first


def test_the_json_codec_writes_json_format_compact_utf8() -> None:
    """``JsonCodec.encode`` (orjson) writes the bytes of ``json.dumps`` with compact separators
    and UTF-8 text (♠ as itself), for every message type filled with every kind of value."""
    codec = JsonCodec(max_send_bytes=1 << 24)
    for cls in _messages():
        for variant in range(4):
            message = _fill(cls(), depth=3, variant=variant)
            expected = json.dumps(
                json_format.MessageToDict(message), separators=(",", ":"), ensure_ascii=False
            ).encode()
            assert json.loads(codec.encode(message)) == json.loads(expected)
            if not _has_double(message.DESCRIPTOR, depth=4):  # float text may differ, not value
                assert codec.encode(message) == expected, cls.DESCRIPTOR.full_name


def _has_double(descriptor: Any, depth: int) -> bool:
    if depth < 0:
        return False
    return any(
        f.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT)
        or (f.message_type is not None and _has_double(f.message_type, depth - 1))
        for f in descriptor.fields
    )


def test_reading_requests_keeps_none_of_the_clients_strings() -> None:
    """Review rev-d, defect 1: the reader remembered every all-text object, a request's
    ``Player`` (free text) too, read before the caller is authenticated: 1,500 requests with a
    60 KB name pinned 87 MiB. Only objects of enum names are remembered now."""
    codec = JsonCodec(1 << 20)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(300):
            body = json.dumps(
                {"players": [{"playerId": f"p{i}", "displayName": f"{i}" + "x" * 60_000}]}
            ).encode()
            codec.decode(body, game_pb2.CreateGameRequest)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 4 * 2**20, f"{kept / 2**20:.0f} MiB of request strings kept"
