"""The read models on both stores: exactly-once processing, rebuilds equal to the live views,
runners racing on one projection, and the seat views never showing a card a seat may not see."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.model import Game
from domain.rules import CARDS, Phase, RuleSet, cards_of, visible_mask
from projections import PROJECTION_NAMES, ProjectionRunner, standard_runners
from projections.queries import scoresheet, seat_view
from service.application import PreferansApplication
from tests.integration.helpers import (
    cards_in_view,
    create,
    dump_tables,
    play,
    random_policy,
    replay_in_domain,
    tracking_positions,
)

ALL_CARDS = {str(card) for card in CARDS}


def _played_games(app: PreferansApplication, count: int = 2) -> list[Any]:
    """A couple of finished short games and one in progress (the views of a live deal too)."""
    ids = []
    for _ in range(count):
        game_id = create(app, RuleSet(pool_target=6)).game_id
        play(app, game_id)
        ids.append(game_id)
    live = create(app, RuleSet(pool_target=6)).game_id
    play(app, live, stop=lambda g: g.state.deal_number >= 2 and g.version % 7 == 0)
    return [*ids, live]


def test_rebuilt_views_equal_the_live_ones_and_catch_up_is_exactly_once(
    app: PreferansApplication,
) -> None:
    game_ids = _played_games(app)
    runners = standard_runners(app, app.db, batch=50)
    assert set(runners) == set(PROJECTION_NAMES)
    last = app.recorder.max_notification_id()
    assert last is not None
    for runner in runners.values():
        assert runner.catch_up() == last
        assert runner.position() == runner.max_position() == last
    # A second catch-up has nothing to do.
    for runner in runners.values():
        assert runner.catch_up() == 0
        assert runner.run_once() == 0
    live = dump_tables(app.db)
    assert all(live[table] for table in live)
    assert tracking_positions(app.db) == dict.fromkeys(PROJECTION_NAMES, last)

    # Dropped and rebuilt from the log, by new runners as after a deploy: identical rows.
    progress: list[int] = []
    for runner in standard_runners(app, app.db, batch=64).values():
        assert runner.rebuild(progress.append) == last
    assert sum(progress) == last * len(PROJECTION_NAMES)
    assert dump_tables(app.db) == live
    assert tracking_positions(app.db) == dict.fromkeys(PROJECTION_NAMES, last)

    # New events are picked up incrementally, and the result equals a rebuild again.
    play(app, game_ids[-1], stop=lambda g: g.state.deal_number >= 3, prefix="more")
    now = app.recorder.max_notification_id()
    assert now is not None
    added = now - last
    assert added > 0
    for runner in runners.values():
        assert runner.catch_up() == added
    incremental = dump_tables(app.db)
    for runner in runners.values():
        runner.rebuild()
    assert dump_tables(app.db) == incremental

    for game_id in game_ids:
        sheet = scoresheet(app.db, str(game_id))
        assert sheet is not None
        expected = replay_in_domain(app.game_events(game_id))
        assert sheet["pool"] == list(expected.game.sheet.pool)
        assert sheet["gora"] == list(expected.game.sheet.gora)
        assert sheet["whists"] == [list(row) for row in expected.game.sheet.whists]
        assert [d["entry"] for d in sheet["entries"]] == [s["entry"] for s in expected.scored]
        assert sheet["settlement"] == expected.settlement


@pytest.mark.parametrize("mode", ["alternating", "threads"])
def test_runners_racing_on_one_projection_apply_each_batch_once(
    app: PreferansApplication, mode: str
) -> None:
    game_ids = _played_games(app)
    last = app.recorder.max_notification_id()
    # Two runners per projection, each with its own in-memory state (as two worker processes).
    racers = list(standard_runners(app, app.db, batch=17).values())
    twins = list(standard_runners(app, app.db, batch=23).values())
    if mode == "alternating":
        # Two runners of each projection take turns batch by batch.
        busy = True
        while busy:
            busy = False
            for pair in zip(racers, twins, strict=True):
                for runner in pair:
                    busy |= runner.run_once() > 0
    else:
        errors: list[BaseException] = []

        def run(runner: ProjectionRunner) -> None:
            try:
                runner.catch_up()
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(r,)) for r in (*racers, *twins)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not errors
    assert tracking_positions(app.db) == dict.fromkeys(PROJECTION_NAMES, last)
    raced = dump_tables(app.db)
    for game_id in game_ids:
        sheet = scoresheet(app.db, str(game_id))
        assert sheet is not None
        expected = replay_in_domain(app.game_events(game_id))
        assert sheet["deals"] == len(expected.scored)
        assert sheet["pool"] == list(expected.game.sheet.pool)
        assert sheet["gora"] == list(expected.game.sheet.gora)
        assert sheet["whists"] == [list(row) for row in expected.game.sheet.whists]
        assert sheet["settlement"] == expected.settlement
    # One runner alone, from scratch, produces the same rows.
    for runner in standard_runners(app, app.db).values():
        runner.rebuild()
    assert dump_tables(app.db) == raced


def _check_seat_views(app: PreferansApplication, runner: ProjectionRunner, game: Game) -> None:
    """After catching up: every seat's projected view of the current deal names exactly the cards
    that seat may see now, and the views of a finished deal name all 32 cards."""
    runner.catch_up()
    deal = game.deal
    assert deal is not None
    number = game.state.deal_number
    for seat in range(3):
        data = seat_view(app.db, str(game.id), seat, number)
        assert data is not None
        assert data["version"] == game.version
        assert data["seat"] == seat and data["phase"] == deal.phase.value
        allowed = {str(CARDS[c]) for c in cards_of(visible_mask(deal, seat))}
        shown = cards_in_view(data)
        assert shown <= allowed, f"seat {seat} sees {sorted(shown - allowed)} in {data}"
        own = {str(CARDS[c]) for c in cards_of(deal.play.hands[seat])}
        assert own <= shown  # its own hand, at least
        if number > 1:
            ended = seat_view(app.db, str(game.id), seat, number - 1)
            assert ended is not None and ended["phase"] == Phase.SCORED.value
            assert cards_in_view(ended) == ALL_CARDS


@settings(
    max_examples=2,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), bot_share=st.sampled_from([0.0, 0.7]))
def test_seat_views_never_show_a_card_the_seat_may_not_see(
    app: PreferansApplication, seed: int, bot_share: float
) -> None:
    (runner,) = standard_runners(app, app.db, names=("seat_views",)).values()
    game_id = create(app, RuleSet(pool_target=6)).game_id
    rng = random.Random(seed)
    _check_seat_views(app, runner, app.get_game(game_id))
    play(
        app,
        game_id,
        random_policy(rng, bot_share),
        stop=lambda g: g.state.deal_number > 2,
        after=lambda g: _check_seat_views(app, runner, g),
    )
    for seat in range(3):
        for number in (1, 2):
            data = seat_view(app.db, str(game_id), seat, number)
            assert data is not None
            assert cards_in_view(data) == ALL_CARDS
