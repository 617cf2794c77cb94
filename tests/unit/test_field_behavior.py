"""``google.api.field_behavior`` on the contract (issue 14 item 7): every field of every
service's requests says REQUIRED or OPTIONAL, seat numbers excepted (proto3 cannot tell seat 0
from unset: game.proto's header); the structured twins are OUTPUT_ONLY."""

from __future__ import annotations

import pytest
from google.api import field_behavior_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor, ServiceDescriptor

from service.gen.preferans.v1 import audit_pb2, ledger_pb2, stats_pb2
from service.gen.preferans.v1 import game_pb2 as pb

SERVICES = [
    service
    for module in (pb, stats_pb2, audit_pb2, ledger_pb2)
    for service in module.DESCRIPTOR.services_by_name.values()
]
TWINS = ("_value", "_values")


def _twin(field: FieldDescriptor) -> bool:
    """A structured twin: a Card or Bid field named ``…_value(s)``, or a ``deal_kind``."""
    structured = field.message_type is not None and field.message_type.name in ("Card", "Bid")
    return (structured and field.name.endswith(TWINS)) or field.name == "deal_kind"


def _behavior(field: FieldDescriptor) -> list[int]:
    return list(field.GetOptions().Extensions[field_behavior_pb2.field_behavior])


@pytest.mark.parametrize("service", SERVICES, ids=lambda s: s.name)
def test_every_request_field_but_a_seat_says_required_or_optional(
    service: ServiceDescriptor,
) -> None:
    requests: set[Descriptor] = {method.input_type for method in service.methods}
    assert len(requests) == len(service.methods)
    allowed = {field_behavior_pb2.REQUIRED, field_behavior_pb2.OPTIONAL}
    for request in requests:
        for field in request.fields:
            behavior = _behavior(field)
            if field.name == "seat":
                assert behavior == [], f"{request.name}.seat"
                continue
            assert len(behavior) == 1 and behavior[0] in allowed, f"{request.name}.{field.name}"


def test_every_structured_twin_is_output_only() -> None:
    twins = [
        field
        for message in pb.DESCRIPTOR.message_types_by_name.values()
        for field in message.fields
        if (field.name.endswith(TWINS) and field.message_type is not None)
        or field.name == "deal_kind"
    ]
    assert len(twins) >= 20
    for field in twins:
        assert _behavior(field) == [field_behavior_pb2.OUTPUT_ONLY], field.full_name
