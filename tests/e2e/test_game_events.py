"""ListGameEvents (issue 16): a game's events in pages for referees and third-party viewers,
over gRPC on both stores. The pages, joined, are exactly what WatchGame from version 0 sends the
same viewer (so the redaction is WatchGame's: a spectator never sees a hidden card, a seat only
its own hand); page tokens are bound to the game and the viewer."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable

import grpc
import pytest

from domain.rules import RuleSet
from service.app.application import PreferansApplication
from service.app.config import StoreConfig
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread
from tests.e2e.helpers import PLAYERS, StreamReader, message_cards, public_by_version
from tests.e2e.test_spectators import play


def pages(list_page: Callable[[str], pb.ListGameEventsResponse]) -> list[pb.WatchGameResponse]:
    """Every event, page after page, until a page comes without a token."""
    out: list[pb.WatchGameResponse] = []
    token = ""
    for _ in range(1000):
        page = list_page(token)
        out.extend(page.events)
        token = page.next_page_token
        if not token:
            return out
    raise AssertionError("the pages never ended")


def listing(seat: SeatClient, size: int, token: str) -> pb.ListGameEventsResponse:
    return seat.list_events(size, token)


def streamed(seat: SeatClient, version: int) -> list[pb.WatchGameResponse]:
    reader = StreamReader(seat.watch(from_version=0, heartbeat_seconds=300))
    try:
        return list(reader.events_until(version))
    finally:
        reader.close()


def test_paged_events_are_what_watch_game_sends_each_viewer(
    store: StoreConfig,
    server: ServerThread,
    client: GameClient,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name = created.game.name
    seats = [client.seat(name, token) for token in created.seat_tokens]
    half = play(seats, created.game.version, steps=20)

    # A game in progress: pages of 7 up to the version it has reached, then no token.
    listed = pages(lambda token: client.list_events(name, 7, token))
    assert [m.version for m in listed] == list(range(1, half + 1))
    assert listed == streamed(SeatClient(client, name, None), half)

    version = play(seats, half)
    assert client.get_game(name).status == pb.GAME_STATUS_FINISHED
    spectator = SeatClient(client, name, None)
    listed = pages(lambda token: client.list_events(name, 7, token))
    assert [m.version for m in listed] == list(range(1, version + 1))
    assert listed == streamed(spectator, version)
    assert not any(m.HasField("heartbeat") for m in listed)
    game_id = uuid.UUID(name.removeprefix("games/"))
    public = public_by_version(open_app(store).game_events(game_id))
    for message in listed:
        leaked = message_cards(message) - public[message.version]
        assert not leaked, f"version {message.version} showed a spectator {sorted(leaked)}"

    # Each seat: its own view (its hand at every deal), the same as its stream.
    for seat in seats:
        assert pages(functools.partial(listing, seat, 50)) == streamed(seat, version)
    seen = pages(functools.partial(listing, seats[1], 0))
    dealt = [m for m in seen if m.HasField("deal_dealt")]
    assert dealt and all(len(m.revealed) == 1 for m in dealt)  # only seat 1's own hand

    # Who decided and for which hand rides on every decision (ActionEvent.hand, .decider).
    actions = [m.action for m in listed if m.HasField("action")]
    assert actions and all(a.HasField("hand") and a.HasField("decider") for a in actions)


def test_page_tokens_are_bound_to_the_game_and_the_viewer(
    server: ServerThread, client: GameClient
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name = created.game.name
    seats = [client.seat(name, token) for token in created.seat_tokens]
    play(seats, created.game.version, steps=6)
    token = client.list_events(name, 2).next_page_token
    assert token
    with pytest.raises(grpc.RpcError) as info:
        seats[0].list_events(2, token)  # a spectator's token with a seat's credential
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    other = client.create_game(PLAYERS, RuleSet(pool_target=2)).game.name
    with pytest.raises(grpc.RpcError) as info:
        client.list_events(other, 2, token)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as info:
        client.list_events(name, 2, token[:-3] + "abc")
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as info:
        client.list_events(name, 1001)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as info:
        client.list_events(f"games/{uuid.uuid4()}", 5)
    assert info.value.code() is grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as info:
        SeatClient(client, name, "not-a-token").list_events(5)
    assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED


def test_a_seat_given_to_another_player_lists_no_more_and_the_newcomer_sees_his_own(
    server: ServerThread, client: GameClient
) -> None:
    """ReplacePlayer (TV-27) revokes the leaver's token: his next page is refused, so he never
    sees the newcomer's hand; the newcomer's pages are what his WatchGame sends him."""
    secret, request_id = "s" * 32, uuid.uuid4().hex
    created = client.create_game(
        PLAYERS, RuleSet(pool_target=4), request_id=request_id, creator_secret=secret
    )
    name = created.game.name
    seats = [client.seat(name, token) for token in created.seat_tokens]
    play(seats, created.game.version, steps=5)
    first = seats[1].list_events(3)
    assert len(first.events) == 3 and first.next_page_token
    replaced: pb.ReplacePlayerResponse = client.stub.ReplacePlayer(
        pb.ReplacePlayerRequest(
            name=name,
            seat=1,
            player=pb.Player(player_id="fay"),
            created_with=request_id,
            creator_secret=secret,
            request_id=uuid.uuid4().hex,
        )
    )
    with pytest.raises(grpc.RpcError) as info:
        seats[1].list_events(3, first.next_page_token)
    assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED
    newcomer = client.seat(name, replaced.seat_token)
    newcomer.join()
    version = client.get_game(name).version
    listed = pages(functools.partial(listing, newcomer, 4))
    assert [m.version for m in listed] == list(range(1, version + 1))
    assert listed == streamed(newcomer, version)
