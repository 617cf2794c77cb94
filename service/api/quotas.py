"""Per-caller rate limits and quotas, and the server's message-size and stream limits.

Who a caller is, most specific first:

- a verified seat token: that seat of that game (``seat 1 of games/<id>``) — except for game
  creation: creating a game hands out a seat token per seat, so a token must not open a fresh
  creation budget (that would let creations multiply); creations count by peer or auditor;
- a player's verified JWT (``service.app.identity``): ``player <id>``, for creations too (the
  server hands out no JWT, so creating games gives no fresh one);
- the auditor credential: ``auditor``;
- otherwise the peer address without its port: an IPv4 address, or the /64 network of an IPv6
  address (one host usually owns a whole /64, so a single address would be free to rotate).
  An unverified or malformed token counts as no token, so made-up tokens give no fresh budget.

Each caller has two token buckets — game creations, and every other call (commands and reads) —
and two quotas: games created here and not yet finished, and concurrent watch streams
(``WatchGame``, ``WatchGameBatches`` and ``WatchTables`` together).
Over a limit, the call is refused before the method runs (nothing is recorded) with
RESOURCE_EXHAUSTED, ``google.rpc.RetryInfo`` and ``QuotaFailure`` (``service.api.errors``).
Health checks and reflection are not counted. The buckets live in bounded TTL/LRU caches
(``cachetools``): an entry idle long enough to have refilled is dropped, so forgetting it loses
nothing; under a flood of distinct callers the least recently seen are forgotten first.
Counts are per server process: N replicas allow N times the budget.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc
from cachetools import LRUCache, TTLCache

from service.api.auth import AUDITOR_PREFIX, bearer_token, caller_for
from service.api.errors import ResourceExhausted, refuse
from service.api.limits import Limits
from service.api.malformed import MAX_WRAPPED
from service.api.mapping import parse_game_name
from service.app.application import GameNotFound, PreferansApplication
from service.app.identity import looks_like_jwt

CREATE_METHOD = "/preferans.v1.GameService/CreateGame"
CREATE_TABLE_METHOD = "/preferans.v1.TableService/CreateTable"
"""Table openings count in the creations budget, per player (``QuotaInterceptor._create_table``)."""
WATCH_METHODS = frozenset(
    {
        "/preferans.v1.GameService/WatchGame",
        "/preferans.v1.GameService/WatchGameBatches",
        "/preferans.v1.TableService/WatchTables",
    }
)
EXEMPT_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")


# ----------------------------------------------------------------------------------------
# who is calling


def peer_subject(peer: str) -> str:
    """The caller named by a gRPC peer string (``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``, …)."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return f"peer {kind or 'unknown'}"
    host = rest.rsplit(":", 1)[0].strip("[]").split("%", 1)[0]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "peer unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"peer {address.ipv4_mapped}"
        return f"peer {ipaddress.IPv6Network((address, 64), strict=False)}"
    return f"peer {address}"


class CallerIdentity:
    """Names the caller of a call (see the module's docstring)."""

    def __init__(self, app: PreferansApplication, auditor_token: str | None) -> None:
        self.app = app
        self.auditor = f"{AUDITOR_PREFIX}{auditor_token}".encode() if auditor_token else None

    def __call__(self, context: grpc.aio.ServicerContext[Any, Any], *, seats: bool = True) -> str:
        """The caller's name; with ``seats=False`` a seat token does not count (creations)."""
        token = bearer_token(context.invocation_metadata())
        if seats or (token and looks_like_jwt(token)):
            caller = caller_for(context, self.app)
            if caller.player_id is not None:
                return f"player {caller.player_id}"
            if seats and caller.game_id is not None:
                return f"seat {caller.seat} of games/{caller.game_id}"
        if self.auditor is not None and token and hmac.compare_digest(token.encode(), self.auditor):
            return "auditor"
        return peer_subject(context.peer() or "")


# ----------------------------------------------------------------------------------------
# budgets


