"""Games spread over several event stores ("shards") where one store's writer lock is the limit.

Every game lives in exactly one shard, chosen by a pure function of its id (``shard_of``), so
any process finds a game's events without a lookup and one game's events keep their order. A
shard is a complete ``eventsourcing`` application recorder of its own:

- PostgreSQL: one events table per shard in the configured schema, ``preferans_events`` for
  shard 0 (the table every existing store already has) and ``preferans_s<k>_events`` for shard
  ``k``. Each table has its own ``LOCK TABLE … IN EXCLUSIVE MODE`` per insert, its own
  gap-free notification ids and its own NOTIFY channel. The names are generated here from the
  shard number, never from client text.
- SQLite: one file per shard, ``preferans.sqlite`` for shard 0 and ``preferans.shard<k>.sqlite``
  beside it: SQLite has one writer per *file*, so tables in one file would share its lock.

The shard count is part of the store: it is recorded in the main store (table
``store_layout``) the first time a process opens it, and every later process takes it from
there. A process configured with another count (``--shards`` / ``PREF_SHARDS``) is refused
(``ConfigError``): games are placed by their id modulo the count, so a changed count would
look for existing games in the wrong shard. An existing single-shard store that already holds
events cannot be given more shards either. To change the count, ``pref reshard`` copies a
stopped store into a new one (``service.app.reshard``).

Readers of the log (projections, the event hub, SQLite change polling) read every shard
(``recorders_of``), each with its own position. Order is per shard: events of one game are in
order; events of games in different shards have no order between them.

With one shard (the default) nothing changes: the application's recorder is the library's own.
"""

from __future__ import annotations

import hashlib
import math
import time
import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from eventsourcing.persistence import (
    ApplicationRecorder,
    InfrastructureFactory,
    Notification,
    StoredEvent,
    Subscription,
    Tracking,
)
from eventsourcing.utils import Environment

from projections.db import Database
from service.app.config import ConfigError
from service.app.groupcommit import GroupCommitter, Saver

SHARDS_ENV = "PREF_SHARDS"
MAX_SHARDS = 256
LAYOUT_TABLE = "store_layout"


def parse_shards(value: str | int | None) -> int | None:
    """A shard count from the command line or ``PREF_SHARDS`` (``None``: not given, take the
    store's). ``ConfigError`` unless it is a whole number from 1 to ``MAX_SHARDS``."""
    if value is None or value == "":
        return None
    text = str(value).strip()
    if not text.isdigit() or not 1 <= int(text) <= MAX_SHARDS:
        raise ConfigError(
            f"invalid shard count {text[:20]!r}: use a whole number from 1 to {MAX_SHARDS}"
        )
    return int(text)


def shard_of(game_id: uuid.UUID | str, shards: int) -> int:
    """The shard of a game: a stable hash of its id's 16 bytes modulo the count (the same in
    every process, release and platform; never Python's randomised ``hash``)."""
    if shards <= 1:
        return 0
    raw = game_id.bytes if isinstance(game_id, uuid.UUID) else uuid.UUID(str(game_id)).bytes
    digest = hashlib.blake2b(raw, digest_size=8, person=b"pref-shard").digest()
    return int.from_bytes(digest, "big") % shards


def shard_app_name(name: str, shard: int) -> str:
    """The ``eventsourcing`` application name of a shard: its PostgreSQL events table is
    ``<name>_events`` (``preferans_events``, ``preferans_s1_events``, …)."""
    return name if shard == 0 else f"{name}_s{shard}"


def shard_sqlite_path(path: str, shard: int) -> str:
    """The SQLite file of a shard, beside the main file (``x.sqlite`` -> ``x.shard1.sqlite``)."""
    if shard == 0:
        return path
    p = Path(path)
    return str(p.with_name(f"{p.stem}.shard{shard}{p.suffix}"))


def recorders_of(recorder: Any) -> list[Any]:
    """Every shard's recorder of an application's recorder (itself when unsharded)."""
    shards = getattr(recorder, "shards", None)
    return list(shards) if shards else [recorder]


