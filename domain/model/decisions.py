"""What each decision event means: the one table between a game's decision events and the
rules' actions they record.

Every row names a decision event and says, both ways, which action it records: ``read`` turns
a recorded event into its action, ``write`` turns an action (and the deal it is made in) into
the event's fields. ``record`` picks the row for an action; ``action_of`` reads any event.
The aggregate records decisions with ``record`` and replays them with ``action_of``; replay,
the hand record, the audit, the projections and the watch stream read events with
``action_of``, so the meaning of an event is written down here and nowhere else.

Some actions are recorded as one of several events, depending on the deal they are made in
(a pass in the auction or when whisting; a whist, or the return whist after a half-whist; a
bid, or misère): ``fits`` says which, and ``misfit`` explains to an auditor a recorded event
that contradicts its deal.

Why over 400 lines: it is the one table of event meanings on purpose (issue 10): one row per
decision event of every system, each with its read and write.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.rules import (
    ACCEPT,
    ALLOW,
    CLOSED,
    HALF_WHIST,
    HERE,
    OPEN,
    OWN_WHIST,
    PASS,
    REFUSE,
    REJECT,
    TAKE_TALON,
    TO_POOL,
    WHIST,
    WRITE_OFF,
    Action,
    Bid,
    Call,
    Card,
    Claim,
    Phase,
    parse_cards,
)
from domain.rules.actions import (
    BOMB,
    CALLS,
    CONCEDE,
    DARK_CALLS,
    DECLARES,
    DISCARDS,
    GIFTS,
    INVITE_DEALER,
    LOOK,
    NO_TALON_CALLS,
    OWN_CARDS_WHIST,
    PLAYS,
    PREFERANS,
    RETRACT_PASS,
    RETURN_TALON,
    UNDERBID,
    VIEW_HANDS,
    AcceptClaim,
    AnswerOwnWhist,
    Bomb,
    ChooseDefence,
    ClaimUnderbid,
    Concede,
    DarkCall,
    Declare,
    DeclarePreferans,
    Discard,
    GiveCards,
    HalfWhist,
    Here,
    InviteDealer,
    Look,
    NoTalonCall,
    OwnCardsWhist,
    OwnWhist,
    Pass,
    PlayCard,
    RejectClaim,
    RetractPass,
    ReturnTalon,
    TakeTalon,
    ViewHand,
    Whist,
    WriteOff,
)
from domain.rules.bids import MISERE_INDEX
from domain.rules.sitters import is_sitter
from domain.rules.state import DealState

EVENT_PREFIX = "preferans.v1."
"""The start of every game event's topic (``preferans.v1.CardPlayed``)."""


def event_name(event: Any) -> str:
    """The event's stable name: its topic without ``preferans.v1.``."""
    return class_event_name(type(event))


def class_event_name(cls: type) -> str:
    """``event_name`` of the events of class ``cls``."""
    topic: str = getattr(cls, "TOPIC")  # noqa: B009 - every event class has one
    return topic.removeprefix(EVENT_PREFIX)


Fields = dict[str, Any]


def _nothing(action: Any, deal: DealState) -> Fields:
    return {}


def _always(action: Any, deal: DealState) -> bool:
    return True


@dataclass(frozen=True)
class Decision:
    """One decision event: its name and the action it records, both ways."""

    name: str
    """The event's name (its topic without ``preferans.v1.``), also its class in ``Game``."""
    kind: type
    """The class of the actions it records."""
    read: Callable[[Any], Action]
    """The recorded event → its action (raises on a field that is not what it should be)."""
    write: Callable[[Any, DealState], Fields] = _nothing
    """The action, and the deal before it, → the event's own fields (beyond seat and request)."""
    fits: Callable[[Any, DealState], bool] = _always
    """Whether this event (and not another of the same ``kind``) records the action here."""
    misfit: Callable[[DealState], str] | None = None
    """For the audit: why this event contradicts the deal it is recorded in (when ``fits``
    fails); ``None`` where the audit's replay of the action itself decides."""


