"""The order of a Classic game and its end by the ordered time, through the application and the
event store (issue 12; S000 "КЛАССИКА": "Игрок, имеющий наибольшее количество очков в горе,
заказывает игру … до 50 очков в пулю до 23 часов"; TV-26). The order is the orderer's own
event; the time is read only here, at the service edge (``PreferansApplication.clock``)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from domain.handrecord import record_from_events, verify_record
from domain.model.game import RequestReused
from domain.rules import (
    DEFAULT,
    IllegalAction,
    InitialRounds,
    InvalidAction,
    NotYourTurn,
    awaiting_order,
    game_orderer,
    table_rules,
)
from domain.rules.start import GameOrder
from service.app.application import PreferansApplication
from service.app.audit import read_log
from tests.integration.helpers import PLAYERS, play, topic
from tests.integration.test_endings import check_log

AT_2300 = int(datetime(2026, 12, 1, 23, 0, tzinfo=UTC).timestamp())
EVENING = AT_2300 - 4 * 3600
RULES = DEFAULT.with_options(
    initial_rounds=InitialRounds.BOMBS_BY_DEALER,
    initial_levels=1,
    order_game=True,
    ending_by_time=True,
    play_until_time=True,
)


def test_tv26_order_to_50_until_2300_then_the_service_calls_time(
    app: PreferansApplication,
) -> None:
    app.clock = lambda: EVENING
    created = app.create_game(PLAYERS, f"create-{uuid.uuid4()}", rules=RULES, first_dealer=0)
    game_id = created.game_id
    play(app, game_id, stop=lambda g: awaiting_order(g.state))
    game = app.get_game(game_id)
    orderer = game_orderer(game.state)
    version = game.version
    with pytest.raises(NotYourTurn):
        app.order_game(game_id, (orderer + 1) % 3, 50, AT_2300, "order-wrong")
    with pytest.raises(InvalidAction) as past:
        app.order_game(game_id, orderer, 50, EVENING - 60, "order-past")
    assert past.value.field == "end_time"
    with pytest.raises(InvalidAction) as pool:
        app.order_game(game_id, orderer, 0, AT_2300, "order-pool")
    assert pool.value.field == "pool"
    assert app.get_game(game_id).version == version  # refusals record nothing

    ordered = app.order_game(game_id, orderer, 50, AT_2300, "order")
    assert ordered.version == version + 2 and not ordered.replayed
    assert app.order_game(game_id, orderer, 50, AT_2300, "order").replayed
    with pytest.raises(RequestReused):
        app.order_game(game_id, orderer, 40, AT_2300, "order")
    with pytest.raises(IllegalAction):
        app.order_game(game_id, orderer, 40, AT_2300, "order-again")
    game = app.get_game(game_id)
    assert game.state.order == GameOrder(orderer, 50, AT_2300)
    assert table_rules(game.state).pool_target == 50 and game.rule_set.pool_target == 20
    assert topic(read_log(app, game_id)[-2]) == "GameOrdered"

    play(app, game_id, stop=lambda g: g.state.deal_number == 5)
    assert not app.get_game(game_id).state.time_called  # before 23:00 nothing happens
    app.clock = lambda: AT_2300  # 23:00: the next decision finds the time up
    play(app, game_id)
    game = app.get_game(game_id)
    assert game.finished and game.state.time_called and game.state.deal_number == 5
    names = [topic(e) for e in read_log(app, game_id)]
    assert names.count("TimeCalled") == 1
    assert names[names.index("TimeCalled") - 1] not in ("DealScored", "GameFinished")
    assert names[-2:] == ["DealScored", "GameFinished"]
    check_log(app, game_id)
    rec = record_from_events(read_log(app, game_id), str(game_id))
    assert rec["order"] == {"seat": orderer, "pool": 50, "ends_at": AT_2300}
    assert verify_record(rec).consistent
