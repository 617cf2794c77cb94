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
  legal, and a claim is refused and records nothing. The proof is S000's, exactly: from the
  first lead of the deal, with the declarer's ten cards after the discard, the declarer has a
  way of playing that takes at least ``level + 1`` tricks in every layout of the defenders'
  twenty cards against every defence (``guaranteed``). It is one search, not one per layout
  (184 756 splits): the defence places its cards as it plays, keeping a split that fits what
  it has shown (each defender ten cards, none of a suit he showed out of), which is as strong
  as the worst layout for each line of the declarer's, while the declarer sees what he sees at
  the table. A declarer whose extra trick depends on this very layout (a finesse that happens
  to work, a king that happens to fall) is therefore not convicted. The search is bounded by
  ``NODE_LIMIT`` cards tried; a proof it cannot finish within it fails (a claim the defence
  cannot prove is refused, as at the table).
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
    return state.with_(
        phase=Phase.REVIEW,
        to_act=state.whist.whisters[0],
        open_hands=state.active,
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
    """Whether the declarer takes at least one trick more than his contract in any layout of
    the defenders' cards, from the first lead (see the module text)."""
    contract = state.contract
    assert contract is not None and contract.strain is not None
    trump = -1 if contract.trump is None else int(contract.trump)
    hands = start_hands(state)
    pool = 0
    for seat, hand in enumerate(hands):
        if seat != state.declarer:
            pool |= hand
    # The search numbers the three hands 0, 1, 2 from H1 (the sitters of a 4- or 5-player
    # deal hold no cards): the declarer is the hand he holds, H1 leads.
    local = state.hand_seats.index(state.declarer)
    return guaranteed(hands[state.declarer], pool, local, 0, trump, contract.level + 1, NODE_LIMIT)


class _OutOfNodes(Exception):
    pass


_SUIT_OF_VOIDS = tuple(
    sum(SUIT_MASKS[suit] for suit in range(4) if voids >> suit & 1) for voids in range(16)
)
"""The cards of the suits a 4-bit void set names."""


@functools.lru_cache(maxsize=1024)
def guaranteed(
    declarer_hand: int, pool: int, declarer: int, leader: int, trump: int, need: int, limit: int
) -> bool:
    """Can the declarer take ``need`` tricks in every layout of the defenders' cards, with one
    way of playing that does not know the layout? The defenders' cards are ``pool``, split
    evenly between the two defenders in a way nobody fixes in advance: each card a defender
    plays is his if a split consistent with the play so far gives it to him, and a defender who
    does not follow suit (or, void, does not trump) is void in it from then on. The defence
    chooses the split as it plays, so it is as strong as the worst layout for every line of
    the declarer's; and the declarer sees only what he would see at the table (his cards, the
    defenders' cards as a set, the play), so a line that wins here wins in every layout.
    ``False`` also when the search would try over ``limit`` cards. Pure, so its verdicts are
    kept (LRU): a game replayed from its events (a cold load, an audit, a hand record) does
    not search each reviewed deal again."""
    players = 3
    defenders = tuple(s for s in range(players) if s != declarer)
    bounds: dict[tuple[int, int, tuple[int, ...], int], tuple[int, int]] = {}
    count = [0]

    def feasible(pool: int, voids: tuple[int, ...], caps: tuple[int, ...]) -> bool:
        """A split of ``pool`` giving each defender his ``caps`` cards, none of a void suit."""
        a, b = defenders
        va, vb = _SUIT_OF_VOIDS[voids[a]], _SUIT_OF_VOIDS[voids[b]]
        if pool & va & vb:
            return False
        return (pool & va).bit_count() <= caps[b] and (pool & vb).bit_count() <= caps[a]

    def declarer_options(hand: int, led: int) -> int:
        if led >= 0 and hand & SUIT_MASKS[led]:
            return hand & SUIT_MASKS[led]
        if led >= 0 and trump >= 0 and hand & SUIT_MASKS[trump]:
            return hand & SUIT_MASKS[trump]
        return hand

    def defender_options(
        pool: int,
        voids: tuple[int, ...],
        caps: tuple[int, ...],
        seat: int,
        led: int,
        outstanding: int,
    ) -> list[tuple[int, int]]:
        """(cards, voids after) the defender on turn may play: following suit, or showing out
        (then trumping, or showing out of trumps too), each only if a split still fits."""
        mine = voids[seat]
        steps: list[tuple[int, int]] = []
        if led < 0:
            steps.append((pool & ~_SUIT_OF_VOIDS[mine], mine))
        else:
            if not mine >> led & 1:
                steps.append((pool & SUIT_MASKS[led], mine))
            out = mine | 1 << led
            if trump >= 0 and trump != led and not out >> trump & 1:
                steps.append((pool & SUIT_MASKS[trump], out))
                out |= 1 << trump
            steps.append((pool & ~_SUIT_OF_VOIDS[out], out))
        found = []
        for cands, after in steps:
            if not cands:
                continue
            new_voids = (*voids[:seat], after, *voids[seat + 1 :])
            new_caps = (*caps[:seat], caps[seat] - 1, *caps[seat + 1 :])
            for card in _candidates(cands, outstanding):
                if feasible(pool & ~(1 << card), new_voids, new_caps):
                    found.append((card, after))
        return found

    def winner(cards: list[tuple[int, int]]) -> int:
        led = cards[0][1] >> 3
        best_seat, best_key = cards[0][0], -1
        for seat, card in cards:
            suit = card >> 3
            key = 100 + card if suit == trump else card if suit == led else -1
            if key > best_key:
                best_seat, best_key = seat, key
        return best_seat

    def solve(hand: int, pool: int, voids: tuple[int, ...], lead: int, need: int) -> bool:
        left = hand.bit_count()
        if need <= 0:
            return True
        if need > left:
            return False
        key = (hand, pool, voids, lead)
        low, high = bounds.get(key, (0, left))
        if need <= low:
            return True
        if need > high:
            return False
        caps = tuple(0 if s == declarer else left for s in range(players))
        value = trick(hand, pool, voids, caps, lead, need, [])
        bounds[key] = (need, high) if value else (low, need - 1)
        return value

    def trick(
        hand: int,
        pool: int,
        voids: tuple[int, ...],
        caps: tuple[int, ...],
        lead: int,
        need: int,
        played: list[tuple[int, int]],
    ) -> bool:
        if len(played) == players:
            w = winner(played)
            return solve(hand, pool, voids, w, need - (1 if w == declarer else 0))
        seat = (lead + len(played)) % players
        led = played[0][1] >> 3 if played else -1
        count[0] += 1
        if count[0] > limit:
            raise _OutOfNodes
        outstanding = hand | pool
        for _, card in played:
            outstanding |= 1 << card
        if seat == declarer:
            for card in _candidates(declarer_options(hand, led), outstanding):
                if trick(
                    hand & ~(1 << card), pool, voids, caps, lead, need, [*played, (seat, card)]
                ):
                    return True
            return False
        new_caps = (*caps[:seat], caps[seat] - 1, *caps[seat + 1 :])
        for card, after in defender_options(pool, voids, caps, seat, led, outstanding):
            new_voids = (*voids[:seat], after, *voids[seat + 1 :])
            if not trick(
                hand, pool & ~(1 << card), new_voids, new_caps, lead, need, [*played, (seat, card)]
            ):
                return False
        return True

    try:
        return solve(declarer_hand, pool, (0, 0, 0), leader, need)
    except _OutOfNodes:
        return False


def _candidates(cards: int, outstanding: int) -> list[int]:
    """The cards of ``cards``, high first (the cut-offs come sooner), one of each run of
    equivalent ones: a card is skipped when the next lower card of its suit still out
    (``outstanding``) is also a candidate, as the two win and lose the same tricks."""
    out = []
    pool = cards
    while pool:
        low = pool & -pool
        card = low.bit_length() - 1
        pool ^= low
        below = outstanding & SUIT_MASKS[card >> 3] & (low - 1)
        if below and cards >> (below.bit_length() - 1) & 1:
            continue
        out.append(card)
    out.reverse()
    return out
