"""JWT bearer verification (``service.app.identity``): what is checked, and the issuer's keys
fetched from a JWKS document (a real HTTP server in a thread), cached, rotated, and refetched at
a bounded rate (issue 14, "Player identity" and "Bad input and security")."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from service.app import devissuer
from service.app.config import ConfigError
from service.app.devissuer import DevIssuer
from service.app.identity import (
    NO_ISSUER,
    JwtVerifier,
    RemoteKeys,
    TokenRefused,
    TrustedIssuer,
    configured_issuer,
    load_verifier,
)

ISSUER = "https://issuer.example"
AUDIENCE = "preferans-test"


@pytest.fixture
def dev(tmp_path: Path) -> DevIssuer:
    return devissuer.load({devissuer.DEV_KEY_FILE_ENV: str(tmp_path / "dev.pem")})


@pytest.fixture
def verifier(dev: DevIssuer) -> JwtVerifier:
    return JwtVerifier((dev.trusted(),), dev=True)


def claims(**changes: Any) -> dict[str, Any]:
    now = int(time.time())
    base = {
        "iss": devissuer.ISSUER,
        "aud": devissuer.AUDIENCE,
        "sub": "ann",
        "iat": now,
        "exp": now + 600,
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def refusal(verifier: JwtVerifier, token: str) -> str:
    with pytest.raises(TokenRefused) as refused:
        verifier.verify(token)
    message = str(refused.value)
    assert token not in message  # a refusal never repeats the token
    return message


def test_a_minted_token_proves_its_name(dev: DevIssuer, verifier: JwtVerifier) -> None:
    assert verifier.verify(dev.mint("ann")) == "ann"
    assert verifier.verify(dev.mint("Zoë ☺")) == "Zoë ☺"


def test_the_subject_is_normalised_like_every_player_id(
    dev: DevIssuer, verifier: JwtVerifier
) -> None:
    assert verifier.verify(dev.sign(claims(sub="Zoe\u0301"))) == "Zoé"


def test_an_expired_token_is_refused(dev: DevIssuer, verifier: JwtVerifier) -> None:
    old = dev.mint("ann", ttl=60, now=time.time() - 3600)
    assert refusal(verifier, old) == "the token has expired"


def test_a_token_for_another_audience_is_refused(dev: DevIssuer, verifier: JwtVerifier) -> None:
    token = dev.mint("ann", audience="another-service")
    assert refusal(verifier, token) == "the token is for another audience"


def test_a_token_of_another_issuer_is_refused(dev: DevIssuer, verifier: JwtVerifier) -> None:
    token = dev.sign(claims(iss="https://evil.example"))
    assert "issuer this server does not trust" in refusal(verifier, token)


def test_a_forged_token_is_refused(tmp_path: Path, dev: DevIssuer, verifier: JwtVerifier) -> None:
    """Signed by another key that claims the trusted key's id."""
    forger = DevIssuer(Ed25519PrivateKey.generate())
    forged = forger.sign(claims(), headers={"kid": dev.kid})
    assert refusal(verifier, forged) == "the token's signature does not verify"
    unknown = forger.sign(claims())  # its own key id
    assert "key its issuer does not have" in refusal(verifier, unknown)


def test_an_unsigned_token_is_refused(dev: DevIssuer, verifier: JwtVerifier) -> None:
    unsigned = jwt.encode(claims(), "", algorithm="none", headers={"kid": dev.kid})
    assert "algorithm is not accepted" in refusal(verifier, unsigned)


def test_a_shared_secret_token_is_refused(dev: DevIssuer, verifier: JwtVerifier) -> None:
    """HS256 keyed with the public key (the classic algorithm confusion)."""
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": dev.kid}).encode())
    body = _b64(json.dumps(claims()).encode())
    secret = dev.public_jwk["x"].encode()
    mac = hmac.new(secret, f"{header}.{body}".encode(), hashlib.sha256).digest()
    confused = f"{header}.{body}.{_b64(mac)}"
    assert "algorithm is not accepted" in refusal(verifier, confused)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@pytest.mark.parametrize(
    "token",
    ["", "a.b.c", "not-a-token", "e30.e30.", "x" * 9000, "..", "eyJhbGciOiJFZERTQSJ9.e30.AAAA"],
)
def test_a_malformed_token_is_refused(verifier: JwtVerifier, token: str) -> None:
    with pytest.raises(TokenRefused):
        verifier.verify(token)


