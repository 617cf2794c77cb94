"""Classic decisions (issue 12, S000 "КЛАССИКА"): bombs, dark bids, no-talon bids, the dark
declarer at the talon, and ordering the game.

A seat that has not looked at its cards knows nothing of them: the bomb and the dark six are
decided from the public part of the view only (the calls before it, the level a bomb would
have, and, when the view is made for a game, the sheet and the bomb signs owed). The reasoning,
in short (docs: notes/cbots.md):

* A bomb is a raspasy at 2 / 4 / 8 … a trick (``bomb_call`` 1 / 2 / 3), paid the same by every
  player, bomber or not: in expectation it moves nothing between the players, only the spread
  grows. What the bomber gains is the sign (his next game counts ×2 / ×4 / ×8) and what he
  gives up is his own bid this deal. Both are worth taking when the gamble suits him: a player
  far behind wants a wider spread, a player ahead does not. So: **declare** a single bomb when
  ``BEHIND`` behind (a double one when ``2 × BEHIND`` behind), never a triple or dearer one;
  **join** a standing bomb up to a double one unless ``BEHIND`` ahead; never when he already
  owes more signs than the others on average (each sign multiplies a later game again).
* A dark six forces both defenders to whist and doubles everything: a blind gamble that costs
  little only where nothing has been written yet. So: **first hand, while less than a quarter
  of all the pools is written, ``BEHIND`` behind** (the initial bomb rounds left him with the
  largest gora), nobody bombed. And as a **pre-empt** of a standing bomb of ``PREEMPT_LEVEL``
  or more (8 a trick and ×8 signs for the bombers): the seat that is not behind caps the
  swing with the cheapest dark game (S000: "Объявленная бомба перебивается семерной либо
  любой другой игрой втемную").
* Having looked, a game without talon is an ordinary bid with the talon allowance one trick
  smaller; it is bid when it is the cheapest call the hand supports (it beats the ordinary bids
  of its level). A misère without talon needs a hand without any misère exposure.
* The dark declarer looks (the game stays dark), switches to misère with a misère hand, else
  takes the talon and plays on.
"""

from __future__ import annotations

from domain.bots.evaluate import all_strains, max_bid_index, misere_danger
from domain.rules.actions import (
    BOMB,
    DARK_CALLS,
    PASS,
    TAKE_TALON,
    Action,
    Call,
    NoTalonCall,
)
from domain.rules.bids import MISERE
from domain.rules.ruleset import RuleSet
from domain.rules.ruleset_schema import MAX_POOL_TARGET
from domain.rules.scoresheet import ScoreSheet
from domain.rules.view import SeatView

BEHIND = 200
"""How far behind (``standing`` units: whists, a sheet point counting 10) a player must be to
gamble blind: twenty points of gora, about a failed eight with its whists."""
MAX_SIGNS = 0
"""Bomb signs owed beyond the others' average with which a player declares or joins no
further bomb (each sign multiplies a later game again: more than the others is enough)."""
MAX_JOIN_LEVEL = 2
"""The dearest bomb a bot joins (a double: 4 a trick, ×4 on the sign)."""
PREEMPT_LEVEL = 3
"""A standing bomb this dear (a triple: 8 a trick) is pre-empted with a dark six."""
EARLY = 4
"""Early in the pool: every pool below ``pool_target / EARLY``."""
SIX_DARK = DARK_CALLS[0]
"""The cheapest dark game, 6♠ dark."""


def standing(sheet: ScoreSheet, seat: int) -> int:
    """The seat's position on the sheet in whists: ten per point of pool less gora, plus the
    whists it wrote on the others less theirs on it (the shape of the Sochi settlement)."""
    players = len(sheet.pool)
    own = 10 * (sheet.pool[seat] - sheet.gora[seat])
    written = sum(sheet.whists[seat][t] for t in range(players) if t != seat)
    against = sum(sheet.whists[w][seat] for w in range(players) if w != seat)
    return own + written - against


def deficit(view: SeatView) -> float:
    """How far the seat is behind the others' average (negative: ahead); 0 without a sheet."""
    sheet = view.sheet
    if sheet is None:
        return 0.0
    players = len(sheet.pool)
    others = [standing(sheet, s) for s in range(players) if s != view.seat]
    return sum(others) / len(others) - standing(sheet, view.seat)


