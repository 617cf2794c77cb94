"""Seat tokens and the creator's proof over gRPC (issue 9, item 6), on both stores: an expired
or revoked token is UNAUTHENTICATED; a CreateGame retried without the creator's secret gets
ALREADY_EXISTS and no tokens; with it, working tokens."""

from __future__ import annotations

import uuid

import grpc

from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread
from tests.e2e.helpers import PLAYERS, refused

SECRET = "e2e-creator-secret-0123456789"


def _request(request_id: str, secret: str = "") -> pb.CreateGameRequest:
    return pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in PLAYERS],
        rules=pb.RuleSet(name="default"),
        request_id=request_id,
        creator_secret=secret,
    )


def _join(client: GameClient, name: str, token: str) -> pb.JoinGameResponse:
    response: pb.JoinGameResponse = client.stub.JoinGame(
        pb.JoinGameRequest(name=name), metadata=(("authorization", f"Bearer {token}"),)
    )
    return response


def test_retry_without_the_creator_secret_gets_no_tokens(
    server: ServerThread, client: GameClient
) -> None:
    request_id = f"game-{uuid.uuid4().hex[:6]}"
    first = client.stub.CreateGame(_request(request_id))
    assert len(first.seat_tokens) == 3
    # Anyone who knows (or guesses) the request id and the public facts: no tokens.
    again = refused(client.stub.CreateGame, _request(request_id))
    assert again.code == grpc.StatusCode.ALREADY_EXISTS
    assert again.resource_info is not None
    assert again.resource_info.resource_name == first.game.name
    # With a secret, the creator's retry gets the same game and working tokens; a guess at
    # the secret names another game.
    mine = client.stub.CreateGame(_request(request_id + "-s", SECRET))
    retried = client.stub.CreateGame(_request(request_id + "-s", SECRET))
    assert retried.game.name == mine.game.name
    assert _join(client, mine.game.name, retried.seat_tokens[2]).seat == 2
    guessed = client.stub.CreateGame(_request(request_id + "-s", "not-the-secret-000000"))
    assert guessed.game.name != mine.game.name


def test_expired_and_revoked_tokens_are_unauthenticated(
    server: ServerThread, client: GameClient
) -> None:
    created = client.create_game(PLAYERS)
    name = created.game.name
    game_id = uuid.UUID(name.removeprefix("games/"))
    assert _join(client, name, created.seat_tokens[0]).seat == 0

    expired = server.app.keys.mint(game_id, 0, issued_ms=1_000)
    refusal = refused(_join, client, name, expired)
    assert refusal.code == grpc.StatusCode.UNAUTHENTICATED
    assert "expired" in refusal.message

    server.app.revoke_tokens(game_id, [0])
    refusal = refused(_join, client, name, created.seat_tokens[0])
    assert refusal.code == grpc.StatusCode.UNAUTHENTICATED
    assert "revoked" in refusal.message
    assert _join(client, name, created.seat_tokens[1]).seat == 1
