"""Undecodable request bytes become INVALID_ARGUMENT, for every method of our services.

grpc.aio calls a method's request deserializer before the method runs, and reports whatever it
raises as UNKNOWN with the exception's class and text. ``MalformedRequestInterceptor`` wraps the
deserializer of each unary-request method so that bytes which are not a valid request message
decode to a marker instead; the wrapped method then refuses the call through
``service.api.errors.refuse`` (``MalformedRequest``: a fixed message naming only the expected
message type) before the servicer sees it.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from service.api.errors import MalformedRequest, refuse

OUR_PREFIX = "/preferans.v1."


class _Undecodable:
    """What a request decodes to when its bytes are not a valid message."""

    __slots__ = ()


_UNDECODABLE = _Undecodable()


def _safe(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserializer is None:
        return None

    def decode(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception:  # DecodeError, and anything else a parser may raise
            return _UNDECODABLE

    return decode


def _message_name(handler: Any) -> str:
    deserializer = handler.request_deserializer
    owner = getattr(deserializer, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    return str(getattr(descriptor, "full_name", "request"))


def _guarded(handler: Any) -> Any:
    """``handler`` with a deserializer that never raises and a behaviour that refuses the
    marker; handlers with streaming requests are left as they are."""
    if handler.request_streaming:
        return handler
    expected = _message_name(handler)
    problem = MalformedRequest(expected)
    if handler.response_streaming:
        behaviour = handler.unary_stream
        if inspect.isasyncgenfunction(behaviour):

            async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
                if request is _UNDECODABLE:
                    await refuse(context, problem)
                    return
                async for message in behaviour(request, context):
                    yield message

            guarded_stream: Any = stream
        else:

            async def writer(request: Any, context: Any) -> Any:
                if request is _UNDECODABLE:
                    await refuse(context, problem)
                    return None
                return await behaviour(request, context)

            guarded_stream = writer
        return handler._replace(
            request_deserializer=_safe(handler.request_deserializer), unary_stream=guarded_stream
        )
    unary = handler.unary_unary

    async def call(request: Any, context: Any) -> Any:
        if request is _UNDECODABLE:
            await refuse(context, problem)
            return None
        result = unary(request, context)
        return await result if inspect.isawaitable(result) else result

    return handler._replace(
        request_deserializer=_safe(handler.request_deserializer), unary_unary=call
    )


MAX_WRAPPED = 1024
"""Wrapped handlers an interceptor keeps (one per method: the servicers' handlers never change)."""


class MalformedRequestInterceptor(grpc.aio.ServerInterceptor):
    """Refuses undecodable requests to ``preferans.v1`` methods with INVALID_ARGUMENT."""

    def __init__(self) -> None:
        self._guarded: dict[Any, Any] = {}
        """Each method's handler, wrapped once (not per call)."""

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method or ""
        if handler is None or not method.startswith(OUR_PREFIX):
            return handler
        guarded = self._guarded.get(handler)
        if guarded is None:
            guarded = _guarded(handler)
            if len(self._guarded) < MAX_WRAPPED:
                self._guarded[handler] = guarded
        return guarded  # type: ignore[no-any-return]