def _talon(action: TakeTalon, deal: DealState) -> Fields:
    return {"cards": " ".join(str(Card(c)) for c in deal.talon)}


def _pair_of(table: Mapping[tuple[int, int], Action]) -> Callable[[Any], Action]:
    """The reader of a recorded pair of cards (a discard, a gift): the table's shared value."""

    def read(event: Any) -> Action:
        a, b = parse_cards(event.cards)
        return table[min(a, b), max(a, b)]

    return read


def _cards(action: Discard | GiveCards, deal: DealState) -> Fields:
    return {"cards": f"{action.cards[0]} {action.cards[1]}"}


def _boolean(value: Any) -> bool:
    if type(value) is not bool:
        raise TypeError(f"{value!r:.40} is not a boolean")
    return value


def _phase_name(deal: DealState) -> str:
    return deal.phase.name.lower()


def _whisting(deal: DealState) -> bool:
    """The defenders' whisting (not the dealer's returned whist, ``_sitter_turn``)."""
    return deal.phase is Phase.WHISTING and not is_sitter(deal, deal.to_act)


def _sitter_turn(deal: DealState) -> bool:
    """Four or five players: the dealer (or the sitter-out) may return the whist (TV-24)."""
    return deal.phase is Phase.WHISTING and is_sitter(deal, deal.to_act)


def _seat_of(value: Any) -> int:
    if type(value) is not int or not 0 <= value < len(VIEW_HANDS):
        raise ValueError(f"{value!r:.40} is not a seat")
    return value


def _half_whist_stands(deal: DealState) -> bool:
    return deal.whist.half_whister >= 0


def _reconsidering(deal: DealState) -> bool:
    """Pass – pass – whist (RULES.md §3.2): the first defender speaks again after two passes."""
    return _whisting(deal) and [call for _, call in deal.whist.calls] == [PASS, PASS]


def _checking(deal: DealState) -> bool:
    """A checked ten (A-17): a whist checks the ten instead of taking on a defence."""
    contract = deal.contract
    return _whisting(deal) and contract is not None and deal.rules.is_checked(contract.level)


def _first_whist(deal: DealState) -> bool:
    return not _sitter_turn(deal) and not (
        _whisting(deal) and (_half_whist_stands(deal) or _reconsidering(deal) or _checking(deal))
    )


