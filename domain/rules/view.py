"""What one seat may see of a deal at this moment (DESIGN.md "Security model").

A seat sees: its own hand; hands lying face up (open defence, misère defence once opened); the
talon once the declarer has turned it up, or in raspasy each talon card from the trick it sets;
its own discard if it is the declarer; every card played; all calls. Once the deal is scored it
sees everything, for review. ``visible_mask`` is the one place that decides this.

Classic (issue 12): a seat that has not looked (``DealState.unseen``) sees no card of its own
(its ``hand`` is empty) until it looks; a dark game's talon is seen only by its declarer (in
his hand); the talon of a game without talon is seen by all if it is shown, else by nobody
until the deal is scored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from domain.rules.actions import Action
from domain.rules.bids import Bid
from domain.rules.duo import discarder
from domain.rules.state import ClaimState, DealState, Phase, Trick

if TYPE_CHECKING:
    from domain.rules.scoresheet import ScoreSheet


class SeatView(NamedTuple):
    seat: int
    dealer: int
    phase: Phase
    to_act: int
    """The hand on turn (-1 when scored)."""
    actor: int
    """The seat that must decide now (-1 when scored)."""
    hand: int
    """This seat's current cards (mask)."""
    hands: tuple[int | None, ...]
    """Every seat's current cards where visible to this seat, else ``None``."""
    dealt: tuple[int, ...] | None
    """The hands as dealt, once the deal is over."""
    talon: tuple[int | None, int | None]
    """Each talon card where visible, else ``None``."""
    discard: int | None
    """The declarer's discard, for the declarer (and for all once the deal is over)."""
    auction: tuple[tuple[int, Action], ...]
    declarer: int
    bid: Bid | None
    contract: Bid | None
    whist_calls: tuple[tuple[int, Action], ...]
    whisters: tuple[int, ...]
    open_defence: bool | None
    trick: tuple[tuple[int, int], ...]
    leader: int
    history: tuple[Trick, ...]
    tricks: tuple[int, ...]
    claim: ClaimState | None
    raspasy_streak: int
    legal: tuple[Action, ...]
    """This seat's legal actions if it is the actor, else empty."""
    shown: int | None = None
    """The misère declarer's twelve cards shown to all before his discard (S003/S004,
    ``RuleSet.misere_shows_twelve``), from the talon taking to the end of the deal."""
    unseen: int = 0
    """Classic: the seats that have not looked at their cards yet (mask)."""
    dark: bool = False
    """Classic: the contract is a dark game."""
    no_talon: bool = False
    """The contract is played without talon."""
    bomb: int = 0
    """Classic: the bomb level of this raspasy (0 for none)."""
    bombers: int = 0
    """Classic: the seats that declared or joined the bomb standing or played (mask)."""
    bomb_call: int = 0
    """Classic: the level a bomb declared or joined in this auction has (0 without bombs):
    ``rules.bomb_level`` of the bomb raspasy just before this deal."""
    sheet: ScoreSheet | None = None
    """The game's scoresheet before this deal (public: every player sees the sheet), when the
    view is made for a game (``game.game_seat_view``); ``None`` for a bare deal."""
    bomb_signs: tuple[tuple[int, ...], ...] = ()
    """The bomb signs each seat owes, in order (public, on the sheet), with ``sheet``."""
    pool_target: int = 0
    """The table's pool length (the ordered one once ordered), with ``sheet``; 0 without."""


def shown_cards(state: DealState) -> int:
    """The misère declarer's twelve cards if the rules have him show them and he has taken the
    talon (RULES.md §3.1 "Misère card exposure"); else 0. Which two he discards stays secret."""
    bid = state.bid
    if not (state.rules.misere_shows_twelve and state.talon_open and bid is not None):
        return 0
    if state.no_talon:
        return 0
    if not bid.is_misere:
        return 0
    return state.dealt[state.declarer] | (1 << state.talon[0]) | (1 << state.talon[1])


