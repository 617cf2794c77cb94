"""Hidden information as a property (DESIGN.md "Security model", RULES.md §1.4, §1.6, §1.8, §1.9).

Across random deals and at every step, for every seat, ``seat_view`` shows no card that the
seat may not see at that moment, and it does show what the seat must see. The oracle below is
written from the rules and the action log alone; it does not use ``visible_mask`` nor the
engine's ``open_hands``/``talon_open`` bookkeeping.

A seat may see: its own current hand; every card played; the talon once the declarer took it,
or in raspasy the first talon card from the start of trick 1 and the second from the start of
trick 2; the discard if it is the declarer; both defenders' hands when the sole whister chose
open defence, and on misère right after the contract (after the declarer's first card if he is
the first hand); everything once the deal is scored.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rules import (
    ACCEPT,
    CLOSED,
    DEFAULT,
    MISERE,
    OPEN,
    PASS,
    REJECT,
    TAKE_TALON,
    Action,
    Call,
    Claim,
    DealState,
    Declare,
    Discard,
    Phase,
    PlayCard,
    RuleSet,
    SeatView,
    actor,
    apply,
    deal_cards,
    first_hand,
    legal_actions,
    new_deal,
    seat_view,
    shuffle_from_seed,
)
from domain.rules import view as view_module
from domain.rules.ruleset import RaspasyTalon

FULL = (1 << 32) - 1
PLAYERS = 3


def choose(rng: random.Random, legal: Sequence[Action]) -> Action:
    """A random legal action, weighted to reach misère, open defence, raspasy and claims."""
    if any(isinstance(a, Call) for a in legal):
        if rng.random() < 0.4:
            return PASS
        misere = [a for a in legal if isinstance(a, Call) and a.bid == MISERE]
        if misere and rng.random() < 0.3:
            return misere[0]
    declares = [a for a in legal if isinstance(a, Declare)]
    if declares and rng.random() < 0.6:
        return declares[0]
    claims = [a for a in legal if isinstance(a, Claim)]
    if claims:
        cards = [a for a in legal if not isinstance(a, Claim)]
        if not cards or rng.random() < 0.03:
            return rng.choice(claims)
        return rng.choice(cards)
    if ACCEPT in legal:
        return ACCEPT if rng.random() < 0.5 else REJECT
    return rng.choice(list(legal))


def bit(card: int) -> int:
    return 1 << card


# --- the oracle ------------------------------------------------------------------------------


class Known(NamedTuple):
    """What the action log says about a deal so far (all of it public except the discard)."""

    declarer: int
    """The seat that took the talon, -1 if none (yet)."""
    discard: int
    contract: Action | None
    raspasy: bool
    open_chosen: bool
    played: tuple[int, ...]
    """Cards played, in order."""


def read_log(log: Sequence[tuple[int, Action]], compulsory: bool = False) -> Known:
    """``compulsory``: the deal is a raspasy without an auction (RULES.md §3.3 Любимовка),
    a fact of the rules and the deal's place in the series."""
    declarer, discard, contract, open_chosen = -1, 0, None, False
    played: list[int] = []
    for seat, action in log:
        if action == TAKE_TALON:
            declarer = seat
        elif isinstance(action, Discard):
            discard = bit(action.cards[0]) | bit(action.cards[1])
        elif isinstance(action, Declare):
            contract = action
        elif action == OPEN:
            open_chosen = True
        elif isinstance(action, PlayCard):
            played.append(action.card)
    raspasy = compulsory or [a for _, a in log[:3]] == [PASS, PASS, PASS]
    return Known(declarer, discard, contract, raspasy, open_chosen, tuple(played))


def hand_of(start: DealState, known: Known, seat: int) -> int:
    """A seat's current cards: dealt (+ talon for the declarer) − discard − played."""
    hand = start.dealt[seat]
    if seat == known.declarer:
        hand |= bit(start.talon[0]) | bit(start.talon[1])
        hand &= ~known.discard
    for card in known.played:
        hand &= ~bit(card)
    return hand


def open_defenders(start: DealState, known: Known) -> tuple[int, ...]:
    """The defenders whose hands lie face up for everyone now."""
    if known.declarer < 0 or known.contract is None:
        return ()
    defenders = tuple(s for s in range(PLAYERS) if s != known.declarer)
    if known.open_chosen:
        return defenders
    assert isinstance(known.contract, Declare)
    if known.contract.contract == MISERE:
        if known.declarer == first_hand(start.dealer) and not known.played:
            return ()
        return defenders
    return ()


def visible_talon(start: DealState, known: Known) -> tuple[bool, bool]:
    if known.declarer >= 0:
        return (True, True)
    if known.raspasy and start.rules.raspasy_talon is RaspasyTalon.CLOSED:
        return (False, False)  # RULES.md §3.3: a closed talon stays hidden until the end
    if known.raspasy:
        return (True, len(known.played) >= PLAYERS)
    return (False, False)


def oracle(start: DealState, log: Sequence[tuple[int, Action]], viewer: int, over: bool) -> int:
    """Every card ``viewer`` may see after ``log``, as a mask."""
    if over:
        return FULL
    known = read_log(log, start.compulsory_raspasy)
    mask = hand_of(start, known, viewer)
    for card in known.played:
        mask |= bit(card)
    for card, shown in zip(start.talon, visible_talon(start, known), strict=True):
        if shown:
            mask |= bit(card)
    if viewer == known.declarer:
        mask |= known.discard
    for seat in open_defenders(start, known):
        mask |= hand_of(start, known, seat)
    return mask


# --- what a view shows -----------------------------------------------------------------------


