"""Structured logs with ``structlog``: JSON when not on a terminal, pretty on a terminal.

Every request gets a request id bound into the context (the client's ``x-request-id`` metadata,
else a fresh one), so every line logged while serving it carries it.
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import structlog

_configured = False


def configure(level: str = "info", *, json: bool | None = None) -> None:
    global _configured
    if _configured:
        return
    _configured = True
    as_json = not sys.stderr.isatty() if json is None else json
    processors: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer() if as_json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[*processors, structlog.processors.format_exc_info, renderer],
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
        metadata = dict(handler_call_details.invocation_metadata or ())
        request_id = metadata.get("x-request-id") or uuid.uuid4().hex
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(
            request_id=str(request_id), method=handler_call_details.method
        )
        return await continuation(handler_call_details)
