"""Hand records at the service edge: export a stored game, import and verify a file.

``export_game_record`` is what ``pref export`` and the AuditService's ``ExportHandRecord`` call;
the format and the verification are pure (``domain.handrecord``, docs/HANDRECORD.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING

from domain.handrecord import (
    Record,
    Verdict,
    parse_record,
    record_from_events,
    render_text,
    to_json,
    verify_record,
)

if TYPE_CHECKING:
    from service.app.application import PreferansApplication

FORMATS = ("json", "text")


def game_record(
    app: PreferansApplication,
    game_id: uuid.UUID,
    deal_number: int | None = None,
    tags: Mapping[str, str | None] | None = None,
) -> Record:
    """The hand record (as data) of a stored game, or of one finished deal of it; ``tags``
    (``event``, ``site``, ``round``) set the record's tags of those names."""
    from service.app.application import GameNotFound

    events = app.game_events(game_id)
    if not events:
        raise GameNotFound(f"no game {game_id}")
    return record_from_events(events, str(game_id), deal_number, tags)


def export_game_record(
    app: PreferansApplication,
    game_id: uuid.UUID,
    deal_number: int | None,
    fmt: str,
    tags: Mapping[str, str | None] | None = None,
) -> str:
    """A stored game (or one deal of it, ``deal_number``) as a hand record: ``"json"`` or
    ``"text"``. Raises ``ValueError`` for an unknown format or a deal that is not finished."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown hand-record format {fmt!r}: use json or text")
    rec = game_record(app, game_id, deal_number, tags)
    return to_json(rec) if fmt == "json" else render_text(rec)


def import_record(text: str) -> tuple[Record, Verdict]:
    """Parse a JSON hand record and verify it (``HandRecordError`` if it cannot be read)."""
    rec = parse_record(text)
    return rec, verify_record(rec)
