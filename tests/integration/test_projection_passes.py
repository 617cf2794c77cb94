"""What one pass of the projection worker costs the store: the runners share each read of the
log and each decoded event (``PassReads``), a runner that left the projection where it is does
not read its position again, a short batch ends a catch-up without a confirming read, and a busy
worker lets the next commands' events gather (``ProjectionWorker.gather``). None of it may lose,
repeat or reorder an event: the read models equal a rebuild from scratch."""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

import pytest

from domain.model import Game
from projections import ProjectionWorker, standard_runners
from service.app.application import PreferansApplication
from tests.integration.helpers import create, dump_tables, play, tracking_positions


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
