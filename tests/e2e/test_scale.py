"""Several real ``pref serve`` processes on one sharded store (docs/SCALING.md): correctness
never depends on game affinity. Two processes take racing commands for the same game, through
both at once, on SQLite files and on PostgreSQL tables: no accepted command is lost, none is
recorded twice, and the log replays in the rules core."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from domain.rules import RuleSet
from service.app.application import PreferansApplication
from service.app.config import store_config
from service.app.shards import recorders_of, shard_of
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServeProcess, postgres_schema
from tests.e2e.helpers import PLAYERS
from tests.integration.helpers import event_action, replay_in_domain

REFUSED = {grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION}
"""What the loser of a race hears: ``Conflict`` (retry) or the rules' refusal (the game moved)."""


@pytest.fixture(params=["sqlite", "postgres"])
def sharded_store(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """A fresh store that the server processes open with two shards (``PREF_SHARDS``)."""
    monkeypatch.setenv("PREF_SHARDS", "2")
    if request.param == "sqlite":
        yield str(tmp_path / "events.sqlite")
        return
    with postgres_schema() as url:
        yield url


def _race(
    clients: list[GameClient], requests: list[pb.SubmitActionRequest], metadata: Any
) -> list[pb.SubmitActionResponse | grpc.RpcError]:
    """Send ``requests[i]`` through ``clients[i]``, all released at once."""
    barrier = threading.Barrier(len(requests))
    outcomes: list[pb.SubmitActionResponse | grpc.RpcError] = [grpc.RpcError() for _ in requests]

    def send(i: int) -> None:
        barrier.wait()
        try:
            outcomes[i] = clients[i].stub.SubmitAction(requests[i], metadata=metadata, timeout=30)
        except grpc.RpcError as error:
            outcomes[i] = error

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return outcomes


def test_two_processes_racing_on_one_game_lose_and_duplicate_nothing(
    sharded_store: str, serve_process: Callable[[str], ServeProcess]
) -> None:
    """docs/SCALING.md (correctness without affinity): the store's optimistic concurrency
    serialises two processes writing one game; affinity is only an optimisation."""
    replicas = [serve_process(sharded_store), serve_process(sharded_store)]
    clients = [GameClient(r.address) for r in replicas]
    accepted: dict[str, int] = {}
    served_by: Counter[int] = Counter()
    try:
        created = clients[0].create_game(PLAYERS, RuleSet(pool_target=2))
        name, tokens = created.game.name, list(created.seat_tokens)
        version = created.game.version
        for step in range(36):
            seats = [clients[step % 2].seat(name, t) for t in tokens]
            view = seats[0].view(min_version=version)
            if view.actor < 0:
                break
            actor = seats[view.actor].view(min_version=version)
            legal = list(actor.legal)
            # Two different decisions where there is a choice, else the same one twice.
            actions = [legal[0], legal[-1]]
            requests = [
                pb.SubmitActionRequest(name=name, action=a, request_id=f"s{step}-p{i}")
                for i, a in enumerate(actions)
            ]
            outcomes = _race(clients, requests, seats[view.actor].metadata)
            wins = [
                (i, o) for i, o in enumerate(outcomes) if isinstance(o, pb.SubmitActionResponse)
            ]
            assert wins, outcomes
            for i, outcome in enumerate(outcomes):
                if isinstance(outcome, pb.SubmitActionResponse):
                    accepted[requests[i].request_id] = outcome.version
                    served_by[i] += 1
                else:
                    assert isinstance(outcome, grpc.Call) and outcome.code() in REFUSED, outcome
            version = max(o.version for _, o in wins)
        assert served_by[0] and served_by[1], served_by  # both processes won some races
    finally:
        for client in clients:
            client.close()
    for process in replicas:
        assert process.terminate() == 0, process.output()

    game_id = uuid.UUID(name.removeprefix("games/"))
    app = PreferansApplication(store_config(sharded_store).env)
    try:
        events = app.game_events(game_id)
        shards = recorders_of(app.recorder)
        assert len(shards) == 2
        home = shard_of(game_id, 2)
        assert len(shards[home].select_events(game_id)) == len(events)
        assert shards[1 - home].select_events(game_id) == []
    finally:
        app.close()
    assert [e.originator_version for e in events] == list(range(1, len(events) + 1))
    decisions = [e for e in events if event_action(e) is not None]
    recorded = Counter(e.request_id for e in decisions)
    assert set(recorded) == set(accepted)  # nothing lost, nothing invented
    assert all(count == 1 for count in recorded.values())  # nothing twice
    for event in decisions:
        assert accepted[event.request_id] >= event.originator_version
    replay_in_domain(events)
