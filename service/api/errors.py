"""Error → gRPC status mapping: the one place that decides what a client sees for each error.

| error | status | details |
|---|---|---|
| ``InvalidAction``, ``BadInput`` | INVALID_ARGUMENT | ``google.rpc.BadRequest`` naming the field |
| ``MalformedRequest`` | INVALID_ARGUMENT | ``ErrorInfo`` MALFORMED_REQUEST (``message_type``) |
| ``GameOver`` | FAILED_PRECONDITION | ``ErrorInfo`` reason GAME_OVER |
| ``VersionNotReached`` | FAILED_PRECONDITION | ``ErrorInfo`` VERSION_NOT_REACHED (``version``) |
| ``NotYourTurn`` | FAILED_PRECONDITION | ``ErrorInfo`` reason NOT_YOUR_TURN, metadata ``to_act`` |
| ``Adjourned`` | FAILED_PRECONDITION | ``ErrorInfo`` reason ADJOURNED (a decision refused) |
| ``BotSeat`` | FAILED_PRECONDITION | ``ErrorInfo`` reason BOT_SEAT (the server's bot plays it) |
| ``AbortRefused`` | FAILED_PRECONDITION | ``ErrorInfo`` reason ABORT_TOO_LATE |
| ``IllegalAction`` | FAILED_PRECONDITION | ``ErrorInfo`` RULES_VIOLATION, metadata ``allowed`` |
| ``LeagueRulesDiffer`` | FAILED_PRECONDITION | ``ErrorInfo`` LEAGUE_RULES, ``league``, ``system`` |
| ``TableRefused`` | FAILED_PRECONDITION | ``ErrorInfo`` its reason (TABLE_FULL, …), ``table`` |
| ``TableNotFound`` | NOT_FOUND | ``ResourceInfo`` (the table) |
| ``NotTableCreator`` | PERMISSION_DENIED | ``ErrorInfo`` reason NOT_TABLE_CREATOR |
| ``GameNotFound`` | NOT_FOUND | ``ResourceInfo`` |
| ``Unauthenticated`` | UNAUTHENTICATED | |
| ``PermissionDenied`` | PERMISSION_DENIED | |
| ``NotCreator`` | PERMISSION_DENIED | ``ErrorInfo`` reason NOT_CREATOR |
| ``Conflict`` | ABORTED | ``ErrorInfo`` reason CONCURRENT_WRITE |
| ``TokensWithheld`` | ALREADY_EXISTS | ``ResourceInfo`` (the game) |
| ``StoreUnavailable`` | UNAVAILABLE | ``RetryInfo`` |
| ``ResourceExhausted`` | RESOURCE_EXHAUSTED | ``RetryInfo``, ``QuotaFailure`` |
"""

from __future__ import annotations

from typing import Any, NamedTuple

import grpc
import structlog
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from domain.model.game import AbortRefused
from domain.model.leaving import Adjourned, BotSeat
from domain.model.table import NotTableCreator, TableRefused
from domain.rules.actions import Claim
from domain.rules.errors import GameOver, IllegalAction, InvalidAction, NotYourTurn
from service.app.application import (
    Conflict,
    GameNotFound,
    LeagueRulesDiffer,
    NotCreator,
    StoreUnavailable,
    TokensWithheld,
)
from service.app.tables import TableNotFound

DOMAIN = "preferans.v1"
log = structlog.get_logger(__name__)


