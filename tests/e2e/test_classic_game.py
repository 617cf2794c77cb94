"""End to end (SQLite): a client written from the proto alone plays short Classic games through
gRPC (issue 12; S000 "КЛАССИКА"): it creates a ``classic`` game by name, answers the order
(``Game.orderer`` → ``OrderGame`` with a pool and an end time), acts only with the ``Action``
messages its seat view offers (look, bomb, dark and no-talon bids among them), never sees its
own cards before it has looked, and as the creator calls time (``CallTime``) after two deals of
the pool. The games are drawn until one holds a bomb or a dark game in the pool proper; the
server's log of it verifies in the audit and as a hand record."""

from __future__ import annotations

import random
import secrets
import time
import uuid
from collections.abc import Callable

import grpc

from service.api.mapping import parse_game_name
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.config import StoreConfig
from service.app.handrecord import export_game_record, import_record
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerFactory
from tests.e2e.helpers import refused

PLAYERS = ["ann", "bob", "cid"]
POOL_DEALS = 2


def choose(rng: random.Random, view: pb.SeatView) -> pb.Action:
    """Any legal action as the view offers it, saying "bomb" and bidding dark more often."""
    legal = list(view.legal)
    by_kind = {a.WhichOneof("kind"): a for a in legal}
    if "bomb" in by_kind and rng.random() < 0.5:
        return by_kind["bomb"]
    dark = [a for a in legal if a.WhichOneof("kind") == "dark_bid"]
    if dark and rng.random() < 0.3:
        return rng.choice(dark[:3])
    return rng.choice(legal)


def play_classic(client: GameClient, rng: random.Random) -> tuple[str, list[str]]:
    """One Classic game from creation to its end by time; the kinds of actions sent."""
    request_id, secret = uuid.uuid4().hex, secrets.token_hex(16)
    created: pb.CreateGameResponse = client.stub.CreateGame(
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            rules=pb.RuleSet(name="classic", pool_target=6),
            request_id=request_id,
            creator_secret=secret,
        )
    )
    name = created.game.name
    seats: list[SeatClient] = [client.seat(name, t) for t in created.seat_tokens]
    sent: list[str] = []
    version, first_pool_deal = created.game.version, 0
    while True:
        game = client.get_game(name)
        if game.status == pb.GAME_STATUS_FINISHED:
            return name, sent
        if game.orderer >= 0:
            ordered = seats[game.orderer].order_game(6, int(time.time()) + 3600)
            version, first_pool_deal = ordered.version, game.deal_number + 1
            continue
        last_deal = first_pool_deal + POOL_DEALS - 1
        if first_pool_deal and not game.time_called and game.deal_number >= last_deal:
            version = client.call_time(name, request_id, secret).version
            continue
        actor = seats[0].view(min_version=version).actor
        view = seats[actor].view(min_version=version)
        assert view.actor == view.seat == actor
        for seat in view.unseen:  # a seat that has not looked sees none of its cards
            assert seat != view.seat or not view.hand
        action = choose(rng, view)
        sent.append(action.WhichOneof("kind") or "")
        version = seats[actor].act(action).version


def test_a_proto_only_client_plays_classic_with_bombs_or_dark_games(
    sqlite_only: StoreConfig,
    start_server: ServerFactory,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    server = start_server(sqlite_only)
    client = GameClient(server.address)
    try:
        # Fresh deals each game: until a bomb is said, and a bomb or a dark game is played.
        for attempt in range(12):
            name, sent = play_classic(client, random.Random(attempt))
            sheet = client.scoresheet(name)
            pool = [d for d in sheet.deals if d.deal_number > 9]
            if {"look", "bomb"} <= set(sent) and any(d.bomb or d.dark for d in pool):
                break
        game = client.get_game(name)
        assert game.time_called and game.order.pool == 6 and game.order.end_time.seconds
        assert len(pool) == POOL_DEALS and [d.bomb for d in sheet.deals[:9]] == [1, 2, 3] * 3
        assert any(d.bomb or d.dark for d in pool), "no bomb or dark game in 12 games"
        assert {"look", "bomb"} <= set(sent)
        assert sheet.bomb_signs and sheet.order.pool == 6 and len(sheet.settlement) == 3
    finally:
        client.close()
    app = open_app(sqlite_only)
    game_id = parse_game_name(name)
    report = verify_game(app, game_id)
    assert report.verified, report.summary
    _, verdict = import_record(export_game_record(app, game_id, None, "json"))
    assert verdict.consistent, verdict.message


def test_classic_calls_are_checked_at_the_edge_and_by_the_rules(
    sqlite_only: StoreConfig, start_server: ServerFactory
) -> None:
    """Malformed dark and no-talon bids are INVALID_ARGUMENT naming their field; a well-formed
    but illegal call, or a second order, is FAILED_PRECONDITION; nothing is recorded. Looking
    shows the seat its cards (and only then)."""
    server = start_server(sqlite_only)
    client = GameClient(server.address)
    try:
        rules = pb.RuleSet(name="classic", options_json='{"initial_rounds": "none", '
                           '"initial_levels": 0}')  # fmt: skip
        created: pb.CreateGameResponse = client.stub.CreateGame(
            pb.CreateGameRequest(
                players=[pb.Player(player_id=p) for p in PLAYERS],
                rules=rules,
                request_id=uuid.uuid4().hex,
                creator_secret=secrets.token_hex(16),
            )
        )
        name = created.game.name
        seats = [client.seat(name, t) for t in created.seat_tokens]
        game = client.get_game(name)
        assert game.orderer >= 0 and game.deal_number == 0  # ordered before the first deal
        seats[game.orderer].order_game(20, int(time.time()) + 3600)
        again = refused(seats[game.orderer].order_game, 20, int(time.time()) + 3600)
        assert again.code is grpc.StatusCode.FAILED_PRECONDITION
        view = seats[0].view()
        me = seats[view.actor]
        view = me.view()
        assert view.seat in view.unseen and not view.hand
        kinds = {a.WhichOneof("kind") for a in view.legal}
        assert {"look", "bomb", "dark_bid"} <= kinds and "no_talon_bid" not in kinds
        version = client.get_game(name).version
        for action, field in (
            (pb.Action(dark_bid="11♠"), "action.dark_bid"),
            (pb.Action(dark_bid=""), "action.dark_bid"),
            (pb.Action(no_talon_bid="6x"), "action.no_talon_bid"),
        ):
            bad = refused(me.act, action)
            assert bad.code is grpc.StatusCode.INVALID_ARGUMENT and bad.fields == [field]
        illegal = refused(me.act, pb.Action(bid="6♠"))  # unseen: no light bid before looking
        assert illegal.code is grpc.StatusCode.FAILED_PRECONDITION
        assert client.get_game(name).version == version  # refusals record nothing
        me.act(pb.Action(look=pb.Look()))
        looked = me.view()
        assert looked.seat not in looked.unseen and len(looked.hand) == 10
        kinds = {a.WhichOneof("kind") for a in looked.legal}
        assert "no_talon_bid" in kinds and "dark_bid" not in kinds  # seen: no dark bids
    finally:
        client.close()
