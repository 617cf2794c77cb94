"""Bounded caches of the read models evict the least recently used entry, never all at once."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from eventsourcing.persistence import OperationalError

from domain.rules import actor, seat_view
from projections import stats
from service.api.mapping import seat_view_cached, seat_view_to_proto
from service.app.application import PreferansApplication, StoreUnavailable
from tests.integration.helpers import BOT, create, play


def test_a_hot_row_is_not_reloaded_while_other_rows_come_and_go(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three rows interleaved through a cache of two, one batch per change: the row in use
    throughout is loaded once; each of the two others is reloaded when it comes back (it was
    the least recently used). Rows changed in a batch survive eviction until it is flushed."""
    monkeypatch.setattr(stats, "CACHED_ROWS", 2)
    db = app.db
    table = stats._Table(db, "cache_test", ("k",), {"k": "TEXT", "n": "INTEGER"}, {"n": 0})
    with db.transaction() as c:
        table.create(c)
    loads: Counter[str] = Counter()
    reading = db.reading

    @contextlib.contextmanager
    def counted() -> Iterator[Any]:
        loads["reads"] += 1
        with reading() as c:
            yield c

    monkeypatch.setattr(db, "reading", counted)

    def bump(key: str) -> None:
        table.get(key)["n"] += 1

    for turn in range(10):
        bump("hot")
        bump("cold-a" if turn % 2 == 0 else "cold-b")
        bump("hot")
        with db.transaction() as c:
            table.flush(c)
    hot = loads["reads"]
    assert hot == 1 + 10  # the hot row once, a cold row each turn
    # One batch touching more rows than the cache holds loses none of its changes.
    for key in ("x", "y", "z", "x"):
        bump(key)
    with db.transaction() as c:
        table.flush(c)
        c.execute("SELECT k, n FROM cache_test ORDER BY k")
        rows = dict(c.fetchall())
    assert rows == {"cold-a": 5, "cold-b": 5, "hot": 20, "x": 2, "y": 1, "z": 1}


def test_seat_views_are_built_once_per_game_version_and_seat(app: PreferansApplication) -> None:
    game_id = create(app).game_id
    game = app.get_game(game_id)
    first = [seat_view_cached(game, seat) for seat in range(3)]
    again = [seat_view_cached(game, seat) for seat in range(3)]
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert first == [seat_view_to_proto(game, seat) for seat in range(3)]
    assert len({view.SerializeToString() for view in first}) == 3  # each seat its own
    play(app, game_id, stop=lambda g: g.version > first[0].version)
    game = app.get_game(game_id)
    after = seat_view_cached(game, 0)
    assert after is not first[0] and after == seat_view_to_proto(game, 0)


