"""The event hub's follower: every event it reads reaches the keeper and the watchers, a burst
of wake-ups costs the event loop one call, and on PostgreSQL a burst of commits costs one read
of the log (``PacedSubscription``), not one per commit."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
import uuid
from collections import Counter

import pytest
from eventsourcing.postgres import PostgresApplicationRecorder

from service.app.application import PreferansApplication
from service.app.hub import EventHub, PacedSubscription
from tests.integration.helpers import AppFactory, create, play

DEADLINE = 60.0
"""Liveness on a loaded machine, not a timing check."""


def _follow(app: PreferansApplication, pace: float = 0.05) -> tuple[EventHub, Counter[uuid.UUID]]:
    """A hub following ``app``'s store as ``pref serve`` does (``app.invalidate`` tells news),
    counting the wake-ups of each game (``on_notify``)."""
    hub = EventHub(pace=pace)
    woken: Counter[uuid.UUID] = Counter()
    guard = threading.Lock()

    def count(game_id: uuid.UUID) -> None:
        with guard:
            woken[game_id] += 1

    hub.on_notify = count
    hub.follow(app.recorder, on_event=app.invalidate)
    time.sleep(0.6)  # the subscription (or the SQLite poller's first look) is in place
    return hub, woken


def _until(condition: object, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_every_event_read_reaches_the_keeper_and_the_watchers(open_app: AppFactory) -> None:
    """A game written by another application (another replica, ``pref flag``) reaches this
    process's keeper and watchers, and this process forgets its stale copy; this process's own
    events reach them through the follower too (a command whose client went away after the
    save, or that lost a race, never told them itself)."""
    mine, other = open_app(), open_app()
    ours = create(mine).game_id
    theirs = create(other).game_id
    mine.get_game(theirs)  # a copy in memory, soon stale
    hub, woken = _follow(mine)
    try:
        seen = mine.get_game(ours).version
        play(mine, ours, stop=lambda game: game.version >= seen + 6)
        before = other.get_game(theirs).version
        play(other, theirs, stop=lambda game: game.version >= before + 6)
        _until(lambda: woken[theirs] > 0, "another process's writes never reached the keeper")
        _until(lambda: woken[ours] > 0, "this process's own writes never reached the keeper")
        assert mine.get_game(theirs).version == other.get_game(theirs).version
    finally:
        hub.stop()
        mine.close()
        other.close()


def test_wake_ups_of_a_burst_reach_the_event_loop_in_one_call() -> None:
    """``notify`` of many games before the event loop's next turn hands it one call, and
    every watcher of every game is woken (once a game has watchers, none is skipped)."""

    async def main() -> None:
        hub = EventHub()
        hub.bind(asyncio.get_running_loop())
        games = [uuid.uuid4() for _ in range(50)]
        watchers = {game: [hub.register(game) for _ in range(2)] for game in games}
        for game in games * 3:
            hub.notify(game)
        assert hub.loop_wakeups == 1
        await asyncio.sleep(0)
        assert all(event.is_set() for events in watchers.values() for event in events)
        for events in watchers.values():
            for event in events:
                event.clear()
        hub.notify(games[0])  # the next burst: another call
        await asyncio.sleep(0)
        assert hub.loop_wakeups == 2
        assert all(event.is_set() for event in watchers[games[0]])
        assert not any(event.is_set() for event in watchers[games[1]])

    asyncio.run(main())


def _drain(subscription: PacedSubscription, heard: queue.Queue[int]) -> None:
    for notification in subscription:
        heard.put(notification.id)


def test_a_burst_of_commits_is_read_once(open_app: AppFactory, store_env: dict[str, str]) -> None:
    """PostgreSQL: 40 commits in quick succession are read by a handful of queries, not 40
    (the follower pauses ``pace`` after a notification before reading), and none is lost."""
    if "postgres" not in store_env.get("PERSISTENCE_MODULE", ""):
        pytest.skip("SQLite has no notifications: the hub polls it every half second")
    app, writer = open_app(), open_app()
    last = app.recorder.max_notification_id() or 0
    heard: queue.Queue[int] = queue.Queue()
    recorder = app.recorder
    assert isinstance(recorder, PostgresApplicationRecorder)
    subscription = PacedSubscription(recorder, last, pace=0.3)
    reader = threading.Thread(target=_drain, args=(subscription, heard), daemon=True)
    reader.start()
    try:
        time.sleep(0.5)
        pulls_before = subscription.pulls
        game_id = create(writer).game_id
        start = writer.get_game(game_id).version
        play(writer, game_id, stop=lambda game: game.version >= start + 40)
        stored = [n.id for n in writer.recorder.select_notifications(start=last + 1, limit=500)]
        wanted = len(stored)
        got: list[int] = []
        deadline = time.monotonic() + DEADLINE
        while len(got) < wanted and time.monotonic() < deadline:
            try:
                got.append(heard.get(timeout=1))
            except queue.Empty:
                continue
        assert got == stored  # every one, in order, once
        pulls = subscription.pulls - pulls_before
        assert 1 <= pulls < wanted / 4, f"{pulls} reads for {wanted} commits"
    finally:
        subscription.stop()
        reader.join(timeout=10)
        app.close()
        writer.close()
