"""Card play where tricks hurt: misère (declarer and defence) and raspasy.

Misère declarer: lead a card some defender must beat (the highest such card); follow with the
highest card that still loses; when over the trick anyway, the highest card a later defender is
forced to beat, else take it with the highest; when void, shed the most dangerous card.
Misère defence (the defending hands are open to each other): lead the lowest card of the suit
in which the declarer's possible cards all lie above the trick; keep the trick low while the
declarer is still to play; otherwise get rid of high cards and keep the low ones.
Raspasy: everyone ducks: the highest card that still loses, take a trick one cannot lose with
the highest card, lead where the others must go over, and shed high cards when void.
"""

from __future__ import annotations

from domain.bots.evaluate import card_danger
from domain.bots.knowledge import FULL, Table, cards, highest, lowest
from domain.rules.cards import SUIT_MASKS


def _below(card: int) -> int:
    """Cards of ``card``'s suit below it."""
    return SUIT_MASKS[card >> 3] & ((1 << card) - 1)


def _above(card: int) -> int:
    """Cards of ``card``'s suit above it."""
    return SUIT_MASKS[card >> 3] & ~((2 << card) - 1)


def _others(table: Table) -> list[int]:
    return list(table.others())


def _shed(table: Table, legal: int, opponents: int) -> int:
    """The most dangerous card to throw away when void (ties: the highest)."""
    out = FULL & ~table.hand & ~opponents
    return max(cards(legal), key=lambda c: (card_danger(table.hand, c, out), c & 7, c))


def _under_or_top(table: Table, held: int) -> int:
    """Follow below the winning card if possible, else take with the highest card."""
    best = table.best_key
    under = held & ((1 << best) - 1) if best >= 0 else 0
    return highest(under) if under else highest(held)


def _forced_over(table: Table, seat: int, card: int) -> bool:
    """True if ``seat`` (hand visible) holds the card's suit only above ``card``."""
    held = table.holds[seat] & SUIT_MASKS[card >> 3]
    return (table.shown >> seat) & 1 == 1 and bool(held) and not held & _below(card)


# --- misère ------------------------------------------------------------------------------


def _misere_declarer(table: Table) -> int:
    legal = table.legal
    defenders = _others(table)
    opp = 0
    for d in defenders:
        opp |= table.holds[d]
    if table.led < 0:
        return _misere_lead(table, legal, defenders)
    held = legal & SUIT_MASKS[table.led]
    if not held:
        return _shed(table, legal, opp)
    if table.best_key >= 0 and held & ((1 << table.best_key) - 1):
        return highest(held & ((1 << table.best_key) - 1))
    forced = [c for c in cards(held) if any(_forced_over(table, d, c) for d in table.later)]
    if forced:
        return max(forced)
    return highest(held)


def _misere_lead(table: Table, legal: int, defenders: list[int]) -> int:
    def risk(card: int) -> tuple[int, int, int]:
        suit = SUIT_MASKS[card >> 3]
        escapes = 0
        under_total = 0
        for d in defenders:
            held = table.holds[d] & suit
            under = held & _below(card)
            under_total += under.bit_count()
            if (table.shown >> d) & 1:
                escapes += 1 if held and not under else 0
            elif held & _above(card) and not under:
                escapes += 1
        caught = 0 if escapes else 1
        hidden = not all((table.shown >> d) & 1 for d in defenders)
        return (caught, under_total if hidden else 0, -(card & 7))

    return min(cards(legal), key=risk)


def _misere_defender(table: Table) -> int:
    legal, decl = table.legal, table.declarer
    if table.led < 0:
        return _catching_lead(table)
    held = legal & SUIT_MASKS[table.led]
    declarer_played = any(s == decl for s, _ in table.played_here)
    if not held:
        return highest(legal) if not declarer_played else _high_keep_low(legal)
    if not declarer_played:
        return lowest(held)
    if table.best_seat == decl:
        return _under_or_top(table, held)
    return highest(held)


def _high_keep_low(legal: int) -> int:
    return max(cards(legal), key=lambda c: (c & 7, c))


def _catching_lead(table: Table) -> int:
    """Lead to force the misère declarer over: the suit where all his cards lie above."""
    decl = table.declarer
    partner = table.partner()
    partner_next = table.next_hand() == partner
    best_card, best_score = -1, -1e9
    for suit in range(4):
        mine = table.legal & SUIT_MASKS[suit]
        if not mine:
            continue
        lead = lowest(mine)
        high = lead
        partner_suit = table.holds[partner] & SUIT_MASKS[suit]
        if partner_next and partner_suit:
            high = max(high, lowest(partner_suit))
        theirs = table.holds[decl] & SUIT_MASKS[suit]
        if not theirs:
            score = -1.0
        else:
            above = theirs & ~((2 << high) - 1)
            if above == theirs:
                score = 2.0 + theirs.bit_count()
            else:
                score = above.bit_count() / theirs.bit_count()
            if theirs.bit_count() <= 2 and not (table.shown >> decl) & 1:
                score *= 0.3  # both may lie in his unseen discard
        if score > best_score or (score == best_score and (lead & 7) < (best_card & 7)):
            best_card, best_score = lead, score
    return best_card


# --- raspasy -----------------------------------------------------------------------------


def _raspasy(table: Table) -> int:
    legal = table.legal
    opp = 0
    for s in _others(table):
        opp |= table.holds[s]
    led = table.led
    if led >= 0 and not legal & SUIT_MASKS[led]:
        return _shed(table, legal, opp)
    if led >= 0 and table.best_key >= 0:
        held = legal & SUIT_MASKS[led]
        return _under_or_top(table, held)

    def risk(card: int) -> tuple[int, int, int]:
        suit = SUIT_MASKS[card >> 3]
        others = opp & suit
        if not others & _above(card):
            return (100, 0, 0)
        return (((others & _below(card)).bit_count()), 0, -(card & 7))

    return min(cards(legal), key=risk)


def ducking_card(table: Table) -> int:
    """The card to play on misère or raspasy."""
    if table.raspasy:
        return _raspasy(table)
    if table.seat == table.declarer:
        return _misere_declarer(table)
    return _misere_defender(table)
