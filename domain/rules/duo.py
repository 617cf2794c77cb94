"""Two players, "гусарик" (RULES.md §3.6 row "2"; S000 "Игра при двух игроках").

The cards are dealt as for three; the third hand is a dummy ("болван") at the agreed hand
(``RuleSet.duo_dummy_hand``), position ``seats.DUMMY`` of the deal's tuples. The dummy never
acts: it has passed before the auction starts (the dealer's opponent speaks first), and when
whisting only the declarer's opponent speaks. What he may say (``whist_options``):

* ``whist``: he opens the dummy and plays it with his own hand (an open whist: only the dummy
  lies face up); under ``duo_whist_own_cards`` also ``whist own cards``: the same play, but he
  answers for his own tricks only (2 on a six, 1 higher) and the dummy's are nobody's;
* ``half-whist`` ("уйти за свои", S000 "если он вистует, а не уходит за свои") on the levels of
  ``half_whist_levels``, unless ``duo_whist_own_cards`` forbids going;
* ``pass``: the game is given.

Two passes (``all_passed``): under ``duo_retract_pass`` the first passer may first take his pass
back and declare without bidding (still the bidding phase); else, per ``duo_all_pass``, raspasy
(two-card tricks, the dummy out, the talon closed), a redeal, or raspasy "с вареником" (the
discard phase without a declarer: the first hand gives two cards, the dealer discards two).
``settled`` keeps the dummy from ever being asked and lays it open once a game is played (it
is played by the declarer's opponent, ``play.controller``).
"""

from __future__ import annotations

from domain.rules import auction as bidding
from domain.rules import whisting
from domain.rules.actions import (
    DISCARDS,
    GIFTS,
    HALF_WHIST,
    OWN_CARDS_WHIST,
    PASS,
    RETRACT_PASS,
    WHIST,
    Action,
    Discard,
    GiveCards,
    HalfWhist,
    OwnCardsWhist,
    Pass,
    RetractPass,
)
from domain.rules.bids import Bid, Strain
from domain.rules.duo_options import DuoAllPass
from domain.rules.errors import IllegalAction
from domain.rules.seats import DUMMY, first_hand
from domain.rules.state import AuctionState, DealState, Kind, Phase

_STALINGRAD = Bid.ordinary(6, Strain.SPADES)


# --- whisting ----------------------------------------------------------------------------


def whist_options(state: DealState) -> tuple[Action, ...]:
    """The whisting calls (``whisting.whist_options`` with three or more players)."""
    rules = state.rules
    if rules.players != 2:
        return whisting.whist_options(state)
    contract = state.contract
    assert contract is not None
    out: list[Action] = [WHIST]
    if rules.duo_whist_own_cards:
        out.append(OWN_CARDS_WHIST)
    if rules.stalingrad and contract == _STALINGRAD:
        return tuple(out)  # S000, S004: on 6♠ the defence must whist
    if not rules.duo_whist_own_cards and contract.level in rules.half_whist_levels:
        out.append(HALF_WHIST)
    out.append(PASS)
    return tuple(out)


def whist(state: DealState, action: Action) -> DealState:
    """The declarer's opponent whists (on two hands or his own cards), goes for his own
    (half-whist) or passes (``whisting.whist`` with three or more players)."""
    if state.rules.players != 2:
        return whisting.whist(state, action)
    allowed = whist_options(state)
    if action not in allowed:
        if isinstance(action, HalfWhist) and state.rules.duo_whist_own_cards:
            why = "the whister may not go for his own here (whist, whist own cards or pass)"
        elif isinstance(action, HalfWhist):
            why = "going for one's own (half-whist) is only offered on the half-whist levels"
        elif isinstance(action, OwnCardsWhist):
            why = "whisting on one's own cards is not played here"
        elif isinstance(action, Pass):
            why = "Stalingrad: on 6♠ the defender must whist"
        else:
            why = f"{action} is not a whisting call"
        words = ", ".join(str(a) for a in allowed)
        raise IllegalAction(f"{why}; you may say {words}", allowed)
    seat = state.to_act
    w = state.whist._replace(calls=(*state.whist.calls, (seat, action)))
    if isinstance(action, Pass):
        return whisting.given(state.with_(whist=w))
    if isinstance(action, HalfWhist):
        return whisting.finish_without_play(
            state.with_(whist=w._replace(half_whister=seat)), Kind.HALF_WHIST
        )
    own = isinstance(action, OwnCardsWhist)
    w = w._replace(whisters=(seat,), open=True, own_cards=own)
    return settled(whisting.start_play(state.with_(whist=w), open_defence=False))


def settled(state: DealState) -> DealState:
    """A two-player deal after a step: the dummy never decides (its defender, the declarer's
    opponent, does). Once a game is played its defender sees it; it lies open for all only when
    he whists a trick game (S000: "Противник взявшего прикуп, если он вистует … открывает карты
    «болвана»") — a misère's defence opens after the declarer's lead as with three (§1.8), and
    a closed misère defence or an unwhisted ten keeps it closed to the declarer."""
    phase = state.phase
    if phase is Phase.WHISTING or phase is Phase.DEFENCE:
        if state.to_act == DUMMY:
            return state.with_(to_act=state.next_player(state.declarer))
    elif phase is Phase.PLAY and state.declarer >= 0 and not state.open_hands >> DUMMY & 1:
        contract = state.contract
        if state.whist.whisters and contract is not None and not contract.is_misere:
            return state.with_(open_hands=state.open_hands | 1 << DUMMY)
        seen = (state.next_player(state.declarer), DUMMY)
        if seen not in state.peeks:
            return state.with_(peeks=(*state.peeks, seen))
    return state


