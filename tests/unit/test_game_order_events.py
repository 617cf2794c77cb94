"""The order of the game and the end by time as events (issue 12; S000 "КЛАССИКА": "Игрок,
имеющий наибольшее количество очков в горе, заказывает игру"; TV-26 "to 50 until 23:00"):
``GameOrdered`` recorded by the aggregate, replayed, audited and exported in hand records; the
time read at the service edge comes in as ``time_up`` and records ``TimeCalled`` before the
decision that found it, so the deal in progress is the last."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import pytest

from domain.audit import verify
from domain.bots import make_bot
from domain.handrecord import record_from_events, verify_record
from domain.handrecord.text import render_text
from domain.model import Game
from domain.model.chain import link
from domain.model.decisions import BY_NAME, event_name
from domain.model.replay import advance
from domain.rules import (
    DEFAULT,
    GameState,
    IllegalAction,
    InitialRounds,
    InvalidAction,
    NotYourTurn,
    RuleSet,
    actor,
    awaiting_order,
    game_orderer,
    seat_view,
    table_rules,
)
from domain.rules.start import GameOrder
from tests.unit.game_helpers import created_game

SEED = b"\x1a" * 32
BOT = make_bot()
AT_2300 = int(datetime(2026, 12, 1, 23, 0, tzinfo=UTC).timestamp())
CLASSIC_TIME = DEFAULT.with_options(
    initial_rounds=InitialRounds.BOMBS_BY_ROUND,
    initial_levels=1,
    order_game=True,
    ending_by_time=True,
    play_until_time=True,
)
"""One round of single bombs, then the order "to 50 until 23:00", played on until time."""


def created(rules: RuleSet, first_dealer: int = 0) -> Game:
    game = created_game(rules, first_dealer, SEED)
    game.deal_first(SEED, "create")
    return game


def play(game: Game, until: Any, time_up: Any = lambda game: False) -> None:
    """Bots play until ``until(game)``; ``time_up(game)`` is what the service's clock says."""
    n = 0
    while not game.finished and not until(game):
        deal = game.state.deal
        assert deal is not None
        seat = actor(deal)
        n += 1
        game.act(seat, BOT(seat_view(deal, seat)), f"r{n}", SEED, time_up=time_up(game))


def test_tv26_order_to_50_until_2300_is_an_event_replayed_audited_and_exported() -> None:
    game = created(CLASSIC_TIME)
    play(game, lambda g: awaiting_order(g.state))
    assert game.state.deal_number == 3 and game.state.deal is None
    orderer = game_orderer(game.state)
    other = (orderer + 1) % 3
    with pytest.raises(NotYourTurn):
        game.order(other, 50, AT_2300, "o-wrong", SEED)
    with pytest.raises(InvalidAction):
        game.order(orderer, 50, 0, "o-no-time", SEED)
    version = game.version
    game.order(orderer, 50, AT_2300, "order", SEED)
    assert game.version == version + 2  # GameOrdered, then the first deal of the pool
    assert game.state.order == GameOrder(orderer, 50, AT_2300)
    assert table_rules(game.state).pool_target == 50 and game.rule_set.pool_target == 20
    assert game.state.deal_number == 4 and game.state.deal is not None
    with pytest.raises(IllegalAction):
        game.order(orderer, 40, AT_2300, "order-again", SEED)
    assert game.answer_for("order", f"{orderer}:order 50 {AT_2300}") == version + 2

    # Two deals of the pool, then the service finds 23:00 passed: TimeCalled comes before the
    # decision that found it; the deal in progress is played out and the game ends.
    play(game, lambda g: g.state.deal_number == 6)
    play(game, lambda g: False, time_up=lambda g: True)
    assert game.finished and game.state.time_called and game.state.deal_number == 6
    events = game.collect_events()
    names = [event_name(e) for e in events]
    assert names.count("GameOrdered") == 1 and names.count("TimeCalled") == 1
    called = names.index("TimeCalled")
    assert names[called + 1] in BY_NAME  # the decision that found the time up
    assert names[-2:] == ["DealScored", "GameFinished"]
    assert names[names.index("GameOrdered") + 1] == "DealDealt"

    replayed: Any = None
    for event in events:
        replayed = event.mutate(replayed)
    assert isinstance(replayed, Game) and replayed.state == game.state
    assert replayed.settlement == game.settlement
    state: GameState | None = None
    for event in events:
        state = advance(state, event)
    assert state == game.state

    report = verify(str(game.id), events)
    assert report.verified, report.summary

    rec = record_from_events(events)
    assert rec["order"] == {"seat": orderer, "pool": 50, "ends_at": AT_2300}
    assert rec["stopped"] == "time" and rec["complete"]
    assert verify_record(rec).consistent, verify_record(rec).message
    assert 'pool to 50, until 2026-12-01 23:00 UTC"]' in render_text(rec)


