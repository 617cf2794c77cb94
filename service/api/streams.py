"""Watch streams built once per event: one fan-out per game per process.

A ``Feed`` holds one game's stream messages, one per event and seat (``WatchGameResponse``,
redacted by ``mapping.watch_messages``), in version order from its ``base``, serialised once
(``Update``: the message's bytes, and the same framed as one entry of a
``WatchGameBatchesResponse``). While a game has watchers in this process, one task (the feed's
pump) follows the game: woken by the event hub (commands of this process, the store's
notifications) or every ``SAFETY_POLL_SECONDS``, it reads the game's new events once, builds and
serialises each seat's message once in the thread pool (never on the event loop) on the feed's
own replica of the game, appends them, and wakes every watcher. Each watcher then sends the
shared bytes after the version it has sent (gRPC sends them as they are: ``add_to_server`` in
``service.api.game_servicer``): ``WatchGame`` one message each, ``WatchGameBatches`` everything
waiting joined into as few messages as its limits allow (``chunks``; a watcher whose last write
has not completed finds more waiting: it costs fewer writes, not more). Resuming from version N
costs a slice of the feed, proportional to the events sent.

A feed whose watchers have all left stays in an LRU cache (bounded by the number of versions
its feeds hold, ``DEFAULT_CACHED_VERSIONS``), so late joiners and reconnects find the messages
built. A watcher from a version older than the feed's base (a cold game, or one whose oldest
messages were trimmed after ``MAX_FEED_VERSIONS``) makes the feed build the missing versions
once, from the game as it was at that version: a copy of the application's game when the watch
starts from the current version (no replay), else ``game_at`` (one replay from the store, the
one cost that grows with the game rather than with the events sent).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, TypeVar

import structlog
from cachetools import LRUCache

from domain.model import Game
from domain.model.replay import action_of
from service.api.mapping import Visibility, viewers, watch_messages
from service.app.application import GameNotFound, PreferansApplication
from service.app.hub import EventHub
from service.gen.preferans.v1 import game_pb2 as pb

T = TypeVar("T")
log = structlog.get_logger(__name__)
SAFETY_POLL_SECONDS = 1.0
"""A game with watchers is read again this often even without a notification (a lost
notification delays an update by at most this long)."""
MAX_FEED_VERSIONS = 20_000
"""A feed keeps at most this many versions; older ones are dropped (half at a time) and built
again from the store for a watcher that asks for them."""
DEFAULT_CACHED_VERSIONS = 100_000
"""How many versions (each: one message per seat) the feeds without watchers keep in all."""

UPDATES_TAG = b"\x0a"
"""``WatchGameBatchesResponse.updates`` (field 1, length-delimited) on the wire."""


class Update(NamedTuple):
    """One event as one seat (or the spectators) may see it, serialised once for every
    watcher of that seat: ``message`` is WatchGame's stream message (a ``WatchGameResponse``);
    ``entry`` is the same as one ``updates`` entry of a ``WatchGameBatchesResponse`` (its tag
    and length in front), so a batch is the concatenation of its entries (protobuf's wire
    format of a repeated message field), never parsed or serialised again. ``decision``: the
    event is a seat's decision (what a spectator's ``delay_moves`` counts)."""

    message: bytes
    entry: bytes
    decision: bool = False


Updates = tuple[Update, ...]
"""One event's update for each seat, then the spectators' (``Updates[SPECTATOR]``)."""


def update(message: pb.WatchGameResponse, decision: bool = False) -> Update:
    """``message`` serialised, as a stream message and as a batch entry."""
    data = message.SerializeToString()
    return Update(data, UPDATES_TAG + _varint(len(data)) + data, decision)


def sendable(waiting: Sequence[Update], delay: int) -> int:
    """How many of the ``waiting`` updates (in version order, up to the game's latest) a
    spectator held ``delay`` decisions behind may have now: an event is sent once ``delay``
    decisions have been recorded after it (all of them at once when ``delay`` is 0)."""
    if delay <= 0:
        return len(waiting)
    seen = 0
    for index in range(len(waiting) - 1, -1, -1):
        if waiting[index].decision:
            seen += 1
            if seen == delay:
                return index
    return 0


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def batch(entries: Sequence[bytes]) -> bytes:
    """A serialised ``WatchGameBatchesResponse`` of these entries (``Update.entry``)."""
    return b"".join(entries)


def batches(updates: Sequence[Update], size: int, budget: int) -> Iterator[bytes]:
    """The updates as serialised ``WatchGameBatchesResponse`` messages, in order, each of at
    most ``size`` entries and ``budget`` bytes (an entry larger than the budget goes alone)."""
    if len(updates) <= size:  # the usual case: everything waiting in one message
        data = batch([item.entry for item in updates])
        if len(data) <= budget:
            yield data
            return
    for entries in chunks(updates, size, budget):
        yield batch(entries)


def chunks(updates: Sequence[Update], size: int, budget: int) -> Iterator[list[bytes]]:
    """The updates' batch entries, in order, in lists of at most ``size`` entries and
    ``budget`` bytes (an entry larger than the budget goes alone)."""
    entries: list[bytes] = []
    total = 0
    for item in updates:
        length = len(item.entry)
        if entries and (len(entries) == size or total + length > budget):
            yield entries
            entries, total = [], 0
        entries.append(item.entry)
        total += length
    if entries:
        yield entries


def build(events: Sequence[Any], game: Game | None) -> tuple[Game | None, list[Updates]]:
    """Apply ``events`` to ``game`` (the game just before the first of them, changed in place;
    ``None`` before the creation) and build and serialise each event's message for each
    seat of its table (``RuleSet.players``), then for the spectators (``SPECTATOR``)."""
    before = [] if game is None else [Visibility(game, v) for v in viewers(game.rule_set.players)]
    built: list[Updates] = []
    for event in events:
        deal_before = None if game is None else game.state.deal
        game = event.mutate(game)
        assert game is not None
        # every seat of the table, from its creation on, and the spectators
        watching = viewers(game.rule_set.players)
        before = before or [Visibility(None, viewer) for viewer in watching]
        after = [Visibility(game, viewer) for viewer in watching]
        messages = watch_messages(event, before, deal_before, game, after)
        decision = action_of(event) is not None
        built.append(tuple(update(message, decision) for message in messages))
        before = after
    return game, built


def page(
    app: PreferansApplication, game_id: uuid.UUID, last: int, size: int
) -> tuple[Game | None, list[Updates], bool]:
    """The messages of at most ``size`` events after version ``last``, built from the game as
    it was at ``last`` (one replay, ``game_at``); the game after them, and whether more events
    follow. ``GameNotFound`` for a game with no events. Not what ``ListGameEvents`` serves
    (``GameStreams.page``: the shared feed); the benchmark's reference."""
    events = app.game_events(game_id, last, limit=size + 1)
    if not events and last == 0:
        raise GameNotFound(f"no game {game_id}")
    game = None if last == 0 else app.game_at(game_id, last)
    game, built = build(events[:size], game)
    return game, built, len(events) > size


class Feed:
    """One game's messages from version ``base + 1`` to ``version``, shared by its watchers."""

    def __init__(self, game_id: uuid.UUID) -> None:
        self.game_id = game_id
        self.base: int | None = None
        """The version before the first message kept (``None`` until first loaded)."""
        self.messages: list[Updates] = []
        self.replica: Game | None = None
        """The game at ``version``: only the pump's thread-pool step changes it."""
        self.watchers = 0
        self.changed = asyncio.Event()
        """Set (and replaced) whenever messages are added or the feed fails or closes."""
        self.waiters: set[asyncio.Future[None]] = set()
        """The watchers waiting for the feed to change (each its own future, which its
        heartbeat timer may also end): woken and forgotten by ``notify``."""
        self.error: BaseException | None = None
        self.lock = asyncio.Lock()
        """Held while loading or back-filling."""
        self.pump: asyncio.Task[None] | None = None
        self.wake: asyncio.Event | None = None

    @property
    def version(self) -> int:
        """The latest version with messages (the base when there are none)."""
        return (self.base or 0) + len(self.messages)

    def since(self, last: int, seat: int) -> list[Update]:
        """The seat's updates after version ``last`` (``last`` must be at least the base)."""
        start = last - (self.base or 0)
        assert start >= 0
        return [messages[seat] for messages in self.messages[start:]]

    def notify(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()
        waiters, self.waiters = self.waiters, set()
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def size(self) -> int:
        return max(1, len(self.messages))


class GameStreams:
    """Every game's feed in this process: live ones (with watchers), and an LRU of idle ones."""

    def __init__(
        self,
        app: PreferansApplication,
        executor: ThreadPoolExecutor,
        hub: EventHub,
        cached_versions: int = DEFAULT_CACHED_VERSIONS,
    ) -> None:
        self.app = app
        self.executor = executor
        self.hub = hub
        self._live: dict[uuid.UUID, Feed] = {}
        self._idle: LRUCache[uuid.UUID, Feed] = LRUCache(
            maxsize=max(cached_versions, 1), getsizeof=Feed.size
        )

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, lambda: fn(*args))

    async def open(self, game_id: uuid.UUID, version: int) -> Feed:
        """The game's feed, holding every message after ``version``, with one more watcher
        (``close`` it). The caller has checked that the game has reached ``version``."""
        feed = self._live.get(game_id)
        if feed is None:
            feed = self._idle.pop(game_id, None) or Feed(game_id)
            self._live[game_id] = feed
        feed.watchers += 1
        try:
            await self.cover(feed, version)
        except BaseException:
            self.close(feed)
            raise
        if feed.pump is None:
            feed.wake = self.hub.register(game_id)
            feed.pump = asyncio.create_task(self._pump(feed), name=f"feed-{game_id}")
        return feed

    async def page(
        self, game_id: uuid.UUID, last: int, size: int
    ) -> tuple[list[Updates], bool, list[dict[str, Any]]]:
        """``ListGameEvents``: the messages of at most ``size`` events after version ``last``
        from the game's shared feed, whether more events follow, and the game's replacements
        (``Game.replacements``, at the version read). The feed is built from version 0 the
        first time (or back-filled to 0 once, if a watcher opened it later): one pass over the
        game per feed, never one replay per page, so a page costs about its size whatever its
        version. ``GameNotFound`` for a game with no events."""
        current, replacements = await self._run(
            self.app.read_game, game_id, lambda game: list(game.replacements)
        )
        if current == 0:
            raise GameNotFound(f"no game {game_id}")
        last = min(last, current)
        target = min(current, last + size)
        feed = await self.open(game_id, 0)
        try:
            while feed.version < target or last < (feed.base or 0):
                if last < (feed.base or 0):  # trimmed meanwhile (a game of 20,000 versions)
                    await self.cover(feed, 0)
                    continue
                if feed.error is not None:
                    raise feed.error
                if feed.pump is None:  # the server is stopping
                    raise asyncio.CancelledError
                changed = feed.changed
                await changed.wait()
            built = feed.messages[last - (feed.base or 0) : target - (feed.base or 0)]
        finally:
            self.close(feed)
        return built, current > target, replacements

    async def cover(self, feed: Feed, version: int) -> None:
        """Make the feed hold the messages after ``version`` (built once, in the thread pool)."""
        async with feed.lock:
            if feed.base is None:
                replica = None if version == 0 else await self._run(self._replica, feed, version)
                feed.replica, feed.base, feed.messages = replica, version, []
            elif version < feed.base:
                messages = await self._run(self._older, feed.game_id, version, feed.base)
                feed.messages = messages + feed.messages
                feed.base = version

    def _replica(self, feed: Feed, version: int) -> Game:
        """The game at ``version``, for the feed to follow: a copy of the application's game
        when that is at ``version`` (watching from now: no replay), else a replay."""
        current, game = self.app.read_game(feed.game_id, copy.deepcopy)
        if current == version:
            return game
        return self.app.game_at(feed.game_id, version)

    def _older(self, game_id: uuid.UUID, version: int, base: int) -> list[Updates]:
        """The messages of versions ``version + 1`` to ``base``, from a replica of their own."""
        game = None if version == 0 else self.app.game_at(game_id, version)
        events = self.app.game_events(game_id, version, limit=base - version)
        return build(events, game)[1]

    def _newer(self, feed: Feed) -> list[Updates]:
        """The messages of the game's events after the feed's replica (which they advance)."""
        replica = feed.replica
        after = 0 if replica is None else replica.version
        events = self.app.game_events(feed.game_id, after)
        if not events:
            return []
        feed.replica, built = build(events, replica)
        return built

    async def _pump(self, feed: Feed) -> None:
        """Follow the game while it has watchers: build each new event's messages once."""
        wake = feed.wake
        assert wake is not None
        try:
            while feed.watchers > 0 and not self.hub.closing:
                wake.clear()
                built = await self._run(self._newer, feed)
                if built:
                    feed.messages.extend(built)
                    self._trim(feed)
                    feed.notify()
                if feed.watchers == 0 or self.hub.closing:
                    break
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(SAFETY_POLL_SECONDS):
                        await wake.wait()
        except Exception as exc:  # the watchers report it (as a status)
            feed.error = exc
            log.warning("a game's watch feed failed", game_id=str(feed.game_id), error=str(exc))
        finally:
            self.hub.unregister(feed.game_id, wake)
            feed.pump = feed.wake = None
            feed.notify()
            if self._live.get(feed.game_id) is feed and (feed.watchers == 0 or feed.error):
                del self._live[feed.game_id]
                if feed.watchers == 0 and feed.error is None:
                    self._keep(feed)

    def _trim(self, feed: Feed) -> None:
        # Not while ``cover`` back-fills: it prepends to the messages it saw at ``feed.base``.
        if len(feed.messages) > MAX_FEED_VERSIONS and not feed.lock.locked():
            drop = len(feed.messages) - MAX_FEED_VERSIONS // 2
            feed.messages = feed.messages[drop:]
            feed.base = (feed.base or 0) + drop

    def _keep(self, feed: Feed) -> None:
        if feed.size() <= self._idle.maxsize:
            self._idle[feed.game_id] = feed

    def close(self, feed: Feed) -> None:
        """One watcher of the feed has left; the last one stops its pump."""
        feed.watchers -= 1
        if feed.watchers > 0:
            return
        if feed.wake is not None:
            feed.wake.set()  # the pump sees no watchers and parks the feed
        elif self._live.get(feed.game_id) is feed:
            del self._live[feed.game_id]
            if feed.error is None and feed.base is not None:
                self._keep(feed)

    async def messages(self, feed: Feed, last: int, seat: int) -> list[Update]:
        """The seat's updates after ``last`` that the feed holds (perhaps none yet)."""
        if feed.error is not None:
            raise feed.error
        if last < (feed.base or 0):
            await self.cover(feed, last)
        return feed.since(last, seat)

    def waiting(self, feed: Feed, last: int, seat: int) -> list[Update] | None:
        """``messages`` without a trip through the event loop when the feed holds version
        ``last`` (the usual case); ``None`` when ``messages`` must be awaited."""
        if feed.error is not None or last < (feed.base or 0):
            return None
        return feed.since(last, seat)
