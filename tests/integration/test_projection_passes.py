"""What one pass of the projection worker costs the store: the runners share each read of the
log and each decoded event (``PassReads``), a runner that left the projection where it is does
not read its position again, a short batch ends a catch-up without a confirming read, and a busy
worker lets the next commands' events gather (``ProjectionWorker.gather``). None of it may lose,
repeat or reorder an event: the read models equal a rebuild from scratch."""

from __future__ import annotations

import functools
import random
from collections import Counter
from typing import Any

import pytest

from domain.model import Game
from domain.rules.systems import RULE_SETS
from projections import ProjectionWorker, standard_runners
from projections.readahead import ReadAhead
from projections.runner import PassReads, stored_event_name
from service.app.application import PreferansApplication
from tests.integration.helpers import (
    create,
    dump_tables,
    play,
    random_policy,
    tracking_positions,
)


def _count_reads(
    app: PreferansApplication, worker: ProjectionWorker, monkeypatch: pytest.MonkeyPatch
) -> tuple[Counter[int], Counter[int], Counter[str]]:
    """From now on, counts the log reads (by first id), the decodings (by notification id) and
    the reads of each runner's stored position."""
    reads: Counter[int] = Counter()
    decoded: Counter[int] = Counter()
    positions: Counter[str] = Counter()
    select = app.recorder.select_notifications
    decode = app.mapper.to_domain_event

    def counted_select(start: int, limit: int, *args: Any, **kwargs: Any) -> Any:
        reads[start] += 1
        return select(start, limit, *args, **kwargs)

    def counted_decode(notification: Any) -> Any:
        decoded[notification.id] += 1
        return decode(notification)

    monkeypatch.setattr(app.recorder, "select_notifications", counted_select)
    monkeypatch.setattr(app.mapper, "to_domain_event", counted_decode)
    for runner in worker.runners:
        stored = runner._stored_positions

        def counted_positions(tracking: str, stored: Any = stored) -> Any:
            positions[tracking] += 1
            return stored(tracking)

        monkeypatch.setattr(runner, "_stored_positions", counted_positions)
    return reads, decoded, positions


