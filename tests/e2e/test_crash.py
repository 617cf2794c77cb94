"""The crash suite: ``kill -9`` of ``pref serve`` and of a ``pref projections run`` worker at
random moments while bots play through the API, on each store.

The server runs without in-process projections (``--no-projections``), so the read models are
kept by a separate worker process that is killed too. Every command carries a request id; a
command whose answer was lost to a kill is retried with the SAME id once a new server is up.
Afterwards, from the event log itself:

- every acknowledged command is in the log exactly once (its request id's events end at the
  version it was answered with; one player action per request id; nothing lost, nothing twice);
- the read models catch up (every projection reaches the log's end; ListGames shows each game
  at its last version; the league statistics count exactly the games, deals and finished games
  the log holds: a batch applied twice would show);
- ``pref audit`` verifies every game.

The kill schedule (delays and which process) comes from ``PREF_CRASH_SEED`` (default: fixed per
store), printed in every failure, so a failing schedule can be replayed.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest

from domain.bots import make_bot
from domain.model.replay import event_name
from service.api.mapping import action_to_proto, rules_to_proto
from service.app.application import PreferansApplication
from service.app.config import store_config
from service.cli.viewstate import view_from_proto
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import game_pb2_grpc, stats_pb2, stats_pb2_grpc
from tests.e2e.conftest import REPO, postgres_schema
from tests.e2e.crash_cluster import Cluster
from tests.e2e.fuzz_harness import projection_positions, retrying
from tests.e2e.helpers import PLAYERS

T = TypeVar("T")
pytestmark = pytest.mark.crash
KILLS = int(os.environ.get("PREF_CRASH_KILLS", "8"))
"""Kills per store (server and worker together)."""
SEEDS = {"sqlite": 9091, "postgres": 9092}
LEAGUE = "crash"
TRANSIENT = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
)
"""What a client sees of a killed server, a lost race or a rate limit: retry with the same
request id."""
RECOVERY_SECONDS = 120.0
"""Liveness bound: a restarted server answers, the read models reach the log's end."""


@dataclass
class Acknowledged:
    """A command the server answered: its request id and the version it answered with."""

    game: str
    request_id: str
    version: int
    retried: bool
    replayed: bool
    kind: str


