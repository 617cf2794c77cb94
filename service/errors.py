"""Error → gRPC status mapping: the one place that decides what a client sees for each error.

| error | status | details |
|---|---|---|
| ``InvalidAction``, ``BadInput`` | INVALID_ARGUMENT | ``google.rpc.BadRequest`` naming the field |
| ``NotYourTurn`` | FAILED_PRECONDITION | ``ErrorInfo`` reason NOT_YOUR_TURN, metadata ``to_act`` |
| ``IllegalAction`` | FAILED_PRECONDITION | ``ErrorInfo`` RULES_VIOLATION, metadata ``allowed`` |
| ``GameNotFound`` | NOT_FOUND | ``ResourceInfo`` |
| ``Unauthenticated`` | UNAUTHENTICATED | |
| ``PermissionDenied`` | PERMISSION_DENIED | |
| ``Conflict`` | ABORTED | ``ErrorInfo`` reason CONCURRENT_WRITE |
| ``TokensWithheld`` | ALREADY_EXISTS | ``ResourceInfo`` (the game) |
| ``StoreUnavailable`` | UNAVAILABLE | ``RetryInfo`` |
"""

from __future__ import annotations

from typing import Any, NamedTuple

import grpc
import structlog
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from domain.rules.actions import Claim
from domain.rules.errors import IllegalAction, InvalidAction, NotYourTurn
from service.application import Conflict, GameNotFound, StoreUnavailable, TokensWithheld

DOMAIN = "preferans.v1"
log = structlog.get_logger(__name__)


class BadInput(Exception):
    """A request field is malformed."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class NotFound(Exception):
    """A resource the request names does not exist (NOT_FOUND with ``ResourceInfo``)."""

    def __init__(self, resource_type: str, resource_name: str, message: str) -> None:
        super().__init__(message)
        self.resource_type = resource_type
        self.resource_name = resource_name


class Unauthenticated(Exception):
    pass


class PermissionDenied(Exception):
    pass


class Mapped(NamedTuple):
    code: grpc.StatusCode
    status: status_pb2.Status


def _pack(message: object) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)  # type: ignore[arg-type]
    return packed


def _status(code: grpc.StatusCode, message: str, *details: object) -> Mapped:
    numeric: int = code.value[0]
    status = status_pb2.Status(code=numeric, message=message)
    status.details.extend(_pack(d) for d in details)
    return Mapped(code, status)


def map_error(error: BaseException) -> Mapped | None:
    """The status for an error the service knows, or ``None`` for an unexpected one."""
    if isinstance(error, (BadInput, InvalidAction)):
        violation = error_details_pb2.BadRequest.FieldViolation(
            field=error.field, description=error.message
        )
        return _status(
            grpc.StatusCode.INVALID_ARGUMENT,
            error.message,
            error_details_pb2.BadRequest(field_violations=[violation]),
        )
    if isinstance(error, NotYourTurn):
        info = error_details_pb2.ErrorInfo(
            reason="NOT_YOUR_TURN",
            domain=DOMAIN,
            metadata={"to_act": str(error.to_act), "seat": str(error.seat)},
        )
        return _status(grpc.StatusCode.FAILED_PRECONDITION, error.message, info)
    if isinstance(error, IllegalAction):
        # As in the seat view: claims are not listed one by one, a flag says they are allowed.
        listed = [str(a) for a in error.allowed if not isinstance(a, Claim)]
        can_claim = len(listed) < len(error.allowed)
        info = error_details_pb2.ErrorInfo(
            reason="RULES_VIOLATION",
            domain=DOMAIN,
            metadata={"allowed": " | ".join(listed), "can_claim": str(can_claim).lower()},
        )
        violation = error_details_pb2.PreconditionFailure.Violation(
            type="RULES", subject="action", description=error.message
        )
        return _status(
            grpc.StatusCode.FAILED_PRECONDITION,
            error.message,
            info,
            error_details_pb2.PreconditionFailure(violations=[violation]),
        )
    if isinstance(error, GameNotFound):
        resource = error_details_pb2.ResourceInfo(resource_type="game", description=str(error))
        return _status(grpc.StatusCode.NOT_FOUND, str(error), resource)
    if isinstance(error, NotFound):
        resource = error_details_pb2.ResourceInfo(
            resource_type=error.resource_type,
            resource_name=error.resource_name,
            description=str(error),
        )
        return _status(grpc.StatusCode.NOT_FOUND, str(error), resource)
    if isinstance(error, Unauthenticated):
        return _status(grpc.StatusCode.UNAUTHENTICATED, str(error))
    if isinstance(error, PermissionDenied):
        return _status(grpc.StatusCode.PERMISSION_DENIED, str(error))
    if isinstance(error, Conflict):
        info = error_details_pb2.ErrorInfo(reason="CONCURRENT_WRITE", domain=DOMAIN)
        return _status(grpc.StatusCode.ABORTED, str(error), info)
    if isinstance(error, TokensWithheld):
        resource = error_details_pb2.ResourceInfo(
            resource_type="game", resource_name=f"games/{error.game_id}"
        )
        return _status(grpc.StatusCode.ALREADY_EXISTS, str(error), resource)
    if isinstance(error, StoreUnavailable):
        retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=1))
        return _status(grpc.StatusCode.UNAVAILABLE, "the game store is unavailable; retry", retry)
    return None


async def refuse(context: grpc.aio.ServicerContext[Any, Any], error: BaseException) -> None:
    """End the call with the status for ``error`` (INTERNAL, logged, for an unexpected one)."""
    mapped = map_error(error)
    if mapped is None:
        log.exception("unexpected error", exc_info=error)
        await context.abort(grpc.StatusCode.INTERNAL, "internal error")
    else:
        log.info("request refused", code=mapped.code.name, reason=mapped.status.message)
        await context.abort_with_status(rpc_status.to_status(mapped.status))