class BadInput(Exception):
    """A request field is malformed."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class MalformedRequest(Exception):
    """The request's bytes are not a valid message of the method's request type."""

    def __init__(self, message_type: str) -> None:
        super().__init__(f"the request is not a valid {message_type} message")
        self.message_type = message_type


class VersionNotReached(Exception):
    """A read asked for a ``min_version`` the game did not reach within the wait."""

    def __init__(self, version: int, min_version: int) -> None:
        super().__init__(
            f"the game is at version {version}; version {min_version} did not arrive in time"
        )
        self.version = version
        self.min_version = min_version


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


class ResourceExhausted(Exception):
    """A caller is over a rate limit or quota (``service.api.quotas``): retry after ``retry_after``
    seconds; ``subject`` names the caller as the server counts it, ``description`` the limit."""

    def __init__(self, subject: str, description: str, retry_after: float) -> None:
        super().__init__(description)
        self.subject = subject
        self.description = description
        self.retry_after = retry_after


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


def _precondition_failed(
    message: str, reason: str, kind: str, subject: str, metadata: dict[str, str] | None = None
) -> Mapped:
    """FAILED_PRECONDITION with ``ErrorInfo`` (``reason``) and one ``PreconditionFailure``
    violation (``kind`` on ``subject``)."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata or {})
    violation = error_details_pb2.PreconditionFailure.Violation(
        type=kind, subject=subject, description=message
    )
    return _status(
        grpc.StatusCode.FAILED_PRECONDITION,
        message,
        info,
        error_details_pb2.PreconditionFailure(violations=[violation]),
    )


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
    if isinstance(error, MalformedRequest):
        info = error_details_pb2.ErrorInfo(
            reason="MALFORMED_REQUEST",
            domain=DOMAIN,
            metadata={"message_type": error.message_type},
        )
        return _status(grpc.StatusCode.INVALID_ARGUMENT, str(error), info)
    if isinstance(error, VersionNotReached):
        info = error_details_pb2.ErrorInfo(
            reason="VERSION_NOT_REACHED",
            domain=DOMAIN,
            metadata={"version": str(error.version), "min_version": str(error.min_version)},
        )
        return _status(grpc.StatusCode.FAILED_PRECONDITION, str(error), info)
    if isinstance(error, GameOver):
        return _precondition_failed(error.message, "GAME_OVER", "GAME_OVER", "game")
    if isinstance(error, NotYourTurn):
        info = error_details_pb2.ErrorInfo(
            reason="NOT_YOUR_TURN",
            domain=DOMAIN,
            metadata={"to_act": str(error.to_act), "seat": str(error.seat)},
        )
        return _status(grpc.StatusCode.FAILED_PRECONDITION, error.message, info)
    if isinstance(error, Adjourned):
        return _precondition_failed(error.message, "ADJOURNED", "ADJOURNED", "game")
    if isinstance(error, BotSeat):
        return _precondition_failed(error.message, "BOT_SEAT", "BOT_SEAT", "seat")
    if isinstance(error, AbortRefused):
        return _precondition_failed(error.message, "ABORT_TOO_LATE", "ABORT", "game")
    if isinstance(error, IllegalAction):
        # As in the seat view: claims are not listed one by one, a flag says they are allowed.
        listed = [str(a) for a in error.allowed if not isinstance(a, Claim)]
        can_claim = len(listed) < len(error.allowed)
        metadata = {"allowed": " | ".join(listed), "can_claim": str(can_claim).lower()}
        return _precondition_failed(error.message, "RULES_VIOLATION", "RULES", "action", metadata)
    if isinstance(error, LeagueRulesDiffer):
        info = error_details_pb2.ErrorInfo(
            reason="LEAGUE_RULES",
            domain=DOMAIN,
            metadata={"league": error.league, "system": error.system},
        )
        return _status(grpc.StatusCode.FAILED_PRECONDITION, str(error), info)
    if isinstance(error, TableRefused):
        return _precondition_failed(error.message, error.reason, "TABLE", "table")
    if isinstance(error, TableNotFound):
        resource = error_details_pb2.ResourceInfo(
            resource_type="table", resource_name=f"tables/{error.table_id}", description=str(error)
        )
        return _status(grpc.StatusCode.NOT_FOUND, str(error), resource)
    if isinstance(error, NotTableCreator):
        info = error_details_pb2.ErrorInfo(reason="NOT_TABLE_CREATOR", domain=DOMAIN)
        return _status(grpc.StatusCode.PERMISSION_DENIED, str(error), info)
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
    if isinstance(error, NotCreator):
        info = error_details_pb2.ErrorInfo(reason="NOT_CREATOR", domain=DOMAIN)
        return _status(grpc.StatusCode.PERMISSION_DENIED, str(error), info)
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
    if isinstance(error, ResourceExhausted):
        seconds = max(error.retry_after, 0.001)
        delay = duration_pb2.Duration(seconds=int(seconds), nanos=int(seconds % 1 * 1e9))
        violation = error_details_pb2.QuotaFailure.Violation(
            subject=error.subject, description=error.description
        )
        return _status(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"{error.description}; retry in {seconds:.1f} s",
            error_details_pb2.RetryInfo(retry_delay=delay),
            error_details_pb2.QuotaFailure(violations=[violation]),
        )
    return None


async def refuse(context: grpc.aio.ServicerContext[Any, Any], error: BaseException) -> None:
    """End the call with the status for ``error`` (INTERNAL, logged, for an unexpected one)."""
    mapped = map_error(error)
    if mapped is None:
        log.exception("unexpected error", exc_info=error)
        await context.abort(grpc.StatusCode.INTERNAL, "internal error")
    else:
        log.info("request refused", **_logged(error, mapped))
        await context.abort_with_status(rpc_status.to_status(mapped.status))


def _logged(error: BaseException, mapped: Mapped) -> dict[str, str]:
    """What a log line says about a refusal: its code and kind; for malformed input also the
    field and our message (which never repeats the input whole; ``service.api.logs`` bounds it).
    Never a rules refusal's message: "you must follow ♠: you hold 7♠ Q♠" names a hidden hand."""
    fields = {"code": mapped.code.name, "kind": type(error).__name__}
    if isinstance(error, (BadInput, InvalidAction)):
        fields.update(field=error.field, reason=error.message)
    return fields
