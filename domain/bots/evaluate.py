"""Hand evaluation: how many tricks a hand makes in each strain, and how safe it is on misère.

Everything works on the masks of the rules core (card = ``suit * 8 + rank``, rank 0 = seven …
7 = ace). Per-suit figures depend only on the 8-bit rank pattern of the hand and of the cards
known to be out of play (a discard), so they are cached.

* ``suit_tricks`` plays a suit out from the top against the two opponents, once with a
  defence that spends its lowest sufficient card and once with one that wins as cheaply as it
  can, and averages the two: ``A K Q`` is 3, ``K x`` is ½, a long suit earns its length once
  the opponents are out of it.
* ``strain_tricks`` adds the suits for one trump suit or no trump, with a discount for side
  suits the opponents can ruff, a little for ruffs of the declarer's own short suits, and a
  penalty in no trump for suits without a stopper.
* ``defence_tricks`` / ``sure_defence_tricks`` count what a defender's hand takes against a
  contract (rules of thumb: aces, guarded kings, trump honours and length).
* ``misere_danger`` counts the cards a misère declarer could be forced to win with: a card is
  safe when the opponents hold no more cards below it than the declarer does (7, 7-9, 7-9-J).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from domain.rules.bids import Bid, Strain

NO_TRUMP = 4
SUITS = (0, 1, 2, 3)
FULL = (1 << 32) - 1


def suit_bits(mask: int, suit: int) -> int:
    """The 8-bit rank pattern of ``mask`` in ``suit`` (bit 0 = seven, bit 7 = ace)."""
    return (mask >> (suit * 8)) & 0xFF


def ranks_desc(bits: int) -> list[int]:
    """The ranks of an 8-bit pattern, highest first."""
    return [r for r in range(7, -1, -1) if (bits >> r) & 1]


def _cash(mine: int, opp: int, cheap: bool) -> int:
    my = ranks_desc(mine)
    op = ranks_desc(opp)
    tricks = 0
    while my:
        if not op:
            return tricks + len(my)
        if my[0] > op[0]:
            tricks += 1
            my.pop(0)
            del op[-2:]
            continue
        target = my[-1] if cheap else my[0]
        my.pop()
        winner = max(i for i, r in enumerate(op) if r > target)
        op.pop(winner)
        if op:
            op.pop()
    return tricks


@cache
def suit_tricks(mine: int, out: int = 0) -> float:
    """Tricks the declarer takes in one suit he holds ``mine`` of (rank patterns);
    ``out`` are cards known to be out of play, the opponents hold the rest."""
    opp = 0xFF & ~mine & ~out
    return (_cash(mine, opp, True) + _cash(mine, opp, False)) / 2


@cache
def top_tricks(mine: int, out: int = 0) -> int:
    """Sure winners in a suit: the declarer's cards above every card the opponents hold."""
    opp = 0xFF & ~mine & ~out
    high = opp.bit_length() - 1
    return sum(1 for r in ranks_desc(mine) if r > high)


def _stopped(mine: int, out: int) -> bool:
    """True if the suit holds the opponents for at least one round (A, K x, Q x x, J x x x)."""
    n = mine.bit_count()
    opp = 0xFF & ~mine & ~out
    if not opp:
        return n > 0
    top = mine.bit_length() - 1
    above = sum(1 for r in ranks_desc(opp) if r > top)
    return n > 0 and n > above


class _Profile(NamedTuple):
    nt: float
    """Tricks in no trump, less 1.5 without a stopper."""
    trump: float
    """Tricks as the trump suit."""
    control: bool
    """As trumps: long enough, with enough top trumps to draw the opponents'."""
    ruff_room: float
    """As trumps: trumps that win no trick by themselves (may ruff a short suit)."""
    side_control: float
    """As a side suit when trumps are under control."""
    side_weak: float
    """As a side suit when the opponents may ruff its length."""
    short: int
    """Ruffing value as a side suit: 2 void, 1 singleton."""


@cache
def _profile(mine: int, out: int) -> _Profile:
    tricks = suit_tricks(mine, out)
    top = top_tricks(mine, out)
    n = mine.bit_count()
    opp = (0xFF & ~mine & ~out).bit_count()
    extra = tricks - top
    sure = min(top, 2)
    return _Profile(
        nt=tricks - (0.0 if _stopped(mine, out) else 1.5),
        trump=tricks,
        control=n >= 4 and top * 2 >= opp,
        ruff_room=n - tricks if n >= 3 else 0.0,
        side_control=top + extra,
        side_weak=sure + (top - sure) * 0.7 + extra * 0.5,
        short=max(0, 2 - n),
    )


def _combine(profiles: list[_Profile], strain: int) -> float:
    if strain == NO_TRUMP:
        total = sum(p.nt for p in profiles)
    else:
        trump = profiles[strain]
        total = trump.trump
        short = 0
        for s, p in enumerate(profiles):
            if s != strain:
                total += p.side_control if trump.control else p.side_weak
                short += p.short
        total += min(trump.ruff_room, 0.5 * short)
    return max(0.0, min(10.0, total))


