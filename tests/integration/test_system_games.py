"""Every named system through the event store (issue 11, "Done when"): bot games under each
rule set of ``RULE_SETS`` are played through the application on both stores; the audit
verifies each from its events alone, its hand record re-verifies, and the stored rule set loads
back equal. A system whose game is ordered after its initial rounds and played until time
(Classic, issue 12) is ordered by its orderer through ``order_game`` and ends when the server's
clock passes the ordered end time (the next decision records ``TimeCalled``)."""

from __future__ import annotations

import random

import pytest

from domain.rules import awaiting_order, game_orderer
from domain.rules.systems import RULE_SETS
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.handrecord import export_game_record, import_record
from tests.integration.helpers import create, play, random_policy


@pytest.mark.parametrize("system", sorted(RULE_SETS))
def test_bot_games_of_every_system_verify(app: PreferansApplication, system: str) -> None:
    rules = RULE_SETS[system].with_options(pool_target=4)
    game_id = create(app, rules).game_id
    policy = random_policy(random.Random(system), bot_share=0.7)
    if rules.order_game:
        play(app, game_id, policy, stop=lambda g: awaiting_order(g.state))
        state = app.get_game(game_id).state
        ends_at = int(app.clock()) + 3600
        app.order_game(game_id, game_orderer(state), 4, ends_at, "order")
        if rules.play_until_time:  # a few deals of the pool, then the end time passes
            play(app, game_id, policy, stop=lambda g: g.state.deal_number >= state.deal_number + 4)
            app.clock = lambda: ends_at
    play(app, game_id, policy)
    game = app.get_game(game_id)
    assert game.finished and game.rule_set == rules
    assert game.state.time_called == rules.play_until_time
    report = verify_game(app, game_id)
    assert report.discrepancy is None, report.discrepancy
    assert report.finished and report.settlement == game.settlement
    _, verdict = import_record(export_game_record(app, game_id, None, "json"))
    assert verdict.consistent, verdict.message
