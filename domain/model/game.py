"""The ``Game`` aggregate: one pulya as an event-sourced stream (see docs/EVENTS.md).

One aggregate per game, not one per deal: the game is the consistency boundary of Preferans.
The scoresheet, the dealer rotation, the raspasy streak, the turn order across deal boundaries and
the request-id log all span deals, and finishing a deal must record its score and deal the next
one atomically. One stream per game gives one optimistic-concurrency check per command, atomic
deal boundaries without cross-aggregate saves, and one ordered log per game for replay and
audit. The cost, a longer stream (about 30–40 events a deal), is paid only on a cold load;
commands are served from the application's aggregate cache.

Decide, then record, and apply once: each public command computes the game's next state with
the rules core (which validates it), then triggers one event. Its body assigns that state as
computed (``_Outcome``); only when the event is replayed from the store does the body compute
it, from the recorded fields. What each decision event records is ``domain.model.decisions``'s
table. No raising, no clock, no shuffling inside an event body; the shuffle of each deal is
derived before and recorded.

Over 400 lines, on purpose: the library registers the topics of the event classes declared in
the aggregate's body and runs the ``@event`` bodies as methods of it, so the game's events (their
stored shape, about 150 lines) and their bodies live here, next to the commands of the one
aggregate a game is (above). Their meaning is elsewhere: ``domain.model.decisions``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from eventsourcing.domain import Aggregate, event

from domain.model.chain import GENESIS, link, stored_chain
from domain.model.clock import (
    Clock,
    clock_after,
    default_action,
    ms_of,
    start_clock,
)
from domain.model.codec import (
    TIME_FINGERPRINT,
    abort_fingerprint,
    action_fingerprint,
    entry_to_dict,
    order_fingerprint,
    replace_fingerprint,
    score_to_dict,
    settlement_from_strings,
    settlement_to_strings,
    stop_fingerprint,
)
from domain.model.decisions import BY_NAME, DECISIONS, EVENT_PREFIX, event_name, record
from domain.model.disputes import (
    adjusted,
    check_adjustment,
    check_reason,
    flag_fingerprint,
    ruling_fingerprint,
)
from domain.model.leaving import (
    FORFEIT,
    TIMEOUT_FINGERPRINT,
    Adjourned,
    Moot,
    NotDue,
    adjourn_fingerprint,
    agreement,
    bot_seats_after,
    check_person,
    forfeits,
    persons,
    resume_fingerprint,
)
from domain.model.replay import aborted
from domain.model.stakes import difference, money
from domain.model.terms import TimeControl, fresh_bot_id
from domain.rules import (
    Action,
    Card,
    GameState,
    Phase,
    RuleSet,
    Shuffle,
    agree_stop,
    apply,
    awaiting_order,
    call_time,
    deal_cards,
    finish_deal,
    legal_actions,
    new_game,
    order_game,
    played_sign,
    replace_player,
    settle_game,
    shuffle_for,
    start_deal,
)
from domain.rules.cards import card_list
from domain.rules.errors import GameOver, IllegalAction, InvalidAction
from domain.rules.game import with_deal
from domain.rules.state import DealState


class RequestReused(InvalidAction):
    """A request id was sent again with a different command."""


class AbortRefused(IllegalAction):
    """A game is aborted only before its first deal is scored (``Game.abort``)."""


GAME_ID_NAMESPACE = uuid.UUID("6f1d8a52-0c4b-4b7e-9a59-3d1f0e2a7c11")


def game_id_for(request_id: str) -> uuid.UUID:
    """A game's id follows from the request that created it, so a retried creation finds it."""
    return uuid.uuid5(GAME_ID_NAMESPACE, request_id)


@dataclass(frozen=True)
class _Outcome:
    """What a command computed for the event it is about to trigger (never stored)."""

    before: GameState
    """The state the command computed from; the event's body takes ``after`` only from it."""
    after: GameState
    action: Action | None = None
    """The decision, for decision events."""


class _Decided:
    """The body of every decision event: apply the action it records (``Game._decided``)."""

    def apply(self, aggregate: Any) -> None:
        aggregate._decided(self)


class _Ledger:
    """The body of both ledger events: note the money moved (``Game.ledger``)."""

    def apply(self, aggregate: Any) -> None:
        event: Any = self  # a ledger event: ``StakesSettled`` or ``StakesAdjusted``
        aggregate.ledger.append(list(event.amounts))
        aggregate._note(event.request_id)


