"""The development issuer: JWTs for local and test use, NOT FOR PRODUCTION.

``pref serve --dev-auth`` (``PREF_DEV_AUTH=1``) makes the server trust tokens of this issuer
besides the configured OIDC issuer, and ``pref token NAME`` mints one for any name: whoever can
read the key file can be anybody. The signing key is an Ed25519 key (tokens are EdDSA-signed)
in a PEM file, found like the server keys (``service.app.keys``) and never in the event store:

1. ``PREF_DEV_ISSUER_KEY_FILE`` (``--dev-issuer-key FILE``);
2. SQLite only: ``<sqlite file>.dev-issuer.pem`` beside the store.

The file is created owner-only (0600) with a fresh key when missing. The key id is the key's
RFC 7638 thumbprint; ``jwks()`` is the public key set (``pref token --jwks``), so a real
verifier can be pointed at it too.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.app import validation
from service.app.config import ConfigError
from service.app.identity import StaticKeys, TrustedIssuer
from service.app.keys import create_secret_file, sqlite_key_path

DEV_AUTH_ENV = "PREF_DEV_AUTH"
DEV_KEY_FILE_ENV = "PREF_DEV_ISSUER_KEY_FILE"
ISSUER = "urn:preferans:dev-issuer"
AUDIENCE = "preferans"
ALGORITHM = "EdDSA"
DEFAULT_TTL = 3600
MAX_TTL = 7 * 24 * 3600
MAX_AUDIENCE = 256
WARNING = (
    "DEVELOPMENT ISSUER ENABLED (--dev-auth): anyone who can read its key file can sign in as "
    "any player; never use it in production"
)


def enabled(env: Mapping[str, str]) -> bool:
    """Whether ``PREF_DEV_AUTH`` turns the development issuer on."""
    return env.get(DEV_AUTH_ENV, "").strip().lower() in ("1", "y", "yes", "true")


def key_path(env: Mapping[str, str]) -> Path:
    """Where the development issuer's key file is (see the module docstring)."""
    configured = env.get(DEV_KEY_FILE_ENV, "").strip()
    if configured:
        return Path(configured)
    beside = None
    if not env.get("PERSISTENCE_MODULE", "").endswith("postgres"):
        beside = sqlite_key_path(env)
    if beside is None:
        raise ConfigError(
            f"the development issuer needs a key file: set {DEV_KEY_FILE_ENV} "
            "(--dev-issuer-key FILE; created owner-only if missing)"
        )
    return beside.with_name(beside.stem + ".dev-issuer.pem")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass(frozen=True)
class DevIssuer:
    """The development issuer's signing key, and what derives from it."""

    private_key: Ed25519PrivateKey

    @property
    def public_jwk(self) -> dict[str, str]:
        raw = self.private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        x = _b64(raw)
        canonical = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": x}, separators=(",", ":"))
        kid = _b64(hashlib.sha256(canonical.encode()).digest())
        return {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "use": "sig", "alg": ALGORITHM}

    @property
    def kid(self) -> str:
        return self.public_jwk["kid"]

    def jwks(self) -> dict[str, Any]:
        """The public key set (a JWKS document)."""
        return {"keys": [self.public_jwk]}

    def trusted(self) -> TrustedIssuer:
        """This issuer as the server trusts it (audience ``AUDIENCE``)."""
        return TrustedIssuer(ISSUER, AUDIENCE, StaticKeys(self.jwks()))

    def sign(self, claims: Mapping[str, Any], headers: Mapping[str, Any] | None = None) -> str:
        """``claims`` signed with this key (header: ``alg`` EdDSA, this key's ``kid``)."""
        header = {"kid": self.kid, **(headers or {})}
        return jwt.encode(dict(claims), self.private_key, algorithm=ALGORITHM, headers=header)

    def mint(
        self,
        name: str,
        ttl: int = DEFAULT_TTL,
        audience: str = AUDIENCE,
        now: float | None = None,
    ) -> str:
        """A token whose subject is the player id ``name``, valid for ``ttl`` seconds."""
        subject = validation.player_id(name, "name")
        audience = validation.text(audience, "audience", MAX_AUDIENCE)
        if not 1 <= ttl <= MAX_TTL:
            raise ConfigError(f"--ttl must be 1 to {MAX_TTL} seconds")
        issued = int(time.time() if now is None else now)
        claims = {"iss": ISSUER, "aud": audience, "sub": subject, "iat": issued}
        return self.sign({**claims, "nbf": issued, "exp": issued + ttl})


def _write_new_key(path: Path) -> None:
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(pem)


def load(env: Mapping[str, str]) -> DevIssuer:
    """The development issuer of this configuration; its key file is created if missing."""
    path = key_path(env)
    if not path.exists():
        create_secret_file(path, _write_new_key)
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except OSError as exc:
        why = f"cannot read the development issuer's key {path}: {exc.strerror}"
        raise ConfigError(why) from None
    except ValueError:
        raise ConfigError(f"{path} is not a PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"{path} is not an Ed25519 private key")
    return DevIssuer(key)
