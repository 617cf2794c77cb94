"""Bounded caches of the read models evict the least recently used entry, never all at once."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from projections import stats
from service.api.mapping import seat_view_cached, seat_view_to_proto
from service.app.application import PreferansApplication
from tests.integration.helpers import create, play


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
        pytest.skip("SQLite has no notifications: its readers poll")
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
