"""The ``GameService`` servicer: convert, authorise, delegate to the application, convert back.

The application is synchronous; a call into it that may wait or read the store runs in a
bounded thread pool, so the event loop never blocks. Work on a game in memory whose lock is
free runs on the loop itself (``app.peek_game`` for seat views, the decision of a command), and
a command's save waits for its group commit without a thread (``GameServicer._command``).
Errors are mapped to statuses in ``service.api.errors`` only.

Over 400 lines on purpose: the whole ``GameService`` contract is one servicer class here (its
two watch methods with their stream loop and their registration, ``add_to_server``, and the
plumbing its methods share: reads after ``min_version``, commands driven across the group
commit); what the watch streams share across watchers lives in ``service.api.streams``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

import grpc
import structlog

from domain.model import Game
from projections import queries
from projections.worker import ProjectionWorker
from service.api.auth import GIVEN_AWAY, REVOKED, Caller, bearer_token, caller_for
from service.api.errors import BadInput, VersionNotReached, refuse
from service.api.limits import Limits
from service.api.mapping import (
    SPECTATOR,
    action_from_proto,
    cached_seat_view,
    end_time_from_proto,
    game_to_proto,
    obligations_from_proto,
    parse_game_name,
    rules_from_proto,
    scoresheet_to_proto,
    seat_view_cached,
    time_control_from_proto,
)
from service.api.pagetoken import (
    RESPONSE_BUDGET,
    Page,
    PageTokens,
    fill_page,
    keyset_rows,
    page_size,
)
from service.api.streams import (
    SAFETY_POLL_SECONDS,
    GameStreams,
    Update,
    batches,
    sendable,
    update,
)
from service.app import validation
from service.app.application import (
    CommandResult,
    CommandSteps,
    NotInMemory,
    PreferansApplication,
)
from service.app.hub import EventHub
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import game_pb2_grpc

T = TypeVar("T")
log = structlog.get_logger(__name__)
MAX_WAIT_SECONDS = 5.0
"""The longest a read waits for a ``min_version`` (see ``GameServicer._read``)."""
MAX_VERSIONS_AHEAD = 8
"""How far past the game's stored version a ``min_version`` may be and still be waited for."""
_STATUS = {
    "playing": pb.GAME_STATUS_PLAYING,
    "finished": pb.GAME_STATUS_FINISHED,
    "aborted": pb.GAME_STATUS_ABORTED,
}
_STATUS_FILTER = {value: name for name, value in _STATUS.items()}
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
LIST_GAMES_TOKEN = "games"
DEFAULT_EVENTS_PAGE = 1000
MAX_EVENTS_PAGE = 1000
"""ListGameEvents' page sizes: a message is at most a few hundred bytes (a whole deal in
DealScoredEvent), so a page stays far below the 4 MiB a default gRPC client accepts."""
LIST_EVENTS_TOKEN = "game-events"
DEFAULT_BATCH_SIZE = 1000
"""Events in one WatchGameBatches message when the request leaves ``max_batch_size`` 0."""
MAX_BATCH_SIZE = 1000
"""The most events a WatchGameBatches message holds."""
MAX_BATCH_BYTES = 1024 * 1024
"""The most bytes of events in one WatchGameBatches message (a quarter of gRPC's default 4 MiB
message limit; ``batch_bytes`` lowers it with the server's ``max_send_bytes``)."""
MAX_DELAY_MS = 1000
"""The longest a WatchGameBatches request may let the server hold a live event
(``max_delay_ms``)."""
MAX_DELAY_MOVES = 200
"""The most decisions a spectator's stream may be held behind (``delay_moves``)."""
PRESERIALIZED = ("WatchGame", "WatchGameBatches")
"""The methods whose responses are sent as the servicer yields them: bytes (``add_to_server``)."""


