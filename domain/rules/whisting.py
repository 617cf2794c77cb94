"""Talon, discard, contract and whisting (RULES.md §1.4, §1.6, §1.8; A-02, A-03, A-17, A-24).

Whisting order: the first defender (next clockwise after the declarer), then the second.
Outcomes: both whist → closed play; one whists → he chooses open or closed; both pass → no
play; pass → half-whist (6 and 7 only) → the first may return with a whist, else no play.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

from domain.rules import preferans, sitters
from domain.rules.actions import (
    ALLOW,
    CLOSED,
    CONCEDE,
    DECLARES,
    DISCARDS,
    HALF_WHIST,
    OPEN,
    OWN_WHIST,
    PASS,
    PREFERANS,
    REFUSE,
    TAKE_TALON,
    WHIST,
    Action,
    AnswerOwnWhist,
    ChooseDefence,
    Concede,
    Declare,
    DeclarePreferans,
    Discard,
    GiveCards,
    HalfWhist,
    OwnWhist,
    Whist,
)
from domain.rules.bids import LADDER, MISERE_INDEX, Bid, Strain
from domain.rules.cards import CARDS, cards_of, format_cards
from domain.rules.concession import concede, may_concede, why_not
from domain.rules.errors import IllegalAction
from domain.rules.sitters import is_sitter
from domain.rules.state import DealState, Kind, Phase, PlayState
from domain.rules.whist_options import Obligations


def defenders(state: DealState) -> tuple[int, int]:
    """First and second defender: clockwise from the declarer."""
    d1 = state.next_hand(state.declarer)
    return d1, state.next_hand(d1)


# --- talon and discard -------------------------------------------------------------------


def take_talon(state: DealState, action: Action) -> DealState:
    if action != TAKE_TALON:
        raise IllegalAction("the declarer must first take the talon", (TAKE_TALON,))
    hands = list(state.play.hands)
    hands[state.declarer] |= (1 << state.talon[0]) | (1 << state.talon[1])
    return state.with_(
        phase=Phase.DISCARD,
        talon_open=True,
        play=state.play._replace(hands=tuple(hands)),
    )


def discard_options(state: DealState) -> tuple[Action, ...]:
    options = pairs(state.play.hands[state.declarer])
    return (*options, PREFERANS) if preferans.qualifies(state) else options


def pairs(hand: int, table: Mapping[tuple[int, int], Action] = DISCARDS) -> tuple[Action, ...]:
    """Every pair of the hand's cards as ``table``'s action (a discard; "с вареником" a gift)."""
    return tuple(table[pair] for pair in combinations(list(cards_of(hand)), 2))


def check_held(hand: int, action: Discard | GiveCards) -> None:
    """``IllegalAction`` unless the hand holds both cards of the pair."""
    if action.mask & ~hand:
        missing = " ".join(str(CARDS[c]) for c in action.cards if not (hand >> c) & 1)
        raise IllegalAction(f"you do not hold {missing}; you hold {format_cards(hand)}")


def discard(state: DealState, action: Action) -> DealState:
    if isinstance(action, DeclarePreferans):
        if not preferans.qualifies(state):
            raise IllegalAction(
                "preferans is not played here, or your twelve cards are no preferans"
            )
        return preferans.declare(state)
    if not isinstance(action, Discard):
        raise IllegalAction("discard two cards, like 'discard 7♣ 8♦'")
    hand = state.play.hands[state.declarer]
    check_held(hand, action)
    hands = list(state.play.hands)
    hands[state.declarer] = hand & ~action.mask
    return state.with_(
        phase=Phase.CONTRACT,
        discard=action.mask,
        play=state.play._replace(hands=tuple(hands)),
    )


# --- contract ----------------------------------------------------------------------------


def _contracts_from(index: int) -> tuple[Action, ...]:
    if index == MISERE_INDEX:
        return (DECLARES[MISERE_INDEX],)
    return tuple(DECLARES[i] for i in range(index, len(LADDER)) if i != MISERE_INDEX)


_CONTRACTS: tuple[tuple[Action, ...], ...] = tuple(_contracts_from(i) for i in range(len(LADDER)))
"""The contracts a winning bid allows, by the bid's ladder index (§1.4: not below the bid)."""


