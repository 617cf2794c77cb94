"""Whether a claim on the table is guaranteed, as the seat asked to accept it can tell.

A claim (RULES.md §6, "play on or agree the final result") proposes how the remaining tricks
fall, seat by seat. The answering bot accepts exactly when the claim is guaranteed to cost it
nothing: on every count it is scored on, no play of its own could force a better result than
the claim gives it, in any layout it cannot rule out. ``goals`` lists the counts:

* **A trick contract.** The declarer: the defenders together can hold him to his claimed
  tricks. A defender: the declarer can take his claimed tricks (the defenders pay for each
  trick he makes); and a whister, who is scored on his own tricks (RULES.md §1.7; two whisters
  each on his own, ``scoring.py``), can be held to his own claimed count by all the others
  together, so a claim cannot move his tricks to the other whister or to the declarer.
* **A misère.** The declarer: the defenders can force him to take his claimed tricks. A
  defender: the declarer can keep to his claimed tricks.
* **Raspasy.** The claimant can force every seat's exact claimed count (he plays his own hand;
  the others play anything), so no seat can take fewer. Claims in raspasy tricks 1 and 2, whose
  suit the talon sets, and in two players' raspasy are not checked: the bot rejects them.

A count is checked in the enumeration of the rest of the play:

* **Every layout.** The cards the answering seat cannot see (the other hidden hands, and the
  declarer's discard when it is not his) are dealt to the hidden hands in every way that fits
  what the view shows: each hand's number of cards; no card of a suit its holder has shown out
  of (a hand that did not follow suit; one that did not trump either is void in trumps); the
  talon turned up in a contract is the declarer's (in his hand or his discard), and a game
  without talon's talon is nobody's; a misère declarer who showed his twelve cards
  (``misere_shows_twelve``) holds only cards among them, the others none of them.
* **Every play.** In each layout the seats that must force the count pick their cards (they
  know the layout: a double-dummy search) and every other hand may play any legal card.
* **No search when the count decides.** A count that every outcome meets (at least 0 tricks,
  or at most all those left: a concession) is met without enumerating anything, so a
  concession is answered however many cards are unseen.
* **Pruning.** Equivalent cards (neighbours among the cards still out, in one hand) are tried
  once; positions at a trick's start are memoised per layout and count; the search stops at the
  first layout where a count fails. The work is bounded by ``NODE_LIMIT`` cards tried over all
  layouts (a count, not a clock): a claim whose check does not finish within it is rejected, so
  the bot never accepts a claim it has not proved.

The limit of "guaranteed": the seats forcing a count are taken to know the layout (they play
double-dummy in each layout separately). When that side is a claimant who cannot see every
card, a claim that needs him to guess the layout (a finesse either way) is taken to be made
good, since it is in every single layout; a human claimant may then fail to make it. Likewise
the answering seat itself, when it must force a count (its own tricks), is credited with
knowing the layout, which errs towards refusing.
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
    """Whether the claim pending in ``view`` is guaranteed to ``view.seat``: every check
    ``goals`` lists holds in every layout of the cards it cannot see, against every defence
    (the module text says exactly how)."""
    claim = view.claim
    if claim is None:
        return False
    raspasy = view.declarer < 0
    if raspasy and (len(view.history) < 2 or any(len(t.cards) != HANDS for t in view.history)):
        return False
    remaining = TRICKS - len(view.history)
    checks = [g for g in goals(view) if not g.trivial(remaining)]
    if not checks:
        return True
    contract = view.contract
    trump = -1
    if contract is not None and contract.strain is not None and contract.strain < 4:
        trump = int(contract.strain)
    leader = view.trick[0][0] if view.trick else view.leader
    trick = tuple(view.trick)
    search = _Search(seats_of(view), trump, len(view.hands), limit)
    try:
        for hands in layouts(view):
            for goal in checks:
                if not search.holds(goal, hands, trick, leader):
                    return False
    except _OutOfNodes:
        return False
    return True


def goals(view: SeatView) -> list[_Goal]:
    """What must be forced, and by whom, for the claim pending in ``view`` to cost
    ``view.seat`` nothing (the module text): one entry per count the answering seat is scored
    on. ``claim.tricks`` are the tricks still to be played, so are the counts checked."""
    claim = view.claim
    assert claim is not None
    want = tuple(claim.tricks)
    seats = seats_of(view)
    me, declarer = view.seat, view.declarer
    if declarer < 0:
        return [_Goal(side=1 << claim.claimant, counted=0, bound=0, exact=want)]
    defenders = sum(1 << s for s in seats if s != declarer)
    misere = view.contract is not None and view.contract.is_misere
    mine = want[declarer]
    if me == declarer:
        # The defenders must be able to force the declarer's count up to his claimed one
        # (a trick contract: he cannot take more; a misère: he cannot take fewer).
        if misere:
            return [_Goal(side=defenders, counted=1 << declarer, bound=mine, at_least=True)]
        return [_Goal(side=defenders, counted=1 << declarer, bound=mine, at_least=False)]
    if misere:
        return [_Goal(side=1 << declarer, counted=1 << declarer, bound=mine, at_least=False)]
    out = [_Goal(side=1 << declarer, counted=1 << declarer, bound=mine, at_least=True)]
    if me in view.whisters:
        # A whister is scored on his own tricks (RULES.md §1.7; two whisters each on his own):
        # the others together must be able to hold him to his claimed count.
        others = sum(1 << s for s in seats if s != me)
        out.append(_Goal(side=others, counted=1 << me, bound=want[me], at_least=False))
    return out


class _Goal:
    """One check: the seats of ``side`` (they choose their cards; the others play anything)
    must force the tricks taken by the seats of ``counted`` to be at least (``at_least``) or at
    most ``bound``; or, with ``exact``, every seat's tricks to be exactly those."""

    __slots__ = ("at_least", "bound", "counted", "exact", "side")

    def __init__(
        self,
        *,
        side: int,
        counted: int,
        bound: int,
        at_least: bool = True,
        exact: tuple[int, ...] | None = None,
    ) -> None:
        self.side = side
        self.counted = counted
        self.bound = bound
        self.at_least = at_least
        self.exact = exact

    def trivial(self, remaining: int) -> bool:
        """Whether every outcome of the ``remaining`` tricks meets it (a concession: at least
        0, or at most all of them), so that nothing needs searching."""
        if self.exact is not None:
            return False
        return self.bound <= 0 if self.at_least else self.bound >= remaining

    def met(self, taken: tuple[int, ...]) -> bool:
        """Whether the tricks taken in the rest of the play meet it."""
        if self.exact is not None:
            return taken == self.exact
        got = sum(t for s, t in enumerate(taken) if self.counted >> s & 1)
        return got >= self.bound if self.at_least else got <= self.bound


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
    talon = 0
    for t in view.talon:
        if t is not None:
            talon |= 1 << t
    if view.declarer < 0 or view.no_talon:
        seen |= talon  # raspasy: it led tricks 1 and 2; a game without talon: put aside
        talon = 0
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
    allowed = [unknown & ~_void_mask(voids[s]) & _may_hold(view, s, talon) for s in hidden]
    yield from _assign(base, hidden, sizes, allowed, unknown, 0)


def _may_hold(view: SeatView, seat: int, talon: int) -> int:
    """The cards hidden ``seat`` may hold as far as the open talon and the misère declarer's
    shown cards tell: the turned-up talon is the declarer's (in his hand or his discard), and
    the misère declarer's hand is within the twelve cards he showed (``view.shown``)."""
    if seat == view.declarer:
        return view.shown if view.shown else FULL
    return FULL & ~talon & ~(view.shown or 0)


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

    def __init__(self, seats: tuple[int, int, int], trump: int, players: int, limit: int) -> None:
        self.seats = seats
        self.trump = trump
        self.goal = _Goal(side=0, counted=0, bound=0)
        self.players = players
        self.limit = limit
        self.nodes = 0
        self.memo: dict[tuple[tuple[int, ...], int, tuple[int, ...]], bool] = {}

    def holds(
        self,
        goal: _Goal,
        hands: tuple[int, ...],
        trick: tuple[tuple[int, int], ...],
        leader: int,
    ) -> bool:
        """Whether ``goal`` can be forced in this layout, from the trick in progress."""
        self.goal = goal
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
