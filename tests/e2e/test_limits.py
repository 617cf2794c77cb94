"""Per-caller rate limits and quotas, message-size limits and port ownership, against a real
server on both stores: a caller over its budget gets RESOURCE_EXHAUSTED with RetryInfo and
QuotaFailure, nothing is recorded, and other callers are unaffected."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2

from domain.rules import RuleSet
from service.api.limits import Limits
from service.api.server import BindError, create_server
from service.app.config import StoreConfig, sqlite_store
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import REPO, ServeProcess, ServerFactory, ServerThread
from tests.e2e.helpers import PLAYERS, Refusal, StreamReader, refused

SECRET = "auditor-secret-for-limits"
AUDITOR = (("authorization", f"Bearer auditor:{SECRET}"),)
SLOW = 1e-6
"""A refill rate so slow that no token comes back while a test runs (no timing involved)."""


def stored(server: ServerThread) -> int:
    """How many events the store holds (its highest notification id)."""
    return int(server.app.recorder.max_notification_id() or 0)


def quota_failure(refusal: Refusal) -> error_details_pb2.QuotaFailure:
    for detail in refusal.status.details:
        if detail.Is(error_details_pb2.QuotaFailure.DESCRIPTOR):
            failure = error_details_pb2.QuotaFailure()
            detail.Unpack(failure)
            return failure
    raise AssertionError("no google.rpc.QuotaFailure in the details")


def assert_exhausted(refusal: Refusal, subject_start: str) -> None:
    assert refusal.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert refusal.retry_info is not None, "no google.rpc.RetryInfo"
    delay = refusal.retry_info.retry_delay
    assert delay.seconds > 0 or delay.nanos > 0
    violations = quota_failure(refusal).violations
    assert len(violations) == 1 and violations[0].subject.startswith(subject_start)


def create_request(players: list[str] = PLAYERS) -> pb.CreateGameRequest:
    return pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in players],
        rules=pb.RuleSet(name="default"),
        request_id=uuid.uuid4().hex,
    )


def test_creation_over_the_burst_is_refused_and_records_nothing(
    store: StoreConfig, start_server: ServerFactory
) -> None:
    limits = Limits(creates_per_minute=SLOW, create_burst=3)
    server = start_server(store, limits=limits, auditor_token=SECRET)
    client = GameClient(server.address)
    try:
        games = [client.create_game(PLAYERS, RuleSet(pool_target=2)) for _ in range(3)]
        before = stored(server)
        request = create_request()
        request.request_id = "the-fourth"
        answer = refused(client.stub.CreateGame, request)
        assert_exhausted(answer, "peer 127.0.0.1")
        assert "game creations" in answer.message
        assert stored(server) == before
        # A seat token of a game it created gives the peer no fresh creation budget ...
        seat = client.seat(games[0].game.name, games[0].seat_tokens[0])
        by_seat = refused(client.stub.CreateGame, create_request(), metadata=seat.metadata)
        assert_exhausted(by_seat, "peer 127.0.0.1")
        assert stored(server) == before
        # ... but other callers keep their own budgets: the auditor, and the seat's commands.
        by_auditor = client.stub.CreateGame(create_request(), metadata=AUDITOR)
        assert by_auditor.game.name
        assert seat.view().version == games[0].game.version
        # Reads by the same peer are a separate budget.
        assert client.get_game(games[1].game.name).version == games[1].game.version
    finally:
        client.close()


def test_calls_over_budget_are_refused_per_caller(
    store: StoreConfig, start_server: ServerFactory
) -> None:
    server = start_server(store, limits=Limits(calls_per_second=SLOW, call_burst=4))
    client = GameClient(server.address)
    try:
        created = client.create_game(PLAYERS, RuleSet(pool_target=2))
        name = created.game.name
        seats = [client.seat(name, token) for token in created.seat_tokens]
        view = seats[0].view()
        actor = seats[view.actor]
        actor_view = view
        for _ in range(4 if view.actor else 3):  # four calls by the actor's seat in all
            actor_view = actor.view()
        before = stored(server)
        action = actor_view.legal[0]
        request = pb.SubmitActionRequest(name=name, action=action, request_id="over-budget")
        answer = refused(client.stub.SubmitAction, request, metadata=actor.metadata)
        assert_exhausted(answer, f"seat {view.actor} of {name}")
        assert stored(server) == before
        # Another seat of the same game, and the peer without a token, are unaffected.
        other = seats[(view.actor + 1) % 3]
        assert other.view().version == created.game.version
        assert client.get_game(name).version == created.game.version
    finally:
        client.close()


def test_open_games_quota(store: StoreConfig, start_server: ServerFactory) -> None:
    server = start_server(store, limits=Limits(open_games=2))
    client = GameClient(server.address)
    try:
        for _ in range(2):
            client.create_game(PLAYERS)
        before = stored(server)
        answer = refused(client.stub.CreateGame, create_request())
        assert_exhausted(answer, "peer 127.0.0.1")
        assert "open games" in answer.message
        assert stored(server) == before
    finally:
        client.close()


def test_concurrent_watch_streams_per_caller(
    sqlite_only: StoreConfig, start_server: ServerFactory
) -> None:
    server = start_server(sqlite_only, limits=Limits(watch_streams=1))
    client = GameClient(server.address)
    try:
        created = client.create_game(PLAYERS)
        seat = client.seat(created.game.name, created.seat_tokens[0])
        first = StreamReader(seat.watch(heartbeat_seconds=300))
        assert first.next().version == 1
        second = StreamReader(seat.watch(heartbeat_seconds=300))
        with pytest.raises(grpc.RpcError) as caught:
            second.next()
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        second.close()
        # Another seat has its own streams.
        other = StreamReader(client.seat(created.game.name, created.seat_tokens[1]).watch())
        assert other.next().version == 1
        other.close()
        # WatchGameBatches streams count against the same quota (issue 10).
        batched = StreamReader(seat.watch_batches(heartbeat_seconds=300))
        with pytest.raises(grpc.RpcError) as caught:
            batched.next_batch()
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        batched.close()
        # Closing the first stream frees its place.
        first.close()
        third = StreamReader(seat.watch_batches(heartbeat_seconds=300))
        assert third.next_batch().updates[0].version == 1
        fourth = StreamReader(seat.watch(heartbeat_seconds=300))
        with pytest.raises(grpc.RpcError) as caught:
            fourth.next()
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        fourth.close()
        third.close()
    finally:
        client.close()


def test_oversized_request_is_refused_and_records_nothing(
    store: StoreConfig, start_server: ServerFactory
) -> None:
    server = start_server(store, limits=Limits(max_receive_bytes=16 * 1024))
    client = GameClient(server.address)
    try:
        before = stored(server)
        with pytest.raises(grpc.RpcError) as caught:
            client.stub.CreateGame(create_request(["a" * 20_000, "bob", "cid"]))
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert stored(server) == before
        assert client.create_game(PLAYERS).game.name  # a normal request still passes
    finally:
        client.close()


def test_a_second_server_on_the_same_port_is_refused(
    tmp_path: Path, serve_process: Callable[[str], ServeProcess]
) -> None:
    first = serve_process(str(tmp_path / "first.sqlite"))
    pref = Path(sys.executable).with_name("pref")
    command = [str(pref), "serve", "--store", str(tmp_path / "second.sqlite")]
    command += ["--host", "127.0.0.1", "--port", str(first.port), "--log-level", "warning"]
    second = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert second.returncode == 2
    lines = [line for line in second.stderr.splitlines() if line.startswith("pref serve:")]
    assert lines == [
        f"pref serve: cannot listen on 127.0.0.1:{first.port}: "
        "the address is in use or not available"
    ]
    assert "Traceback" not in second.stderr
    first.wait_serving()  # the first one still serves


def test_the_python_client_waits_out_a_short_retry_delay(
    sqlite_only: StoreConfig, start_server: ServerFactory
) -> None:
    server = start_server(sqlite_only, limits=Limits(calls_per_second=0.5, call_burst=1))
    client = GameClient(server.address)
    try:
        created = client.create_game(PLAYERS)
        seat = client.seat(created.game.name, created.seat_tokens[0])
        seat.view()
        request = pb.GetSeatViewRequest(name=created.game.name)
        answer = refused(client.stub.GetSeatView, request, metadata=seat.metadata)
        assert_exhausted(answer, "seat 0 of")
        assert seat.view().version == created.game.version  # waits for the RetryInfo delay
    finally:
        client.close()


def test_a_flood_of_creations_from_one_client_is_stopped_by_default(
    sqlite_only: StoreConfig, start_server: ServerFactory
) -> None:
    server = start_server(sqlite_only)  # the default limits
    client = GameClient(server.address)
    try:
        accepted = 0
        with pytest.raises(grpc.RpcError) as caught:
            while accepted < 200:
                client.stub.CreateGame(create_request())
                accepted += 1
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert Limits().create_burst <= accepted < 200
    finally:
        client.close()


def test_sharing_a_port_needs_reuse_port_on_both(tmp_path: Path) -> None:
    async def attempt() -> None:
        first = await create_server(
            sqlite_store(str(tmp_path / "a.sqlite")), "127.0.0.1:0", reuse_port=True
        )
        address = f"127.0.0.1:{first.port}"
        try:
            with pytest.raises(BindError):
                await create_server(sqlite_store(str(tmp_path / "b.sqlite")), address)
            second = await create_server(
                sqlite_store(str(tmp_path / "c.sqlite")), address, reuse_port=True
            )
            assert second.port == first.port
            await second.stop(grace=0)
        finally:
            await first.stop(grace=0)

    asyncio.run(attempt())
