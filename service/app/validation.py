"""The rules for every string a client sends, checked before anything is recorded or queried.

Every check returns the value to use from then on: the string **NFC-normalised** (so "é" typed as
``e`` + U+0301 and the precomposed U+00E9 are the same player, league or request id). A string
that breaks a rule raises ``InvalidAction`` with ``field`` set — the error the application's
commands already raise for malformed input, so the CLI reports it in one line and
``service.api.errors`` maps it, like ``BadInput``, to INVALID_ARGUMENT with a ``BadRequest`` naming
the field. (Not ``BadInput`` itself: that belongs to the gRPC adapter, which the application
does not import.) The message says which rule and where (length, code point, position), and
never repeats the input.

Characters: after normalisation every character must be *printable* in Python's sense
(``str.isprintable``), which refuses exactly the Unicode categories

- ``Cc`` control characters: NUL (PostgreSQL text cannot hold it), tab, newline, DEL, C1;
- ``Cf`` format characters: bidi embeddings/overrides/isolates U+202A–U+202E and U+2066–U+2069,
  U+200E/U+200F marks, zero-width space/joiners U+200B–U+200D, BOM U+FEFF, soft hyphen, tags;
- ``Cs`` lone surrogates, ``Co`` private use, ``Cn`` unassigned code points;
- ``Zl``/``Zp`` line and paragraph separators, and every ``Zs`` space except U+0020.

(So emoji ZWJ sequences are refused; single emoji and combining marks are fine.)
Identifiers (player ids, leagues, request ids, labels) may not start or end with a space.
Lengths count code points after normalisation; the table of limits is ``LIMITS``.
"""

from __future__ import annotations

import unicodedata
from typing import NoReturn

from domain.model.disputes import MAX_REASON as _DOMAIN_MAX_REASON
from domain.model.terms import BOT_PREFIX
from domain.rules.errors import InvalidAction

MAX_PLAYER_ID = 64
MAX_LEAGUE = 64
MAX_REQUEST_ID = 128
MAX_REASON = _DOMAIN_MAX_REASON
"""The rules core checks reasons with the same limit."""
MAX_GAME_NAME = 64
"""``games/`` and a UUID are 42 characters."""
MAX_RULE_SET_NAME = 64
MAX_ACTION_TEXT = 16
"""A card or a bid as text ("10♠", "misère", "7nt")."""
MAX_LABEL = 64
"""Who recorded a ruling (``pref rule --auditor``)."""
INVITATION_CODE_LENGTH = 43
"""An invitation code (``service.app.tables``): 43 base64url characters (256 bits)."""
MAX_LOGGED = 200
"""Longest client-derived string a log line holds (``bounded``)."""
MAX_SEATS = 5
"""The most seats a table has (``RuleSet.players``, 2 to 5; RULES.md §3.6): the bound of a seat
number a client or a token names, checked before its game is read (which then bounds it by its
own ``players``)."""

LIMITS: dict[str, int] = {
    "player_id": MAX_PLAYER_ID,
    "league": MAX_LEAGUE,
    "request_id": MAX_REQUEST_ID,
    "reason": MAX_REASON,
    "game_name": MAX_GAME_NAME,
    "rule_set_name": MAX_RULE_SET_NAME,
    "action_text": MAX_ACTION_TEXT,
    "label": MAX_LABEL,
    "invitation_code": INVITATION_CODE_LENGTH,
    "logged": MAX_LOGGED,
}
"""Maximum length of each kind of client string (code points), in one table."""


_NFC_GROWTH = 4
"""NFC never turns more than this many code points into one: longer inputs are refused
before normalising (no work on a 1 MB id)."""


def _refuse(field: str, message: str) -> NoReturn:
    raise InvalidAction(message, field=field)


def _kind(char: str) -> str:
    category = unicodedata.category(char)
    return {
        "Cc": "a control character",
        "Cf": "a format character (bidi control, zero-width or similar)",
        "Cs": "a lone surrogate",
        "Co": "a private-use character",
        "Cn": "an unassigned code point",
        "Zl": "a line separator",
        "Zp": "a paragraph separator",
    }.get(category, "a space other than U+0020")