class Driver:
    """Bots playing through whichever server is up; a call lost to a kill is retried with the
    same request id on the next server."""

    def __init__(self, cluster: Cluster, seed: int) -> None:
        self.cluster = cluster
        self.seed = seed
        self.acknowledged: list[Acknowledged] = []
        self.games: dict[str, list[str]] = {}
        self._generation = -1
        self._channel: grpc.Channel | None = None
        self._stub: Any = None
        self._numbers = 0
        self.bots = [make_bot() for _ in range(3)]
        self.in_flight = threading.Event()
        """Set while a SubmitAction is on its way (the killer aims at it)."""

    def close(self) -> None:
        if self._channel is not None:
            self._channel.close()

    def stub(self) -> Any:
        with self.cluster.ready:
            if self.cluster.generation != self._generation:
                if self._channel is not None:
                    self._channel.close()
                self._channel = grpc.insecure_channel(self.cluster.address)
                self._stub = game_pb2_grpc.GameServiceStub(self._channel)
                self._generation = self.cluster.generation
            return self._stub

    def call(self, do: Callable[[Any], T]) -> tuple[T, bool]:
        """``do(stub)`` until it is answered; True if a retry was needed."""
        deadline = time.monotonic() + RECOVERY_SECONDS
        retried = False
        while True:
            generation = self._generation
            try:
                return do(self.stub()), retried
            except grpc.RpcError as error:
                assert isinstance(error, grpc.Call)
                if error.code() not in TRANSIENT or time.monotonic() > deadline:
                    raise
            retried = True
            with self.cluster.ready:
                self.cluster.ready.wait_for(
                    lambda seen=generation: self.cluster.generation != seen, timeout=0.5
                )

    def request_id(self) -> str:
        self._numbers += 1
        return f"crash-{self.seed}-{self._numbers}"

    def create(self) -> str:
        request = pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            rules=rules_to_proto_small(),
            league=LEAGUE,
            request_id=self.request_id(),
        )
        answer, retried = self.call(lambda s: s.CreateGame(request, timeout=10))
        name: str = answer.game.name
        self.games[name] = list(answer.seat_tokens)
        self.acknowledged.append(
            Acknowledged(name, request.request_id, answer.game.version, retried, False, "create")
        )
        return name

    def step(self, name: str) -> bool:
        """One bot decision in the game (False once it has ended)."""
        tokens = self.games[name]

        def view(seat: int) -> pb.SeatView:
            meta = (("authorization", f"Bearer {tokens[seat]}"),)
            request = pb.GetSeatViewRequest(name=name)
            answer: pb.GetSeatViewResponse
            answer, _ = self.call(lambda s: s.GetSeatView(request, metadata=meta, timeout=10))
            return answer.view

        first = view(0)
        if first.actor < 0:
            game, _ = self.call(lambda s: s.GetGame(pb.GetGameRequest(name=name), timeout=10))
            return bool(game.game.status != pb.GAME_STATUS_FINISHED)
        seat = first.actor
        action = self.bots[seat](view_from_proto(view(seat)))
        request = pb.SubmitActionRequest(
            name=name, action=action_to_proto(action), request_id=self.request_id()
        )
        meta = (("authorization", f"Bearer {tokens[seat]}"),)

        def submit(stub: Any) -> pb.SubmitActionResponse:
            self.in_flight.set()
            try:
                answer: pb.SubmitActionResponse = stub.SubmitAction(
                    request, metadata=meta, timeout=10
                )
            finally:
                self.in_flight.clear()
            return answer

        answer, retried = self.call(submit)
        self.acknowledged.append(
            Acknowledged(name, request.request_id, answer.version, retried, answer.replayed, "act")
        )
        return True


def rules_to_proto_small() -> pb.RuleSet:
    from domain.rules import RuleSet

    return rules_to_proto(RuleSet(pool_target=2))


def _killer(cluster: Cluster, driver: Driver, rng: random.Random, done: threading.Event) -> None:
    """Kills at seeded random moments; most server kills aim at a command in flight
    (0–4 ms after it was sent: before, during or after its commit, its answer maybe lost)."""
    try:
        for _ in range(KILLS):
            time.sleep(rng.uniform(0.2, 1.5))
            which = "server" if rng.random() < 0.6 else "worker"
            if which == "server" and rng.random() < 0.7:
                driver.in_flight.wait(5)
                time.sleep(rng.uniform(0, 0.004))
            cluster.kill(which)
    finally:
        done.set()


# -- the checks -----------------------------------------------------------------------------


def _check_log(app: PreferansApplication, driver: Driver, context: str) -> dict[str, int]:
    """Every acknowledged command exactly once; returns each game's last version."""
    versions: dict[str, int] = {}
    by_request: dict[str, list[Any]] = {}
    for name in driver.games:
        game_id = uuid.UUID(name.removeprefix("games/"))
        events = retrying(partial(app.game_events, game_id))
        assert [e.originator_version for e in events] == list(range(1, len(events) + 1)), context
        versions[name] = len(events)
        for event in events:
            by_request.setdefault(event.request_id, []).append(event)
    for ack in driver.acknowledged:
        events = by_request.get(ack.request_id, [])
        assert events, f"{context}: acknowledged {ack} is not in the log (lost)"
        assert max(e.originator_version for e in events) == ack.version, (
            f"{context}: {ack} was answered with version {ack.version}, the log has "
            f"{[e.originator_version for e in events]}"
        )
        if ack.kind == "act":
            actions = [e for e in events if e.seat >= 0]
            assert len(actions) == 1, f"{context}: {ack} recorded {len(actions)} actions"
    sent = {ack.request_id for ack in driver.acknowledged}
    assert set(by_request) <= sent, f"{context}: events of unsent request ids"
    return versions


