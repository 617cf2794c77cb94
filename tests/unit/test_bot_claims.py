"""Bots answer a claim (RULES.md §6, "play on or agree the final result") by enumerating the
remaining play: they accept exactly when the claim holds in every layout of the cards they
cannot see, against every defence (``domain.bots.claims``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from domain.bots import make_bot
from domain.bots.claims import claim_guaranteed
from domain.rules import (
    ACCEPT,
    REJECT,
    Claim,
    DealState,
    Phase,
    PlayCard,
    RuleSet,
    actor,
    apply,
    deal_cards,
    legal_actions,
    new_deal,
    seat_view,
    shuffle_from_seed,
)
from tests.unit.double_dummy import takes_at_least
from tests.unit.rules_helpers import A, B, C, act, cards, won_by_a

BOT = make_bot()


def _played_to(state: DealState, tricks: int) -> DealState:
    """The bots play on until ``tricks`` tricks are done."""
    while len(state.play.history) < tricks:
        seat = actor(state)
        state = apply(state, BOT(seat_view(state, seat)), seat)
    return state


def _seven_tricks() -> DealState:
    """``SAMPLE``: A declares 7♥, B and C whist (closed), the bots play seven tricks. A holds
    the last three trumps ♥Q 8 7; B ♠K J 9; C ♠A 10 ♦K; B leads."""
    state = act(won_by_a("declare 7♥"), "whist", "whist")
    state = _played_to(state, 7)
    assert state.play.hands == (cards("Qh 8h 7h"), cards("Ks Js 9s"), cards("As Ts Kd"))
    assert state.play.tricks == (5, 2, 0) and actor(state) == B
    return state


def test_a_correct_3_0_0_claim_is_accepted_by_both_defenders() -> None:
    # B leads ♠9, C plays ♠10; A, holding every trump left, claims the three tricks (this one
    # included): he ruffs this trick and any lead after it.
    state = act(_seven_tricks(), "play 9♠", "play 10♠", "claim 3-0-0")
    assert state.phase is Phase.CLAIM
    for seat in (B, C):
        assert actor(state) == seat
        view = seat_view(state, seat)
        assert view.hands[A] is None  # the claimant's hand stays hidden: every layout counts
        assert claim_guaranteed(view)
        assert BOT(view) == ACCEPT
        state = apply(state, ACCEPT, seat)
    assert state.phase is Phase.SCORED and state.result is not None
    assert state.result.claimed and state.result.tricks == (8, 2, 0)


def test_an_unguaranteed_claim_is_rejected() -> None:
    # Five tricks left, A to lead with ♦J 7 ♥Q 8 7: he cannot take all five (C's ♦K and B's ♦A
    # are out), so 5-0-0 is rejected; the double-dummy solver over the real hands agrees.
    state = act(won_by_a("declare 7♥"), "whist", "whist")
    state = _played_to(state, 5)
    assert actor(state) == A and state.play.hands[A] == cards("Jd 7d Qh 8h 7h")
    assert not takes_at_least(state.play.hands, A, A, 3, 5, 1_000_000)
    claimed = apply(state, Claim((5, 0, 0)), A)
    view = seat_view(claimed, actor(claimed))
    assert not claim_guaranteed(view)
    assert BOT(view) == REJECT
    rejected = apply(claimed, REJECT, actor(claimed))
    assert rejected.phase is Phase.PLAY and actor(rejected) == A


def test_a_concession_the_claimant_cannot_lose_is_accepted() -> None:
    # B, to lead with ♠K J 9 against A's three trumps, concedes the rest to A: C accepts (B
    # gives nothing C could take), A too.
    state = _seven_tricks()
    conceded = apply(state, Claim((3, 0, 0)), B)
    assert actor(conceded) == C and BOT(seat_view(conceded, C)) == ACCEPT


def test_a_claim_that_depends_on_a_layout_the_answerer_cannot_see_is_rejected() -> None:
    # With five tricks left B cannot see A's hand: the two cards A discarded might be the
    # trumps, so a claim of three more tricks for A is not guaranteed from B's seat even though
    # A holds three trumps in fact.
    state = act(won_by_a("declare 7♥"), "whist", "whist")
    state = _played_to(state, 5)
    claimed = apply(state, Claim((3, 2, 0)), A)
    assert takes_at_least(state.play.hands, A, A, 3, 3, 1_000_000)
    assert not claim_guaranteed(seat_view(claimed, actor(claimed)))


def _deal(number: int) -> DealState:
    seed = hashlib.sha256(f"test-bot-claims/{number}".encode()).digest()
    shuffle = shuffle_from_seed(seed, 1)
    return new_deal(deal_cards(shuffle.order, number % 3, shuffle.talon_pair), number % 3)


def test_an_accepted_claim_by_the_declarer_holds_in_the_real_layout() -> None:
    """Soundness over bot deals: whenever a bot would accept the declarer's claim of k tricks,
    the double-dummy solver over the real hands finds k tricks for him against every defence;
    and the bots accept some (the check is not a blanket refusal)."""
    accepted = checked = 0
    for number in range(40):
        state = _deal(number)
        while state.phase is not Phase.PLAY and state.phase is not Phase.SCORED:
            seat = actor(state)
            state = apply(state, BOT(seat_view(state, seat)), seat)
        if state.phase is not Phase.PLAY or state.declarer < 0 or state.contract is None:
            continue
        if state.contract.is_misere:
            continue
        trump = -1 if state.contract.trump is None else int(state.contract.trump)
        for tricks in range(5, 10):
            state = _played_to(state, tricks)
            if state.phase is not Phase.PLAY or actor(state) != state.declarer:
                continue
            claims = [a for a in legal_actions(state) if isinstance(a, Claim)]
            for claim in claims:
                if any(t for s, t in enumerate(claim.tricks) if s != state.declarer):
                    continue  # the declarer claims the rest
                after = apply(state, claim, state.declarer)
                answer = actor(after)
                checked += 1
                if claim_guaranteed(seat_view(after, answer)):
                    accepted += 1
                    need = claim.tricks[state.declarer]
                    hands = state.play.hands
                    assert takes_at_least(
                        hands, state.declarer, state.to_act, trump, need, 1_000_000
                    ), (number, tricks, claim)
    assert checked > 20 and accepted > 0, (checked, accepted)


def _forces(state: DealState, side: int, met: Callable[[tuple[int, ...]], bool]) -> bool:
    """Reference, by the rules engine over the real hands: can ``side`` (a mask of seats) make
    ``met`` true of the tricks taken from here, whatever the others play?"""
    if state.phase is not Phase.PLAY:
        assert state.result is not None
        return met(state.result.tricks)
    seat = actor(state)
    ours = bool(side >> seat & 1 or side >> state.to_act & 1)
    cards = [a for a in legal_actions(state) if isinstance(a, PlayCard)]
    outcomes = (_forces(apply(state, card, seat), side, met) for card in cards)
    return any(outcomes) if ours else all(outcomes)


def _goal(state: DealState, claim: Claim, claimant: int) -> tuple[int, Callable[..., bool]]:
    """The claimant's side and what it must force (``domain.bots.claims``), over the deal's
    final tricks."""
    before = state.play.tricks
    want = tuple(b + c for b, c in zip(before, claim.tricks, strict=True))
    declarer = state.declarer
    if declarer < 0:
        return 1 << claimant, lambda taken: taken == want
    if claimant == declarer:
        side = 1 << declarer
    else:
        side = sum(1 << s for s in range(len(before)) if s != declarer)
    assert state.contract is not None
    if state.contract.is_misere:
        if claimant == declarer:
            return side, lambda taken: taken[declarer] <= want[declarer]
        return side, lambda taken: taken[declarer] >= want[declarer]

    def total(tricks: tuple[int, ...]) -> int:
        return sum(t for s, t in enumerate(tricks) if side >> s & 1)

    return side, lambda taken: total(taken) >= total(want)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_rules_3_6_every_claim_a_bot_accepts_holds_at_every_table_size(players: int) -> None:
    """Soundness at two to five players (RULES.md §3.6), trick contracts, misère and raspasy:
    with three tricks left, each claim offered to the first seat asked, and every claim the bot
    accepts is checked against the rules engine playing out every line over the real hands."""
    rules = RuleSet(players=players)
    checked = accepted = 0
    for number in range(12):
        seed = hashlib.sha256(f"test-bot-claims/{players}/{number}".encode()).digest()
        shuffle = shuffle_from_seed(seed, 1)
        dealer = number % players
        state = new_deal(
            deal_cards(shuffle.order, dealer, shuffle.talon_pair, players=players), dealer, rules
        )
        while state.phase is not Phase.SCORED:
            seat = actor(state)
            if state.phase is Phase.PLAY and not state.play.trick and len(state.play.history) == 7:
                for claim in [a for a in legal_actions(state) if isinstance(a, Claim)]:
                    after = apply(state, claim, seat)
                    if after.phase is not Phase.CLAIM or after.claim is None:
                        continue
                    checked += 1
                    if claim_guaranteed(seat_view(after, actor(after))):
                        accepted += 1
                        side, met = _goal(state, claim, after.claim.claimant)
                        assert _forces(state, side, met), (players, number, claim)
            state = apply(state, BOT(seat_view(state, seat)), seat)
    assert checked > 20 and 0 < accepted < checked, (checked, accepted)