@dataclass
class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second; each call takes one."""

    rate: float
    capacity: float
    tokens: float
    stamp: float

    def take(self, now: float) -> float:
        """0 if a token was taken, else the seconds until one is available."""
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


class Budget:
    """One token bucket per caller, in a bounded cache; rate 0 means unlimited."""

    def __init__(
        self, what: str, rate: float, burst: int, max_callers: int, clock: Callable[[], float]
    ) -> None:
        self.what = what
        self.rate = rate
        self.capacity = float(max(burst, 1))
        self.clock = clock
        refill = self.capacity / rate if rate > 0 else 1.0
        self.buckets: TTLCache[str, TokenBucket] = TTLCache(
            maxsize=max(max_callers, 1), ttl=refill + 1.0, timer=clock
        )

    def charge(self, caller: str) -> None:
        """Take one token from the caller's bucket, or raise ``ResourceExhausted``."""
        if self.rate <= 0:
            return
        now = self.clock()
        bucket = self.buckets.get(caller)
        if bucket is None:
            bucket = TokenBucket(self.rate, self.capacity, self.capacity, now)
        wait = bucket.take(now)
        self.buckets[caller] = bucket  # (re)stored: an idle entry expires once refilled
        if wait > 0:
            raise ResourceExhausted(caller, f"too many {self.what}", wait)


class Counter:
    """Concurrent uses per caller (streams), bounded by ``limit`` (0: unlimited)."""

    def __init__(self, what: str, limit: int, max_callers: int) -> None:
        self.what = what
        self.limit = limit
        self.counts: LRUCache[str, int] = LRUCache(maxsize=max(max_callers, 1))

    def acquire(self, caller: str, retry_after: float) -> None:
        count = self.counts.get(caller, 0)
        if self.limit and count >= self.limit:
            raise ResourceExhausted(caller, f"at most {self.limit} {self.what}", retry_after)
        self.counts[caller] = count + 1

    def release(self, caller: str) -> None:
        count = self.counts.get(caller, 0) - 1
        if count > 0:
            self.counts[caller] = count
        else:
            self.counts.pop(caller, None)


class OpenGames:
    """The games each caller created here that may still be open (at most ``limit`` each)."""

    def __init__(
        self,
        limit: int,
        max_callers: int,
        still_open: Callable[[list[uuid.UUID]], list[uuid.UUID]],
        executor: ThreadPoolExecutor,
    ) -> None:
        self.limit = limit
        self.still_open = still_open
        self.executor = executor
        self.games: LRUCache[str, set[uuid.UUID]] = LRUCache(maxsize=max(max_callers, 1))
        self.pending: dict[str, int] = {}

    async def reserve(self, caller: str) -> None:
        if not self.limit:
            return
        games = self.games.get(caller, set())
        if len(games) + self.pending.get(caller, 0) >= self.limit and games:
            loop = asyncio.get_running_loop()
            ids = list(games)
            still = await loop.run_in_executor(self.executor, self.still_open, ids)
            games = self.games.get(caller, set()) - (set(ids) - set(still))
            self.games[caller] = games
        if len(games) + self.pending.get(caller, 0) >= self.limit:
            raise ResourceExhausted(
                caller, f"at most {self.limit} open games per caller (finish one first)", 60.0
            )
        self.pending[caller] = self.pending.get(caller, 0) + 1

    def settle(self, caller: str, game_id: uuid.UUID | None) -> None:
        if not self.limit:
            return
        left = self.pending.get(caller, 1) - 1
        if left > 0:
            self.pending[caller] = left
        else:
            self.pending.pop(caller, None)
        if game_id is not None:
            self.games[caller] = {*self.games.get(caller, set()), game_id}


# ----------------------------------------------------------------------------------------
# the interceptor

Behavior = Callable[[Any, Any], Any]
"""A method's implementation: ``(request, context)``."""


