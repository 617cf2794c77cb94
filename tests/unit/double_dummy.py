"""A double-dummy solver over fixed hands, for tests: the reference the underbid proof
(``domain.rules.underbid.guaranteed``, every layout) is compared with."""

from __future__ import annotations

import functools

from domain.rules.cards import SUIT_MASKS


class _OutOfNodes(Exception):
    pass


@functools.lru_cache(maxsize=1024)
def takes_at_least(
    hands: tuple[int, ...], declarer: int, leader: int, trump: int, need: int, limit: int
) -> bool:
    """Double-dummy: can ``declarer`` take ``need`` tricks of the remaining ones against every
    defence, ``leader`` to lead, over these very hands? Pure, so its verdicts are kept (LRU).
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