class ShardedRecorder(ApplicationRecorder):
    """Routes each game's events to its shard's recorder.

    Writes of one call must belong to one shard (the group committer batches per shard): a
    transaction never spans two stores. Reading "the" notification log makes no sense across
    shards; readers take each shard's log from ``shards``, so those methods refuse."""

    def __init__(self, shards: Sequence[ApplicationRecorder]) -> None:
        self.shards = list(shards)

    def shard(self, originator_id: uuid.UUID | str) -> ApplicationRecorder:
        return self.shards[shard_of(originator_id, len(self.shards))]

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        by_shard: dict[int, list[StoredEvent]] = defaultdict(list)
        for event in stored_events:
            by_shard[shard_of(event.originator_id, len(self.shards))].append(event)
        if len(by_shard) > 1:
            raise ValueError("one write spans several shards; write each shard's games apart")
        if not by_shard:
            return []
        ((index, events),) = by_shard.items()
        return self.shards[index].insert_events(events, **kwargs)

    def select_events(
        self,
        originator_id: uuid.UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        return self.shard(originator_id).select_events(
            originator_id, gt=gt, lte=lte, desc=desc, limit=limit
        )

    def _refuse(self) -> Exception:
        return TypeError("a sharded store has one notification log per shard: use .shards")

    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        raise self._refuse()

    def max_notification_id(self) -> int | None:
        raise self._refuse()

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[ApplicationRecorder]:
        raise self._refuse()

    def insert_tracking(self, tracking: Tracking) -> None:
        raise self._refuse()

    def max_tracking_id(self, application_name: str) -> int | None:
        raise self._refuse()

    def has_tracking_id(self, application_name: str, notification_id: int | None) -> bool:
        raise self._refuse()


def shard_env(env: Mapping[str, str], shard: int, shards: int) -> dict[str, str]:
    """The environment of shard ``shard``'s recorder: its own SQLite file; on PostgreSQL each
    shard has its own connection pool, so the configured pool is divided between them."""
    out = dict(env)
    if env.get("PERSISTENCE_MODULE", "").endswith("sqlite"):
        out["SQLITE_DBNAME"] = shard_sqlite_path(env["SQLITE_DBNAME"], shard)
    elif shards > 1:
        for key, floor in (("POSTGRES_POOL_SIZE", 2), ("POSTGRES_MAX_OVERFLOW", 1)):
            if env.get(key, "").isdigit():
                out[key] = str(max(floor, math.ceil(int(env[key]) / shards)))
    return out


class Shards:
    """The extra shards' infrastructure of one application (closed with it)."""

    def __init__(self, name: str, env: Mapping[str, str], main: ApplicationRecorder) -> None:
        self.count = configured_count(env, main)
        self.factories: list[InfrastructureFactory[Any]] = []
        recorders: list[ApplicationRecorder] = [main]
        try:
            for k in range(1, self.count):
                factory = InfrastructureFactory.construct(
                    Environment(shard_app_name(name, k), shard_env(env, k, self.count))
                )
                self.factories.append(factory)
                recorders.append(factory.application_recorder())
        except BaseException:
            self.close()
            raise
        self.recorder: ApplicationRecorder = main if self.count == 1 else ShardedRecorder(recorders)

    def committer(self, save: Saver) -> GroupCommitter | ShardedCommitter:
        """Group commit per shard: each shard's writer thread batches its own games, so the
        shards' table locks (or SQLite files) are taken in parallel, never one after another."""
        if self.count == 1:
            return GroupCommitter(save)
        return ShardedCommitter([GroupCommitter(save) for _ in range(self.count)])

    def close(self) -> None:
        for factory in self.factories:
            factory.close()


class ShardedCommitter:
    """``GroupCommitter``'s interface over one committer per shard."""

    def __init__(self, committers: Sequence[GroupCommitter]) -> None:
        self.committers = list(committers)

    def _for(self, events: Sequence[Any]) -> GroupCommitter:
        return self.committers[shard_of(events[0].originator_id, len(self.committers))]

    def save(self, events: Sequence[Any]) -> None:
        """Write one game's pending events through its shard's committer."""
        if events:
            self._for(events).save(events)

    def submit(self, events: Sequence[Any]) -> Future[None]:
        """Queue one game's pending events with its shard's next group commit (see
        ``GroupCommitter.submit``)."""
        if not events:
            done: Future[None] = Future()
            done.set_result(None)
            return done
        return self._for(events).submit(events)

    def close(self) -> None:
        for committer in self.committers:
            committer.close()


def configured_count(env: Mapping[str, str], main: ApplicationRecorder) -> int:
    """The store's shard count: recorded in the main store (``LAYOUT_TABLE``), recorded there
    now if this is the first process, or ``ConfigError`` if ``PREF_SHARDS`` asks for another
    (see the module's docstring)."""
    asked = parse_shards(env.get(SHARDS_ENV))
    db = Database(env)
    try:
        recorded = _recorded(db)
        if recorded is None:
            count = asked or 1
            if count > 1 and (main.max_notification_id() or 0) > 0:
                raise ConfigError(
                    f"this store already holds games in one shard; it cannot be given {count} "
                    "shards (games are placed by their id, so existing ones would be looked for "
                    "in the wrong shard): start without --shards/PREF_SHARDS, or copy it into a "
                    "new store with `pref reshard`"
                )
            with db.transaction() as c:
                c.execute(
                    f"INSERT INTO {LAYOUT_TABLE} (key, value) VALUES ('shards', ?) "
                    "ON CONFLICT (key) DO NOTHING",
                    (str(count),),
                )
            recorded = _recorded(db)
            assert recorded is not None
    finally:
        db.close()
    if asked is not None and asked != recorded:
        raise ConfigError(
            f"this store has {recorded} shard(s), not {asked}: games are placed by their id "
            f"over the shard count, so it cannot change in place; start with --shards "
            f"{recorded} or without --shards/PREF_SHARDS (to change it, copy the stopped store "
            f"into a new one with `pref reshard`)"
        )
    return recorded


def _recorded(db: Database) -> int | None:
    """The recorded shard count (``None``: none yet). Two processes opening a new PostgreSQL
    store at once can collide in ``CREATE TABLE IF NOT EXISTS`` (a unique violation in the
    catalogue): the loser tries again, and then finds the table."""
    for attempt in range(3):
        try:
            with db.transaction() as c:
                c.execute(
                    f"CREATE TABLE IF NOT EXISTS {LAYOUT_TABLE} (key TEXT PRIMARY KEY, value TEXT)"
                )
                c.execute(f"SELECT value FROM {LAYOUT_TABLE} WHERE key = 'shards'")
                row = c.fetchone()
            return None if row is None else int(row[0])
        except Exception:
            if attempt == 2:
                raise
            time.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")
