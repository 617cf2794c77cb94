"""A typed Python client for the gRPC API, used by ``pref play``, ``pref bots`` and the tests.

``GameClient`` holds one channel; ``SeatClient`` acts for one seat with its token. Commands get
a fresh ``request_id`` unless one is given, and are retried with the SAME id on ABORTED and
UNAVAILABLE, which the server makes safe; a RESOURCE_EXHAUSTED refusal (over a rate limit, nothing
recorded) is retried after the delay of its ``RetryInfo`` when that is short (``MAX_RETRY_DELAY``).
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from domain.rules import Action, RuleSet
from service.api.mapping import action_to_proto, rules_to_proto
from service.api.tls import channel as tls_channel
from service.client.routing import affinity_metadata
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import game_pb2_grpc

RETRIED = (grpc.StatusCode.ABORTED, grpc.StatusCode.UNAVAILABLE)
MAX_RETRY_DELAY = 5.0
"""The longest ``RetryInfo`` delay a call waits out by itself (a longer one is raised)."""


class GameClient:
    """The game API at ``target``: over TLS when given a CA file (``tls_ca``) and, for mTLS, a
    client certificate and key; plaintext otherwise."""

    def __init__(
        self,
        target: str,
        *,
        channel: grpc.Channel | None = None,
        tls_ca: str | None = None,
        tls_cert: str | None = None,
        tls_key: str | None = None,
    ) -> None:
        self.channel = channel or tls_channel(target, ca=tls_ca, cert=tls_cert, key=tls_key)
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
        response: pb.GetGameResponse = _patient(self.stub.GetGame, pb.GetGameRequest(name=name))
        return response.game

    def scoresheet(self, name: str, min_version: int = 0) -> pb.Scoresheet:
        request = pb.GetScoresheetRequest(name=name, min_version=min_version)
        response: pb.GetScoresheetResponse = _patient(self.stub.GetScoresheet, request)
        return response.scoresheet

    def list_games(self, page_size: int = 50, page_token: str = "") -> pb.ListGamesResponse:
        request = pb.ListGamesRequest(page_size=page_size, page_token=page_token)
        response: pb.ListGamesResponse = self.stub.ListGames(request)
        return response

    def call_time(
        self,
        name: str,
        created_with: str,
        creator_secret: str,
        request_id: str | None = None,
    ) -> pb.CallTimeResponse:
        """Call time in a game played until time: only the creator may, proving it with the
        request id and ``creator_secret`` the game was created with."""
        request = pb.CallTimeRequest(
            name=name,
            created_with=created_with,
            creator_secret=creator_secret,
            request_id=request_id or uuid.uuid4().hex,
        )
        response: pb.CallTimeResponse = _retry(
            self.stub.CallTime, request, metadata=affinity_metadata(name)
        )
        return response

    def seat(self, name: str, token: str) -> SeatClient:
        return SeatClient(self, name, token)

    def spectate(
        self, name: str, from_version: int = 0, heartbeat_seconds: int = 15, delay_moves: int = 0
    ) -> Iterator[Any]:
        """Watch a game as a spectator (``WatchGame`` without credential: public information
        only), ``delay_moves`` decisions behind."""
        return SeatClient(self, name, None).watch(from_version, heartbeat_seconds, delay_moves)

    def list_events(
        self, name: str, page_size: int = 0, page_token: str = ""
    ) -> pb.ListGameEventsResponse:
        """One page of the game's events as a spectator sees them (``ListGameEvents`` without
        credential)."""
        return SeatClient(self, name, None).list_events(page_size, page_token)

    def spectate_updates(
        self,
        name: str,
        from_version: int = 0,
        heartbeat_seconds: int = 15,
        max_batch_size: int = 0,
        delay_moves: int = 0,
    ) -> Updates:
        """``spectate``'s messages received in batches (``WatchGameBatches`` without
        credential); ``cancel()`` ends the stream."""
        spectator = SeatClient(self, name, None)
        return spectator.watch_updates(
            from_version, heartbeat_seconds, max_batch_size, delay_moves=delay_moves
        )


def bearer_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    """The ``authorization`` metadata of a seat token or a player's JWT (none for ``None``)."""
    return () if token is None else (("authorization", f"Bearer {token}"),)


