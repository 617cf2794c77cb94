"""Seat tokens: the authentication interceptor and the check that a token acts for its seat.

A seat token is ``<game id>.<key id>.<seat>.<issued at>.<mac>`` (service/app/keys.py) and travels
as ``authorization: Bearer <token>``; the mac is an HMAC under the named key of the keyring, so
the interceptor checks a token by recomputing it, without touching the store, then checks the
game's revocations (cached for a moment; read off the event loop when not cached). A method
that acts for a seat then asks ``caller.seat_in(game_id)``:

- no token → UNAUTHENTICATED; a token that is malformed, not one this server issued, expired
  or revoked → UNAUTHENTICATED;
- a valid token of another game → PERMISSION_DENIED.

A JWT (three dot-separated parts, where a seat token has five) proves a *player*
(``service.app.identity``): the interceptor fills ``Caller.player_id`` with its subject, the
key set fetched off the event loop when it is not cached. Such a caller acts at every game where
it sits: ``caller.seat_at(game_id, game.players)`` is the seat whose current player (changed
by ``ReplacePlayer``) is the subject, PERMISSION_DENIED where it does not sit. Lobby methods
ask ``caller.player()``. A JWT that fails a check → UNAUTHENTICATED saying which.
"""

from __future__ import annotations

import asyncio
import contextvars
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import structlog

from service.api.errors import PermissionDenied, Unauthenticated
from service.app.application import PreferansApplication
from service.app.devissuer import WARNING as DEV_WARNING
from service.app.identity import TokenRefused, looks_like_jwt
from service.app.keys import TokenClaims

NO_TOKEN = "this call needs a seat token: send 'authorization: Bearer <token>'"
NEEDS_PLAYER = "this call needs a player's token (a JWT): send 'authorization: Bearer <JWT>'"
NOT_SEATED = "you do not sit at this game"


@dataclass(frozen=True)
class Caller:
    """Who is calling: a verified seat of one game, a verified player (JWT), or nobody (with
    the reason)."""

    game_id: uuid.UUID | None = None
    seat: int = -1
    problem: str = NO_TOKEN
    issued_ms: int = -1
    """When the caller's token was issued (ms; -1 for a legacy token): a stream ends when its
    seat is given to another player after that (``ReplacePlayer``)."""
    player_id: str | None = None
    """The player a verified JWT names (its subject); ``None`` for a seat token or nobody."""

    def seat_in(self, game_id: uuid.UUID) -> int:
        """The seat of a seat token at ``game_id`` (a player's JWT names no seat: ``seat_at``)."""
        if self.game_id is None:
            raise Unauthenticated(self.problem)
        if self.game_id != game_id:
            raise PermissionDenied("this seat token belongs to another game")
        return self.seat

    def seat_at(self, game_id: uuid.UUID, players: Sequence[str]) -> int:
        """The caller's seat at ``game_id``, whose current players are ``players``: a seat
        token's seat, or the seat of the JWT's player (PERMISSION_DENIED where it does not
        sit; a player sits at most once at a game)."""
        if self.player_id is None:
            return self.seat_in(game_id)
        for seat, player in enumerate(players):
            if player == self.player_id:
                return seat
        raise PermissionDenied(NOT_SEATED)

    def player(self) -> str:
        """The player a JWT proves, or UNAUTHENTICATED (for the lobby's methods)."""
        if self.player_id is not None:
            return self.player_id
        if self.game_id is not None:
            raise Unauthenticated(f"{NEEDS_PLAYER}; a seat token names a seat, not a player")
        raise Unauthenticated(NEEDS_PLAYER if self.problem == NO_TOKEN else self.problem)


log = structlog.get_logger(__name__)
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
GIVEN_AWAY = "your seat was given to another player: you no longer sit at this game"
UNCHECKABLE = "the seat token cannot be checked now (the store is unavailable); retry"


def _caller(
    app: PreferansApplication, claims: TokenClaims, revocations: Mapping[int, int]
) -> Caller:
    if app.revoked(claims, revocations):
        return Caller(problem=REVOKED)
    return Caller(claims.game_id, claims.seat, issued_ms=claims.issued_ms)


def _player(app: PreferansApplication, token: str) -> Caller:
    """A JWT's caller (may fetch the issuer's keys: off the event loop unless ``ready``)."""
    try:
        return Caller(player_id=app.identity.verify(token))
    except TokenRefused as exc:
        return Caller(problem=str(exc))


def verify(app: PreferansApplication, token: str | None) -> Caller:
    """Check a token: signature, key and expiry, then the game's revocations (which may read
    the store: call it off the event loop); a JWT with ``service.app.identity``."""
    if token is None:
        return Caller()
    if looks_like_jwt(token):
        return _player(app, token)
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
    game's revocations are not cached; a JWT's issuer keys likewise."""
    if token is None:
        return Caller()
    if looks_like_jwt(token):
        if app.identity.ready(token):
            return _player(app, token)
        return await asyncio.to_thread(_player, app, token)
    claims = app.check_token(token)
    if isinstance(claims, str):
        return Caller(problem=claims)
    revocations = app.revocations.cached(claims.game_id)
    if revocations is None:
        return await asyncio.to_thread(verify, app, token)
    return _caller(app, claims, revocations)


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Verifies the seat token of every call that sends one, before the method runs."""

    def __init__(self, app: PreferansApplication) -> None:
        self.app = app
        app.keys  # noqa: B018 - load the keyring now: a server without keys must not start
        if app.identity.dev:  # and the issuers: a bad configuration stops it too
            log.warning(DEV_WARNING)

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        token = bearer_token(handler_call_details.invocation_metadata)
        _CALLER.set(await verify_async(self.app, token))
        return await continuation(handler_call_details)


def caller_for(context: grpc.aio.ServicerContext[Any, Any], app: PreferansApplication) -> Caller:
    """The caller the interceptor verified (verified here if no interceptor ran)."""
    caller = _CALLER.get()
    if caller is None:
        caller = verify(app, bearer_token(context.invocation_metadata()))
    return caller


def current_player() -> str:
    """The player the interceptor verified for this call (a JWT's subject), or
    UNAUTHENTICATED (``Caller.player``); for read models that default to "me"."""
    return (_CALLER.get() or Caller()).player()
