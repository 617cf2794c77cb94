"""Structured logs with ``structlog``: JSON when not on a terminal, pretty on a terminal.

Every request gets a request id bound into the context (the client's ``x-request-id`` metadata
when it passes ``service.app.validation.request_id``, else a fresh one), so every line logged while
serving it carries it.

A safety net runs last before rendering (``bound_values``): every string value is escaped and cut
to ``service.app.validation.MAX_LOGGED`` characters (tracebacks to ``MAX_LOGGED_TRACEBACK``), and
values under credential-like keys are replaced by ``[redacted]``. So no log line holds unbounded
client input or a token, whatever a caller passes; what callers pass is still their business
(``service.api.errors.refuse`` never logs a rules refusal's message: it names the seat's cards).
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import structlog

from domain.rules.errors import InvalidAction
from service.app import validation

MAX_LOGGED_TRACEBACK = 4000
"""Longest traceback a log line holds (its end, where the exception is, is kept)."""
MAX_LOGGED_TRACEBACK_LINE = 300
REDACTED_KEYS = frozenset(
    {"authorization", "token", "tokens", "seat_token", "seat_tokens", "secret", "password", "key"}
)
"""Keys whose values are never written (credentials), whatever they hold."""
_configured = False


def _bounded(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return validation.bounded(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (list, tuple)) and depth < 2:
        shown = [_bounded(v, depth + 1) for v in value[:20]]
        return [*shown, f"…[{len(value)} items]"] if len(value) > 20 else shown
    if isinstance(value, dict) and depth < 2:
        return {
            validation.bounded(str(k)): _bounded(v, depth + 1) for k, v in list(value.items())[:20]
        }
    return validation.bounded(repr(value))


def _bounded_traceback(text: str) -> str:
    """Each line bounded, and the end of the whole (where the exception is) kept."""
    lines = "\n".join(
        validation.bounded(line, MAX_LOGGED_TRACEBACK_LINE) for line in text.split("\n")
    )
    cut = lines[-MAX_LOGGED_TRACEBACK:]
    return cut if len(cut) == len(lines) else f"…[{len(text)} chars] {cut}"


def bound_values(_logger: Any, _method: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """The structlog processor that bounds every value and redacts credentials (see above)."""
    for key, value in event_dict.items():
        if key.lower() in REDACTED_KEYS:
            event_dict[key] = "[redacted]"
        elif key == "exception" and isinstance(value, str):
            event_dict[key] = _bounded_traceback(value)
        else:
            event_dict[key] = _bounded(value)
    return event_dict


def processors(*, json: bool) -> list[Any]:
    """The server's processor chain, ending in the JSON or the console renderer."""
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if json
        else structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback)
    )
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        bound_values,
        renderer,
    ]


def configure(level: str = "info", *, json: bool | None = None) -> None:
    global _configured
    if _configured:
        return
    _configured = True
    as_json = not sys.stderr.isatty() if json is None else json
    structlog.configure(
        processors=processors(json=as_json),
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )


class RequestIdInterceptor(grpc.aio.ServerInterceptor):
    """Binds a request id and the method to the log context of every call."""

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        request_id = request_id_from(handler_call_details.invocation_metadata)
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(
            request_id=request_id, method=validation.bounded(str(handler_call_details.method))
        )
        return await continuation(handler_call_details)


def request_id_from(metadata: Any) -> str:
    """The client's ``x-request-id`` if it is a good request id, else a fresh one."""
    for key, value in metadata or ():
        if key == "x-request-id":
            text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
            try:
                return validation.request_id(text, "x-request-id")
            except InvalidAction:
                break
    return uuid.uuid4().hex
