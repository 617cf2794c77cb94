"""The audit's store side: read a game's stored events raw and hand them to ``domain.audit``.

Nothing derived is used: not the aggregate cache, not the projections. Each stored row is
decoded on its own by the application's mapper (with its upcasters), and a row that cannot be
decoded becomes an ``Undecodable`` that the audit reports at its position.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from eventsourcing.persistence import PersistenceError

from domain.audit import AuditReport, Undecodable, verify
from domain.model.chain import ENVELOPE, stored_chain
from domain.model.decisions import EVENT_PREFIX
from domain.model.league import LEAGUE_EVENTS
from domain.model.shape import event_topics, malformed
from domain.model.table import TABLE_EVENTS
from service.app.application import GameNotFound, PreferansApplication, StoreUnavailable


@dataclass(frozen=True)
class LogEntry:
    """One stored event, everything in it, for auditors."""

    version: int
    topic: str
    timestamp: str
    """ISO 8601, exactly as the chain covers it ("" if the event cannot be decoded)."""
    fields_json: str
    """Every field but the envelope and the chain, as JSON (sorted keys)."""
    chain: str
    decode_error: str = ""


def _select(
    app: PreferansApplication, game_id: uuid.UUID, after: int = 0, limit: int | None = None
) -> list[Any]:
    try:
        return list(app.recorder.select_events(game_id, gt=after or None, limit=limit))
    except PersistenceError as exc:
        raise StoreUnavailable(str(exc)) from exc


_TOPICS = event_topics()
NOT_GAMES = frozenset(EVENT_PREFIX + name for name in LEAGUE_EVENTS | TABLE_EVENTS)
"""Topics of the log's other streams (leagues, tables): such a stream is no game to audit."""


def _game_rows(rows: list[Any], game_id: uuid.UUID, after: int = 0) -> list[Any]:
    """The rows of a game's stream (``GameNotFound`` for none, or for a league or table)."""
    if (not rows and after == 0) or (rows and str(rows[0].topic) in NOT_GAMES):
        raise GameNotFound(f"no game {game_id}")
    return rows


def _decode(app: PreferansApplication, stored: Any) -> Any:
    """The stored row as an event, or ``Undecodable`` (an unknown topic is never resolved: a
    topic names a module to import)."""
    topic = str(stored.topic)
    if topic not in _TOPICS:
        return Undecodable(stored.originator_version, topic, f"unknown topic {topic!r:.80}")
    try:
        return app.mapper.to_domain_event(stored)
    except Exception as exc:  # any failure to decode is a finding, not a crash
        return Undecodable(stored.originator_version, topic, f"{type(exc).__name__}: {exc!s:.200}")


def read_log(app: PreferansApplication, game_id: uuid.UUID) -> list[Any]:
    """The game's events decoded one by one from the stored rows (``GameNotFound`` if none)."""
    rows = _game_rows(_select(app, game_id), game_id)
    return [_decode(app, row) for row in rows]


def verify_game(app: PreferansApplication, game_id: uuid.UUID) -> AuditReport:
    """Check the whole game from its stored events alone."""
    return verify(str(game_id), read_log(app, game_id))


def event_log(
    app: PreferansApplication, game_id: uuid.UUID, after: int, limit: int
) -> tuple[list[LogEntry], bool]:
    """Up to ``limit`` entries after version ``after``, and whether more follow."""
    rows = _game_rows(_select(app, game_id, after, limit + 1), game_id, after)
    entries = [log_entry(_decode(app, row), row) for row in rows[:limit]]
    return entries, len(rows) > limit


def log_entry(event: Any, row: Any) -> LogEntry:
    if not isinstance(event, Undecodable):
        problem = malformed(event)
        if problem is not None:
            event = Undecodable(row.originator_version, row.topic, problem)
    if isinstance(event, Undecodable):
        raw = row.state.decode("utf-8", "replace") if isinstance(row.state, bytes) else ""
        return LogEntry(event.version, row.topic, "", raw, "", event.reason)
    fields = {k: v for k, v in event.__dict__.items() if k not in ENVELOPE}
    return LogEntry(
        version=event.originator_version,
        topic=row.topic,
        timestamp=event.timestamp.isoformat(),
        fields_json=json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str),
        chain=stored_chain(event) or "",
    )
