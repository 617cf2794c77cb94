"""Card play in trick contracts: the declarer and the defenders.

Declarer: draw trumps while holding the top trump, cash winners, then lead from the longest
suit (the top of a sequence, else low). Defenders: cash sure winners where the declarer is not
void, lead low to the partner's winners when the partner's hand lies open, otherwise lead
"through" from a suit without a lone honour and never into a ruff. Following: win as cheaply
as is safe against the hands still to play; second hand low; third hand high (the lowest card
that wins); when the partner is already winning, or nothing wins, play the lowest card, and
when void discard from the weakest suit.
"""

from __future__ import annotations

from domain.bots.knowledge import Table, cards, highest, key, lowest
from domain.rules.cards import SUIT_MASKS


def suit_of(mask: int, suit: int) -> int:
    """The cards of ``mask`` in ``suit``."""
    return mask & SUIT_MASKS[suit]


def weakest_discard(table: Table, mask: int) -> int:
    """The card to throw from ``mask``: the lowest card of the least valuable suit, keeping
    trumps and winners (a suit's value: its top card, plus length)."""
    best_card, best_score = -1, 10**9
    for suit in range(4):
        held = suit_of(mask, suit)
        if not held:
            continue
        top = highest(held) & 7
        score = top * 4 + held.bit_count() + (100 if suit == table.trump else 0)
        if _is_winner(table, highest(held)):
            score += 50
        if score < best_score:
            best_card, best_score = lowest(held), score
    return best_card


def _opponents_holding(table: Table) -> int:
    """Cards the opponents of the seat on turn may hold."""
    mask = 0
    for s, holds in enumerate(table.holds):
        if not table.partners(s, table.seat):
            mask |= holds
    return mask


def _is_winner(table: Table, card: int) -> bool:
    """True if no opponent can hold a higher card of ``card``'s suit."""
    suit = card >> 3
    above = SUIT_MASKS[suit] & ~((2 << card) - 1)
    return not (_opponents_holding(table) & above)


def _follow(table: Table) -> int:
    legal = table.legal
    led, trump = table.led, table.trump
    following = bool(suit_of(legal, led))
    partner_winning = table.best_seat >= 0 and table.partners(table.best_seat, table.seat)
    if not partner_winning:
        winners = [c for c in cards(legal) if key(c, led, trump) > table.best_key]
        safe = [c for c in winners if not table.opponents_may_beat(key(c, led, trump))]
        if safe:
            return min(safe, key=lambda c: key(c, led, trump))
        if winners and not table.later:
            return min(winners, key=lambda c: key(c, led, trump))
    return _cheapest(table, legal, following)


def _cheapest(table: Table, legal: int, following: bool) -> int:
    if following or (table.trump >= 0 and legal & SUIT_MASKS[table.trump] == legal):
        return lowest(legal)
    return weakest_discard(table, legal)


# --- leads -------------------------------------------------------------------------------


def _declarer_lead(table: Table) -> int:
    hand, trump = table.hand, table.trump
    opp = _opponents_holding(table)
    if trump >= 0:
        mine, theirs = suit_of(hand, trump), suit_of(opp, trump)
        if mine and theirs:
            top = highest(mine)
            if _is_winner(table, top):
                return top
            if mine.bit_count() > theirs.bit_count() or mine.bit_count() >= 4:
                return _sequence_top(table, mine)
    trumps_out = trump >= 0 and bool(suit_of(opp, trump))
    cash = []
    for suit in range(4):
        held = suit_of(hand, suit)
        if not held or suit == trump:
            continue
        top = highest(held)
        if not _is_winner(table, top):
            continue
        if trumps_out and any(
            (table.voids[s] >> suit) & 1 for s in table.seats if not table.partners(s, table.seat)
        ):
            continue
        cash.append((held.bit_count(), top))
    if cash:
        return max(cash)[1]
    if trump >= 0 and suit_of(hand, trump) and not trumps_out:
        side = hand & ~SUIT_MASKS[trump]
        if not side:
            return highest(suit_of(hand, trump))
    best_suit = max(
        (s for s in range(4) if suit_of(hand, s)),
        key=lambda s: (s != trump or hand == suit_of(hand, s), suit_of(hand, s).bit_count(), s),
    )
    return _sequence_top(table, suit_of(hand, best_suit))


def _sequence_top(table: Table, held: int) -> int:
    """The top of a touching sequence (K from K-Q: knocks out the ace), else the lowest."""
    top = highest(held)
    below = top - 1
    opp = _opponents_holding(table)
    while below >= (top & ~7) and not (held >> below) & 1 and not (opp >> below) & 1:
        below -= 1
    if below >= (top & ~7) and (held >> below) & 1:
        return top
    return lowest(held)


def _defender_lead(table: Table) -> int:
    hand, trump, decl = table.hand, table.trump, table.declarer
    declarer_holds = table.holds[decl]
    declarer_trumps = trump >= 0 and bool(suit_of(declarer_holds, trump))

    def ruffed(suit: int) -> bool:
        return suit != trump and declarer_trumps and bool((table.voids[decl] >> suit) & 1)

    winners = []
    for suit in range(4):
        held = suit_of(hand, suit)
        if not held or suit == trump or ruffed(suit):
            continue
        top = highest(held)
        if _is_winner(table, top) and suit_of(declarer_holds, suit):
            winners.append((suit_of(declarer_holds, suit).bit_count(), top))
    if winners:
        return max(winners)[1]
    partner = table.partner()
    partner_hand = table.holds[partner]
    for suit in range(4):
        held = suit_of(hand, suit)
        if not held or suit == trump or ruffed(suit) or not (table.shown >> partner) & 1:
            continue
        theirs = suit_of(partner_hand, suit)
        if theirs and _is_winner(table, highest(theirs)) and suit_of(declarer_holds, suit):
            return lowest(held)
    best_card, best_score = -1, -(10**9)
    for suit in range(4):
        held = suit_of(hand, suit)
        if not held:
            continue
        n = held.bit_count()
        ranks = held >> (suit * 8)
        score = n * 2
        if suit == trump:
            score -= 30
        if ruffed(suit):
            score -= 60
        lone_honour = ((ranks >> 6) & 1 and not (ranks >> 7) & 1) or (
            (ranks >> 5) & 1 and not (ranks >> 6) & 1
        )
        if lone_honour:
            score -= 6
        if not suit_of(declarer_holds, suit):
            score -= 10
        if score > best_score:
            best_card, best_score = _sequence_top(table, held), score
    return best_card


def trick_card(table: Table) -> int:
    """The card to play in a trick contract."""
    if table.led < 0:
        if table.seat == table.declarer:
            return _declarer_lead(table)
        return _defender_lead(table)
    return _follow(table)