def test_a_token_from_the_future_is_refused(dev: DevIssuer, verifier: JwtVerifier) -> None:
    later = int(time.time()) + 3600
    assert "not valid yet" in refusal(verifier, dev.sign(claims(iat=later, exp=later + 60)))
    assert "not valid yet" in refusal(verifier, dev.sign(claims(nbf=later)))


def test_a_small_clock_skew_is_allowed(dev: DevIssuer, verifier: JwtVerifier) -> None:
    soon = int(time.time()) + 10
    assert verifier.verify(dev.sign(claims(iat=soon, nbf=soon))) == "ann"


@pytest.mark.parametrize("claim", ["exp", "iat", "sub", "aud"])
def test_a_token_without_a_required_claim_is_refused(
    dev: DevIssuer, verifier: JwtVerifier, claim: str
) -> None:
    assert refusal(verifier, dev.sign(claims(**{claim: None}))) == (
        f"the token has no {claim!r} claim"
    )


@pytest.mark.parametrize("subject", ["", " ann", "a" * 65, "ann\u202e", "x\x00"])
def test_a_subject_that_is_no_player_id_is_refused(
    dev: DevIssuer, verifier: JwtVerifier, subject: str
) -> None:
    message = refusal(verifier, dev.sign(claims(sub=subject)))
    assert message.startswith("the token's subject is not a valid player id: sub ")


def test_without_an_issuer_no_jwt_is_accepted(dev: DevIssuer) -> None:
    message = refusal(JwtVerifier(), dev.mint("ann"))
    assert message == NO_ISSUER and "no issuer is configured" in message


def test_the_configuration_names_all_three_or_none(tmp_path: Path) -> None:
    assert configured_issuer({}) is None
    with pytest.raises(ConfigError, match="PREF_OIDC_JWKS_URL"):
        configured_issuer({"PREF_OIDC_ISSUER": ISSUER, "PREF_OIDC_AUDIENCE": AUDIENCE})
    wide_open = {
        "PREF_OIDC_ISSUER": ISSUER,
        "PREF_OIDC_AUDIENCE": AUDIENCE,
        "PREF_OIDC_JWKS_URL": "http://issuer.example/jwks",
    }
    with pytest.raises(ConfigError, match="https"):
        configured_issuer(wide_open)
    dev_only = load_verifier(
        {"PREF_DEV_AUTH": "1", "PREF_DEV_ISSUER_KEY_FILE": str(tmp_path / "d.pem")}
    )
    assert dev_only.dev and list(dev_only.issuers) == [devissuer.ISSUER]
    assert not load_verifier({}).issuers


def test_the_dev_key_file_is_created_owner_only_and_kept(tmp_path: Path) -> None:
    env = {devissuer.DEV_KEY_FILE_ENV: str(tmp_path / "dev.pem")}
    first = devissuer.load(env)
    assert (tmp_path / "dev.pem").stat().st_mode & 0o777 == 0o600
    assert devissuer.load(env).kid == first.kid


def test_the_dev_key_lives_beside_a_sqlite_store_and_postgres_needs_a_file(
    tmp_path: Path,
) -> None:
    sqlite = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "s.db")}
    assert devissuer.key_path(sqlite) == tmp_path / "s.db.dev-issuer.pem"
    with pytest.raises(ConfigError, match="PREF_DEV_ISSUER_KEY_FILE"):
        devissuer.key_path({"PERSISTENCE_MODULE": "eventsourcing.postgres"})


# -- an issuer's keys over HTTP ----------------------------------------------------------------


