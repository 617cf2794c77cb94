"""The ``TableService`` servicer (the lobby): convert, identify the player, delegate to the
lobby's use cases (``service.app.tables``), convert back. Errors map in ``service.api.errors``.

Commands and GetTable read the table aggregate; ListTables and WatchTables read the lobby read
model (``projections.lobby``), which follows the log a moment behind (docs/READSIDE.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from projections import lobby as lobby_queries
from service.api.auth import caller_for
from service.api.errors import BadInput
from service.api.game_servicer import Delegating, refusing
from service.api.mapping import (
    lobby_row_to_proto,
    parse_table_name,
    rules_from_proto,
    table_to_proto,
    time_control_from_proto,
    visibility_from_proto,
)
from service.api.pagetoken import Page, PageTokens, fill_page, keyset_rows, page_size
from service.app import validation
from service.app.hub import EventHub
from service.app.tables import Lobby, Seated
from service.gen.preferans.v1 import table_pb2 as pb
from service.gen.preferans.v1 import table_pb2_grpc

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
LIST_TABLES_TOKEN = "tables"
HEARTBEAT_SECONDS = 15.0
"""A WatchTables stream sends a heartbeat after this long without a change."""
POLL_SECONDS = 0.5
"""How often a WatchTables stream looks at the lobby read model for changes."""
WATCH_BATCH = 100

Context = grpc.aio.ServicerContext[Any, Any]


class TableServicer(Delegating, table_pb2_grpc.TableServiceServicer):
    def __init__(
        self,
        lobby: Lobby,
        executor: ThreadPoolExecutor,
        page_tokens: PageTokens | None = None,
        hub: EventHub | None = None,
    ) -> None:
        self.lobby = lobby
        self.hub = hub
        """Its ``closing`` ends the lobby streams when the server stops (clients resume)."""
        self.db = lobby.app.db
        self.executor = executor
        self.page_tokens = page_tokens or PageTokens.random()

    def _player(self, context: Context) -> str:
        return caller_for(context, self.lobby.app).player()

    @refusing
    async def CreateTable(self, request: pb.CreateTableRequest, context: Context) -> Any:
        player = self._player(context)
        validation.rule_set_name(request.rules.name)
        rules = rules_from_proto(request.rules)
        control = time_control_from_proto(request.time_control, request.HasField("time_control"))
        opened = await self._run(
            lambda: self.lobby.create_table(
                player,
                request.request_id,
                rules,
                visibility=visibility_from_proto(request.visibility),
                league=request.league,
                time_control=control,
                stake_per_whist=request.stake_per_whist,
                take_seat=request.take_seat,
            )
        )
        if isinstance(opened, Seated):
            return pb.CreateTableResponse(
                table=table_to_proto(opened.table), seat_token=opened.token, seat=opened.seat
            )
        return pb.CreateTableResponse(table=table_to_proto(opened))

    @refusing
    async def GetTable(self, request: pb.GetTableRequest, context: Context) -> Any:
        """Reads the aggregate (finishing a start a crash interrupted)."""
        table_id = parse_table_name(request.name)
        table = await self._run(self.lobby.get_table, table_id)
        return pb.GetTableResponse(table=table_to_proto(table))

    @refusing
    async def ListTables(self, request: pb.ListTablesRequest, context: Context) -> Any:
        """Reads the lobby read model: open public tables, newest first, keyset pages."""
        size = page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        system = validation.rule_set_name(request.system, "system") or None
        league = validation.league(request.league) or None
        if not 0 <= request.seats <= validation.MAX_SEATS:
            raise BadInput("seats", f"seats is 0 (any) or 2 to {validation.MAX_SEATS}")
        seats = request.seats or None
        query = (system, seats, league, request.free_seat_only)
        position = self.page_tokens.decode(request.page_token, LIST_TABLES_TOKEN, query)
        after = None if position is None else (str(position[0]), str(position[1]))

        def fetch(key: tuple[str, str] | None, limit: int) -> list[dict[str, Any]]:
            return lobby_queries.list_tables(
                self.db,
                system=system,
                seats=seats,
                league=league,
                free_only=request.free_seat_only,
                limit=limit,
                after=key,
            )

        def read() -> Page[dict[str, Any], pb.Table]:
            rows = keyset_rows(fetch, lambda r: (r["opened_at"], r["table_id"]), after)
            return fill_page(rows, size, lobby_row_to_proto, lambda t: t.ByteSize())

        page = await self._run(read)
        token = ""
        if page.more and page.last is not None:
            last = [page.last["opened_at"], page.last["table_id"]]
            token = self.page_tokens.encode(LIST_TABLES_TOKEN, query, last)
        return pb.ListTablesResponse(tables=page.messages, next_page_token=token)

    @refusing
    async def JoinTable(self, request: pb.JoinTableRequest, context: Context) -> Any:
        player = self._player(context)
        table_id = parse_table_name(request.name)
        seated = await self._run(
            self.lobby.join_table, table_id, player, request.request_id, request.invitation_code
        )
        return pb.JoinTableResponse(
            table=table_to_proto(seated.table), seat=seated.seat, seat_token=seated.token
        )

    @refusing
    async def LeaveTable(self, request: pb.LeaveTableRequest, context: Context) -> Any:
        player = self._player(context)
        table_id = parse_table_name(request.name)
        table = await self._run(self.lobby.leave_table, table_id, player, request.request_id)
        return pb.LeaveTableResponse(table=table_to_proto(table))

    @refusing
    async def CreateInvitation(self, request: pb.CreateInvitationRequest, context: Context) -> Any:
        player = self._player(context)
        table_id = parse_table_name(request.name)
        seat = request.seat if request.HasField("seat") else None
        invited = await self._run(
            self.lobby.create_invitation,
            table_id,
            player,
            request.request_id,
            seat,
            request.ttl_seconds,
        )
        return pb.CreateInvitationResponse(
            invitation_code=invited.code,
            seat=invited.seat,
            expire_time_ms=invited.expires_ms,
            table=table_to_proto(invited.table),
        )

    @refusing
    async def FillWithBots(self, request: pb.FillWithBotsRequest, context: Context) -> Any:
        player = self._player(context)
        table_id = parse_table_name(request.name)
        table = await self._run(self.lobby.fill_with_bots, table_id, player, request.request_id)
        return pb.FillWithBotsResponse(table=table_to_proto(table))

    @refusing
    async def CloseTable(self, request: pb.CloseTableRequest, context: Context) -> Any:
        player = self._player(context)
        table_id = parse_table_name(request.name)
        table = await self._run(self.lobby.close_table, table_id, player, request.request_id)
        return pb.CloseTableResponse(table=table_to_proto(table))

    async def WatchTables(
        self, request: pb.WatchTablesRequest, context: Context
    ) -> AsyncIterator[pb.WatchTablesResponse]:
        """Reads the lobby read model after the client's position: each public table changed
        since, in its current state and in order of change; a heartbeat with the position when
        nothing changed for ``HEARTBEAT_SECONDS``."""
        if request.after_position < 0:
            await self._fail(context, BadInput("after_position", "must not be negative"))
            return
        position = request.after_position
        quiet = 0.0
        while not context.done() and not (self.hub is not None and self.hub.closing):
            try:
                rows = await self._run(lobby_queries.changes_after, self.db, position, WATCH_BATCH)
            except Exception as exc:
                await self._fail(context, exc)
                return
            for row in rows:
                position = max(position, int(row["seq"]))
                if row["visibility"] == "public":
                    yield pb.WatchTablesResponse(table=lobby_row_to_proto(row))
            if rows:
                quiet = 0.0
                continue
            await asyncio.sleep(POLL_SECONDS)
            quiet += POLL_SECONDS
            if quiet >= HEARTBEAT_SECONDS:
                quiet = 0.0
                yield pb.WatchTablesResponse(heartbeat_position=position)
