"""Whether a claim on the table is guaranteed, as the seat asked to accept it can tell.

A claim (RULES.md §6, "play on or agree the final result") proposes how the remaining tricks
fall. The bot accepts exactly when the claim is guaranteed, checked by enumerating the rest of
the play:

* **Every layout.** The cards the answering seat cannot see (the other hidden hands, and the
  declarer's discard when it is not his) are dealt to the hidden hands in every way that fits
  what the view shows: each hand's number of cards, and no card of a suit its holder has shown
  out of (a hand that did not follow suit; one that did not trump either is void in trumps).
* **Every defence.** In each layout the claimant's side picks its cards (it knows the layout:
  a double-dummy search) and every other hand may play any legal card. The claim holds in a
  layout when the claimant's side can force it:

  - a trick contract: the claimant's side (the declarer alone, or the defenders together)
    takes at least the tricks the claim gives that side;
  - a misère: the declarer takes at most (his claim) or at least (a defender's claim) the
    tricks the claim gives the declarer;
  - raspasy: every seat takes exactly the claimed tricks (the claimant plays his own hand; the
    others play anything). Claims in raspasy tricks 1 and 2, whose suit the talon sets, and in
    two players' raspasy are not checked: the bot rejects them.

* **Pruning.** Equivalent cards (neighbours among the cards still out, in one hand) are tried
  once; positions at a trick's start are memoised per layout; the search stops at the first
  layout where the claim fails. The work is bounded by ``NODE_LIMIT`` cards tried over all
  layouts (a count, not a clock): a claim whose check does not finish within it is rejected, so
  the bot never accepts a claim it has not proved.

The double-dummy choice is the one simplification: a claimant who would have to guess the
layout (a finesse either way) is taken to guess right, since he does in every single layout.
"""

from __future__ import annotations

from collections.abc import Iterator

from domain.bots.knowledge import FULL, seats_of
from domain.rules.cards import SUIT_MASKS
from domain.rules.seats import HANDS
from domain.rules.view import SeatView

NODE_LIMIT = 200_000
"""The most cards the check may try over all layouts (deterministic, not a clock)."""

TRICKS = 10


class _OutOfNodes(Exception):
    pass


def claim_guaranteed(view: SeatView, limit: int = NODE_LIMIT) -> bool:
    """Whether the claim pending in ``view`` holds in every layout of the cards ``view.seat``
    cannot see, against every defence (the module text says exactly how)."""
    claim = view.claim
    if claim is None:
        return False
    seats = seats_of(view)
    raspasy = view.declarer < 0
    if raspasy and (len(view.history) < 2 or any(len(t.cards) != HANDS for t in view.history)):
        return False
    contract = view.contract
    trump = -1
    if contract is not None and contract.strain is not None and contract.strain < 4:
        trump = int(contract.strain)
    misere = contract is not None and contract.is_misere
    claimant = claim.claimant
    players = len(view.hands)
    if raspasy:
        side = 1 << claimant
    elif claimant == view.declarer:
        side = 1 << view.declarer
    else:
        side = sum(1 << s for s in seats if s != view.declarer)
    goal = _Goal(
        raspasy=raspasy,
        misere=misere,
        declarer=view.declarer,
        by_declarer=claimant == view.declarer,
        side=side,
        claim=tuple(claim.tricks),
    )
    leader = view.trick[0][0] if view.trick else view.leader
    trick = tuple(view.trick)
    search = _Search(seats, trump, goal, players, limit)
    try:
        for hands in layouts(view):
            if not search.holds(hands, trick, leader):
                return False
    except _OutOfNodes:
        return False
    return True


class _Goal:
    """What the claimant's side must force (see the module text)."""

    __slots__ = ("by_declarer", "claim", "declarer", "misere", "raspasy", "side")

    def __init__(
        self,
        *,
        raspasy: bool,
        misere: bool,
        declarer: int,
        by_declarer: bool,
        side: int,
        claim: tuple[int, ...],
    ) -> None:
        self.raspasy = raspasy
        self.misere = misere
        self.declarer = declarer
        self.by_declarer = by_declarer
        self.side = side
        self.claim = claim

    def met(self, taken: tuple[int, ...]) -> bool:
        """Whether the tricks taken in the rest of the play meet the claim."""
        if self.raspasy:
            return taken == self.claim
        if self.misere:
            mine, claimed = taken[self.declarer], self.claim[self.declarer]
            return mine <= claimed if self.by_declarer else mine >= claimed
        got = sum(t for s, t in enumerate(taken) if self.side >> s & 1)
        return got >= sum(t for s, t in enumerate(self.claim) if self.side >> s & 1)


def _cards_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _void_mask(voids: int) -> int:
    return sum(SUIT_MASKS[suit] for suit in range(4) if voids >> suit & 1)