# --- two passes --------------------------------------------------------------------------
#
# Both decisions after two passes keep the phases a deal already has: the retraction is still
# bidding (every hand has passed, the first passer is to speak), the gift and the discard "с
# вареником" are the discard phase of a deal without a declarer (the giver is the first hand,
# the discarder the dealer).

_ALL_PASSED = 0b111
"""``AuctionState.passed`` once both players and the dummy have passed."""


def _retracting(state: DealState) -> bool:
    return state.rules.players == 2 and state.auction.passed == _ALL_PASSED


def first_passer(auction: AuctionState) -> int:
    """The seat whose pass came first (the dummy's implied pass aside)."""
    return next(seat for seat, call in auction.calls if isinstance(call, Pass))


def all_passed(state: DealState, auction: AuctionState) -> DealState:
    """Both players passed (``auction._start_raspasy`` with two players)."""
    state = state.with_(auction=auction)
    if state.rules.duo_retract_pass:
        return state.with_(to_act=first_passer(auction))
    return _after_passes(state)


def _after_passes(state: DealState) -> DealState:
    rule = state.rules.duo_all_pass
    if rule is DuoAllPass.REDEAL:
        from domain.rules.play import finish  # play builds on the modules this one uses

        return finish(state, Kind.REDEAL)
    if rule is DuoAllPass.VARENIK:
        giver = first_hand(state.dealer, 2)
        talon = (1 << state.talon[0]) | (1 << state.talon[1])
        hands = list(state.play.hands)
        hands[giver] |= talon
        return state.with_(
            phase=Phase.DISCARD,
            to_act=giver,
            talon_open=True,  # "показывает его противнику"
            play=state.play._replace(hands=tuple(hands)),
        )
    return bidding._raspasy(state, state.auction)


_PASSED_OPTIONS: tuple[Action, ...] = (RETRACT_PASS, PASS)


def bidding_options(state: DealState) -> tuple[Action, ...]:
    """``auction.legal``; after two passes under ``duo_retract_pass``: retract or pass."""
    return _PASSED_OPTIONS if _retracting(state) else bidding.legal(state)


def bid(state: DealState, action: Action) -> DealState:
    """``auction.apply``; after two passes under ``duo_retract_pass`` the first passer retracts
    his pass and wins the talon at the lowest game this deal allows (he declares any game from
    it, without bidding), or lets the passes stand."""
    if not _retracting(state):
        return bidding.apply(state, action)
    if isinstance(action, Pass):
        return _after_passes(state)
    if not isinstance(action, RetractPass):
        raise IllegalAction(
            "both passed: retract your pass and declare a game, or pass", _PASSED_OPTIONS
        )
    seat = state.to_act
    a = state.auction
    floor = Bid.ordinary(state.rules.min_level(state.raspasy_streak), Strain.SPADES).index
    won = a._replace(
        calls=(*a.calls, (seat, action)), high=floor, holder=seat, passed=a.passed & ~(1 << seat)
    )
    return bidding._won(state, won)


# --- "с вареником" ---------------------------------------------------------------------


def _gifting(state: DealState) -> bool:
    """The first hand holds the talon "с вареником" and is to give two cards."""
    return state.to_act != state.dealer


def discard_options(state: DealState) -> tuple[Action, ...]:
    """``whisting.discard_options``; "с вареником" any two of the twelve cards of the first
    hand (to give) or of the dealer (to discard)."""
    if state.declarer >= 0:
        return whisting.discard_options(state)
    table = GIFTS if _gifting(state) else DISCARDS
    return whisting.pairs(state.play.hands[state.to_act], table)


def discard(state: DealState, action: Action) -> DealState:
    """``whisting.discard``; "с вареником" the first hand gives two cards, then the dealer,
    holding twelve, discards two (secret, as a declarer's) and raspasy is played."""
    if state.declarer >= 0:
        return whisting.discard(state, action)
    seat = state.to_act
    hand = state.play.hands[seat]
    gifting = _gifting(state)
    if gifting and not isinstance(action, GiveCards):
        raise IllegalAction("give your opponent two cards, like 'give 7♣ 8♦'")
    if not gifting and not isinstance(action, Discard):
        raise IllegalAction("discard two cards, like 'discard 7♣ 8♦'")
    assert isinstance(action, GiveCards | Discard)
    whisting.check_held(hand, action)
    hands = list(state.play.hands)
    hands[seat] = hand & ~action.mask
    if gifting:
        hands[state.dealer] |= action.mask
        return state.with_(to_act=state.dealer, play=state.play._replace(hands=tuple(hands)))
    state = state.with_(discard=action.mask, play=state.play._replace(hands=tuple(hands)))
    return bidding._raspasy(state, state.auction)


def discarder(state: DealState) -> int:
    """Who discarded ``state.discard``: the declarer, or "с вареником" the given player (the
    dealer); -1 if nobody has."""
    if state.declarer >= 0:
        return state.declarer
    if state.discard and state.rules.players == 2:
        return state.dealer
    return -1
