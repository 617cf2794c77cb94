"""Ending a game by time and by an agreed early stop, through the application and the event
store (issue 11; RULES.md §3.4 "End condition", §3.0 and TV-27 "Early stop"): each is its own
event, validated before anything is recorded, replayed by the domain and verified by the audit."""

from __future__ import annotations

import uuid
from fractions import Fraction

import pytest

from domain.audit import ILLEGAL
from domain.handrecord import render_text, to_json
from domain.model.replay import advance
from domain.rules import (
    DEFAULT,
    Ending,
    GameOver,
    IllegalAction,
    RuleSet,
    early_stop,
    settle,
)
from domain.rules.errors import InvalidAction
from service.app.application import NotCreator, PreferansApplication
from service.app.audit import read_log, verify_game
from service.app.handrecord import game_record, import_record
from tests.integration.helpers import PLAYERS, play, replay_in_domain, topic
from tests.integration.test_audit import edit, rechain

SECRET = "s" * 32


def create_with_secret(app: PreferansApplication, rules: RuleSet) -> tuple[uuid.UUID, str]:
    request_id = f"create-{uuid.uuid4()}"
    created = app.create_game(PLAYERS, request_id, rules=rules, creator_secret=SECRET)
    return created.game_id, request_id


def topics(app: PreferansApplication, game_id: uuid.UUID) -> list[str]:
    return [topic(e) for e in read_log(app, game_id)]


def check_log(app: PreferansApplication, game_id: uuid.UUID) -> None:
    """The aggregate, the domain replay and ``replay.advance`` agree; the audit verifies."""
    events = read_log(app, game_id)
    game = app.get_game(game_id)
    replay = replay_in_domain(events)
    assert replay.game.sheet == game.state.sheet
    assert replay.game.finished == game.finished
    assert replay.settlement == game.settlement
    state = None
    for event in events:
        state = advance(state, event)
    assert state == game.state
    report = verify_game(app, game_id)
    assert report.verified, report.summary


def test_time_called_by_the_creator_ends_the_game_after_the_current_deal(
    app: PreferansApplication,
) -> None:
    """§3.4 by time (S000 Classic, C-5): only the creator's credential may call it; the deal in
    progress is played out; the game then ends with the early-stop settlement (§1.11)."""
    rules = DEFAULT.with_options(ending_by_time=True)
    game_id, created_with = create_with_secret(app, rules)
    play(app, game_id, stop=lambda g: g.state.deal_number == 2)
    before = topics(app, game_id)
    with pytest.raises(NotCreator):
        app.call_time(game_id, created_with, "x" * 32, "time-1")
    with pytest.raises(NotCreator):
        app.call_time(game_id, "another-request", SECRET, "time-1")
    assert topics(app, game_id) == before  # refusals record nothing
    result = app.call_time(game_id, created_with, SECRET, "time-1")
    assert app.call_time(game_id, created_with, SECRET, "time-1").replayed
    assert result.version == app.get_game(game_id).version
    with pytest.raises(IllegalAction):
        app.call_time(game_id, created_with, SECRET, "time-2")  # already called
    game = app.get_game(game_id)
    assert game.state.time_called and not game.finished
    play(app, game_id)
    game = app.get_game(game_id)
    assert game.finished and game.state.deal_number == 2
    names = topics(app, game_id)
    assert names[-2:] == ["DealScored", "GameFinished"]
    expected = settle(early_stop(game.state.sheet, rules), rules)
    assert game.settlement == [str(v) for v in expected]
    check_log(app, game_id)


def test_time_cannot_be_called_in_a_game_not_played_until_time(
    app: PreferansApplication,
) -> None:
    game_id, created_with = create_with_secret(app, DEFAULT)
    before = topics(app, game_id)
    with pytest.raises(IllegalAction):
        app.call_time(game_id, created_with, SECRET, "time-1")
    assert topics(app, game_id) == before


def test_early_stop_needs_every_seat_during_the_same_deal(app: PreferansApplication) -> None:
    """§3.0 / TV-27: stopping is agreed by all seats (one event each); agreements lapse when
    the deal is scored; the last one ends the game at once, the deal unplayed, and the missing
    pool points go to gora (S000: pool 20 of 25 → 5 gora)."""
    rules = RuleSet(pool_target=25)
    game_id, _ = create_with_secret(app, rules)
    app.agree_stop(game_id, 0, "stop-0")
    assert app.agree_stop(game_id, 0, "stop-0").replayed
    with pytest.raises(IllegalAction):
        app.agree_stop(game_id, 0, "stop-0b")
    with pytest.raises(InvalidAction):
        app.agree_stop(game_id, 3, "stop-3")
    play(app, game_id, stop=lambda g: g.state.deal_number == 2)
    game = app.get_game(game_id)
    assert game.state.stop_agreed == frozenset() and not game.finished
    app.agree_stop(game_id, 1, "stop-1")
    app.agree_stop(game_id, 2, "stop-2")
    assert not app.get_game(game_id).finished
    app.agree_stop(game_id, 0, "stop-0c")
    game = app.get_game(game_id)
    assert game.finished and game.deal is None
    assert topics(app, game_id)[-2:] == ["EarlyStopAgreed", "GameFinished"]
    expected = settle(early_stop(game.state.sheet, rules), rules)
    assert game.settlement == [str(v) for v in expected]
    with pytest.raises(GameOver):
        app.agree_stop(game_id, 1, "stop-late")
    check_log(app, game_id)


