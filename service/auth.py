"""Seat tokens: the authentication interceptor and the check that a token acts for its seat.

A seat token is ``<game id>.<secret>`` and travels as ``authorization: Bearer <token>``. The
interceptor verifies it (its hash must be the one the game recorded for a seat) before the
method runs and keeps the result in a context variable; a method that acts for a seat then asks
``caller.seat_in(game_id)``:

- no token → UNAUTHENTICATED; a token that is malformed, unknown, or not one of the game's →
  UNAUTHENTICATED;
- a valid token of another game → PERMISSION_DENIED.
"""

from __future__ import annotations

import asyncio
import contextvars
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc

from service.application import GameNotFound, PreferansApplication
from service.errors import PermissionDenied, Unauthenticated


@dataclass(frozen=True)
class Caller:
    """Who is calling: a verified seat of one game, or nobody (with the reason)."""

    game_id: uuid.UUID | None = None
    seat: int = -1
    problem: str = "this call needs a seat token: send 'authorization: Bearer <token>'"
    error: Exception | None = None
    """The token could not be checked (e.g. the store is down): raised by ``seat_in``, so that
    the method maps it to its status like any other error."""

    def seat_in(self, game_id: uuid.UUID) -> int:
        if self.error is not None:
            raise self.error
        if self.game_id is None:
            raise Unauthenticated(self.problem)
        if self.game_id != game_id:
            raise PermissionDenied("this seat token belongs to another game")
        return self.seat


_CALLER: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("caller", default=None)


def _bearer(metadata: Any) -> str | None:
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode() if isinstance(value, bytes) else str(value)
            scheme, _, token = text.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return None


def verify(app: PreferansApplication, token: str | None) -> Caller:
    """Check a token against the store (synchronous: run it in the executor)."""
    if token is None:
        return Caller()
    game_text, dot, _ = token.partition(".")
    try:
        if not dot:
            raise ValueError(token)
        game_id = uuid.UUID(game_text)
    except ValueError:
        return Caller(problem="the seat token is malformed")
    try:
        seat = app.authenticate(game_id, token)
    except GameNotFound:
        return Caller(problem="the seat token is not valid")
    if seat is None:
        return Caller(problem="the seat token is not valid")
    return Caller(game_id, seat)


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Verifies the seat token of every call that sends one, before the method runs."""

    def __init__(self, app: PreferansApplication, executor: ThreadPoolExecutor) -> None:
        self.app = app
        self.executor = executor

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        token = _bearer(handler_call_details.invocation_metadata)
        if token is None:
            _CALLER.set(Caller())
        else:
            loop = asyncio.get_running_loop()
            try:
                caller = await loop.run_in_executor(self.executor, verify, self.app, token)
            except Exception as exc:  # raised by the method, which maps it to a status
                caller = Caller(error=exc)
            _CALLER.set(caller)
        return await continuation(handler_call_details)


async def caller_for(
    context: grpc.aio.ServicerContext[Any, Any],
    app: PreferansApplication,
    executor: ThreadPoolExecutor,
) -> Caller:
    """The caller the interceptor verified (verified here if no interceptor ran)."""
    caller = _CALLER.get()
    if caller is None:
        loop = asyncio.get_running_loop()
        caller = await loop.run_in_executor(
            executor, verify, app, _bearer(context.invocation_metadata())
        )
    return caller
