"""Who a person is: OpenID Connect / JWT bearer tokens verified against a trusted issuer.

The server is not an identity provider: it trusts an issuer (``PREF_OIDC_ISSUER``) for one
audience (``PREF_OIDC_AUDIENCE``, this service's client id at the issuer) and fetches the
issuer's public keys from its JWKS document (``PREF_OIDC_JWKS_URL``; ``https``, or ``http`` on
a loopback address). ``pref serve --dev-auth`` trusts a development issuer besides (or instead),
whose key lives in a local file (``service.app.devissuer``): never in production.

A token is accepted when, in this order:

1. it is at most ``MAX_TOKEN`` characters of three base64url parts (a compact JWS);
2. its header names an asymmetric algorithm (``ALGORITHMS``: RS256, ES256, EdDSA; never
   ``none`` nor HS*) and a key id (``kid``);
3. its (not yet verified) ``iss`` is a trusted issuer, and that issuer's key set has the key
   id, of the header's algorithm;
4. the signature verifies under that key, ``aud`` contains the issuer's audience, ``exp`` is
   in the future and ``iat``/``nbf`` are not (``LEEWAY_SECONDS`` of clock skew either way);
5. its ``sub`` is a valid player id (``service.app.validation.player_id``): the subject *is*
   the player id.

Keys are cached: a key set is fetched when first needed, again after ``KEYS_LIFESPAN`` seconds,
and at once when a token names a key id the cached set lacks (the issuer rotated its keys:
the new set replaces the old, so a key the issuer removed is refused from then on) — but at
most once per ``MIN_REFETCH_SECONDS``, so tokens with made-up key ids cannot make the server
hammer the issuer. When the issuer cannot be reached, or answers with something that is not a
JSON key set of at most ``MAX_JWKS_BYTES``, the keys fetched last stay in use.
A fetch blocks: the gRPC adapter asks ``ready`` first and verifies in a thread when not; when
``ready`` says yes, ``key`` answers from the cache and never waits for another thread's fetch.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.error import URLError
from urllib.parse import urlparse

import jwt
from jwt import PyJWK, PyJWKClient, PyJWKSet
from jwt.exceptions import PyJWKClientConnectionError, PyJWKClientError

from domain.model.terms import BOT_PREFIX
from domain.rules.errors import InvalidAction
from service.app import validation
from service.app.config import ConfigError

ALGORITHMS = ("RS256", "ES256", "EdDSA")
"""Asymmetric signatures only: a shared secret (HS*) would let anyone who verifies also mint."""
LEEWAY_SECONDS = 30
MAX_TOKEN = 8192
MAX_KID = 256
KEYS_LIFESPAN = 300.0
MIN_REFETCH_SECONDS = 30.0
FETCH_TIMEOUT_SECONDS = 5.0
MAX_JWKS_BYTES = 256 * 1024
"""The largest JWKS document read (an issuer's holds a few keys: a few kilobytes)."""

ISSUER_ENV = "PREF_OIDC_ISSUER"
AUDIENCE_ENV = "PREF_OIDC_AUDIENCE"
JWKS_URL_ENV = "PREF_OIDC_JWKS_URL"

NO_ISSUER = (
    "this server accepts no JWT: no issuer is configured (pref serve --oidc-issuer, or "
    "--dev-auth for local use); use a seat token"
)


class TokenRefused(Exception):
    """A JWT is not accepted; the message says why, for the client (never the token)."""


def looks_like_jwt(token: str) -> bool:
    """A compact JWS has three dot-separated parts (a seat token has two or five)."""
    return token.count(".") == 2


class KeySet(Protocol):
    """An issuer's public keys, by key id."""

    def ready(self, kid: str) -> bool:
        """Whether ``key`` would answer without fetching anything (no I/O)."""

    def key(self, kid: str) -> PyJWK:
        """The key ``kid``, fetching the issuer's key set when needed (may block), or
        ``TokenRefused``."""


class StaticKeys:
    """A key set known in advance (the development issuer's)."""

    def __init__(self, jwks: Mapping[str, Any]) -> None:
        self._keys = {k.key_id: k for k in PyJWKSet.from_dict(dict(jwks)).keys if k.key_id}

    def ready(self, kid: str) -> bool:
        return True

    def key(self, kid: str) -> PyJWK:
        found = self._keys.get(kid)
        if found is None:
            raise TokenRefused("the token is signed with a key its issuer does not have")
        return found


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect is an error (as PyJWT's own client has it)


class _CappedClient(PyJWKClient):
    """PyJWT's client, reading at most ``MAX_JWKS_BYTES`` of the document; a body that is not
    a JSON object, or longer, is a ``PyJWKClientError`` (the caller keeps its last keys)."""

    def fetch_data(self) -> Any:
        request = urllib.request.Request(url=self.uri, headers=self.headers)
        try:
            with urllib.request.build_opener(_NoRedirect()).open(
                request, timeout=self.timeout
            ) as response:
                body = response.read(MAX_JWKS_BYTES + 1)
        except (URLError, TimeoutError, http.client.HTTPException) as exc:
            raise PyJWKClientConnectionError(f"the JWKS cannot be fetched: {exc}") from exc
        if len(body) > MAX_JWKS_BYTES:
            raise PyJWKClientError(f"the JWKS is longer than {MAX_JWKS_BYTES} bytes")
        try:
            document = json.loads(body)
        except ValueError as exc:
            raise PyJWKClientError("the JWKS is not JSON") from exc
        if not isinstance(document, dict):
            raise PyJWKClientError("the JWKS is not a JSON object")
        return document


class RemoteKeys:
    """An issuer's JWKS document, fetched with PyJWT's ``PyJWKClient`` and cached (see the
    module docstring: lifespan, rotation, the bound on refetches)."""

    def __init__(
        self,
        url: str,
        *,
        lifespan: float = KEYS_LIFESPAN,
        min_refetch: float = MIN_REFETCH_SECONDS,
        timeout: float = FETCH_TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # The client only fetches and parses; the caching and its bounds are ours.
        self._client = _CappedClient(url, cache_jwk_set=False, timeout=timeout, cooldown_duration=0)
        self._lifespan = lifespan
        self._min_refetch = min_refetch
        self._clock = clock
        self._keys: dict[str, PyJWK] = {}
        self._fetched_at: float | None = None
        self._tried_at: float | None = None
        self._guard = threading.Lock()
        self.fetches = 0
        """How many times the key set was fetched (or tried)."""

    def _fresh(self, now: float) -> bool:
        return self._fetched_at is not None and now - self._fetched_at < self._lifespan

    def _may_fetch(self, now: float) -> bool:
        return self._tried_at is None or now - self._tried_at >= self._min_refetch

    def _needs_fetch(self, kid: str, now: float) -> bool:
        return not (kid in self._keys and self._fresh(now)) and self._may_fetch(now)

    def ready(self, kid: str) -> bool:
        """No fetch needed: ``key`` answers from the cached keys without waiting (a fetch
        under way has set ``_tried_at``, so it is never waited for either)."""
        return not self._needs_fetch(kid, self._clock())

    def key(self, kid: str) -> PyJWK:
        if self._needs_fetch(kid, self._clock()):
            with self._guard:  # only when ``ready`` said no: the caller is not the event loop
                now = self._clock()
                if self._needs_fetch(kid, now):
                    self._fetch(now)
        found = self._keys.get(kid)
        if found is None:
            raise TokenRefused("the token is signed with a key its issuer does not have")
        return found

    def _fetch(self, now: float) -> None:
        self._tried_at = now
        self.fetches += 1
        try:
            keys = self._client.get_signing_keys(refresh=True)
        except (jwt.PyJWTError, ValueError):  # unreachable, not JSON, too large, no keys
            if self._keys:
                return  # the issuer is unreachable: keep the keys fetched last
            raise TokenRefused(
                "the issuer's keys cannot be fetched now, so the token cannot be checked; retry"
            ) from None
        self._keys = {k.key_id: k for k in keys if k.key_id}
        self._fetched_at = now


@dataclass(frozen=True)
class TrustedIssuer:
    issuer: str
    audience: str
    keys: KeySet


_REASONS: tuple[tuple[type[jwt.PyJWTError], str], ...] = (
    (jwt.ExpiredSignatureError, "the token has expired"),
    (jwt.ImmatureSignatureError, "the token is not valid yet (iat or nbf is in the future)"),
    (jwt.InvalidAudienceError, "the token is for another audience"),
    (jwt.InvalidIssuerError, "the token is from an issuer this server does not trust"),
    (jwt.InvalidSignatureError, "the token's signature does not verify"),
    (jwt.InvalidIssuedAtError, "the token's iat is not a time"),
)


class JwtVerifier:
    """Verifies JWTs of the trusted issuers (see the module docstring)."""

    def __init__(self, issuers: tuple[TrustedIssuer, ...] = (), *, dev: bool = False) -> None:
        self.issuers = {trusted.issuer: trusted for trusted in issuers}
        self.dev = dev
        """Whether the development issuer is trusted (``pref serve --dev-auth``)."""

    def _parts(self, token: str) -> tuple[str, str, TrustedIssuer]:
        """The token's algorithm and key id, and its issuer: what can be read unverified."""
        if not self.issuers:
            raise TokenRefused(NO_ISSUER)
        if len(token) > MAX_TOKEN or not looks_like_jwt(token):
            raise TokenRefused("the token is malformed")
        try:
            header = jwt.get_unverified_header(token)
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise TokenRefused("the token is malformed") from None
        alg, kid, iss = header.get("alg"), header.get("kid"), claims.get("iss")
        if alg not in ALGORITHMS:
            raise TokenRefused(
                f"the token's signature algorithm is not accepted: use one of "
                f"{', '.join(ALGORITHMS)}"
            )
        if not isinstance(kid, str) or not 0 < len(kid) <= MAX_KID:
            raise TokenRefused("the token's header names no key id (kid)")
        trusted = self.issuers.get(iss) if isinstance(iss, str) else None
        if trusted is None:
            raise TokenRefused("the token is from an issuer this server does not trust")
        return alg, kid, trusted

    def ready(self, token: str) -> bool:
        """Whether ``verify`` would answer without fetching keys (so on the event loop)."""
        try:
            _, kid, trusted = self._parts(token)
        except TokenRefused:
            return True
        return trusted.keys.ready(kid)

    def verify(self, token: str, now: float | None = None) -> str:
        """The player id the token proves (its ``sub``), or ``TokenRefused``."""
        alg, kid, trusted = self._parts(token)
        key = trusted.keys.key(kid)
        if key.algorithm_name != alg:
            raise TokenRefused("the token's algorithm does not match its key")
        options: Any = {"require": ["exp", "iat", "iss", "aud", "sub"]}
        try:
            claims = jwt.decode(
                token,
                key.key,
                algorithms=[alg],
                audience=trusted.audience,
                issuer=trusted.issuer,
                leeway=LEEWAY_SECONDS,
                options=options,
            )
        except jwt.MissingRequiredClaimError as exc:
            raise TokenRefused(f"the token has no {exc.claim!r} claim") from None
        except jwt.PyJWTError as exc:
            reason = next((why for kind, why in _REASONS if isinstance(exc, kind)), None)
            raise TokenRefused(reason or "the token is malformed") from None
        subject = claims["sub"]
        if not isinstance(subject, str):
            raise TokenRefused("the token's subject (sub) is not a string")
        try:
            player = validation.player_id(subject, "sub")
        except InvalidAction as exc:
            raise TokenRefused(
                f"the token's subject is not a valid player id: {exc.message}"
            ) from None
        if player.startswith(BOT_PREFIX):
            raise TokenRefused(f"subjects starting with {BOT_PREFIX!r} are the server's bots")
        return player


def _jwks_url(url: str) -> str:
    parsed = urlparse(url)
    host = parsed.hostname or ""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if parsed.scheme != "https" and not (parsed.scheme == "http" and loopback):
        raise ConfigError(f"{JWKS_URL_ENV} must be an https:// URL (http:// only on loopback)")
    return url


def configured_issuer(env: Mapping[str, str]) -> TrustedIssuer | None:
    """The issuer ``PREF_OIDC_ISSUER``, ``PREF_OIDC_AUDIENCE`` and ``PREF_OIDC_JWKS_URL``
    configure (all three, or none)."""
    values = [env.get(name, "").strip() for name in (ISSUER_ENV, AUDIENCE_ENV, JWKS_URL_ENV)]
    if not any(values):
        return None
    if not all(values):
        raise ConfigError(
            f"an OIDC issuer needs {ISSUER_ENV}, {AUDIENCE_ENV} and {JWKS_URL_ENV} "
            "(pref serve --oidc-issuer, --oidc-audience, --oidc-jwks-url)"
        )
    issuer, audience, url = values
    return TrustedIssuer(issuer, audience, RemoteKeys(_jwks_url(url)))


def load_verifier(env: Mapping[str, str]) -> JwtVerifier:
    """The verifier the environment configures: the OIDC issuer, and the development issuer
    with ``PREF_DEV_AUTH`` (``service.app.devissuer``)."""
    from service.app import devissuer

    issuers = [trusted for trusted in (configured_issuer(env),) if trusted is not None]
    dev = devissuer.enabled(env)
    if dev:
        issuers.append(devissuer.load(env).trusted())
    return JwtVerifier(tuple(issuers), dev=dev)
