"""Spectators over real gRPC (issue 14 item 6): WatchGame and WatchGameBatches without any
credential show every event with public information only, held ``delay_moves`` decisions
behind on request; a spectator cannot act nor read a seat's view; its streams count against
the caller's quota of watch streams."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import grpc
import pytest

from domain.bots import make_bot
from domain.model.replay import action_of
from domain.rules import RuleSet
from service.api.limits import Limits
from service.app.application import PreferansApplication
from service.app.config import StoreConfig
from service.cli.botplay import bot_step
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerFactory, ServerThread
from tests.e2e.helpers import (
    PLAYERS,
    StreamReader,
    message_cards,
    public_by_version,
    refused,
    refused_stream,
)

BOT = make_bot()


def decisions_after(app: PreferansApplication, game_id: uuid.UUID) -> list[int]:
    """``after[version]``: how many decisions the game recorded after that version."""
    flags = [action_of(event) is not None for event in app.game_events(game_id)]
    after = [0] * (len(flags) + 1)
    for version in range(len(flags) - 1, -1, -1):
        after[version] = after[version + 1] + flags[version]
    return after


def play(
    seats: list[SeatClient],
    version: int,
    steps: int | None = None,
    phases: list[tuple[int, bool]] | None = None,
) -> int:
    """Bots play from ``version`` until the game is over (or ``steps`` decisions); each seat 0
    view's phase, and whether the game was over, go to ``phases``."""
    done = 0
    while steps is None or done < steps:
        view = seats[0].view(min_version=version)
        if phases is not None:
            phases.append((view.phase, view.actor < 0))
        if view.actor < 0:
            break
        actor_view = view if view.actor == 0 else seats[view.actor].view(min_version=version)
        version = bot_step(seats[view.actor], actor_view, BOT)
        done += 1
    return version


def test_a_spectator_watches_a_whole_game_and_never_sees_a_hidden_card(
    store: StoreConfig,
    server: ServerThread,
    client: GameClient,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=4))
    name = created.game.name
    seats = [client.seat(name, token) for token in created.seat_tokens]
    streams = [
        StreamReader(client.spectate(name, heartbeat_seconds=300)),
        StreamReader(client.spectate_updates(name, 0, 300, max_batch_size=3)),
    ]
    phases: list[tuple[int, bool]] = []
    try:
        version = play(seats, created.game.version, phases=phases)
        assert client.get_game(name).status == pb.GAME_STATUS_FINISHED
        received = [list(stream.events_until(version)) for stream in streams]
    finally:
        for stream in streams:
            stream.close()
    assert received[0] == received[1]  # WatchGameBatches flattened is WatchGame
    messages = received[0]
    assert [m.version for m in messages] == list(range(1, version + 1))
    game_id = uuid.UUID(name.removeprefix("games/"))
    public = public_by_version(open_app(store).game_events(game_id))
    for message in messages:
        leaked = message_cards(message) - public[message.version]
        assert not leaked, f"version {message.version} showed a spectator {sorted(leaked)}"
    # Not vacuous: the spectator saw the cards played, and every deal's hands at its end.
    assert sum(bool(message_cards(m)) for m in messages) > len(messages) // 3
    scored = [m.deal_scored for m in messages if m.HasField("deal_scored")]
    assert scored and all(len(s.dealt_hands) == 3 for s in scored)
    assert all(len(hand.card_values) == 10 for s in scored for hand in s.dealt_hands)
    # PHASE_SCORED is seen once the game is over, never while it goes on (contract, item 8).
    assert [over for phase, over in phases if phase == pb.PHASE_SCORED] == [True]


