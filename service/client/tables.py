"""The lobby (``TableService``, proto/preferans/v1/table.proto) for one player, used by
``pref play`` and the tests.

``TableClient`` sends the player's JWT with every call (GetTable, ListTables and WatchTables
need none: a client without a token only reads). Commands get a fresh ``request_id`` unless one
is given and are retried with the same id on ABORTED and UNAVAILABLE (``service.client``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

from service.client import GameClient, _patient, _retry, bearer_metadata
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import table_pb2 as tpb
from service.gen.preferans.v1 import table_pb2_grpc


def _request_id(given: str | None) -> str:
    return given or uuid.uuid4().hex


class TableClient:
    """The lobby of the server ``client`` talks to, as the player ``token`` proves."""

    def __init__(self, client: GameClient, token: str | None = None) -> None:
        self.stub = table_pb2_grpc.TableServiceStub(client.channel)
        self.metadata = bearer_metadata(token or None)

    def create_table(
        self,
        rules: pb.RuleSet | None = None,
        *,
        public: bool = True,
        league: str = "",
        time_control: pb.TimeControl | None = None,
        stake_per_whist: int = 0,
        take_seat: bool = True,
        request_id: str | None = None,
    ) -> tpb.CreateTableResponse:
        """Open a table (and with ``take_seat`` sit at seat 0)."""
        request = tpb.CreateTableRequest(
            rules=rules or pb.RuleSet(name="default"),
            visibility=tpb.VISIBILITY_PUBLIC if public else tpb.VISIBILITY_PRIVATE,
            league=league,
            time_control=time_control,
            stake_per_whist=stake_per_whist,
            take_seat=take_seat,
            request_id=_request_id(request_id),
        )
        response: tpb.CreateTableResponse = _retry(self.stub.CreateTable, request, self.metadata)
        return response

    def get_table(self, name: str) -> tpb.Table:
        response: tpb.GetTableResponse = _patient(
            self.stub.GetTable, tpb.GetTableRequest(name=name), self.metadata
        )
        return response.table

    def list_tables(
        self,
        *,
        page_size: int = 50,
        page_token: str = "",
        system: str = "",
        seats: int = 0,
        league: str = "",
        free_seat_only: bool = False,
    ) -> tpb.ListTablesResponse:
        """One page of the open public tables, newest first."""
        request = tpb.ListTablesRequest(
            page_size=page_size,
            page_token=page_token,
            system=system,
            seats=seats,
            league=league,
            free_seat_only=free_seat_only,
        )
        response: tpb.ListTablesResponse = _patient(self.stub.ListTables, request, self.metadata)
        return response

    def join_table(
        self, name: str, invitation_code: str = "", request_id: str | None = None
    ) -> tpb.JoinTableResponse:
        """Take a free seat (or the invitation's); only this player's seat token comes back."""
        request = tpb.JoinTableRequest(
            name=name, invitation_code=invitation_code, request_id=_request_id(request_id)
        )
        response: tpb.JoinTableResponse = _retry(self.stub.JoinTable, request, self.metadata)
        return response

    def leave_table(self, name: str, request_id: str | None = None) -> tpb.LeaveTableResponse:
        request = tpb.LeaveTableRequest(name=name, request_id=_request_id(request_id))
        response: tpb.LeaveTableResponse = _retry(self.stub.LeaveTable, request, self.metadata)
        return response

    def create_invitation(
        self,
        name: str,
        seat: int | None = None,
        ttl_seconds: int = 0,
        request_id: str | None = None,
    ) -> tpb.CreateInvitationResponse:
        """A code good for one seat (the lowest free one unless ``seat``)."""
        request = tpb.CreateInvitationRequest(
            name=name, seat=seat, ttl_seconds=ttl_seconds, request_id=_request_id(request_id)
        )
        response: tpb.CreateInvitationResponse = _retry(
            self.stub.CreateInvitation, request, self.metadata
        )
        return response

    def fill_with_bots(self, name: str, request_id: str | None = None) -> tpb.FillWithBotsResponse:
        """The server's bots take every empty seat: the game starts."""
        request = tpb.FillWithBotsRequest(name=name, request_id=_request_id(request_id))
        response: tpb.FillWithBotsResponse = _retry(self.stub.FillWithBots, request, self.metadata)
        return response

    def watch_tables(self, after_position: int = 0) -> Iterator[Any]:
        """The lobby's changes (``WatchTablesResponse``), then heartbeats; ``cancel()`` ends it."""
        stream: Iterator[Any] = self.stub.WatchTables(
            tpb.WatchTablesRequest(after_position=after_position), metadata=self.metadata
        )
        return stream
