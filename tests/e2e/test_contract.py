"""The contract's behaviours a client written from the proto alone relies on (issue 14 item 8),
each as game.proto documents it."""

from __future__ import annotations

import grpc

from domain.bots import make_bot
from domain.rules import RuleSet
from service.cli.viewstate import view_from_proto
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread
from tests.e2e.helpers import PLAYERS, StreamReader, refused

BOT = make_bot()


def _seats(client: GameClient) -> tuple[str, list[SeatClient], int]:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name = created.game.name
    return name, [client.seat(name, t) for t in created.seat_tokens], created.game.version


def _actor(seats: list[SeatClient], version: int) -> tuple[SeatClient, pb.SeatView]:
    view = seats[0].view(min_version=version)
    return seats[view.actor], seats[view.actor].view(min_version=version)


def test_a_retried_submit_action_returns_the_first_answer(
    server: ServerThread, client: GameClient
) -> None:
    _name, seats, version = _seats(client)
    seat, view = _actor(seats, version)
    action = BOT(view_from_proto(view))
    first = seat.act(action, request_id="first-decision")
    assert not first.replayed
    version = first.version
    for _ in range(4):  # the game goes on
        other, other_view = _actor(seats, version)
        version = other.act(BOT(view_from_proto(other_view))).version
    again = seat.act(action, request_id="first-decision")
    assert again.replayed and again.version == first.version
    assert again.view == first.view  # the view at that version, not the current one
    assert seat.view().version == version > first.version


def test_a_request_id_reused_for_another_command_is_refused_and_records_nothing(
    server: ServerThread, client: GameClient
) -> None:
    name, seats, version = _seats(client)
    seat, view = _actor(seats, version)
    done = seat.act(view.legal[0], request_id="mine")
    nxt, next_view = _actor(seats, done.version)
    # Another seat (or another action) with an id the game has recorded: refused.
    request = pb.SubmitActionRequest(name=name, action=next_view.legal[0], request_id="mine")
    error = refused(client.stub.SubmitAction, request, metadata=nxt.metadata)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "already used for a different command" in error.message
    assert client.get_game(name).version == done.version
    # The same id in another game is a new command there.
    _other_name, other_seats, other_version = _seats(client)
    other_seat, other_view = _actor(other_seats, other_version)
    assert not other_seat.act(other_view.legal[0], request_id="mine").replayed


def test_action_events_name_the_hand_and_the_decider_with_presence(
    server: ServerThread, client: GameClient
) -> None:
    name, seats, version = _seats(client)
    for _ in range(6):
        seat, view = _actor(seats, version)
        version = seat.act(BOT(view_from_proto(view))).version
    stream = StreamReader(client.spectate(name, heartbeat_seconds=300))
    try:
        actions = [m.action for m in stream.events_until(version) if m.HasField("action")]
    finally:
        stream.close()
    assert len(actions) == 6
    for action in actions:
        assert action.HasField("hand") and action.HasField("decider")
        assert action.hand == action.seat and action.decider == action.actor
    assert 0 in {action.hand for action in actions}  # seat 0 is there, not "unset"


def test_structured_twins_say_what_the_strings_say(
    server: ServerThread, client: GameClient
) -> None:
    _name, seats, version = _seats(client)
    view = seats[0].view(min_version=version)
    assert len(view.hand_values) == len(view.hand) == 10
    for text, value in zip(view.hand, view.hand_values, strict=True):
        assert value.rank != pb.RANK_UNSPECIFIED and value.suit != pb.SUIT_UNSPECIFIED
        assert text.endswith("♠♣♦♥"[value.suit - 1])
    assert [t == "" for t in view.talon] == [
        v.rank == pb.RANK_UNSPECIFIED for v in view.talon_values
    ]
    _, actor_view = _actor(seats, version)
    bids = [action for action in actor_view.legal if action.WhichOneof("kind") == "bid"]
    assert bids  # the first hand opens the auction
    for action in bids:
        bid = action.bid_value
        assert bid.misere == (action.bid == "misère")  # the one output spelling
        assert bid.misere or action.bid.startswith(str(bid.level))
