"""Players with JWTs over real gRPC (issue 14, "Player identity"; "Bad input and security").

A server with the development issuer (``PREF_DEV_AUTH``) accepts the tokens ``pref token NAME``
mints: such a caller acts and reads at every game where its player sits — the seat is the one
whose *current* player is the token's subject, so it follows ``ReplacePlayer`` — and gets
PERMISSION_DENIED elsewhere. Expired, wrong-audience, wrong-issuer, forged, malformed, unsigned
tokens and subjects that are no player id are UNAUTHENTICATED; seat tokens keep working; a
server without an issuer refuses every JWT saying so; the log never holds a token.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.app import devissuer
from service.app.config import StoreConfig
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import REPO, ServeProcess, ServerFactory, ServerThread, with_dev_auth
from tests.e2e.helpers import PLAYERS, StreamReader, refused

SECRET = "e2e-identity-creator-secret-01"


def pref_token(key: Path, *argv: str) -> str:
    """``pref token`` as a script runs it: the token is all it prints."""
    pref = Path(sys.executable).with_name("pref")
    done = subprocess.run(
        [str(pref), "token", *argv, "--dev-issuer-key", str(key)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def dev_server(store: StoreConfig, start_server: ServerFactory, key: Path) -> ServerThread:
    return start_server(with_dev_auth(store, key))


def create(client: GameClient, request_id: str) -> pb.CreateGameResponse:
    response: pb.CreateGameResponse = client.stub.CreateGame(
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            rules=pb.RuleSet(name="default"),
            request_id=request_id,
            creator_secret=SECRET,
        )
    )
    return response


def test_a_player_acts_with_its_jwt_where_it_sits(
    store: StoreConfig, start_server: ServerFactory, tmp_path: Path
) -> None:
    key = tmp_path / "dev.pem"
    ann, dan = pref_token(key, "ann"), pref_token(key, "dan")
    server = dev_server(store, start_server, key)
    client = GameClient(server.address)
    try:
        request_id = f"id-{uuid.uuid4().hex[:8]}"
        created = create(client, request_id)
        name = created.game.name
        as_ann = client.seat(name, ann)
        joined = as_ann.join()
        assert (joined.seat, joined.player.player_id) == (0, "ann")
        assert as_ann.view().seat == 0
        # Play until ann's JWT has made a move (the others with their seat tokens).
        seats = [as_ann, *(client.seat(name, t) for t in created.seat_tokens[1:])]
        moved = False
        for _ in range(30):  # ann is to act within a round of the auction
            actor = seats[0].view().to_act
            seats[actor].act(seats[actor].view().legal[0])
            moved = actor == 0
            if moved:
                break
        assert moved, "ann never acted"
        first = next(iter(as_ann.watch(from_version=0)))
        assert first.version == 1
        # dan sits nowhere: PERMISSION_DENIED for every seat method, streams too.
        as_dan = client.seat(name, dan)
        for call in (as_dan.join, as_dan.view, lambda: next(iter(as_dan.watch()))):
            refusal = refused(call)
            assert refusal.code == grpc.StatusCode.PERMISSION_DENIED
            assert refusal.message == "you do not sit at this game"
        # The seat follows its current player: ann's seat given to dan; ann's stream sees the
        # replacement, then ends.
        reader = StreamReader(as_ann.watch(from_version=client.get_game(name).version))
        replaced = client.stub.ReplacePlayer(
            pb.ReplacePlayerRequest(
                name=name,
                seat=0,
                player=pb.Player(player_id="dan"),
                created_with=request_id,
                creator_secret=SECRET,
                request_id=uuid.uuid4().hex,
            )
        )
        try:
            assert list(reader.events_until(replaced.version))[-1].version == replaced.version
            with pytest.raises(grpc.RpcError) as ended:
                reader.next()
            assert isinstance(ended.value, grpc.Call)
            assert ended.value.code() == grpc.StatusCode.PERMISSION_DENIED
        finally:
            reader.close()
        assert refused(as_ann.view).code == grpc.StatusCode.PERMISSION_DENIED
        assert as_dan.join().seat == 0
        # Seat tokens work as before; a JWT of a player at another game is refused here.
        assert client.seat(name, created.seat_tokens[1]).join().seat == 1
        other = create(client, f"id-{uuid.uuid4().hex[:8]}-other")
        assert client.seat(other.game.name, ann).join().seat == 0
        assert refused(client.seat(other.game.name, dan).view).code == (
            grpc.StatusCode.PERMISSION_DENIED
        )
    finally:
        client.close()


def _bad_tokens(key: Path) -> dict[str, str]:
    issuer = devissuer.load({devissuer.DEV_KEY_FILE_ENV: str(key)})
    now = int(time.time())
    good = {"iss": devissuer.ISSUER, "aud": devissuer.AUDIENCE, "sub": "ann", "iat": now}
    good["exp"] = now + 600
    forger = devissuer.DevIssuer(Ed25519PrivateKey.generate())
    valid = issuer.mint("ann")
    header, body, signature = valid.split(".")
    return {
        "the token has expired": issuer.mint("ann", ttl=60, now=now - 3600),
        "the token is for another audience": pref_token(key, "ann", "--audience", "other-app"),
        "issuer this server does not trust": issuer.sign({**good, "iss": "https://evil.example"}),
        "signature does not verify": forger.sign(good, headers={"kid": issuer.kid}),
        "the token is malformed": f"{header}.bm90IGpzb24.{signature}",  # "not json"
        "algorithm is not accepted": f"eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{body}.",
        "not a valid player id": issuer.sign({**good, "sub": "ann\u202e"}),
    }


def test_bad_jwts_are_unauthenticated(
    sqlite_only: StoreConfig, start_server: ServerFactory, tmp_path: Path
) -> None:
    key = tmp_path / "dev.pem"
    server = dev_server(sqlite_only, start_server, key)
    client = GameClient(server.address)
    try:
        name = create(client, f"id-{uuid.uuid4().hex[:8]}").game.name
        for reason, token in _bad_tokens(key).items():
            seat = client.seat(name, token)
            for call in (seat.join, seat.view):
                refusal = refused(call)
                assert refusal.code == grpc.StatusCode.UNAUTHENTICATED, reason
                assert reason in refusal.message
                assert token not in refusal.message
    finally:
        client.close()


def test_without_an_issuer_jwts_are_refused_and_seat_tokens_work(
    sqlite_only: StoreConfig, start_server: ServerFactory, tmp_path: Path
) -> None:
    token = pref_token(tmp_path / "dev.pem", "ann")
    server = start_server(sqlite_only)
    client = GameClient(server.address)
    try:
        created = create(client, f"id-{uuid.uuid4().hex[:8]}")
        refusal = refused(client.seat(created.game.name, token).join)
        assert refusal.code == grpc.StatusCode.UNAUTHENTICATED
        assert "no issuer is configured" in refusal.message
        assert client.seat(created.game.name, created.seat_tokens[0]).join().seat == 0
    finally:
        client.close()


def test_pref_serve_dev_auth_warns_and_never_logs_a_token(
    tmp_path: Path, serve_process: Callable[..., ServeProcess]
) -> None:
    key = tmp_path / "dev.pem"
    extra = ["--dev-auth", "--dev-issuer-key", str(key)]
    server = serve_process(str(tmp_path / "events.sqlite"), log_level="info", extra=extra)
    client = GameClient(server.address)
    try:
        assert key.stat().st_mode & 0o777 == 0o600
        name = create(client, f"id-{uuid.uuid4().hex[:8]}").game.name
        good = pref_token(key, "ann")
        assert SeatClient(client, name, good).join().seat == 0
        bad = _bad_tokens(key)
        for token in bad.values():
            refused(client.seat(name, token).join)
    finally:
        client.close()
    server.terminate()
    log = server.log_path.read_text(errors="replace")
    assert "DEVELOPMENT ISSUER ENABLED" in log
    for token in [good, *bad.values()]:
        for part in token.split("."):
            assert len(part) < 20 or part not in log


@pytest.mark.parametrize("flags", [["--oidc-issuer", "https://issuer.example"]])
def test_pref_serve_refuses_half_an_oidc_configuration(tmp_path: Path, flags: list[str]) -> None:
    pref = Path(sys.executable).with_name("pref")
    store = str(tmp_path / "events.sqlite")
    done = subprocess.run(
        [str(pref), "serve", "--store", store, "--port", "0", *flags],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "PREF_OIDC_AUDIENCE" in done.stderr
