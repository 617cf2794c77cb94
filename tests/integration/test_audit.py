"""The audit re-checks a game from its stored events alone, on both stores: a clean game
verifies; a changed, removed or reordered stored event, a wrong score, an illegal card and a
deck that does not follow from the revealed seed are each reported at their position.

Stored rows are edited directly in SQLite and PostgreSQL, bypassing the library (as in
``test_upcast.py``). Some tests also recompute the chain after the edit (what a forger with
write access to the store would do) to show that the rules, fairness and score checks catch
what the chain alone cannot.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from domain.audit import CHAIN, FAIRNESS, ILLEGAL, MISSING, REORDERED, SCORE, UNCHAINED
from domain.model.chain import GENESIS, link
from domain.rules import RuleSet, legal_actions
from domain.rules.actions import PlayCard
from domain.rules.cards import cards_of
from service.app.application import GameNotFound, PreferansApplication
from service.app.audit import event_log, read_log, verify_game
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

RULES = RuleSet(pool_target=2)


@pytest.fixture
def game_id(app: PreferansApplication) -> uuid.UUID:
    """A finished game of three bots (small pool target) with at least a few deals played out.

    The deals come from a seed derived from the store's own random key, so a game is drawn
    again in the rare case that it is too short for these tests (they edit the eighth card
    played, the second deal, the first bid)."""
    for _ in range(10):
        created = create(app, RULES)
        play(app, created.game_id)
        assert app.get_game(created.game_id).finished
        counts = {
            name: len(versions_of(app, created.game_id, name))
            for name in ("CardPlayed", "DealDealt", "BidCalled")
        }
        if counts["CardPlayed"] >= 12 and counts["DealDealt"] >= 2 and counts["BidCalled"] >= 1:
            return created.game_id
    raise AssertionError("ten bot games in a row were too short for these tests")


def versions_of(app: PreferansApplication, game_id: uuid.UUID, name: str) -> list[int]:
    return [e.originator_version for e in app.game_events(game_id) if topic(e) == name]


def delete_event(
    app: PreferansApplication, env: dict[str, str], game_id: uuid.UUID, version: int
) -> None:
    table = events_table(app)
    query = f"DELETE FROM {table} WHERE originator_id = ? AND originator_version = ?"
    execute_raw(env, [(query, (stored_id(env, game_id), version))])


def swap_events(
    app: PreferansApplication, env: dict[str, str], game_id: uuid.UUID, a: int, b: int
) -> None:
    """Swap the stored topic and state of two rows (the versions stay in place)."""
    rows = {r.originator_version: r for r in app.recorder.select_events(game_id)}
    table = events_table(app)
    query = (
        f"UPDATE {table} SET topic = ?, state = ? "
        "WHERE originator_id = ? AND originator_version = ?"
    )
    key = stored_id(env, game_id)
    execute_raw(
        env,
        [
            (query, (rows[b].topic, rows[b].state, key, a)),
            (query, (rows[a].topic, rows[a].state, key, b)),
        ],
    )


def edit(
    app: PreferansApplication,
    env: dict[str, str],
    game_id: uuid.UUID,
    version: int,
    change: Any,
) -> None:
    """Change one stored event's state in place (``change(state)`` edits the dict)."""
    state = stored_state(app, game_id, version)
    change(state)
    rewrite_stored_state(env, events_table(app), game_id, version, state)


def rechain(app: PreferansApplication, env: dict[str, str], game_id: uuid.UUID) -> None:
    """Recompute every stored chain from the stored content (a forger's cover-up)."""
    head = GENESIS
    for row in app.recorder.select_events(game_id):
        event = app.mapper.to_domain_event(row)
        value = link(head, event)
        if event.__dict__.get("chain") != value:
            edit(app, env, game_id, row.originator_version, lambda s, v=value: s.update(chain=v))
        head = value


# --------------------------------------------------------------------------------------------


