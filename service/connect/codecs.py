"""The Connect codecs: protobuf binary and JSON over the ``google.protobuf`` messages.

They differ from ``connectrpc.compat``'s in three ways, each to answer as native gRPC does:

- bytes that are not a valid request message are refused with the error native gRPC gives
  (``service.api.malformed``): INVALID_ARGUMENT, ``ErrorInfo`` MALFORMED_REQUEST naming only
  the expected message type, never the parser's text (which may quote the input);
- a response larger than ``Limits.max_send_bytes`` is RESOURCE_EXHAUSTED, as gRPC's
  ``grpc.max_send_message_length`` makes it;
- the watch streams' messages, serialised once per event and seat (``Preserialized``), go out
  as they are in binary, and are parsed once to be written as JSON.

JSON is protobuf's canonical JSON mapping (``lowerCamelCase`` names, as connect-es reads it),
printed and parsed by ``service.connect.protojson`` (``json_format``'s results, faster);
unknown fields are ignored, as the binary format keeps them without looking.
"""

from __future__ import annotations

from typing import Any

import orjson
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.protobuf.message import Message
from protobuf.wkt import Any as WireAny

from service.api.errors import MalformedRequest, map_error
from service.connect.bridge import MalformedMessage, Preserialized, connect_code
from service.connect.protojson import parse, to_dict


def malformed(message_type: type[Any]) -> MalformedMessage:
    """The error native gRPC gives for undecodable request bytes (``map_error``)."""
    name = str(getattr(getattr(message_type, "DESCRIPTOR", None), "full_name", "request"))
    mapped = map_error(MalformedRequest(name))
    assert mapped is not None
    details = [
        ErrorDetail(WireAny(type_url=d.type_url, value=d.value)) for d in mapped.status.details
    ]
    return MalformedMessage(connect_code(mapped.code), mapped.status.message, details)


def too_large(size: int, limit: int) -> ConnectError:
    return ConnectError(
        Code.RESOURCE_EXHAUSTED, f"response message of {size} bytes is larger than {limit}"
    )


class BinaryCodec:
    def __init__(self, max_send_bytes: int) -> None:
        self.max_send_bytes = max_send_bytes

    def name(self) -> str:
        return "proto"

    def encode(self, message: Message | Preserialized) -> bytes:
        data = message.data if isinstance(message, Preserialized) else message.SerializeToString()
        if len(data) > self.max_send_bytes:
            raise too_large(len(data), self.max_send_bytes)
        return data

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        try:
            return message_class.FromString(bytes(data))
        except Exception:
            raise malformed(message_class) from None


class JsonCodec:
    """``trusted_input``: for a client reading this service's answers (``protojson.parse``'s
    ``trusted``); the server reads requests strictly."""

    def __init__(self, max_send_bytes: int, *, trusted_input: bool = False) -> None:
        self.max_send_bytes = max_send_bytes
        self.trusted_input = trusted_input

    def name(self) -> str:
        return "json"

    def encode(self, message: Message | Preserialized) -> bytes:
        if isinstance(message, Preserialized):
            message = message.message_type.FromString(message.data)
        assert isinstance(message, Message)
        # orjson writes what ``json.dumps(…, separators=(",", ":"), ensure_ascii=False)`` does
        # (compact UTF-8; ``to_dict`` has already made NaN, infinities and int64 strings).
        data = orjson.dumps(to_dict(message))
        if len(data) > self.max_send_bytes:
            raise too_large(len(data), self.max_send_bytes)
        return data

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        message = message_class()
        if not data:  # an empty body is the empty message
            return message
        try:
            return parse(bytes(data), message_class, trusted=self.trusted_input)
        except Exception:
            raise malformed(message_class) from None


def codecs(max_send_bytes: int) -> list[Any]:
    return [BinaryCodec(max_send_bytes), JsonCodec(max_send_bytes)]