def test_a_spectator_may_neither_act_nor_read_a_seat_view(
    server: ServerThread, client: GameClient
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name = created.game.name
    action = pb.Action()
    getattr(action, "pass").SetInParent()
    submit = pb.SubmitActionRequest(name=name, action=action, request_id="spectator-1")
    assert refused(client.stub.SubmitAction, submit).code == grpc.StatusCode.UNAUTHENTICATED
    view = pb.GetSeatViewRequest(name=name)
    assert refused(client.stub.GetSeatView, view).code == grpc.StatusCode.UNAUTHENTICATED
    assert client.get_game(name).version == created.game.version  # nothing recorded


def test_a_token_that_is_not_valid_is_refused_not_made_a_spectator(
    server: ServerThread, client: GameClient
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    forged = client.seat(created.game.name, "not-a-token")
    error = refused_stream(forged.watch(heartbeat_seconds=300))
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED


def test_delay_moves_holds_the_stream_behind_and_releases_it_when_the_game_ends(
    store: StoreConfig,
    server: ServerThread,
    client: GameClient,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name = created.game.name
    game_id = uuid.UUID(name.removeprefix("games/"))
    seats = [client.seat(name, token) for token in created.seat_tokens]
    delayed = StreamReader(client.spectate(name, heartbeat_seconds=1, delay_moves=3))
    batched = StreamReader(client.spectate_updates(name, 0, 1, delay_moves=3))
    app = open_app(store)
    try:
        version = play(seats, created.game.version, steps=12)
        after = decisions_after(app, game_id)
        due = max(v for v in range(version + 1) if after[v] >= 3)  # 3 decisions followed it
        for stream in (delayed, batched):
            got: list[pb.WatchGameResponse] = []
            for _ in range(60):  # heartbeats flow while the stream is held back
                message = stream.next()
                if message.HasField("heartbeat"):
                    if message.version == due:
                        break
                    continue
                got.append(message)
            else:
                pytest.fail(f"no heartbeat at version {due}")
            assert [m.version for m in got] == list(range(1, due + 1))  # nothing later
        # The game ends: everything is released.
        version = play(seats, version)
        for stream in (delayed, batched):
            rest = [m.version for m in stream.events_until(version)]
            assert rest == list(range(due + 1, version + 1))
    finally:
        delayed.close()
        batched.close()


def test_delay_moves_is_bounded_and_for_spectators_only(
    server: ServerThread, client: GameClient
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name = created.game.name
    for request in (
        pb.WatchGameRequest(name=name, delay_moves=201),
        pb.WatchGameRequest(name=name, delay_moves=-1),
    ):
        error = refused_stream(client.stub.WatchGame(request))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "delay_moves" in (error.details() or "")
    seat = client.seat(name, created.seat_tokens[0])
    request = pb.WatchGameRequest(name=name, delay_moves=2)
    error = refused_stream(client.stub.WatchGame(request, metadata=seat.metadata))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_watching_beyond_the_latest_version_is_invalid_argument_naming_it(
    server: ServerThread, client: GameClient
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    latest = created.game.version
    seat = client.seat(created.game.name, created.seat_tokens[0])
    for stream in (
        client.spectate(created.game.name, from_version=latest + 1),
        seat.watch(from_version=latest + 1),
    ):
        error = refused_stream(stream)
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert f"0 to {latest}" in (error.details() or "")
    # The latest version itself is accepted: the stream waits, with heartbeats.
    at_latest = StreamReader(
        client.spectate(created.game.name, from_version=latest, heartbeat_seconds=1)
    )
    try:
        beat = at_latest.next()
        assert beat.HasField("heartbeat") and beat.version == latest
    finally:
        at_latest.close()


def test_spectator_streams_count_against_the_callers_watch_quota(
    sqlite_only: StoreConfig, start_server: ServerFactory
) -> None:
    server = start_server(sqlite_only, limits=Limits(watch_streams=2))
    client = GameClient(server.address)
    try:
        name = client.create_game(PLAYERS).game.name
        first = StreamReader(client.spectate(name, heartbeat_seconds=300))
        second = StreamReader(client.spectate_updates(name, 0, 300))
        assert first.next().version == 1 and second.next().version == 1
        third = refused_stream(client.spectate(name, heartbeat_seconds=300))
        assert third.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        first.close()
        fourth = StreamReader(client.spectate(name, heartbeat_seconds=300))
        assert fourth.next().version == 1  # a closed stream frees its place
        fourth.close()
        second.close()
    finally:
        client.close()
