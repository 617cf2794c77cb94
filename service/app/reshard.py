"""Changing a store's shard count safely: copy it into a new, empty store (``pref reshard``).

A store's shard count never changes in place (``service.app.shards``). To go from N to M
shards, the service is stopped, every stored event is copied as it is (same game id, version,
topic and bytes: the hash chain of the audit is unchanged) into a new store created with M
shards, each game into ``shard_of(id, M)``, and the token revocations with them; then the new
store's projections are built from its log. The source is only read. The copy is refused if
the target already holds events, and fails (leaving the target to be discarded) if the source
changed while it was copied: a service still writing would lose events.

The server keys are not in the store: serve the new store with the same keys (``PREF_KEYS`` or
``--key-file``; for SQLite the default key file is ``<store>.key`` beside the store).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from eventsourcing.persistence import StoredEvent

from projections import standard_runners
from service.app.application import PreferansApplication
from service.app.config import ConfigError
from service.app.keystore import REVOCATIONS_TABLE
from service.app.shards import recorders_of, shard_of

BATCH = 1000


@dataclass(frozen=True)
class ReshardReport:
    events: int
    games: int
    revocations: int
    shards: int
    per_shard: tuple[int, ...]
    """Events written to each of the target's shards."""


def _heads(app: PreferansApplication) -> tuple[int, ...]:
    return tuple(int(r.max_notification_id() or 0) for r in recorders_of(app.recorder))


def reshard(
    source: PreferansApplication,
    target: PreferansApplication,
    progress: Callable[[int], None] | None = None,
) -> ReshardReport:
    """Copy every event and revocation of ``source`` into the empty ``target`` (whose shard
    count is already fixed), then build ``target``'s projections; see the module."""
    if any(_heads(target)):
        raise ConfigError("the target store already holds events: reshard into a new store")
    targets = recorders_of(target.recorder)
    before = _heads(source)
    written = [0] * len(targets)
    games: set[str] = set()
    for shard in recorders_of(source.recorder):
        start = 0
        while True:
            batch = shard.select_notifications(start, BATCH, inclusive_of_start=False)
            if not batch:
                break
            by_target: dict[int, list[StoredEvent]] = defaultdict(list)
            for n in batch:
                by_target[shard_of(n.originator_id, len(targets))].append(
                    StoredEvent(
                        originator_id=n.originator_id,
                        originator_version=n.originator_version,
                        topic=n.topic,
                        state=n.state,
                    )
                )
                games.add(str(n.originator_id))
            for index, events in by_target.items():
                targets[index].insert_events(events)
                written[index] += len(events)
            start = batch[-1].id
            if progress is not None:
                progress(len(batch))
    if _heads(source) != before:
        raise ConfigError(
            "the source store changed during the copy (a server still running?): stop every "
            "writer, discard the target and run again"
        )
    with source.db.reading() as c:
        c.execute(f"SELECT game_id, seat, revoked_ms FROM {REVOCATIONS_TABLE}")
        revoked = [tuple(row) for row in c.fetchall()]
    with target.db.transaction() as c:
        for game_id, seat, moment in revoked:
            c.execute(
                f"INSERT INTO {REVOCATIONS_TABLE} (game_id, seat, revoked_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (game_id, seat) DO NOTHING",
                (game_id, seat, moment),
            )
    for runner in standard_runners(target, target.db).values():
        runner.catch_up()
    return ReshardReport(
        events=sum(written),
        games=len(games),
        revocations=len(revoked),
        shards=len(targets),
        per_shard=tuple(written),
    )