def contract_options(state: DealState) -> tuple[Action, ...]:
    assert state.bid is not None
    allowed = _CONTRACTS[state.bid.index]
    return (*allowed, CONCEDE) if may_concede(state) else allowed


def declare(state: DealState, action: Action) -> DealState:
    allowed = contract_options(state)
    if isinstance(action, Concede) and CONCEDE in allowed:
        return concede(state)
    if action not in allowed:
        assert state.bid is not None
        if isinstance(action, Concede):
            why = why_not(state)
        elif state.bid.is_misere:
            why = "you won the talon on misère, so you must play misère"
        elif isinstance(action, Declare) and action.contract.is_misere:
            why = "misère can only be played by the player who won the auction on misère"
        else:
            why = f"the contract cannot be below your winning bid {state.bid}"
        raise IllegalAction(f"{why}; declare {allowed[0].contract} or higher", allowed)  # type: ignore[union-attr]
    assert isinstance(action, Declare)
    contract = action.contract
    state = state.with_(contract=contract)
    d1, _ = defenders(state)
    if contract.is_misere:
        if state.dark:  # S000 "Мизер втемную": "розыгрыш ведется также втемную"
            return start_play(
                state.with_(whist=state.whist._replace(open=False)), open_defence=False
            )
        if state.rules.misere_whisted:  # S000 Classic complicated whisting
            return state.with_(phase=Phase.WHISTING, to_act=d1)
        return _defend_misere(state)
    if not state.rules.is_whisted(contract.level):
        return start_play(state, open_defence=False)
    return state.with_(phase=Phase.WHISTING, to_act=d1)


def _defend_misere(state: DealState) -> DealState:
    """The misère defence: open (§1.8), or its choice (A-24); whisted or not, it plays alike."""
    if state.rules.misere_defence_choice:
        d1, _ = defenders(state)
        return state.with_(phase=Phase.DEFENCE, to_act=d1)
    return start_play(state.with_(whist=state.whist._replace(open=True)), open_defence=True)


# --- whisting ----------------------------------------------------------------------------


def _half_whist_allowed(state: DealState) -> bool:
    assert state.contract is not None
    return state.contract.level in state.rules.half_whist_levels


def _stalingrad(state: DealState) -> bool:
    """S000, S004: on 6♠ both defenders must whist; S000 Classic: so they must on a dark game
    declared at the level it was won on (``_dark_same_level``)."""
    return (state.rules.stalingrad and state.contract == STALINGRAD) or _dark_same_level(state)


def _dark_same_level(state: DealState) -> bool:
    """S000 "Игры на взятие втемную": "если после взятия прикупа игрок объявил игру того же
    уровня, на который выторговал прикуп, то … оба игрока обязаны вистовать, и игра ведется
    втемную"; one level higher, whisting is as usual."""
    return (
        state.dark
        and state.bid is not None
        and state.contract is not None
        and state.contract.level == state.bid.level
    )


def _pass_pass_whist(state: DealState) -> bool:
    """S000 conv., S004: after two passes the first defender may reconsider (8 and 9)."""
    assert state.contract is not None
    return state.contract.level in state.rules.pass_pass_whist_levels


def _own_whist(state: DealState) -> bool:
    """S004 "свой вист": after two passes on a 6 or 7 a defender may offer it."""
    assert state.contract is not None
    return state.contract.level in state.rules.own_whist_levels


