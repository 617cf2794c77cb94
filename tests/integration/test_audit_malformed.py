"""The audit never fails on a malformed stored event (issue 9, item 9), on both stores: a
stored event that decodes but lacks a field, has a field of the wrong type or an unexpected
one, or names an unknown topic, is reported as the first discrepancy at its position ("event N
… cannot be read", kind ``unreadable``), and ``pref audit`` exits 2 with one line, as
docs/AUDIT.md says. Stored rows are edited with raw SQL, as in ``test_audit.py``."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from domain.audit import STRUCTURE, UNREADABLE
from domain.rules import RuleSet
from service.app.application import PreferansApplication
from service.app.audit import event_log, verify_game
from service.cli import main as pref
from tests.integration.helpers import (
    create,
    events_table,
    execute_raw,
    play,
    rewrite_stored_state,
    store_argument,
    stored_id,
    stored_state,
    topic,
)
from tests.integration.test_audit import rechain

Change = Callable[[dict[str, Any]], None]


def _only_seat(state: dict[str, Any]) -> None:
    state.clear()
    state["seat"] = 1


def _without(name: str) -> Change:
    return lambda state: state.pop(name)


def _set(name: str, value: Any) -> Change:
    return lambda state: state.update({name: value})


# (the event's name, which one of them, the change)
CASES: dict[str, tuple[str, int, Change]] = {
    "only a seat (card)": ("CardPlayed", 3, _only_seat),
    "only a seat (creation)": ("GameCreated", 0, _only_seat),
    "only a seat (deal)": ("DealDealt", 1, _only_seat),
    "no card": ("CardPlayed", 2, _without("card")),
    "no timestamp": ("CardPlayed", 2, _without("timestamp")),
    "no rules": ("GameCreated", 0, _without("rules")),
    "no score": ("DealScored", 0, _without("score")),
    "card is a number": ("CardPlayed", 1, _set("card", 7)),
    "seat is text": ("BidCalled", 0, _set("seat", "1")),
    "seat is a boolean": ("DealDealt", 0, _set("seat", True)),
    "deck is text": ("DealDealt", 0, _set("deck", "0 1 2")),
    "rules is a list": ("GameCreated", 0, _set("rules", [1, 2])),
    "settlement is a number": ("GameFinished", 0, _set("settlement", 3)),
    "chain is a number": ("CardPlayed", 0, _set("chain", 5)),
    "an extra field": ("CardPlayed", 0, _set("extra", {"a": [1]})),
    "timestamp is text": ("CardPlayed", 0, _set("timestamp", "yesterday")),
}


@pytest.fixture
def game_id(app: PreferansApplication) -> uuid.UUID:
    """A finished game holding every event the cases edit (two deals at least, four cards
    played, a bid, a score): the bots' game is random, so a short one is drawn again."""
    needed: dict[str, int] = {}
    for name, which, _change in CASES.values():
        needed[name] = max(needed.get(name, 0), which + 1)
    for _ in range(20):
        created = create(app, RuleSet(pool_target=2))
        play(app, created.game_id)
        names = [topic(e) for e in app.game_events(created.game_id)]
        if all(names.count(name) >= count for name, count in needed.items()):
            return created.game_id
    raise AssertionError("twenty bot games in a row were too short for these tests")


def version_of(app: PreferansApplication, game_id: uuid.UUID, name: str, which: int) -> int:
    versions = [e.originator_version for e in app.game_events(game_id) if topic(e) == name]
    return int(versions[which])


def assert_unreadable_at(app: PreferansApplication, game_id: uuid.UUID, version: int) -> None:
    report = verify_game(app, game_id)
    found = report.discrepancy
    assert found is not None, report.summary
    assert (found.version, found.kind) == (version, UNREADABLE), found.message
    assert found.message.startswith(f"event {version}")
    assert "cannot be read" in found.message
    # The event log for auditors shows it too, without failing.
    entries, _more = event_log(app, game_id, 0, 10_000)
    assert entries[version - 1].version == version


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_malformed_stored_event_is_reported_not_raised(
    app: PreferansApplication,
    game_id: uuid.UUID,
    store_env: dict[str, str],
    case: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    name, which, change = CASES[case]
    version = version_of(app, game_id, name, which)
    state = stored_state(app, game_id, version)
    change(state)
    rewrite_stored_state(store_env, events_table(app), game_id, version, state)
    assert_unreadable_at(app, game_id, version)
    capsys.readouterr()
    assert pref(["audit", str(game_id), "--store", store_argument(store_env)]) == 2
    out = capsys.readouterr()
    assert f"event {version}" in out.out and "cannot be read" in out.out
    assert "Traceback" not in out.out + out.err


@pytest.mark.parametrize(
    "stored_topic", ["preferans.v1.Nonsense", "os:system", "domain.rules:RuleSet", ""]
)
def test_an_unknown_topic_is_reported_not_raised(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str], stored_topic: str
) -> None:
    version = version_of(app, game_id, "CardPlayed", 0)
    query = (
        f"UPDATE {events_table(app)} SET topic = ? "
        "WHERE originator_id = ? AND originator_version = ?"
    )
    execute_raw(store_env, [(query, (stored_topic, stored_id(store_env, game_id), version))])
    assert_unreadable_at(app, game_id, version)


def test_recorded_rules_of_the_wrong_types_are_reported_even_with_a_recomputed_chain(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    state = stored_state(app, game_id, 1)
    state["rules"] = {"pool_target": "2", "defence_norms": {"6": True}}
    rewrite_stored_state(store_env, events_table(app), game_id, 1, state)
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (1, STRUCTURE), found
    assert "the game cannot be created: rule option" in found.message
