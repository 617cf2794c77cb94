"""The "preferans" declaration (RULES.md §3.1, TV-40; S000 «Торговля», S004 glossary).

S000: "Preferans is a declaration made only after taking the talon ... The declarer must take
every trick with his ten cards and the two of the talon (that is, with twelve cards) against
any layout of the opponents' cards and any lead, in no trump. In some companies only one
layout counts as preferans: A, K, Q in four suits." S004: "after the auction (except an
auction to misère) with A, K and Q in all four suits (with the talon). By an agreed rule the
game then ends: the player closes his pool, writes off his gora, closes the others' pools and
writes 100 whists on each."

Decisions (docs/SYSTEMS.md): the declaration is made in the discard phase, holding the twelve
cards, after an ordinary (not misère) auction; it is offered only when the hand qualifies, so
a refusal never happens. "Every trick against any layout and any lead in no trump" is checked
exactly: some ten of the twelve cards are each above every opponents' card of their suit, and
they hold a card in every suit the opponents hold (else an opening lead there wins). The
effect is S004's: every pool is closed, the declarer's gora is written off, and he writes
``preferans_whists`` on each other player (``scoresheet.record`` applies it).
"""

from __future__ import annotations

from domain.rules.cards import SUIT_MASKS
from domain.rules.ruleset import PreferansHand
from domain.rules.state import DealState, Kind

_ACE_KING_QUEEN = sum(0b11100000 << (8 * suit) for suit in range(4))
"""A, K and Q of all four suits (ranks 5, 6, 7 of each suit)."""


def qualifies(state: DealState) -> bool:
    """Whether the declarer's twelve cards (talon taken, nothing discarded) allow preferans."""
    rule = state.rules.preferans
    if rule is PreferansHand.NONE or state.bid is None or state.bid.is_misere:
        return False
    return hand_qualifies(state.play.hands[state.declarer], rule)


def hand_qualifies(hand: int, rule: PreferansHand) -> bool:
    if rule is PreferansHand.ACE_KING_QUEEN:
        return hand & _ACE_KING_QUEEN == _ACE_KING_QUEEN
    others = ((1 << 32) - 1) & ~hand
    winners = 0
    for suit in range(4):
        theirs = others & SUIT_MASKS[suit]
        mine = hand & SUIT_MASKS[suit]
        top = mine & ~((1 << theirs.bit_length()) - 1) if theirs else mine
        if theirs and not top:
            return False  # an opening lead of this suit wins a trick
        winners += top.bit_count()
    return winners >= 10


def declare(state: DealState) -> DealState:
    """The game ends with this deal: Kind.PREFERANS, the winning bid as its contract."""
    from domain.rules.play import finish

    return finish(state.with_(contract=state.bid), Kind.PREFERANS)