def whist_options(state: DealState) -> tuple[Action, ...]:
    assert state.contract is not None
    if is_sitter(state, state.to_act):
        return sitters.options(state)  # the dealer may return the whist (TV-24, TV-30)
    if state.contract.is_misere:
        return _WHIST_OR_PASS  # a whisted misère (S000 Classic): each defender once
    calls = [call for _, call in state.whist.calls]
    if state.rules.own_whist_levels and calls:
        if type(calls[-1]) is OwnWhist:
            return _ANSWERS  # the declarer allows or refuses
        if calls[:2] == [PASS, PASS] and _own_whist(state):
            return (OWN_WHIST, PASS)
    if len(calls) == 0:
        return _WHIST_ONLY if _stalingrad(state) else (WHIST, PASS)
    if len(calls) == 1:
        if _stalingrad(state):
            return _WHIST_ONLY
        if calls[0] == PASS and _half_whist_allowed(state):
            return (WHIST, PASS, HALF_WHIST)
        return (WHIST, PASS)
    if calls in ([PASS, HALF_WHIST], [WHIST, PASS, HALF_WHIST], [PASS, PASS]):
        return (WHIST, PASS)
    # whist – pass – (whist | half-whist), the A-03 convention
    return (WHIST, HALF_WHIST)


def whist(state: DealState, action: Action) -> DealState:
    if is_sitter(state, state.to_act):
        return sitters.act(state, action)
    allowed = whist_options(state)
    if action not in allowed:
        if isinstance(action, HalfWhist):
            why = "half-whist is only offered against a 6 or 7 after the first defender passes"
        elif _dark_same_level(state):
            why = "a dark game declared at the level it was won on: both defenders must whist"
        elif _stalingrad(state):
            why = "Stalingrad: on 6♠ both defenders must whist"
        else:
            why = f"{action} is not a whisting call"
        words = ", ".join(str(a) for a in allowed)
        raise IllegalAction(f"{why}; you may say {words}", allowed)
    seat = state.to_act
    w = state.whist
    calls = (*w.calls, (seat, action))
    said = [c for _, c in calls]
    d1, d2 = defenders(state)
    w = w._replace(calls=calls)
    if isinstance(action, Whist) and said != [PASS, HALF_WHIST, WHIST] and seat not in w.whisters:
        w = w._replace(whisters=(*w.whisters, seat))
    if isinstance(action, HalfWhist):
        w = w._replace(half_whister=seat)
    state = state.with_(whist=w)
    if isinstance(action, OwnWhist):
        return state.with_(to_act=state.declarer)
    if isinstance(action, AnswerOwnWhist):
        if action.allow:  # no play: the offerer writes his own tricks, as a half-whist
            w = w._replace(half_whister=calls[-2][0])
            return finish_without_play(state.with_(whist=w), Kind.HALF_WHIST)
        return given(state)

    assert state.contract is not None
    if state.contract.is_misere:
        return state.with_(to_act=d2) if len(said) == 1 else _defend_misere(state)
    if state.rules.is_checked(state.contract.level):
        return _check_ten(state, said)
    if len(said) == 1:
        return state.with_(to_act=d2)
    if said == [WHIST, WHIST]:
        return start_play(state.with_(whist=w._replace(open=False)), open_defence=False)
    if said == [WHIST, PASS]:
        if state.rules.whist_pass_half_whist and _half_whist_allowed(state):
            return state.with_(to_act=d1)
        return state.with_(phase=Phase.DEFENCE, to_act=d1)
    if said == [PASS, PASS]:
        if _pass_pass_whist(state) or _own_whist(state):
            return state.with_(to_act=d1)
        return given(state)
    if said == [PASS, PASS, PASS] and _own_whist(state):
        return state.with_(to_act=d2)  # the second defender may still offer an own whist
    if said[:3] == [PASS, PASS, PASS]:
        return given(state)
    if said == [PASS, PASS, WHIST]:
        # Pass – pass – whist: the first defender reconsidered and defends alone.
        return state.with_(phase=Phase.DEFENCE, to_act=d1)
    if said == [PASS, WHIST]:
        return state.with_(phase=Phase.DEFENCE, to_act=d2)
    if said == [PASS, HALF_WHIST]:
        return state.with_(to_act=d1)
    if said == [PASS, HALF_WHIST, PASS]:
        return finish_without_play(state, Kind.HALF_WHIST)
    if said == [PASS, HALF_WHIST, WHIST]:
        # The return whist: the first defender takes the whole defence; the second must pass.
        w = w._replace(whisters=(d1,), returned=True)
        return state.with_(whist=w, phase=Phase.DEFENCE, to_act=d1)
    if said == [WHIST, PASS, WHIST]:
        return state.with_(phase=Phase.DEFENCE, to_act=d1)
    if said == [WHIST, PASS, HALF_WHIST]:
        # the whister falls back to half-whist; the original passer may now whist.
        return state.with_(whist=w._replace(whisters=()), to_act=d2)
    if said == [WHIST, PASS, HALF_WHIST, WHIST]:
        return state.with_(phase=Phase.DEFENCE, to_act=d2)
    assert said == [WHIST, PASS, HALF_WHIST, PASS], said
    return finish_without_play(state, Kind.HALF_WHIST)


