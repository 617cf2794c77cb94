"""A typed Python client for the gRPC API, used by ``pref play``, ``pref bots`` and the tests.

``GameClient`` holds one channel; ``SeatClient`` acts for one seat with its token. Commands get
a fresh ``request_id`` unless one is given, and are retried with the SAME id on ABORTED and
UNAVAILABLE, which the server makes safe.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import grpc

from domain.rules import Action, RuleSet
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import game_pb2_grpc
from service.mapping import action_to_proto, rules_to_proto

RETRIED = (grpc.StatusCode.ABORTED, grpc.StatusCode.UNAVAILABLE)


class GameClient:
    def __init__(self, target: str, *, channel: grpc.Channel | None = None) -> None:
        self.channel = channel or grpc.insecure_channel(target)
        self.stub = game_pb2_grpc.GameServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def create_game(
        self,
        players: Sequence[str],
        rules: RuleSet | None = None,
        league: str = "",
        request_id: str | None = None,
        creator_secret: str | None = None,
    ) -> pb.CreateGameResponse:
        """Create a game. ``creator_secret`` (random by default) proves that a retry comes
        from the creator: retrying with the same request id and secret returns the tokens."""
        request = pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in players],
            rules=rules_to_proto(rules) if rules is not None else pb.RuleSet(name="default"),
            league=league,
            request_id=request_id or uuid.uuid4().hex,
            # Proves that a retry comes from us: only then does it return the seat tokens.
            creator_secret=creator_secret or secrets.token_hex(16),
        )
        response: pb.CreateGameResponse = _retry(self.stub.CreateGame, request)
        return response

    def get_game(self, name: str) -> pb.Game:
        return self.stub.GetGame(pb.GetGameRequest(name=name)).game

    def scoresheet(self, name: str, min_version: int = 0) -> pb.Scoresheet:
        request = pb.GetScoresheetRequest(name=name, min_version=min_version)
        return self.stub.GetScoresheet(request).scoresheet

    def list_games(self, page_size: int = 50, page_token: str = "") -> pb.ListGamesResponse:
        request = pb.ListGamesRequest(page_size=page_size, page_token=page_token)
        response: pb.ListGamesResponse = self.stub.ListGames(request)
        return response

    def seat(self, name: str, token: str) -> SeatClient:
        return SeatClient(self, name, token)


class SeatClient:
    """One seat of one game."""

    def __init__(self, client: GameClient, name: str, token: str) -> None:
        self.client = client
        self.name = name
        self.metadata = (("authorization", f"Bearer {token}"),)

    def join(self) -> pb.JoinGameResponse:
        response: pb.JoinGameResponse = self.client.stub.JoinGame(
            pb.JoinGameRequest(name=self.name), metadata=self.metadata
        )
        return response

    def view(self, min_version: int = 0) -> pb.SeatView:
        request = pb.GetSeatViewRequest(name=self.name, min_version=min_version)
        return self.client.stub.GetSeatView(request, metadata=self.metadata).view

    def act(
        self, action: Action | pb.Action, request_id: str | None = None
    ) -> pb.SubmitActionResponse:
        message = action if isinstance(action, pb.Action) else action_to_proto(action)
        request = pb.SubmitActionRequest(
            name=self.name, action=message, request_id=request_id or uuid.uuid4().hex
        )
        response: pb.SubmitActionResponse = _retry(
            self.client.stub.SubmitAction, request, metadata=self.metadata
        )
        return response

    def watch(self, from_version: int = 0, heartbeat_seconds: int = 15) -> Iterator[Any]:
        request = pb.WatchGameRequest(
            name=self.name, from_version=from_version, heartbeat_seconds=heartbeat_seconds
        )
        stream: Iterator[Any] = self.client.stub.WatchGame(request, metadata=self.metadata)
        return stream


def _retry(method: Any, request: Any, metadata: Any = None, attempts: int = 5) -> Any:
    delay = 0.05
    for attempt in range(attempts):
        try:
            return method(request, metadata=metadata)
        except grpc.RpcError as exc:
            if exc.code() not in RETRIED or attempt == attempts - 1:
                raise
            time.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")
