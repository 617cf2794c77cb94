"""The application validates the whole rule set before a game is recorded, whatever path the
rule set came by (issue 9, item 2), on both stores."""

from __future__ import annotations

import pytest

from domain.model import game_id_for
from domain.rules import RuleSet
from domain.rules.errors import InvalidAction
from service.app.application import PreferansApplication

PLAYERS = ["ann", "bob", "cid"]


@pytest.mark.parametrize(
    "rules",
    [
        RuleSet(pool_target=2.5),  # type: ignore[arg-type]
        RuleSet(pool_target=10**40),
        RuleSet(misere_value=True),
        RuleSet(raspasy_trick_prices=(-1,)),
    ],
    ids=["fraction", "huge", "boolean", "negative"],
)
def test_a_rule_set_that_cannot_be_recorded_is_refused_and_nothing_is_stored(
    app: PreferansApplication, rules: RuleSet
) -> None:
    with pytest.raises(InvalidAction) as refused:
        app.create_game(PLAYERS, "bad-rules", rules)
    assert refused.value.field.startswith("rules")
    assert list(app.recorder.select_events(game_id_for("bad-rules"))) == []


def test_a_valid_rule_set_is_recorded_and_loads_back_equal(app: PreferansApplication) -> None:
    rules = RuleSet(pool_target=7, raspasy_trick_prices=(1, 2, 3), penalty_capped=True)
    created = app.create_game(PLAYERS, "good-rules", rules)
    assert app.get_game(created.game_id).rule_set == rules
