"""The clock arithmetic (``domain.model.clock``, docs/CLOCKS.md): per-move allowance first, then
the bank, the increment after each own decision, adjourned intervals not counted; the default
move of a seat out of time."""

from __future__ import annotations

from domain.model.clock import after_event, default_action, start_clock
from domain.model.terms import TimeControl
from domain.rules import PASS, Card, PlayCard, Rank, Suit
from domain.rules.actions import ACCEPT, ALLOW, REFUSE, REJECT

CONTROL = TimeControl(move_ms=10_000, bank_ms=60_000, increment_ms=2_000)


def test_a_turn_gets_the_move_allowance_then_the_bank() -> None:
    clock = after_event(start_clock(CONTROL, 3, 0), 1_000, actor=1, adjourned=False)
    assert clock.deadline_ms == 1_000 + 10_000 + 60_000
    assert clock.banks == (60_000, 60_000, 60_000)  # the turn's spending is paid at its end


def test_a_decision_pays_the_excess_and_earns_the_increment() -> None:
    clock = after_event(start_clock(CONTROL, 3, 0), 0, actor=0, adjourned=False)
    clock = after_event(clock, 25_000, actor=1, adjourned=False, decided_by=0)
    assert clock.banks == (60_000 - 15_000 + 2_000, 60_000, 60_000)
    assert (clock.actor, clock.started_ms) == (1, 25_000)
    # A quick decision costs the bank nothing and still earns the increment.
    clock = after_event(clock, 26_000, actor=2, adjourned=False, decided_by=1)
    assert clock.banks[1] == 62_000


def test_the_same_seat_deciding_again_starts_a_new_turn() -> None:
    clock = after_event(start_clock(CONTROL, 3, 0), 0, actor=0, adjourned=False)
    clock = after_event(clock, 4_000, actor=0, adjourned=False, decided_by=0)
    assert clock.started_ms == 4_000
    assert clock.deadline_ms == 4_000 + 10_000 + 62_000


def test_an_adjourned_interval_does_not_count() -> None:
    clock = after_event(start_clock(CONTROL, 3, 0), 0, actor=0, adjourned=False)
    clock = after_event(clock, 5_000, actor=0, adjourned=True)
    assert clock.deadline_ms is None
    assert clock.paused_ms == 5_000
    clock = after_event(clock, 3_605_000, actor=0, adjourned=False)
    assert clock.deadline_ms == 3_600_000 + 10_000 + 60_000
    clock = after_event(clock, 3_620_000, actor=1, adjourned=False, decided_by=0)
    assert clock.banks[0] == 60_000 - 10_000 + 2_000


def test_moments_are_monotonic() -> None:
    clock = after_event(start_clock(CONTROL, 3, 0), 10_000, actor=0, adjourned=False)
    clock = after_event(clock, 9_000, actor=1, adjourned=False, decided_by=0)
    assert clock.started_ms == 10_000 and clock.banks[0] == 62_000


def test_no_actor_no_deadline() -> None:
    clock = after_event(start_clock(CONTROL, 3, 0), 0, actor=-1, adjourned=False)
    assert clock.deadline_ms is None
    assert clock.banks == (60_000,) * 3


def test_the_default_move() -> None:
    low_heart = PlayCard(Card.of(Rank(0), Suit(2)))
    cards = (PlayCard(Card.of(Rank(3), Suit(0))), low_heart, PlayCard(Card.of(Rank(0), Suit(3))))
    assert default_action((*cards, PASS)) == PASS
    assert default_action(cards) == low_heart
    assert default_action((ACCEPT, REJECT)) == REJECT  # a claim or invitation: concede nothing
    assert default_action((ALLOW, REFUSE)) == REFUSE  # an own whist: the game is given
