"""Decisions before the first card: bidding, discard, contract, whisting, defence choice.

Bidding: misère as the first call with a clean misère hand; otherwise raise (or say "here")
while the rung stays within what the hand makes in its best strain plus a modest talon
allowance; pass when it does not. Discard: the two cards whose loss leaves the best contract
over the winning bid (on misère: the most dangerous cards). Contract: the strain with the
largest margin over its required level, or "without three" where allowed and the hand is
hopeless. Whisting by the rules of thumb: whist with the
defender's share of the norm (6: two tricks, 7: one, 8 and up: a sure trick), half-whist on
6 and 7 with a weak but not empty hand after the first defender's pass, return whist only with
good cards, always open defence as the sole whister.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

from domain.bots.evaluate import (
    all_strains,
    defence_tricks,
    max_bid_index,
    misere_danger,
    required_level,
)
from domain.bots.knowledge import cards
from domain.rules.actions import (
    CONCEDE,
    DECLARES,
    DISCARDS,
    HALF_WHIST,
    HERE,
    OPEN,
    OWN_CARDS_WHIST,
    OWN_WHIST,
    PASS,
    REFUSE,
    RETRACT_PASS,
    UNDERBID,
    WHIST,
    Action,
    Call,
    Declare,
    Discard,
)
from domain.rules.bids import MISERE, MISERE_INDEX, Bid, Strain
from domain.rules.view import SeatView


class Style(NamedTuple):
    """The temper of a bot: how much it hopes from the talon and how freely it whists."""

    name: str
    talon_allowance: float
    """Tricks the talon is assumed to add when bidding."""
    misere_danger: int
    """Largest misère exposure (before the talon) with which misère is called."""
    whist_margin: float
    """Added to the whisting thresholds (negative: whists more)."""


STYLES: dict[str, Style] = {
    "cautious": Style("cautious", 0.5, 0, 0.5),
    "normal": Style("normal", 1.15, 2, 0.0),
    "bold": Style("bold", 1.3, 2, -0.5),
}
"""Named styles for ``make_bot(style=...)``."""


# --- bidding -----------------------------------------------------------------------------


def bid(view: SeatView, style: Style) -> Action:
    """An auction call."""
    legal = view.legal
    if RETRACT_PASS in legal:  # two players: both passed (RULES.md §3.6, duo_retract_pass)
        return retract_or_pass(view, style)
    misere_call = Call(MISERE)
    if misere_call in legal and misere_danger(view.hand) <= style.misere_danger:
        return misere_call
    limit = max_bid_index(all_strains(view.hand), style.talon_allowance)
    high = max((c.bid.index for _, c in view.auction if isinstance(c, Call)), default=-1)
    if HERE in legal and 0 <= high <= limit:
        return HERE
    for action in legal:
        if isinstance(action, Call) and not action.bid.is_misere and action.bid.index <= limit:
            return action
    return PASS


RETRACT_HOPE = 0.5
"""Tricks more than in the auction that the first passer hopes from the talon when the only
other way is raspasy (two players, ``duo_retract_pass``): he takes the talon and may declare any
game, at the lowest level the deal allows."""


def retract_or_pass(view: SeatView, style: Style) -> Action:
    """Two players after two passes: retract the pass (and declare) when the hand, with a little
    more hope from the talon than in the auction, supports the lowest game; else let raspasy be."""
    limit = max_bid_index(all_strains(view.hand), style.talon_allowance + RETRACT_HOPE)
    return RETRACT_PASS if limit >= 0 else PASS


# --- talon, discard, contract ------------------------------------------------------------


def _contract_margin(estimates: tuple[float, ...], floor: Bid) -> tuple[float, int]:
    """(margin, strain) of the best strain over the winning bid ``floor``."""
    best = (-99.0, 4)
    for strain, est in enumerate(estimates):
        margin = est - required_level(strain, floor)
        if margin > best[0]:
            best = (margin, strain)
    return best


def discard(view: SeatView) -> Action:
    """The two cards to discard."""
    hand = view.hand
    floor = view.bid
    if floor is None:
        return raspasy_shed(view)
    best: tuple[float, int, int] | None = None
    best_pair = (0, 0)
    for a, b in combinations(cards(hand), 2):
        out = (1 << a) | (1 << b)
        rest = hand & ~out
        if floor.is_misere:
            score = -float(misere_danger(rest, out))
        else:
            score = _contract_margin(all_strains(rest, out), floor)[0]
        rank = (score, -(a & 7) - (b & 7), -(a + b))
        if floor.is_misere:
            rank = (score, (a & 7) + (b & 7), a + b)
        if best is None or rank > best:
            best, best_pair = rank, (a, b)
    action: Discard = DISCARDS[best_pair]
    return action


def raspasy_shed(view: SeatView) -> Action:
    """Two players "с вареником" (RULES.md §3.6): raspasy follows, so the first hand gives his
    opponent, and the dealer then discards, the two cards whose loss leaves the least misère
    exposure (the discard leaves play; the gift stays in the opponent's hand)."""
    hand = view.hand
    best: tuple[int, int] | None = None
    choice = view.legal[0]
    for action in view.legal:
        mask = getattr(action, "mask", None)
        if not isinstance(mask, int) or mask & ~hand:
            continue
        out = mask if isinstance(action, Discard) else 0
        rank = (-misere_danger(hand & ~mask, out), -mask)
        if best is None or rank > best:
            best, choice = rank, action
    return choice


HOPELESS = -2.0
"""Expected undertricks (negative margin) at which the talon taker goes "without three" where
the rules allow it: two or more down, with the defenders' whists on top, costs more than three
undertricks without whists."""


def declare(view: SeatView) -> Action:
    """The final contract: the best strain at its lowest level over the winning bid."""
    floor = view.bid
    assert floor is not None
    if floor.is_misere:
        return DECLARES[MISERE_INDEX]
    out = view.discard or 0
    margin, strain = _contract_margin(all_strains(view.hand, out), floor)
    if CONCEDE in view.legal and margin <= HOPELESS:
        return CONCEDE  # "without three" costs less than playing it out and being whisted
    level = required_level(strain, floor)
    if level > 10:  # a better strain than a ten's would need an eleventh trick
        return DECLARES[floor.index]
    action = Declare(Bid.ordinary(level, Strain(strain)))
    return action if action in view.legal else DECLARES[floor.index]


# --- whisting ----------------------------------------------------------------------------

_SHARE = {6: 1.75, 7: 1.0}
_ALONE = {6: 2.5, 7: 1.5}


def good_whist(
    exp: float, sure: float, level: int, thresholds: dict[int, float], margin: float
) -> bool:
    """``whist``'s test of a whist at ``level`` with ``thresholds`` (by level)."""
    if level >= 8:
        return sure >= 1.0 + max(0.0, margin)
    return exp >= thresholds.get(level, 1.0) + margin


def whist(view: SeatView, style: Style) -> Action:
    """Whist, pass or half-whist."""
    contract = view.contract
    assert contract is not None
    legal = view.legal
    if contract.is_misere:  # a whisted misère (S000 Classic complicated whisting)
        return WHIST if misere_catchable(view) else PASS
    exp, sure = defence_tricks(view.hand, contract)
    level = contract.level
    said = [call for _, call in view.whist_calls]
    margin = style.whist_margin
    if len(legal) == 1:
        return legal[0]  # Stalingrad (6♠): the whist is compulsory
    if REFUSE in legal:
        return REFUSE  # the declarer: allowing an own whist only gives whists away
    if OWN_WHIST in legal:
        return OWN_WHIST if exp >= 1.25 else PASS  # as a half-whist: some tricks, no risk
    if OWN_CARDS_WHIST in legal and not good_whist(exp, sure, level, _SHARE, margin):
        # Two players (duo_whist_own_cards, RULES.md §3.6): on his own cards the opponent
        # answers for 2 tricks on a six and 1 above, the dummy's tricks being nobody's.
        norm = 2.0 if level == 6 else 1.0
        return OWN_CARDS_WHIST if exp >= norm + 0.5 + margin else PASS

    def good(threshold: float) -> bool:
        if level >= 8:
            return sure >= 1.0 + max(0.0, margin)
        return exp >= threshold + margin

    if not said:
        return WHIST if good(_SHARE.get(level, 1.0)) else PASS
    if said == [WHIST]:
        return WHIST if good(_SHARE.get(level, 1.0)) else PASS
    if said == [PASS]:
        if good(_ALONE.get(level, 1.0)):
            return WHIST
        if HALF_WHIST in legal and exp >= 1.25:
            return HALF_WHIST
        return PASS
    if said == [PASS, HALF_WHIST]:
        return WHIST if good(_SHARE.get(level, 1.0) - 0.25) else PASS
    if said == [PASS, PASS]:
        # Pass – pass – whist: the same cards, now alone; reconsider only with spare strength.
        return WHIST if good(_ALONE.get(level, 1.0) + 0.5) else PASS
    return WHIST if WHIST in legal else legal[0]


MISERE_WHIST_DANGER = 4
"""The misère exposure the declarer's shown cards must keep after his best discard before a
bot whists his misère (measured: exposure 2 is caught a quarter of the time, far too little)."""


def misere_catchable(view: SeatView) -> bool:
    """Whether to whist a misère. A made misère costs each whister the misère's value in gora
    (10; S000 l.659, notes/whist.md decision 3), a caught one brings him 10 whists a trick: the
    whist pays only if the misère is caught about three times in four. Measured over bot deals
    (notes/cbots.md): with the declarer's cards hidden, whatever the whister's own low cards,
    misères were caught 0–17 % of the time (−53 to −67 whists a whist); with his twelve cards
    shown (``misere_shows_twelve``), exposure 0 / 1 / 2 after his best discard was caught 1 /
    13 / 25 % of the time (−66 / −56 / −47). So the bot passes unless it sees the declarer's
    cards and they stay clearly exposed (``MISERE_WHIST_DANGER``) after his best discard."""
    shown = view.shown
    if not shown:
        return False
    danger = min(
        misere_danger(shown & ~((1 << a) | (1 << b)), (1 << a) | (1 << b))
        for a, b in combinations(cards(shown), 2)
    )
    return danger >= MISERE_WHIST_DANGER


def defence_choice(view: SeatView) -> Action:
    """The sole whister plays open when he may: he sees and plays both defending hands."""
    return OPEN if OPEN in view.legal else view.legal[0]


# --- the underbid review -----------------------------------------------------------------


def review(view: SeatView) -> Action:
    """Claim a proved underbid (RULES.md §3.1) when the declarer made his game: the void game
    then costs him more than the result. When he went down, his undertricks and the whisters'
    whists are worth more to them than the flat penalty: let the result stand."""
    if UNDERBID not in view.legal or view.contract is None:
        return PASS
    made = view.tricks[view.declarer] >= view.contract.level
    return UNDERBID if made else PASS
