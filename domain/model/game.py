"""The ``Game`` aggregate: one pulya as an event-sourced stream (see docs/EVENTS.md).

One aggregate per game, not one per deal: the game is the consistency boundary of Preferans.
The scoresheet, the dealer rotation, the raspasy streak, the turn order across deal boundaries and
the request-id log all span deals, and finishing a deal must record its score and deal the next
one atomically. One stream per game gives one optimistic-concurrency check per command, atomic
deal boundaries without cross-aggregate saves, and one ordered log per game for replay and
audit. The cost, a longer stream (about 30–40 events a deal), is paid only on a cold load;
commands are served from the application's aggregate cache.

Decide, then record: each public command validates with the rules core, then triggers one
event whose body only re-applies the already validated action (no raising, no clock, no
shuffling inside an event body; the shuffle of each deal is derived before and recorded).
"""

from __future__ import annotations

import uuid
from typing import Any, cast

from eventsourcing.domain import Aggregate, event

from domain.model.chain import GENESIS, link, stored_chain
from domain.model.codec import (
    action_fingerprint,
    entry_to_dict,
    score_to_dict,
    settlement_to_strings,
)
from domain.model.disputes import (
    adjusted,
    check_adjustment,
    check_reason,
    flag_fingerprint,
    ruling_fingerprint,
)
from domain.model.replay import EVENT_PREFIX
from domain.rules import (
    PASS,
    Action,
    Call,
    Card,
    ChooseDefence,
    Claim,
    Declare,
    Discard,
    GameState,
    Here,
    Phase,
    RuleSet,
    Shuffle,
    apply,
    deal_cards,
    finish_deal,
    new_game,
    parse_cards,
    settle,
    shuffle_from_seed,
    start_deal,
)
from domain.rules.actions import (
    ACCEPT,
    CALLS,
    DECLARES,
    DISCARDS,
    HALF_WHIST,
    HERE,
    PLAYS,
    REJECT,
    TAKE_TALON,
    WHIST,
    AcceptClaim,
    HalfWhist,
    Pass,
    PlayCard,
    RejectClaim,
    TakeTalon,
    Whist,
)
from domain.rules.bids import Bid
from domain.rules.cards import card_list
from domain.rules.errors import GameOver, InvalidAction
from domain.rules.state import DealState


class RequestReused(InvalidAction):
    """A request id was sent again with a different command."""


GAME_ID_NAMESPACE = uuid.UUID("6f1d8a52-0c4b-4b7e-9a59-3d1f0e2a7c11")


