"""Two replicas racing on one game, and a restart mid-deal, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import uuid
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from domain.model import Game
from domain.rules import (
    Action,
    Claim,
    Phase,
    RulesError,
    RuleSet,
    Shuffle,
    actor,
    seat_view,
    seed_commitment,
    shuffle_from_seed,
)
from domain.rules.ruleset import Underbid
from service.api.game_servicer import GameServicer
from service.app.application import (
    CommandResult,
    Conflict,
    NotInMemory,
    PreferansApplication,
)
from service.app.groupcommit import GroupCommitter
from service.app.hub import EventHub
from tests.integration.helpers import (
    BOT,
    AppFactory,
    create,
    event_action,
    fold,
    play,
    replay_in_domain,
    topic,
)


def _send(
    app: PreferansApplication,
    game_id: uuid.UUID,
    seat: int,
    action: Action,
    request_id: str,
    outcomes: dict[PreferansApplication, CommandResult | BaseException],
) -> None:
    try:
        outcomes[app] = app.act(game_id, seat, action, request_id=request_id)
    except BaseException as exc:  # collected and checked by the test
        outcomes[app] = exc


class GatedApplication(PreferansApplication):
    """A replica whose next save waits at a barrier: both replicas have validated their command
    against the same version before either writes."""

    gate: threading.Barrier | None = None

    def _save(self, game: Game) -> None:
        gate, self.gate = self.gate, None
        if gate is not None:
            gate.wait(timeout=30)
        super()._save(game)


def test_two_replicas_racing_on_one_game_never_both_land(open_app: AppFactory) -> None:
    first = open_app(GatedApplication)
    second = open_app(GatedApplication)
    assert isinstance(first, GatedApplication) and isinstance(second, GatedApplication)
    game_id = create(first, RuleSet(pool_target=10)).game_id
    rounds = 0
    while rounds < 3:
        # Warm both replicas' caches at the current version.
        game = first.get_game(game_id)
        assert second.get_game(game_id).version == game.version
        deal = game.deal
        assert deal is not None
        seat = actor(deal)
        legal = [a for a in seat_view(deal, seat).legal if not isinstance(a, Claim)]
        if len(legal) < 2:  # nothing to race on: make the forced move and look again
            first.act(game_id, seat, legal[0], request_id=f"forced-{game.version}")
            continue
        rounds += 1
        before = game.version
        gate = threading.Barrier(2)
        first.gate = second.gate = gate
        commands: dict[PreferansApplication, tuple[Action, str]] = {
            first: (legal[0], f"race-{rounds}-first"),
            second: (legal[-1], f"race-{rounds}-second"),
        }
        outcomes: dict[PreferansApplication, CommandResult | BaseException] = {}

        threads = [
            threading.Thread(target=_send, args=(app, game_id, seat, *commands[app], outcomes))
            for app in (first, second)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not gate.broken, "both commands must have been validated before either saved"

        winners = [app for app, out in outcomes.items() if isinstance(out, CommandResult)]
        losers = [app for app, out in outcomes.items() if isinstance(out, Conflict)]
        assert len(winners) == 1 and len(losers) == 1, outcomes
        (winner,), (loser,) = winners, losers
        result = outcomes[winner]
        assert isinstance(result, CommandResult) and not result.replayed
        assert result.version > before

        # Nothing lost, nothing duplicated: contiguous versions, the winner's request once.
        events = first.game_events(game_id)
        assert [e.originator_version for e in events] == list(range(1, len(events) + 1))
        assert len(events) == result.version
        decisions = Counter(
            e.request_id
            for e in events
            if topic(e) not in ("DealDealt", "DealScored", "GameFinished")
        )
        assert decisions[commands[winner][1]] == 1
        assert decisions[commands[loser][1]] == 0
        assert all(count == 1 for count in decisions.values())
        # Both replicas now see the winner's move.
        assert loser.get_game(game_id).version == winner.get_game(game_id).version == len(events)

        # The loser retries: a rules error now, or it lands normally on top of the winner's.
        action, request_id = commands[loser]
        try:
            retried = loser.act(game_id, seat, action, request_id=request_id)
        except RulesError:
            assert len(first.game_events(game_id)) == len(events)
        else:
            assert not retried.replayed and retried.version > result.version
            assert [e.originator_version for e in first.game_events(game_id)] == list(
                range(1, retried.version + 1)
            )
        # Whatever happened, a fresh read of the log equals both replicas' state.
        replayed = fold(first.game_events(game_id))
        assert first.get_game(game_id).state == second.get_game(game_id).state == replayed.state


def test_a_restarted_process_continues_the_game_mid_deal(open_app: AppFactory) -> None:
    before = open_app()
    created = create(before, RuleSet(pool_target=10))
    game_id = created.game_id

    def mid_play(game: Game) -> bool:
        deal = game.deal
        return deal is not None and deal.phase is Phase.PLAY and len(deal.play.history) >= 3

    def deal_two(game: Game) -> bool:
        return game.state.deal_number >= 2

    sent = play(before, game_id, stop=lambda g: mid_play(g) or deal_two(g))
    # The bots may pass a deal out without play; then the restart lands in deal 2.
    interrupted = before.get_game(game_id)
    version = interrupted.version
    seed = before._seed(game_id)
    last = [e for e in before.game_events(game_id) if event_action(e) is not None][-1]
    assert (last.seat, event_action(last)) == sent[-1]
    before.close()

    after = open_app()
    # The restarted process derives the same secrets from the store...
    assert seed_commitment(after._seed(game_id)) == created.seed_commitment
    assert after.authenticate(game_id, created.tokens[1]) == 1
    # ...reads the game where it was, remembers answered requests...
    resumed = after.get_game(game_id)
    assert resumed.version == version
    assert resumed.state == interrupted.state
    retried = after.act(game_id, sent[-1][0], sent[-1][1], request_id=last.request_id)
    assert retried.replayed and retried.version == version
    # ...and plays on to the end of the deal, dealing the next deal from the same seed.
    target = interrupted.state.deal_number + 1
    sent += play(after, game_id, stop=lambda g: g.state.deal_number >= target)
    game = after.get_game(game_id)
    assert game.state.deal_number == target

    events = after.game_events(game_id)
    assert [e.originator_version for e in events] == list(range(1, game.version + 1))
    dealt = [e for e in events if topic(e) == "DealDealt"]
    for event in dealt:
        shuffle = shuffle_from_seed(seed, event.number)
        assert Shuffle(tuple(event.deck), event.talon_pair) == shuffle
    # The state is what a single uninterrupted process would have produced: the pure rules
    # core, fed the log, reaches it, and the log holds exactly the decisions sent, in order.
    replay = replay_in_domain(events)
    assert replay.game == game.state
    assert replay.actions == sent
    assert fold(events).state == game.state
    assert after.game_at(game_id, game.version).state == game.state
    reopened = open_app()
    assert reopened.get_game(game_id).state == game.state
    assert reopened.game_at(game_id, version).state == interrupted.state
    requests = [e.request_id for e in events if event_action(e) is not None]
    assert len(set(requests)) == len(requests) == len(sent)


def test_peek_answers_only_from_memory_and_never_mid_command(open_app: AppFactory) -> None:
    """``peek_game`` (the event loop's read, issue 10) answers a game in memory at once, but
    never from a game a command is changing (its lock is held: the answer could show a state
    that is not saved yet), never one older than ``min_version``, never one not in memory, and
    on SQLite not at all (other processes' writes are polled with a query first)."""
    app = open_app()
    created = create(app)
    game_id = created.game_id
    app.get_game(game_id)  # in memory
    peeked = app.peek_game(game_id, lambda g: g.version)
    if app.db.flavor == "sqlite":
        assert peeked is None
        return
    version = app.get_game(game_id).version
    assert peeked == (version, version)
    assert app.peek_game(game_id, lambda g: g.version, min_version=version + 1) is None
    assert app.peek_game(uuid.uuid4(), lambda g: g.version) is None
    with app._lock(game_id):  # a command in progress
        assert app.peek_game(game_id, lambda g: g.version) is None
    app._evict(game_id)
    assert app.peek_game(game_id, lambda g: g.version) is None
    assert app.read_game(game_id, lambda g: g.version) == (version, version)
    assert app.peek_game(game_id, lambda g: g.version) == (version, version)


def _next_command(app: PreferansApplication, game_id: uuid.UUID) -> tuple[int, Action]:
    deal = app.get_game(game_id).deal
    assert deal is not None
    seat = actor(deal)
    return seat, BOT(seat_view(deal, seat))


class HeldCommits:
    """Holds the group-commit thread's writes until released; counts the games submitted."""

    def __init__(self, app: PreferansApplication) -> None:
        committer = app._committer
        assert isinstance(committer, GroupCommitter)
        self.release = threading.Event()
        self.submitted = 0
        save = committer._save

        def held(*events: object) -> None:
            assert self.release.wait(timeout=30)
            save(*events)

        committer._save = held
        submit = app.submit

        def counted(game: Game) -> Future[None]:
            self.submitted += 1
            return submit(game)

        app.submit = counted  # type: ignore[method-assign]

    async def until_submitted(self, count: int) -> None:
        async with asyncio.timeout(30):
            while self.submitted < count:
                await asyncio.sleep(0.01)


def test_a_command_waiting_for_its_group_commit_holds_no_thread(open_app: AppFactory) -> None:
    """Through the servicer, a command's events wait for their group commit without a thread
    of the pool (issue 10): with ONE thread, commands on three games are all decided and
    queued while the first batch is still being written, so they commit together."""
    app = open_app()
    games = [create(app).game_id for _ in range(3)]
    held = HeldCommits(app)

    async def scenario() -> list[CommandResult]:
        with ThreadPoolExecutor(max_workers=1) as executor:
            servicer = GameServicer(app, executor, EventHub())
            calls = []
            for n, game_id in enumerate(games):
                seat, action = _next_command(app, game_id)
                steps = functools.partial(app.act_steps, game_id, seat, action, f"held-{n}")
                calls.append(asyncio.ensure_future(servicer._command(steps)))
            await held.until_submitted(3)  # all three decided while nothing is written yet
            held.release.set()
            return list(await asyncio.gather(*calls))

    versions = [app.get_game(g).version for g in games]
    results = asyncio.run(scenario())
    assert [r.version for r in results] == [v + 1 for v in versions]
    assert not any(r.replayed for r in results)
    fresh = open_app()
    assert [fresh.get_game(g).version for g in games] == [v + 1 for v in versions]


def test_a_cancelled_call_still_finishes_its_command(open_app: AppFactory) -> None:
    """A call cancelled while its command waits for the group commit: the command is still
    saved and answered to nobody, the game's lock is released, and a retry with the same
    request id gets the first answer (issue 10, the servicer's ``_command``)."""
    app = open_app()
    game_id = create(app).game_id
    held = HeldCommits(app)
    seat, action = _next_command(app, game_id)
    before = app.get_game(game_id).version

    async def scenario() -> CommandResult:
        with ThreadPoolExecutor(max_workers=2) as executor:
            servicer = GameServicer(app, executor, EventHub())
            steps = functools.partial(app.act_steps, game_id, seat, action, "cancelled")
            call = asyncio.ensure_future(servicer._command(steps))
            await held.until_submitted(1)
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call
            held.release.set()
            return await servicer._command(steps)  # waits for the game's lock, then replays

    retried = asyncio.run(scenario())
    assert retried.replayed and retried.version == before + 1
    assert open_app().get_game(game_id).version == before + 1


class CountingExecutor(ThreadPoolExecutor):
    """A thread pool that counts the work it is given."""

    submitted = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        return super().submit(fn, *args, **kwargs)


def test_a_command_on_a_game_in_memory_is_decided_on_the_event_loop(
    open_app: AppFactory,
) -> None:
    """Through the servicer, a command on a game in memory whose lock is free takes no thread
    of the pool (issue 10: decided on the loop, saved by the commit thread, answered on the
    loop). On SQLite (other processes' writes are polled with a query first) and for an action
    the copy in memory refuses (judged again on a fresh copy from the store) it is decided in
    the pool, with the same outcome as before."""
    app = open_app()
    game_id = create(app).game_id
    seat, action = _next_command(app, game_id)
    before = app.get_game(game_id).version

    async def scenario() -> tuple[CommandResult, int, RulesError | None, int]:
        with CountingExecutor(max_workers=2) as executor:
            servicer = GameServicer(app, executor, EventHub())
            steps = functools.partial(app.act_steps, game_id, seat, action, "on-loop")
            result = await servicer._command(steps)
            legal = executor.submitted
            again = functools.partial(app.act_steps, game_id, seat, action, "on-loop-again")
            refused = None
            try:
                await servicer._command(again)  # the same seat again: not its turn
            except RulesError as exc:
                refused = exc
            return result, legal, refused, executor.submitted

    result, legal, refused, total = asyncio.run(scenario())
    assert result.version == before + 1 and not result.replayed
    assert legal == (1 if app.db.flavor == "sqlite" else 0)
    assert isinstance(refused, RulesError)
    assert total == legal + 1  # the refusal was judged again in the pool
    assert open_app().get_game(game_id).version == before + 1


def test_a_game_whose_decisions_may_be_costly_is_never_decided_on_the_event_loop(
    open_app: AppFactory,
) -> None:
    """Under the underbid penalty (RULES.md §3.1) the last card of a whisted game starts a
    bounded search of up to about two seconds: such a game's commands go to the pool (a
    request to decide one in memory changes nothing and says so), so the loop never waits."""
    app = open_app()
    game_id = create(app, RuleSet(underbid_penalty=Underbid.TWO)).game_id
    seat, action = _next_command(app, game_id)
    before = app.get_game(game_id).version
    with pytest.raises(NotInMemory):
        next(app.act_steps(game_id, seat, action, "costly", in_memory=True))
    assert app.get_game(game_id).version == before
    assert app.act(game_id, seat, action, request_id="costly").version == before + 1
