"""The robber's order through the application and the event store (S000 КЛАССИКА l.657
"Разбойник"; issue 12): ``GameOrdered`` with the obligations is stored and read back
(``robber_owed`` as ordered), a retry with the same obligations is replayed and one with other
obligations is a reused request id; a game played out writes what was not declared when every
pool closed, and the log verifies (aggregate, domain replay, audit, hand record)."""

from __future__ import annotations

import uuid

import pytest

from domain.handrecord import record_from_events, verify_record
from domain.model.game import RequestReused
from domain.rules import DEFAULT, game_orderer
from domain.rules.robber import Obligations, penalties
from service.app.application import PreferansApplication
from service.app.audit import read_log
from tests.integration.helpers import PLAYERS, play, topic
from tests.integration.test_endings import check_log

ROBBER = DEFAULT.with_options(order_game=True, robber=True, pool_target=4)
SEED_ORDER = {"misere": 1, "ten": 1, "nine": 2, "eight": 3}
"""S000: "по разу – мизер и десятерную, два раза – девятерную, три – восьмерную"."""


def test_robber_obligations_through_the_application_replay_and_audit(
    app: PreferansApplication,
) -> None:
    created = app.create_game(PLAYERS, f"create-{uuid.uuid4()}", rules=ROBBER, first_dealer=2)
    game_id = created.game_id
    game = app.get_game(game_id)
    orderer = game_orderer(game.state)
    ordered = app.order_game(game_id, orderer, 4, 0, "order", obligations=SEED_ORDER)
    assert not ordered.replayed
    assert app.order_game(game_id, orderer, 4, 0, "order", obligations=SEED_ORDER).replayed
    with pytest.raises(RequestReused):
        app.order_game(game_id, orderer, 4, 0, "order", obligations={"eight": 1})
    game = app.get_game(game_id)  # read back from the store
    imposed = Obligations(misere=1, ten=1, nine=2, eight=3)
    assert game.state.order is not None and game.state.order.obligations == imposed
    assert game.state.robber_owed == (imposed,) * 3
    assert topic(read_log(app, game_id)[-2]) == "GameOrdered"

    play(app, game_id)
    game = app.get_game(game_id)
    assert game.finished and game.state.robber_written
    # Written once, at the deadline: each seat's gora holds at least what it still owed.
    due = penalties(ROBBER, game.state.robber_owed)
    assert all(g >= d for g, d in zip(game.state.sheet.gora, due, strict=True))
    check_log(app, game_id)
    rec = record_from_events(read_log(app, game_id), str(game_id))
    assert rec["order"]["obligations"] == SEED_ORDER
    assert verify_record(rec).consistent