def _profiles(hand: int, out: int) -> list[_Profile]:
    return [_profile((hand >> (s * 8)) & 0xFF, (out >> (s * 8)) & 0xFF) for s in SUITS]


def strain_tricks(hand: int, strain: int, out: int = 0) -> float:
    """Estimated tricks of a declarer holding ``hand`` in ``strain`` (0-3 a trump suit, 4 NT)."""
    return _combine(_profiles(hand, out), strain)


def all_strains(hand: int, out: int = 0) -> tuple[float, ...]:
    """``strain_tricks`` for ♠ ♣ ♦ ♥ NT (the same sums as ``_combine``, in one pass)."""
    p = _profiles(hand, out)
    control = p[0].side_control + p[1].side_control + p[2].side_control + p[3].side_control
    weak = p[0].side_weak + p[1].side_weak + p[2].side_weak + p[3].side_weak
    short = p[0].short + p[1].short + p[2].short + p[3].short
    out_values = []
    for trump in p:
        if trump.control:
            total = trump.trump + control - trump.side_control
        else:
            total = trump.trump + weak - trump.side_weak
        total += min(trump.ruff_room, 0.5 * (short - trump.short))
        out_values.append(max(0.0, min(10.0, total)))
    nt = p[0].nt + p[1].nt + p[2].nt + p[3].nt
    out_values.append(max(0.0, min(10.0, nt)))
    return tuple(out_values)


def required_level(strain: int, bid: Bid) -> int:
    """The lowest level at which ``strain`` may be declared over the winning ``bid``."""
    assert bid.strain is not None
    return bid.level if strain >= int(bid.strain) else bid.level + 1


def max_bid_index(estimates: tuple[float, ...], allowance: float) -> int:
    """The highest ladder index the hand supports (-1 if not even 6♠)."""
    best = -1
    for strain, est in enumerate(estimates):
        level = min(10, int(est + allowance + 1e-9))
        if level >= 6:
            best = max(best, Bid.ordinary(level, Strain(strain)).index)
    return best


# --- defence -----------------------------------------------------------------------------


def _defence_suit(bits: int, trump: bool, nt: bool) -> tuple[float, float]:
    """(expected, sure) tricks of a defender's holding in one suit."""
    n = bits.bit_count()
    ace, king, queen, jack = (bits >> 7) & 1, (bits >> 6) & 1, (bits >> 5) & 1, (bits >> 4) & 1
    exp = sure = 0.0
    if trump:
        exp += ace + (0.75 if king and n >= 2 else 0.25 * king)
        exp += 0.5 if queen and n >= 3 else 0.0
        exp += 0.25 if jack and n >= 4 else 0.0
        exp += 0.5 * max(0, n - 3)
        sure += ace + (1.0 if king and (ace or n >= 3) else 0.0)
        return exp, sure
    if ace:
        exp += 1.0 if n <= 4 or nt else 0.5
        sure += 1.0 if n <= 4 or nt else 0.0
    if king:
        if ace:
            exp += 0.75 if n <= 3 or nt else 0.25
        elif n >= 2:
            exp += 0.5
    if queen and king and not ace and n >= 3:
        exp += 0.25
    if nt and n >= 5 and (ace or king):
        exp += 0.5 * (n - 4)
    return exp, sure


def defence_tricks(hand: int, contract: Bid) -> tuple[float, float]:
    """(expected, sure) tricks a defender's ``hand`` takes against a trick ``contract``."""
    strain = NO_TRUMP if contract.strain is None else int(contract.strain)
    exp = sure = 0.0
    for s in SUITS:
        e, u = _defence_suit(suit_bits(hand, s), s == strain, strain == NO_TRUMP)
        exp += e
        sure += u
    return exp, sure


# --- misère ------------------------------------------------------------------------------


@cache
def suit_danger(mine: int, out: int = 0) -> int:
    """How exposed a misère suit is: for each card, the opponents' cards below it beyond
    the declarer's own cards below it (0 = a clean suit such as 7, 7-9, 7-9-J)."""
    opp = 0xFF & ~mine & ~out
    danger = 0
    mine_below = opp_below = 0
    for r in range(8):
        if (mine >> r) & 1:
            danger += max(0, opp_below - mine_below)
            mine_below += 1
        elif (opp >> r) & 1:
            opp_below += 1
    return danger


def misere_danger(hand: int, out: int = 0) -> int:
    """Total misère exposure of a hand (see ``suit_danger``)."""
    return sum(suit_danger(suit_bits(hand, s), suit_bits(out, s)) for s in SUITS)


def card_danger(hand: int, card: int, out: int = 0) -> int:
    """How much the misère exposure drops if ``card`` leaves ``hand`` (higher = shed first)."""
    s = card >> 3
    before = suit_danger(suit_bits(hand, s), suit_bits(out, s))
    after = suit_danger(suit_bits(hand & ~(1 << card), s), suit_bits(out | (1 << card), s))
    return before - after