class Game(Aggregate):
    """One game (pulya) of three players."""

    TOPIC = "preferans.v1.Game"

    @staticmethod
    def create_id(request_id: str) -> uuid.UUID:
        return game_id_for(request_id)

    class Event(Aggregate.Event):
        TOPIC = EVENT_PREFIX + "Event"
        seat: int
        request_id: str

        def mutate(self, aggregate: Any) -> Any:
            """Bind the event to the one before it (``chain``, docs/AUDIT.md), then apply it.

            A new event gets its ``chain`` here, from the game's chain head, so the stored event
            includes it; a stored event keeps the value it was recorded with (the audit, not
            the aggregate, checks it). Events recorded before tamper evidence have none: they
            get one in memory only, so later events still chain on."""
            if stored_chain(self) is None:
                previous = GENESIS if aggregate is None else aggregate._chain_head
                object.__setattr__(self, "chain", link(previous, self))
            game: Any = super().mutate(aggregate)
            game._chain_head = self.__dict__["chain"]
            game._tick(self)
            return game

    class Created(Event, Aggregate.Created):
        TOPIC = EVENT_PREFIX + "GameCreated"
        players: list[str]
        rules: dict[str, Any]
        league: str
        seed_commitment: str
        token_hashes: list[str]
        first_dealer: int
        # The game's terms (``domain.model.terms``), recorded since 2026-12. Not an upcast:
        # an event stored without them reads these defaults (no clock, no bots, no stake) and
        # keeps exactly the fields it was stored with, so its chain (docs/AUDIT.md) still holds.
        time_control: dict[str, Any] | None = None
        bot_seats: list[int] | None = None
        stake_per_whist: int = 0

    class DealDealt(Event):
        """A deal was dealt: the shuffle (deck order, talon pair) and the resulting hands."""

        TOPIC = EVENT_PREFIX + "DealDealt"
        class_version = 2
        number: int
        dealer: int
        deck: list[int]
        talon_pair: int
        hands: list[str]
        talon: str

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Version 1 recorded only the shuffle; version 2 also records the dealt hands
            and the talon in notation. Old logs get them derived from the shuffle."""
            dealt = deal_cards(state["deck"], state["dealer"], state["talon_pair"])
            state["hands"] = [card_list(hand) for hand in dealt.hands]
            state["talon"] = " ".join(str(Card(c)) for c in dealt.talon)

    class DealFlagged(Event):
        """A seat disputes a scored deal (docs/AUDIT.md, "Disputes"); it changes no score."""

        TOPIC = EVENT_PREFIX + "DealFlagged"
        deal_number: int
        reason: str

    class RulingRecorded(Event):
        """An auditor's ruling on a scored deal: a scoresheet adjustment, or ``None`` for "no
        change"; once the game has ended, the settlement that follows from the adjusted sheet."""

        TOPIC = EVENT_PREFIX + "RulingRecorded"
        deal_number: int
        reason: str
        auditor: str
        adjustment: dict[str, Any] | None
        settlement: list[str] | None

    class TimeCalled(Event):
        """Time is called in a game played until time (``rules.ending_by_time``; RULES.md
        §3.4): recorded by the server (seat -1) on the creator's command. The deal in progress
        is played out; then the game ends and is settled by the early-stop rule."""

        TOPIC = EVENT_PREFIX + "TimeCalled"

    class GameOrdered(Event):
        """The seat with the largest gora ordered the game after the initial rounds (S000
        Classic, ``rules.order_game``): the pool length in force from now on and, in a game
        played until time, the end time (seconds since the Unix epoch, UTC; 0 otherwise). The
        first deal of the pool proper follows in the same transaction."""

        TOPIC = EVENT_PREFIX + "GameOrdered"
        pool: int
        ends_at: int
        obligations: dict[str, int] | None = None
        """The robber's obligatory games (``rules.robber``): contract kind → how many times
        every player must declare it (``domain.rules.robber``). An order imposing none
        records no such field (so it is the event recorded before the robber existed)."""

        def __post_init__(self) -> None:
            if self.obligations is None:  # the event as recorded before obligations existed
                del self.__dict__["obligations"]

    class EarlyStopAgreed(Event):
        """A seat agrees to stop the game now (RULES.md §3.0, TV-27). When every seat has agreed
        during the same deal, the game ends at once (the deal unplayed) and ``GameFinished``
        follows with the early-stop settlement."""

        TOPIC = EVENT_PREFIX + "EarlyStopAgreed"

    class PlayerReplaced(Event):
        """The player at ``seat`` left and ``player`` joined in his place with the others'
        consent (S000 "ПРАВИЛА ДЛЯ ОСОБЫХ СЛУЧАЕВ", TV-27; ``domain.rules.replace_player``),
        recorded by the server on the creator's command. ``replaced_ms`` is when (read at the
        service edge): the seat's tokens issued until then are refused."""

        TOPIC = EVENT_PREFIX + "PlayerReplaced"
        player: str
        replaced_ms: int
        reason: str = ""
        """Why the seat changed hands (``domain.model.leaving``): ``""`` the creator's
        replacement, ``"resigned"`` the player resigned, ``"time"`` he forfeited on time; the
        newcomer of the last two is the server's bot. Recorded since 2026-12; an event with
        ``""`` stores no such field (so it is the event recorded before reasons existed)."""

        def __post_init__(self) -> None:
            if self.reason == "":
                del self.__dict__["reason"]

    class TimeExpired(Event):
        """The seat to act ran out of time (docs/CLOCKS.md): recorded by the server when its
        clock had passed ``deadline_ms`` (the event's timestamp is that moment). Its consequence
        follows in the same save: the seat's default move (``clock.default_action``), or under
        ``on_timeout=forfeit`` the seat's ``PlayerReplaced`` with reason ``"time"``."""

        TOPIC = EVENT_PREFIX + "TimeExpired"
        deadline_ms: int

        def apply(self, aggregate: Any) -> None:
            aggregate._note(self.request_id, TIMEOUT_FINGERPRINT)

    class AdjournmentAgreed(Event):
        """A person's seat agrees to adjourn. When every person's seat has agreed, the game is
        adjourned: the clocks stop and no decision is accepted until it resumes."""

        TOPIC = EVENT_PREFIX + "AdjournmentAgreed"

        def apply(self, aggregate: Any) -> None:
            aggregate._agreed(self, adjourn=True)

    class ResumptionAgreed(Event):
        """A person's seat asks to resume an adjourned game. When every person's seat has
        asked, play resumes and the clocks restart."""

        TOPIC = EVENT_PREFIX + "ResumptionAgreed"

        def apply(self, aggregate: Any) -> None:
            aggregate._agreed(self, adjourn=False)

    class StakesSettled(_Ledger, Event):
        """The game's settlement in virtual money (docs/STAKES.md), recorded by the server (seat
        -1) right after ``GameFinished`` in the same save, when the game has a stake: per
        account of the sheet (``players``, the settlement's order), ``amounts`` in hundredths
        of a coin, ``domain.model.stakes.money`` of the settlement at ``stake_per_whist``."""

        TOPIC = EVENT_PREFIX + "StakesSettled"
        stake_per_whist: int
        players: list[str]
        amounts: list[int]

    class StakesAdjusted(_Ledger, Event):
        """A ruling after the end changed the settlement of a game with a stake: the money
        that moves (the new settlement's money minus the previous one's, per account, in
        hundredths of a coin), recorded right after ``RulingRecorded`` in the same save."""

        TOPIC = EVENT_PREFIX + "StakesAdjusted"
        stake_per_whist: int
        players: list[str]
        amounts: list[int]

    class GameAborted(Event):
        """A seat aborted the game before its first deal was scored: the game ends with no
        settlement, no money and no seed revealed (docs/STAKES.md "Aborting a game")."""

        TOPIC = EVENT_PREFIX + "GameAborted"

    # Decision events: what each records is its row in ``domain.model.decisions``.

    class BidCalled(_Decided, Event):
        TOPIC = EVENT_PREFIX + "BidCalled"
        bid: str

    class MisereCalled(_Decided, Event):
        TOPIC = EVENT_PREFIX + "MisereCalled"

    class CardsLooked(_Decided, Event):
        """Classic: a seat that had not looked at its cards looks at them (RULES.md §3.5)."""

        TOPIC = EVENT_PREFIX + "CardsLooked"

    class BombDeclared(_Decided, Event):
        """Classic: the first pass without looking while nobody declared a game ("бомба")."""

        TOPIC = EVENT_PREFIX + "BombDeclared"

    class BombJoined(_Decided, Event):
        """Classic: a later "бомба" / "пас втемную" joins the standing bomb."""

        TOPIC = EVENT_PREFIX + "BombJoined"

    class DarkBidCalled(_Decided, Event):
        """Classic: a bid (or misère) without looking ("пика втемную")."""

        TOPIC = EVENT_PREFIX + "DarkBidCalled"
        bid: str

    class NoTalonBidCalled(_Decided, Event):
        """A game (or misère) without talon (RULES.md §3.1)."""

        TOPIC = EVENT_PREFIX + "NoTalonBidCalled"
        bid: str

    class DarkSwitchedToMisere(_Decided, Event):
        """Classic: the dark declarer looked and, before taking the talon, chose an ordinary
        misère instead (S000)."""

        TOPIC = EVENT_PREFIX + "DarkSwitchedToMisere"

    class HereSaid(_Decided, Event):
        TOPIC = EVENT_PREFIX + "HereSaid"

    class AuctionPassed(_Decided, Event):
        TOPIC = EVENT_PREFIX + "AuctionPassed"

    class PassRetracted(_Decided, Event):
        """Two players: after both passed, the first passer took his pass back to declare a
        game without bidding (RULES.md §3.6, ``duo_retract_pass``)."""

        TOPIC = EVENT_PREFIX + "PassRetracted"

    class CardsGiven(_Decided, Event):
        """Two players "с вареником": the first hand, holding the talon, gave his opponent
        two cards (RULES.md §3.6, ``duo_all_pass`` "varenik")."""

        TOPIC = EVENT_PREFIX + "CardsGiven"
        cards: str

    class OwnCardsWhistCalled(_Decided, Event):
        """Two players: the whister whists on his own cards only (RULES.md §3.6,
        ``duo_whist_own_cards``)."""

        TOPIC = EVENT_PREFIX + "OwnCardsWhistCalled"

    class TalonTaken(_Decided, Event):
        TOPIC = EVENT_PREFIX + "TalonTaken"
        cards: str

    class CardsDiscarded(_Decided, Event):
        TOPIC = EVENT_PREFIX + "CardsDiscarded"
        cards: str

    class PreferansDeclared(_Decided, Event):
        """The talon taker declared "preferans": the game ends (RULES.md §3.1, TV-40)."""

        TOPIC = EVENT_PREFIX + "PreferansDeclared"

    class ContractDeclared(_Decided, Event):
        TOPIC = EVENT_PREFIX + "ContractDeclared"
        contract: str

    class WithoutThreeGone(_Decided, Event):
        """The talon taker refused to play: "without three" (RULES.md §3.1, S000 conv.)."""

        TOPIC = EVENT_PREFIX + "WithoutThreeGone"

    class WhistCalled(_Decided, Event):
        TOPIC = EVENT_PREFIX + "WhistCalled"

    class WhistPassed(_Decided, Event):
        TOPIC = EVENT_PREFIX + "WhistPassed"

    class HalfWhistCalled(_Decided, Event):
        TOPIC = EVENT_PREFIX + "HalfWhistCalled"

    class WhistReturned(_Decided, Event):
        TOPIC = EVENT_PREFIX + "WhistReturned"

    class WhistReconsidered(_Decided, Event):
        """Pass – pass – whist: the first defender reconsidered after two passes (§3.2)."""

        TOPIC = EVENT_PREFIX + "WhistReconsidered"

    class OwnWhistOffered(_Decided, Event):
        """S004 "свой вист": a defender offers to write for his own tricks without play."""

        TOPIC = EVENT_PREFIX + "OwnWhistOffered"

    class OwnWhistAnswered(_Decided, Event):
        """The declarer allows the own whist (no play) or refuses it (the game is given)."""

        TOPIC = EVENT_PREFIX + "OwnWhistAnswered"
        allow: bool

    class TenChecked(_Decided, Event):
        """A defender checks a ten that is not whisted (A-17, S000)."""

        TOPIC = EVENT_PREFIX + "TenChecked"

    class DefenceChosen(_Decided, Event):
        TOPIC = EVENT_PREFIX + "DefenceChosen"
        open: bool

    class CardPlayed(_Decided, Event):
        TOPIC = EVENT_PREFIX + "CardPlayed"
        card: str

    class ClaimMade(_Decided, Event):
        TOPIC = EVENT_PREFIX + "ClaimMade"
        tricks: list[int]

    class WriteOffChosen(_Decided, Event):
        """The declarer of an unwhisted contract chose its points off his gora (``true``) or
        to the pool (RULES.md §3.4, S000 conv.; rule option ``unwhisted_write_off``)."""

        TOPIC = EVENT_PREFIX + "WriteOffChosen"
        write_off: bool

    # Four and five players (issue 13, RULES.md §3.1, §3.6): the dealer on the talon.
    class TalonReturned(_Decided, Event):
        """The auction's winner left the talon shown to him (rule option ``talon_return``)."""

        TOPIC = EVENT_PREFIX + "TalonReturned"

    class DealerInvited(_Decided, Event):
        """The misère winner invited the dealer to share it (``misere_partner``)."""

        TOPIC = EVENT_PREFIX + "DealerInvited"

    class InvitationAccepted(_Decided, Event):
        """The invited dealer shares the misère's win or loss equally."""

        TOPIC = EVENT_PREFIX + "InvitationAccepted"

    class InvitationRejected(_Decided, Event):
        TOPIC = EVENT_PREFIX + "InvitationRejected"

    class HandViewed(_Decided, Event):
        """After two passes the dealer looked at one passer's cards (``sitter_return_whist``)."""

        TOPIC = EVENT_PREFIX + "HandViewed"
        viewed: int

    class WhistReturnedByDealer(_Decided, Event):
        """After two passes the dealer (or the sitter-out) returned the whist (TV-24, TV-30)."""

        TOPIC = EVENT_PREFIX + "WhistReturnedByDealer"

    class DealerWhistPassed(_Decided, Event):
        """After two passes the dealer (or the sitter-out) did not return the whist."""

        TOPIC = EVENT_PREFIX + "DealerWhistPassed"

    class ClaimAccepted(_Decided, Event):
        TOPIC = EVENT_PREFIX + "ClaimAccepted"

    class ClaimRejected(_Decided, Event):
        TOPIC = EVENT_PREFIX + "ClaimRejected"

    class UnderbidClaimed(_Decided, Event):
        """A whister proved an underbid: the game is void (RULES.md §3.1, TV-25)."""

        TOPIC = EVENT_PREFIX + "UnderbidClaimed"

    class UnderbidWaived(_Decided, Event):
        """A whister let the result of the play stand in the underbid review."""

        TOPIC = EVENT_PREFIX + "UnderbidWaived"

    # ----------------------------------------------------------------------------------
    # construction

    @event(Created)
    def __init__(
        self,
        *,
        seat: int,
        request_id: str,
        players: list[str],
        rules: dict[str, Any],
        league: str,
        seed_commitment: str,
        token_hashes: list[str],
        first_dealer: int,
        time_control: dict[str, Any] | None = None,
        bot_seats: list[int] | None = None,
        stake_per_whist: int = 0,
    ) -> None:
        self.players = list(players)
        """The player at each seat now."""
        self.accounts = list(players)
        """The player of each account of the sheet (``ScoreSheet.accounts``): the first players
        by seat, then each who joined in place of another; the settlement is in this order."""
        self.replacements: list[dict[str, Any]] = []
        """Each ``PlayerReplaced``: version, request_id, seat, player, account, replaced_ms."""
        self.rule_set = RuleSet.from_dict(rules)
        self.league = league
        self.seed_commitment = seed_commitment
        self.token_hashes = list(token_hashes)
        self.time_control = TimeControl.from_dict(time_control)
        """The clock (``domain.model.terms``); ``None`` for a game without one."""
        self.bot_seats: list[int] = list(bot_seats or ())
        """The seats the server's bots play, from the start."""
        self.stake_per_whist = stake_per_whist
        """Virtual coins per whist of the settlement; 0 for none."""
        self.clock: Clock | None = None
        """The clocks (``domain.model.clock``), kept from the events' timestamps; ``None``
        without a time control."""
        self.adjourned = False
        self.agreed: set[int] = set()
        """The person seats that agreed to adjourn (or, adjourned, asked to resume)."""
        self.state: GameState = new_game(self.rule_set, first_dealer)
        self._outcome: _Outcome | None = None
        """Set by a command only while it triggers its event (``_computed``)."""
        self.requests: dict[str, list[Any]] = {request_id: ["create", 1]}
        self.seed_hex: str | None = None
        self.settlement: list[str] | None = None
        self.deal_results: list[dict[str, Any]] = []
        """Each finished deal as its ``DealScored`` event recorded it (for the scoresheet)."""
        self.flags: list[dict[str, Any]] = []
        """Each ``DealFlagged``: version, seat, deal_number, reason."""
        self.rulings: list[dict[str, Any]] = []
        """Each ``RulingRecorded``: version, deal_number, reason, auditor, adjustment."""
        self.ledger: list[list[int]] = []
        """The amounts of each ``StakesSettled`` and ``StakesAdjusted`` (cents, by account)."""
        self.aborted = False
        """A seat aborted the game (``GameAborted``)."""

    # ----------------------------------------------------------------------------------
    # queries

    @property
    def deal(self) -> DealState | None:
        return self.state.deal

    @property
    def finished(self) -> bool:
        return self.state.finished

    @property
    def chain_head(self) -> str:
        """The tamper-evidence chain of the game's last event (docs/AUDIT.md)."""
        head: str = self.__dict__["_chain_head"]
        return head

    def answer_for(self, request_id: str, fingerprint: str) -> int | None:
        """The version a request already produced, or ``None`` if it is new."""
        seen = self.requests.get(request_id)
        if seen is None:
            return None
        if seen[0] != fingerprint:
            raise RequestReused(
                f"request id {request_id!r} was already used for a different command"
            )
        return cast(int, seen[1])

    # ----------------------------------------------------------------------------------
    # commands (decide, then record)

    def deal_next(self, seed: bytes, request_id: str) -> None:
        """Deal the next deal from the game's seed (derived here, recorded in the event)."""
        number = self.state.deal_number + 1
        shuffle = shuffle_for(seed, number, last_pair=self.rule_set.talon_last_pair)
        after = start_deal(self.state, shuffle)  # raises if the game cannot deal now
        deal = after.deal
        assert deal is not None
        with self._computed(after):
            self._dealt(
                seat=-1,
                request_id=request_id,
                number=number,
                dealer=self.state.dealer,
                deck=list(shuffle.order),
                talon_pair=shuffle.talon_pair,
                hands=[card_list(hand) for hand in deal.dealt],
                talon=" ".join(str(Card(c)) for c in deal.talon),
            )

    def act(
        self,
        seat: int,
        action: Action,
        request_id: str,
        seed: bytes,
        time_up: bool = False,
        at: datetime | None = None,
    ) -> None:
        """Validate one player's decision and record it, with whatever follows from it:
        the deal's score (atomically with its last card), then the next deal or the end.

        ``time_up``: the service found the ordered end time passed (its clock, never read
        here): a valid decision is then preceded by ``TimeCalled`` (once), so the deal in
        progress is the last. ``at``: the decision's timestamp when the service gives one (a
        time-out's default move is stamped with the time-out's moment)."""
        if self.finished:
            raise GameOver("the game is over: nothing more can be played")
        if self.adjourned:
            raise Adjourned("the game is adjourned: every player must ask to resume first")
        deal = self.state.deal
        if deal is None:
            raise InvalidAction("no deal is in progress")
        after = apply(deal, action, seat)  # raises IllegalAction / NotYourTurn; nothing recorded
        row, fields = record(action, deal)
        if time_up and self.state.rules.ending_by_time and not self.state.time_called:
            called = call_time(self.state)
            with self._computed(called):
                # The id ends with a space, which no client's request id may (service
                # validation): it can never be a client's own command.
                self._time_called(seat=-1, request_id=f"{request_id} time ")
        with self._computed(with_deal(self.state, after), action):
            self.trigger_event(
                DECISION_EVENTS[row.name],
                seat=seat,
                request_id=request_id,
                timestamp=at,
                **fields,
            )
        if after.phase is Phase.SCORED:
            self._finish(request_id, seed)

    def call_time(self, request_id: str, seed: bytes) -> None:
        """Time is called (the caller's authority is checked by the application)."""
        after = call_time(self.state)  # raises if the game is not played until time
        with self._computed(after):
            self._time_called(seat=-1, request_id=request_id)
        if after.finished:
            self._end(request_id, seed)

    def order(
        self,
        seat: int,
        pool: int,
        ends_at: int,
        request_id: str,
        seed: bytes,
        obligations: Mapping[str, int] | None = None,
    ) -> None:
        """The seat with the largest gora orders the game (the rules core checks the seat, the
        moment and the ranges, and the robber's obligations; the service checks that the end
        time is in the future); the first deal of the pool proper is dealt with it."""
        if not 0 <= seat < len(self.players):
            raise InvalidAction(f"no seat {seat} in this game", field="seat")
        if self.adjourned:
            raise Adjourned("the game is adjourned: every player must ask to resume first")
        after = order_game(self.state, seat, pool, ends_at, obligations or {})  # raises
        assert after.order is not None
        imposed = after.order.obligations.as_dict() or None
        with self._computed(after):
            self._game_ordered(
                seat=seat, request_id=request_id, pool=pool, ends_at=ends_at, obligations=imposed
            )
        self.deal_next(seed, request_id)

    def deal_first(self, seed: bytes, request_id: str) -> None:
        """Deal the first deal of a new game, unless it is to be ordered first."""
        if not awaiting_order(self.state):
            self.deal_next(seed, request_id)

    def agree_stop(self, seat: int, request_id: str, seed: bytes) -> None:
        """A seat agrees to stop early; the last agreement ends the game."""
        if not 0 <= seat < len(self.players):
            raise InvalidAction(f"no seat {seat} in this game", field="seat")
        after = agree_stop(self.state, seat)  # raises GameOver / IllegalAction
        with self._computed(after):
            self._stop_agreed(seat=seat, request_id=request_id)
        if after.finished:
            self._end(request_id, seed)

    def check_replacement(self, seat: int, player: str) -> GameState:
        """The game after ``player`` joins at ``seat``, or why not (nothing is recorded)."""
        if not 0 <= seat < len(self.players):
            raise InvalidAction(f"no seat {seat} in this game", field="seat")
        if player in self.accounts:  # one account per player: his results stay one line
            raise InvalidAction(f"{player!r} has already played in this game", field="player")
        return replace_player(self.state, seat)  # raises GameOver / IllegalAction

    def replace_player(
        self, seat: int, player: str, replaced_ms: int, request_id: str, reason: str = ""
    ) -> None:
        """The player at ``seat`` leaves and ``player`` joins in his place (the caller's
        authority and the player id are checked by the application); ``reason`` as
        ``PlayerReplaced.reason``."""
        after = self.check_replacement(seat, player)
        with self._computed(after):
            self._player_replaced(
                seat=seat,
                request_id=request_id,
                player=player,
                replaced_ms=replaced_ms,
                reason=reason,
            )

    def bot_for(self, seat: int) -> str:
        """The bot account that takes ``seat`` if its person leaves now (``fresh_bot_id``: the
        seat's first bot id, or a fresh one if that bot has played in this game already)."""
        return fresh_bot_id(seat, self.accounts)

    def check_resignation(self, seat: int) -> None:
        """Why ``seat`` may not resign now, if it may not (nothing is recorded)."""
        if not 0 <= seat < len(self.players):
            raise InvalidAction(f"no seat {seat} in this game", field="seat")
        check_person(seat, self.bot_seats)
        self.check_replacement(seat, self.bot_for(seat))

    def resign(self, seat: int, reason: str, replaced_ms: int, request_id: str) -> None:
        """The person at ``seat`` leaves (``reason``: resigned, or forfeit on time) and the
        server's bot takes the seat (``domain.model.leaving``), under ``bot_for(seat)``."""
        self.check_resignation(seat)
        self.replace_player(seat, self.bot_for(seat), replaced_ms, request_id, reason)

    @property
    def deadline_ms(self) -> int | None:
        """When the seat to act runs out of time (ms since the epoch), if a clock runs."""
        return None if self.clock is None else self.clock.deadline_ms

    def time_out(
        self, version: int, now_ms: int, request_id: str, seed: bytes, time_up: bool = False
    ) -> None:
        """The seat to act is out of time at ``now_ms`` (the service's clock): record
        ``TimeExpired`` stamped ``now_ms`` and its consequence, the seat's default move or its
        forfeit. ``Moot`` if the game has left ``version``; ``NotDue`` before the deadline.
        The consequence is decided before anything is recorded: a forfeit the rules refuse
        (``check_resignation``: no more players may join) gives the default move instead.
        ``time_up`` as for ``act`` (the default move of a game past its end time calls time)."""
        if self.version != version:
            raise Moot(f"the game is at version {self.version}, not {version}")
        if self.finished:
            raise GameOver("the game is over")
        deadline = self.deadline_ms
        if deadline is None or now_ms < deadline:
            raise NotDue("no seat's time is up")
        assert self.clock is not None and self.time_control is not None
        seat = self.clock.actor
        at = datetime.fromtimestamp(now_ms / 1000, tz=UTC)
        action: Action | None = None  # the default move; none for a forfeit
        if not self._forfeits(seat):
            deal = self.state.deal
            assert deal is not None
            action = default_action(legal_actions(deal))
            apply(deal, action, seat)  # raises if the rules refuse it; nothing recorded yet
        self.trigger_event(
            Game.TimeExpired, seat=seat, request_id=request_id, deadline_ms=deadline, timestamp=at
        )
        if action is None:
            self.resign(seat, FORFEIT, now_ms, request_id)
        else:
            self.act(seat, action, request_id, seed, time_up=time_up, at=at)

    def _forfeits(self, seat: int) -> bool:
        """Whether ``seat`` out of time forfeits (``leaving.forfeits``)."""
        return forfeits(self.time_control, seat, self.bot_seats, self.state)

    def agree_adjournment(self, seat: int, request_id: str, adjourn: bool) -> None:
        """A person's seat agrees to adjourn (``adjourn``) or asks to resume."""
        if not 0 <= seat < len(self.players):
            raise InvalidAction(f"no seat {seat} in this game", field="seat")
        if self.finished:
            raise GameOver("the game is over")
        check_person(seat, self.bot_seats)
        if adjourn and self.adjourned:
            raise IllegalAction("the game is already adjourned")
        if not adjourn and not self.adjourned:
            raise IllegalAction("the game is not adjourned")
        if seat in self.agreed:
            raise IllegalAction(
                "this seat has already " + ("agreed to adjourn" if adjourn else "asked to resume")
            )
        event = Game.AdjournmentAgreed if adjourn else Game.ResumptionAgreed
        self.trigger_event(event, seat=seat, request_id=request_id)

    def replaced_ms(self, request_id: str) -> int | None:
        """When the replacement recorded by ``request_id`` happened (ms), if it did and no
        later one has replaced the same seat (its newcomer still holds the seat)."""
        found: int | None = None
        for done in self.replacements:
            if done["request_id"] == request_id:
                found = cast(int, done["replaced_ms"])
                seat = done["seat"]
            elif found is not None and done["seat"] == seat:
                return None
        return found

    def _end(self, request_id: str, seed: bytes) -> None:
        settlement = settle_game(self.state)
        self._game_finished(
            seat=-1,
            request_id=request_id,
            seed=seed.hex(),
            settlement=settlement_to_strings(settlement),
        )
        if self.stake_per_whist:
            self._move_money(
                Game.StakesSettled, request_id, money(settlement, self.stake_per_whist)
            )

    def _move_money(self, kind: type[Game.Event], request_id: str, amounts: list[int]) -> None:
        """Record a ledger event (server, seat -1) of the game's stake and accounts."""
        self.trigger_event(
            kind,
            seat=-1,
            request_id=request_id,
            stake_per_whist=self.stake_per_whist,
            players=list(self.accounts),
            amounts=amounts,
        )

    def abort(self, seat: int, request_id: str) -> None:
        """A seat aborts the game: only before its first deal is scored (no settlement, no
        money, no statistics of a played game follow)."""
        if not 0 <= seat < len(self.players):
            raise InvalidAction(f"no seat {seat} in this game", field="seat")
        if self.finished:
            raise GameOver("the game is over")
        if self.deal_results:
            raise AbortRefused(
                "a game can be aborted only before its first deal is scored; "
                "stop it by agreement (AgreeEarlyStop) instead"
            )
        self._game_aborted(seat=seat, request_id=request_id)

    def _check_scored(self, deal_number: int) -> None:
        scored = len(self.deal_results)
        if isinstance(deal_number, bool) or not isinstance(deal_number, int):
            raise InvalidAction("deal_number must be a whole number", field="deal_number")
        if not 1 <= deal_number <= scored:
            raise InvalidAction(
                f"deal {deal_number} has not been scored: "
                + (f"deals 1 to {scored} have" if scored else "no deal has been scored yet"),
                field="deal_number",
            )

    def flag_deal(self, seat: int, deal_number: int, reason: str, request_id: str) -> None:
        """A seat disputes a scored deal (also after the game has ended)."""
        if not 0 <= seat < len(self.players):
            raise InvalidAction(f"no seat {seat} in this game", field="seat")
        self._check_scored(deal_number)
        check_reason(reason)
        self._deal_flagged(seat=seat, request_id=request_id, deal_number=deal_number, reason=reason)

    def record_ruling(
        self,
        deal_number: int,
        reason: str,
        adjustment: dict[str, Any] | None,
        request_id: str,
        auditor: str = "auditor",
    ) -> None:
        """An auditor's ruling on a scored deal: the adjustment is added to the sheet, and a
        finished game's settlement is computed again from the adjusted sheet."""
        self._check_scored(deal_number)
        check_reason(reason)
        change = check_adjustment(adjustment, self.rule_set.players)
        check_reason(auditor, field="auditor")
        settlement = None
        moved: list[int] | None = None
        if self.finished:
            sheet = adjusted(self.state.sheet, change)
            after = settle_game(self.state, sheet)
            settlement = settlement_to_strings(after)
            if self.stake_per_whist and self.settlement is not None:
                before = money(settlement_from_strings(self.settlement), self.stake_per_whist)
                moved = difference(before, money(after, self.stake_per_whist))
        self._ruling_recorded(
            seat=-1,
            request_id=request_id,
            deal_number=deal_number,
            reason=reason,
            auditor=auditor,
            adjustment=change,
            settlement=settlement,
        )
        if moved is not None:
            self._move_money(Game.StakesAdjusted, request_id, moved)

    def _finish(self, request_id: str, seed: bytes) -> None:
        deal = self.state.deal
        assert deal is not None and deal.result is not None
        after, score, entry = finish_deal(self.state)
        result = deal.result
        with self._computed(after):
            self._deal_scored(
                seat=-1,
                request_id=request_id,
                number=self.state.deal_number,
                kind=result.kind.value,
                declarer=result.declarer,
                contract=str(result.contract) if result.contract is not None else "",
                tricks=list(result.tricks),
                score=score_to_dict(score),
                entry=entry_to_dict(entry),
            )
        if after.finished:
            self._end(request_id, seed)
        elif not awaiting_order(after):
            self.deal_next(seed, request_id)

    # ----------------------------------------------------------------------------------
    # events: bodies assign what the command computed, or compute it on a replay

    @contextmanager
    def _computed(self, after: GameState, action: Action | None = None) -> Iterator[None]:
        """While the command triggers its event, the event's body takes ``after`` (computed
        from the current state) instead of computing it again."""
        self._outcome = _Outcome(self.state, after, action)
        try:
            yield
        finally:
            self._outcome = None

    def _taken(self) -> _Outcome | None:
        """The outcome the command computed from the current state, if any (taken once)."""
        outcome, self._outcome = self._outcome, None
        return outcome if outcome is not None and outcome.before is self.state else None

    def _decided(self, event: Any) -> None:
        """The body of a decision event: the game after the decision it records."""
        outcome = self._taken()
        if outcome is not None and outcome.action is not None:
            action, self.state = outcome.action, outcome.after
        else:
            action = BY_NAME[event_name(event)].read(event)
            deal = self.state.deal
            assert deal is not None
            self.state = with_deal(self.state, apply(deal, action))
        self._note(event.request_id, action_fingerprint(event.seat, action))

    def _note(self, request_id: str, fingerprint: str | None = None) -> None:
        """Remember the request and the version its command has reached."""
        seen = self.requests.get(request_id)
        if seen is None:
            self.requests[request_id] = [fingerprint or "", self.version + 1]
        else:
            seen[1] = self.version + 1

    @event(DealDealt)
    def _dealt(
        self,
        seat: int,
        request_id: str,
        number: int,
        dealer: int,
        deck: list[int],
        talon_pair: int,
        hands: list[str],
        talon: str,
    ) -> None:
        outcome = self._taken()
        if outcome is not None:
            self.state = outcome.after
        else:
            self.state = start_deal(self.state, Shuffle(tuple(deck), talon_pair))
        self._note(request_id)

    @event("DealScored", topic=EVENT_PREFIX + "DealScored")
    def _deal_scored(
        self,
        seat: int,
        request_id: str,
        number: int,
        kind: str,
        declarer: int,
        contract: str,
        tricks: list[int],
        score: dict[str, Any],
        entry: dict[str, Any],
    ) -> None:
        final = self.state.deal
        assert final is not None and final.result is not None
        sign = played_sign(self.state, final.result)
        outcome = self._taken()
        self.state = outcome.after if outcome is not None else finish_deal(self.state)[0]
        self.deal_results.append(
            {
                "number": number,
                "dealer": final.dealer,
                "kind": kind,
                "declarer": declarer,
                "contract": contract,
                "tricks": list(tricks),
                "entry": entry,
                "dealt": [card_list(hand) for hand in final.dealt],
                "talon": [str(Card(c)) for c in final.talon],
                "discard": card_list(final.discard),
                # Classic (TV-26), derived from the state: bomb level, dark, declarer's sign.
                "bomb": final.bomb,
                "dark": final.dark,
                "sign": sign,
            }
        )
        self._note(request_id)

    @event("GameFinished", topic=EVENT_PREFIX + "GameFinished")
    def _game_finished(self, seat: int, request_id: str, seed: str, settlement: list[str]) -> None:
        self.seed_hex = seed
        self.settlement = list(settlement)
        self._note(request_id)

    @event(GameAborted)
    def _game_aborted(self, seat: int, request_id: str) -> None:
        self.aborted = True
        self.state = aborted(self.state)
        self._note(request_id, abort_fingerprint(seat))

    @event(TimeCalled)
    def _time_called(self, seat: int, request_id: str) -> None:
        outcome = self._taken()
        self.state = outcome.after if outcome is not None else call_time(self.state)
        self._note(request_id, TIME_FINGERPRINT)

    @event(GameOrdered)
    def _game_ordered(
        self,
        seat: int,
        request_id: str,
        pool: int,
        ends_at: int,
        obligations: dict[str, int] | None = None,
    ) -> None:
        outcome = self._taken()
        if outcome is not None:
            self.state = outcome.after
        else:
            self.state = order_game(self.state, seat, pool, ends_at, obligations or {})
        self._note(request_id, order_fingerprint(seat, pool, ends_at, obligations))

    @event(EarlyStopAgreed)
    def _stop_agreed(self, seat: int, request_id: str) -> None:
        outcome = self._taken()
        self.state = outcome.after if outcome is not None else agree_stop(self.state, seat)
        self._note(request_id, stop_fingerprint(seat))

    @event(PlayerReplaced)
    def _player_replaced(
        self, seat: int, request_id: str, player: str, replaced_ms: int, reason: str = ""
    ) -> None:
        outcome = self._taken()
        self.state = outcome.after if outcome is not None else replace_player(self.state, seat)
        self.players[seat] = player
        self.bot_seats = bot_seats_after(self.bot_seats, seat, player)
        self._agreed_by(seat, leaving=True)
        self.accounts.append(player)
        self.replacements.append(
            {
                "version": self.version + 1,
                "request_id": request_id,
                "seat": seat,
                "player": player,
                "account": len(self.accounts) - 1,
                "replaced_ms": replaced_ms,
            }
        )
        self._note(request_id, replace_fingerprint(seat, player))

    def _agreed(self, event: Any, adjourn: bool) -> None:
        """The body of ``AdjournmentAgreed`` / ``ResumptionAgreed``."""
        self.agreed.add(event.seat)
        self._agreed_by(event.seat)
        fingerprint = adjourn_fingerprint if adjourn else resume_fingerprint
        self._note(event.request_id, fingerprint(event.seat))

    def _agreed_by(self, seat: int, leaving: bool = False) -> None:
        """Adjourn or resume once every person's seat has agreed (a leaver's agreement
        leaves with him; the others' may then suffice)."""
        if leaving:
            self.agreed.discard(seat)
        people = persons(len(self.players), self.bot_seats)
        self.agreed, self.adjourned = agreement(self.agreed, self.adjourned, people)

    def _tick(self, event: Any) -> None:
        """The clocks after ``event`` (``domain.model.clock``), from its timestamp."""
        control = self.time_control
        if control is None:
            return
        at = ms_of(event.timestamp)
        clock = self.clock or start_clock(control, len(self.players), at)
        self.clock = clock_after(
            clock, event_name(event), event.seat, at, self.state, self.adjourned
        )

    @event(DealFlagged)
    def _deal_flagged(self, seat: int, request_id: str, deal_number: int, reason: str) -> None:
        self.flags.append(
            {
                "version": self.version + 1,
                "seat": seat,
                "deal_number": deal_number,
                "reason": reason,
            }
        )
        self._note(request_id, flag_fingerprint(seat, deal_number, reason))

    @event(RulingRecorded)
    def _ruling_recorded(
        self,
        seat: int,
        request_id: str,
        deal_number: int,
        reason: str,
        auditor: str,
        adjustment: dict[str, Any] | None,
        settlement: list[str] | None,
    ) -> None:
        self.state = self.state._replace(sheet=adjusted(self.state.sheet, adjustment))
        if settlement is not None:
            self.settlement = list(settlement)
        self.rulings.append(
            {
                "version": self.version + 1,
                "deal_number": deal_number,
                "reason": reason,
                "auditor": auditor,
                "adjustment": adjustment,
            }
        )
        self._note(request_id, ruling_fingerprint(deal_number, reason, adjustment))


def _decision_events() -> dict[str, type[Game.Event]]:
    """Each row of the decisions table → the game's event class that records it."""
    found: dict[str, type[Game.Event]] = {}
    for row in DECISIONS:
        cls = getattr(Game, row.name, None)
        if not (
            isinstance(cls, type) and issubclass(cls, _Decided) and issubclass(cls, Game.Event)
        ):
            raise TypeError(f"Game declares no decision event {row.name}")
        if EVENT_PREFIX + row.name != getattr(cls, "TOPIC", None):
            raise TypeError(f"Game.{row.name} has another topic")
        found[row.name] = cls
    return found


DECISION_EVENTS = _decision_events()
"""The game's event class for each decision event of the table (they name the same events)."""
