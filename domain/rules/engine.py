"""The whole interface of the rules core: ``new_deal``, ``legal_actions``, ``apply``.

``apply`` never mutates: it returns a new ``DealState`` or raises ``IllegalAction`` (with the
allowed actions and a message a player understands) and leaves the old state as it was.
"""

from __future__ import annotations

from collections.abc import Callable

from domain.rules import auction, duo, play, underbid, whisting, writeoff
from domain.rules.actions import ACCEPT, REJECT, Action, PlayCard
from domain.rules.dealing import DealtCards
from domain.rules.errors import GameOver, InvalidAction, NotYourTurn
from domain.rules.ruleset import DEFAULT, RuleSet
from domain.rules.seats import DUMMY, first_hand, hand_mask, positions, seat_name
from domain.rules.state import AuctionState, DealState, Phase, PlayState, WhistState

_EMPTY_AUCTION = AuctionState((), -1, -1, 0, 0, -1)
_EMPTY_WHIST = WhistState((), (), -1, False, None)


def new_deal(
    dealt: DealtCards,
    dealer: int,
    rules: RuleSet = DEFAULT,
    raspasy_streak: int = 0,
    dealer_run: int = 0,
    bomb_streak: int = 0,
) -> DealState:
    """The state right after the deal: the first hand is to call — or, on a compulsory
    raspasy (S000 "Любимовка", ``RuleSet.raspasy_compulsory``), to lead, with no auction.
    In a dark auction (Classic) nobody has looked at his cards yet (``DealState.unseen``);
    ``bomb_streak`` is the number of bomb raspasy in a row before this deal."""
    players = rules.players
    width = positions(players)
    if len(dealt.hands) != width:
        raise InvalidAction(f"a {players}-player deal needs {width} hands")
    seen = 0
    held = hand_mask(dealer, players)
    for seat, hand in enumerate(dealt.hands):
        if hand.bit_count() != (10 if held >> seat & 1 else 0) or hand & seen:
            raise InvalidAction(
                "misdeal: every hand must hold 10 different cards (a sitter's none)"
            )
        seen |= hand
    a, b = dealt.talon
    if a == b or (seen >> a) & 1 or (seen >> b) & 1 or not (0 <= a < 32 and 0 <= b < 32):
        raise InvalidAction("misdeal: the talon must be the two cards not in any hand")
    h1 = first_hand(dealer, players)
    hands = tuple(dealt.hands)
    compulsory = rules.raspasy_compulsory(raspasy_streak)
    return DealState(
        rules=rules,
        dealer=dealer,
        dealt=hands,
        talon=(a, b),
        raspasy_streak=raspasy_streak,
        phase=Phase.PLAY if compulsory else Phase.BIDDING,
        to_act=h1,
        # With two players the dummy has passed before anybody speaks (§3.6, S000 "«Болван»
        # как бы всегда говорит “пас”"); the dealer's opponent speaks first.
        auction=_EMPTY_AUCTION if players != 2 else _EMPTY_AUCTION._replace(passed=1 << DUMMY),
        declarer=-1,
        bid=None,
        discard=0,
        contract=None,
        whist=_EMPTY_WHIST,
        play=PlayState(hands, (), h1, (0,) * width, ()),
        claim=None,
        claim_tries=0,
        open_hands=0,
        talon_open=False,
        result=None,
        dealer_run=dealer_run,
        unseen=held if rules.dark_auction and not compulsory else 0,
        bomb_streak=bomb_streak,
    )


def actor(state: DealState) -> int:
    """The seat that must decide now (-1 when the deal is scored).

    Usually the seat on turn; in open defence with one whister, the whister also decides for
    his partner's hand.
    """
    if state.phase is Phase.PLAY:
        return play.controller(state, state.to_act)
    return state.to_act


def _scored(state: DealState) -> tuple[Action, ...]:
    return ()


def _claim_options(state: DealState) -> tuple[Action, ...]:
    return (ACCEPT, REJECT)


_LEGAL: dict[Phase, Callable[[DealState], tuple[Action, ...]]] = {
    Phase.BIDDING: duo.bidding_options,
    Phase.TALON: auction.talon_options,
    Phase.DISCARD: duo.discard_options,
    Phase.CONTRACT: whisting.contract_options,
    Phase.WHISTING: duo.whist_options,
    Phase.DEFENCE: whisting.defence_options,
    Phase.PLAY: play.legal,
    Phase.CLAIM: _claim_options,
    Phase.WRITE_OFF: writeoff.legal,
    Phase.REVIEW: underbid.legal,
    Phase.SCORED: _scored,
}

_APPLY: dict[Phase, Callable[[DealState, Action], DealState]] = {
    Phase.BIDDING: duo.bid,
    Phase.TALON: auction.talon_apply,
    Phase.DISCARD: duo.discard,
    Phase.CONTRACT: whisting.declare,
    Phase.WHISTING: duo.whist,
    Phase.DEFENCE: whisting.choose_defence,
    Phase.PLAY: play.apply,
    Phase.CLAIM: play.respond,
    Phase.WRITE_OFF: writeoff.apply,
    Phase.REVIEW: underbid.apply,
}


def legal_actions(state: DealState) -> tuple[Action, ...]:
    """Every action the actor may take now (empty once the deal is scored)."""
    return _LEGAL[state.phase](state)


def apply(state: DealState, action: Action, seat: int | None = None) -> DealState:
    """The state after ``action``; if ``seat`` is given it must be the actor."""
    phase = state.phase
    if phase is Phase.PLAY and type(action) is PlayCard and seat is None:
        return play.play_card(state, action.card)  # the hot path
    if phase is Phase.SCORED:
        raise GameOver("the deal is over; nothing more can be played")
    if seat is not None:
        who = actor(state)
        if seat != who:
            raise NotYourTurn(
                f"it is {seat_name(who)}'s turn, not {seat_name(seat)}'s", seat=seat, to_act=who
            )
    after = _APPLY[phase](state, action)
    return duo.settled(after) if after.rules.players == 2 else after
