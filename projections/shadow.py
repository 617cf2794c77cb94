"""Rebuilding a projection without emptying it for readers, and without deadlocks.

The whole log is projected into shadow tables (``games__rebuild`` for ``games``, and so on for
each of the projection's tables and indexes, with their own tracking row) while the live tables
keep serving and live runners keep advancing them. When the shadow has caught up, one
transaction takes the projection's lock (the one every runner's batch takes first), drops the
live tables, renames the shadow ones into their place and sets the live tracking position to
the shadow's; on PostgreSQL and SQLite alike, readers see either the old complete view or the
new complete one. Live runners notice the moved position and reload their caches.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from projections import metrics
from projections.db import Cursor, execute_all, is_transient
from projections.runner import (
    TRACKING_TABLE,
    Projection,
    ProjectionConflict,
    _ensure_tracking,
    read_position,
    shard_tracking,
)

if TYPE_CHECKING:
    from projections.runner import ProjectionRunner

SUFFIX = "__rebuild"
SWAP_ATTEMPTS = 5
"""How often the swap is tried when PostgreSQL aborts it (a deadlock with a reader)."""


class RebuildConflict(Exception):
    """Another rebuild of the same projection started meanwhile (this one gave way)."""


def shadow_names(projection: Projection) -> dict[str, str]:
    """Each table and index of the projection -> the name of its shadow."""
    return {name: name + SUFFIX for name in (*projection.tables, *projection.indexes)}


def rebuild(runner: ProjectionRunner, progress: Callable[[int], None] | None = None) -> int:
    """Rebuild ``runner``'s projection (the caller holds the runner's lock); return the number
    of events processed."""
    db, projection = runner.db, runner.projection
    tracking = projection.name + SUFFIX
    projection.reset()
    runner._position = None
    total = 0
    try:
        with db.renaming(shadow_names(projection)):
            with db.transaction() as c:
                db.lock(c, tracking)
                projection.drop_tables(c)
                projection.create_tables(c)
                for shard in range(len(runner.logs)):
                    _ensure_tracking(c, shard_tracking(tracking, shard), 0)
            runner._position = (0,) * len(runner.logs)
        for attempt in range(1, SWAP_ATTEMPTS + 1):
            total += _catch_up(runner, tracking, progress)
            try:
                _swap_in(runner, tracking)
                break
            except Exception as exc:
                # A reader holding one table while the swap holds another: PostgreSQL aborts
                # one of the two; the shadow is intact, so catch up again and retry.
                if not is_transient(exc) or attempt == SWAP_ATTEMPTS:
                    raise
                time.sleep(0.1 * attempt)
    except BaseException as exc:
        projection.reset()
        runner._position = None
        if not isinstance(exc, RebuildConflict):  # the shadow is this rebuild's: remove it
            _discard(runner, tracking)
        raise
    metrics.REBUILDS.labels(projection.name).inc()
    # The caches hold what the new tables hold, at the position the live row now has.
    return total


def _catch_up(
    runner: ProjectionRunner, tracking: str, progress: Callable[[int], None] | None
) -> int:
    """Project into the shadow tables up to the end of the log."""
    total = 0
    with runner.db.renaming(shadow_names(runner.projection)), runner.reading_ahead():
        while True:
            try:
                done = runner._run(tracking, runner.rebuild_batch)
            except ProjectionConflict as exc:
                raise RebuildConflict(
                    f"another rebuild of {runner.projection.name} started; this one stopped"
                ) from exc
            if not done:
                return total
            total += done
            if progress is not None:
                progress(done)


def _swap_in(runner: ProjectionRunner, tracking: str) -> None:
    """In one transaction, under the projection's lock: the shadow replaces the live view."""
    db, projection = runner.db, runner.projection
    with db.transaction() as c:
        db.lock(c, projection.name)
        shards = range(len(runner.logs))
        positions = tuple(read_position(c, shard_tracking(tracking, k)) for k in shards)
        if positions != runner._position:
            raise RebuildConflict(f"another rebuild of {projection.name} started")
        _swap(db.flavor, c, projection)
        for shard in shards:
            c.execute(
                f"UPDATE {TRACKING_TABLE} SET position = ? WHERE name = ?",
                (positions[shard], shard_tracking(projection.name, shard)),
            )
            c.execute(
                f"DELETE FROM {TRACKING_TABLE} WHERE name = ?", (shard_tracking(tracking, shard),)
            )


def _discard(runner: ProjectionRunner, tracking: str) -> None:
    """Drop a failed rebuild's shadow tables and tracking row (best effort: the next rebuild
    drops them anyway)."""
    db = runner.db
    names = shadow_names(runner.projection)
    with contextlib.suppress(Exception), db.renaming(names), db.transaction() as c:
        db.lock(c, tracking)
        runner.projection.drop_tables(c)
        for shard in range(len(runner.logs)):
            c.execute(
                f"DELETE FROM {TRACKING_TABLE} WHERE name = ?", (shard_tracking(tracking, shard),)
            )


def _swap(flavor: str, c: Cursor, projection: Projection) -> None:
    """Replace the live tables by their shadows (inside the caller's transaction)."""
    statements = []
    for table in projection.tables:
        statements.append(f"DROP TABLE IF EXISTS {table}")
        statements.append(f"ALTER TABLE {table}{SUFFIX} RENAME TO {table}")
    execute_all(c, statements)  # one round trip on PostgreSQL
    if flavor == "postgres":
        # Indexes (primary keys included) keep their names through a table's rename.
        c.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND tablename = ANY(?)",
            (list(projection.tables),),
        )
        execute_all(
            c,
            [
                f"ALTER INDEX {index} RENAME TO {index.replace(SUFFIX, '')}"
                for (index,) in c.fetchall()
                if SUFFIX in index
            ],
        )
    else:
        # SQLite cannot rename an index: drop the shadow's and create them under their names.
        for index in projection.indexes:
            c.execute(f"DROP INDEX IF EXISTS {index}{SUFFIX}")
        projection.create_tables(c)
