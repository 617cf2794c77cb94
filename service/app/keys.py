"""The server's keyring: the secrets from which game ids, seeds and seat tokens derive.

The keys are never stored in the database (a database reader could otherwise mint any seat's
token and compute future deals). They are loaded, first match wins, from:

1. ``PREF_KEYS``: ``"kid1:<base64 key>,kid0:<base64 key>"``;
2. ``PREF_KEY_FILE`` (``pref serve --key-file``): one ``kid:<base64 key>`` per line, ``#``
   comments allowed (a mounted Kubernetes Secret works as is);
3. SQLite only: the file ``<sqlite file>.key`` beside the store, created owner-only (0600) with
   a fresh key when missing. PostgreSQL must be given a key.

The first key is the current one: it derives new game ids, seeds and tokens. Older keys only
verify (tokens they signed, seeds of games created under them): rotate by putting a new key
first and keeping the old ones until their games have ended and their tokens expired.

A seat token is ``<game id>.<key id>.<seat>.<issued at, ms>.<mac>``; it expires
``PREF_TOKEN_MAX_AGE`` seconds (default 24 h) after issue. Tokens of the format before key ids
(``<game id>.<hex mac>``) are accepted only under the key id ``legacy`` (``pref keys
migrate-legacy``) and do not expire; revoke them per game (``pref keys revoke``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cachetools import LRUCache

from service.app.config import ConfigError
from service.app.validation import MAX_SEATS

KEYS_ENV = "PREF_KEYS"
KEY_FILE_ENV = "PREF_KEY_FILE"
TOKEN_MAX_AGE_ENV = "PREF_TOKEN_MAX_AGE"
DEFAULT_TOKEN_MAX_AGE = 24 * 3600
LEGACY_KID = "legacy"
MIN_KEY_BYTES = 32
_KID = re.compile(r"[A-Za-z0-9_-]{1,32}")
_LEGACY_NAMESPACE = uuid.UUID("6f1d8a52-0c4b-4b7e-9a59-3d1f0e2a7c11")
_MAX_TOKEN = 256
_SEAT = re.compile(r"[0-9]")
_ISSUED = re.compile(r"[0-9]{1,15}")
VERIFIED_TOKENS = 65_536
"""Well-signed seat tokens a keyring remembers (LRU), so a seat's every call does not
recompute the same HMAC; their expiry is checked on every call all the same."""
SEEDS = 4_096
"""Game seeds a keyring remembers (LRU): a command needs its game's seed."""


class KeyConfigError(ConfigError):
    """The keys are missing or malformed (the message is one line, safe to print)."""


@dataclass(frozen=True)
class TokenClaims:
    """What a well-signed seat token says."""

    game_id: uuid.UUID
    seat: int
    key_id: str
    issued_ms: int
    """When it was issued (ms since the epoch); ``-1`` for a legacy token."""


