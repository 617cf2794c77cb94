"""The bot: a deterministic policy ``SeatView -> Action`` that plays like a careful human.

``Bot.decide`` dispatches on the phase to the auction, talon and whisting decisions of
``domain.bots.auction`` and to the card play of ``domain.bots.tricks`` (trick contracts) and
``domain.bots.ducking`` (misère, raspasy). It reads only the view, so it never sees a hidden
card, and it uses no randomness: the same view always gives the same action. Claims are never
made; a claim by another player is accepted exactly when it is guaranteed
(``domain.bots.claims``: every layout of the unseen cards, every defence), else rejected. In a
Classic dark auction (issue 12) it may declare or join a bomb or bid a dark six before
looking, when ``domain.bots.classic`` finds the blind gamble sensible from the public part of
its view; otherwise it looks first and bids, without talon where that is the cheaper call its
hand supports. As a dark declarer it looks, then switches to misère with a misère hand or
takes the talon.

At a table of four or five (RULES.md §3.6) a seat without a hand this deal (the dealer on the
talon, the fifth player sitting out) decides only where the rules give it the dealer's rights
(``domain.rules.sitters``), in ``sitter_choice``: invited to share a misère, it accepts when the
declarer's cards it was shown are as safe as the bot would want its own for a misère; it joins
no bomb and returns no whist (the two passers' hands fell short of the bots' own whisting
thresholds, so the whist alone on both would too). Had it returned a whist, it would play the
passers' open hands like any defender.
"""

from __future__ import annotations

from domain.bots import auction, classic
from domain.bots.claims import claim_guaranteed
from domain.bots.ducking import ducking_card
from domain.bots.evaluate import misere_danger
from domain.bots.knowledge import Table, seats_of
from domain.bots.tricks import trick_card
from domain.rules.actions import (
    ACCEPT,
    LOOK,
    PASS,
    PLAYS,
    PREFERANS,
    REJECT,
    TAKE_TALON,
    TO_POOL,
    Action,
    PlayCard,
)
from domain.rules.state import Phase
from domain.rules.view import SeatView


class Bot:
    """A Preferans player for one seat; call it with the seat's view to get its action."""

    __slots__ = ("style",)

    def __init__(self, style: str = "normal") -> None:
        if style not in auction.STYLES:
            known = ", ".join(auction.STYLES)
            raise ValueError(f"unknown bot style {style!r}; known: {known}")
        self.style = auction.STYLES[style]

    def __repr__(self) -> str:
        return f"Bot(style={self.style.name!r})"

    def decide(self, view: SeatView) -> Action:
        """The bot's choice for ``view`` (``view.legal`` must not be empty)."""
        phase = view.phase
        if phase in SITTER_PHASES and view.seat not in seats_of(view):
            return sitter_choice(view, self.style.misere_danger)
        if phase is Phase.PLAY:
            return play_card(view)
        if LOOK in view.legal:  # Classic: a bomb, a join or a dark six, else it looks
            blind = classic.unseen_call(view) if phase is Phase.BIDDING else None
            return LOOK if blind is None else blind
        if phase is Phase.BIDDING:
            choice = auction.bid(view, self.style)
            return classic.no_talon_call(view, self.style.talon_allowance, choice)
        if phase is Phase.TALON:
            if view.dark:  # the dark declarer has looked: misère if his cards fit
                return classic.talon_choice(view, self.style.misere_danger)
            return TAKE_TALON
        if phase is Phase.DISCARD:
            if PREFERANS in view.legal:  # it ends the game at once in his favour (TV-40)
                return PREFERANS
            return auction.discard(view)
        if phase is Phase.CONTRACT:
            return auction.declare(view)
        if phase is Phase.WHISTING:
            return auction.whist(view, self.style)
        if phase is Phase.DEFENCE:
            return auction.defence_choice(view)
        if phase is Phase.CLAIM:
            return ACCEPT if claim_guaranteed(view) else REJECT
        if phase is Phase.WRITE_OFF:
            return write_off_choice(view)
        if phase is Phase.REVIEW:
            return auction.review(view)
        raise ValueError(f"nothing to decide in phase {phase}")

    def __call__(self, view: SeatView) -> Action:
        """``decide``, guarded: should a decision ever fall outside ``view.legal``, the first
        legal action is played instead, so a game can never stop on a bot."""
        action = self.decide(view)
        if action in view.legal:
            return action
        return view.legal[0]


SITTER_PHASES = frozenset({Phase.BIDDING, Phase.TALON, Phase.WHISTING})
"""The phases in which a seat without a hand may be asked (a bomb to join, a misère to share, a
whist to return); in the play it acts only for hands it defends."""


def sitter_choice(view: SeatView, misere_limit: int) -> Action:
    """A seat without a hand this deal (§3.6), asked by the rules: on a misère invitation
    (``ACCEPT``/``REJECT`` before the talon is taken) it accepts when the declarer's cards it
    was shown have a misère exposure of at most ``misere_limit``; otherwise it passes where it
    may, else it takes the first action offered."""
    legal = view.legal
    if ACCEPT in legal and REJECT in legal and view.declarer >= 0:
        shown = view.hands[view.declarer]
        safe = shown is not None and misere_danger(shown) <= misere_limit
        return ACCEPT if safe else REJECT
    return PASS if PASS in legal else legal[0]


def write_off_choice(view: SeatView) -> Action:
    """An unwhisted contract's points (S000 conv.): to the pool. A seat's view shows no
    scoresheet, and pool points are what close a pool and end the game, so the bot keeps
    S001's recording; writing off gora is left to players who weigh the sheet."""
    return TO_POOL


def play_card(view: SeatView) -> PlayCard:
    """The card to play for the hand on turn (the seat's own, or its open partner's)."""
    table = Table.of(view)
    card = ducking_card(table) if table.raspasy or table.misere else trick_card(table)
    return PLAYS[card]


def make_bot(style: str = "normal") -> Bot:
    """A bot policy of the given style: ``"cautious"``, ``"normal"`` or ``"bold"``."""
    return Bot(style)
