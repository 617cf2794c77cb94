"""Every error class of the API, each from a real call: status code AND rich details, and
nothing recorded by a refused command."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from domain.bots import make_bot
from domain.rules import Card, RuleSet
from service.app.application import PreferansApplication
from service.app.config import StoreConfig, postgres_store
from service.app.groupcommit import GroupCommitter
from service.cli.botplay import bot_step
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerFactory, ServerThread
from tests.e2e.helpers import PLAYERS, StreamReader, TcpProxy, refusal, refused

BOT = make_bot()
Metadata = tuple[tuple[str, str], ...]


class Table:
    """A new game on a server: its name, tokens and seat clients."""

    def __init__(self, client: GameClient, pool: int = 6) -> None:
        self.client = client
        created = client.create_game(PLAYERS, RuleSet(pool_target=pool))
        self.name = created.game.name
        self.game_id = uuid.UUID(self.name.removeprefix("games/"))
        self.tokens = list(created.seat_tokens)
        self.seats = [client.seat(self.name, t) for t in self.tokens]

    def version(self) -> int:
        return self.client.get_game(self.name).version

    def actor_view(self) -> pb.SeatView:
        view = self.seats[0].view()
        return view if view.actor in (0, -1) else self.seats[view.actor].view()

    def play_until(self, done: Callable[[pb.SeatView], bool], limit: int = 2000) -> pb.SeatView:
        """Let bots play until the actor's view satisfies ``done``; that view."""
        for _ in range(limit):
            view = self.actor_view()
            if done(view):
                return view
            assert view.actor >= 0, "the game ended first"
            bot_step(self.seats[view.actor], view, BOT)
        raise AssertionError("never reached")

    def submit(
        self, action: pb.Action, token: str | None, request_id: str = "", name: str = ""
    ) -> pb.SubmitActionResponse:
        """A raw SubmitAction (no client-side retry)."""
        metadata: Metadata = () if token is None else (("authorization", f"Bearer {token}"),)
        request = pb.SubmitActionRequest(
            name=name or self.name, action=action, request_id=request_id or uuid.uuid4().hex
        )
        response: pb.SubmitActionResponse = self.client.stub.SubmitAction(
            request, metadata=metadata, timeout=30
        )
        return response


def _pass() -> pb.Action:
    message = pb.Action()
    getattr(message, "pass").SetInParent()
    return message


def _suit(card: str) -> int:
    return int(Card.parse(card).suit)


def test_malformed_input_is_invalid_argument_naming_the_field(
    server: ServerThread, client: GameClient
) -> None:
    table = Table(client)
    view = table.play_until(lambda v: v.phase == pb.PHASE_DISCARD)
    before = table.version()
    token = table.tokens[view.actor]

    cases: list[tuple[pb.Action | None, str]] = [
        (pb.Action(play_card="11♠"), "action.play_card"),
        (pb.Action(bid="11♠"), "action.bid"),
        (pb.Action(), "action"),
        (None, "action"),
        (pb.Action(discard=pb.Discard(cards=[view.hand[0]])), "action.discard.cards"),
        (pb.Action(discard=pb.Discard(cards=[view.hand[0], view.hand[0]])), "action.discard.cards"),
    ]
    for action, field in cases:
        request = pb.SubmitActionRequest(name=table.name, request_id=uuid.uuid4().hex)
        if action is not None:
            request.action.CopyFrom(action)
        metadata = (("authorization", f"Bearer {token}"),)
        error = refused(client.stub.SubmitAction, request, metadata=metadata)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT, (action, error)
        assert error.fields == [field], (action, error.fields)
        assert error.bad_request is not None
        assert error.bad_request.field_violations[0].description == error.message
    error = refused(table.submit, pb.Action(play_card="7♠"), token, request_id="x" * 129)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["request_id"]
    assert "request_id" in error.message

    for bad in ("games/xyz", "xyz", "game/" + str(table.game_id), ""):
        error = refused(client.stub.GetGame, pb.GetGameRequest(name=bad))
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["name"]
        error = refused(table.submit, pb.Action(play_card="7♠"), token, name=bad or "x")
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["name"]

    for size in (1000, 501, -1):
        error = refused(client.stub.ListGames, pb.ListGamesRequest(page_size=size))
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["page_size"]
    # 0 is "the default" (50) by the contract, not an error.
    assert client.stub.ListGames(pb.ListGamesRequest(page_size=0)).games
    for bad_token in ("not-a-token", "b2Zmc2V0Oi0x", "aGVsbG8="):
        error = refused(client.list_games, 10, bad_token)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["page_token"]

    stream = table.seats[0].watch(from_version=before + 1)
    error = refused(next, stream)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["from_version"]
    assert str(before) in error.message
    for beat in (-1, 301):
        stream = table.seats[0].watch(heartbeat_seconds=beat)
        error = refused(next, stream)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT
        assert error.fields == ["heartbeat_seconds"]

    error = refused(
        client.stub.CreateGame,
        pb.CreateGameRequest(players=[pb.Player(player_id="a")], request_id="two-few"),
    )
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["players"]

    assert table.version() == before
    assert table.seats[view.actor].view().phase == pb.PHASE_DISCARD