@dataclass(frozen=True)
class Keyring:
    """Named keys, the current (signing) one first."""

    keys: tuple[tuple[str, bytes], ...]
    token_max_age: int = DEFAULT_TOKEN_MAX_AGE
    """Seconds a seat token stays valid after issue; 0 means tokens do not expire."""
    # What this (immutable) keyring has already derived: a token string whose MAC checked out,
    # and a game's seed, stay so for as long as the keyring exists.
    _verified: LRUCache[str, TokenClaims] = field(
        default_factory=lambda: LRUCache(VERIFIED_TOKENS), init=False, repr=False, compare=False
    )
    _seeds: LRUCache[tuple[uuid.UUID, str], bytes] = field(
        default_factory=lambda: LRUCache(SEEDS), init=False, repr=False, compare=False
    )
    _guard: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )

    @property
    def current(self) -> tuple[str, bytes]:
        return self.keys[0]

    def key(self, kid: str) -> bytes | None:
        for name, key in self.keys:
            if name == kid:
                return key
        return None

    # -- game ids and seeds ---------------------------------------------------------------

    def game_ids(self, request_id: str, creator_secret: str) -> list[uuid.UUID]:
        """The ids a creation request may have under each key, the current key's first.

        The id is an HMAC of the request id and the creator's secret: unpredictable without
        the key, and another caller reusing the request id without the secret names another
        game. Games created before key ids (``legacy``) had the public ``uuid5`` id."""
        message = b"game-id\x00" + request_id.encode() + b"\x00" + creator_secret.encode()
        ids = [
            uuid.UUID(bytes=hmac.new(key, message, hashlib.sha256).digest()[:16], version=4)
            for _, key in self.keys
        ]
        if self.key(LEGACY_KID) is not None and not creator_secret:
            ids.append(uuid.uuid5(_LEGACY_NAMESPACE, request_id))
        return ids

    def seed(self, game_id: uuid.UUID, key: bytes | None = None) -> bytes:
        """A game's secret seed under ``key`` (the current key by default)."""
        key = self.current[1] if key is None else key
        return hmac.new(key, b"seed:" + game_id.bytes, hashlib.sha256).digest()

    def seed_for(self, game_id: uuid.UUID, commitment: str) -> bytes | None:
        """The seed of an existing game: the one under some key whose SHA-256 is the
        commitment its ``GameCreated`` recorded (so no key id needs recording)."""
        with self._guard:
            known = self._seeds.get((game_id, commitment))
        if known is not None:
            return known
        for _, key in self.keys:
            seed = self.seed(game_id, key)
            if hmac.compare_digest(hashlib.sha256(seed).hexdigest(), commitment):
                with self._guard:
                    self._seeds[game_id, commitment] = seed
                return seed
        return None

    # -- the lobby's tables (service/app/tables.py) ---------------------------------------

    def _derive(self, label: bytes, *parts: str) -> bytes:
        """An HMAC under the current key of ``parts``, for ``label``'s use only."""
        message = label + b"\x00" + "\x00".join(parts).encode()
        return hmac.new(self.current[1], message, hashlib.sha256).digest()

    def table_id(self, creator: str, request_id: str) -> uuid.UUID:
        """A table's id, from its creator and request id (a retry finds it; nobody can guess
        a private table's id)."""
        return uuid.UUID(bytes=self._derive(b"table-id", creator, request_id)[:16], version=4)

    def table_game_secret(self, table_id: uuid.UUID) -> str:
        """The creator secret of the game a table starts (64 hex digits)."""
        return self._derive(b"table-game", str(table_id)).hex()

    def invitation_code(self, table_id: uuid.UUID, player: str, request_id: str) -> str:
        """An invitation's code (43 base64url characters): the same for a retried request."""
        raw = self._derive(b"invitation", str(table_id), player, request_id)
        return base64.urlsafe_b64encode(raw).decode()[:43]

    # -- seat tokens ----------------------------------------------------------------------

    def mint(self, game_id: uuid.UUID, seat: int, issued_ms: int | None = None) -> str:
        """A new seat token under the current key."""
        kid, key = self.current
        issued = int(time.time() * 1000) if issued_ms is None else issued_ms
        return f"{game_id}.{kid}.{seat}.{issued}.{_mac(key, game_id, seat, issued)}"

    def check(self, token: str, now: float | None = None) -> TokenClaims | str:
        """The token's claims, or why it is refused (a short message for the client)."""
        with self._guard:
            claims = self._verified.get(token)
        if claims is None:
            checked = self._check_signature(token)
            if isinstance(checked, str):
                return checked
            claims = checked
            with self._guard:
                self._verified[token] = claims
        now = time.time() if now is None else now
        legacy = claims.issued_ms < 0  # legacy tokens do not expire
        if not legacy and self.token_max_age and claims.issued_ms / 1000 + self.token_max_age < now:
            return "the seat token has expired: ask the game's creator for a new one"
        return claims

    def _check_signature(self, token: str) -> TokenClaims | str:
        """``check`` without the expiry: the format, the key and the MAC."""
        parts = token.split(".") if len(token) <= _MAX_TOKEN else []
        try:
            game_id = uuid.UUID(parts[0])
        except (IndexError, ValueError):
            return "the seat token is malformed"
        if len(parts) == 2:
            return self._check_legacy(game_id, token)
        if len(parts) != 5 or not _SEAT.fullmatch(parts[2]) or not _ISSUED.fullmatch(parts[3]):
            return "the seat token is malformed"
        kid, seat, issued = parts[1], int(parts[2]), int(parts[3])
        key = self.key(kid)
        if (
            key is None
            or seat >= MAX_SEATS
            or not hmac.compare_digest(_mac(key, game_id, seat, issued).encode(), parts[4].encode())
        ):
            return "the seat token is not valid"
        return TokenClaims(game_id, seat, kid, issued)

    def _check_legacy(self, game_id: uuid.UUID, token: str) -> TokenClaims | str:
        key = self.key(LEGACY_KID)
        if key is not None:
            for seat in range(3):  # legacy tokens predate tables of four and five
                mac = hmac.new(key, b"token:%d:" % seat + game_id.bytes, hashlib.sha256)
                if hmac.compare_digest(f"{game_id}.{mac.hexdigest()}".encode(), token.encode()):
                    return TokenClaims(game_id, seat, LEGACY_KID, -1)
        return "the seat token is not valid"


