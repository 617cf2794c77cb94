"""The underbid penalty, "перезаклад" (RULES.md §3.1, TV-25; S000 «Конвенции», "Варианты
правил при вистовании"; S004 glossary).

S000: "if the whisters, having looked at the talon taker's cards, find that there is no layout
in which he takes fewer than he declared (the whisters proved that in any layout he takes more
tricks than declared), the game is not lawful: the declarer writes 2 to his gora (sometimes the
value of the game), the whisters write nothing, and the deal is dealt again."

How it is played here (decisions in docs/SYSTEMS.md):

* When a whisted trick contract has been played out (or settled by a claim), the deal does not
  end at once: it enters ``Phase.REVIEW``, every hand is laid face up (the declarer's cards are
  what the whisters examine), and each whister in whisting order either claims the underbid
  (``ClaimUnderbid``) or lets the result stand (``pass``). Nothing hidden is left to learn by
  a claim (the discard stays hidden, and the proof does not depend on it beyond the declarer's
  ten cards, all of which were played or lie open).
* The claim is offered (and accepted) only when the proof holds; otherwise only ``pass`` is
  legal, and a claim is refused and records nothing. The proof: from the first lead of the
  deal, with the declarer's ten cards after the discard and the defenders' actual hands, the
  declarer takes at least ``level + 1`` tricks
  against every defence, with his best play (a double-dummy search, exact over the actual
  hands). S000 asks "in any layout"; over the actual layout is a necessary condition of that
  and can be decided exactly in bounded time, while every layout (184 756 splits, each a
  search) cannot. The difference: a declarer whose extra trick depends on this very layout
  (a finesse that happens to work) is convicted here though S000 would not convict him. The
  search is bounded by ``NODE_LIMIT`` cards tried; a proof it cannot finish within it fails.
* A proved underbid makes the deal void (``Kind.UNDERBID``): the declarer writes the penalty
  (``RuleSet.underbid_penalty``: 2, or the contract's value) to his gora, nobody writes whists
  or pool, and the same dealer deals again (``game.finish_deal``).
"""

from __future__ import annotations

import functools

from domain.rules.actions import PASS, UNDERBID, Action, ClaimUnderbid, Pass
from domain.rules.cards import SUIT_MASKS
from domain.rules.errors import IllegalAction
from domain.rules.ruleset import Underbid
from domain.rules.seats import first_hand
from domain.rules.state import DealResult, DealState, Kind, Phase, Review

NODE_LIMIT = 300_000
"""The most cards the proof may try (a deterministic bound on its work, not a clock): about
two seconds of one core at worst; over bot deals about 1 proof in 30 needs more, and then
fails (measured in docs/SYSTEMS.md's notes)."""

CLAIMABLE: tuple[Action, ...] = (UNDERBID, PASS)
STANDS: tuple[Action, ...] = (PASS,)


def legal(state: DealState) -> tuple[Action, ...]:
    """Claim or pass where the underbid is proved; otherwise only pass. Every card that decides
    it lies open by now, so the list reveals nothing hidden."""
    assert state.review is not None
    return CLAIMABLE if state.review.proven else STANDS


def reviewable(state: DealState, kind: Kind) -> bool:
    """Whether this finished deal goes to the underbid review (whisted trick contracts only)."""
    return (
        kind is Kind.GAME
        and state.rules.underbid_penalty is not Underbid.NONE
        and bool(state.whist.whisters)
    )


def start_review(state: DealState, result: DealResult) -> DealState:
    """Lay every hand face up and ask the first whister."""
    everyone = (1 << state.players) - 1
    return state.with_(
        phase=Phase.REVIEW,
        to_act=state.whist.whisters[0],
        open_hands=everyone,
        review=Review(result, proven(state)),
    )


def apply(state: DealState, action: Action) -> DealState:
    assert state.review is not None
    result = state.review.result
    if isinstance(action, ClaimUnderbid):
        if not state.review.proven:
            assert state.contract is not None
            raise IllegalAction(
                f"no underbid: the declarer's cards do not take {state.contract.level + 1} "
                "tricks against every defence; pass to let the result stand",
                STANDS,
            )
        void = result._replace(kind=Kind.UNDERBID)
        return state.with_(phase=Phase.SCORED, to_act=-1, result=void, review=None)
    if not isinstance(action, Pass):
        raise IllegalAction("claim the underbid or pass", legal(state))
    whisters = state.whist.whisters
    nxt = whisters.index(state.to_act) + 1
    if nxt < len(whisters):
        return state.with_(to_act=whisters[nxt])
    return state.with_(phase=Phase.SCORED, to_act=-1, result=result, review=None)