def cards_in_view(view: SeatView) -> int:
    """Every card mentioned anywhere in a view."""
    mask = view.hand
    for hand in view.hands:
        if hand is not None:
            mask |= hand
    for hand in view.dealt or ():
        mask |= hand
    for card in view.talon:
        if card is not None:
            mask |= bit(card)
    if view.discard is not None:
        mask |= view.discard
    for _, card in view.trick:
        mask |= bit(card)
    for trick in view.history:
        for _, card in trick.cards:
            mask |= bit(card)
    for action in view.legal:
        if isinstance(action, PlayCard):
            mask |= bit(action.card)
        elif isinstance(action, Discard):
            mask |= bit(action.cards[0]) | bit(action.cards[1])
    return mask


def check_view(
    start: DealState, state: DealState, log: Sequence[tuple[int, Action]], viewer: int
) -> None:
    view = seat_view(state, viewer)
    over = state.phase is Phase.SCORED
    allowed = oracle(start, log, viewer, over)
    leaked = cards_in_view(view) & ~allowed
    assert not leaked, (
        f"seat {viewer} sees {leaked:#x} it may not see in {state.phase} after {len(log)} actions"
    )
    # The converse: what the seat must see is shown.
    known = read_log(log, start.compulsory_raspasy)
    own = hand_of(start, known, viewer)
    assert view.hand == own and view.hands[viewer] == own
    shown = {viewer, *open_defenders(start, known)}
    for seat in range(PLAYERS):
        if over or seat in shown:
            assert view.hands[seat] == hand_of(start, known, seat), f"hand {seat} not shown"
        else:
            assert view.hands[seat] is None, f"hand {seat} shown to seat {viewer}"
    talon_shown = (True, True) if over else visible_talon(start, known)
    for card, seen, should in zip(start.talon, view.talon, talon_shown, strict=True):
        assert seen == (card if should else None)
    if known.discard and (over or viewer == known.declarer):
        assert view.discard == known.discard
    else:
        assert view.discard is None
    assert view.dealt == (start.dealt if over else None)


class Features(NamedTuple):
    raspasy: bool
    misere: bool
    misere_first_hand: bool
    open_defence: bool
    closed_sole_whister: bool


def check_deal(
    seed: bytes,
    number: int,
    dealer: int,
    rng_seed: int,
    rules: RuleSet = DEFAULT,
    streak: int = 0,
) -> Features:
    shuffle = shuffle_from_seed(seed, number)
    start = new_deal(deal_cards(shuffle.order, dealer, shuffle.talon_pair), dealer, rules, streak)
    rng = random.Random(rng_seed)
    state = start
    log: list[tuple[int, Action]] = []
    for _ in range(500):
        for viewer in range(PLAYERS):
            check_view(start, state, log, viewer)
        if state.phase is Phase.SCORED:
            break
        seat = actor(state)
        action = choose(rng, legal_actions(state))
        state = apply(state, action, seat)
        log.append((seat, action))
    else:
        raise AssertionError("the deal did not end")
    known = read_log(log, start.compulsory_raspasy)
    misere = isinstance(known.contract, Declare) and known.contract.contract == MISERE
    return Features(
        raspasy=known.raspasy,
        misere=misere,
        misere_first_hand=misere and known.declarer == first_hand(dealer),
        open_defence=known.open_chosen,
        closed_sole_whister=any(a == CLOSED for _, a in log),
    )


@settings(max_examples=400, deadline=None)
@given(
    seed=st.binary(min_size=16, max_size=32),
    number=st.integers(min_value=1, max_value=10_000),
    dealer=st.integers(min_value=0, max_value=PLAYERS - 1),
    rng_seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_no_view_ever_shows_a_hidden_card(
    seed: bytes, number: int, dealer: int, rng_seed: int
) -> None:
    check_deal(seed, number, dealer, rng_seed)


def test_every_visibility_rule_is_exercised() -> None:
    """The random deals above reach raspasy, misère (also by the first hand) and open and
    closed sole defence, so every clause of the oracle is tested."""
    seen: set[str] = set()
    for i in range(120):
        f = check_deal(b"hidden" + i.to_bytes(10, "big"), 1 + i % 5, i % PLAYERS, i)
        seen.update(name for name, hit in f._asdict().items() if hit)
    assert seen == set(Features._fields)


@pytest.mark.parametrize(
    ("talon", "streak"),
    [(RaspasyTalon.CLOSED, 0), (RaspasyTalon.CLOSED, 1), (RaspasyTalon.OPEN, 1)],
    ids=["closed", "closed-compulsory", "open-compulsory"],
)
def test_closed_talon_and_compulsory_raspasy_views(talon: RaspasyTalon, streak: int) -> None:
    """RULES.md §3.3: a closed raspasy talon is never shown before the deal is scored; a
    compulsory raspasy (Любимовка) shows the open talon as any raspasy does."""
    rules = RuleSet(raspasy_talon=talon, raspasy_compulsory_rounds=2)
    raspasy = 0
    for i in range(40):
        f = check_deal(b"closed" + i.to_bytes(10, "big"), 1 + i, i % PLAYERS, i, rules, streak)
        raspasy += f.raspasy
    assert raspasy >= (40 if streak else 5)


def test_a_leaking_view_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a view that shows every hand is a leak."""
    monkeypatch.setattr(view_module, "_hand_visible", lambda state, viewer, seat: True)
    with pytest.raises(AssertionError, match="may not see"):
        check_deal(b"\x00" * 16, 1, 0, 0)


def test_a_view_hiding_the_talon_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The converse can fail: a view that never shows the talon is not usable."""
    monkeypatch.setattr(view_module, "_talon_visible", lambda state, index: False)
    with pytest.raises(AssertionError):
        for i in range(20):
            check_deal(bytes([i]) * 16, 1, 0, i)
