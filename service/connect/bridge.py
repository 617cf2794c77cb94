"""Connect calls run by the gRPC servicers, behind the gRPC server's own interceptors.

A Connect call to ``/preferans.v1.<Service>/<Method>`` is answered by the same method handler
the native gRPC server registered for that path, reached through the very same interceptor
objects, in the same order (``GrpcMethods.resolve`` runs their ``intercept_service`` chain as
grpc.aio does): the request id and its log context, the caller's verified token, the quotas
and budgets (shared with native gRPC callers: one budget per caller whichever protocol it
speaks), and the malformed-request guard. The method then runs with ``BridgeContext``, which
answers what the servicers ask of a ``grpc.aio.ServicerContext``: the HTTP headers as
invocation metadata, the peer, ``done``, and ``abort``/``abort_with_status``, whose status and
``google.rpc.Status`` details become the Connect error and its details unchanged.

The generated Connect applications (``service.gen.preferans.v1.*_connect``) call the service
object's snake_case methods; ``Bridge`` answers every one of them by the method named in the
request context, so no method is written twice.
"""

from __future__ import annotations

import base64
import contextvars
import functools
import ipaddress
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, NoReturn

import grpc
import structlog
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import StreamType
from connectrpc.request import RequestContext
from google.rpc import status_pb2
from protobuf.wkt import Any as WireAny

from service.api.logs import request_id_from
from service.app import validation

log = structlog.get_logger(__name__)

DETAILS_KEY = "grpc-status-details-bin"
"""Where a gRPC status carries its ``google.rpc.Status`` (``grpc_status.rpc_status``)."""
HIDDEN_HEADERS = frozenset({"cookie", "host", "content-length", "connection"})
"""HTTP headers that are transport, not call metadata (the page sends no cookie)."""


_REACHED: contextvars.ContextVar[bool] = contextvars.ContextVar("reached", default=False)
"""Whether this call reached the servicers (which log their own refusals)."""


class MalformedMessage(ConnectError):
    """The request body is not the method's request message (``service.connect.codecs``)."""


class RequestIds:
    """A Connect metadata interceptor, run before the request body is read: binds the call's
    request id and method to the log context as ``service.api.logs.RequestIdInterceptor``
    does, and writes the id it chose into the ``x-request-id`` header, so that the gRPC
    interceptors, which run later for the same call, bind the very same id. A call refused
    before it reaches the servicers (a body that is not the request message, or too large) is
    logged here, as the servicers log theirs."""

    async def on_start(self, ctx: RequestContext[Any, Any]) -> None:
        headers = ctx.request_headers
        request_id = request_id_from([("x-request-id", headers.get("x-request-id", ""))])
        headers["x-request-id"] = request_id
        method = f"/{ctx.method.service_name}/{ctx.method.name}"
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(
            request_id=request_id, method=validation.bounded(method)
        )
        _REACHED.set(False)

    async def on_end(
        self, token: None, ctx: RequestContext[Any, Any], error: Exception | None, /
    ) -> None:
        if isinstance(error, ConnectError) and not _REACHED.get():
            kind = "MalformedRequest" if isinstance(error, MalformedMessage) else "transport"
            log.info("request refused", code=error.code.name, kind=kind)


class Preserialized(NamedTuple):
    """A stream message the servicer sent as bytes (``PRESERIALIZED`` methods): the binary
    codec sends them as they are, the JSON codec parses them as ``message_type`` first."""

    data: bytes
    message_type: type[Any]


class Aborted(grpc.aio.AbortError):
    """Raised by ``BridgeContext.abort``: an ``AbortError``, so the servicers pass it on
    untouched as they do grpc.aio's, carrying the Connect error it becomes."""

    def __init__(self, error: ConnectError) -> None:
        super().__init__(error.message)
        self.error = error