def test_a_clean_game_verifies(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    report = verify_game(app, game_id)
    assert report.verified, report.summary
    events = app.game_events(game_id)
    assert report.events == len(events)
    assert report.finished
    game = app.get_game(game_id)
    assert report.deals == game.state.deal_number
    assert report.settlement == game.settlement
    assert report.chain_head == events[-1].chain == game.chain_head
    assert report.summary.startswith(f"verified: {len(events)} events, {report.deals} deals")
    assert " / ".join(game.settlement or []) in report.summary
    # Every stored event carries its chain, in the stored state itself.
    assert all(len(stored_state(app, game_id, v)["chain"]) == 64 for v in (1, len(events)))


def test_pref_audit_command(
    app: PreferansApplication,
    game_id: uuid.UUID,
    store_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = store_argument(store_env)
    assert pref(["audit", str(game_id), "--store", store]) == 0
    assert "verified:" in capsys.readouterr().out
    card = versions_of(app, game_id, "CardPlayed")[3]
    edit(
        app, store_env, game_id, card, lambda s: s.update(card="7♠" if s["card"] != "7♠" else "8♠")
    )
    assert pref(["audit", f"games/{game_id}", "--store", store]) == 1
    out = capsys.readouterr().out
    assert f"event {card} (CardPlayed)" in out and "was changed" in out
    assert pref(["audit", str(uuid.uuid4()), "--store", store]) == 2


def test_a_changed_card_is_reported(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    version = versions_of(app, game_id, "CardPlayed")[5]
    original = stored_state(app, game_id, version)["card"]
    edit(
        app,
        store_env,
        game_id,
        version,
        lambda s: s.update(card="A♥" if original != "A♥" else "K♥"),
    )
    report = verify_game(app, game_id)
    found = report.discrepancy
    assert found is not None and found.kind == CHAIN
    assert found.version == version and found.topic == "CardPlayed"
    assert found.message.startswith(
        f"event {version} (CardPlayed): the stored chain does not match its content"
    )
    assert "the event was changed" in found.message


def test_a_changed_hand_is_reported(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    version = versions_of(app, game_id, "DealDealt")[1]

    def change(state: dict[str, Any]) -> None:
        hands = [h.split() for h in state["hands"]]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]  # one card changes hands
        state["hands"] = [" ".join(h) for h in hands]

    edit(app, store_env, game_id, version, change)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (version, CHAIN)
    assert found.message.startswith(f"event {version} (DealDealt): the stored chain")
    # With the chain recomputed, the hands no longer follow from the recorded deck.
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (version, FAIRNESS)
    assert "the recorded hands and talon are not what the recorded deck deals" in found.message


def test_an_illegal_card_is_reported_even_with_a_recomputed_chain(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    target: tuple[int, str, str] | None = None
    for version in versions_of(app, game_id, "CardPlayed"):
        deal = app.game_at(game_id, version - 1).deal
        assert deal is not None
        legal = {a.card for a in legal_actions(deal) if isinstance(a, PlayCard)}
        hand = cards_of(deal.play.hands[deal.to_act])
        wrong = [c for c in hand if c not in legal]
        if wrong and deal.play.trick:
            target = (version, str(wrong[0]), str(deal.play.trick[0][1]))
            break
    assert target is not None, "no trick where following suit was forced"
    version, card, _ = target
    edit(app, store_env, game_id, version, lambda s: s.update(card=card))
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (version, ILLEGAL), found
    assert found.message.startswith(f"event {version} (CardPlayed): {card} is not legal: you must")


def test_a_deleted_event_is_reported(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    version = versions_of(app, game_id, "CardPlayed")[7]
    delete_event(app, store_env, game_id, version)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (version, MISSING)
    assert found.message == (
        f"event {version} is missing: versions jump from {version - 1} to {version + 1}"
    )


def test_swapped_events_are_reported(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    cards = versions_of(app, game_id, "CardPlayed")
    a = cards[4]
    b = a + 1 if a + 1 in cards else cards[5]
    swap_events(app, store_env, game_id, a, b)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (a, REORDERED), found
    assert found.message.startswith(f"event {a} (CardPlayed): out of order")
    assert f"those of event {b}" in found.message
    # Two events far apart, of different kinds.
    swap_events(app, store_env, game_id, a, b)
    assert verify_game(app, game_id).verified
    dealt = versions_of(app, game_id, "DealDealt")[1]
    swap_events(app, store_env, game_id, dealt, a)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (min(a, dealt), REORDERED)
    assert f"those of event {max(a, dealt)}" in found.message


def test_a_changed_score_is_reported(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    version = versions_of(app, game_id, "DealScored")[0]
    recorded = stored_state(app, game_id, version)["entry"]

    def change(state: dict[str, Any]) -> None:
        state["entry"]["gora"][0] += 10

    edit(app, store_env, game_id, version, change)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (version, CHAIN)
    assert found.message.startswith(f"event {version} (DealScored): the stored chain")
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (version, SCORE), found
    assert found.message.startswith(
        f"event {version} (DealScored): deal 1: the recorded scoresheet entry"
    )
    assert f"which gives {recorded!r}" in found.message


def test_a_deck_that_does_not_follow_from_the_seed_is_reported(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    version = versions_of(app, game_id, "DealDealt")[1]
    deal = stored_state(app, game_id, version)["number"]

    def change(state: dict[str, Any]) -> None:
        deck = state["deck"]
        deck[0], deck[1] = deck[1], deck[0]  # the same hands: the first pair goes to one seat

    edit(app, store_env, game_id, version, change)
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (version, FAIRNESS), found
    assert found.message == (
        f"event {version} (DealDealt): deal {deal}: the recorded deck does not match the "
        "revealed seed"
    )


def test_events_recorded_before_tamper_evidence(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    for version in range(1, len(app.game_events(game_id)) + 1):
        edit(app, store_env, game_id, version, lambda s: s.pop("chain"))
    report = verify_game(app, game_id)
    found = report.discrepancy
    assert found is not None and (found.version, found.kind) == (1, UNCHAINED)
    assert "no chain (recorded before tamper evidence)" in found.message
    # Otherwise the game checks out, and the aggregate still loads and chains on in memory.
    assert report.finished and report.settlement is not None
    fresh = PreferansApplication(store_env)
    try:
        assert fresh.get_game(game_id).chain_head == app.get_game(game_id).chain_head
    finally:
        fresh.close()


def test_an_undecodable_event_and_an_unknown_game(
    app: PreferansApplication, game_id: uuid.UUID, store_env: dict[str, str]
) -> None:
    version = versions_of(app, game_id, "BidCalled")[0]
    table = events_table(app)
    query = f"UPDATE {table} SET topic = ? WHERE originator_id = ? AND originator_version = ?"
    execute_raw(
        store_env, [(query, ("preferans.v1.NoSuchEvent", stored_id(store_env, game_id), version))]
    )
    assert any(getattr(e, "version", 0) == version for e in read_log(app, game_id))
    found = verify_game(app, game_id).discrepancy
    assert found is not None and found.version == version
    assert found.message.startswith(
        f"event {version} (NoSuchEvent): the stored event cannot be read"
    )
    with pytest.raises(GameNotFound):
        verify_game(app, uuid.uuid4())


def test_event_log_pages(app: PreferansApplication, game_id: uuid.UUID) -> None:
    events = app.game_events(game_id)
    entries, more = event_log(app, game_id, 0, 50)
    assert more and [e.version for e in entries] == list(range(1, 51))
    first = entries[0]
    assert first.topic == "preferans.v1.GameCreated" and first.chain == events[0].chain
    assert first.timestamp == events[0].timestamp.isoformat()
    assert '"token_hashes"' in first.fields_json  # unredacted
    rest, more = event_log(app, game_id, 50, 10_000)
    assert not more and [e.version for e in rest] == list(range(51, len(events) + 1))
