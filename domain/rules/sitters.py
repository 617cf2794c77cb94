"""The dealer on the talon and the player sitting out (four or five players, RULES.md §3.6).

With four players the dealer holds no hand but "is not out of the game" (S003 "Игра на
прикупе"): the raspasy talon tricks are his (``play.trick_winner``, ``raspasy``), he writes
consolation on a failed declarer (S000 "Порядок записи"), and by agreement:

* **talon whists** for a good talon sold (``talon_value``; TV-20, TV-29);
* **the returned whist** after both defenders passed (``offer_return``, ``options``, ``act``;
  TV-24, TV-30): he looks at one passer's cards, then whists alone or passes;
* **the returned talon**: the auction's winner leaves the talon shown to him (``return_talon``;
  §3.1, §5.1 C-8);
* **the misère partner**: the misère winner invites him to share the misère (``invite``).

With five players the player who dealt before (the seat to the dealer's right) sits out too,
"with the dealer's rights, used after the dealer" (S000): he is asked to return the whist after
the dealer and writes consolation; the talon, its tricks and its whists stay the dealer's, and
only the dealer is invited to a misère (decisions P-3, P-4 in docs/SYSTEMS.md).
"""

from __future__ import annotations

from domain.rules.actions import (
    ACCEPT,
    INVITE_DEALER,
    PASS,
    REJECT,
    RETURN_TALON,
    VIEW_HANDS,
    WHIST,
    AcceptClaim,
    Action,
    InviteDealer,
    Pass,
    RejectClaim,
    ReturnTalon,
    ViewHand,
    Whist,
)
from domain.rules.cards import Rank
from domain.rules.errors import IllegalAction
from domain.rules.ruleset import TalonReturn, TalonWhists
from domain.rules.seats import HANDS
from domain.rules.state import DealState, Phase


def rights_order(state: DealState) -> tuple[int, ...]:
    """The seats without a hand, in the order they use the dealer's rights: the dealer, then
    (five players) the one who dealt before him; none with three players."""
    n = state.players
    if n <= HANDS:
        return ()
    if n == HANDS + 1:
        return (state.dealer,)
    return (state.dealer, (state.dealer - 1) % n)


def is_sitter(state: DealState, seat: int) -> bool:
    return state.players > HANDS and not state.active >> seat & 1


# --- talon whists (TV-20, TV-29) -----------------------------------------------------------


def talon_value(state: DealState) -> int:
    """What the talon sold is worth to the dealer: for a trick contract, tricks (an ace or a
    marriage one, A+K of a suit two, two aces three; ``ace-only``: one for any ace); for a
    misère, its sevens (``talon_misere_seven_whists``). 0 when nothing was sold: three
    players, no talon whists, a game without talon, a returned talon."""
    rules = state.rules
    if state.players <= HANDS or state.no_talon or state.talon_returned or state.contract is None:
        return 0
    cards = state.talon
    if state.contract.is_misere:
        if not rules.talon_misere_seven_whists:
            return 0
        return sum(1 for c in cards if c & 7 == Rank.SEVEN)
    if rules.talon_whists is TalonWhists.NONE:
        return 0
    aces = sum(1 for c in cards if c & 7 == Rank.ACE)
    if rules.talon_whists is TalonWhists.ACE_ONLY:
        return 1 if aces else 0
    if aces == 2:
        return 3
    a, b = cards
    same_suit = a >> 3 == b >> 3
    ranks = {a & 7, b & 7}
    if same_suit and ranks == {Rank.ACE, Rank.KING}:
        return 2
    if aces or (same_suit and ranks == {Rank.KING, Rank.QUEEN}):
        return 1
    return 0


# --- the returned whist (TV-24, TV-30) -----------------------------------------------------


def offer_return(state: DealState) -> DealState | None:
    """Both defenders passed: the next sitter who may return the whist is to act, or
    ``None`` when nobody (left) may."""
    if not state.rules.sitter_return_whist or state.whist.whisters:
        return None
    if state.whist.half_whister >= 0 or state.contract is None or state.contract.is_misere:
        return None
    if state.rules.is_checked(state.contract.level):
        return None  # a checked ten carries no defence to return
    for seat in rights_order(state):
        if not state.sitters_asked >> seat & 1:
            return state.with_(phase=Phase.WHISTING, to_act=seat)
    return None


def _viewed(state: DealState, viewer: int) -> bool:
    return any(v == viewer for v, _ in state.peeks)


def options(state: DealState) -> tuple[Action, ...]:
    """A sitter asked to return the whist: look at one passer's cards first if he likes, then
    whist or pass."""
    from domain.rules.whisting import defenders

    if _viewed(state, state.to_act):
        return (WHIST, PASS)
    d1, d2 = defenders(state)
    return (WHIST, PASS, VIEW_HANDS[d1], VIEW_HANDS[d2])


def act(state: DealState, action: Action) -> DealState:
    from domain.rules.whisting import given, start_play

    allowed = options(state)
    if action not in allowed:
        if isinstance(action, ViewHand):
            why = "you may look at one passer's cards, once"
        else:
            why = "the dealer may look at a passer's cards, return the whist or pass"
        raise IllegalAction(why, allowed)
    seat = state.to_act
    if isinstance(action, ViewHand):
        return state.with_(peeks=(*state.peeks, (seat, action.seat)))
    w = state.whist._replace(calls=(*state.whist.calls, (seat, action)))
    if isinstance(action, Pass):
        return given(state.with_(whist=w, sitters_asked=state.sitters_asked | 1 << seat))
    assert isinstance(action, Whist)
    # He defends alone on both passers' hands, laid open: he plays them (``play.controller``).
    w = w._replace(whisters=(seat,), open=True)
    return start_play(state.with_(whist=w), open_defence=True)


# --- the returned talon and the misère partner (§3.1) ------------------------------------


def talon_options(state: DealState) -> tuple[Action, ...]:
    """Beyond taking the talon: leave it (``talon_return``), or on a misère invite the dealer
    (``misere_partner``); while an invitation waits, the dealer's answer."""
    if state.invited >= 0 and state.to_act == state.invited:
        return (ACCEPT, REJECT)
    if state.players <= HANDS or state.dark:
        return ()
    extra: tuple[Action, ...] = ()
    if state.rules.talon_return is not TalonReturn.NONE:
        extra = (RETURN_TALON,)
    assert state.bid is not None
    if state.rules.misere_partner and state.bid.is_misere and state.invited < 0:
        extra = (*extra, INVITE_DEALER)
    return extra


def talon_act(state: DealState, action: Action) -> DealState:
    """``RETURN_TALON``, ``INVITE_DEALER`` or the invited dealer's answer (already legal)."""
    if isinstance(action, ReturnTalon):
        talon = (1 << state.talon[0]) | (1 << state.talon[1])
        return state.with_(
            phase=Phase.CONTRACT, discard=talon, talon_open=True, talon_returned=True
        )
    if isinstance(action, InviteDealer):
        # He looks at the declarer's cards before he answers (S000: "сдатчик смотрит карты").
        return state.with_(
            invited=state.dealer,
            to_act=state.dealer,
            peeks=(*state.peeks, (state.dealer, state.declarer)),
        )
    assert isinstance(action, AcceptClaim | RejectClaim)
    if isinstance(action, AcceptClaim):
        return state.with_(partner=state.invited, to_act=state.declarer)
    # Declining, he takes no part: he no longer sees the declarer's cards.
    peeks = tuple(p for p in state.peeks if p != (state.invited, state.declarer))
    return state.with_(peeks=peeks, to_act=state.declarer)