def test_moves_against_the_rules_are_failed_precondition_with_the_legal_actions(
    server: ServerThread, client: GameClient
) -> None:
    table = Table(client)
    # An illegal bid: after the first hand's 6♠ the next hand may not bid 6♠ again (nor a
    # rung above its next one, nor misère).
    first = table.actor_view()
    assert first.phase == pb.PHASE_BIDDING and "6♠" in first.legal_actions
    table.seats[first.actor].act(pb.Action(bid="6♠"))
    second = table.actor_view()
    assert second.actor != first.actor
    before = table.version()
    for bid in ("10NT", "misère"):
        if bid not in second.legal_actions:
            error = refused(table.submit, pb.Action(bid=bid), table.tokens[second.actor])
            assert error.code == grpc.StatusCode.FAILED_PRECONDITION, bid
    error = refused(table.submit, pb.Action(bid="6♠"), table.tokens[second.actor])
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert error.error_info is not None
    assert error.error_info.reason == "RULES_VIOLATION"
    assert error.error_info.domain == "preferans.v1"
    allowed = error.error_info.metadata["allowed"].split(" | ")
    assert allowed == list(second.legal_actions)
    assert "6♠" not in allowed
    assert table.version() == before

    # A card that does not follow suit.
    def off_suit_possible(view: pb.SeatView) -> bool:
        if view.phase != pb.PHASE_PLAY or not view.current_trick or view.actor != view.to_act:
            return False
        lead = _suit(view.current_trick[0].card)
        suits = {_suit(c) for c in view.hand}
        return lead in suits and len(suits) > 1

    view = table.play_until(off_suit_possible)
    lead = _suit(view.current_trick[0].card)
    wrong = next(c for c in view.hand if _suit(c) != lead)
    before = table.version()
    error = refused(table.submit, pb.Action(play_card=wrong), table.tokens[view.actor])
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "you must follow" in error.message
    assert error.error_info is not None and error.error_info.reason == "RULES_VIOLATION"
    allowed = error.error_info.metadata["allowed"].split(" | ")
    assert allowed == list(view.legal_actions)
    assert wrong not in allowed
    assert all(_suit(c) == lead for c in allowed if not c.startswith("claim"))
    # A card the seat does not hold at all is against the rules too.
    missing = next(str(c) for c in map(Card, range(32)) if str(c) not in view.hand)
    error = refused(table.submit, pb.Action(play_card=missing), table.tokens[view.actor])
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert table.version() == before


def test_acting_out_of_turn_is_failed_precondition_not_your_turn(
    server: ServerThread, client: GameClient
) -> None:
    table = Table(client)
    view = table.actor_view()
    before = table.version()
    for seat in range(3):
        if seat == view.actor:
            continue
        error = refused(table.submit, _pass(), table.tokens[seat])
        assert error.code == grpc.StatusCode.FAILED_PRECONDITION
        assert error.error_info is not None
        assert error.error_info.reason == "NOT_YOUR_TURN"
        assert error.error_info.metadata["to_act"] == str(view.actor)
        assert error.error_info.metadata["seat"] == str(seat)
    assert table.version() == before


