"""Page tokens and bounded pages: the one codec every paged method uses.

A token is opaque to clients: ``base64url(mac ‖ body)``, where ``body`` is compact JSON of the
method (``kind``), a fingerprint of the query it continues (its filters and order) and the
keyset ``position`` of the last row sent, and ``mac`` is an HMAC-SHA256 (first 16 bytes) of the
body under a server-side key. Pages continue AFTER a row's sort key rather than at an offset, so
rows inserted meanwhile never shift a page (AIP-158).

Decoding refuses — as ``BadInput`` on ``page_token`` — anything over ``MAX_TOKEN_LENGTH``
characters before decoding it, anything that is not base64url, anything whose MAC does not
verify (so no client-made JSON is ever parsed), a token of another method, and a token of
another query. A page size of 0 means the method's default; a page never holds more than
``RESPONSE_BUDGET`` bytes of rows, and a row too big to send on its own is skipped (logged).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import structlog

from service.api.errors import BadInput

Scalar = str | int | float | bool | None
R = TypeVar("R")
M = TypeVar("M")
K = TypeVar("K")

MAX_TOKEN_LENGTH = 2048
"""Characters; longer tokens are refused unread (ours are far shorter, see ``fits``)."""
MAC_BYTES = 16
GRPC_DEFAULT_MESSAGE_LIMIT = 4 * 1024 * 1024
RESPONSE_BUDGET = GRPC_DEFAULT_MESSAGE_LIMIT - 64 * 1024
"""Bytes of rows in one response: below the 4 MiB a default gRPC client accepts, with room for
the page token and framing."""
_ITEM_OVERHEAD = 8
"""A repeated field's tag and length prefix, at most, per row."""
_BASE64URL = re.compile(r"^[A-Za-z0-9_-]+={0,2}$")
_DERIVATION_LABEL = b"preferans page tokens v1"

log = structlog.get_logger(__name__)


class PageTokens:
    """Issues and checks page tokens under one key (``derived_from`` the server key, so every
    replica accepts every replica's tokens; ``random`` for one process)."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("a page-token key needs at least 16 bytes")
        self._key = key

    @classmethod
    def random(cls) -> PageTokens:
        return cls(secrets.token_bytes(32))

    @classmethod
    def derived_from(cls, secret: bytes) -> PageTokens:
        """A key of its own, derived from a longer-lived secret (it never reveals the secret)."""
        return cls(hmac.new(secret, _DERIVATION_LABEL, hashlib.sha256).digest())

    def _mac(self, body: bytes) -> bytes:
        return hmac.new(self._key, body, hashlib.sha256).digest()[:MAC_BYTES]

    def encode(self, kind: str, query: Sequence[Scalar], position: Sequence[Scalar]) -> str:
        """The token that continues ``query`` after the row at ``position``."""
        body = json.dumps(
            {"k": kind, "q": _fingerprint(query), "p": list(position)},
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
        ).encode()
        return base64.urlsafe_b64encode(self._mac(body) + body).decode().rstrip("=")

    def fits(self, kind: str, query: Sequence[Scalar], position: Sequence[Scalar]) -> bool:
        """Whether a token for this position can be made (no infinite or NaN number) and stays
        within ``MAX_TOKEN_LENGTH``."""
        try:
            return len(self.encode(kind, query, position)) <= MAX_TOKEN_LENGTH
        except ValueError:
            return False

    def decode(self, token: str, kind: str, query: Sequence[Scalar]) -> list[Scalar] | None:
        """The position a token continues after (``None`` for no token: the first page);
        ``BadInput`` for a token this server did not issue for this method and query."""
        if not token:
            return None
        if len(token) > MAX_TOKEN_LENGTH or not _BASE64URL.match(token):
            raise _foreign()
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise _foreign() from None
        mac, body = raw[:MAC_BYTES], raw[MAC_BYTES:]
        if len(mac) < MAC_BYTES or not hmac.compare_digest(mac, self._mac(body)):
            raise _foreign()
        data = json.loads(body)  # our own JSON: the MAC verified
        if data.get("k") != kind:
            raise _foreign()
        if data.get("q") != _fingerprint(query):
            raise BadInput("page_token", "page_token belongs to another query; start again")
        position = data.get("p")
        if not isinstance(position, list):
            raise _foreign()
        return position


def _foreign() -> BadInput:
    return BadInput("page_token", "page_token is not one this server issued")


def _fingerprint(query: Sequence[Scalar]) -> str:
    text = json.dumps(list(query), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def page_size(requested: int, default: int, maximum: int) -> int:
    """``requested`` (0: ``default``), or ``BadInput`` outside 1 to ``maximum``."""
    size = requested or default
    if not 1 <= size <= maximum:
        raise BadInput("page_size", f"page_size must be 1 to {maximum} (0 means {default})")
    return size


BATCH_ROWS = 64
"""Rows read from a read model at a time while filling a page (bounds the memory a page of
unexpectedly big rows takes)."""


def keyset_rows(
    fetch: Callable[[K | None, int], list[R]], key: Callable[[R], K], after: K | None
) -> Iterator[R]:
    """Rows after ``after``, read ``BATCH_ROWS`` at a time by ``fetch(after, limit)``."""
    while True:
        batch = fetch(after, BATCH_ROWS)
        yield from batch
        if len(batch) < BATCH_ROWS:
            return
        after = key(batch[-1])


@dataclass
class Page(Generic[R, M]):
    """One page: the messages to send, and the row the next page continues after."""

    messages: list[M]
    last: R | None
    more: bool


def fill_page(
    rows: Iterable[R],
    size: int,
    to_message: Callable[[R], M],
    byte_size: Callable[[M], int],
    listable: Callable[[R], bool] = lambda row: True,
    budget: int = RESPONSE_BUDGET,
    oversized_alone: bool = False,
) -> Page[R, M]:
    """Up to ``size`` rows as messages, no more than ``budget`` bytes in all. ``rows`` is read
    lazily, one row past the page at most. A row that is not ``listable`` (its position would
    not fit in a token) is skipped and logged; so is a row too big on its own, unless
    ``oversized_alone`` (then it is sent alone on its page: for logs that must not hide rows)."""
    messages: list[M] = []
    last: R | None = None
    used = 0
    for row in rows:
        if not listable(row):
            log.warning("row left out of a page: its sort key is too long for a page token")
            continue
        message = to_message(row)
        cost = byte_size(message) + _ITEM_OVERHEAD
        if cost > budget:
            if not oversized_alone:
                log.warning("row left out of a page: too big to send", bytes=cost)
                continue
            if messages:
                return Page(messages, last, True)
            log.warning("row sent alone: bigger than a page may be", bytes=cost)
            return Page([message], row, True)
        if len(messages) >= size or used + cost > budget:
            return Page(messages, last, True)
        messages.append(message)
        used += cost
        last = row
    return Page(messages, last, False)
