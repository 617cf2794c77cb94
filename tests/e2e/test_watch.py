"""WatchGame: resuming after a disconnect misses nothing and duplicates nothing; heartbeats
arrive when nothing happens."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest

from domain.bots import make_bot
from domain.rules import RuleSet
from service.cli.botplay import bot_step
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread
from tests.e2e.helpers import PLAYERS, StreamReader

BOT = make_bot()


def play_steps(seats: list[SeatClient], steps: int) -> int:
    """Let bots make ``steps`` moves; the version reached."""
    version = 0
    for _ in range(steps):
        view = seats[0].view(min_version=version)
        assert view.actor >= 0
        actor_view = view if view.actor == 0 else seats[view.actor].view(min_version=version)
        version = bot_step(seats[view.actor], actor_view, BOT)
    return version


def test_a_resumed_stream_equals_an_uninterrupted_one(
    server: ServerThread, client: GameClient
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=6))
    seats = [client.seat(created.game.name, token) for token in created.seat_tokens]
    whole = StreamReader(seats[0].watch(from_version=0, heartbeat_seconds=300))
    try:
        play_steps(seats, 8)
        first = StreamReader(seats[0].watch(from_version=0, heartbeat_seconds=300))
        received = [first.next() for _ in range(5)]
        first.close()  # a disconnect mid-deal
        last = received[-1].version
        assert [m.version for m in received] == list(range(1, 6))

        version = play_steps(seats, 8)  # the game goes on while this seat is away
        second = StreamReader(seats[0].watch(from_version=last, heartbeat_seconds=300))
        try:
            resumed = list(second.events_until(version))
            # ... and live after the resume.
            version = play_steps(seats, 5)
            resumed += list(second.events_until(version))
        finally:
            second.close()
        joined = received + resumed
        assert [m.version for m in joined] == list(range(1, version + 1))
        uninterrupted = list(whole.events_until(version))
        assert joined == uninterrupted
        assert client.get_game(created.game.name).deal_number == 1 or any(
            m.HasField("deal_scored") for m in joined
        )
        # Resuming at the latest version waits for the next event.
        third = StreamReader(seats[1].watch(from_version=version, heartbeat_seconds=300))
        try:
            version = play_steps(seats, 1)
            (message,) = list(third.events_until(version))
            assert message.version == version and message.HasField("action")
        finally:
            third.close()
    finally:
        whole.close()


def test_heartbeats_arrive_when_nothing_happens(server: ServerThread, client: GameClient) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=6))
    name = created.game.name
    seats = [client.seat(name, token) for token in created.seat_tokens]
    version = created.game.version
    stream = StreamReader(seats[2].watch(from_version=version, heartbeat_seconds=1))
    try:
        started = time.monotonic()
        beats = [stream.next(timeout=5) for _ in range(2)]
        elapsed = time.monotonic() - started
        for beat in beats:
            assert beat.HasField("heartbeat")
            assert beat.version == version
            assert not beat.revealed and not beat.talon
        assert 1.0 <= elapsed < 5.0, elapsed
        version = play_steps(seats, 1)
        message = stream.next(timeout=5)
        while message.HasField("heartbeat"):
            message = stream.next(timeout=5)
        assert message.version == version and message.HasField("action")
        beat = stream.next(timeout=5)
        assert beat.HasField("heartbeat") and beat.version == version
    finally:
        stream.close()
    game = client.get_game(name)
    assert game.status == pb.GAME_STATUS_PLAYING and game.version == version


def test_batches_flatten_to_the_per_event_stream_and_resume_from_every_version(
    server: ServerThread, client: GameClient
) -> None:
    """WatchGameBatches (issue 10): for every seat, the batches flattened are exactly
    WatchGame's messages; a resume from every version gets the versions after it, none
    missing or repeated across batch boundaries, each batch at most ``max_batch_size``."""
    created = client.create_game(PLAYERS, RuleSet(pool_target=6))
    seats = [client.seat(created.game.name, token) for token in created.seat_tokens]
    version = play_steps(seats, 25)
    for seat in seats:
        single = StreamReader(seat.watch(from_version=0, heartbeat_seconds=300))
        try:
            whole = list(single.events_until(version))
        finally:
            single.close()
        assert [m.version for m in whole] == list(range(1, version + 1))
        for start in range(version):
            batches = StreamReader(seat.watch_batches(start, 300, max_batch_size=4))
            received: list[pb.WatchGameResponse] = []
            try:
                while len(received) < version - start:
                    batch = batches.next_batch()
                    assert 1 <= len(batch.updates) <= 4
                    received += batch.updates
            finally:
                batches.close()
            assert received == whole[start:], f"from version {start}"
    # Live: the flattened batched stream and the per-event one agree as the game goes on.
    live = StreamReader(seats[2].watch_updates(version, 300))
    single = StreamReader(seats[2].watch(version, 300))
    try:
        latest = play_steps(seats, 10)
        assert list(live.events_until(latest)) == list(single.events_until(latest))
    finally:
        live.close()
        single.close()


def test_batched_heartbeats_and_batch_size_limits(server: ServerThread, client: GameClient) -> None:
    """WatchGameBatches (issue 10): a heartbeat is a batch holding one heartbeat alone;
    ``max_batch_size`` is 0 (the default, 1000) or 1 to 1000 and ``max_delay_ms`` 0 to 1000,
    else INVALID_ARGUMENT."""
    created = client.create_game(PLAYERS, RuleSet(pool_target=6))
    seats = [client.seat(created.game.name, token) for token in created.seat_tokens]
    version = created.game.version
    stream = StreamReader(seats[0].watch_batches(version, heartbeat_seconds=1))
    try:
        (beat,) = stream.next_batch(timeout=5).updates
        assert beat.HasField("heartbeat") and beat.version == version
    finally:
        stream.close()
    for size in (-1, 1001):
        refused = StreamReader(seats[0].watch_batches(0, 300, max_batch_size=size))
        with pytest.raises(grpc.RpcError) as caught:
            refused.next_batch()
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "max_batch_size" in str(caught.value.details())
        refused.close()
    for delay in (-1, 1001):
        refused = StreamReader(seats[0].watch_batches(0, 300, max_delay_ms=delay))
        with pytest.raises(grpc.RpcError) as caught:
            refused.next_batch()
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "max_delay_ms" in str(caught.value.details())
        refused.close()
    largest: Any = seats[1].watch_batches(0, 300, max_batch_size=1000)
    first = next(largest)
    largest.cancel()
    assert [m.version for m in first.updates] == list(range(1, version + 1))