def test_the_audit_refuses_an_order_by_the_wrong_seat_and_a_deal_before_the_order() -> None:
    game = created(CLASSIC_TIME)
    play(game, lambda g: awaiting_order(g.state))
    orderer = game_orderer(game.state)
    game.order(orderer, 50, AT_2300, "order", SEED)
    events = game.collect_events()
    at = next(i for i, e in enumerate(events) if event_name(e) == "GameOrdered")
    previous = events[at - 1].__dict__["chain"]
    for changes in ({"seat": (orderer + 1) % 3}, {"pool": 0}):
        forged = _forged(events[at], previous, **changes)
        report = verify(str(game.id), [*events[:at], forged])
        assert report.discrepancy is not None, changes
        assert report.discrepancy.kind == "illegal", report.summary
        assert "GameOrdered is not allowed here" in report.summary
    dealt = _forged(events[at + 1], previous, originator_version=at + 1)
    skipped = verify(str(game.id), [*events[:at], dealt])
    assert skipped.discrepancy is not None and skipped.discrepancy.kind == "structure"
    assert "before the game is ordered" in skipped.summary


def _forged(event: Any, previous: str, **changes: Any) -> Any:
    """The event with ``changes``, chained on as a forger would (so only its meaning is
    wrong)."""
    copy = object.__new__(type(event))
    copy.__dict__.update({**event.__dict__, **changes})
    copy.__dict__["chain"] = link(previous, copy)
    return copy


def test_a_game_to_be_ordered_at_once_deals_nothing_until_ordered() -> None:
    """With the simplified start (agreed gora) the order comes before the first deal; the
    creation deals nothing."""
    rules = DEFAULT.with_options(
        initial_rounds=InitialRounds.GORA, initial_gora=10, order_game=True
    )
    game = created(rules, first_dealer=2)
    assert game.state.deal is None and awaiting_order(game.state)
    assert game_orderer(game.state) == 0  # all equal: the first hand (dealer C → A)
    game.order(0, 30, 0, "order", SEED)
    assert game.state.deal_number == 1 and game.state.sheet.gora == (10, 10, 10)


def test_time_up_without_an_end_time_rule_changes_nothing() -> None:
    """``time_up`` only calls time in a game played until time, and only once."""
    game = created(DEFAULT)
    play(game, lambda g: g.state.deal_number == 2, time_up=lambda g: True)
    names = [event_name(e) for e in game.collect_events()]
    assert "TimeCalled" not in names and not game.finished


@pytest.mark.parametrize(
    "start",
    [
        {"initial_rounds": InitialRounds.BOMBS_BY_DEALER, "initial_levels": 2},
        {"initial_rounds": InitialRounds.BOMBS_BY_ROUND, "initial_levels": 2},
        {"initial_rounds": InitialRounds.RASPASY, "initial_levels": 2},
        {"initial_rounds": InitialRounds.GORA, "initial_gora": 4},
    ],
)
def test_every_start_with_the_classic_ending_is_verified_by_the_audit(start: Any) -> None:
    """Each start, ordered to a short pool of 4 with the Classic ending and the robber, played
    on after the pools close until the service calls time (after deal 14): the aggregate, the
    replay, the audit and the hand record agree, and the settlement sums to zero."""
    rules = DEFAULT.with_options(
        order_game=True,
        ending_by_time=True,
        play_until_time=True,
        classic_ending=True,
        robber_gora=200,
        **start,
    )
    game = created(rules, first_dealer=1)
    play(game, lambda g: awaiting_order(g.state))
    game.order(game_orderer(game.state), 4, AT_2300, "order", SEED)
    play(game, lambda g: g.state.deal_number == 14)
    play(game, lambda g: False, time_up=lambda g: True)
    assert game.finished and game.settlement is not None
    assert sum(Fraction(v) for v in game.settlement) == 0
    events = game.collect_events()
    report = verify(str(game.id), events)
    assert report.verified, report.summary
    state: GameState | None = None
    for event in events:
        state = advance(state, event)
    assert state == game.state
    rec = record_from_events(events)
    assert verify_record(rec).consistent, verify_record(rec).message


def test_the_servers_time_call_never_takes_a_clients_request_id() -> None:
    """The server's TimeCalled is recorded under an id derived from the decision that found
    the time up, which no client can send (it ends with a space): a client's own command
    ``move/time`` keeps its answer (review finding, 2026-12-01)."""
    game = created(CLASSIC_TIME)
    play(game, lambda g: awaiting_order(g.state))
    game.order(game_orderer(game.state), 50, AT_2300, "order", SEED)
    deal = game.state.deal
    assert deal is not None
    seat = actor(deal)
    game.act(seat, BOT(seat_view(deal, seat)), "move/time", SEED)
    mine = game.version
    fingerprint = game.requests["move/time"][0]
    deal = game.state.deal
    assert deal is not None
    seat = actor(deal)
    game.act(seat, BOT(seat_view(deal, seat)), "move", SEED, time_up=True)
    assert game.state.time_called
    assert game.answer_for("move/time", fingerprint) == mine
    called = [e for e in game.collect_events() if event_name(e) == "TimeCalled"]
    assert [getattr(e, "request_id", None) for e in called] == ["move time "]
