"""The ``GameService`` servicer: convert, authorise, delegate to the application, convert back.

The application is synchronous; every call into it runs in a bounded thread pool so the event
loop never blocks. Errors are mapped to statuses in ``service.errors`` only.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
import structlog

from domain.model import Game
from projections import queries
from projections.runner import ProjectionWorker
from service.application import PreferansApplication
from service.auth import caller_for
from service.errors import BadInput, refuse
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import game_pb2_grpc
from service.hub import EventHub
from service.mapping import (
    Visibility,
    action_from_proto,
    game_to_proto,
    parse_game_name,
    rules_from_proto,
    scoresheet_to_proto,
    seat_view_to_proto,
    watch_message,
)

T = TypeVar("T")
log = structlog.get_logger(__name__)
MAX_WAIT_SECONDS = 5.0
_STATUS = {"playing": pb.GAME_STATUS_PLAYING, "finished": pb.GAME_STATUS_FINISHED}
SAFETY_POLL_SECONDS = 1.0


Handler = Callable[[Any, Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]


def refusing(method: Handler) -> Handler:
    """Turn a unary method's errors into statuses (``service.errors``), in one place."""

    @functools.wraps(method)
    async def wrapper(
        self: Delegating, request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> Any:
        try:
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            await self._fail(context, exc)
            raise

    return wrapper


class Delegating:
    """What every servicer shares: the application's thread pool, and refusals as statuses."""

    executor: ThreadPoolExecutor

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, lambda: fn(*args))

    async def _fail(
        self, context: grpc.aio.ServicerContext[Any, Any], error: BaseException
    ) -> None:
        await refuse(context, error)


