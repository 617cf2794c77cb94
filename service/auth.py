"""Seat tokens: the authentication interceptor and the check that a token acts for its seat.

A seat token is ``<game id>.<secret>`` and travels as ``authorization: Bearer <token>``; the
secret is an HMAC of the game id and the seat under the server's key, so the interceptor checks
a token by recomputing it, without touching the store. (The game's creation event also records
each token's SHA-256, so a token can be checked from the log alone.) A method that acts for a
seat then asks ``caller.seat_in(game_id)``:

- no token → UNAUTHENTICATED; a token that is malformed or not one this server issued →
  UNAUTHENTICATED;
- a valid token of another game → PERMISSION_DENIED.
"""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from service.application import PreferansApplication
from service.errors import PermissionDenied, Unauthenticated


@dataclass(frozen=True)
class Caller:
    """Who is calling: a verified seat of one game, or nobody (with the reason)."""

    game_id: uuid.UUID | None = None
    seat: int = -1
    problem: str = "this call needs a seat token: send 'authorization: Bearer <token>'"

    def seat_in(self, game_id: uuid.UUID) -> int:
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
    """Check a token (pure computation: no store access)."""
    if token is None:
        return Caller()
    game_text, dot, _ = token.partition(".")
    try:
        if not dot:
            raise ValueError(token)
        game_id = uuid.UUID(game_text)
    except ValueError:
        return Caller(problem="the seat token is malformed")
    seat = app.seat_of_token(game_id, token)
    if seat is None:
        return Caller(problem="the seat token is not valid")
    return Caller(game_id, seat)


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Verifies the seat token of every call that sends one, before the method runs."""

    def __init__(self, app: PreferansApplication) -> None:
        self.app = app

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        _CALLER.set(verify(self.app, _bearer(handler_call_details.invocation_metadata)))
        return await continuation(handler_call_details)


def caller_for(context: grpc.aio.ServicerContext[Any, Any], app: PreferansApplication) -> Caller:
    """The caller the interceptor verified (verified here if no interceptor ran)."""
    caller = _CALLER.get()
    if caller is None:
        caller = verify(app, _bearer(context.invocation_metadata()))
    return caller