def test_a_pass_reads_and_decodes_each_event_once_for_every_projection(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four projections at the same position: one pass reads the new events once and decodes
    each once (before: each projection read and decoded them itself, and read its position
    and the log once more to find it had caught up)."""
    worker = ProjectionWorker(list(standard_runners(app, app.db).values()))
    for runner in worker.runners:
        runner.confirm_every = 3600.0  # no periodic read of the position in this test
    game_id = create(app).game_id
    worker.step()  # every runner now knows where it stands
    head = app.recorder.max_notification_id() or 0
    play(app, game_id, stop=lambda game: game.version >= 25)
    end = app.recorder.max_notification_id() or 0
    new = end - head
    assert new > 10
    reads, decoded, positions = _count_reads(app, worker, monkeypatch)
    assert worker.step() == new * len(worker.runners)
    assert reads == Counter({head + 1: 1})  # one read, shared; a short batch needs no other
    assert not positions
    assert set(decoded.values()) == {1} and len(decoded) == new
    assert worker.step() == 0  # caught up: one read of the log's end, shared too
    assert reads[end + 1] == 1


def _reached(version: int, game: Game) -> bool:
    return game.version >= version


def test_runners_that_remember_their_position_still_apply_each_event_once(
    app: PreferansApplication,
) -> None:
    """Two workers over the same read models (as two processes during a rollout): each
    remembers where its own last batch left the projections, so each finds out that the other
    moved them only when its compare-and-set fails; then it reads the position and goes on.
    The read models end where one worker alone would leave them."""
    game_ids = [create(app).game_id for _ in range(3)]
    first = ProjectionWorker(list(standard_runners(app, app.db, batch=7).values()))
    second = ProjectionWorker(list(standard_runners(app, app.db, batch=11).values()))
    for round_ in range(6):
        for game_id in game_ids:
            play(app, game_id, stop=functools.partial(_reached, 8 * (round_ + 1)))
        (first if round_ % 2 else second).step()
        (second if round_ % 2 else first).step()
    first.step()
    second.step()
    assert first.errors == [] and second.errors == []
    last = app.recorder.max_notification_id()
    assert set(tracking_positions(app.db).values()) == {last}
    raced = dump_tables(app.db)
    for runner in standard_runners(app, app.db).values():
        runner.rebuild()
    assert dump_tables(app.db) == raced


def test_a_busy_worker_waits_before_its_next_pass_and_an_idle_one_does_not(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a pass that applied events the worker waits ``gather`` before the next (a poke
    meanwhile does not cut it short); after an idle pass it waits only for a poke or its
    polling interval."""
    worker = ProjectionWorker([], interval=0.7, gather=0.3)
    passes = iter([5, 0, 2])
    waits: list[tuple[str, float]] = []

    def step() -> int:
        try:
            return next(passes)
        except StopIteration:
            worker._stop.set()
            return 0

    class Recorded:
        def __init__(self, name: str, real: Any) -> None:
            self.name, self.real = name, real

        def wait(self, seconds: float) -> bool:
            waits.append((self.name, seconds))
            return bool(self.real.is_set())

        def __getattr__(self, attribute: str) -> Any:
            return getattr(self.real, attribute)

    monkeypatch.setattr(worker, "step", step)
    monkeypatch.setattr(worker, "_stop", Recorded("gather", worker._stop))
    monkeypatch.setattr(worker, "_wake", Recorded("poke or poll", worker._wake))
    worker._loop()
    assert waits == [
        ("gather", 0.3),
        ("poke or poll", 0.7),
        ("poke or poll", 0.7),
        ("gather", 0.3),
        ("poke or poll", 0.7),
        ("poke or poll", 0.7),
    ]


def test_a_projection_given_only_the_events_it_reads_ends_as_if_given_all(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A projection that names the events it reads (``reads``: stats, ledger, lobby) is not
    handed the others, which are not even decoded (card plays are most of a log); its tables
    after a rebuild equal those of a rebuild that hands it every event, over games of every
    named system (two in one league), staked games, a flag and a ruling."""
    for index, system in enumerate(sorted(RULE_SETS)):
        rules = RULE_SETS[system].with_options(pool_target=4)
        created = create(app, rules, league=system, stake_per_whist=index % 3)
        play(app, created.game_id, random_policy(random.Random(system), bot_share=0.7))
        again = create(app, rules, league=system)
        play(app, again.game_id, random_policy(random.Random(index), bot_share=0.7))
    app.flag_deal(again.game_id, 1, 1, "the tricks were miscounted", "flag-1")
    app.record_ruling(again.game_id, 1, "no change", None, "rule-1")
    runners = standard_runners(app, app.db)
    reading = {name: r.reads for name, r in runners.items() if r.reads is not None}
    assert {"stats", "ledger", "lobby"} <= set(reading)
    topics = {n.topic for n in app.recorder.select_notifications(start=1, limit=100_000)}
    names = {stored_event_name(topic) for topic in topics}
    assert None not in names
    skipped = {name for name in names if name not in reading["stats"]}
    assert "CardPlayed" in skipped  # the test has events a projection does not read
    for runner in runners.values():
        runner.rebuild()
    given_theirs = dump_tables(app.db)
    for name in reading:
        monkeypatch.setattr(runners[name], "reads", None)
        runners[name].rebuild()
    assert dump_tables(app.db) == given_theirs


def test_a_pass_keeps_only_the_newest_reads() -> None:
    """``PassReads`` holds at most ``keep`` reads and the events decoded from them: a pass
    over a long backlog does not hold the whole backlog in memory."""

    class Note:
        def __init__(self, id_: int) -> None:
            self.id = id_

    shared = PassReads(keep=2)
    for first in range(1, 50, 10):
        notes = [Note(i) for i in range(first, first + 10)]
        shared.add((0, first, 10), notes)
        for note in notes:
            shared.events[(0, note.id)] = object()
    assert list(shared.reads) == [(0, 31, 10), (0, 41, 10)]
    assert sorted(i for _, i in shared.events) == list(range(31, 51))


def test_a_runner_that_trusts_its_position_reads_it_again_after_a_while(
    app: PreferansApplication,
) -> None:
    """A rebuild elsewhere can leave the stored position behind the one this runner's own last
    batch left, while no new event comes to make its compare-and-set fail: the runner reads
    the position again every ``confirm_every`` seconds, so it applies those events again."""
    game_id = create(app).game_id
    play(app, game_id, stop=lambda game: game.version >= 12)
    runner = standard_runners(app, app.db)["games"]
    runner.catch_up()
    end = app.recorder.max_notification_id() or 0
    with app.db.transaction() as c:  # as a rebuild that swapped in a view five events behind
        c.execute("UPDATE projection_tracking SET position = ? WHERE name = 'games'", (end - 5,))
    runner.confirm_every = 3600.0
    assert runner.catch_up() == 0  # trusting its own position: nothing new in the log
    runner.confirm_every = 0.0
    assert runner.catch_up() == 5  # read again: the five events after the stored position
    assert tracking_positions(app.db)["games"] == end


def test_a_rebuild_that_reads_ahead_ends_as_one_that_does_not(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild reads the log's next batch in the background while it applies the current
    one (``projections.readahead``). In batches of 7 over a few games, most batches come from
    the background and every projection's tables equal those of a rebuild that reads each
    batch itself; no event is applied twice or missed (the positions end at the log's end)."""
    for index in range(3):
        created = create(app)
        play(app, created.game_id, random_policy(random.Random(index), bot_share=0.7))
    end = app.recorder.max_notification_id() or 0
    runners = standard_runners(app, app.db)
    served: list[int] = []
    take = ReadAhead.take

    def counted_take(self: ReadAhead, key: tuple[int, int, int]) -> Any:
        notifications = take(self, key)
        if notifications is not None:
            served.append(key[1])
        return notifications

    monkeypatch.setattr(ReadAhead, "take", counted_take)
    for runner in runners.values():
        runner.rebuild_batch = 7
        assert runner.rebuild() == end
    assert len(served) > len(runners) * (end // 7) * 0.8
    assert len(served) == len(set(served)) * len(runners)  # each batch once per projection
    read_ahead = dump_tables(app.db)
    assert set(tracking_positions(app.db).values()) == {end}
    monkeypatch.setattr(ReadAhead, "start", lambda *args: None)
    for runner in runners.values():
        runner.rebuild()
    assert dump_tables(app.db) == read_ahead


def test_a_read_ahead_serves_only_the_read_asked_for() -> None:
    """``ReadAhead.take`` returns the background read only for the same shard, first id and
    limit; any other key drops it, and a read that failed in the background raises its error
    where it is taken (it is the read the runner would make: not made twice)."""
    calls: list[tuple[int, int]] = []

    def read(first: int, limit: int) -> list[int]:
        calls.append((first, limit))
        if first == 99:
            raise ConnectionError("the store went away")
        return list(range(first, first + limit))

    ahead = ReadAhead()
    try:
        assert ahead.take((0, 1, 5)) is None  # nothing started
        ahead.start((0, 6, 5), read)
        assert ahead.take((0, 6, 5)) == [6, 7, 8, 9, 10]
        assert ahead.take((0, 6, 5)) is None  # taken once
        ahead.start((0, 11, 5), read)
        assert ahead.take((0, 11, 4)) is None  # another limit: dropped
        assert ahead.take((0, 11, 5)) is None
        ahead.start((1, 11, 5), read)
        ahead.start((0, 99, 5), read)
        with pytest.raises(ConnectionError):  # failed in the background
            ahead.take((0, 99, 5))
        assert calls.count((99, 5)) == 1
        assert ahead.take((1, 11, 5)) == [11, 12, 13, 14, 15]  # shards kept apart
        assert ahead.used == 2
    finally:
        ahead.close()
