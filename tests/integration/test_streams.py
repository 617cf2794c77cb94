"""Watch streams: each event's message for each seat is built once per process and shared by
every watcher; late joiners and resumes are served from the feed, redacted exactly as before."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from domain.model import Game
from service.api import streams
from service.api.game_servicer import GameServicer
from service.api.mapping import SPECTATOR, Visibility, viewers, watch_messages
from service.api.streams import Feed, GameStreams, Update
from service.app.application import PreferansApplication
from service.app.hub import EventHub
from service.gen.preferans.v1 import game_pb2 as pb
from tests.integration.helpers import create, play

T = TypeVar("T")
WATCHERS = (0, 1, 2, SPECTATOR)
"""Whom a three-seat game's messages are built for: each seat and the spectators."""


def _run(app: PreferansApplication, test: Callable[[GameStreams], Awaitable[T]]) -> T:
    async def main() -> T:
        hub = EventHub()
        hub.bind(asyncio.get_running_loop())
        with ThreadPoolExecutor(2) as executor:
            return await test(GameStreams(app, executor, hub))

    return asyncio.run(main())


async def _until(feed: Feed, version: int) -> None:
    async with asyncio.timeout(30):
        while feed.version < version:
            await feed.changed.wait()


def _reference(app: PreferansApplication, game_id: uuid.UUID, seat: int) -> list[Any]:
    """Every message for ``seat`` (or ``SPECTATOR``), as each watcher built them before (its
    own replica)."""
    game: Game | None = None
    out = []
    for event in app.game_events(game_id):
        before = [Visibility(game, s) for s in viewers(3)]
        deal_before = None if game is None else game.state.deal
        game = event.mutate(game)
        assert game is not None
        after = [Visibility(game, s) for s in viewers(3)]
        out.append(watch_messages(event, before, deal_before, game, after)[seat])
    return out


def _parsed(updates: list[Update]) -> list[pb.WatchGameResponse]:
    """The messages of the feed's serialised updates."""
    return [pb.WatchGameResponse.FromString(update.message) for update in updates]


def _game(app: PreferansApplication, events: int) -> uuid.UUID:
    game_id = create(app).game_id
    play(app, game_id, stop=lambda game: game.version >= events)
    return game_id