class GameServicer(Delegating, game_pb2_grpc.GameServiceServicer):
    def __init__(
        self,
        app: PreferansApplication,
        executor: ThreadPoolExecutor,
        hub: EventHub,
        projections: ProjectionWorker | None = None,
    ) -> None:
        self.app = app
        self.executor = executor
        self.hub = hub
        self.projections = projections

    # -- plumbing -------------------------------------------------------------------------

    def _seat(self, context: grpc.aio.ServicerContext[Any, Any], game_id: uuid.UUID) -> int:
        return caller_for(context, self.app).seat_in(game_id)

    async def _read(self, game_id: uuid.UUID, then: Callable[[Game], T], min_version: int = 0) -> T:
        """``then(game)`` in one trip to the thread pool; with ``min_version``, wait (briefly)
        until the game has reached it (read-your-writes, also across replicas)."""
        deadline = time.monotonic() + MAX_WAIT_SECONDS
        while True:
            read: tuple[int, T] = await self._run(self.app.read_game, game_id, then, min_version)
            if read[0] >= min_version or time.monotonic() >= deadline:
                return read[1]
            wake = self.hub.register(game_id)
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=0.2)
            finally:
                self.hub.unregister(game_id, wake)

    # -- methods --------------------------------------------------------------------------

    @refusing
    async def CreateGame(
        self, request: pb.CreateGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.CreateGameResponse:
        if len(request.players) != 3:
            raise BadInput("players", "a game needs exactly three players")
        rules = rules_from_proto(request.rules)
        players = [p.player_id for p in request.players]
        created = await self._run(
            lambda: self.app.create_game(
                players,
                request_id=request.request_id,
                rules=rules,
                league=request.league,
                creator_secret=request.creator_secret,
            )
        )
        game = await self._read(created.game_id, game_to_proto)
        self.after_write(created.game_id)
        return pb.CreateGameResponse(game=game, seat_tokens=list(created.tokens))

    @refusing
    async def JoinGame(
        self, request: pb.JoinGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.JoinGameResponse:
        game_id = parse_game_name(request.name)
        seat = self._seat(context, game_id)
        player, game = await self._read(game_id, lambda g: (g.players[seat], game_to_proto(g)))
        return pb.JoinGameResponse(seat=seat, player=pb.Player(player_id=player), game=game)

    @refusing
    async def GetGame(
        self, request: pb.GetGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetGameResponse:
        game_id = parse_game_name(request.name)
        return pb.GetGameResponse(
            game=await self._read(game_id, game_to_proto, request.min_version)
        )

    @refusing
    async def ListGames(
        self, request: pb.ListGamesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListGamesResponse:
        size = request.page_size or 50
        if not 1 <= size <= 500:
            raise BadInput("page_size", "page_size must be 1 to 500")
        offset = _decode_page_token(request.page_token)
        status = {pb.GAME_STATUS_PLAYING: "playing", pb.GAME_STATUS_FINISHED: "finished"}
        rows = await self._run(
            lambda: queries.list_games(
                self.app.db,
                status=status.get(request.status),
                league=request.league or None,
                limit=size + 1,
                offset=offset,
            )
        )
        more = len(rows) > size
        games = [
            pb.GameSummary(
                name=f"games/{r['game_id']}",
                player_ids=r["players"],
                league=r["league"],
                status=_STATUS.get(r["status"], pb.GAME_STATUS_UNSPECIFIED),
                deal_number=r["deal_number"],
                version=r["version"],
                settlement=r["settlement"] or [],
            )
            for r in rows[:size]
        ]
        token = _encode_page_token(offset + size) if more else ""
        return pb.ListGamesResponse(games=games, next_page_token=token)

    @refusing
    async def GetSeatView(
        self, request: pb.GetSeatViewRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetSeatViewResponse:
        game_id = parse_game_name(request.name)
        seat = self._seat(context, game_id)
        view = await self._read(game_id, lambda g: seat_view_to_proto(g, seat), request.min_version)
        return pb.GetSeatViewResponse(view=view)

    @refusing
    async def SubmitAction(
        self, request: pb.SubmitActionRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.SubmitActionResponse:
        game_id = parse_game_name(request.name)
        seat = self._seat(context, game_id)
        if not request.HasField("action"):
            raise BadInput("action", "the action is missing")
        action = action_from_proto(request.action)
        result = await self._run(
            lambda: self.app.act(
                game_id,
                seat,
                action,
                request_id=request.request_id,
                then=lambda g: seat_view_to_proto(g, seat),
            )
        )
        if not result.replayed:
            self.after_write(game_id)
        return pb.SubmitActionResponse(
            version=result.version, replayed=result.replayed, view=result.answer
        )

    @refusing
    async def FlagDeal(
        self, request: pb.FlagDealRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.FlagDealResponse:
        game_id = parse_game_name(request.name)
        seat = self._seat(context, game_id)
        result = await self._run(
            lambda: self.app.flag_deal(
                game_id, seat, request.deal_number, request.reason, request.request_id
            )
        )
        if not result.replayed:
            self.after_write(game_id)
        return pb.FlagDealResponse(version=result.version, replayed=result.replayed)

    @refusing
    async def GetScoresheet(
        self, request: pb.GetScoresheetRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetScoresheetResponse:
        game_id = parse_game_name(request.name)
        sheet = await self._read(game_id, scoresheet_to_proto, request.min_version)
        return pb.GetScoresheetResponse(scoresheet=sheet)

    async def WatchGame(
        self, request: pb.WatchGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[pb.WatchGameResponse]:
        try:
            game_id = parse_game_name(request.name)
            seat = self._seat(context, game_id)
            heartbeat = request.heartbeat_seconds or 15
            if not 1 <= heartbeat <= 300:
                raise BadInput("heartbeat_seconds", "heartbeat_seconds must be 1 to 300")
            last = request.from_version
            current = await self._run(self.app.get_game, game_id, last)
            if not 0 <= last <= current.version:
                raise BadInput(
                    "from_version", f"from_version must be 0 to {current.version} (the latest)"
                )
            replica: Game | None = (
                None if last == 0 else await self._run(self.app.game_at, game_id, last)
            )
        except Exception as exc:
            await self._fail(context, exc)
            raise
        wake = self.hub.register(game_id)
        try:
            quiet_since = time.monotonic()
            while True:
                if self.hub.closing:
                    await context.abort(
                        grpc.StatusCode.UNAVAILABLE,
                        f"the server is stopping: resume from version {last}",
                    )
                wake.clear()
                events = await self._run(self.app.game_events, game_id, last)
                for event in events:
                    before = Visibility(replica, seat)
                    deal_before = replica.state.deal if replica is not None else None
                    replica = event.mutate(replica)
                    assert replica is not None
                    yield watch_message(event, before, deal_before, replica, seat)
                    last = event.originator_version
                    quiet_since = time.monotonic()
                if time.monotonic() - quiet_since >= heartbeat:
                    yield pb.WatchGameResponse(version=last, heartbeat=pb.Heartbeat())
                    quiet_since = time.monotonic()
                timeout = min(SAFETY_POLL_SECONDS, heartbeat)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=timeout)
        finally:
            self.hub.unregister(game_id, wake)

    def after_write(self, game_id: uuid.UUID) -> None:
        self.hub.notify(game_id)
        if self.projections is not None:
            self.projections.poke()


def _encode_page_token(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode()


def _decode_page_token(token: str) -> int:
    if not token:
        return 0
    try:
        text = base64.urlsafe_b64decode(token.encode()).decode()
        if not text.startswith("offset:"):
            raise ValueError(text)
        offset = int(text.removeprefix("offset:"))
        if offset < 0:
            raise ValueError(text)
    except ValueError:
        raise BadInput("page_token", "page_token is not one this server issued") from None
    return offset