def _mac(key: bytes, game_id: uuid.UUID, seat: int, issued_ms: int) -> str:
    message = f"seat-token\x00{game_id}\x00{seat}\x00{issued_ms}".encode()
    return base64.urlsafe_b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode()[:43]


# -- loading ---------------------------------------------------------------------------------


def parse_keys(text: str, where: str) -> tuple[tuple[str, bytes], ...]:
    """``kid:<base64>`` entries separated by commas or new lines (``#`` starts a comment)."""
    keys: list[tuple[str, bytes]] = []
    uncommented = ",".join(line.split("#", 1)[0] for line in text.splitlines())
    for raw in uncommented.split(","):
        entry = raw.strip()
        if not entry:
            continue
        kid, colon, encoded = entry.partition(":")
        kid = kid.strip()
        if not colon or not _KID.fullmatch(kid):
            raise KeyConfigError(
                f"{where}: each key must be 'kid:<base64 key>' with a key id of 1-32 letters, "
                "digits, '_' or '-'"
            )
        try:
            key = base64.b64decode(encoded.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise KeyConfigError(f"{where}: key {kid!r} is not valid base64") from None
        if len(key) < MIN_KEY_BYTES:
            raise KeyConfigError(f"{where}: key {kid!r} is shorter than {MIN_KEY_BYTES} bytes")
        if any(kid == seen for seen, _ in keys):
            raise KeyConfigError(f"{where}: key id {kid!r} appears twice")
        keys.append((kid, key))
    if not keys:
        raise KeyConfigError(f"{where}: no keys")
    return tuple(keys)


def new_key_line(kid: str | None = None) -> str:
    """A fresh ``kid:<base64>`` line (the key id defaults to ``k<unix time>``)."""
    kid = kid or f"k{int(time.time())}"
    return f"{kid}:{base64.b64encode(secrets.token_bytes(MIN_KEY_BYTES)).decode()}"


def write_key_file(path: Path, lines: list[str]) -> None:
    """Create ``path`` readable by its owner only (0600); refuse to replace a file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write("# Preferans server keys: the first signs, the others only verify.\n")
        out.write("".join(line + "\n" for line in lines))


def create_secret_file(path: Path, write: Callable[[Path], None]) -> None:
    """Create ``path`` atomically with ``write(scratch)`` (which creates ``scratch`` owner-only,
    0600): a concurrent process sees all of it or none; if another process created it first,
    theirs is kept."""
    scratch = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    try:
        write(scratch)
        os.link(scratch, path)
    except FileExistsError:
        pass  # another process created it first: use theirs
    except OSError as exc:
        raise KeyConfigError(f"cannot create the key file {path}: {exc.strerror}") from None
    finally:
        scratch.unlink(missing_ok=True)


def _create_default(path: Path) -> None:
    """Write a fresh key file atomically (``create_secret_file``)."""
    create_secret_file(path, lambda scratch: write_key_file(scratch, [new_key_line()]))


def sqlite_key_path(env: Mapping[str, str]) -> Path | None:
    """The default key file of a SQLite store (``None`` for an in-memory one)."""
    name = env.get("SQLITE_DBNAME", "")
    if not name or ":memory:" in name or "mode=memory" in name:
        return None
    return Path(name.removeprefix("file:").split("?", 1)[0] + ".key")


def load_keyring(env: Mapping[str, str]) -> Keyring:
    """The keyring the environment configures (see the module docstring)."""
    try:
        max_age = int(env.get(TOKEN_MAX_AGE_ENV) or DEFAULT_TOKEN_MAX_AGE)
    except ValueError:
        raise KeyConfigError(f"{TOKEN_MAX_AGE_ENV} must be a number of seconds") from None
    if max_age < 0:
        raise KeyConfigError(f"{TOKEN_MAX_AGE_ENV} must not be negative")
    if env.get(KEYS_ENV):
        return Keyring(parse_keys(env[KEYS_ENV], KEYS_ENV), max_age)
    path_text = env.get(KEY_FILE_ENV)
    postgres = env.get("PERSISTENCE_MODULE", "").endswith("postgres")
    if not path_text:
        default = None if postgres else sqlite_key_path(env)
        if default is None:
            raise KeyConfigError(
                "no server key: set PREF_KEYS or PREF_KEY_FILE (pref serve --key-file FILE); "
                "create one with `pref keys new --out FILE`"
            )
        if not default.exists():
            _create_default(default)
        path_text = str(default)
    path = Path(path_text)
    try:
        text = path.read_text()
    except OSError as exc:
        raise KeyConfigError(f"cannot read the key file {path}: {exc.strerror}") from None
    return Keyring(parse_keys(text, str(path)), max_age)