def test_each_seat_message_is_built_once_and_shared_by_every_watcher(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = _game(app, 30)
    builds: Counter[tuple[int, int]] = Counter()
    real = watch_messages

    def counting(event: Any, *args: Any) -> tuple[pb.WatchGameResponse, ...]:
        built = real(event, *args)
        for seat in range(len(built)):
            builds[(event.originator_version, seat)] += 1
        return built

    monkeypatch.setattr(streams, "watch_messages", counting)

    async def test(hub_streams: GameStreams) -> None:
        feeds = [await hub_streams.open(game_id, 0) for _ in range(4)]
        assert len({id(feed) for feed in feeds}) == 1
        version = app.get_game(game_id).version
        await _until(feeds[0], version)
        first = await hub_streams.messages(feeds[0], 0, 0)
        second = await hub_streams.messages(feeds[1], 0, 0)
        assert [m.version for m in _parsed(first)] == list(range(1, version + 1))
        assert all(a is b for a, b in zip(first, second, strict=True))
        # The game goes on: the new events are built once too, for every watcher.
        play(app, game_id, stop=lambda game: game.version >= version + 10)
        hub_streams.hub.notify(game_id)
        version = app.get_game(game_id).version
        await _until(feeds[0], version)
        for feed in feeds:
            hub_streams.close(feed)
        assert set(builds.values()) == {1}
        # One message per event for each of the three seats and one for the spectators.
        assert set(builds) == {(v, s) for v in range(1, version + 1) for s in range(4)}

    _run(app, test)
    for seat in range(3):
        assert builds[(1, seat)] == 1


def test_late_joiners_and_resumes_are_served_from_the_feed(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the first watcher, joining or resuming from any version replays nothing and builds
    nothing; a resume from before the feed's first version builds the missing ones once; every
    message equals the one built by replaying the game for that seat alone."""
    game_id = _game(app, 40)
    version = app.get_game(game_id).version
    references = {seat: _reference(app, game_id, seat) for seat in WATCHERS}
    replays: list[int] = []
    real_game_at = app.game_at

    def game_at(game_id: uuid.UUID, at: int) -> Game:
        replays.append(at)
        return real_game_at(game_id, at)

    monkeypatch.setattr(app, "game_at", game_at)
    builds: Counter[tuple[int, int]] = Counter()
    real = watch_messages

    def counting(event: Any, *args: Any) -> tuple[pb.WatchGameResponse, ...]:
        built = real(event, *args)
        for seat in range(len(built)):
            builds[(event.originator_version, seat)] += 1
        return built

    monkeypatch.setattr(streams, "watch_messages", counting)

    async def test(hub_streams: GameStreams) -> None:
        feed = await hub_streams.open(game_id, 20)  # cold: the game at 20, then what follows
        await _until(feed, version)
        hub_streams.close(feed)
        assert feed.base == 20 and replays == [20]
        older = await hub_streams.open(game_id, 5)  # builds versions 6 to 20 once
        assert older is feed and feed.base == 5 and replays == [20, 5]
        for seat in WATCHERS:
            for start in (5, 12, 20, version - 1, version):
                again = await hub_streams.open(game_id, start)
                got = await hub_streams.messages(again, start, seat)
                assert _parsed(got) == references[seat][start:]
                hub_streams.close(again)
        hub_streams.close(older)
        assert replays == [20, 5]
        # A fresh process watching from the current version copies the game: no replay.
        fresh = GameStreams(app, hub_streams.executor, hub_streams.hub)
        now = await fresh.open(game_id, version)
        assert now.base == version and now.replica is not None
        assert now.replica.version == version and replays == [20, 5]
        play(app, game_id, stop=lambda game: game.version >= version + 8)
        fresh.hub.notify(game_id)
        latest = app.get_game(game_id).version
        await _until(now, latest)
        for seat in WATCHERS:
            got = await fresh.messages(now, version, seat)
            assert _parsed(got) == _reference(app, game_id, seat)[version:]
        fresh.close(now)

    _run(app, test)
    latest = app.get_game(game_id).version
    assert set(builds) == {(v, s) for v in range(6, latest + 1) for s in range(4)}
    assert set(builds.values()) == {1}


# ---------------------------------------------------------------------------------------------
# WatchGameBatches (issue 10): the servicer's batched stream, in process


class _Context:
    """The little of a ``grpc.aio.ServicerContext`` a watch uses: the caller's seat token."""

    def __init__(self, token: str) -> None:
        self.metadata = (("authorization", f"Bearer {token}"),)

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.metadata


def _serve(
    app: PreferansApplication, test: Callable[[GameServicer], Awaitable[T]], **options: Any
) -> T:
    async def main() -> T:
        hub = EventHub()
        hub.bind(asyncio.get_running_loop())
        with ThreadPoolExecutor(2) as executor:
            return await test(GameServicer(app, executor, hub, **options))

    return asyncio.run(main())


def _batch(data: bytes) -> list[pb.WatchGameResponse]:
    return list(pb.WatchGameBatchesResponse.FromString(data).updates)


async def _feed_reaches(servicer: GameServicer, game_id: uuid.UUID, version: int) -> None:
    servicer.hub.notify(game_id)
    feed = servicer.streams._live[game_id]
    await _until(feed, version)


def test_batches_coalesce_what_a_slow_watcher_has_waiting(app: PreferansApplication) -> None:
    """WatchGameBatches (issue 10): the backlog of a resume goes in batches of
    ``max_batch_size``; live, a watcher that has not taken its last message yet (a slow reader:
    gRPC has not asked the stream for the next one) gets every event that happened meanwhile
    in as few messages as the limit allows, in order, with no gap or repeat, and each equals
    the seat's WatchGame messages."""
    created = create(app)
    game_id = created.game_id
    play(app, game_id, stop=lambda game: game.version >= 30)
    version = app.get_game(game_id).version
    name = f"games/{game_id}"

    async def test(servicer: GameServicer) -> None:
        context: Any = _Context(created.tokens[1])
        request = pb.WatchGameBatchesRequest(
            name=name, from_version=0, heartbeat_seconds=300, max_batch_size=8
        )
        stream = servicer.WatchGameBatches(request, context)
        received: list[pb.WatchGameResponse] = []
        sizes = []
        while len(received) < version:
            batch = _batch(await anext(stream))
            sizes.append(len(batch))
            received += batch
        full, rest = divmod(version, 8)
        assert sizes == [8] * full + ([rest] if rest else [])
        # The watcher is away (its stream is not read) while 20 events happen.
        play(app, game_id, stop=lambda game: game.version >= version + 20, prefix="later")
        latest = app.get_game(game_id).version
        await _feed_reaches(servicer, game_id, latest)
        sizes = []
        while len(received) < latest:
            batch = _batch(await anext(stream))
            sizes.append(len(batch))
            received += batch
        waiting = latest - version
        assert sizes == [8] * (waiting // 8) + ([waiting % 8] if waiting % 8 else [])
        await stream.aclose()
        assert received == _reference(app, game_id, 1)
        # With the default limit, everything waiting is one message.
        stream = servicer.WatchGameBatches(
            pb.WatchGameBatchesRequest(name=name, from_version=0, heartbeat_seconds=300), context
        )
        assert _batch(await anext(stream)) == received
        play(app, game_id, stop=lambda game: game.version >= latest + 15, prefix="last")
        final = app.get_game(game_id).version
        await _feed_reaches(servicer, game_id, final)
        assert _batch(await anext(stream)) == _reference(app, game_id, 1)[latest:]
        await stream.aclose()
        assert all(feed.watchers == 0 for feed in servicer.streams._live.values())

    _serve(app, test)


def test_a_batch_stays_within_its_byte_budget(app: PreferansApplication) -> None:
    """WatchGameBatches (issue 10): a batch also stops before the server's byte budget (here
    tiny), so no message grows past the transport's limit; the batches still carry every
    event once, in order."""
    created = create(app)
    game_id = created.game_id
    play(app, game_id, stop=lambda game: game.version >= 40)
    version = app.get_game(game_id).version
    budget = 300

    async def test(servicer: GameServicer) -> None:
        for seat in range(3):
            context: Any = _Context(created.tokens[seat])
            request = pb.WatchGameBatchesRequest(
                name=f"games/{game_id}", from_version=0, heartbeat_seconds=300
            )
            stream = servicer.WatchGameBatches(request, context)
            received: list[pb.WatchGameResponse] = []
            messages = 0
            while len(received) < version:
                data = await anext(stream)
                batch = _batch(data)
                assert len(data) <= budget or len(batch) == 1
                received += batch
                messages += 1
            await stream.aclose()
            assert received == _reference(app, game_id, seat)
            assert 1 < messages < version

    _serve(app, test, batch_bytes=budget)


def test_max_delay_gathers_live_events_and_never_holds_the_backlog(
    app: PreferansApplication,
) -> None:
    """WatchGameBatches ``max_delay_ms`` (issue 10): the backlog goes at once; after a batch the
    watcher waits ``max_delay_ms``, and every event that arrived meanwhile goes in one
    message."""
    created = create(app)
    game_id = created.game_id
    play(app, game_id, stop=lambda game: game.version >= 12)
    version = app.get_game(game_id).version
    pauses: list[float] = []
    gate = asyncio.Event()

    class Gated(GameServicer):
        async def _gather(self, seconds: float) -> None:
            pauses.append(seconds)
            await gate.wait()

    async def main() -> None:
        hub = EventHub()
        hub.bind(asyncio.get_running_loop())
        with ThreadPoolExecutor(2) as executor:
            servicer = Gated(app, executor, hub)
            request = pb.WatchGameBatchesRequest(
                name=f"games/{game_id}", from_version=0, heartbeat_seconds=300, max_delay_ms=500
            )
            context: Any = _Context(created.tokens[0])
            stream = servicer.WatchGameBatches(request, context)
            backlog = _batch(await anext(stream))
            assert [m.version for m in backlog] == list(range(1, version + 1))
            play(app, game_id, stop=lambda game: game.version >= version + 1, prefix="one")
            await _feed_reaches(servicer, game_id, version + 1)
            pending = asyncio.create_task(anext(stream))
            async with asyncio.timeout(30):
                while not pauses:  # the watcher sent the backlog and lets events gather
                    await asyncio.sleep(0.01)
            assert pauses == [0.5]
            play(app, game_id, stop=lambda game: game.version >= version + 6, prefix="more")
            latest = app.get_game(game_id).version
            await _feed_reaches(servicer, game_id, latest)
            gate.set()
            gathered = _batch(await pending)
            assert [m.version for m in gathered] == list(range(version + 1, latest + 1))
            assert gathered == _reference(app, game_id, 0)[version:]
            await stream.aclose()

    asyncio.run(main())


def test_a_feed_is_not_trimmed_while_it_is_back_filled(app: PreferansApplication) -> None:
    """``cover`` prepends older messages to those it saw at ``feed.base``: trimming the feed
    meanwhile would leave a gap in its versions, so a long feed is trimmed only when no
    back-fill holds its lock (and then keeps the newer half)."""
    from service.api import streams as streams_module

    game_id = create(app).game_id

    async def scenario(streams: GameStreams) -> tuple[int, int, int]:
        feed = Feed(game_id)
        feed.base, feed.messages = 0, [()] * (streams_module.MAX_FEED_VERSIONS + 2)
        async with feed.lock:
            streams._trim(feed)
            held = len(feed.messages)
        streams._trim(feed)
        return held, len(feed.messages), feed.base or 0

    held, trimmed, base = _run(app, scenario)
    assert held == streams_module.MAX_FEED_VERSIONS + 2
    assert trimmed == streams_module.MAX_FEED_VERSIONS // 2
    assert base == held - trimmed


def test_list_game_events_pages_come_from_the_shared_feed_without_a_replay_per_page(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rev-b defect 1: each page replayed the game to its token's version (785 ms at 1,096
    # events for a page of one), so anyone could load the server with late tokens.
    game_id = _game(app, 60)
    n = app.get_game(game_id).version
    replays: list[int] = []
    real_at = app.game_at

    def counting_at(gid: uuid.UUID, version: int) -> Game:
        replays.append(version)
        return real_at(gid, version)

    monkeypatch.setattr(app, "game_at", counting_at)
    builds: Counter[int] = Counter()
    real = watch_messages

    def counting(event: Any, *args: Any) -> tuple[pb.WatchGameResponse, ...]:
        builds[event.originator_version] += 1
        return real(event, *args)

    monkeypatch.setattr(streams, "watch_messages", counting)
    reference = _reference(app, game_id, SPECTATOR)

    async def test(s: GameStreams) -> None:
        for last in (n - 1, n - 2, 1, n - 1, 0, n - 3):
            built, more, _ = await s.page(game_id, last, 1)
            assert [pb.WatchGameResponse.FromString(b[SPECTATOR].message) for b in built] == [
                reference[last]
            ]
            assert more == (last + 1 < n)
        built, more, _ = await s.page(game_id, n, 5)
        assert (built, more) == ([], False)

    _run(app, test)
    assert replays == []
    assert set(builds.values()) == {1} and len(builds) == n