def test_an_unknown_game_is_not_found(server: ServerThread, client: GameClient) -> None:
    name = f"games/{uuid.uuid4()}"
    for call, request in (
        (client.stub.GetGame, pb.GetGameRequest(name=name)),
        (client.stub.GetScoresheet, pb.GetScoresheetRequest(name=name)),
    ):
        error = refused(call, request)
        assert error.code == grpc.StatusCode.NOT_FOUND
        assert error.resource_info is not None
        assert error.resource_info.resource_type == "game"
        assert name.removeprefix("games/") in error.message


def test_missing_or_wrong_tokens_are_refused_and_nothing_is_recorded(
    server: ServerThread, client: GameClient
) -> None:
    table = Table(client)
    other = Table(client)
    view = table.actor_view()
    action = pb.Action(bid=view.legal_actions[0])
    before = table.version()
    made_up = f"{table.game_id}.{'0' * 64}"
    cases: list[tuple[str | None, grpc.StatusCode]] = [
        (None, grpc.StatusCode.UNAUTHENTICATED),
        ("garbage", grpc.StatusCode.UNAUTHENTICATED),
        (f"{table.game_id}", grpc.StatusCode.UNAUTHENTICATED),
        (made_up, grpc.StatusCode.UNAUTHENTICATED),
        (f"{uuid.uuid4()}.{'1' * 64}", grpc.StatusCode.UNAUTHENTICATED),
        (other.tokens[view.actor], grpc.StatusCode.PERMISSION_DENIED),
    ]
    for token, code in cases:
        error = refused(table.submit, action, token)
        assert error.code == code, (token, error)
        assert error.message
        metadata: Metadata = () if token is None else (("authorization", f"Bearer {token}"),)
        for call, request in (
            (client.stub.GetSeatView, pb.GetSeatViewRequest(name=table.name)),
            (client.stub.JoinGame, pb.JoinGameRequest(name=table.name)),
        ):
            error = refused(call, request, metadata=metadata)
            assert error.code == code, (call, token, error)
        stream = client.stub.WatchGame(pb.WatchGameRequest(name=table.name), metadata=metadata)
        if token is None:  # no credential at all: a spectator (issue 14; test_spectators.py)
            assert next(stream).version == 1
            stream.cancel()
            continue
        error = refused(next, stream)
        assert error.code == code
    # Not a bearer token at all.
    error = refused(
        client.stub.GetSeatView,
        pb.GetSeatViewRequest(name=table.name),
        metadata=(("authorization", f"Basic {table.tokens[0]}"),),
    )
    assert error.code == grpc.StatusCode.UNAUTHENTICATED
    assert table.version() == before
    assert other.version() == 2


def test_a_token_acts_and_sees_only_for_its_own_seat(
    server: ServerThread, client: GameClient
) -> None:
    table = Table(client)
    # Seat 0 on turn (bots play until it is).
    view0 = table.play_until(lambda v: v.actor == 0 and v.phase == pb.PHASE_BIDDING)
    before = table.version()
    seat1 = table.seats[1]
    assert seat1.join().seat == 1
    for text in view0.legal_actions:
        action = pb.Action(bid=text) if text not in ("pass", "here") else _pass()
        error = refused(table.submit, action, table.tokens[1])
        assert error.code == grpc.StatusCode.FAILED_PRECONDITION
        assert error.error_info is not None and error.error_info.reason == "NOT_YOUR_TURN"
        assert error.error_info.metadata["to_act"] == "0"
    # Whatever the request names, the view is the token's own seat's.
    view1 = seat1.view()
    assert view1.seat == 1
    assert not view1.legal_actions
    assert set(view1.hand).isdisjoint(view0.hand)
    assert not set(view0.hand) & {c for h in view1.visible_hands for c in h.cards}
    assert not [h for h in view1.visible_hands if h.seat == 0]
    watched = StreamReader(seat1.watch())
    try:
        for message in watched.events_until(before):
            for hand in message.revealed:
                assert hand.seat == 1
                assert set(hand.cards).isdisjoint(view0.hand)
    finally:
        watched.close()
    assert table.version() == before


