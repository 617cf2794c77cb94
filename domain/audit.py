"""The audit of one game: an independent re-check of its whole event log (docs/AUDIT.md).

``verify(game_id, log)`` takes the game's events as decoded from the store, in stored order
(an ``Undecodable`` stands for a stored row that could not be decoded), and checks, event by
event, in order:

1. the versions run 1, 2, 3, … without a gap;
2. the tamper-evidence chain (``domain.model.chain``): each stored ``chain`` equals the link
   computed from the previous event's chain and the event's content;
3. the event's meaning, by replaying the log through the pure rules core: the creation, each
   deal (its hands and talon are what its deck deals, and, once the game's seed is revealed,
   the deck and talon pair are ``shuffle_from_seed(seed, number)``), each decision (legal, and
   made by the seat whose turn it was), each deal's score and scoresheet entry, and the final
   settlement (with the revealed seed against the commitment of the creation).

It stops at the first discrepancy and explains it, with the event's position. Nothing here
reads a store, a clock or any state derived from the log: only the events given.

Why over 400 lines: the checks run in one pass over the log, in the order above, and share the
replayed state; each check is its own function.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.audit_clock import ClockAudit, ClockDiscrepancy
from domain.model.chain import GENESIS, link, stored_chain
from domain.model.codec import (
    entry_to_dict,
    score_to_dict,
    settlement_from_strings,
    settlement_to_strings,
)
from domain.model.decisions import BY_NAME, EVENT_PREFIX
from domain.model.disputes import adjusted, check_adjustment, check_reason
from domain.model.replay import CLOCK_ONLY, aborted
from domain.model.shape import malformed
from domain.model.stakes import difference, ledger_problem, money
from domain.model.terms import check_stake
from domain.rules import (
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
    new_game,
    order_game,
    replace_player,
    settle_game,
    shuffle_for,
    start_deal,
)
from domain.rules.cards import card_list
from domain.rules.errors import IllegalAction, InvalidAction, NotYourTurn, RulesError
from domain.rules.game import with_deal

SERVER_EVENTS = (
    "GameCreated",
    "DealDealt",
    "DealScored",
    "GameFinished",
    "RulingRecorded",
    "TimeCalled",
    "StakesSettled",
    "StakesAdjusted",
)
DISPUTES = ("DealFlagged", "RulingRecorded", "StakesSettled", "StakesAdjusted")
"""Events that may also follow ``GameFinished`` (the ledger's only where they must, below)."""

# Kinds of discrepancy (``Discrepancy.kind``).
MISSING = "missing"
"""A version is missing (an event was removed), or the log is cut short."""
CHAIN = "chain"
"""The stored chain does not match the event's content (changed, inserted)."""
REORDERED = "reordered"
"""The event's content and chain are those of another position."""
UNCHAINED = "unchained"
"""Events recorded before tamper evidence: the log cannot be checked for tampering."""
UNREADABLE = "unreadable"
"""A stored event cannot be decoded, or is not an event of its kind (a field missing, of the
wrong type, or unexpected): ``pref audit`` exits 2 for it."""
STRUCTURE = "structure"
"""An event in a place where the game's course does not allow it."""
FAIRNESS = "fairness"
"""A deal's cards do not follow from its deck, or the deck from the revealed seed."""
ILLEGAL = "illegal"
"""A decision the rules do not allow, or out of turn."""
SCORE = "score"
"""A deal's recorded score or scoresheet entry differs from the replayed deal's."""
SETTLEMENT = "settlement"
"""The final settlement, or the revealed seed, is wrong."""
DISPUTE = "dispute"
"""A flag or a ruling that is malformed, names a deal not scored, or a ruling's settlement
that does not follow from the adjusted scoresheet."""
LEDGER = "ledger"
"""A ledger event (``StakesSettled``, ``StakesAdjusted``) whose amounts do not follow from the
settlement and the stake, or do not sum to zero (docs/STAKES.md)."""


@dataclass(frozen=True)
class Undecodable:
    """A stored event that could not be decoded (in place of the event)."""

    version: int
    topic: str
    reason: str


@dataclass(frozen=True)
class Discrepancy:
    version: int
    """The event's position (``originator_version``); 0 for the log as a whole."""
    topic: str
    """The event's name (``CardPlayed``), or ``""``."""
    kind: str
    message: str
    """A plain explanation, starting with the event's position."""


@dataclass(frozen=True)
class AuditReport:
    game_id: str
    events: int
    """Events read."""
    deals: int
    """Deals dealt."""
    finished: bool
    settlement: list[str] | None
    chain_head: str
    """The chain of the last event (to compare with a copy kept outside the store)."""
    discrepancy: Discrepancy | None = None
    checked: list[str] = field(default_factory=list)
    """What was checked, in words."""
    flags: list[dict[str, Any]] = field(default_factory=list)
    """Each ``DealFlagged``: version, seat, deal_number, reason."""
    rulings: list[dict[str, Any]] = field(default_factory=list)
    """Each ``RulingRecorded``: version, deal_number, reason, auditor, adjustment (or None)."""
    aborted: bool = False
    """A seat aborted the game (``GameAborted``): ended, with no settlement (``finished`` false)."""
    money: list[int] | None = None
    """The game's ledger entries summed per account (cents), for a game with a stake."""

    @property
    def verified(self) -> bool:
        return self.discrepancy is None

    @property
    def summary(self) -> str:
        if self.discrepancy is not None:
            return self.discrepancy.message
        status = "aborted" if self.aborted else "finished" if self.finished else "in progress"
        text = f"verified: {self.events} events, {self.deals} deals, game {status}"
        if self.settlement is not None:
            text += f"; final settlement {' / '.join(self.settlement)}"
        elif self.aborted:
            text += "; aborted before any deal was scored: no settlement, no seed revealed"
        else:
            text += "; the seed is revealed when the game ends (deals checked for fairness then)"
        if self.flags:
            text += f"; {len(self.flags)} flag{'s' if len(self.flags) != 1 else ''}"
        if self.rulings:
            told = ", ".join(
                f"deal {r['deal_number']} "
                + ("no change" if r["adjustment"] is None else "adjusted")
                for r in self.rulings
            )
            text += f"; {len(self.rulings)} ruling{'s' if len(self.rulings) != 1 else ''} ({told})"
        return text


class _Found(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _name(event: Any) -> str:
    topic: str = getattr(type(event), "TOPIC", type(event).__name__)
    return topic.removeprefix(EVENT_PREFIX)


def _version(item: Any) -> int:
    if isinstance(item, Undecodable):
        return item.version
    return int(item.originator_version)


def _label(version: int, name: str) -> str:
    return f"event {version} ({name})" if name else f"event {version}"


def _revealed_seed(log: Sequence[Any]) -> tuple[bytes | None, str | None]:
    """The seed the last ``GameFinished`` reveals, and its commitment from the creation."""
    commitment: str | None = None
    seed: bytes | None = None
    for item in log:
        if isinstance(item, Undecodable):
            continue
        name = _name(item)
        if name == "GameCreated":
            commitment = getattr(item, "seed_commitment", None)
        elif name == "GameFinished":
            try:
                seed = bytes.fromhex(item.seed)
            except (AttributeError, TypeError, ValueError):
                seed = None
    return seed, commitment


class _Replay:
    """The game as the pure rules core replays it, with the checks of each event."""

    def __init__(self, seed: bytes | None) -> None:
        self.seed = seed
        self.game: GameState | None = None
        self.rules: RuleSet | None = None
        self.commitment = ""
        self.deals = 0
        self.settlement: list[str] | None = None
        self.ended = False
        self.expect_next: str | None = None
        """After a DealScored: what must follow (in the same transaction)."""
        self.scored = 0
        self.flags: list[dict[str, Any]] = []
        self.rulings: list[dict[str, Any]] = []
        self.clocks = ClockAudit()
        self.stake = 0
        self.accounts: list[str] = []
        self.money: list[int] | None = None
        """The money of the settlement in force (cents by account), once settled."""
        self.aborted = False
        self.expected_ledger: str | None = None
        """The event that had to come next when this one came (``check``)."""

    def check(self, event: Any) -> None:
        """Check ``event`` (the clocks' checks around the rules' ones, ``domain.audit_clock``)."""
        name = _name(event)
        try:
            if self.game is not None and name != "GameCreated":
                self.clocks.before(name, event, self.game)
            self._check(event)
            if self.game is not None:
                if name == "GameCreated":
                    self.clocks.created(event, self.game.rules.players)
                self.clocks.after(name, event, self.game)
        except ClockDiscrepancy as exc:
            raise _Found(exc.kind, exc.message) from None

    def _check(self, event: Any) -> None:
        name = _name(event)
        if self.ended and name not in DISPUTES:
            raise _Found(STRUCTURE, f"{name} after GameFinished: nothing may follow the end")
        if self.expect_next is not None and name not in self.expect_next.split("|"):
            wanted = " or ".join(self.expect_next.split("|"))
            raise _Found(
                STRUCTURE, f"{name} where {wanted} must follow the deal's score (events are lost)"
            )
        self.expected_ledger, self.expect_next = self.expect_next, None
        if self.game is None and name != "GameCreated":
            raise _Found(STRUCTURE, f"the log must start with GameCreated, not {name}")
        seat = getattr(event, "seat", None)
        if name in SERVER_EVENTS and seat != -1:
            raise _Found(STRUCTURE, f"seat is {seat!r}, but only the server (-1) records {name}")
        if name == "GameCreated":
            self._created(event)
        elif name == "DealDealt":
            self._dealt(event)
        elif name == "DealScored":
            self._scored(event)
        elif name == "GameFinished":
            self._finished(event)
        elif name == "DealFlagged":
            self._flagged(event)
        elif name in ("TimeCalled", "EarlyStopAgreed"):
            self._ending(name, event)
        elif name == "PlayerReplaced":
            self._replaced(event)
        elif name == "GameOrdered":
            self._ordered(event)
        elif name == "RulingRecorded":
            self._ruled(event)
        elif name in CLOCK_ONLY:
            pass  # checked by ``domain.audit_clock``
        elif name in ("StakesSettled", "StakesAdjusted"):
            self._ledger(name, event)
        elif name == "GameAborted":
            self._aborted(event)
        elif name in BY_NAME:
            self._decision(name, event)
        else:
            raise _Found(STRUCTURE, f"unknown event {name}")

    def _created(self, event: Any) -> None:
        if self.game is not None:
            raise _Found(STRUCTURE, "a second GameCreated")
        try:
            self.rules = RuleSet.from_dict(event.rules)
            self.game = new_game(self.rules, event.first_dealer)
        except RulesError as exc:
            raise _Found(STRUCTURE, f"the game cannot be created: {exc}") from None
        self.commitment = str(event.seed_commitment)
        self.accounts = list(event.players)
        stake = getattr(event, "stake_per_whist", 0)
        if type(stake) is not int:
            raise _Found(STRUCTURE, f"the stake {stake!r:.20} is not a whole number")
        try:
            self.stake = check_stake(stake)
        except InvalidAction as exc:
            raise _Found(STRUCTURE, f"the stake {stake}: {exc}") from None
        if self.seed is not None and hashlib.sha256(self.seed).hexdigest() == self.commitment:
            return
        self.seed = None  # not revealed, or wrong: GameFinished reports the latter

    def _dealt(self, event: Any) -> None:
        game = self.game
        assert game is not None
        number = game.deal_number + 1
        if awaiting_order(game):
            raise _Found(
                STRUCTURE, f"deal {number} is dealt before the game is ordered (GameOrdered)"
            )
        if event.number != number:
            raise _Found(STRUCTURE, f"deal number {event.number}, but deal {number} is next")
        if event.dealer != game.dealer:
            raise _Found(
                STRUCTURE, f"deal {number}: dealer {event.dealer}, but seat {game.dealer} deals"
            )
        try:
            shuffle = Shuffle(tuple(event.deck), event.talon_pair)
            self.game = start_deal(game, shuffle)
            dealt = deal_cards(
                shuffle.order,
                game.dealer,
                shuffle.talon_pair,
                game.rules.players,
                last_pair=game.rules.talon_last_pair,
                dummy_hand=game.rules.duo_dummy_hand,
            )
        except RulesError as exc:
            raise _Found(
                FAIRNESS, f"deal {number}: the recorded deck is not valid: {exc}"
            ) from None
        hands = [card_list(hand) for hand in dealt.hands]
        talon = " ".join(str(Card(c)) for c in dealt.talon)
        if list(event.hands) != hands or event.talon != talon:
            raise _Found(
                FAIRNESS,
                f"deal {number}: the recorded hands and talon are not what the recorded deck "
                f"deals (recorded {list(event.hands)} / {event.talon}; "
                f"the deck deals {hands} / {talon})",
            )
        if self.seed is not None and shuffle != shuffle_for(
            self.seed, number, last_pair=game.rules.talon_last_pair
        ):
            raise _Found(
                FAIRNESS, f"deal {number}: the recorded deck does not match the revealed seed"
            )
        self.deals = number

    def _decision(self, name: str, event: Any) -> None:
        game = self.game
        assert game is not None
        deal = game.deal
        if deal is None or deal.phase is Phase.SCORED:
            raise _Found(STRUCTURE, "a decision with no deal in progress")
        row = BY_NAME[name]
        try:
            action = row.read(event)
        except (RulesError, ValueError, KeyError, AttributeError, TypeError) as exc:
            raise _Found(ILLEGAL, f"the recorded decision cannot be read: {exc}") from None
        phase = deal.phase
        if row.misfit is not None and not row.fits(action, deal):
            raise _Found(STRUCTURE, row.misfit(deal))
        if name == "TalonTaken" and phase is Phase.TALON:
            talon = " ".join(str(Card(c)) for c in deal.talon)
            if event.cards != talon:
                raise _Found(ILLEGAL, f"the talon recorded as {event.cards}, but it is {talon}")
        try:
            self.game = with_deal(game, apply(deal, action, event.seat))
        except NotYourTurn as exc:
            raise _Found(ILLEGAL, f"seat {event.seat} acted out of turn: {exc}") from None
        except IllegalAction as exc:
            raise _Found(ILLEGAL, f"{action} is not legal: {exc}") from None
        except RulesError as exc:
            raise _Found(ILLEGAL, f"{action} cannot be applied: {exc}") from None

    def _scored(self, event: Any) -> None:
        game = self.game
        assert game is not None and self.rules is not None
        deal = game.deal
        if deal is None or deal.result is None:
            raise _Found(STRUCTURE, "a score for a deal that is not over")
        number = game.deal_number
        after, score, entry = finish_deal(game)
        result = deal.result
        expected = {
            "number": number,
            "kind": result.kind.value,
            "declarer": result.declarer,
            "contract": "" if result.contract is None else str(result.contract),
            "tricks": list(result.tricks),
            "score": score_to_dict(score),
            "entry": entry_to_dict(entry),
        }
        for key, value in expected.items():
            recorded = getattr(event, key, None)
            if recorded != value:
                what = {"score": "score", "entry": "scoresheet entry"}.get(key, key)
                raise _Found(
                    SCORE,
                    f"deal {number}: the recorded {what} {recorded!r} does not match the "
                    f"replayed deal, which gives {value!r}",
                )
        self.game = after
        self.scored = number
        if after.finished:
            self.expect_next = "GameFinished"
        elif awaiting_order(after):
            self.expect_next = None  # the order is the orderer's, whenever he makes it
        else:
            self.expect_next = "DealDealt"

    def _ending(self, name: str, event: Any) -> None:
        """Time called, or one seat's agreement to stop early (RULES.md §3.4, §3.0): legal only
        as the rules core allows them; a game they end must be followed by GameFinished."""
        game = self.game
        assert game is not None
        try:
            after = call_time(game) if name == "TimeCalled" else agree_stop(game, event.seat)
        except (RulesError, TypeError) as exc:
            raise _Found(ILLEGAL, f"{name} is not allowed here: {exc}") from None
        self.game = after
        if after.finished:
            self.expect_next = "GameFinished"

    def _replaced(self, event: Any) -> None:
        """A player joined in place of another (TV-27): legal only as the rules core allows,
        naming a player id and the moment (ms) the server recorded."""
        game = self.game
        assert game is not None
        player, moment = getattr(event, "player", None), getattr(event, "replaced_ms", None)
        if not isinstance(player, str) or not player:
            raise _Found(STRUCTURE, f"PlayerReplaced names no player: {player!r}")
        if not isinstance(moment, int) or isinstance(moment, bool) or moment < 0:
            raise _Found(STRUCTURE, f"PlayerReplaced has no moment: {moment!r}")
        try:
            self.game = replace_player(game, event.seat)
        except (RulesError, TypeError) as exc:
            raise _Found(ILLEGAL, f"PlayerReplaced is not allowed here: {exc}") from None
        self.accounts.append(player)

    def _ordered(self, event: Any) -> None:
        """The order of the game (S000 Classic): legal only as the rules core allows it (the
        orderer, after the initial rounds, in range); the first deal of the pool follows."""
        game = self.game
        assert game is not None
        try:
            imposed = getattr(event, "obligations", None)
            imposed = {} if imposed is None else imposed
            self.game = order_game(game, event.seat, event.pool, event.ends_at, imposed)
        except (RulesError, TypeError, AttributeError) as exc:
            raise _Found(ILLEGAL, f"GameOrdered is not allowed here: {exc}") from None
        self.expect_next = "DealDealt"

    def _disputed(self, event: Any) -> int:
        """The deal a flag or ruling names, checked to be scored, and its reason checked."""
        number = getattr(event, "deal_number", None)
        if not isinstance(number, int) or isinstance(number, bool):
            raise _Found(DISPUTE, f"the deal number {number!r} is not a number")
        if not 1 <= number <= self.scored:
            raise _Found(
                DISPUTE, f"deal {number} is named, but only deals 1 to {self.scored} are scored"
            )
        try:
            check_reason(getattr(event, "reason", None))
        except RulesError as exc:
            raise _Found(DISPUTE, f"deal {number}: {exc}") from None
        return number

    def _flagged(self, event: Any) -> None:
        assert self.rules is not None
        seat = getattr(event, "seat", None)
        if not isinstance(seat, int) or not 0 <= seat < self.rules.players:
            raise _Found(STRUCTURE, f"seat is {seat!r}, but a flag is raised by a seat of the game")
        number = self._disputed(event)
        self.flags.append(
            {
                "version": int(event.originator_version),
                "seat": seat,
                "deal_number": number,
                "reason": event.reason,
            }
        )

    def _ruled(self, event: Any) -> None:
        game = self.game
        assert game is not None and self.rules is not None
        number = self._disputed(event)
        try:
            adjustment = check_adjustment(getattr(event, "adjustment", None), self.rules.players)
            check_reason(getattr(event, "auditor", None), field="auditor")
        except RulesError as exc:
            raise _Found(DISPUTE, f"deal {number}: the ruling cannot be applied: {exc}") from None
        if adjustment != event.adjustment:
            raise _Found(DISPUTE, f"deal {number}: the adjustment is not in its recorded form")
        self.game = game._replace(sheet=adjusted(game.sheet, adjustment))
        recorded = getattr(event, "settlement", None)
        if self.ended:
            sheet = self.game.sheet
            settlement = settlement_to_strings(settle_game(self.game, sheet))
            if recorded is None or list(recorded) != settlement:
                raise _Found(
                    DISPUTE,
                    f"deal {number}: the ruling's settlement {recorded!r} does not match the "
                    f"adjusted scoresheet, which settles to {settlement}",
                )
            self.settlement = settlement
            if self.stake:
                self.expect_next = "StakesAdjusted"
        elif recorded is not None:
            raise _Found(DISPUTE, f"deal {number}: a ruling during the game records a settlement")
        self.rulings.append(
            {
                "version": int(event.originator_version),
                "deal_number": number,
                "reason": event.reason,
                "auditor": event.auditor,
                "adjustment": adjustment,
            }
        )

    def _finished(self, event: Any) -> None:
        game = self.game
        assert game is not None and self.rules is not None
        if not game.finished:
            raise _Found(
                STRUCTURE,
                "GameFinished before the game has ended (its pools, time or an agreed stop)",
            )
        try:
            seed = bytes.fromhex(event.seed)
        except (TypeError, ValueError):
            raise _Found(SETTLEMENT, f"the revealed seed {event.seed!r} is not hex") from None
        if hashlib.sha256(seed).hexdigest() != self.commitment:
            raise _Found(
                SETTLEMENT,
                "the revealed seed does not match the seed commitment of the game's creation",
            )
        settlement = settlement_to_strings(settle_game(game))
        if list(event.settlement) != settlement:
            raise _Found(
                SETTLEMENT,
                f"the recorded settlement {list(event.settlement)} does not match the "
                f"scoresheet, which settles to {settlement}",
            )
        self.settlement = settlement
        self.ended = True
        if self.stake:
            self.expect_next = "StakesSettled"

    def _ledger(self, name: str, event: Any) -> None:
        """A ledger event: only right after the event it follows from (``GameFinished``, a
        ruling's new settlement), its amounts recomputed from the settlement and the stake."""
        if self.settlement is None or self.stake == 0 or self.expected_ledger != name:
            raise _Found(STRUCTURE, f"{name} where no money moves (docs/STAKES.md)")
        now = money(settlement_from_strings(self.settlement), self.stake)
        expected = now if self.money is None else difference(self.money, now)
        problem = ledger_problem(event, self.accounts, expected, self.stake)
        if problem is not None:
            raise _Found(LEDGER, problem)
        self.money = now

    def _aborted(self, event: Any) -> None:
        """A seat aborted the game: only a seat of the game, before any deal is scored."""
        game = self.game
        assert game is not None and self.rules is not None
        seat = event.seat
        if type(seat) is not int or not 0 <= seat < self.rules.players:
            raise _Found(STRUCTURE, f"seat is {seat!r}, but a seat of the game aborts it")
        if game.finished or self.scored:
            raise _Found(ILLEGAL, "GameAborted after a deal was scored or the game ended")
        self.game = aborted(game)
        self.ended = self.aborted = True

    def end_of_log(self) -> None:
        game = self.game
        try:
            self.clocks.end_of_log()
        except ClockDiscrepancy as exc:
            raise _Found(exc.kind, exc.message) from None
        if self.expect_next is not None:
            raise _Found(
                MISSING, f"the log ends where {self.expect_next} must follow the deal's score"
            )
        if game is not None and game.finished and not self.ended:
            raise _Found(MISSING, "every pool is closed but GameFinished is missing")


def _reordered(log: Sequence[Any], index: int) -> int | None:
    """The position whose chain the event at ``index`` carries, if it is another one."""
    event = log[index]
    chain = stored_chain(event)
    chains = [None if isinstance(e, Undecodable) else stored_chain(e) for e in log]
    for other in range(len(log)):
        if other == index:
            continue
        version = other + 1
        candidates = {chains[other - 1] if other > 0 else GENESIS, chains[other], chains[index]}
        for previous in candidates:
            if previous is not None and link(previous, event, version) == chain:
                return version
    return None


def verify(game_id: str, log: Sequence[Any]) -> AuditReport:
    """Check a game's log (decoded events and ``Undecodable`` rows, in stored order)."""
    seed, commitment = _revealed_seed(log)
    replay = _Replay(seed if commitment is not None else None)
    head = GENESIS
    unchained: Discrepancy | None = None
    found: Discrepancy | None = None
    if not log:
        found = Discrepancy(0, "", MISSING, "the game has no events")
    for index, item in enumerate(log):
        expected = index + 1
        version = _version(item)
        name = (
            item.topic.removeprefix(EVENT_PREFIX) if isinstance(item, Undecodable) else _name(item)
        )
        if version != expected:
            if version > expected:
                message = (
                    f"event {expected} is missing: versions jump from {expected - 1} to {version}"
                    if expected > 1
                    else f"event 1 is missing: the log starts at version {version}"
                )
            else:
                message = f"event {version} appears again after event {expected - 1}"
            found = Discrepancy(expected, "", MISSING, message)
            break
        label = _label(version, name)
        if isinstance(item, Undecodable):
            found = Discrepancy(
                version,
                name,
                UNREADABLE,
                f"{label}: the stored event cannot be read: {item.reason}",
            )
            break
        problem = malformed(item)
        if problem is not None:
            found = Discrepancy(
                version, name, UNREADABLE, f"{label}: the stored event cannot be read: {problem}"
            )
            break
        chain = stored_chain(item)
        computed = link(head, item)
        if chain is None:
            if unchained is None:
                unchained = Discrepancy(
                    version,
                    name,
                    UNCHAINED,
                    f"{label}: no chain (recorded before tamper evidence): changes to the "
                    "log cannot be detected from this event on",
                )
            chain = computed
        elif chain != computed:
            other = _reordered(log, index)
            if other is not None:
                found = Discrepancy(
                    version,
                    name,
                    REORDERED,
                    f"{label}: out of order: its content and chain are those of event {other} "
                    "— the events were reordered",
                )
            else:
                found = Discrepancy(
                    version,
                    name,
                    CHAIN,
                    f"{label}: the stored chain does not match its content — the event was "
                    "changed (or inserted, or an earlier event was changed)",
                )
            break
        head = chain
        try:
            replay.check(item)
        except _Found as finding:
            found = Discrepancy(version, name, finding.kind, f"{label}: {finding.message}")
            break
        except Exception as exc:  # a value no check foresaw: a finding, never a crash
            found = Discrepancy(
                version,
                name,
                UNREADABLE,
                f"{label}: the stored event cannot be read: {type(exc).__name__}: {exc!s:.200}",
            )
            break
    else:
        try:
            replay.end_of_log()
        except _Found as problem:
            last = len(log)
            found = Discrepancy(last, "", problem.kind, f"after event {last}: {problem.message}")
    if found is None and unchained is not None:
        found = unchained
    return AuditReport(
        game_id=game_id,
        events=len(log),
        deals=replay.deals,
        finished=replay.ended and not replay.aborted,
        settlement=replay.settlement,
        chain_head=head,
        discrepancy=found,
        flags=replay.flags,
        rulings=replay.rulings,
        aborted=replay.aborted,
        money=replay.money,
        checked=[
            "versions without gaps",
            "the tamper-evidence chain",
            "every deal's cards against its deck, and the deck against the revealed seed",
            "every decision against the rules, with the acting seat",
            "every deal's score and scoresheet entry",
            "the revealed seed against its commitment, and the settlement",
            "every flag and ruling names a scored deal; each ruling's adjustment re-applied, "
            "and the settlement after rulings",
            "every ledger event (stakes) recomputed from the settlement and the stake, summing "
            "to zero",
        ],
    )
