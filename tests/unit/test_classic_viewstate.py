"""A client written from the proto alone sees a Classic deal as the rules core does (issue 12):
``service.cli.viewstate.view_from_proto`` of the API's seat view gives back the core's
``SeatView`` Classic fields (who has not looked, the bomb and its bombers, dark, without
talon), an unseen seat's own hand hidden, and the same legal actions (look, bomb, dark and
no-talon bids), so bots playing through the API decide as they would in process."""

from __future__ import annotations

import random
from pathlib import Path

from domain.rules import actor, seat_view
from domain.rules.actions import Bomb, Claim, DarkCall, Look, NoTalonCall
from domain.rules.systems import CLASSIC
from service.api.mapping import seat_view_to_proto
from service.app.application import PreferansApplication
from service.app.config import sqlite_store
from service.cli.viewstate import view_from_proto
from tests.integration.helpers import create, order_if_awaited, random_policy

FIELDS = ("unseen", "dark", "no_talon", "bomb", "bombers", "phase", "actor", "hand")


def test_the_api_view_carries_the_classic_view_fields(tmp_path: Path) -> None:
    app = PreferansApplication(sqlite_store(str(tmp_path / "views.sqlite")).env)
    seen: set[type] = set()
    try:
        for attempt in range(8):  # fresh seeds until look, bomb and a dark bid were offered
            game_id = create(app, CLASSIC).game_id
            policy = random_policy(random.Random(attempt), bot_share=0.5)
            while app.get_game(game_id).state.deal_number < 14:
                game = app.get_game(game_id)
                if order_if_awaited(app, game):
                    continue
                deal = game.deal
                assert deal is not None
                for seat in range(3):
                    core = seat_view(deal, seat)
                    api = view_from_proto(seat_view_to_proto(game, seat))
                    for name in FIELDS:
                        assert getattr(api, name) == getattr(core, name), (name, seat)
                    assert api.hands[seat] == core.hands[seat]
                    # Claims are not listed in the API (``can_claim`` says one may be made).
                    assert api.legal == tuple(a for a in core.legal if not isinstance(a, Claim))
                    seen |= {type(a) for a in core.legal}
                seat = actor(deal)
                action = policy(seat_view(deal, seat))
                app.act(game_id, seat, action, f"v-{game.version}")
            if {Look, Bomb, DarkCall, NoTalonCall} <= seen:
                break
    finally:
        app.close()
    assert {Look, Bomb, DarkCall, NoTalonCall} <= seen