def start_hands(state: DealState) -> tuple[int, ...]:
    """Each seat's ten cards at the first lead: as dealt, the declarer's with the talon and
    without the discard."""
    talon = (1 << state.talon[0]) | (1 << state.talon[1])
    return tuple(
        (hand | talon) & ~state.discard if seat == state.declarer else hand
        for seat, hand in enumerate(state.dealt)
    )


def proven(state: DealState) -> bool:
    """Whether the declarer takes at least one trick more than his contract against every
    defence, over the actual hands from the first lead (see the module text)."""
    contract = state.contract
    assert contract is not None and contract.strain is not None
    trump = -1 if contract.trump is None else int(contract.trump)
    lead = first_hand(state.dealer, state.players)
    return takes_at_least(
        start_hands(state), state.declarer, lead, trump, contract.level + 1, NODE_LIMIT
    )


class _OutOfNodes(Exception):
    pass


@functools.lru_cache(maxsize=1024)
def takes_at_least(
    hands: tuple[int, ...], declarer: int, leader: int, trump: int, need: int, limit: int
) -> bool:
    """Double-dummy: can ``declarer`` take ``need`` tricks of the remaining ones against every
    defence, ``leader`` to lead? Pure, so its verdicts are kept (LRU): a game replayed from its
    events (a cold load, an audit, a hand record) does not search each reviewed deal again.
    ``False`` also when the search would try over ``limit`` cards.
    Follow suit; if void, trump if possible (``trump`` -1: no trump); otherwise any card."""
    players = len(hands)
    bounds: dict[tuple[tuple[int, ...], int], tuple[int, int]] = {}
    """Per position (hands, leader): tricks the declarer surely gets, and at most gets."""
    count = [0]

    def options(hand: int, others: int, led: int) -> list[int]:
        if led >= 0 and hand & SUIT_MASKS[led]:
            pool = hand & SUIT_MASKS[led]
        elif led >= 0 and trump >= 0 and hand & SUIT_MASKS[trump]:
            pool = hand & SUIT_MASKS[trump]
        else:
            pool = hand
        out = []
        while pool:
            low = pool & -pool
            card = low.bit_length() - 1
            pool ^= low
            # Skip a card whose next lower outstanding card of its suit is also in this hand:
            # the two are equivalent.
            below = (hand | others) & SUIT_MASKS[card >> 3] & (low - 1)
            if below and (hand >> (below.bit_length() - 1)) & 1:
                continue
            out.append(card)
        out.reverse()  # high cards first: the cut-offs come sooner
        return out

    def winner(cards: list[tuple[int, int]]) -> int:
        led = cards[0][1] >> 3
        best_seat, best_key = cards[0][0], -1
        for seat, card in cards:
            suit = card >> 3
            key = 100 + card if suit == trump else card if suit == led else -1
            if key > best_key:
                best_seat, best_key = seat, key
        return best_seat

    def solve(hs: tuple[int, ...], lead: int, need: int) -> bool:
        left = hs[0].bit_count()
        if need <= 0:
            return True
        if need > left:
            return False
        key = (hs, lead)
        low, high = bounds.get(key, (0, left))
        if need <= low:
            return True
        if need > high:
            return False
        value = trick(hs, lead, need, [])
        bounds[key] = (need, high) if value else (low, need - 1)
        return value

    def trick(hs: tuple[int, ...], lead: int, need: int, played: list[tuple[int, int]]) -> bool:
        if len(played) == players:
            w = winner(played)
            return solve(hs, w, need - (1 if w == declarer else 0))
        seat = (lead + len(played)) % players
        led = played[0][1] >> 3 if played else -1
        others = 0  # every other card still in play, the cards on the table included
        for _, card in played:
            others |= 1 << card
        for s in range(players):
            if s != seat:
                others |= hs[s]
        mine = seat == declarer
        count[0] += 1
        if count[0] > limit:
            raise _OutOfNodes
        for card in options(hs[seat], others, led):
            nxt = (*hs[:seat], hs[seat] & ~(1 << card), *hs[seat + 1 :])
            value = trick(nxt, lead, need, [*played, (seat, card)])
            if value == mine:
                return value
        return not mine

    try:
        return solve(tuple(hands), leader, need)
    except _OutOfNodes:
        return False
