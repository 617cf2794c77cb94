"""Bots answer a claim (RULES.md §6, "play on or agree the final result") by enumerating the
remaining play: they accept exactly when the claim is guaranteed to cost them nothing on any
count they are scored on, in every layout of the cards they cannot see, against every play
(``domain.bots.claims``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from itertools import islice

import pytest

from domain.bots import make_bot
from domain.bots.claims import claim_guaranteed, layouts
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
from tests.unit.rules_helpers import A, B, C, act, cards, deal, won_by_a

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


def test_a_concession_the_claimant_cannot_lose_is_accepted_without_a_search() -> None:
    # B, to lead with ♠K J 9 against A's three trumps, concedes the rest to A. A accepts with
    # nothing to search (no node may be tried: limit 0). C refuses: he is scored on the
    # declarer's tricks and cannot see that A holds the last trumps (they might lie in A's
    # discard), so the concession is not guaranteed to cost him nothing.
    state = _seven_tricks()
    conceded = apply(state, Claim((3, 0, 0)), B)
    assert actor(conceded) == C and BOT(seat_view(conceded, C)) == REJECT
    assert claim_guaranteed(seat_view(conceded, A), limit=0)


def test_a_declarer_conceding_five_tricks_is_accepted_however_many_cards_are_unseen() -> None:
    # Five tricks left, A concedes them all to B: B takes 0 more to A and 5 himself, the best
    # he could have; the check proves it from the counts alone (limit 0: no card is tried),
    # where enumerating every layout would run out of nodes (the reviewer's rev-a, item 3a).
    state = _played_to(act(won_by_a("declare 7♥"), "whist", "whist"), 5)
    assert actor(state) == A
    claimed = apply(state, Claim((0, 5, 0)), A)
    assert actor(claimed) == B
    assert claim_guaranteed(seat_view(claimed, B), limit=0)
    assert BOT(seat_view(claimed, B)) == ACCEPT


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


def _goals(
    state: DealState, claim: Claim, claimant: int, answerer: int, whisters: tuple[int, ...]
) -> list[tuple[int, Callable[..., bool]]]:
    """What must be forced, and by which seats, for the claim to cost ``answerer`` nothing
    (``domain.bots.claims``), over the deal's final tricks: raspasy, the claimant plays every
    seat's count exactly; the declarer's count against his opponents (a trick contract: at least
    it by the declarer, at most it by the defenders; a misère the other way round); and a
    whister's own count, which he is scored on (``scoring.py``: ``tricks[w1]``, ``tricks[w2]``),
    at most it by all the others together."""
    before = state.play.tricks
    want = tuple(b + c for b, c in zip(before, claim.tricks, strict=True))
    declarer = state.declarer
    if declarer < 0:
        return [(1 << claimant, lambda taken: taken == want)]
    seats = list(range(len(before)))
    defenders = sum(1 << s for s in seats if s != declarer)
    assert state.contract is not None
    d = want[declarer]
    if state.contract.is_misere:
        if answerer == declarer:
            return [(defenders, lambda taken: taken[declarer] >= d)]
        return [(1 << declarer, lambda taken: taken[declarer] <= d)]
    if answerer == declarer:
        return [(defenders, lambda taken: taken[declarer] <= d)]
    out = [(1 << declarer, lambda taken: taken[declarer] >= d)]
    if answerer in whisters:
        others = sum(1 << s for s in seats if s != answerer)
        out.append((others, lambda taken: taken[answerer] <= want[answerer]))
    return out


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
                    answerer = actor(after)
                    if claim_guaranteed(seat_view(after, answerer)):
                        accepted += 1
                        for side, met in _goals(state, claim, seat, answerer, state.whist.whisters):
                            assert _forces(state, side, met), (players, number, claim)
            state = apply(state, BOT(seat_view(state, seat)), seat)
    assert checked > 20 and 0 < accepted < checked, (checked, accepted)


def _both_whist(number: int, tricks: int) -> DealState:
    """Deal ``rev-a/<number>`` (the reviewer's seeds), the bots bidding and playing, both
    defenders whisting, played to ``tricks`` tricks."""
    seed = hashlib.sha256(f"rev-a/{number}".encode()).digest()
    shuffle = shuffle_from_seed(seed, 1)
    state = new_deal(deal_cards(shuffle.order, number % 3, shuffle.talon_pair), number % 3)
    while state.phase is not Phase.SCORED and len(state.play.history) < tricks:
        seat = actor(state)
        move = BOT(seat_view(state, seat))
        if state.phase is Phase.WHISTING:
            whist = [a for a in legal_actions(state) if str(a) == "whist"]
            move = whist[0] if whist else move
        state = apply(state, move, seat)
    return state


def test_a_whister_refuses_a_claim_that_gives_his_sure_trick_to_his_partner() -> None:
    """Two whisters are scored each on his own tricks (``scoring.py``), so a claim's split
    between them matters. 6NT, both whisting, three tricks left: A (on lead) ♠Q ♣K ♥10;
    B ♠K J 10; C ♠9 ♣8 ♦K. Over the real hands B can force a trick with ♠K, so he refuses
    A's 0-0-3 (the bots accepted it before, checking only A's count). Each whister judges from
    his own seat: B cannot rule out a layout where he forces two tricks, so only 0-2-1 is
    sure to cost him nothing; C likewise accepts only the splits giving him two or three."""
    state = _both_whist(25, 7)
    assert state.play.hands == (cards("Qs Kc Th"), cards("Ts Js Ks"), cards("9s 8c Kd"))
    assert len(state.whist.whisters) == 2 and actor(state) == A
    assert _forces(state, 1 << B, lambda taken: taken[B] > state.play.tricks[B])
    answers = {}
    for split in ((0, 0, 3), (0, 1, 2), (0, 2, 1)):
        claimed = apply(state, Claim(split), A)
        answers[split] = tuple(claim_guaranteed(seat_view(claimed, seat)) for seat in (B, C))
    assert answers == {
        (0, 0, 3): (False, True),
        (0, 1, 2): (False, True),
        (0, 2, 1): (True, False),
    }


def test_every_claim_a_whister_accepts_leaves_him_no_more_to_force() -> None:
    """Soundness where the split between two whisters is scored: the declarer's claims with
    three tricks left, on deals where both defenders whist; every claim either defender accepts
    is checked against the rules engine over the real hands (``_goals``)."""
    checked = accepted = 0
    for number in range(40):
        state = _both_whist(number, 7)
        if (
            state.phase is not Phase.PLAY
            or len(state.whist.whisters) != 2
            or state.contract is None
            or state.contract.is_misere
        ):
            continue
        while state.phase is Phase.PLAY and actor(state) != state.declarer:
            seat = actor(state)
            state = apply(state, BOT(seat_view(state, seat)), seat)
        if state.phase is not Phase.PLAY:
            continue
        for claim in [a for a in legal_actions(state) if isinstance(a, Claim)]:
            after = apply(state, claim, state.declarer)
            for seat in state.whist.whisters:
                checked += 1
                if claim_guaranteed(seat_view(after, seat)):
                    accepted += 1
                    for side, met in _goals(
                        state, claim, state.declarer, seat, state.whist.whisters
                    ):
                        assert _forces(state, side, met), (number, claim, seat)
    assert checked > 20 and 0 < accepted < checked, (checked, accepted)


def test_a_defender_deals_the_turned_up_talon_only_to_the_declarer() -> None:
    """The talon, turned up for all in a trick contract, is in the declarer's hand or his
    discard: no layout B considers gives a talon card to C (the reviewer's rev-a item 3b, where
    such impossible layouts made guaranteed claims fail). ``SAMPLE``'s talon is ♦J ♥8."""
    state = _played_to(act(won_by_a("declare 7♥"), "whist", "whist"), 5)
    assert state.play.hands[A] == cards("Jd 7d Qh 8h 7h")
    view = seat_view(state, B)
    talon = cards("Jd 8h")
    assert view.hands[C] is None and None not in view.talon
    live = list(layouts(view))
    assert live and not any(layout[C] & talon for layout in live)
    assert any(layout[A] & talon for layout in live)  # ♦J ♥8, in A's hand or his discard