def connect_code(code: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status code (the same names; CANCELLED is CANCELED)."""
    if code is grpc.StatusCode.CANCELLED:
        return Code.CANCELED
    return Code[code.name]


def _details(trailing_metadata: Iterable[tuple[str, Any]] | None) -> list[ErrorDetail]:
    """The ``google.rpc.Status`` details a status's trailing metadata carries, as they are."""
    for key, value in trailing_metadata or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            return [
                ErrorDetail(WireAny(type_url=d.type_url, value=d.value)) for d in status.details
            ]
    return []


def connect_error(
    code: grpc.StatusCode, message: str, trailing_metadata: Iterable[tuple[str, Any]] | None = ()
) -> ConnectError:
    return ConnectError(connect_code(code), message or "", _details(trailing_metadata))


def peer_of(address: str | None) -> str:
    """A gRPC peer string (``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``) for an HTTP client's
    ``host:port``, so the quotas name an anonymous caller as they name a native one."""
    if not address:
        return "unknown"
    host, _, port = address.rpartition(":")
    try:
        parsed = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return "unknown"
    if isinstance(parsed, ipaddress.IPv6Address):
        return f"ipv6:[{parsed}]:{port}"
    return f"ipv4:{parsed}:{port}"


def metadata_of(ctx: RequestContext[Any, Any]) -> tuple[tuple[str, str | bytes], ...]:
    """The request's headers as gRPC invocation metadata (``-bin`` values base64-decoded, as
    gRPC-Web and Connect clients send them)."""
    metadata: list[tuple[str, str | bytes]] = []
    for key, value in ctx.request_headers.allitems():
        name = key.lower()
        if name in HIDDEN_HEADERS:
            continue
        if name.endswith("-bin"):
            try:
                metadata.append((name, base64.b64decode(value + "==", validate=False)))
            except ValueError:
                continue
        else:
            metadata.append((name, value))
    return tuple(metadata)


class BridgeContext:
    """What the servicers and interceptors ask of a ``grpc.aio.ServicerContext``."""

    def __init__(self, metadata: tuple[tuple[str, str | bytes], ...], peer: str) -> None:
        self._metadata = metadata
        self._peer = peer
        self.finished = False

    def invocation_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def done(self) -> bool:
        return self.finished

    def cancelled(self) -> bool:
        return self.finished

    async def abort(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing_metadata: Sequence[tuple[str, Any]] = (),
    ) -> NoReturn:
        raise Aborted(connect_error(code, details, trailing_metadata))

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        raise Aborted(connect_error(status.code, status.details, status.trailing_metadata))

    def set_trailing_metadata(self, trailing_metadata: Sequence[tuple[str, Any]]) -> None:
        """Nothing the servicers set reaches a Connect client (they set none)."""


class _CallDetails(NamedTuple):
    """``grpc.HandlerCallDetails`` as the interceptors read it."""

    method: str
    invocation_metadata: tuple[tuple[str, str | bytes], ...]


Continuation = Callable[[Any], Awaitable[Any]]


class GrpcMethods:
    """The native server's method handlers by path, reached through its interceptors."""

    def __init__(
        self,
        handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]],
        interceptors: Sequence[grpc.aio.ServerInterceptor],
    ) -> None:
        self.handlers = dict(handlers)
        self.interceptors = tuple(interceptors)

    async def _terminal(self, details: _CallDetails) -> grpc.RpcMethodHandler[Any, Any] | None:
        return self.handlers.get(details.method)

    async def resolve(
        self, method: str, metadata: tuple[tuple[str, str | bytes], ...]
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        """The handler of ``method`` as the interceptors make it for this call (they bind the
        request id, verify the token: per call, in the calling task's context)."""
        continuation: Continuation = self._terminal
        for interceptor in reversed(self.interceptors):
            continuation = functools.partial(interceptor.intercept_service, continuation)
        return await continuation(_CallDetails(method, metadata))  # type: ignore[no-any-return]


UNEXPECTED = "unexpected error"


class Bridge:
    """The service object of every generated Connect application: each snake_case method the
    application asks for runs the gRPC method the call's ``MethodInfo`` names."""

    def __init__(self, methods: GrpcMethods) -> None:
        self.methods = methods

    def __getattr__(self, name: str) -> Callable[[Any, RequestContext[Any, Any]], Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.call

    def call(self, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        if ctx.method.stream_type is StreamType.SERVER_STREAM:
            return self._stream(request, ctx)
        return self._unary(request, ctx)

    async def _start(
        self, ctx: RequestContext[Any, Any]
    ) -> tuple[grpc.RpcMethodHandler[Any, Any], BridgeContext]:
        path = f"/{ctx.method.service_name}/{ctx.method.name}"
        _REACHED.set(True)
        context = BridgeContext(metadata_of(ctx), peer_of(ctx.client_address))
        handler = await self.methods.resolve(path, context.invocation_metadata())
        if handler is None:
            raise ConnectError(Code.UNIMPLEMENTED, f"method {path} is not implemented")
        return handler, context

    async def _unary(self, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        handler, context = await self._start(ctx)
        try:
            behaviour: Any = handler.unary_unary
            return await behaviour(request, context)
        except Aborted as exc:
            raise exc.error from None
        except Exception:
            log.exception(UNEXPECTED)
            raise ConnectError(Code.UNKNOWN, UNEXPECTED) from None
        finally:
            context.finished = True

    async def _stream(self, request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        handler, context = await self._start(ctx)
        preserialized = handler.response_serializer is None
        output = ctx.method.output
        behaviour: Any = handler.unary_stream
        stream: AsyncIterator[Any] = behaviour(request, context)
        try:
            async for message in stream:
                if preserialized and isinstance(message, bytes):
                    yield Preserialized(message, output)
                else:
                    yield message
        except Aborted as exc:
            raise exc.error from None
        except ConnectError:
            raise
        except Exception:
            log.exception(UNEXPECTED)
            raise ConnectError(Code.UNKNOWN, UNEXPECTED) from None
        finally:
            context.finished = True
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
