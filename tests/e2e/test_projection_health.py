"""A read model that stops is visible from outside, on both stores: its gRPC health service
(``preferans.v1.projections.<name>``) turns NOT_SERVING while the server as a whole stays
SERVING, the metrics say so, and it turns SERVING again once the projection can go on."""

from __future__ import annotations

import time
import urllib.request
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from projections import PROJECTION_NAMES, RETIRED
from projections.metrics import serve_metrics
from service.api.projection_health import projection_health_name
from service.app.config import StoreConfig
from service.client import GameClient
from tests.e2e.conftest import ServerThread
from tests.integration.helpers import execute_raw

WAIT = 60.0
"""A liveness bound: how long the status may take to change (not a performance assertion)."""

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _refuse_league(env: dict[str, str], league: str) -> list[tuple[str, tuple[Any, ...]]]:
    """Make the ``games`` table refuse rows of one league (as a store refusing a value would)."""
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        return [
            (
                "CREATE TRIGGER refuse_league BEFORE INSERT ON games WHEN NEW.league = "
                f"'{league}' BEGIN SELECT RAISE(ABORT, 'refused'); END",
                (),
            )
        ]
    return [(f"ALTER TABLE games ADD CONSTRAINT refuse_league CHECK (league <> '{league}')", ())]


def _accept_again(env: dict[str, str]) -> list[tuple[str, tuple[Any, ...]]]:
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        return [("DROP TRIGGER refuse_league", ())]
    return [("ALTER TABLE games DROP CONSTRAINT refuse_league", ())]


def _wait_for(stub: Any, service: str, wanted: int) -> None:
    deadline = time.monotonic() + WAIT
    while True:
        answer = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        if answer.status == wanted:
            return
        assert time.monotonic() < deadline, f"{service} stayed {answer.status}"
        time.sleep(0.05)


def test_a_stopped_read_model_is_not_serving_until_it_goes_on(
    store: StoreConfig, server: ServerThread, client: GameClient
) -> None:
    metrics_port = serve_metrics("127.0.0.1", 0)
    games = projection_health_name("games")
    with grpc.insecure_channel(server.address) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)
        for name in PROJECTION_NAMES:
            _wait_for(stub, projection_health_name(name), SERVING)
        for name in RETIRED.keys() - set(PROJECTION_NAMES):  # removed read models: unknown
            with pytest.raises(grpc.RpcError) as retired:
                stub.Check(health_pb2.HealthCheckRequest(service=projection_health_name(name)))
            assert retired.value.code() == grpc.StatusCode.NOT_FOUND
        client.create_game(["ann", "bob", "cid"], league="fine")
        execute_raw(store.env, _refuse_league(store.env, "refused"))
        client.create_game(["ann", "bob", "cid"], league="refused")

        _wait_for(stub, games, NOT_SERVING)
        answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
        assert answer.status == SERVING
        answer = stub.Check(
            health_pb2.HealthCheckRequest(service=projection_health_name("stats")), timeout=5
        )
        assert answer.status == SERVING
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics") as response:
            text = response.read().decode()
        assert 'preferans_projection_serving{projection="games"} 0.0' in text
        assert 'preferans_projection_failures_total{kind="event",projection="games"}' in text

        execute_raw(store.env, _accept_again(store.env))
        _wait_for(stub, games, SERVING)
        listed = client.list_games()
        assert sorted(game.league for game in listed.games) == ["fine", "refused"]