def game_id_for(request_id: str) -> uuid.UUID:
    """A game's id follows from the request that created it, so a retried creation finds it."""
    return uuid.uuid5(GAME_ID_NAMESPACE, request_id)


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
            return game

    class Created(Event, Aggregate.Created):
        TOPIC = EVENT_PREFIX + "GameCreated"
        players: list[str]
        rules: dict[str, Any]
        league: str
        seed_commitment: str
        token_hashes: list[str]
        first_dealer: int

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
    ) -> None:
        self.players = list(players)
        self.rule_set = RuleSet.from_dict(rules)
        self.league = league
        self.seed_commitment = seed_commitment
        self.token_hashes = list(token_hashes)
        self.state: GameState = new_game(self.rule_set, first_dealer)
        self.requests: dict[str, list[Any]] = {request_id: ["create", 1]}
        self.seed_hex: str | None = None
        self.settlement: list[str] | None = None
        self.deal_results: list[dict[str, Any]] = []
        """Each finished deal as its ``DealScored`` event recorded it (for the scoresheet)."""
        self.flags: list[dict[str, Any]] = []
        """Each ``DealFlagged``: version, seat, deal_number, reason."""
        self.rulings: list[dict[str, Any]] = []
        """Each ``RulingRecorded``: version, deal_number, reason, auditor, adjustment."""

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
        shuffle = shuffle_from_seed(seed, self.state.deal_number + 1)
        start_deal(self.state, shuffle)  # validates: raises if the game cannot deal now
        dealt = deal_cards(shuffle.order, self.state.dealer, shuffle.talon_pair)
        self._dealt(
            seat=-1,
            request_id=request_id,
            number=self.state.deal_number + 1,
            dealer=self.state.dealer,
            deck=list(shuffle.order),
            talon_pair=shuffle.talon_pair,
            hands=[card_list(hand) for hand in dealt.hands],
            talon=" ".join(str(Card(c)) for c in dealt.talon),
        )

    def act(self, seat: int, action: Action, request_id: str, seed: bytes) -> None:
        """Validate one player's decision and record it, with whatever follows from it:
        the deal's score (atomically with its last card), then the next deal or the end."""
        if self.finished:
            raise GameOver("the game is over: nothing more can be played")
        deal = self.state.deal
        if deal is None:
            raise InvalidAction("no deal is in progress")
        apply(deal, action, seat)  # raises IllegalAction / NotYourTurn; nothing recorded
        self._record_action(seat, action, request_id)
        deal = self.state.deal
        assert deal is not None
        if deal.phase is Phase.SCORED:
            self._finish(request_id, seed)

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
        change = check_adjustment(adjustment, len(self.players))
        check_reason(auditor, field="auditor")
        settlement = None
        if self.finished:
            sheet = adjusted(self.state.sheet, change)
            settlement = settlement_to_strings(settle(sheet, self.rule_set))
        self._ruling_recorded(
            seat=-1,
            request_id=request_id,
            deal_number=deal_number,
            reason=reason,
            auditor=auditor,
            adjustment=change,
            settlement=settlement,
        )

    def _record_action(self, seat: int, action: Action, rid: str) -> None:
        kind = type(action)
        if kind is PlayCard:
            self._card_played(seat=seat, request_id=rid, card=str(cast(PlayCard, action).card))
        elif kind is Call:
            bid = cast(Call, action).bid
            if bid.is_misere:
                self._misere_called(seat=seat, request_id=rid)
            else:
                self._bid_called(seat=seat, request_id=rid, bid=str(bid))
        elif kind is Here:
            self._here_said(seat=seat, request_id=rid)
        elif kind is Pass:
            if self.state.deal is not None and self.state.deal.phase is Phase.BIDDING:
                self._auction_passed(seat=seat, request_id=rid)
            else:
                self._whist_passed(seat=seat, request_id=rid)
        elif kind is TakeTalon:
            deal = self.state.deal
            assert deal is not None
            talon = " ".join(str(Card(c)) for c in deal.talon)
            self._talon_taken(seat=seat, request_id=rid, cards=talon)
        elif kind is Discard:
            cards = cast(Discard, action).cards
            self._discarded(seat=seat, request_id=rid, cards=f"{cards[0]} {cards[1]}")
        elif kind is Declare:
            self._declared(seat=seat, request_id=rid, contract=str(cast(Declare, action).contract))
        elif kind is Whist:
            deal = self.state.deal
            assert deal is not None
            if deal.whist.half_whister >= 0:
                self._whist_returned(seat=seat, request_id=rid)
            else:
                self._whist_called(seat=seat, request_id=rid)
        elif kind is HalfWhist:
            self._half_whist_called(seat=seat, request_id=rid)
        elif kind is ChooseDefence:
            self._defence_chosen(seat=seat, request_id=rid, open=cast(ChooseDefence, action).open)
        elif kind is Claim:
            self._claim_made(seat=seat, request_id=rid, tricks=list(cast(Claim, action).tricks))
        elif kind is AcceptClaim:
            self._claim_accepted(seat=seat, request_id=rid)
        elif kind is RejectClaim:
            self._claim_rejected(seat=seat, request_id=rid)
        else:  # pragma: no cover - every Action type is handled above
            raise InvalidAction(f"unknown action {action!r}")

    def _finish(self, request_id: str, seed: bytes) -> None:
        deal = self.state.deal
        assert deal is not None and deal.result is not None
        after, score, entry = finish_deal(self.state)
        result = deal.result
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
            settlement = settle(after.sheet, self.rule_set)
            self._game_finished(
                seat=-1,
                request_id=request_id,
                seed=seed.hex(),
                settlement=settlement_to_strings(settlement),
            )
        else:
            self.deal_next(seed, request_id)

    # ----------------------------------------------------------------------------------
    # events: bodies only re-apply what the command already validated

    def _note(self, request_id: str, fingerprint: str | None = None) -> None:
        """Remember the request and the version its command has reached."""
        seen = self.requests.get(request_id)
        if seen is None:
            self.requests[request_id] = [fingerprint or "", self.version + 1]
        else:
            seen[1] = self.version + 1

    def _step(self, seat: int, action: Action, request_id: str) -> None:
        deal = self.state.deal
        assert deal is not None
        self.state = self.state._replace(deal=apply(deal, action))
        self._note(request_id, action_fingerprint(seat, action))

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
        self.state = start_deal(self.state, Shuffle(tuple(deck), talon_pair))
        self._note(request_id)

    @event("BidCalled", topic=EVENT_PREFIX + "BidCalled")
    def _bid_called(self, seat: int, request_id: str, bid: str) -> None:
        self._step(seat, CALLS[Bid.parse(bid).index], request_id)

    @event("MisereCalled", topic=EVENT_PREFIX + "MisereCalled")
    def _misere_called(self, seat: int, request_id: str) -> None:
        self._step(seat, CALLS[15], request_id)

    @event("HereSaid", topic=EVENT_PREFIX + "HereSaid")
    def _here_said(self, seat: int, request_id: str) -> None:
        self._step(seat, HERE, request_id)

    @event("AuctionPassed", topic=EVENT_PREFIX + "AuctionPassed")
    def _auction_passed(self, seat: int, request_id: str) -> None:
        self._step(seat, PASS, request_id)

    @event("TalonTaken", topic=EVENT_PREFIX + "TalonTaken")
    def _talon_taken(self, seat: int, request_id: str, cards: str) -> None:
        self._step(seat, TAKE_TALON, request_id)

    @event("CardsDiscarded", topic=EVENT_PREFIX + "CardsDiscarded")
    def _discarded(self, seat: int, request_id: str, cards: str) -> None:
        a, b = parse_cards(cards)
        self._step(seat, DISCARDS[min(a, b), max(a, b)], request_id)

    @event("ContractDeclared", topic=EVENT_PREFIX + "ContractDeclared")
    def _declared(self, seat: int, request_id: str, contract: str) -> None:
        self._step(seat, DECLARES[Bid.parse(contract).index], request_id)

    @event("WhistCalled", topic=EVENT_PREFIX + "WhistCalled")
    def _whist_called(self, seat: int, request_id: str) -> None:
        self._step(seat, WHIST, request_id)

    @event("WhistPassed", topic=EVENT_PREFIX + "WhistPassed")
    def _whist_passed(self, seat: int, request_id: str) -> None:
        self._step(seat, PASS, request_id)

    @event("HalfWhistCalled", topic=EVENT_PREFIX + "HalfWhistCalled")
    def _half_whist_called(self, seat: int, request_id: str) -> None:
        self._step(seat, HALF_WHIST, request_id)

    @event("WhistReturned", topic=EVENT_PREFIX + "WhistReturned")
    def _whist_returned(self, seat: int, request_id: str) -> None:
        self._step(seat, WHIST, request_id)

    @event("DefenceChosen", topic=EVENT_PREFIX + "DefenceChosen")
    def _defence_chosen(self, seat: int, request_id: str, open: bool) -> None:
        self._step(seat, ChooseDefence(open), request_id)

    @event("CardPlayed", topic=EVENT_PREFIX + "CardPlayed")
    def _card_played(self, seat: int, request_id: str, card: str) -> None:
        self._step(seat, PLAYS[Card.parse(card)], request_id)

    @event("ClaimMade", topic=EVENT_PREFIX + "ClaimMade")
    def _claim_made(self, seat: int, request_id: str, tricks: list[int]) -> None:
        self._step(seat, Claim(tuple(tricks)), request_id)

    @event("ClaimAccepted", topic=EVENT_PREFIX + "ClaimAccepted")
    def _claim_accepted(self, seat: int, request_id: str) -> None:
        self._step(seat, ACCEPT, request_id)

    @event("ClaimRejected", topic=EVENT_PREFIX + "ClaimRejected")
    def _claim_rejected(self, seat: int, request_id: str) -> None:
        self._step(seat, REJECT, request_id)

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
        assert final is not None
        self.state, _, _ = finish_deal(self.state)
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
            }
        )
        self._note(request_id)

    @event("GameFinished", topic=EVENT_PREFIX + "GameFinished")
    def _game_finished(self, seat: int, request_id: str, seed: str, settlement: list[str]) -> None:
        self.seed_hex = seed
        self.settlement = list(settlement)
        self._note(request_id)

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
