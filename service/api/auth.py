"""Seat tokens: the authentication interceptor and the check that a token acts for its seat.

A seat token is ``<game id>.<key id>.<seat>.<issued at>.<mac>`` (service/app/keys.py) and travels
as ``authorization: Bearer <token>``; the mac is an HMAC under the named key of the keyring, so
the interceptor checks a token by recomputing it, without touching the store, then checks the
game's revocations (cached for a moment; read off the event loop when not cached). A method
that acts for a seat then asks ``caller.seat_in(game_id)``:

- no token → UNAUTHENTICATED; a token that is malformed, not one this server issued, expired
  or revoked → UNAUTHENTICATED;
- a valid token of another game → PERMISSION_DENIED.
"""

from __future__ import annotations

import asyncio
import contextvars
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from service.api.errors import PermissionDenied, Unauthenticated
from service.app.application import PreferansApplication
from service.app.keys import TokenClaims


@dataclass(frozen=True)
class Caller:
    """Who is calling: a verified seat of one game, or nobody (with the reason)."""

    game_id: uuid.UUID | None = None
    seat: int = -1
    problem: str = "this call needs a seat token: send 'authorization: Bearer <token>'"
    issued_ms: int = -1
    """When the caller's token was issued (ms; -1 for a legacy token): a stream ends when its
    seat is given to another player after that (``ReplacePlayer``)."""
    player_id: str | None = None
    """The verified player (the subject of an OpenID Connect JWT), if the call proved one."""

    def player(self) -> str:
        """The caller's player id, or UNAUTHENTICATED (lobby methods act for a player)."""
        if self.player_id is None:
            raise Unauthenticated("this call needs a player's bearer token (OpenID Connect JWT)")
        return self.player_id

    def seat_in(self, game_id: uuid.UUID) -> int:
        if self.game_id is None:
            raise Unauthenticated(self.problem)
        if self.game_id != game_id:
            raise PermissionDenied("this seat token belongs to another game")
        return self.seat


_CALLER: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("caller", default=None)


AUDITOR_PREFIX = "auditor:"
"""The auditor credential is ``Bearer auditor:<secret>`` (``service.api.audit_servicer``)."""


def bearer_token(metadata: Any) -> str | None:
    """The credential a call carries, read in one place for every check (seat tokens, the
    audit API, the quotas): the token of the first ``authorization`` header; ``""`` if that
    header is not ``Bearer <token>``; ``None`` if the call sends none. Later ``authorization``
    headers are ignored by every check alike."""
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
            scheme, _, token = text.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return None


REVOKED = "the seat token was revoked: ask the game's creator for a new one"
UNCHECKABLE = "the seat token cannot be checked now (the store is unavailable); retry"


def _caller(
    app: PreferansApplication, claims: TokenClaims, revocations: Mapping[int, int]
) -> Caller:
    if app.revoked(claims, revocations):
        return Caller(problem=REVOKED)
    return Caller(claims.game_id, claims.seat, issued_ms=claims.issued_ms)


def verify(app: PreferansApplication, token: str | None) -> Caller:
    """Check a token: signature, key and expiry, then the game's revocations (which may read
    the store: call it off the event loop)."""
    if token is None:
        return Caller()
    claims = app.check_token(token)
    if isinstance(claims, str):
        return Caller(problem=claims)
    try:
        revocations = app.revocations.of_game(claims.game_id)
    except Exception:  # the store is down: refuse, the client retries
        return Caller(problem=UNCHECKABLE)
    return _caller(app, claims, revocations)


async def verify_async(app: PreferansApplication, token: str | None) -> Caller:
    """``verify`` for the event loop: the store is read in a thread, and only when the
    game's revocations are not cached."""
    if token is None:
        return Caller()
    claims = app.check_token(token)
    if isinstance(claims, str):
        return Caller(problem=claims)
    revocations = app.revocations.cached(claims.game_id)
    if revocations is None:
        return await asyncio.to_thread(verify, app, token)
    return _caller(app, claims, revocations)


PlayerVerifier = Callable[[str], str | None]
"""The seam where a player's bearer token is verified: the player id it proves, or ``None``
(the identity part fills it with the JWT verifier; tests give their own)."""


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Verifies the seat token of every call that sends one, before the method runs; a bearer
    token that is not a seat token goes to ``player_verifier`` (if any)."""

    def __init__(
        self, app: PreferansApplication, player_verifier: PlayerVerifier | None = None
    ) -> None:
        self.app = app
        self.player_verifier = player_verifier
        app.keys  # noqa: B018 - load the keyring now: a server without keys must not start

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        token = bearer_token(handler_call_details.invocation_metadata)
        caller = await verify_async(self.app, token)
        if caller.game_id is None and token and self.player_verifier is not None:
            player = self.player_verifier(token)
            if player is not None:
                caller = Caller(player_id=player)
        _CALLER.set(caller)
        return await continuation(handler_call_details)


def caller_for(context: grpc.aio.ServicerContext[Any, Any], app: PreferansApplication) -> Caller:
    """The caller the interceptor verified (verified here if no interceptor ran)."""
    caller = _CALLER.get()
    if caller is None:
        caller = verify(app, bearer_token(context.invocation_metadata()))
    return caller
