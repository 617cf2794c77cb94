"""``rule_set_with`` and ``check_rule_set`` remember the rule sets they found valid
(``service.app.rule_options``: two JSON Schema validations cost 2–3 ms per table or game
created) without changing what they accept or refuse."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from domain.rules.errors import InvalidAction
from domain.rules.systems import RULE_SETS
from service.app import rule_options
from service.app.rule_options import check_rule_set, rule_set_with


@pytest.fixture
def fresh_caches() -> Iterator[None]:
    rule_options._remembered_rule_set.cache_clear()
    rule_options._check_rule_set.cache_clear()
    yield
    rule_options._remembered_rule_set.cache_clear()
    rule_options._check_rule_set.cache_clear()


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    check = rule_options.check_options

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return check(*args, **kwargs)

    monkeypatch.setattr(rule_options, "check_options", counted)
    return calls


def test_a_remembered_rule_set_equals_the_checked_one(fresh_caches: None) -> None:
    """Every named system, alone and with options changed: the remembered result (options
    read back from canonical JSON) equals the set built and checked from the options."""
    for name in RULE_SETS:
        for overrides in ({}, {"pool_target": 30}, {"raspasy_exit": "six"}):
            try:
                expected = rule_options._checked_rule_set(
                    {**RULE_SETS[name].to_dict(), **overrides}
                )
            except InvalidAction:
                with pytest.raises(InvalidAction):
                    rule_set_with(name, overrides)
                continue
            assert rule_set_with(name, overrides) == expected
            assert rule_set_with(name, overrides) == expected  # the remembered one


def test_a_valid_set_is_checked_once(fresh_caches: None, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    first = rule_set_with("sochi", {"pool_target": 20})
    checked = calls[0]
    assert checked == 2  # the options, then the recorded form
    assert rule_set_with("sochi", {"pool_target": 20}) == first
    check_rule_set(first)
    assert calls[0] == checked


def test_a_refusal_is_never_remembered(fresh_caches: None, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    for attempt in range(3):
        with pytest.raises(InvalidAction) as refused:
            rule_set_with("default", {"pool_target": -5})
        assert refused.value.field is not None
        assert calls[0] == attempt + 1  # checked again every time
    with pytest.raises(InvalidAction):
        rule_set_with("default", {"no_such_option": 1})
