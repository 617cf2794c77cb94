"""Shared helpers for the rules-core unit tests: build deals from card notation, drive them
through ``apply`` as the named seat, and check that illegal actions leave the state as it was.

Seats are A = 0, B = 1, C = 2. With the default dealer C, A is the first hand (H1), B the
second (H2) and C the third (H3), as in the seeds' examples.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from domain.rules import (
    DEFAULT,
    Action,
    Bid,
    DealResult,
    DealState,
    DealtCards,
    IllegalAction,
    Kind,
    Phase,
    PlayCard,
    RulesError,
    RuleSet,
    actor,
    apply,
    legal_actions,
    mask_of,
    new_deal,
    parse_action,
    parse_cards,
)

A, B, C = 0, 1, 2

Whists = tuple[tuple[int, ...], ...]


def cards(text: str) -> int:
    """The mask of cards written like ``"A♠ K♠ 10♥"`` or ``"As Ks Th"``."""
    return mask_of(parse_cards(text))


def dealt(a: str, b: str, c: str, talon: str) -> DealtCards:
    """Dealt cards for seats A, B, C and the talon (two cards, in the order they lie)."""
    first, second = parse_cards(talon)
    return DealtCards(hands=(cards(a), cards(b), cards(c)), talon=(first, second))


def deal(
    a: str,
    b: str,
    c: str,
    talon: str,
    *,
    dealer: int = C,
    rules: RuleSet = DEFAULT,
    streak: int = 0,
) -> DealState:
    """A new deal from card notation; by default C deals, so A is the first hand."""
    return new_deal(dealt(a, b, c, talon), dealer, rules, streak)


def to_action(move: str | Action) -> Action:
    return parse_action(move) if isinstance(move, str) else move


def act(state: DealState, *moves: str | Action) -> DealState:
    """Apply each move as the seat that must act (cards are written ``"play 10♠"``)."""
    for move in moves:
        state = apply(state, to_action(move), actor(state))
    return state


def play_out(state: DealState) -> DealState:
    """Play the remaining tricks, each hand playing its lowest legal card."""
    while state.phase is Phase.PLAY:
        card = next(a for a in legal_actions(state) if isinstance(a, PlayCard))
        state = apply(state, card, actor(state))
    return state


def claim_rest(state: DealState, tricks: tuple[int, int, int]) -> DealState:
    """The actor claims the remaining tricks as ``tricks``; both others accept."""
    return act(state, "claim " + "-".join(str(t) for t in tricks), "accept", "accept")


def assert_illegal(
    state: DealState,
    move: str | Action,
    *fragments: str,
    error: type[IllegalAction] = IllegalAction,
    seat: int | None = None,
) -> IllegalAction:
    """``apply`` must raise exactly ``error`` with every fragment in its message, and the old
    state must be unchanged (equal to a deep copy taken before, with the same legal actions)."""
    before = copy.deepcopy(state)
    legal_before = legal_actions(state)
    action = to_action(move)
    with pytest.raises(RulesError) as info:
        apply(state, action, actor(state) if seat is None else seat)
    err = info.value
    assert type(err) is error, f"{type(err).__name__}: {err}"
    assert isinstance(err, IllegalAction)
    for fragment in fragments:
        assert fragment in err.message, err.message
    assert state == before
    assert legal_actions(state) == legal_before
    return err


def result(
    kind: Kind,
    declarer: int,
    contract: str | None,
    tricks: tuple[int, ...],
    whisters: tuple[int, ...] = (),
    passers: tuple[int, ...] = (),
    *,
    half_whister: int = -1,
    returned: bool = False,
    **more: Any,
) -> DealResult:
    """A ``DealResult`` for scoring tests, the contract in bid notation (``more``: its other
    fields, e.g. a four-player deal's ``active`` and ``talon_seat``)."""
    return DealResult(
        kind=kind,
        declarer=declarer,
        contract=None if contract is None else Bid.parse(contract),
        tricks=tricks,
        whisters=whisters,
        passers=passers,
        half_whister=half_whister,
        returned=returned,
        claimed=False,
        **more,
    )


def whists(entries: Mapping[tuple[int, int], int], players: int = 3) -> Whists:
    """A whists matrix ``[writer][target]`` from ``{(writer, target): amount}``."""
    return tuple(
        tuple(entries.get((writer, target), 0) for target in range(players))
        for writer in range(players)
    )


SAMPLE = (
    "Ah Kh Qh 7h 7d Ac Kc Jc Tc Qs",
    "9h Ad Qd Qc 7c Ks Js 9s 8s 7s",
    "Jh Th Kd Td 9d 8d 9c 8c As Ts",
    "Jd 8h",
)
"""An ordinary deal (A strong in ♥ and ♣); with A on 7♥ and lowest-card play it goes 7-2-1."""


def sample(*, dealer: int = C, rules: RuleSet = DEFAULT, streak: int = 0) -> DealState:
    """The ``SAMPLE`` deal, dealt by ``dealer``."""
    return deal(*SAMPLE, dealer=dealer, rules=rules, streak=streak)


def won_by_a(contract: str, *, rules: RuleSet = DEFAULT) -> DealState:
    """``SAMPLE``: A wins at 6♠, takes the talon, discards Q♠ 10♣ and declares ``contract``."""
    return act(sample(rules=rules), "6♠", "pass", "pass", "take talon", "discard Qs Tc", contract)