def sign_burden(view: SeatView) -> float:
    """Bomb signs the seat owes beyond the others' average (0 without the game context): the
    initial bomb rounds give everyone many, so only owing more than the others counts."""
    signs = view.bomb_signs
    if not signs:
        return 0.0
    others = [len(signs[s]) for s in range(len(signs)) if s != view.seat]
    return len(signs[view.seat]) - sum(others) / len(others)


def _early(view: SeatView) -> bool:
    """Early in the pool: less than a quarter of all the pools written (by the sheet)."""
    sheet = view.sheet
    if sheet is None or view.pool_target <= 0:
        return False
    return EARLY * sum(sheet.pool) < len(sheet.pool) * view.pool_target


def _first_hand(view: SeatView) -> bool:
    return view.seat == (view.dealer + 1) % len(view.tricks)


def unseen_call(view: SeatView) -> Action | None:
    """For a seat that has not looked: the bomb, the join or the dark six, or ``None`` (look)."""
    legal = view.legal
    level = max(1, view.bomb_call)  # a view that does not say (e.g. from the API): single
    behind = deficit(view)
    standing_bomb = view.bombers != 0
    if BOMB in legal and sign_burden(view) <= MAX_SIGNS:
        if standing_bomb and level <= MAX_JOIN_LEVEL and behind > -BEHIND:
            return BOMB  # join: the sign at a price the seat can carry
        if not standing_bomb and level <= MAX_JOIN_LEVEL and behind >= level * BEHIND:
            return BOMB  # declare: far behind, a single (or, further behind, a double) bomb
    if SIX_DARK in legal:
        if standing_bomb and level >= PREEMPT_LEVEL and behind <= 0:
            return SIX_DARK  # the cheapest dark game caps a dear bomb
        if not view.auction and _first_hand(view) and _early(view) and behind >= BEHIND:
            return SIX_DARK  # first hand, early, behind: the cheap blind gamble
    return None


def no_talon_call(view: SeatView, talon_allowance: float, ordinary: Action) -> Action:
    """The looked-at hand's call where a game without talon is cheaper than the ordinary call
    ``ordinary`` the bidding rules chose (a pass, "here", a bid or a misère): a game without
    talon is evaluated as an ordinary bid with one trick less from the talon; a misère without
    talon (it beats the ordinary nines) is called instead of a misère only with no exposure at
    all. Otherwise ``ordinary``."""
    hand = view.hand
    if isinstance(ordinary, Call) and ordinary.bid.is_misere:
        clean = NoTalonCall(MISERE)
        return clean if clean in view.legal and misere_danger(hand) == 0 else ordinary
    if not isinstance(ordinary, Call) and ordinary != PASS:
        return ordinary  # "here" is cheaper than any new call
    bare = max_bid_index(all_strains(hand), talon_allowance - 1.0)
    if bare < 0:
        return ordinary
    for action in sorted(_trick_calls(view.legal), key=_rank):
        if action == ordinary:
            return ordinary
        if isinstance(action, NoTalonCall) and action.bid.index <= bare:
            return action
    return ordinary


def _trick_calls(legal: tuple[Action, ...]) -> list[Call | NoTalonCall]:
    return [a for a in legal if isinstance(a, Call | NoTalonCall) and not a.bid.is_misere]


def _rank(action: Call | NoTalonCall) -> tuple[int, int, int]:
    """Ladder order: level, then tier (light below without talon), then strain."""
    bid = action.bid
    strain = -1 if bid.strain is None else int(bid.strain)
    return (bid.level, isinstance(action, NoTalonCall), strain)


def talon_choice(view: SeatView, misere_limit: int) -> Action:
    """The dark declarer after looking: misère with a misère hand (S000: "может … объявить
    мизер" before taking the talon), else take the talon."""
    misere = Call(MISERE)
    if misere in view.legal and misere_danger(view.hand) <= misere_limit:
        return misere
    return TAKE_TALON


def order_choice(rules: RuleSet, sheet: ScoreSheet | None = None, seat: int = -1) -> int:
    """The pool length a bot orders (S000: the largest gora "заказывает игру"): the table's
    agreed ``pool_target``. The orderer has the largest gora; a longer pool would only delay
    the pools' closing, after which he can no longer be helped; a shorter one would end his
    chances to write it off. The end time is the service's (a bot has no clock)."""
    del sheet, seat  # the agreed length whatever the sheet: see above
    return max(1, min(MAX_POOL_TARGET, rules.pool_target))
