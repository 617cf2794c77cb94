"""Real ``pref serve`` processes: two replicas on one PostgreSQL, health and reflection, and a
graceful exit on SIGTERM."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from domain.bots import make_bot
from domain.rules import RuleSet
from service.cli.botplay import bot_step
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServeProcess, ServerThread
from tests.e2e.helpers import PLAYERS, StreamReader

BOT = make_bot()
SERVICE = "preferans.v1.GameService"
PROMPT_SECONDS = 5.0
""""Promptly" (the issue's word): well under the watchers' 1 s safety poll plus a loaded
machine's scheduling; a liveness bound, not a performance measurement."""


def test_two_server_processes_on_one_postgresql_serve_one_game(
    pg_url: str, serve_process: Callable[[str], ServeProcess]
) -> None:
    replicas = [serve_process(pg_url), serve_process(pg_url)]
    clients = [GameClient(r.address) for r in replicas]
    try:
        created = clients[0].create_game(PLAYERS, RuleSet(pool_target=2))
        name = created.game.name
        tokens = list(created.seat_tokens)
        # seats[r][s]: seat s through replica r.
        seats = [[c.seat(name, t) for t in tokens] for c in clients]
        streams = [
            StreamReader(seats[0][0].watch(from_version=0, heartbeat_seconds=300)),
            StreamReader(seats[1][0].watch(from_version=0, heartbeat_seconds=300)),
            StreamReader(seats[1][2].watch(from_version=0, heartbeat_seconds=300)),
        ]
        done_at: dict[int, float] = {created.game.version: time.monotonic()}
        try:
            version = created.game.version
            step = 0
            while True:
                replica = step % 2  # alternate the replicas, command by command
                view = seats[replica][0].view(min_version=version)
                assert view.version == version
                if view.actor < 0:
                    break
                actor_view = view if view.actor == 0 else seats[replica][view.actor].view(version)
                version = bot_step(seats[replica][view.actor], actor_view, BOT)
                done_at[version] = time.monotonic()
                step += 1
            for client in clients:
                game = client.get_game(name)
                assert game.status == pb.GAME_STATUS_FINISHED and game.version == version
            assert step > 20
            for stream in streams:
                messages = list(stream.events_until(version, timeout=10))
                assert [m.version for m in messages] == list(range(1, version + 1))
                assert messages[-1].HasField("game_finished")
            for a, b in ((0, 1),):  # the same seat's stream is the same on both replicas
                assert list(streams[a].received_at) == list(streams[b].received_at)
            for stream in streams:
                for at, arrived in stream.received_at.items():
                    if at in done_at:
                        lag = arrived - done_at[at]
                        assert lag < PROMPT_SECONDS, f"version {at} arrived {lag:.1f}s late"
            sheets = [c.scoresheet(name, min_version=version) for c in clients]
            assert sheets[0] == sheets[1] and sheets[0].settlement
        finally:
            for stream in streams:
                stream.close()
    finally:
        for client in clients:
            client.close()
    for process in replicas:
        assert process.terminate() == 0, process.output()


def _health(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)
        for service in ("", SERVICE):
            answer = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING, service
        try:
            stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND
        else:
            raise AssertionError("an unknown service has no health")
        reflection: Any = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        (answer,) = list(reflection.ServerReflectionInfo(iter([request]), timeout=5))
        names = {s.name for s in answer.list_services_response.service}
        assert {SERVICE, "grpc.health.v1.Health"} <= names
        request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE)
        (answer,) = list(reflection.ServerReflectionInfo(iter([request]), timeout=5))
        assert answer.file_descriptor_response.file_descriptor_proto


def test_health_and_reflection(server: ServerThread) -> None:
    _health(server.address)


def test_pref_serve_exits_cleanly_on_sigterm(
    tmp_path: Path, serve_process: Callable[[str], ServeProcess]
) -> None:
    running = serve_process(str(tmp_path / "events.sqlite"))
    _health(running.address)
    client = GameClient(running.address)
    try:
        created = client.create_game(PLAYERS, RuleSet(pool_target=2))
        seat = client.seat(created.game.name, created.seat_tokens[0])
        # An open stream (an in-flight call) must not hold the shutdown back.
        stream = StreamReader(seat.watch(heartbeat_seconds=300))
        assert stream.next().HasField("game_created")
        assert stream.next().HasField("deal_dealt")
        started = time.monotonic()
        running.process.send_signal(signal.SIGTERM)
        code = running.process.wait(timeout=15)
        elapsed = time.monotonic() - started
        # The stream ends with UNAVAILABLE: the client resumes on another replica.
        try:
            stream.next(timeout=5)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
            assert "resume from version 2" in (error.details() or "")
        else:
            raise AssertionError("the stream outlived the server")
        stream.close()
    finally:
        client.close()
    assert code == 0, running.output()
    # The property: an open stream does not hold the shutdown for the whole 10 s grace period.
    assert elapsed < 9.0, f"took {elapsed:.1f}s to stop"