def test_a_misere_declarers_hand_is_within_the_twelve_cards_he_showed() -> None:
    """``misere_shows_twelve`` (RULES.md §3.1 "Misère card exposure"): the declarer's hand is
    within his shown cards and the others hold none of them, so no layout breaks that."""
    from tests.unit.test_classic_whisting import COMPLICATED

    rules = COMPLICATED.with_options(misere_shows_twelve=True)
    state = deal(
        "Ks 8s Kc 8c Kd 8d Kh 8h Qs Qc",
        "As 9s 7s Ac 9c 7c Ad 9d 7d Ah",
        "Js Ts Jc Tc Jd Td Qd Jh Th 9h",
        "Qh 7h",
        rules=rules,
    )
    state = act(state, "misère", "pass", "pass", "take talon", "discard Qs Qc", "declare misère")
    while state.phase is Phase.WHISTING:
        seat = actor(state)
        state = apply(state, BOT(seat_view(state, seat)), seat)
    assert state.phase is Phase.PLAY and not state.play.history
    view = seat_view(state, B)  # before the first trick C's hand is not open yet
    assert view.shown is not None and view.hands[A] is None and view.hands[C] is None
    live = list(islice(layouts(view), 1000))
    # A's ten cards are ten of the twelve shown (the other two his discard): 66 layouts
    assert len(live) == 66
    assert all(layout[A] & ~view.shown == 0 and layout[C] & view.shown == 0 for layout in live)