def defence_options(state: DealState) -> tuple[Action, ...]:
    """Open or closed; a lone whister with individual obligations plays closed (S000 conv.:
    the passer plays dark and his tricks belong to nobody)."""
    assert state.contract is not None
    if state.rules.whist_obligations is Obligations.ALL and not state.contract.is_misere:
        return _CLOSED_ONLY
    return DEFENCE_CHOICES


def _check_ten(state: DealState, said: list[Action]) -> DealState:
    """A-17 checked ten (S000 main text): the first "whist" checks it; two passes give it."""
    d1, d2 = defenders(state)
    if said[-1] == PASS:
        if len(said) == 1:
            return state.with_(to_act=d2)
        return given(state)
    # Both defenders count as whisters without obligations; every hand lies open.
    w = state.whist._replace(whisters=(d1, d2), open=True)
    state = state.with_(whist=w, open_hands=state.active)
    return start_play(state, open_defence=True)


def choose_defence(state: DealState, action: Action) -> DealState:
    allowed = defence_options(state)
    if not isinstance(action, ChooseDefence):
        raise IllegalAction("choose 'open' or 'closed' defence", allowed)
    if action not in allowed:
        raise IllegalAction(
            "with individual obligations a lone whister defends closed on his own cards", allowed
        )
    state = state.with_(whist=state.whist._replace(open=action.open))
    return start_play(state, open_defence=action.open)


def start_play(state: DealState, *, open_defence: bool) -> DealState:
    """Open the defence if it plays open (misère with the declarer leading: after his lead)."""
    h1 = state.hand_seats[0]  # with two players the dummy leads when it is H1 (§3.6)
    open_hands = state.open_hands
    assert state.contract is not None
    delayed = state.declarer == h1 and (
        state.contract.is_misere or state.rules.open_after_first_lead
    )
    if open_defence and not delayed:
        d1, d2 = defenders(state)
        open_hands |= (1 << d1) | (1 << d2)
    play = PlayState(state.play.hands, (), h1, state.play.tricks, ())
    return state.with_(phase=Phase.PLAY, to_act=h1, play=play, open_hands=open_hands)


def given(state: DealState) -> DealState:
    """The contract is given without play (§1.6 outcome 3); under ``unwhisted_write_off``
    (RULES.md §3.4) the declarer first chooses where its points go (``writeoff.py``). With
    four or five players the dealer may first return the whist (``sitters.offer_return``)."""
    offered = sitters.offer_return(state)
    if offered is not None:
        return offered
    if state.rules.unwhisted_write_off:
        return state.with_(phase=Phase.WRITE_OFF, to_act=state.declarer)
    return finish_without_play(state, Kind.PASSED_OUT)


def finish_without_play(state: DealState, kind: Kind) -> DealState:
    from domain.rules.play import finish

    return finish(state, kind)


DEFENCE_CHOICES: tuple[Action, ...] = (OPEN, CLOSED)
_WHIST_ONLY: tuple[Action, ...] = (WHIST,)
_WHIST_OR_PASS: tuple[Action, ...] = (WHIST, PASS)
_ANSWERS: tuple[Action, ...] = (ALLOW, REFUSE)
STALINGRAD = Bid.ordinary(6, Strain.SPADES)
"""The contract on which Stalingrad makes both defenders whist."""
_CLOSED_ONLY: tuple[Action, ...] = (CLOSED,)