def layouts(view: SeatView) -> Iterator[tuple[int, ...]]:
    """Every assignment of the cards ``view.seat`` cannot see to the hidden hands that fits
    the view (hand sizes, shown voids): tuples of every seat's cards now."""
    seats = seats_of(view)
    seen = 0
    for hand in view.hands:
        if hand is not None:
            seen |= hand
    if view.discard is not None:
        seen |= view.discard
    for t in view.talon:
        if t is not None and view.declarer < 0:
            seen |= 1 << t
    voids = [0] * len(view.hands)
    played = [0] * len(view.hands)
    for number, trick in enumerate(view.history):
        led = _led(view, number, trick.cards)
        for who, card in trick.cards:
            seen |= 1 << card
            played[who] += 1
            if card >> 3 != led:
                voids[who] |= _shown_out(view, led, card)
    led = _led(view, len(view.history), view.trick) if view.trick else -1
    for who, card in view.trick:
        seen |= 1 << card
        played[who] += 1
        if card >> 3 != led:
            voids[who] |= _shown_out(view, led, card)
    unknown = FULL & ~seen
    hidden = [s for s in seats if view.hands[s] is None]
    sizes = [TRICKS - played[s] for s in hidden]
    base = [h or 0 for h in view.hands]
    allowed = [unknown & ~_void_mask(voids[s]) for s in hidden]
    yield from _assign(base, hidden, sizes, allowed, unknown, 0)


def _shown_out(view: SeatView, led: int, card: int) -> int:
    """The suits a hand shows it lacks by playing ``card`` to a trick led in ``led``: the led
    suit, and trumps too when it did not trump in a trump contract."""
    out = 1 << led
    contract = view.contract
    if contract is not None and contract.strain is not None and contract.strain < 4:
        trump = int(contract.strain)
        if card >> 3 != trump:
            out |= 1 << trump
    return out


def _assign(
    base: list[int],
    hidden: list[int],
    sizes: list[int],
    allowed: list[int],
    pool: int,
    index: int,
) -> Iterator[tuple[int, ...]]:
    if index == len(hidden):
        yield tuple(base)
        return
    seat, size = hidden[index], sizes[index]
    rest = sum(sizes[index + 1 :])
    for chosen in _choose(_cards_of(pool & allowed[index]), size):
        left = pool & ~chosen
        if left.bit_count() < rest:
            continue
        base[seat] = chosen
        yield from _assign(base, hidden, sizes, allowed, left, index + 1)
    base[seat] = 0


def _choose(cards: list[int], size: int) -> Iterator[int]:
    """Every mask of ``size`` of ``cards``."""
    if size == 0:
        yield 0
        return
    if len(cards) < size:
        return
    first, rest = cards[0], cards[1:]
    for mask in _choose(rest, size - 1):
        yield mask | 1 << first
    yield from _choose(rest, size)


def _led(view: SeatView, number: int, played: tuple[tuple[int, int], ...]) -> int:
    if view.declarer < 0 and number < 2:
        talon = view.talon[number]
        if talon is not None:
            return talon >> 3
    return played[0][1] >> 3 if played else -1


class _Search:
    """The double-dummy search of one layout after another (the node count is shared)."""

    def __init__(
        self, seats: tuple[int, int, int], trump: int, goal: _Goal, players: int, limit: int
    ) -> None:
        self.seats = seats
        self.trump = trump
        self.goal = goal
        self.players = players
        self.limit = limit
        self.nodes = 0
        self.memo: dict[tuple[tuple[int, ...], int, tuple[int, ...]], bool] = {}

    def holds(
        self, hands: tuple[int, ...], trick: tuple[tuple[int, int], ...], leader: int
    ) -> bool:
        """Whether the claim holds in this layout, from the trick in progress."""
        self.memo = {}
        return self._play(hands, trick, leader, (0,) * self.players)

    def _next(self, seat: int) -> int:
        return self.seats[(self.seats.index(seat) + 1) % HANDS]

    def _options(self, hand: int, led: int) -> int:
        if led >= 0 and hand & SUIT_MASKS[led]:
            return hand & SUIT_MASKS[led]
        if led >= 0 and self.trump >= 0 and hand & SUIT_MASKS[self.trump]:
            return hand & SUIT_MASKS[self.trump]
        return hand

    def _winner(self, trick: tuple[tuple[int, int], ...]) -> int:
        led = trick[0][1] >> 3
        best_seat, best_key = trick[0][0], -1
        for seat, card in trick:
            suit = card >> 3
            key = 100 + card if suit == self.trump else card if suit == led else -1
            if key > best_key:
                best_seat, best_key = seat, key
        return best_seat

    def _play(
        self,
        hands: tuple[int, ...],
        trick: tuple[tuple[int, int], ...],
        leader: int,
        taken: tuple[int, ...],
    ) -> bool:
        if len(trick) == HANDS:
            winner = self._winner(trick)
            taken = (*taken[:winner], taken[winner] + 1, *taken[winner + 1 :])
            trick, leader = (), winner
        seat = self._next(trick[-1][0]) if trick else leader
        if not trick:
            if not hands[seat]:
                return self.goal.met(taken)
            key = (hands, leader, taken)
            known = self.memo.get(key)
            if known is not None:
                return known
        self.nodes += 1
        if self.nodes > self.limit:
            raise _OutOfNodes
        led = trick[0][1] >> 3 if trick else -1
        outstanding = 0
        for hand in hands:
            outstanding |= hand
        for _, played in trick:
            outstanding |= 1 << played
        ours = bool(self.goal.side >> seat & 1)
        result = not ours
        for card in _candidates(self._options(hands[seat], led), outstanding):
            after = (*hands[:seat], hands[seat] & ~(1 << card), *hands[seat + 1 :])
            if self._play(after, (*trick, (seat, card)), leader, taken) == ours:
                result = ours
                break
        if not trick:
            self.memo[(hands, leader, taken)] = result
        return result


def _candidates(cards: int, outstanding: int) -> list[int]:
    """The cards of ``cards``, high first, one of each run of equivalent ones: a card is skipped
    when the next lower card of its suit still in a hand is also a candidate (the two win and
    lose the same tricks)."""
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