DECISIONS: tuple[Decision, ...] = (
    Decision(
        "BidCalled",
        Call,
        lambda e: CALLS[Bid.parse(e.bid).index],
        lambda a, d: {"bid": str(a.bid)},
        fits=lambda a, d: not a.bid.is_misere,
        misfit=lambda d: "a misère recorded as a bid (a misère is its own event)",
    ),
    Decision(
        "MisereCalled",
        Call,
        lambda e: CALLS[MISERE_INDEX],
        fits=lambda a, d: a.bid.is_misere and d.phase is Phase.BIDDING,
        misfit=lambda d: (
            f"a misère call in the {_phase_name(d)} phase (a dark declarer's switch to misère"
            " is its own event)"
        ),
    ),
    # Classic (issue 12, RULES.md §3.5, §3.1 "Games without talon")
    Decision("CardsLooked", Look, lambda e: LOOK),
    Decision(
        "BombDeclared",
        Bomb,
        lambda e: BOMB,
        fits=lambda a, d: not d.auction.bombers,
        misfit=lambda d: "a bomb recorded as declared, but one stands already (it is joined)",
    ),
    Decision(
        "BombJoined",
        Bomb,
        lambda e: BOMB,
        fits=lambda a, d: bool(d.auction.bombers),
        misfit=lambda d: "a bomb recorded as joined, but none has been declared",
    ),
    Decision(
        "DarkBidCalled",
        DarkCall,
        lambda e: DARK_CALLS[Bid.parse(e.bid).index],
        lambda a, d: {"bid": str(a.bid)},
    ),
    Decision(
        "NoTalonBidCalled",
        NoTalonCall,
        lambda e: NO_TALON_CALLS[Bid.parse(e.bid).index],
        lambda a, d: {"bid": str(a.bid)},
    ),
    Decision(
        "DarkSwitchedToMisere",
        Call,
        lambda e: CALLS[MISERE_INDEX],
        fits=lambda a, d: a.bid.is_misere and d.phase is Phase.TALON,
        misfit=lambda d: f"a switch to misère in the {_phase_name(d)} phase",
    ),
    Decision("HereSaid", Here, lambda e: HERE),
    Decision(
        "AuctionPassed",
        Pass,
        lambda e: PASS,
        fits=lambda a, d: d.phase is Phase.BIDDING,
        misfit=lambda d: f"an auction pass in the {_phase_name(d)} phase",
    ),
    # Two players (issue 13, RULES.md §3.6): the first passer takes his pass back.
    Decision("PassRetracted", RetractPass, lambda e: RETRACT_PASS),
    Decision("TalonTaken", TakeTalon, lambda e: TAKE_TALON, _talon),
    # Four and five players (issue 13, RULES.md §3.1, §3.6; ``domain.rules.sitters``)
    Decision("TalonReturned", ReturnTalon, lambda e: RETURN_TALON),
    Decision("DealerInvited", InviteDealer, lambda e: INVITE_DEALER),
    Decision(
        "InvitationAccepted",
        AcceptClaim,
        lambda e: ACCEPT,
        fits=lambda a, d: d.phase is Phase.TALON,
        misfit=lambda d: f"an invitation accepted in the {_phase_name(d)} phase",
    ),
    Decision(
        "InvitationRejected",
        RejectClaim,
        lambda e: REJECT,
        fits=lambda a, d: d.phase is Phase.TALON,
        misfit=lambda d: f"an invitation rejected in the {_phase_name(d)} phase",
    ),
    # Two players "с вареником": the first hand gives two cards of the talon and his hand.
    Decision("CardsGiven", GiveCards, _pair_of(GIFTS), _cards),
    Decision("CardsDiscarded", Discard, _pair_of(DISCARDS), _cards),
    Decision("PreferansDeclared", DeclarePreferans, lambda e: PREFERANS),
    Decision(
        "ContractDeclared",
        Declare,
        lambda e: DECLARES[Bid.parse(e.contract).index],
        lambda a, d: {"contract": str(a.contract)},
    ),
    Decision("WithoutThreeGone", Concede, lambda e: CONCEDE),
    Decision(
        "WhistCalled",
        Whist,
        lambda e: WHIST,
        fits=lambda a, d: _first_whist(d),
        misfit=lambda d: (
            "a whist recorded as a first whist, but it is a check, a reconsideration or a"
            " half-whist stands"
        ),
    ),
    Decision(
        "WhistReconsidered",
        Whist,
        lambda e: WHIST,
        fits=lambda a, d: _reconsidering(d),
        misfit=lambda d: "a whist recorded as a reconsideration, but not after two passes",
    ),
    Decision(
        "TenChecked",
        Whist,
        lambda e: WHIST,
        fits=lambda a, d: _checking(d),
        misfit=lambda d: "a whist recorded as a check, but no checked ten is being whisted",
    ),
    Decision(
        "WhistPassed",
        Pass,
        lambda e: PASS,
        fits=lambda a, d: _whisting(d),
        misfit=lambda d: f"a whist pass in the {_phase_name(d)} phase",
    ),
    Decision("HalfWhistCalled", HalfWhist, lambda e: HALF_WHIST),
    # Two players (``duo_whist_own_cards``): a whist on the whister's own cards only.
    Decision("OwnCardsWhistCalled", OwnCardsWhist, lambda e: OWN_CARDS_WHIST),
    Decision(
        "WhistReturned",
        Whist,
        lambda e: WHIST,
        fits=lambda a, d: not _sitter_turn(d) and (not _whisting(d) or _half_whist_stands(d)),
        misfit=lambda d: "a whist recorded as a return whist, but no half-whist stands",
    ),
    Decision(
        "HandViewed",
        ViewHand,
        lambda e: VIEW_HANDS[_seat_of(e.viewed)],
        lambda a, d: {"viewed": a.seat},
    ),
    Decision(
        "WhistReturnedByDealer",
        Whist,
        lambda e: WHIST,
        fits=lambda a, d: _sitter_turn(d),
        misfit=lambda d: "a dealer's returned whist, but no dealer on the talon is asked",
    ),
    Decision(
        "DealerWhistPassed",
        Pass,
        lambda e: PASS,
        fits=lambda a, d: _sitter_turn(d),
        misfit=lambda d: "a dealer's pass, but no dealer on the talon is asked",
    ),
    Decision("OwnWhistOffered", OwnWhist, lambda e: OWN_WHIST),
    Decision(
        "OwnWhistAnswered",
        AnswerOwnWhist,
        lambda e: ALLOW if e.allow else REFUSE,
        lambda a, d: {"allow": a.allow},
    ),
    Decision(
        "DefenceChosen",
        ChooseDefence,
        lambda e: OPEN if e.open else CLOSED,
        lambda a, d: {"open": a.open},
    ),
    Decision(
        "CardPlayed",
        PlayCard,
        lambda e: PLAYS[Card.parse(e.card)],
        lambda a, d: {"card": str(a.card)},
    ),
    Decision(
        "ClaimMade",
        Claim,
        lambda e: Claim(tuple(e.tricks)),
        lambda a, d: {"tricks": list(a.tricks)},
    ),
    Decision(
        "WriteOffChosen",
        WriteOff,
        lambda e: WRITE_OFF if _boolean(e.write_off) else TO_POOL,
        lambda a, d: {"write_off": a.off},
    ),
    Decision(
        "ClaimAccepted",
        AcceptClaim,
        lambda e: ACCEPT,
        fits=lambda a, d: d.phase is Phase.CLAIM,
        misfit=lambda d: f"a claim accepted in the {_phase_name(d)} phase",
    ),
    Decision(
        "ClaimRejected",
        RejectClaim,
        lambda e: REJECT,
        fits=lambda a, d: d.phase is Phase.CLAIM,
        misfit=lambda d: f"a claim rejected in the {_phase_name(d)} phase",
    ),
    Decision("UnderbidClaimed", ClaimUnderbid, lambda e: UNDERBID),
    Decision(
        "UnderbidWaived",
        Pass,
        lambda e: PASS,
        fits=lambda a, d: d.phase is Phase.REVIEW,
        misfit=lambda d: f"an underbid review pass in the {_phase_name(d)} phase",
    ),
)
"""Every decision event, in the order of a deal."""

BY_NAME: dict[str, Decision] = {row.name: row for row in DECISIONS}
"""Each decision event's row, by the event's name."""

_BY_KIND: dict[type, tuple[Decision, ...]] = {}
for _row in DECISIONS:
    _BY_KIND[_row.kind] = (*_BY_KIND.get(_row.kind, ()), _row)
del _row


def action_of(event: Any) -> Action | None:
    """The action a decision event records, or ``None`` for the other events."""
    row = BY_NAME.get(event_name(event))
    return None if row is None else row.read(event)


def record(action: Action, deal: DealState) -> tuple[Decision, Fields]:
    """The event that records ``action`` (already validated) in ``deal``, and its fields."""
    for row in _BY_KIND.get(type(action), ()):
        if row.fits(action, deal):
            return row, row.write(action, deal)
    raise LookupError(f"no event records {action!r} in the {_phase_name(deal)} phase")