class SeatClient:
    """One seat of one game (``token`` ``None``: a spectator, who may only watch)."""

    def __init__(self, client: GameClient, name: str, token: str | None) -> None:
        self.client = client
        self.name = name
        # The game id rides along so that a router (k8s/router.yaml) sends every call of one
        # game to one server process (service.client.routing).
        self.metadata = (*bearer_metadata(token), *affinity_metadata(name))

    def join(self) -> pb.JoinGameResponse:
        response: pb.JoinGameResponse = self.client.stub.JoinGame(
            pb.JoinGameRequest(name=self.name), metadata=self.metadata
        )
        return response

    def view(self, min_version: int = 0) -> pb.SeatView:
        request = pb.GetSeatViewRequest(name=self.name, min_version=min_version)
        response: pb.GetSeatViewResponse = _patient(
            self.client.stub.GetSeatView, request, self.metadata
        )
        return response.view

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

    def resign(self, request_id: str | None = None) -> pb.ResignGameResponse:
        """This seat resigns; the server's bot plays on (docs/CLOCKS.md)."""
        request = pb.ResignGameRequest(name=self.name, request_id=request_id or uuid.uuid4().hex)
        response: pb.ResignGameResponse = _retry(
            self.client.stub.ResignGame, request, metadata=self.metadata
        )
        return response

    def adjourn(self, request_id: str | None = None) -> pb.AdjournGameResponse:
        """This seat agrees to adjourn the game."""
        request = pb.AdjournGameRequest(name=self.name, request_id=request_id or uuid.uuid4().hex)
        response: pb.AdjournGameResponse = _retry(
            self.client.stub.AdjournGame, request, metadata=self.metadata
        )
        return response

    def resume(self, request_id: str | None = None) -> pb.ResumeGameResponse:
        """This seat asks to resume the adjourned game."""
        request = pb.ResumeGameRequest(name=self.name, request_id=request_id or uuid.uuid4().hex)
        response: pb.ResumeGameResponse = _retry(
            self.client.stub.ResumeGame, request, metadata=self.metadata
        )
        return response

    def flag_deal(
        self, deal_number: int, reason: str, request_id: str | None = None
    ) -> pb.FlagDealResponse:
        """This seat disputes a scored deal (``FlagDeal``); a referee rules on it."""
        request = pb.FlagDealRequest(
            name=self.name,
            deal_number=deal_number,
            reason=reason,
            request_id=request_id or uuid.uuid4().hex,
        )
        response: pb.FlagDealResponse = _retry(
            self.client.stub.FlagDeal, request, metadata=self.metadata
        )
        return response

    def order_game(
        self,
        pool: int,
        end_time: int = 0,
        request_id: str | None = None,
        obligations: Mapping[str, int] | None = None,
    ) -> pb.OrderGameResponse:
        """Order the game (S000 Classic): the pool length and, in a game played until time, the
        end time in seconds since the epoch (0: none); under the robber, the obligatory games
        (contract kind → count, e.g. ``{"nine": 2}``)."""
        request = pb.OrderGameRequest(
            name=self.name, pool=pool, request_id=request_id or uuid.uuid4().hex
        )
        if end_time:
            request.end_time.FromSeconds(end_time)
        if obligations:
            request.obligations.CopyFrom(pb.Obligations(**obligations))
        response: pb.OrderGameResponse = _retry(
            self.client.stub.OrderGame, request, metadata=self.metadata
        )
        return response

    def list_events(self, page_size: int = 0, page_token: str = "") -> pb.ListGameEventsResponse:
        """One page of the game's events as this seat (or a spectator) sees them."""
        request = pb.ListGameEventsRequest(
            name=self.name, page_size=page_size, page_token=page_token
        )
        response: pb.ListGameEventsResponse = _patient(
            self.client.stub.ListGameEvents, request, self.metadata
        )
        return response

    def watch(
        self, from_version: int = 0, heartbeat_seconds: int = 15, delay_moves: int = 0
    ) -> Iterator[Any]:
        request = pb.WatchGameRequest(
            name=self.name,
            from_version=from_version,
            heartbeat_seconds=heartbeat_seconds,
            delay_moves=delay_moves,
        )
        stream: Iterator[Any] = self.client.stub.WatchGame(request, metadata=self.metadata)
        return stream

    def watch_batches(
        self,
        from_version: int = 0,
        heartbeat_seconds: int = 15,
        max_batch_size: int = 0,
        max_delay_ms: int = 0,
        delay_moves: int = 0,
    ) -> Iterator[Any]:
        """The ``WatchGameBatches`` stream: ``WatchGameBatchesResponse`` messages."""
        request = pb.WatchGameBatchesRequest(
            name=self.name,
            from_version=from_version,
            heartbeat_seconds=heartbeat_seconds,
            max_batch_size=max_batch_size,
            max_delay_ms=max_delay_ms,
            delay_moves=delay_moves,
        )
        stream: Iterator[Any] = self.client.stub.WatchGameBatches(request, metadata=self.metadata)
        return stream

    def watch_updates(
        self,
        from_version: int = 0,
        heartbeat_seconds: int = 15,
        max_batch_size: int = 0,
        max_delay_ms: int = 0,
        delay_moves: int = 0,
    ) -> Updates:
        """``watch``'s messages (events and heartbeats, one by one) received in batches
        (``WatchGameBatches``): fewer stream messages for a resume or a client that falls
        behind. ``cancel()`` ends the stream."""
        return Updates(
            self.watch_batches(
                from_version, heartbeat_seconds, max_batch_size, max_delay_ms, delay_moves
            )
        )


