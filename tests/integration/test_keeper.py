"""The keeper (``service.app.keeper``) on both stores, driven by an injected clock without its
thread (``run_once``): it plays the server's bot seats to the end of a game, times out a seat
whose deadline has passed, and a restarted keeper (a new process) finds a pending deadline by
its sweep of the game list. Two keepers (replicas) never act twice."""

from __future__ import annotations

import uuid

from domain.bots import make_bot
from domain.model.terms import TimeControl, bot_player_id
from domain.rules import DEFAULT, actor, seat_view
from projections import standard_runners
from service.app.application import PreferansApplication
from service.app.keeper import Keeper
from tests.integration.helpers import AppFactory, create, topic
from tests.integration.test_endings import check_log, topics


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_bots_play_their_seats_to_the_end(app: PreferansApplication) -> None:
    game_id = create(app, DEFAULT.with_options(pool_target=10), bot_seats=(1, 2)).game_id
    keeper = Keeper(app)
    person = make_bot()
    while not app.get_game(game_id).finished:
        keeper.watch(game_id)
        keeper.run_once()
        game = app.get_game(game_id)
        if game.finished:
            break
        assert game.deal is not None
        seat = actor(game.deal)
        assert seat == 0, "the keeper left a bot seat waiting"
        app.act(game_id, 0, person(seat_view(game.deal, 0)), f"ann-{game.version}")
    events = app.game_events(game_id)
    decided = {e.seat for e in events if e.request_id.startswith("bot@") and e.seat >= 0}
    assert decided == {1, 2}
    assert not keeper.followed  # a finished game is no longer followed
    check_log(app, game_id)


def test_the_keeper_times_out_once_and_a_restarted_keeper_finds_the_deadline(
    app: PreferansApplication, open_app: AppFactory
) -> None:
    game_id = create(app, time_control=TimeControl(move_ms=1000)).game_id
    game = app.get_game(game_id)
    deadline = game.deadline_ms
    assert deadline is not None
    clock = Clock(deadline / 1000 - 0.5)
    keeper = Keeper(app, clock=clock)
    keeper.watch(game_id)
    assert keeper.run_once() == 0
    assert keeper.followed[game_id] == deadline / 1000  # scheduled at the deadline
    # The process stops; another starts: its keeper sweeps the playing games of the list.
    for runner in standard_runners(app, app.db).values():
        runner.catch_up()
    restarted = open_app()
    clock.now = deadline / 1000 + 0.2
    other = Keeper(restarted, clock=clock)
    assert other.sweep() == 1 and game_id in other.followed
    assert other.run_once() == 1
    assert topics(restarted, game_id)[-2:] == ["TimeExpired", "AuctionPassed"]
    # The first keeper (a replica) wakes too late: the time-out is recorded once.
    before = len(topics(restarted, game_id))
    keeper.watch(game_id)
    keeper.run_once()
    assert [topic(e) for e in app.game_events(game_id)].count("TimeExpired") == 1
    assert len(topics(restarted, game_id)) == before
    check_log(restarted, game_id)


def test_a_forfeited_seat_is_played_by_the_keepers_bot(app: PreferansApplication) -> None:
    control = TimeControl(move_ms=1000, on_timeout="forfeit")
    game_id = create(app, time_control=control).game_id
    game = app.get_game(game_id)
    assert game.deadline_ms is not None and game.clock is not None
    seat = game.clock.actor
    keeper = Keeper(app, clock=Clock(game.deadline_ms / 1000))
    keeper.watch(game_id)
    keeper.run_once()
    game = app.get_game(game_id)
    assert game.players[seat] == bot_player_id(seat)
    # The bot has decided for its seat already (no wait for a deadline).
    assert [e.seat for e in app.game_events(game_id) if e.request_id.startswith("bot@")]
    check_log(app, game_id)


def test_events_of_other_aggregates_are_let_go(app: PreferansApplication) -> None:
    """The hub passes every event, a league's too: the keeper lets it go."""
    created = create(app, league="keeper-league", bot_seats=(2,))
    league_id = next(i for i in _aggregate_ids(app) if i != created.game_id)
    keeper = Keeper(app)
    keeper.watch(league_id)
    keeper.watch(created.game_id)
    keeper.run_once()
    assert league_id not in keeper.followed


def _aggregate_ids(app: PreferansApplication) -> set[uuid.UUID]:
    rows = app.recorder.select_notifications(start=1, limit=100)
    return {uuid.UUID(str(n.originator_id)) for n in rows}


def test_the_bots_agree_to_stop_once_every_person_has(app: PreferansApplication) -> None:
    game_id = create(app, bot_seats=(1, 2)).game_id
    keeper = Keeper(app)
    app.agree_stop(game_id, 0, "stop-0")
    keeper.watch(game_id)
    keeper.run_once()
    game = app.get_game(game_id)
    assert game.finished and game.settlement is not None
    assert topics(app, game_id)[-3:] == ["EarlyStopAgreed", "EarlyStopAgreed", "GameFinished"]
    check_log(app, game_id)


def test_a_game_without_clock_or_bots_is_looked_at_again_when_a_seat_resigns(
    app: PreferansApplication,
) -> None:
    game_id = create(app).game_id
    keeper = Keeper(app)
    keeper.watch(game_id)
    assert keeper.run_once() == 0 and game_id not in keeper.followed
    game = app.get_game(game_id)
    assert game.deal is not None
    app.resign(game_id, actor(game.deal), "resign")
    keeper.watch(game_id)
    assert keeper.run_once() >= 1  # the bot decided for the seat at once
    assert app.game_events(game_id)[-1].request_id.startswith("bot@")
