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


def strain_tricks(hand: int, strain: int, out: int = 0) -> float:
    """Estimated tricks of a declarer holding ``hand`` in ``strain`` (0-3 a trump suit, 4 NT)."""
    if strain == NO_TRUMP:
        total = 0.0
        for s in SUITS:
            mine, gone = suit_bits(hand, s), suit_bits(out, s)
            total += suit_tricks(mine, gone)
            if not _stopped(mine, gone):
                total -= 1.5
        return max(0.0, min(10.0, total))
    trumps, gone = suit_bits(hand, strain), suit_bits(out, strain)
    trump_len = trumps.bit_count()
    trump_tricks = suit_tricks(trumps, gone)
    opp_trumps = (0xFF & ~trumps & ~gone).bit_count()
    control = trump_len >= 4 and top_tricks(trumps, gone) * 2 >= opp_trumps
    total = trump_tricks
    short = 0
    for s in SUITS:
        if s == strain:
            continue
        mine, side_out = suit_bits(hand, s), suit_bits(out, s)
        top = top_tricks(mine, side_out)
        extra = suit_tricks(mine, side_out) - top
        total += min(top, 2) + (top - min(top, 2)) * (1.0 if control else 0.7)
        total += extra * (1.0 if control else 0.5)
        short += max(0, 2 - mine.bit_count())
    total += min(trump_len - trump_tricks, 0.5 * short) if trump_len >= 3 else 0.0
    return max(0.0, min(10.0, total))


def all_strains(hand: int, out: int = 0) -> tuple[float, ...]:
    """``strain_tricks`` for ♠ ♣ ♦ ♥ NT."""
    return tuple(strain_tricks(hand, s, out) for s in range(5))


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