def test_a_game_behind_min_version_reads_only_its_newer_events(
    open_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read-your-writes across replicas (``min_version``) brings the copy in memory up to date
    with the events it lacks; it does not replay the whole game from the store again (so a
    reader cannot make a hot game cost a full replay per request). On SQLite the poll of other
    processes' writes forgets a changed game first (``SqliteChanges``): it is read again."""
    one, other = open_app(), open_app()
    game_id = create(one).game_id
    before = one.get_game(game_id).version  # in one's memory
    play(other, game_id, stop=lambda g: g.version >= before + 5)
    reconstructed: list[Any] = []
    original = one.repository._reconstruct_aggregate

    def counted(*args: Any, **kwargs: Any) -> Any:
        reconstructed.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(one.repository, "_reconstruct_aggregate", counted)
    game = one.get_game(game_id, min_version=before + 5)
    assert game.version == other.get_game(game_id).version
    assert game.state == other.get_game(game_id).state
    assert len(reconstructed) == (1 if one.db.flavor == "sqlite" else 0)


def test_on_sqlite_a_process_does_not_read_its_own_writes_back_but_sees_anothers(
    open_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each command polls the SQLite file for other processes' writes (``SqliteChanges``).
    This process's own writes change the file too; their ids are known, so a poll that finds
    only them reads nothing (before, every command read its own previous events back). A
    write of another process between two of this one's is still read, and the game it
    changed is forgotten, so the next command reads it again."""
    one, other = open_app(), open_app()
    if one.db.flavor != "sqlite":
        pytest.skip("only a SQLite store is polled for other processes' writes")
    reads: list[int] = []
    select = one.recorder.select_notifications

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        return select(*args, **kwargs)

    monkeypatch.setattr(one.recorder, "select_notifications", counted)
    mine = create(one).game_id
    play(one, mine, stop=lambda g: g.version >= 12)
    assert reads == []  # a dozen commands, none read its own events back
    theirs = create(other).game_id  # another process writes the same file
    one.get_game(theirs)
    play(one, mine, stop=lambda g: g.version >= 14)
    seen = len(reads)
    assert seen >= 1  # the other process's events were read
    before = one.get_game(theirs).version
    play(other, theirs, stop=lambda g: g.version >= before + 3)  # in between ...
    play(one, mine, stop=lambda g: g.version >= 16)  # ... this one's writes
    assert len(reads) > seen
    assert one.get_game(theirs).version == other.get_game(theirs).version


def test_on_sqlite_a_copy_loaded_before_this_processs_own_write_landed_is_forgotten(
    open_app: Any,
) -> None:
    """A command cancelled after its save (``GameServicer._drive``) releases its game while
    the events still wait for the group commit; another request may load the game from the
    store meanwhile, without them. Polls no longer read this process's writes back, so the
    writer itself forgets such a copy when the write lands: the next read has the new event
    (found by a review, with this reproducer)."""
    one = open_app()
    if one.db.flavor != "sqlite" or not one.group_commit:
        pytest.skip("only a SQLite store is polled for other processes' writes")
    game_id = create(one).game_id
    play(one, game_id, stop=lambda g: g.version >= 6)
    game = one.get_game(game_id)
    before = game.version
    gate, entered = threading.Event(), threading.Event()
    insert = one.recorder.insert_events

    def held_insert(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        assert gate.wait(10)
        return insert(*args, **kwargs)

    one.recorder.insert_events = held_insert
    try:
        deal = game.deal
        assert deal is not None
        seat = actor(deal)
        steps = one.act_steps(game_id, seat, BOT(seat_view(deal, seat)), request_id="cancel-1")
        to_save = steps.send(None)  # decided, under the game's lock
        future = one.submit(to_save)
        assert entered.wait(10)
        one.save_failed(to_save, asyncio.CancelledError())  # as the cancelled command does
        steps.close()  # the game's lock is released
        assert one.get_game(game_id).version == before  # loaded without the pending write
        gate.set()
        future.result(10)
    finally:
        gate.set()
        one.recorder.insert_events = insert
    assert one.get_game(game_id).version > before


@pytest.mark.parametrize("failing", ["read of the log", "read of its head"])
def test_on_sqlite_a_failed_poll_is_store_unavailable_and_the_next_one_reads_again(
    open_app: Any, failing: str
) -> None:
    """A poll that fails is the store being unavailable (the caller's typed error), and the
    file's change it was looking at is not taken as seen: the next poll reads it, so the game
    another process changed is not served stale (found by a review)."""
    one, other = open_app(), open_app()
    if one.db.flavor != "sqlite":
        pytest.skip("only a SQLite store is polled for other processes' writes")
    changes = one._changes[0]
    game_id = create(one).game_id
    play(one, game_id, stop=lambda g: g.version >= 4)
    cached = one.get_game(game_id).version
    play(other, game_id, stop=lambda g: g.version >= cached + 2)
    if failing == "read of the log":
        select = one.recorder.select_notifications

        def fails_once(*args: Any, **kwargs: Any) -> Any:
            one.recorder.select_notifications = select
            raise OperationalError("database is locked")

        one.recorder.select_notifications = fails_once
    else:
        head_sql = changes._head_sql
        changes._head_sql = "SELECT MAX(rowid) FROM no_such_table"
    with pytest.raises(StoreUnavailable):
        one.get_game(game_id)
    if failing != "read of the log":
        changes._head_sql = head_sql
    assert one.get_game(game_id).version == other.get_game(game_id).version
