"""``rule_set_with`` and ``check_rule_set`` remember which options passed the JSON Schema
(``service.app.rule_options._schema_checked``: a validation costs about 1 ms, twice per table or
game created) without changing what they accept or refuse: the key tells ``True`` from ``1``,
a tuple from a list and ``6`` from ``"6"``, the load-back check runs every time, and a refusal
is never remembered (the review rev-d's two reproducers are the first tests)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from domain.rules import RuleSet, rule_set
from domain.rules.errors import InvalidAction
from domain.rules.systems import RULE_SETS
from service.app import rule_options
from service.app.rule_options import check_rule_set, rule_set_with


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    rule_options._VALID_OPTIONS.clear()
    yield
    rule_options._VALID_OPTIONS.clear()


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    check = rule_options.check_options

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return check(*args, **kwargs)

    monkeypatch.setattr(rule_options, "check_options", counted)
    return calls


def test_a_bool_is_refused_after_an_equal_valid_int_was_checked() -> None:
    """``RuleSet(pool_target=True) == RuleSet(pool_target=1)`` (and hashes alike), but its
    recorded form ``"pool_target": true`` cannot be loaded back: refused, also after the int."""
    check_rule_set(RuleSet(pool_target=1))
    odd = RuleSet(pool_target=True)
    assert odd == RuleSet(pool_target=1) and odd.to_dict()["pool_target"] is True
    with pytest.raises(InvalidAction):
        check_rule_set(odd)
    with pytest.raises(InvalidAction):
        check_rule_set(RuleSet(pool_target=20.0))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "overrides",
    [{"raspasy_trick_prices": (1, 2)}, {"contract_values": {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}}],
    ids=["tuple", "int-keys"],
)
def test_options_the_schema_refuses_stay_refused_after_their_json_twins(
    overrides: dict[str, Any],
) -> None:
    """A tuple or integer keys are refused by the schema, though their JSON round trip (a list,
    string keys) may pass: the options themselves are checked, and remembered by their repr."""
    json_twin = json.loads(json.dumps(overrides))
    with contextlib.suppress(InvalidAction):
        rule_set_with("default", json_twin)
    with pytest.raises(InvalidAction):
        rule_set_with("default", overrides)
    options = {**rule_set("default").to_dict(), **overrides}
    with pytest.raises(InvalidAction):
        rule_options.check_options(options, field="rules")


def test_every_named_system_is_built_as_without_the_memory() -> None:
    for name in RULE_SETS:
        for overrides in ({}, {"pool_target": 30}, {"raspasy_exit": "six"}):
            options = {**RULE_SETS[name].to_dict(), **overrides}
            try:
                rule_options.check_options(options, field="rules")
                expected: RuleSet | None = RuleSet.from_dict(options)
            except InvalidAction:
                expected = None
            for _ in range(2):  # the second time from memory
                if expected is None:
                    with pytest.raises(InvalidAction):
                        rule_set_with(name, overrides)
                else:
                    assert rule_set_with(name, overrides) == expected


def test_a_valid_set_is_checked_against_the_schema_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    first = rule_set_with("sochi", {"pool_target": 20})
    checked = calls[0]
    assert checked in (1, 2)  # the options, and the recorded form when it is written otherwise
    assert rule_set_with("sochi", {"pool_target": 20}) == first
    check_rule_set(first)
    assert calls[0] == checked


def test_a_refusal_is_never_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    for attempt in range(3):
        with pytest.raises(InvalidAction) as refused:
            rule_set_with("default", {"pool_target": -5})
        assert refused.value.field is not None
        assert calls[0] == attempt + 1  # checked again every time
