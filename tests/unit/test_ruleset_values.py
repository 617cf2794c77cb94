"""A ``RuleSet`` is an immutable, hashable value, and its recorded form has a schema that names
every option (issue 9, items 2 and 15)."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rules import DEFAULT, RuleSet
from domain.rules.errors import InvalidAction
from domain.rules.ruleset_schema import options_schema
from domain.rules.scoring import DEFENCE_SCORERS
from service.app.rule_options import check_options, check_rule_set, parse_options_json


def test_rule_sets_are_hashable_values() -> None:
    assert hash(DEFAULT) == hash(RuleSet())
    assert {DEFAULT, RuleSet(), RuleSet(pool_target=10)} == {DEFAULT, RuleSet(pool_target=10)}
    assert copy.deepcopy(DEFAULT) == DEFAULT
    assert pickle.loads(pickle.dumps(RuleSet(pool_target=10))) == RuleSet(pool_target=10)


def test_the_default_rule_set_cannot_be_changed() -> None:
    with pytest.raises(TypeError):
        DEFAULT.defence_norms[6] = 99  # type: ignore[index]
    with pytest.raises(TypeError):
        DEFAULT.contract_values[6] = 99  # type: ignore[index]
    with pytest.raises(TypeError):
        DEFAULT.whister_shares[8] = 1  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.pool_target = 5  # type: ignore[misc]
    assert RuleSet().defence_norms[6] == 4


def test_a_rule_set_copies_what_it_is_given() -> None:
    norms = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
    prices = [1, 2]
    rules = RuleSet(defence_norms=norms, raspasy_trick_prices=prices)  # type: ignore[arg-type]
    norms[6] = 0
    prices.append(3)
    assert rules.norm(6) == 4
    assert rules.raspasy_trick_prices == (1, 2)
    hash(rules)


def test_the_schema_names_every_option() -> None:
    schema = options_schema(sorted(DEFENCE_SCORERS))
    assert set(schema["properties"]) == {f.name for f in dataclasses.fields(RuleSet)}
    check_options(DEFAULT.to_dict())


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"pool_target": 2.5}, "rules.pool_target"),
        ({"pool_target": True}, "rules.pool_target"),
        ({"pool_target": "20"}, "rules.pool_target"),
        ({"consolation": 1}, "rules.consolation"),
        ({"defence_norms": {"6": 4, "7": 2, "8": 1, "9": 1, "１０": 1}}, "rules.defence_norms"),
        ({"half_whist_levels": "67"}, "rules.half_whist_levels"),
    ],
)
def test_recorded_options_of_the_wrong_type_are_refused_on_loading(
    data: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidAction) as refused:
        RuleSet.from_dict(data)
    assert refused.value.field == field


def test_a_rule_set_out_of_range_cannot_be_recorded() -> None:
    with pytest.raises(InvalidAction) as refused:
        check_rule_set(RuleSet(pool_target=10**40))
    assert refused.value.field == "rules.pool_target"
    with pytest.raises(InvalidAction):
        check_rule_set(RuleSet(pool_target=2.5))  # type: ignore[arg-type]
    with pytest.raises(InvalidAction, match="half-whist levels"):
        RuleSet(half_whist_levels=frozenset({5}))
    check_rule_set(RuleSet(pool_target=200))


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.integers(min_value=0, max_value=12)
    | st.lists(st.integers(min_value=5, max_value=11), max_size=3)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_OPTION_VALUES = st.dictionaries(
    st.sampled_from([f.name for f in dataclasses.fields(RuleSet)]), _JSON, max_size=4
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_OPTION_VALUES, _JSON))
def test_any_options_json_is_accepted_whole_or_refused_typed(options: object) -> None:
    """Whatever JSON a client sends: a rule set that records and loads back, or InvalidAction."""
    text = json.dumps(options)
    try:
        parsed = parse_options_json(text)
    except InvalidAction as refused:
        assert refused.field.startswith("rules.options_json")
        return
    try:
        rules = RuleSet.from_dict({**DEFAULT.to_dict(), **parsed})
    except InvalidAction:
        return  # a semantic check (e.g. levels of a table), typed
    check_rule_set(rules)
    assert RuleSet.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    hash(rules)