def _hand_visible(state: DealState, viewer: int, seat: int) -> bool:
    if state.phase is Phase.SCORED:
        return True
    if (state.unseen >> seat) & 1 and not (state.open_hands >> seat) & 1:
        return False  # Classic: not even its owner has looked at it
    if seat == state.declarer and state.phase is Phase.DISCARD and shown_cards(state):
        return True  # S003/S004: the misère declarer's twelve cards lie open until he discards
    if seat == viewer or (state.open_hands >> seat) & 1:
        return True
    # The dealer on the talon who looked at a hand (a returned whist, a misère invitation).
    return bool(state.peeks) and (viewer, seat) in state.peeks


def _talon_visible(state: DealState, index: int) -> bool:
    if state.talon_open or state.phase is Phase.SCORED:
        return True
    # Raspasy: the first talon card is turned up for trick 1, the second for trick 2 (§1.9);
    # a closed talon (§3.3, Rostov) stays hidden until the deal is scored.
    return state.raspasy and len(state.play.history) >= index and state.rules.raspasy_talon_leads


def visible_mask(state: DealState, viewer: int) -> int:
    """Every card ``viewer`` may see now: the whole deal's secret-bearing cards, as one mask."""
    mask = 0
    for seat in range(len(state.play.hands)):
        if _hand_visible(state, viewer, seat):
            mask |= state.play.hands[seat]
    for index, card in enumerate(state.talon):
        if _talon_visible(state, index):
            mask |= 1 << card
    if _discard_visible(state, viewer):
        mask |= state.discard
    for trick in state.play.history:
        for _, card in trick.cards:
            mask |= 1 << card
    for _, card in state.play.trick:
        mask |= 1 << card
    return mask | shown_cards(state)


def _discard_visible(state: DealState, viewer: int) -> bool:
    """The declarer sees his discard (all do once the deal is over); the talon put aside by a
    game without talon is seen as the talon is (``no_talon_shown``)."""
    if not state.discard:
        return False
    if state.phase is Phase.SCORED:
        return True
    if state.no_talon:
        return state.talon_open
    return viewer == discarder(state)  # the declarer's; two players "с вареником" (§3.6)


def visible_cards(
    state: DealState, viewer: int
) -> tuple[tuple[int | None, ...], tuple[int | None, int | None]]:
    """The hands (``None`` where hidden) and talon cards ``viewer`` may see now: the part of
    ``seat_view`` that says what is revealed, without the rest of the view."""
    hands = tuple(
        state.play.hands[s] if _hand_visible(state, viewer, s) else None
        for s in range(len(state.play.hands))
    )
    talon = (
        state.talon[0] if _talon_visible(state, 0) else None,
        state.talon[1] if _talon_visible(state, 1) else None,
    )
    return hands, talon


def _bombers(state: DealState) -> int:
    """The bombers of the bomb played, or of the bomb standing in the auction (none once a game
    has beaten it: "когда бомбу перебили … ее не записывают")."""
    if state.bomb:
        return state.bombers
    return state.auction.bombers if state.auction.high < 0 else 0


def seat_view(state: DealState, seat: int) -> SeatView:
    """The deal as ``seat`` sees it now."""
    from domain.rules.engine import actor, legal_actions

    who = actor(state) if state.phase is not Phase.SCORED else -1
    over = state.phase is Phase.SCORED
    hands, talon = visible_cards(state, seat)
    return SeatView(
        seat=seat,
        dealer=state.dealer,
        phase=state.phase,
        to_act=state.to_act,
        actor=who,
        hand=state.play.hands[seat] if _hand_visible(state, seat, seat) else 0,
        hands=hands,
        dealt=state.dealt if over else None,
        talon=talon,
        discard=state.discard if _discard_visible(state, seat) else None,
        auction=state.auction.calls,
        declarer=state.declarer,
        bid=state.bid,
        contract=state.contract,
        whist_calls=state.whist.calls,
        whisters=state.whist.whisters,
        open_defence=state.whist.open,
        trick=state.play.trick,
        leader=state.play.leader,
        history=state.play.history,
        tricks=state.play.tricks,
        claim=state.claim,
        raspasy_streak=state.raspasy_streak,
        legal=legal_actions(state) if who == seat else (),
        shown=shown_cards(state) or None,
        unseen=state.unseen,
        dark=state.dark,
        no_talon=state.no_talon,
        bomb=state.bomb,
        bombers=_bombers(state),
        bomb_call=state.rules.bomb_level(state.bomb_streak) if state.rules.bombs else 0,
    )