def text(
    value: str,
    field: str,
    max_length: int,
    *,
    required: bool = True,
    identifier: bool = True,
) -> str:
    """``value`` NFC-normalised, or ``BadInput`` for ``field``: at most ``max_length`` code
    points of printable characters; non-empty if ``required``; no leading or trailing space if
    ``identifier``, not blank otherwise."""
    if len(value) > max_length * _NFC_GROWTH:
        _refuse(field, f"{field} must be at most {max_length} characters (got {len(value)})")
    normal = unicodedata.normalize("NFC", value)
    if len(normal) > max_length:
        _refuse(field, f"{field} must be at most {max_length} characters (got {len(normal)})")
    if not normal:
        if required:
            _refuse(field, f"{field} is required")
        return normal
    if not normal.isprintable():
        position, char = next((i, c) for i, c in enumerate(normal) if not c.isprintable())
        _refuse(
            field,
            f"{field} may not contain {_kind(char)}: U+{ord(char):04X} at position {position + 1}",
        )
    if identifier and (normal[0].isspace() or normal[-1].isspace()):
        _refuse(field, f"{field} may not start or end with a space")
    if not identifier and normal.isspace():
        _refuse(field, f"{field} may not be blank")
    return normal


def player_id(value: str, field: str = "player_id") -> str:
    """A player id: 1 to 64 characters."""
    return text(value, field, MAX_PLAYER_ID)


def person_id(value: str, field: str = "player_id") -> str:
    """A person's player id: a player id that is none of the server's bots' (``bot:…``, their
    house accounts, docs/STAKES.md)."""
    player = player_id(value, field)
    if player.startswith(BOT_PREFIX):
        raise InvalidAction(f"ids starting with {BOT_PREFIX!r} are the server's bots", field)
    return player


def league(value: str, field: str = "league") -> str:
    """A league tag: up to 64 characters; empty for the untagged league."""
    return text(value, field, MAX_LEAGUE, required=False)


def request_id(value: str, field: str = "request_id") -> str:
    """A client's request id: 1 to 128 characters."""
    return text(value, field, MAX_REQUEST_ID)


def reason(value: str, field: str = "reason") -> str:
    """Free text (a flag's or a ruling's reason): 1 to 500 characters, not blank."""
    return text(value, field, MAX_REASON, identifier=False)


def game_name(value: str, field: str = "name") -> str:
    """A resource name such as ``games/<uuid>`` (its form is checked by its parser)."""
    return text(value, field, MAX_GAME_NAME, required=False)


def rule_set_name(value: str, field: str = "rules.name") -> str:
    """The name of a rule set (empty for the default)."""
    return text(value, field, MAX_RULE_SET_NAME, required=False)


def action_text(value: str, field: str = "action") -> str:
    """A card or a bid as text, before it is parsed."""
    return text(value, field, MAX_ACTION_TEXT, required=False)


def label(value: str, field: str = "auditor") -> str:
    """A short label such as who recorded a ruling: 1 to 64 characters."""
    return text(value, field, MAX_LABEL)


def invitation_code(value: str, field: str = "invitation_code") -> str:
    """An invitation code: empty, or exactly ``INVITATION_CODE_LENGTH`` base64url characters."""
    value = text(value, field, INVITATION_CODE_LENGTH, required=False)
    if value and (
        len(value) != INVITATION_CODE_LENGTH
        or not all(c.isascii() and (c.isalnum() or c in "-_") for c in value)
    ):
        _refuse(field, f"{field} is not an invitation code")
    return value


def bounded(value: str, limit: int = MAX_LOGGED) -> str:
    """``value`` fit for a log line: non-printable characters escaped, cut to ``limit``
    characters with a marker giving the full length."""
    cut = value[:limit]
    if not cut.isprintable():
        cut = "".join(
            c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode()
            for c in cut
        )
    if len(value) > limit:
        return f"{cut}…[{len(value)} chars]"
    return cut