def _check_read_models(
    app: PreferansApplication, driver: Driver, versions: dict[str, int], context: str
) -> None:
    """Within ``RECOVERY_SECONDS``: projections at the log's end, ListGames at each game's
    last version, the league's counts equal to the log's."""
    names = {n: uuid.UUID(n.removeprefix("games/")) for n in driver.games}
    events = [e for game_id in names.values() for e in retrying(partial(app.game_events, game_id))]
    kinds = Counter(event_name(e) for e in events)
    expected = (kinds["GameCreated"], kinds["GameFinished"], kinds["DealScored"])
    deadline = time.monotonic() + RECOVERY_SECONDS
    problem = ""
    while time.monotonic() < deadline:
        end = retrying(lambda: int(app.recorder.max_notification_id() or 0))
        positions = retrying(lambda: projection_positions(app))
        behind = {name: at for name, at in positions.items() if at < end}
        try:
            stub = driver.stub()
            page = stub.ListGames(pb.ListGamesRequest(page_size=500), timeout=10)
            with grpc.insecure_channel(driver.cluster.address) as channel:
                stats: Any = stats_pb2_grpc.StatsServiceStub(channel)
                request = stats_pb2.GetLeagueRequest(league=LEAGUE)
                league = stats.GetLeague(request, timeout=10).league
        except grpc.RpcError as error:
            problem = f"the read models cannot be read: {error}"
            time.sleep(0.5)
            continue
        listed = {g.name: g.version for g in page.games}
        stale = {n: (listed.get(n), v) for n, v in versions.items() if listed.get(n) != v}
        counted = (league.games_started, league.games, league.deals)
        if not behind and not stale and counted == expected:
            return
        problem = (
            f"projections behind the log's end {end}: {behind}; ListGames (listed, log) "
            f"versions differ: {stale}; league counts {counted} != log {expected}"
        )
        time.sleep(0.5)
    raise AssertionError(f"{context}: read models do not catch up: {problem}")


def _audit(store: str, name: str, context: str) -> None:
    pref = Path(sys.executable).with_name("pref")
    done = subprocess.run(
        [str(pref), "audit", name, "--store", store],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"{context}: pref audit {name}: {done.stdout}{done.stderr}"


# -- the test -------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if request.param == "sqlite":
        yield request.param, str(tmp_path / "events.sqlite")
        return
    with postgres_schema() as url:
        yield request.param, url


def test_kill_9_loses_and_duplicates_nothing(store_url: tuple[str, str], tmp_path: Path) -> None:
    flavor, store = store_url
    seed = int(os.environ.get("PREF_CRASH_SEED", SEEDS[flavor]))
    context = f"[{flavor}, PREF_CRASH_SEED={seed}, {KILLS} kills]"
    rng = random.Random(seed)
    cluster = Cluster(store, tmp_path)
    cluster.start_server()
    cluster.start_worker()
    driver = Driver(cluster, seed)
    done = threading.Event()
    killer = threading.Thread(target=_killer, args=(cluster, driver, rng, done), daemon=True)
    try:
        playing = [driver.create() for _ in range(2)]
        killer.start()
        after_last_kill = 0
        while after_last_kill < 20:
            for name in list(playing):
                if not driver.step(name):
                    playing.remove(name)
            if not playing:
                playing.append(driver.create())
            after_last_kill += 1 if done.is_set() else 0
        killer.join(60)
        assert not killer.is_alive(), f"{context}: the killer thread hangs"
        retried = [a for a in driver.acknowledged if a.retried]
        print(
            f"crash {context}: {len(driver.acknowledged)} commands acknowledged, "
            f"{len(retried)} after a retry ({sum(a.replayed for a in retried)} replayed), "
            f"kills {dict(cluster.kills)}, {len(driver.games)} games"
        )
        app = PreferansApplication(store_config(store).env)
        try:
            versions = _check_log(app, driver, context)
            _check_read_models(app, driver, versions, context)
        finally:
            app.close()
        for name in driver.games:
            _audit(store, name, context)
    finally:
        done.wait(60)
        driver.close()
        cluster.stop()
