"""The ``Table`` aggregate: a table in the lobby, from its opening to its game's start.

A table is opened with the terms of the game it will start (rule set, time control, league,
stake, visibility); people take and leave its seats, invitations reserve a seat for whoever holds
their code, and the creator may ask the server's bots to fill the empty seats. When every seat is
taken the table starts its game (``TableStarted`` records the game's id, fixed when the table
opened), or the creator closes it before. docs/TABLES.md tells the whole story.

Decide, then record: each public command checks the table's state and refuses with
``TableRefused`` (a reason a client can act on) before anything is recorded; the ``@event``
bodies only assign. Times (an invitation's expiry, the moment a seat was left) come from the
caller: no clock here. Each command carries a request id, scoped to the player who sends it:
a retry has no second effect and is answered from ``answer_for`` as the first time.

Why over 400 lines: the ``Table`` aggregate's commands and its ``@event`` bodies must be
declared in its class body (the eventsourcing library's rule), beside the refusals each command
decides before recording.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import Any

from eventsourcing.domain import Aggregate, event

from domain.model.decisions import EVENT_PREFIX
from domain.model.game import RequestReused
from domain.model.terms import bot_player_id
from domain.rules.errors import InvalidAction

TABLE_EVENTS = frozenset(
    {
        "TableOpened",
        "SeatTaken",
        "SeatLeft",
        "InvitationCreated",
        "BotSeated",
        "TableStarted",
        "TableClosed",
    }
)
"""The names of the table's events: readers of the whole log that fold games skip them."""

VISIBILITIES = ("public", "private")
"""A public table is listed in the lobby; a private one is joined by invitation only."""
OPEN, STARTED, CLOSED = "open", "started", "closed"
SERVER = ""
"""The requester of what the server records on its own (the start of a full table)."""


class TableRefused(Exception):
    """A command the table's state does not allow now; ``reason`` is a stable code
    (``TABLE_FULL``, ``TABLE_STARTED``, ``TABLE_CLOSED``, ``NOT_SEATED``, ``ALREADY_SEATED``,
    ``INVITATION_REQUIRED``, ``INVITATION_INVALID``, ``SEAT_TAKEN``, ``NO_PLAYER_SEATED``)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class NotTableCreator(Exception):
    """A command only the table's creator may give."""


@dataclass(frozen=True)
class Invitation:
    """A code that seats its holder at ``seat``, until ``expires_ms`` (once)."""

    seat: int
    expires_ms: int
    used: bool = False


def invitation_hash(code: str) -> str:
    """What a table records of an invitation code (never the code itself)."""
    return hashlib.sha256(code.encode()).hexdigest()


def request_key(player: str, request_id: str) -> str:
    """A request id is the player's own: two players' ids never collide."""
    return f"{player}\x00{request_id}"


