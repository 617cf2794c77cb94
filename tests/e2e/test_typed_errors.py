"""Typed errors for whatever an untrusted client sends (issue 9, items 3 and 4): malformed
request bytes, far-future ``min_version`` waits, actions on a finished game, and failures inside
a running ``WatchGame`` stream. None of them may surface as UNKNOWN, or leak internals."""

from __future__ import annotations

import uuid
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.rules import RuleSet
from service.api import game_servicer as servicer_module
from service.app.application import StoreUnavailable
from service.app.config import StoreConfig
from service.cli.botplay import play_with_bots
from service.client import GameClient
from service.gen.preferans.v1 import audit_pb2, game_pb2, ledger_pb2, stats_pb2
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import UNTHROTTLED, ServerFactory, ServerThread
from tests.e2e.helpers import PLAYERS, StreamReader, refusal, refused

SERVICES = [
    game_pb2.DESCRIPTOR.services_by_name["GameService"],
    stats_pb2.DESCRIPTOR.services_by_name["StatsService"],
    audit_pb2.DESCRIPTOR.services_by_name["AuditService"],
    ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"],
]
GARBAGE = [
    b"\xff",  # a truncated varint tag
    b"\x00",  # field number 0
    b"\x0f",  # wire type 7
    b"\x0a\x05ab",  # a length-delimited field cut short
    b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",  # a varint over ten bytes
]
INTERNALS = ("DecodeError", "Unexpected", "Traceback", "google.protobuf", "class")


def _pass() -> pb.Action:
    message = pb.Action()
    getattr(message, "pass").SetInParent()
    return message


def test_malformed_request_bytes_are_invalid_argument_for_every_method(
    server: ServerThread, client: GameClient
) -> None:
    methods = [(s.full_name, m) for s in SERVICES for m in s.methods]
    assert len(methods) >= 17
    for service, method in methods:
        path = f"/{service}/{method.name}"
        assert not method.client_streaming, path
        for payload in GARBAGE:
            if method.server_streaming:
                call: Any = client.channel.unary_stream(path)
                error = refused(next, iter(call(payload, timeout=10)))
            else:
                error = refused(client.channel.unary_unary(path), payload, timeout=10)
            assert error.code == grpc.StatusCode.INVALID_ARGUMENT, (path, payload, error)
            assert error.error_info is not None and error.error_info.reason == "MALFORMED_REQUEST"
            assert method.input_type.full_name in error.message, error.message
            assert not any(word in error.message for word in INTERNALS), error.message
    # The server is unharmed.
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    assert client.get_game(created.game.name).version == created.game.version


def test_a_far_future_min_version_is_refused_at_once(
    server: ServerThread, client: GameClient
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name, version = created.game.name, created.game.version
    seat = client.seat(name, created.seat_tokens[0])
    for far in (version + 1000, 2**62):
        for call in (
            lambda v: client.stub.GetGame(pb.GetGameRequest(name=name, min_version=v)),
            lambda v: client.scoresheet(name, min_version=v),
            lambda v: seat.view(min_version=v),
        ):
            error = refused(call, far)
            assert error.code == grpc.StatusCode.INVALID_ARGUMENT, error
            assert error.fields == ["min_version"]
            assert str(version) in error.message
    error = refused(client.stub.GetGame, pb.GetGameRequest(name=name, min_version=-1))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["min_version"]
    # A version already reached answers as before.
    assert seat.view(min_version=version).deal_number >= 1


def test_a_near_min_version_that_never_comes_is_failed_precondition_after_the_wait(
    server: ServerThread, client: GameClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(servicer_module, "MAX_WAIT_SECONDS", 0.5)
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name, version = created.game.name, created.game.version
    error = refused(client.stub.GetGame, pb.GetGameRequest(name=name, min_version=version + 1))
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION, error
    assert error.error_info is not None and error.error_info.reason == "VERSION_NOT_REACHED"
    assert error.error_info.metadata["version"] == str(version)


def test_an_action_on_a_finished_game_is_failed_precondition(
    store: StoreConfig, start_server: ServerFactory
) -> None:
    # Unthrottled: nine refusals right after a whole bot game may exceed the call rate, which
    # answers RESOURCE_EXHAUSTED first (that order is test_limits' subject, not this test's).
    client = GameClient(start_server(store, limits=UNTHROTTLED).address)
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name = created.game.name
    final = play_with_bots(client, name, created.seat_tokens)
    assert final.status == pb.GAME_STATUS_FINISHED
    for token in created.seat_tokens:
        for action in (_pass(), pb.Action(play_card="7♠"), pb.Action(bid="6♠")):
            request = pb.SubmitActionRequest(name=name, action=action, request_id=uuid.uuid4().hex)
            metadata = (("authorization", f"Bearer {token}"),)
            error = refused(client.stub.SubmitAction, request, metadata=metadata)
            assert error.code == grpc.StatusCode.FAILED_PRECONDITION, (action, error)
            assert error.error_info is not None and error.error_info.reason == "GAME_OVER"
    assert client.get_game(name).version == final.version
    client.close()


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        (RuntimeError("secret internals"), grpc.StatusCode.INTERNAL),
        (StoreUnavailable("connection refused"), grpc.StatusCode.UNAVAILABLE),
    ],
)
def test_a_failure_inside_a_running_watch_is_a_typed_status(
    server: ServerThread,
    client: GameClient,
    monkeypatch: pytest.MonkeyPatch,
    failure: Exception,
    code: grpc.StatusCode,
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    seat = client.seat(created.game.name, created.seat_tokens[0])
    reader = StreamReader(seat.watch(heartbeat_seconds=1))
    try:
        first = reader.next()
        assert first.version >= 1

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise failure

        monkeypatch.setattr(server.app, "game_events", broken)
        with pytest.raises(grpc.RpcError) as raised:
            while True:
                reader.next()
        error = refusal(raised.value) if code != grpc.StatusCode.INTERNAL else None
        assert raised.value.code() == code, raised.value
        assert "secret" not in (raised.value.details() or "")
        if error is not None:
            assert error.retry_info is not None
    finally:
        reader.close()


def _request_class(method: Any) -> Any:
    return message_factory.GetMessageClass(method.input_type)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_random_request_bytes_never_get_unknown(
    server: ServerThread, client: GameClient, data: st.DataObject
) -> None:
    """Random bytes to a random method: undecodable ones are MALFORMED_REQUEST; the rest are
    answered or refused with a status the service chose (never UNKNOWN)."""
    service, method = data.draw(
        st.sampled_from([(s.full_name, m) for s in SERVICES for m in s.methods])
    )
    payload = data.draw(st.binary(max_size=80))
    path = f"/{service}/{method.name}"
    try:
        _request_class(method).FromString(payload)
        decodable = True
    except DecodeError:
        decodable = False
    try:
        if method.server_streaming:
            call: Any = client.channel.unary_stream(path)
            stream = call(payload, timeout=10)
            next(iter(stream))
            stream.cancel()
        else:
            unary: Any = client.channel.unary_unary(path)
            unary(payload, timeout=10)
    except grpc.RpcError as error:
        assert isinstance(error, grpc.Call)
        assert error.code() != grpc.StatusCode.UNKNOWN, (path, payload, error.details())
        # A flood of creations meets the per-caller creation budget before its bytes are read.
        over_budget = (
            error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and method.name == "CreateGame"
        )
        if not decodable and not over_budget:
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (path, payload)
            assert refusal(error).error_info is not None
    else:
        assert decodable, (path, payload)