class Jwks:
    """A JWKS endpoint on a loopback port: ``keys`` is what it serves; ``hits`` counts fetches."""

    def __init__(self) -> None:
        self.keys: list[dict[str, Any]] = []
        self.hits = 0
        self.down = False
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.hits += 1
                if outer.down:
                    self.send_response(503)
                    self.end_headers()
                    return
                body = json.dumps({"keys": outer.keys}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/jwks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def jwks() -> Iterator[Jwks]:
    endpoint = Jwks()
    yield endpoint
    endpoint.close()


class Signer:
    """An issuer's signing key: RS256 or ES256, with its public JWK."""

    def __init__(self, kid: str, alg: str = "RS256") -> None:
        self.kid, self.alg = kid, alg
        if alg == "RS256":
            self.key: Any = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            public = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        else:
            self.key = ec.generate_private_key(ec.SECP256R1())
            public = ECAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        self.jwk = {**public, "kid": kid, "use": "sig", "alg": alg}

    def token(self, sub: str = "ann", **changes: Any) -> str:
        body = claims(iss=ISSUER, aud=AUDIENCE, sub=sub, **changes)
        return jwt.encode(body, self.key, algorithm=self.alg, headers={"kid": self.kid})


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def remote(jwks: Jwks, clock: Clock, min_refetch: float = 30.0) -> tuple[JwtVerifier, RemoteKeys]:
    keys = RemoteKeys(jwks.url, lifespan=300.0, min_refetch=min_refetch, clock=clock)
    return JwtVerifier((TrustedIssuer(ISSUER, AUDIENCE, keys),)), keys


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_keys_are_fetched_once_and_cached(jwks: Jwks, alg: str) -> None:
    signer = Signer("k1", alg)
    jwks.keys = [signer.jwk]
    verifier, keys = remote(jwks, Clock())
    token = signer.token()
    assert not verifier.ready(token)  # the first use fetches: off the event loop
    assert verifier.verify(token) == "ann"
    assert verifier.ready(token)
    assert verifier.verify(signer.token("bob")) == "bob"
    assert jwks.hits == 1 and keys.fetches == 1


def test_a_rotated_key_is_fetched_and_a_removed_key_refused(jwks: Jwks) -> None:
    old, new = Signer("k-old"), Signer("k-new", "ES256")
    jwks.keys = [old.jwk]
    clock = Clock()
    verifier, _ = remote(jwks, clock)
    assert verifier.verify(old.token()) == "ann"
    jwks.keys = [new.jwk]  # the issuer rotates: the old key is gone
    clock.now += 31  # past the refetch bound
    assert not verifier.ready(new.token())
    assert verifier.verify(new.token()) == "ann"
    assert jwks.hits == 2
    assert "key its issuer does not have" in refusal(verifier, old.token())
    assert jwks.hits == 2  # within the bound: no fetch for the removed key


def verified_once(jwks: Jwks) -> tuple[JwtVerifier, Clock, Signer]:
    """A verifier of ``jwks`` that has verified one token (so fetched the keys once)."""
    signer = Signer("k1")
    jwks.keys = [signer.jwk]
    clock = Clock()
    verifier, _ = remote(jwks, clock)
    assert verifier.verify(signer.token()) == "ann"
    return verifier, clock, signer


def test_unknown_key_ids_refetch_at_most_once_per_bound(jwks: Jwks) -> None:
    verifier, clock, signer = verified_once(jwks)
    for n in range(50):  # forged key ids: refused without asking the issuer
        forged = jwt.encode(
            claims(iss=ISSUER, aud=AUDIENCE),
            signer.key,
            algorithm="RS256",
            headers={"kid": f"made-up-{n}"},
        )
        assert verifier.ready(forged)
        assert "key its issuer does not have" in refusal(verifier, forged)
    assert jwks.hits == 1
    clock.now += 30
    refusal(verifier, Signer("k2").token())
    assert jwks.hits == 2  # one fetch once the bound has passed


def test_the_keys_are_fetched_again_after_their_lifespan(jwks: Jwks) -> None:
    verifier, clock, signer = verified_once(jwks)
    clock.now += 301
    assert not verifier.ready(signer.token())
    assert verifier.verify(signer.token()) == "ann"
    assert jwks.hits == 2


def test_an_unreachable_issuer_keeps_the_last_keys(jwks: Jwks) -> None:
    verifier, clock, signer = verified_once(jwks)
    jwks.down = True
    clock.now += 301
    assert verifier.verify(signer.token()) == "ann"


def test_an_issuer_never_reached_is_a_clear_refusal(jwks: Jwks) -> None:
    jwks.down = True
    verifier, _ = remote(jwks, Clock())
    assert "issuer's keys cannot be fetched" in refusal(verifier, Signer("k1").token())


def test_a_key_of_another_algorithm_is_refused(jwks: Jwks) -> None:
    """A token whose header says ES256 over an RSA key id is refused before verifying."""
    rsa_signer, ec_signer = Signer("k1"), Signer("k2", "ES256")
    jwks.keys = [rsa_signer.jwk]
    verifier, _ = remote(jwks, Clock())
    body = claims(iss=ISSUER, aud=AUDIENCE)
    mixed = jwt.encode(body, ec_signer.key, algorithm="ES256", headers={"kid": "k1"})
    assert refusal(verifier, mixed) == "the token's algorithm does not match its key"


def test_a_subject_naming_a_server_bot_is_refused(dev: DevIssuer, verifier: JwtVerifier) -> None:
    """Bot seats are the server's (``domain.model.terms.bot_player_id``): no token may claim
    to be one of its bots, whatever the issuer says."""
    message = refusal(verifier, dev.sign(claims(sub="bot:seat2")))
    assert message == "subjects starting with 'bot:' are the server's bots"