class Table(Aggregate):
    """One table of the lobby (see the module's docstring)."""

    TOPIC = "preferans.v1.Table"

    class Event(Aggregate.Event):
        TOPIC = EVENT_PREFIX + "TableEvent"
        player: str
        """Who asked for it (the server: ``""``)."""
        request_id: str

    class Opened(Event, Aggregate.Created):
        TOPIC = EVENT_PREFIX + "TableOpened"
        rules: dict[str, Any]
        seats: int
        visibility: str
        league: str
        time_control: dict[str, Any] | None
        stake_per_whist: int
        game_id: str
        """The game the table will start: fixed now, so seat tokens can be issued at joins."""

    class SeatTaken(Event):
        TOPIC = EVENT_PREFIX + "SeatTaken"
        seat: int
        invitation: str
        """The hash of the invitation used ("" for a free seat)."""
        taken_ms: int
        """When (server time, ms; after the seat's last leaving): every token of the seat for
        this holder is issued at this moment, so a later revocation (his leave, resignation,
        replacement) covers all of them."""

    class SeatLeft(Event):
        TOPIC = EVENT_PREFIX + "SeatLeft"
        seat: int
        left_ms: int
        """When (server time, ms): the seat's tokens issued until then are refused."""

    class InvitationCreated(Event):
        TOPIC = EVENT_PREFIX + "InvitationCreated"
        code_hash: str
        seat: int
        expires_ms: int
        asked: str
        """What the request asked (``invitation_request``: seat and lifetime), so a request id
        reused for another invitation is refused."""

    class BotSeated(Event):
        TOPIC = EVENT_PREFIX + "BotSeated"
        seat: int

    class Started(Event):
        TOPIC = EVENT_PREFIX + "TableStarted"
        game_id: str

    class Closed(Event):
        TOPIC = EVENT_PREFIX + "TableClosed"
        reason: str = ""
        """``""``: the creator closed it; else why the server closed it (its game can never be
        created: ``LEAGUE_RULES_DIFFER``, ``GAME_REFUSED``). Recorded since 2026-12."""

    def __init__(
        self,
        *,
        player: str,
        request_id: str,
        rules: dict[str, Any],
        seats: int,
        visibility: str,
        league: str,
        time_control: dict[str, Any] | None,
        stake_per_whist: int,
        game_id: str,
    ) -> None:
        self.creator = player
        self.rules = dict(rules)
        self.seat_count = seats
        self.visibility = visibility
        self.league = league
        self.time_control = time_control
        self.stake_per_whist = stake_per_whist
        self.game_id = uuid.UUID(game_id)
        self.players: list[str | None] = [None] * seats
        self.bot_seats: list[int] = []
        self.left_ms: dict[int, int] = {}
        """Each seat's last leaving (ms): its tokens issued until then are refused."""
        self.taken_ms: dict[int, int] = {}
        """When each seat's holder took it (ms): his tokens are issued at that moment."""
        self.closed_reason = ""
        self.invitations: dict[str, Invitation] = {}
        self.state = OPEN
        self.requests: dict[str, tuple[str, int]] = {request_key(player, request_id): ("open", 1)}

    @classmethod
    def open(
        cls,
        table_id: uuid.UUID,
        *,
        creator: str,
        request_id: str,
        rules: dict[str, Any],
        seats: int,
        visibility: str,
        league: str,
        time_control: dict[str, Any] | None,
        stake_per_whist: int,
        game_id: uuid.UUID,
    ) -> Table:
        if visibility not in VISIBILITIES:
            raise ValueError(f"visibility is one of {VISIBILITIES}")
        table: Table = cls._create(
            cls.Opened,
            id=table_id,
            player=creator,
            request_id=request_id,
            rules=rules,
            seats=seats,
            visibility=visibility,
            league=league,
            time_control=time_control,
            stake_per_whist=stake_per_whist,
            game_id=str(game_id),
        )
        return table

    # -- what the table is now ------------------------------------------------------------

    def terms(self) -> tuple[Any, ...]:
        """What its opening asked for (a retried CreateTable must ask for the same)."""
        return (
            self.rules,
            self.visibility,
            self.league,
            self.time_control,
            self.stake_per_whist,
        )

    @property
    def full(self) -> bool:
        return all(p is not None for p in self.players)

    def seat_of(self, player: str) -> int | None:
        for seat, sitting in enumerate(self.players):
            if sitting == player and seat not in self.bot_seats:
                return seat
        return None

    def reserved(self, now_ms: int) -> set[int]:
        """Empty seats held for a live invitation."""
        return {
            i.seat
            for i in self.invitations.values()
            if not i.used and i.expires_ms > now_ms and self.players[i.seat] is None
        }

    def free_seats(self, now_ms: int) -> list[int]:
        """Empty seats anyone may take (not held for an invitation)."""
        held = self.reserved(now_ms)
        return [s for s, p in enumerate(self.players) if p is None and s not in held]

    @property
    def people(self) -> list[str]:
        return [p for s, p in enumerate(self.players) if p is not None and s not in self.bot_seats]

    def answer_for(self, player: str, request_id: str, fingerprint: str) -> int | None:
        """The version a request of this player already produced, or ``None`` if it is new."""
        seen = self.requests.get(request_key(player, request_id))
        if seen is None:
            return None
        if seen[0] != fingerprint:
            raise RequestReused(
                f"request id {request_id!r} was already used for a different command"
            )
        return seen[1]

    # -- commands (decide, then record) ----------------------------------------------------

    def _check_open(self) -> None:
        if self.state == STARTED:
            raise TableRefused("TABLE_STARTED", "the table's game has started")
        if self.state == CLOSED:
            raise TableRefused("TABLE_CLOSED", "the table was closed")

    def join(self, player: str, request_id: str, code_hash: str, now_ms: int) -> int:
        """Seat ``player``: at an invitation's seat (``code_hash``), else at the lowest free
        seat (at a private table only its creator sits without an invitation). Returns the
        seat."""
        self._check_open()
        if self.seat_of(player) is not None:
            raise TableRefused("ALREADY_SEATED", "you already sit at this table")
        if code_hash:
            invitation = self.invitations.get(code_hash)
            if invitation is None or invitation.used or invitation.expires_ms <= now_ms:
                raise TableRefused(
                    "INVITATION_INVALID", "the invitation is unknown, used or expired"
                )
            if self.players[invitation.seat] is not None:
                raise TableRefused("SEAT_TAKEN", "the invitation's seat is taken")
            seat = invitation.seat
        else:
            if self.visibility == "private" and player != self.creator:
                raise TableRefused(
                    "INVITATION_REQUIRED", "a private table is joined with an invitation"
                )
            free = self.free_seats(now_ms)
            if not free:
                raise TableRefused("TABLE_FULL", "the table has no free seat")
            seat = free[0]
        self._seat_taken(
            player=player,
            request_id=request_id,
            seat=seat,
            invitation=code_hash,
            taken_ms=max(now_ms, self.left_ms.get(seat, -1) + 1),
        )
        return seat

    def leave(self, player: str, request_id: str, now_ms: int) -> int:
        self._check_open()
        seat = self.seat_of(player)
        if seat is None:
            raise TableRefused("NOT_SEATED", "you do not sit at this table")
        # Never before the seat was taken (another replica's clock may be behind): every token
        # of the leaver is issued at ``taken_ms``, so this moment covers them all.
        left = max(now_ms, self.taken_ms.get(seat, 0))
        self._seat_left(player=player, request_id=request_id, seat=seat, left_ms=left)
        return seat

    def invite(
        self,
        player: str,
        request_id: str,
        code_hash: str,
        seat: int | None,
        expires_ms: int,
        now_ms: int,
        asked: str,
    ) -> int:
        """Hold ``seat`` (the lowest free one if ``None``) for the code's holder."""
        self._check_open()
        if player != self.creator and self.seat_of(player) is None:
            raise NotTableCreator("only the table's creator or a seated player may invite")
        free = self.free_seats(now_ms)
        if seat is None:
            if not free:
                raise TableRefused("TABLE_FULL", "the table has no free seat to invite to")
            seat = free[0]
        elif seat not in range(self.seat_count):
            raise InvalidAction(f"the table's seats are 0 to {self.seat_count - 1}", field="seat")
        elif seat not in free:
            raise TableRefused("SEAT_TAKEN", f"seat {seat} is taken or already invited to")
        self._invited(
            player=player,
            request_id=request_id,
            code_hash=code_hash,
            seat=seat,
            expires_ms=expires_ms,
            asked=asked,
        )
        return seat

    def fill_with_bots(self, player: str, request_id: str) -> list[int]:
        """The creator seats a server bot at every empty seat (invited ones too)."""
        self._check_open()
        if player != self.creator:
            raise NotTableCreator("only the table's creator may fill it with bots")
        if not self.people:
            raise TableRefused("NO_PLAYER_SEATED", "a person must sit at the table first")
        empty = [s for s, p in enumerate(self.players) if p is None]
        for seat in empty:
            self._bot_seated(player=player, request_id=request_id, seat=seat)
        return empty

    def start(self, game_id: uuid.UUID) -> None:
        """Record the start of the game of a full table (the server, not a player)."""
        self._check_open()
        if not self.full:
            raise TableRefused("TABLE_NOT_FULL", "the table has empty seats")
        self._started(player=SERVER, request_id=f"start:{game_id}", game_id=str(game_id))

    def close(self, player: str, request_id: str) -> None:
        self._check_open()
        if player != self.creator:
            raise NotTableCreator("only the table's creator may close it")
        self._closed(player=player, request_id=request_id)

    def close_unstartable(self, reason: str) -> None:
        """The server closes a full table whose game can never be created (``reason``)."""
        self._check_open()
        self._closed(player=SERVER, request_id=f"close:{reason}", reason=reason)

    # -- events ----------------------------------------------------------------------------
    # Each body also notes the request it answers (``requests``), from the recorded fields
    # alone, so a table read back from the store answers retries as the live one does.

    def _remember(self, player: str, request_id: str, fingerprint: str) -> None:
        self.requests[request_key(player, request_id)] = (fingerprint, self.version + 1)

    @event(SeatTaken)
    def _seat_taken(
        self, player: str, request_id: str, seat: int, invitation: str, taken_ms: int
    ) -> None:
        self._remember(player, request_id, join_fingerprint(invitation))
        self.players[seat] = player
        self.taken_ms[seat] = taken_ms
        if invitation:
            held = self.invitations[invitation]
            self.invitations[invitation] = Invitation(held.seat, held.expires_ms, used=True)

    @event(SeatLeft)
    def _seat_left(self, player: str, request_id: str, seat: int, left_ms: int) -> None:
        self._remember(player, request_id, "leave")
        self.players[seat] = None
        self.left_ms[seat] = left_ms

    @event(InvitationCreated)
    def _invited(
        self,
        player: str,
        request_id: str,
        code_hash: str,
        seat: int,
        expires_ms: int,
        asked: str,
    ) -> None:
        self._remember(player, request_id, invite_fingerprint(asked))
        self.invitations[code_hash] = Invitation(seat, expires_ms)

    @event(BotSeated)
    def _bot_seated(self, player: str, request_id: str, seat: int) -> None:
        self._remember(player, request_id, "fill")
        self.players[seat] = bot_player_id(seat)
        self.bot_seats = sorted({*self.bot_seats, seat})

    @event(Started)
    def _started(self, player: str, request_id: str, game_id: str) -> None:
        self.game_id = uuid.UUID(game_id)
        self.state = STARTED

    @event(Closed)
    def _closed(self, player: str, request_id: str, reason: str = "") -> None:
        self._remember(player, request_id, "close")
        self.state = CLOSED
        self.closed_reason = reason


def join_fingerprint(code_hash: str) -> str:
    """What a join request asked: a free seat, or the seat of one invitation."""
    return f"join:{code_hash}"


def invitation_request(seat: int | None, seconds: int) -> str:
    """What an invitation request asked: its seat (``""``: the lowest free one) and lifetime."""
    return f"{'' if seat is None else seat}/{seconds}"


def invite_fingerprint(asked: str) -> str:
    return f"invite:{asked}"