Handler = Callable[[Any, Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]


def refusing(method: Handler) -> Handler:
    """Turn a unary method's errors into statuses (``service.api.errors``), in one place."""

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
        page_tokens: PageTokens | None = None,
        batch_bytes: int = MAX_BATCH_BYTES,
    ) -> None:
        self.app = app
        self.executor = executor
        self.hub = hub
        self.projections = projections
        self.page_tokens = page_tokens or PageTokens.random()
        self.streams = GameStreams(app, executor, hub)
        self.batch_bytes = batch_bytes

    # -- plumbing -------------------------------------------------------------------------

    async def _seat(self, context: grpc.aio.ServicerContext[Any, Any], game_id: uuid.UUID) -> int:
        """The caller's seat at the game: its seat token's, or where its JWT's player sits
        now (read from the game's current players)."""
        return (await self._seat_at(caller_for(context, self.app), game_id))[0]

    async def _seat_at(self, caller: Caller, game_id: uuid.UUID) -> tuple[int, int]:
        """The caller's seat (``Caller.seat_at``) and the game's version when it was read
        (0 for a seat token: its seat needs no read)."""
        if caller.player_id is None:
            return caller.seat_in(game_id), 0
        return await self._read(
            game_id, lambda g: (caller.seat_at(game_id, g.players), g.version), on_loop=True
        )

    async def _read(
        self,
        game_id: uuid.UUID,
        then: Callable[[Game], T],
        min_version: int = 0,
        on_loop: bool = False,
    ) -> T:
        """``then(game)`` in one trip to the thread pool, once the game has reached
        ``min_version`` (read-your-writes, also across replicas).

        The contract of ``min_version`` (GetGame, GetSeatView, GetScoresheet): a version the
        game has reached answers at once; one at most ``MAX_VERSIONS_AHEAD`` past the game's
        version in the store is waited for, at most ``MAX_WAIT_SECONDS``, then refused with
        FAILED_PRECONDITION (``VERSION_NOT_REACHED``, the version reached in its metadata);
        anything further ahead, or negative, is INVALID_ARGUMENT at once. A waiting call holds
        no thread: it sleeps on the event hub and reads the store again when the game changes
        (or every ``SAFETY_POLL_SECONDS``).

        ``on_loop``: ``then`` is cheap, so a game in memory and not locked by a command is read
        on the event loop (``app.peek_game``), without a trip to the thread pool."""
        if min_version < 0:
            raise BadInput("min_version", "min_version must be 0 or more")
        peeked = self.app.peek_game(game_id, then, min_version) if on_loop else None
        if peeked is not None:
            return peeked[1]
        read: tuple[int, T] = await self._run(self.app.read_game, game_id, then, min_version)
        version, answer = read
        if version >= min_version:
            return answer
        if min_version > version + MAX_VERSIONS_AHEAD:
            raise BadInput(
                "min_version",
                f"the game is at version {version}: min_version may be at most "
                f"{version + MAX_VERSIONS_AHEAD}",
            )
        deadline = time.monotonic() + MAX_WAIT_SECONDS
        wake = self.hub.register(game_id)
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise VersionNotReached(version, min_version)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=min(SAFETY_POLL_SECONDS, remaining))
                wake.clear()
                read = await self._run(self.app.read_game, game_id, then, min_version)
                version, answer = read
                if version >= min_version:
                    return answer
        finally:
            self.hub.unregister(game_id, wake)

    async def _command(self, steps: Callable[..., CommandSteps]) -> CommandResult:
        """Run a command (``CommandSteps``) without holding a thread of the pool while its
        events wait for their group commit: it is decided on the event loop when its game is
        in memory and free (``steps(in_memory=True)``), else in the pool; saved by the commit
        thread; answered on the event loop (in the pool again if the save failed: a lost race
        reads the store). A cancelled call still finishes its command (the game's lock is
        released, its outcome settled)."""
        if not self.app.group_commit:
            return await self._run(lambda: self.app.drive(steps()))
        task = asyncio.ensure_future(self._drive(steps))
        task.add_done_callback(_settled)
        return await asyncio.shield(task)

    async def _drive(self, make: Callable[..., CommandSteps]) -> CommandResult:
        def first(in_memory: bool) -> tuple[CommandSteps, Game | CommandResult]:
            made = make(in_memory=True) if in_memory else make()
            try:
                return made, made.send(None)
            except StopIteration as stop:  # a replayed request: nothing to save
                return made, stop.value

        try:
            steps, step = first(in_memory=True)
        except NotInMemory:  # nothing was changed: decide in the pool (it may wait or read)
            steps, step = await self._run(first, False)
        while isinstance(step, Game):
            game = step
            outcome: BaseException | None = None
            try:
                await asyncio.wrap_future(self.app.submit(game))
            except asyncio.CancelledError as exc:  # the loop is stopping: forget the game
                self.app.save_failed(game, exc)
                steps.close()  # releases the game's lock
                raise
            except Exception as exc:  # handed back to the command, which decides
                outcome = self.app.save_failed(game, exc)
            try:
                if outcome is None:  # saved: the answer is built on the loop (no store access)
                    step = steps.send(None)
                else:  # a lost race or a store failure: may read the store
                    step = await self._run(steps.send, outcome)
            except StopIteration as stop:
                result: CommandResult = stop.value
                return result
        return step

    # -- methods --------------------------------------------------------------------------

    @refusing
    async def CreateGame(
        self, request: pb.CreateGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.CreateGameResponse:
        if len(request.players) > validation.MAX_SEATS:
            raise BadInput("players", f"a table has at most {validation.MAX_SEATS} seats")
        validation.rule_set_name(request.rules.name)
        rules = rules_from_proto(request.rules)
        if len(request.players) != rules.players:
            raise BadInput(
                "players",
                f"a game of these rules needs exactly {rules.players} players, one per seat "
                f"(the rule set's players; {len(request.players)} given)",
            )
        players = [p.player_id for p in request.players]
        if len(request.bot_seats) > validation.MAX_SEATS:
            raise BadInput("bot_seats", f"a table has at most {validation.MAX_SEATS} seats")
        time_control = time_control_from_proto(
            request.time_control, request.HasField("time_control")
        )
        created = await self._run(
            lambda: self.app.create_game(
                players,
                request_id=request.request_id,
                rules=rules,
                league=request.league,
                creator_secret=request.creator_secret,
                time_control=time_control,
                bot_seats=tuple(request.bot_seats),
                stake_per_whist=request.stake_per_whist,
            )
        )
        game = await self._read(created.game_id, game_to_proto)
        self.after_write(created.game_id)
        return pb.CreateGameResponse(game=game, seat_tokens=list(created.tokens))

    @refusing
    async def JoinGame(
        self, request: pb.JoinGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.JoinGameResponse:
        """Reads the aggregate (the game in memory, ``app.read_game``)."""
        game_id = parse_game_name(request.name)
        seat = await self._seat(context, game_id)
        player, game = await self._read(game_id, lambda g: (g.players[seat], game_to_proto(g)))
        return pb.JoinGameResponse(seat=seat, player=pb.Player(player_id=player), game=game)

    @refusing
    async def GetGame(
        self, request: pb.GetGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetGameResponse:
        """Reads the aggregate, after ``min_version`` (read-your-writes; see ``_read``)."""
        game_id = parse_game_name(request.name)
        return pb.GetGameResponse(
            game=await self._read(game_id, game_to_proto, request.min_version)
        )

    @refusing
    async def ListGames(
        self, request: pb.ListGamesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListGamesResponse:
        """Reads the ``games`` projection (``projections.queries.list_games``), which lags the
        log by a moment: a list across games needs a table, not an aggregate. The games of
        private tables are left out (docs/TABLES.md, "Private tables"). Newest first,
        ties by game id; pages of ``page_size`` games (0: 50, at most 500) and at most
        ``pagetoken.RESPONSE_BUDGET`` bytes; a token continues after its last game."""
        size = page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        status = _STATUS_FILTER.get(request.status)
        league = validation.league(request.league) or None
        query = (status, league)
        position = self.page_tokens.decode(request.page_token, LIST_GAMES_TOKEN, query)
        after = None if position is None else (str(position[0]), str(position[1]))

        def fetch(key: tuple[str, str] | None, limit: int) -> list[dict[str, Any]]:
            return queries.list_games(
                self.app.db, status=status, league=league, limit=limit, after=key, hide_private=True
            )

        def read() -> Page[dict[str, Any], pb.GameSummary]:
            rows = keyset_rows(fetch, lambda r: (r["created_at"], r["game_id"]), after)
            return fill_page(rows, size, _game_summary, lambda summary: summary.ByteSize())

        page = await self._run(read)
        token = ""
        if page.more and page.last is not None:
            last = [page.last["created_at"], page.last["game_id"]]
            token = self.page_tokens.encode(LIST_GAMES_TOKEN, query, last)
        return pb.ListGamesResponse(games=page.messages, next_page_token=token)

    @refusing
    async def GetSeatView(
        self, request: pb.GetSeatViewRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetSeatViewResponse:
        """Reads the aggregate, after ``min_version``: the rules core's ``seat_view`` of its
        current deal for the caller's seat."""
        game_id = parse_game_name(request.name)
        seat = await self._seat(context, game_id)
        view = await self._read(
            game_id, lambda g: seat_view_cached(g, seat), request.min_version, on_loop=True
        )
        return pb.GetSeatViewResponse(view=view)

    @refusing
    async def SubmitAction(
        self, request: pb.SubmitActionRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.SubmitActionResponse:
        game_id = parse_game_name(request.name)
        seat = await self._seat(context, game_id)
        if not request.HasField("action"):
            raise BadInput("action", "the action is missing")
        action = action_from_proto(request.action)
        result = await self._command(
            lambda in_memory=False: self.app.act_steps(
                game_id,
                seat,
                action,
                request_id=request.request_id,
                then=lambda g: seat_view_cached(g, seat),
                in_memory=in_memory,
            )
        )
        view = result.answer
        if not result.replayed:
            self.after_write(game_id)
        elif view.version != result.version:  # a retry: the first answer, as it was then
            view = await self._run(self._view_at, game_id, seat, result.version)
        return pb.SubmitActionResponse(version=result.version, replayed=result.replayed, view=view)

    def _view_at(self, game_id: uuid.UUID, seat: int, version: int) -> pb.SeatView:
        """The seat's view at ``version`` (a retried command's first answer): from the views'
        cache, else from the game replayed to that version."""
        view = cached_seat_view(game_id, version, seat)
        if view is None:
            view = seat_view_cached(self.app.game_at(game_id, version), seat)
        return view

    @refusing
    async def FlagDeal(
        self, request: pb.FlagDealRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.FlagDealResponse:
        game_id = parse_game_name(request.name)
        seat = await self._seat(context, game_id)
        result = await self._write(
            game_id,
            lambda: self.app.flag_deal(
                game_id, seat, request.deal_number, request.reason, request.request_id
            ),
        )
        return pb.FlagDealResponse(version=result.version, replayed=result.replayed)

    @refusing
    async def CallTime(
        self, request: pb.CallTimeRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.CallTimeResponse:
        """The creator's command (no seat token): the application checks the credential."""
        game_id = parse_game_name(request.name)
        result = await self._write(
            game_id,
            lambda: self.app.call_time(
                game_id, request.created_with, request.creator_secret, request.request_id
            ),
        )
        return pb.CallTimeResponse(version=result.version, replayed=result.replayed)

    @refusing
    async def ReplacePlayer(
        self, request: pb.ReplacePlayerRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ReplacePlayerResponse:
        """The creator's command (no seat token): the application checks the credential."""
        game_id = parse_game_name(request.name)
        result, token = await self._run(
            lambda: self.app.replace_player(
                game_id,
                request.seat,
                request.player.player_id,
                request.created_with,
                request.creator_secret,
                request.request_id,
            )
        )
        if not result.replayed:
            self.after_write(game_id)
        return pb.ReplacePlayerResponse(
            version=result.version, replayed=result.replayed, seat_token=token
        )

    @refusing
    async def AgreeEarlyStop(
        self, request: pb.AgreeEarlyStopRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.AgreeEarlyStopResponse:
        game_id = parse_game_name(request.name)
        seat = await self._seat(context, game_id)
        result = await self._write(
            game_id,
            lambda: self.app.agree_stop(
                game_id, seat, request.request_id, then=lambda game: game.finished
            ),
        )
        return pb.AgreeEarlyStopResponse(
            version=result.version, replayed=result.replayed, finished=bool(result.answer)
        )

    @refusing
    async def ResignGame(
        self, request: pb.ResignGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ResignGameResponse:
        """The token's seat resigns; the server's bot plays on (docs/CLOCKS.md)."""
        game_id = parse_game_name(request.name)
        seat = await self._seat(context, game_id)
        result = await self._write(
            game_id, lambda: self.app.resign(game_id, seat, request.request_id)
        )
        return pb.ResignGameResponse(version=result.version, replayed=result.replayed)

    @refusing
    async def AdjournGame(
        self, request: pb.AdjournGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.AdjournGameResponse:
        """The token's seat agrees to adjourn the game."""
        version, replayed, adjourned = await self._adjourn(request, context, resume=False)
        return pb.AdjournGameResponse(version=version, replayed=replayed, adjourned=adjourned)

    @refusing
    async def ResumeGame(
        self, request: pb.ResumeGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ResumeGameResponse:
        """The token's seat asks to resume an adjourned game."""
        version, replayed, adjourned = await self._adjourn(request, context, resume=True)
        return pb.ResumeGameResponse(version=version, replayed=replayed, adjourned=adjourned)

    async def _adjourn(
        self,
        request: pb.AdjournGameRequest | pb.ResumeGameRequest,
        context: grpc.aio.ServicerContext[Any, Any],
        resume: bool,
    ) -> tuple[int, bool, bool]:
        """An adjournment agreement or a request to resume: version, replayed, adjourned."""
        game_id = parse_game_name(request.name)
        seat = await self._seat(context, game_id)
        result = await self._write(
            game_id,
            lambda: self.app.adjourn(
                game_id, seat, request.request_id, resume=resume, then=lambda g: g.adjourned
            ),
        )
        return result.version, result.replayed, bool(result.answer)

    @refusing
    async def AbortGame(
        self, request: pb.AbortGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.AbortGameResponse:
        """The token's seat aborts the game before its first deal is scored."""
        game_id = parse_game_name(request.name)
        seat = await self._seat(context, game_id)
        result = await self._write(
            game_id, lambda: self.app.abort_game(game_id, seat, request.request_id)
        )
        return pb.AbortGameResponse(version=result.version, replayed=result.replayed)

    @refusing
    async def ListGameEvents(
        self, request: pb.ListGameEventsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListGameEventsResponse:
        """WatchGame's messages for the caller's seat (a spectator's without credential) in
        pages of ``page_size`` events (0 and at most: 1000) after the version the token
        continues from. Served from the game's shared feed (``GameStreams.page``: WatchGame's
        messages, built once per game and kept), so the redaction is WatchGame's and a page
        costs about its size, not a replay of the game. A seat given away meanwhile sees up to the
        replacement and gets no token past it (``_given_away``)."""
        game_id = parse_game_name(request.name)
        size = page_size(request.page_size, DEFAULT_EVENTS_PAGE, MAX_EVENTS_PAGE)
        caller = caller_for(context, self.app)
        spectator = bearer_token(context.invocation_metadata()) is None
        seat, seated_at = (SPECTATOR, 0) if spectator else await self._seat_at(caller, game_id)
        query = (str(game_id), seat)
        position = self.page_tokens.decode(request.page_token, LIST_EVENTS_TOKEN, query)
        last = 0 if position is None else int(position[0])  # type: ignore[arg-type]

        built, more, replacements = await self.streams.page(game_id, last, size)
        updates = [messages[seat] for messages in built]
        if not spectator:
            given = _given_away(replacements, seat, caller.issued_ms, last, len(updates), seated_at)
            if given is not None:  # the replacement is the last the seat sees
                updates, more = updates[:given], False
        size_so_far = 0
        for index, sent in enumerate(updates):  # at most RESPONSE_BUDGET bytes a page
            size_so_far += len(sent.entry)
            if size_so_far > RESPONSE_BUDGET and index:
                updates, more = updates[:index], True
                break
        token = ""
        if more:
            token = self.page_tokens.encode(LIST_EVENTS_TOKEN, query, [last + len(updates)])
        return pb.ListGameEventsResponse(
            events=[pb.WatchGameResponse.FromString(u.message) for u in updates],
            next_page_token=token,
        )

    @refusing
    async def OrderGame(
        self, request: pb.OrderGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.OrderGameResponse:
        """The token's seat orders the game (S000 Classic): pool length and end time."""
        game_id = parse_game_name(request.name)
        seat = await self._seat(context, game_id)
        ends_at = end_time_from_proto(request)
        obligations = obligations_from_proto(request)
        result = await self._write(
            game_id,
            lambda: self.app.order_game(
                game_id, seat, request.pool, ends_at, request.request_id, obligations=obligations
            ),
        )
        return pb.OrderGameResponse(version=result.version, replayed=result.replayed)

    @refusing
    async def GetScoresheet(
        self, request: pb.GetScoresheetRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetScoresheetResponse:
        """Reads the aggregate, after ``min_version`` (its scoresheet, deals, flags, rulings)."""
        game_id = parse_game_name(request.name)
        sheet = await self._read(game_id, scoresheet_to_proto, request.min_version)
        return pb.GetScoresheetResponse(scoresheet=sheet)

    # The stream sends bytes (serialised once, ``add_to_server``), not messages as typed.
    async def WatchGame(  # type: ignore[override]
        self, request: pb.WatchGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncGenerator[bytes, None]:
        """One stream message per event (serialised once per event and seat, shared by every
        watcher: the method's response serializer passes bytes through, ``add_to_server``)."""
        beat = request.heartbeat_seconds
        watching = self._watch(
            context, request.name, request.from_version, beat, delay_moves=request.delay_moves
        )
        async with contextlib.aclosing(watching):
            async for updates in watching:
                for update in updates:
                    yield update.message

    # The stream sends bytes (serialised once, ``add_to_server``), not messages as typed.
    async def WatchGameBatches(  # type: ignore[override]
        self, request: pb.WatchGameBatchesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncGenerator[bytes, None]:
        """WatchGame's updates, as many to a stream message as are waiting: at most
        ``max_batch_size`` (0: ``DEFAULT_BATCH_SIZE``) and ``batch_bytes`` bytes each; live
        ones at most one batch per ``max_delay_ms``."""
        try:
            size = request.max_batch_size or DEFAULT_BATCH_SIZE
            if not 1 <= size <= MAX_BATCH_SIZE:
                raise BadInput(
                    "max_batch_size",
                    f"max_batch_size must be 1 to {MAX_BATCH_SIZE} (0 means {DEFAULT_BATCH_SIZE})",
                )
            if not 0 <= request.max_delay_ms <= MAX_DELAY_MS:
                raise BadInput("max_delay_ms", f"max_delay_ms must be 0 to {MAX_DELAY_MS}")
        except Exception as exc:
            await self._fail(context, exc)
            raise
        beat, delay = request.heartbeat_seconds, request.max_delay_ms / 1000
        watching = self._watch(
            context, request.name, request.from_version, beat, delay, request.delay_moves
        )
        async with contextlib.aclosing(watching):
            async for updates in watching:
                for message in batches(updates, size, self.batch_bytes):
                    yield message

    async def _watch(
        self,
        context: grpc.aio.ServicerContext[Any, Any],
        name: str,
        last: int,
        heartbeat_seconds: int,
        delay: float = 0.0,
        delay_moves: int = 0,
    ) -> AsyncGenerator[list[Update], None]:
        """What both watch methods send, as lists of updates: every update the seat may see
        after ``last`` that is waiting (from the game's shared feed, ``service.api.streams``),
        or one heartbeat after ``heartbeat_seconds`` quiet seconds, until the server stops.
        After each list the next waits ``delay`` seconds (what arrives meanwhile goes
        together; the watcher is not woken for each event). A call without credential
        watches as a spectator (``SPECTATOR``: public information only), held
        ``delay_moves`` decisions behind until the game is over (``streams.sendable``).
        Refusals and failures (also mid-stream) end the call with their status."""
        try:
            game_id = parse_game_name(name)
            caller = caller_for(context, self.app)
            spectator = bearer_token(context.invocation_metadata()) is None
            seat, seated_at = (SPECTATOR, 0) if spectator else await self._seat_at(caller, game_id)
            heartbeat = heartbeat_seconds or 15
            if not 1 <= heartbeat <= 300:
                raise BadInput("heartbeat_seconds", "heartbeat_seconds must be 1 to 300")
            if not 0 <= delay_moves <= MAX_DELAY_MOVES:
                raise BadInput("delay_moves", f"delay_moves must be 0 to {MAX_DELAY_MOVES}")
            if delay_moves and not spectator:
                raise BadInput("delay_moves", "delay_moves is for spectators (no credential)")
            current = await self._run(self.app.get_game, game_id, last)
            if not 0 <= last <= current.version:
                raise BadInput(
                    "from_version", f"from_version must be 0 to {current.version} (the latest)"
                )
            feed = await self.streams.open(game_id, last)
        except Exception as exc:
            await self._fail(context, exc)
            raise
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] | None = None
        timer: asyncio.TimerHandle | None = None

        def beat() -> None:  # the heartbeat timer: wake the watcher to look at the clock
            nonlocal timer
            timer = None
            if waiter is not None and not waiter.done():
                waiter.set_result(None)

        try:
            quiet_since = loop.time()
            while True:
                if self.hub.closing:
                    await context.abort(
                        grpc.StatusCode.UNAVAILABLE,
                        f"the server is stopping: resume from version {last}",
                    )
                waiting = self.streams.waiting(feed, last, seat)
                if waiting is None:  # to be read (and built) again, or the feed failed
                    waiting = await self.streams.messages(feed, last, seat)
                if waiting and delay_moves and not _over(feed.replica):
                    waiting = waiting[: sendable(waiting, delay_moves)]
                if waiting:
                    given = (
                        None
                        if spectator
                        else _given_away(
                            _replacements(feed.replica),
                            seat,
                            caller.issued_ms,
                            last,
                            len(waiting),
                            seated_at,
                        )
                    )
                    if given is not None:  # the watcher's seat went to another player
                        yield waiting[:given]  # the replacement is the last he sees
                        if caller.player_id is not None:
                            await context.abort(grpc.StatusCode.PERMISSION_DENIED, GIVEN_AWAY)
                        await context.abort(grpc.StatusCode.UNAUTHENTICATED, REVOKED)
                    last += len(waiting)
                    yield waiting
                    quiet_since = loop.time()
                    if delay:  # what happens meanwhile gathers for the next batch
                        await self._gather(delay)
                    continue
                if loop.time() - quiet_since >= heartbeat:
                    yield [update(pb.WatchGameResponse(version=last, heartbeat=pb.Heartbeat()))]
                    quiet_since = loop.time()
                    continue
                # Wait for the feed to change, or for the heartbeat. One timer per heartbeat
                # period, not one per wait: after an event it fires early, finds the stream
                # not quiet for long enough, and is set again for the rest.
                if timer is None:
                    timer = loop.call_at(quiet_since + heartbeat, beat)
                waiter = loop.create_future()
                feed.waiters.add(waiter)
                try:
                    await waiter
                finally:
                    feed.waiters.discard(waiter)
                    waiter = None
        except grpc.aio.AbortError:
            raise
        except Exception as exc:  # a failure mid-stream is a status too, never UNKNOWN
            await self._fail(context, exc)
            raise
        finally:
            if timer is not None:
                timer.cancel()
            self.streams.close(feed)

    async def _gather(self, seconds: float) -> None:
        """Let live events gather for a batch (``max_delay_ms``) for ``seconds``."""
        await asyncio.sleep(seconds)

    async def _write(
        self, game_id: uuid.UUID, command: Callable[[], CommandResult]
    ) -> CommandResult:
        """A command run in the pool; its watchers and projections are told if it wrote."""
        result = await self._run(command)
        if not result.replayed:
            self.after_write(game_id)
        return result

    def after_write(self, game_id: uuid.UUID) -> None:
        self.hub.notify(game_id)
        if self.projections is not None:
            self.projections.poke()


def _replacements(replica: Game | None) -> list[dict[str, Any]]:
    return [] if replica is None else replica.replacements


def _given_away(
    replacements: Sequence[dict[str, Any]],
    seat: int,
    issued_ms: int,
    last: int,
    count: int,
    seated_at: int = 0,
) -> int | None:
    """How many of the ``count`` waiting updates (versions after ``last``) a watcher of
    ``seat`` whose token was issued at ``issued_ms`` may still see, if one of them gives the
    seat to another player (``PlayerReplaced``: the token is revoked from then on); ``None``
    when none does (``replacements``: ``Game.replacements`` of the game at the last of them or
    later). A player's (JWT) watcher sat there at version ``seated_at`` (> 0): a
    replacement after that version gives its seat away."""
    for done in replacements:
        version = int(done["version"])
        if seated_at:
            mine = done["seat"] == seat and version > seated_at
        else:
            mine = done["seat"] == seat and done["replaced_ms"] >= issued_ms
        if mine and last < version <= last + count:
            return version - last
    return None


def _over(replica: Game | None) -> bool:
    """The game the feed follows has ended (a spectator's delay no longer holds anything)."""
    return replica is not None and replica.finished


def _settled(task: asyncio.Future[Any]) -> None:
    """Retrieve a command's outcome even if its call was cancelled (no "never retrieved")."""
    if not task.cancelled():
        task.exception()


def _game_summary(r: dict[str, Any]) -> pb.GameSummary:
    return pb.GameSummary(
        name=f"games/{r['game_id']}",
        player_ids=r["players"],
        league=r["league"],
        status=_STATUS.get(r["status"], pb.GAME_STATUS_UNSPECIFIED),
        deal_number=r["deal_number"],
        version=r["version"],
        settlement=r["settlement"] or [],
        seats=r["seats"],
    )


def batch_bytes(limits: Limits) -> int:
    """The byte budget of a WatchGameBatches message on a server with these limits: at most
    ``MAX_BATCH_BYTES``, and half its largest response message (room for the framing)."""
    return max(1, min(MAX_BATCH_BYTES, limits.max_send_bytes // 2))


class _Registered:
    """Stands in for a server to the generated registration, keeping its method handlers."""

    def __init__(self) -> None:
        self.handlers: dict[str, Any] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        """The generic handler is rebuilt from the method handlers (``add_to_server``)."""

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.handlers.update(handlers)


def add_to_server(servicer: GameServicer, server: grpc.aio.Server) -> None:
    """Register ``servicer`` as the generated ``add_GameServiceServicer_to_server`` does, but
    with no response serializer for the ``PRESERIALIZED`` methods: their messages are built
    and serialised once per event and seat (``service.api.streams``) and the same bytes go to
    every watcher (gRPC sends a handler's bytes as they are when its serializer is ``None``)."""
    registered = _Registered()
    game_pb2_grpc.add_GameServiceServicer_to_server(servicer, cast(grpc.aio.Server, registered))
    handlers = registered.handlers
    for name in PRESERIALIZED:
        handlers[name] = handlers[name]._replace(response_serializer=None)
    service = pb.DESCRIPTOR.services_by_name["GameService"].full_name
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
    server.add_registered_method_handlers(service, handlers)