class Updates:
    """A ``WatchGameBatches`` stream flattened into its ``WatchGameResponse`` messages."""

    def __init__(self, stream: Iterator[Any]) -> None:
        self.stream = stream
        self._updates = (update for batch in stream for update in batch.updates)

    def __iter__(self) -> Updates:
        return self

    def __next__(self) -> pb.WatchGameResponse:
        update: pb.WatchGameResponse = next(self._updates)
        return update

    def cancel(self) -> None:
        """End the stream (the server sees the call cancelled)."""
        cancel = getattr(self.stream, "cancel", None)
        if cancel is not None:
            cancel()


def retry_delay(error: grpc.RpcError) -> float | None:
    """The delay a RESOURCE_EXHAUSTED refusal asks for (``google.rpc.RetryInfo``), if any."""
    if not isinstance(error, grpc.Call) or error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    status = rpc_status.from_call(error)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return float(info.retry_delay.seconds + info.retry_delay.nanos / 1e9)
    return None


def _patient(method: Any, request: Any, metadata: Any = None) -> Any:
    """A read, retried only after a short RESOURCE_EXHAUSTED delay."""
    return _retry(method, request, metadata, codes=())


def _retry(
    method: Any,
    request: Any,
    metadata: Any = None,
    attempts: int = 5,
    codes: Collection[grpc.StatusCode] = RETRIED,
) -> Any:
    """A call retried after a short RESOURCE_EXHAUSTED delay, and with backoff on ``codes``."""
    delay = 0.05
    for attempt in range(attempts):
        try:
            return method(request, metadata=metadata)
        except grpc.RpcError as exc:
            if attempt == attempts - 1:
                raise
            wait = retry_delay(exc)
            if wait is not None and wait <= MAX_RETRY_DELAY:
                time.sleep(wait)
                continue
            if exc.code() not in codes:
                raise
            time.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")
