"""Every named system through the event store (issue 11, "Done when"): bot games under each
rule set of ``RULE_SETS`` are played through the application on both stores; the audit
verifies each from its events alone, its hand record re-verifies, and the stored rule set loads
back equal. Classic (issue 12) is ordered after its bomb rounds and ended by the ordered time."""

from __future__ import annotations

import random

import pytest

from domain.rules.birds import gora_written_off
from domain.rules.game import table_rules
from domain.rules.systems import RULE_SETS
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.handrecord import export_game_record, import_record
from tests.integration.helpers import create, play, random_policy


@pytest.mark.parametrize("system", sorted(RULE_SETS))
def test_bot_games_of_every_system_verify(app: PreferansApplication, system: str) -> None:
    rules = RULE_SETS[system].with_options(pool_target=4)
    game_id = create(app, rules).game_id
    play(app, game_id, random_policy(random.Random(system), bot_share=0.7))
    game = app.get_game(game_id)
    assert game.finished and game.rule_set == rules
    # Classic: ordered by its orderer after the bomb rounds, ended only by time (helpers.play
    # orders the agreed pool and moves the application's clock to the ordered end time).
    assert (game.state.order is not None) == rules.order_game
    if rules.play_until_time:  # by time, or by writing off gora (classic-simple, S-26)
        ended_by_gora = gora_written_off(game.state.sheet, table_rules(game.state))
        assert game.state.time_called or ended_by_gora
    else:
        assert not game.state.time_called
    # The robber (classic-robber) imposed obligatory games (helpers.ROBBER_ORDER).
    order = game.state.order
    assert (order is not None and order.obligations.total > 0) == rules.robber
    report = verify_game(app, game_id)
    assert report.discrepancy is None, report.discrepancy
    assert report.finished and report.settlement == game.settlement
    _, verdict = import_record(export_game_record(app, game_id, None, "json"))
    assert verdict.consistent, verdict.message