def test_a_lost_race_is_aborted_and_nothing_is_duplicated(
    store: StoreConfig,
    start_server: ServerFactory,
    open_app: Callable[[StoreConfig], PreferansApplication],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two servers on one store; the actor sends different legal commands to each at the same
    moment. Server A's write is held until B's has landed: A loses, with ABORTED."""
    a, b = start_server(store), start_server(store)
    client_a, client_b = GameClient(a.address), GameClient(b.address)
    try:
        table = Table(client_a)
        view = table.actor_view()
        assert {"6♠", "pass"} <= set(view.legal_actions)
        token = table.tokens[view.actor]
        table_b = Table.__new__(Table)
        table_b.__dict__.update(table.__dict__, client=client_b)
        before = table.version()
        assert client_b.get_game(table.name).version == before  # B has the game cached too

        entered, release = threading.Event(), threading.Event()
        # Held where every save of A is written: its group-commit thread (a command waits
        # for it without a thread of its own, GameServicer._command).
        committer = a.app._committer
        assert isinstance(committer, GroupCommitter)  # one shard
        original = committer._save

        def held_save(*events: Any) -> None:
            entered.set()
            assert release.wait(30)
            original(*events)

        monkeypatch.setattr(committer, "_save", held_save)
        outcome: dict[str, Any] = {}

        def send_to_a() -> None:
            try:
                outcome["a"] = table.submit(pb.Action(bid="6♠"), token, request_id="race-a")
            except grpc.RpcError as error:
                outcome["a"] = error

        racer = threading.Thread(target=send_to_a)
        racer.start()
        assert entered.wait(30), "server A never reached its write"
        won = table_b.submit(_pass(), token, request_id="race-b")
        release.set()
        racer.join(30)
        assert not racer.is_alive()
        assert not won.replayed and won.version == before + 1

        lost = outcome["a"]
        assert isinstance(lost, grpc.RpcError)
        error = refusal(lost)
        assert error.code == grpc.StatusCode.ABORTED
        assert error.error_info is not None
        assert error.error_info.reason == "CONCURRENT_WRITE"

        # Exactly one command landed, on both servers' reading and in the log.
        assert client_a.get_game(table.name).version == won.version
        assert client_b.get_game(table.name).version == won.version
        app = open_app(store)
        events = app.game_events(table.game_id)
        assert len(events) == won.version
        assert [type(e).__name__ for e in events[before:]] == ["AuctionPassed"]
        assert sum(e.request_id == "race-a" for e in events) == 0
        # Retried with the same request id (as the client does on ABORTED), A's command is
        # now checked against the new state: the seat is no longer on turn.
        monkeypatch.setattr(committer, "_save", original)
        error = refused(table.submit, pb.Action(bid="6♠"), token, request_id="race-a")
        assert error.code == grpc.StatusCode.FAILED_PRECONDITION
        retried_b = table_b.submit(_pass(), token, request_id="race-b")
        assert retried_b.replayed and retried_b.version == won.version
        assert client_a.get_game(table.name).version == won.version
    finally:
        client_a.close()
        client_b.close()


def test_a_store_down_is_unavailable_with_retry_info(
    pg_url: str, start_server: ServerFactory
) -> None:
    """The server reaches PostgreSQL through a proxy; cutting the proxy takes the store down."""
    proxy = TcpProxy("127.0.0.1", 5432)
    store = postgres_store(pg_url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}"))
    store.env["POSTGRES_CONNECT_TIMEOUT"] = "1"
    try:
        server = start_server(store)
        client = GameClient(server.address)
        try:
            table = Table(client)
            view = table.actor_view()
            token = table.tokens[view.actor]
            before = table.version()
            proxy.cut()
            started = time.monotonic()
            error = refused(table.submit, pb.Action(bid="6♠"), token)
            assert error.code == grpc.StatusCode.UNAVAILABLE, error
            assert error.retry_info is not None
            assert error.retry_info.retry_delay.seconds >= 1
            assert "retry" in error.message
            assert time.monotonic() - started < 30
            proxy.restore()
            # Back up: nothing was recorded while the store was down, and play goes on.
            deadline = time.monotonic() + 30
            while True:
                try:
                    assert table.version() == before
                    break
                except grpc.RpcError as down:
                    assert down.code() == grpc.StatusCode.UNAVAILABLE
                    assert time.monotonic() < deadline
                    time.sleep(0.5)
            done = table.seats[view.actor].act(pb.Action(bid="6♠"))
            assert done.version == before + 1 and not done.replayed
        finally:
            client.close()
    finally:
        proxy.close()