class QuotaInterceptor(grpc.aio.ServerInterceptor):
    """Charges every call to its caller's budgets before the method runs."""

    def __init__(
        self,
        limits: Limits,
        identify: CallerIdentity,
        still_open: Callable[[list[uuid.UUID]], list[uuid.UUID]],
        executor: ThreadPoolExecutor,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.identify = identify
        callers = limits.max_callers
        self.creates = Budget(
            "game creations", limits.creates_per_minute / 60.0, limits.create_burst, callers, clock
        )
        self.calls = Budget("calls", limits.calls_per_second, limits.call_burst, callers, clock)
        self.watches = Counter("concurrent watch streams", limits.watch_streams, callers)
        self.open_games = OpenGames(limits.open_games, callers, still_open, executor)
        self._charged: dict[tuple[str, Any], grpc.RpcMethodHandler[Any, Any]] = {}

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or method.startswith(EXEMPT_PREFIXES):
            return handler
        key = (method, handler)
        charged = self._charged.get(key)
        if charged is None:
            charged = self._charging(method, handler)
            if len(self._charged) < MAX_WRAPPED:
                self._charged[key] = charged
        return charged

    def _charging(
        self, method: str, handler: grpc.RpcMethodHandler[Any, Any]
    ) -> grpc.RpcMethodHandler[Any, Any]:
        """``handler`` charging its caller first (built once per method, not per call)."""
        if handler.unary_unary is not None:
            behavior = {CREATE_METHOD: self._create, CREATE_TABLE_METHOD: self._create_table}.get(
                method, self._unary
            )
            return grpc.unary_unary_rpc_method_handler(
                _bind(behavior, handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                _bind_stream(self._stream, handler.unary_stream, method in WATCH_METHODS),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler

    async def _unary(
        self, inner: Behavior, request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> Any:
        if self.calls.rate > 0:  # no caller to name when calls are unlimited
            try:
                self.calls.charge(self.identify(context))
            except ResourceExhausted as exc:
                await refuse(context, exc)
        return await inner(request, context)

    async def _create(
        self, inner: Behavior, request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> Any:
        caller = self.identify(context, seats=False)
        try:
            self.creates.charge(caller)
            await self.open_games.reserve(caller)
        except ResourceExhausted as exc:
            await refuse(context, exc)
        game_id = None
        try:
            response = await inner(request, context)
            game_id = parse_game_name(response.game.name)
            return response
        finally:
            self.open_games.settle(caller, game_id)

    async def _create_table(
        self, inner: Behavior, request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> Any:
        """A table opening is charged to its player's creations budget (to the peer when the
        call proves no player: the method then refuses it as UNAUTHENTICATED)."""
        caller = self.identify(context, seats=False)  # "player <id>" for a JWT
        try:
            self.creates.charge(caller)
        except ResourceExhausted as exc:
            await refuse(context, exc)
        return await inner(request, context)

    async def _stream(
        self,
        inner: Behavior,
        request: Any,
        context: grpc.aio.ServicerContext[Any, Any],
        counted: bool,
    ) -> AsyncIterator[Any]:
        caller = self.identify(context)
        try:
            self.calls.charge(caller)
            if counted:
                self.watches.acquire(caller, retry_after=5.0)
        except ResourceExhausted as exc:
            await refuse(context, exc)
        try:
            async for message in inner(request, context):
                yield message
        finally:
            if counted:
                self.watches.release(caller)


def _bind(
    behavior: Callable[[Behavior, Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]],
    inner: Behavior,
) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]:
    async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        return await behavior(inner, request, context)

    return call


def _bind_stream(
    behavior: Callable[..., AsyncIterator[Any]], inner: Behavior, counted: bool
) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[Any]]:
    # An async generator function itself: grpc.aio tells stream handlers apart by that.
    async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
        async for message in behavior(inner, request, context, counted):
            yield message

    return call


def still_open_games(app: PreferansApplication) -> Callable[[list[uuid.UUID]], list[uuid.UUID]]:
    """Which of some games are not finished (a game that cannot be read counts as closed)."""

    def still_open(ids: list[uuid.UUID]) -> list[uuid.UUID]:
        out = []
        for game_id in ids:
            try:
                if app.get_game(game_id).finished:
                    continue
            except GameNotFound:
                continue
            except Exception:  # unreadable now (the store is down): still counted
                pass
            out.append(game_id)
        return out

    return still_open