def test_a_game_of_a_fixed_number_of_deals_ends_through_the_application(
    app: PreferansApplication,
) -> None:
    rules = DEFAULT.with_options(ending=Ending.DEALS, ending_deals=3)
    game_id, _ = create_with_secret(app, rules)
    play(app, game_id)
    game = app.get_game(game_id)
    assert game.finished and len(game.deal_results) == 3
    check_log(app, game_id)


@pytest.mark.parametrize(
    "rules",
    [
        DEFAULT.with_options(ending=Ending.POOL_SUM, pool_target=8),
        DEFAULT.with_options(races=2, pool_target=6),
    ],
    ids=["pool-sum", "races"],
)
def test_pool_sum_and_races_games_audit_clean(app: PreferansApplication, rules: RuleSet) -> None:
    game_id, _ = create_with_secret(app, rules)
    play(app, game_id)
    game = app.get_game(game_id)
    assert game.finished
    assert sum(Fraction(v) for v in game.settlement or []) == 0
    check_log(app, game_id)


@pytest.mark.parametrize("how", ["time", "agreed"])
def test_hand_records_of_stopped_games_say_so_and_verify(
    app: PreferansApplication, how: str
) -> None:
    """The hand record (docs/HANDRECORD.md) of a game ended by time or by an agreed stop holds
    its finished deals, says how it stopped, and verifies with the early-stop settlement; a
    record without the ``stopped`` field (exported before it existed) still reads."""
    rules = DEFAULT.with_options(ending_by_time=True, pool_target=30)
    game_id, created_with = create_with_secret(app, rules)
    play(app, game_id, stop=lambda g: g.state.deal_number == 2)
    if how == "time":
        app.call_time(game_id, created_with, SECRET, "time")
        play(app, game_id)
    else:
        for seat in range(3):
            app.agree_stop(game_id, seat, f"stop-{seat}")
    rec = game_record(app, game_id)
    assert rec["complete"] and rec["stopped"] == how
    assert len(rec["deals"]) == (2 if how == "time" else 1)
    assert rec["settlement"] == app.get_game(game_id).settlement
    text = to_json(rec)
    assert import_record(text)[1].consistent
    assert '[Stopped "' in render_text(rec)
    old = {k: v for k, v in rec.items() if k != "stopped"}
    old["complete"], old["settlement"], old["seed"] = False, None, None
    old["settlement_at_end"] = None  # as an unfinished game's record says (version 3)
    assert import_record(to_json(old))[1].consistent
    # Without the field, the stopped game's record is refused: the pools are open.
    forged = {**rec, "stopped": None}
    assert not import_record(to_json(forged))[1].consistent
    # An agreed stop cannot be passed off as time called in a game not played until time.
    untimed = {**rec, "stopped": "time", "rules": {**rec["rules"], "ending_by_time": False}}
    verdict = import_record(to_json(untimed))[1]
    assert not verdict.consistent and "time was called" in verdict.message


def test_the_audit_reports_a_forged_agreement_or_time_call(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    """A stop "agreed" twice by one seat, or time called in a game not played until time, is
    not what the rules allow: the audit reports it even with a recomputed chain."""
    rules = DEFAULT.with_options(ending_by_time=True)
    game_id, created_with = create_with_secret(app, rules)
    app.call_time(game_id, created_with, SECRET, "time")
    for seat in range(3):
        app.agree_stop(game_id, seat, f"stop-{seat}")
    assert verify_game(app, game_id).verified
    versions = {topic(e): e.originator_version for e in read_log(app, game_id)}
    last = versions["EarlyStopAgreed"]
    edit(app, store_env, game_id, last, lambda s: s.update(seat=1))
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (last, ILLEGAL), found
    assert "already agreed" in found.message
    edit(app, store_env, game_id, 1, lambda s: s["rules"].update(ending_by_time=False))
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and found.kind == ILLEGAL, found
    assert found.version == versions["TimeCalled"]
