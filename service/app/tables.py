"""The lobby's use cases: open a table, take and leave seats, invite, fill with bots, start.

Tables are ``Table`` aggregates (``domain.model.table``) in the application's store, beside the
games. A command is idempotent by the caller's request id (scoped to the caller) and decided on a
copy of the table under its lock, then saved with the store's optimistic check; a save that
loses to another replica is decided again on a fresh copy. So of 20 joins racing for the last
seat exactly one is recorded, and the others are refused (``TABLE_FULL``, or ``TABLE_STARTED``
once the game began). The game's id is fixed when the table opens (``game_request``), so a join
returns the seat token of a game that may not exist yet; the start is idempotent, finished by
whoever next touches a full table (or ``sweep``). A player who leaves has the seat's tokens
issued until then revoked (``Revocations``, as ``ReplacePlayer``). docs/TABLES.md tells it all.

Why over 400 lines: the lobby's use cases share one command path (request ids scoped to the
caller, the per-table lock, the optimistic retry and the game's start), which is this one class.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from eventsourcing.persistence import IntegrityError, PersistenceError

from domain.model import RequestReused
from domain.model.table import (
    CLOSED,
    OPEN,
    STARTED,
    VISIBILITIES,
    Table,
    TableRefused,
    invitation_hash,
    invitation_request,
    invite_fingerprint,
    join_fingerprint,
)
from domain.model.terms import TimeControl, check_stake
from domain.rules import RuleSet
from domain.rules.errors import InvalidAction
from projections.lobby import LobbyTables, open_tables_of, pending_starts
from service.app import validation
from service.app.application import (
    Conflict,
    GameNotFound,
    LeagueRulesDiffer,
    PreferansApplication,
    ServiceError,
    StoreUnavailable,
)
from service.app.rule_options import check_rule_set

T = TypeVar("T")
log = logging.getLogger(__name__)
ATTEMPTS = 50
"""How often a command lost to concurrent writers is decided again before ``Conflict``."""
MAX_INVITATION_SECONDS = 7 * 24 * 3600
DEFAULT_INVITATION_SECONDS = 24 * 3600
MAX_OPEN_TABLES = 20
"""Open tables one player may have opened (counted by the lobby read model, a moment behind)."""


class TableNotFound(ServiceError):
    def __init__(self, table_id: uuid.UUID) -> None:
        super().__init__(f"no table {table_id}")
        self.table_id = table_id


@dataclass(frozen=True)
class Seated:
    """A join's answer: the table, the seat, and the seat's token for the table's game."""

    table: Table
    seat: int
    token: str


@dataclass(frozen=True)
class Invited:
    table: Table
    code: str
    seat: int
    expires_ms: int


class Lobby:
    """The lobby's commands and reads over the application's store (module docstring)."""

    def __init__(self, app: PreferansApplication, clock: Callable[[], float] = time.time) -> None:
        self.app = app
        self.clock = clock
        self.on_change: Callable[[uuid.UUID], None] = lambda table_id: None
        self.on_game_created: Callable[[uuid.UUID], None] = lambda game_id: None
        """Told of each game this lobby creates (the server: its watchers and the keeper)."""
        """Called after each recorded change of a table (the server wakes the projections)."""
        lobby = LobbyTables()
        with app.db.transaction() as c:  # the sweep reads it, even before its worker runs
            app.db.lock(c, lobby.name)
            lobby.create_tables(c)

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def game_request(self, table_id: uuid.UUID) -> tuple[str, str]:
        """The request id and creator secret of the game a table starts."""
        return f"table:{table_id}", self.app.keys.table_game_secret(table_id)

    def game_id_for(self, table_id: uuid.UUID) -> uuid.UUID:
        return self.app.keys.game_ids(*self.game_request(table_id))[0]

    # -- commands -------------------------------------------------------------------------

    def create_table(
        self,
        creator: str,
        request_id: str,
        rules: RuleSet,
        *,
        visibility: str = "public",
        league: str = "",
        time_control: TimeControl | None = None,
        stake_per_whist: int = 0,
        take_seat: bool = False,
    ) -> Seated | Table:
        """Open a table (and seat its creator at seat 0 with ``take_seat``): the ``Seated``
        answer then, else the table. A retry returns the same table (and a fresh token)."""
        creator = validation.person_id(creator)
        request_id = validation.request_id(request_id)
        league = validation.league(league)
        if visibility not in VISIBILITIES:
            raise InvalidAction("visibility is public or private", field="visibility")
        check_rule_set(rules)
        check_stake(stake_per_whist)
        self._check_league(league, rules)
        table_id = self.app.keys.table_id(creator, request_id)
        if open_tables_of(self.app.db, creator) >= MAX_OPEN_TABLES:
            with contextlib.suppress(TableNotFound):  # a retry of an opening still answers
                return self._opened(self._load(table_id), creator, take_seat)
            raise TableRefused(
                "TOO_MANY_TABLES",
                f"you have {MAX_OPEN_TABLES} open tables: close one or wait until one starts",
            )
        table = Table.open(
            table_id,
            creator=creator,
            request_id=request_id,
            rules=rules.to_dict(),
            seats=rules.players,
            visibility=visibility,
            league=league,
            time_control=None if time_control is None else time_control.to_dict(),
            stake_per_whist=stake_per_whist,
            game_id=self.game_id_for(table_id),
        )
        if take_seat:  # in the same save: a table never waits without its creator
            table.join(creator, request_id, "", self._now_ms())
        with self.app._lock(table_id):
            try:
                self.app.save(table)
            except IntegrityError:
                self.app._evict(table_id)  # a retry: the table exists, and asked the same
                if self._load(table_id).terms() != table.terms():
                    raise RequestReused(
                        f"request id {request_id!r} opened a table with other terms"
                    ) from None
            except PersistenceError as exc:
                raise StoreUnavailable(str(exc)) from exc
            else:
                self.on_change(table_id)
        return self._opened(self.get_table(table_id), creator, take_seat)

    def _opened(self, table: Table, creator: str, take_seat: bool) -> Seated | Table:
        """CreateTable's answer: the creator's seat and token with ``take_seat``."""
        seat = table.seat_of(creator)
        if take_seat and seat is not None:
            return Seated(table, seat, self._token(table, seat, creator))
        return table

    def _check_league(self, league: str, rules: RuleSet) -> None:
        """A table of a league plays its rules (read only: the league's first game fixes
        them, ``create_game``)."""
        if league:
            self.app.check_league(league, rules)

    def join_table(
        self, table_id: uuid.UUID, player: str, request_id: str, code: str = ""
    ) -> Seated:
        """Seat the player (at a free seat, or the seat of the invitation ``code``) and
        return the seat's token. A player already seated gets a fresh token for that seat."""
        player = validation.person_id(player)
        request_id = validation.request_id(request_id)
        code_hash = invitation_hash(validation.invitation_code(code)) if code else ""
        now = self._now_ms()
        table = self._load(table_id)
        seat = table.seat_of(player)
        if seat is not None and table.state == CLOSED:
            raise TableRefused("TABLE_CLOSED", "the table was closed")
        if seat is None:

            def decide(t: Table) -> None:
                if t.seat_of(player) is None:  # else a join of his that landed meanwhile
                    t.join(player, request_id, code_hash, now)

            table, _ = self._command(
                table_id, player, request_id, join_fingerprint(code_hash), decide
            )
            seat = table.seat_of(player)
            if seat is None:  # a retry of a join after the player left again
                raise TableRefused("NOT_SEATED", "you left this table since; join again")
            if table.state == CLOSED:  # its game could never be created (``_finish_start``)
                raise TableRefused("TABLE_CLOSED", "the table was closed")
        return Seated(table, seat, self._token(table, seat, player))

    def _token(self, table: Table, seat: int, player: str) -> str:
        """A token for the player's seat of the table's game, issued when he took the seat
        (never "now"): every revocation of the seat since (his leave, resignation, forfeit,
        replacement) covers it. Once the game started, only while he still sits there."""
        if table.state == STARTED and self.app.get_game(table.game_id).players[seat] != player:
            raise TableRefused(
                "NOT_SEATED", "you left this table's game (resigned, forfeited or replaced)"
            )
        issued = max(table.taken_ms.get(seat, 0), table.left_ms.get(seat, -1) + 1)
        return self.app.keys.mint(table.game_id, seat, issued)

    def leave_table(self, table_id: uuid.UUID, player: str, request_id: str) -> Table:
        """Free the player's seat (before the start); the seat's tokens issued until now stop
        working."""
        player = validation.person_id(player)
        request_id = validation.request_id(request_id)
        now = self._now_ms()
        table, _ = self._command(
            table_id, player, request_id, "leave", lambda t: t.leave(player, request_id, now)
        )
        self._revoke_leavers(table)
        return table

    def create_invitation(
        self,
        table_id: uuid.UUID,
        player: str,
        request_id: str,
        seat: int | None = None,
        seconds: int = 0,
    ) -> Invited:
        """A code good for one seat (``seat``, or the lowest free one) until it expires
        (``seconds``; 0: a day). The code derives from the request under the server key, so a
        retry returns the same code; the table records its hash only."""
        player = validation.person_id(player)
        request_id = validation.request_id(request_id)
        if not 0 <= seconds <= MAX_INVITATION_SECONDS:
            raise InvalidAction(
                f"an invitation lasts 0 to {MAX_INVITATION_SECONDS} seconds (0: a day)",
                field="ttl_seconds",
            )
        if seat is not None and not 0 <= seat < validation.MAX_SEATS:
            raise InvalidAction("not a seat of the table", field="seat")
        code = self.app.keys.invitation_code(table_id, player, request_id)
        code_hash = invitation_hash(code)
        now = self._now_ms()
        expires = now + 1000 * (seconds or DEFAULT_INVITATION_SECONDS)
        asked = invitation_request(seat, seconds)
        table, _ = self._command(
            table_id,
            player,
            request_id,
            invite_fingerprint(asked),
            lambda t: t.invite(player, request_id, code_hash, seat, expires, now, asked),
        )
        held = table.invitations[code_hash]
        return Invited(table, code, held.seat, held.expires_ms)

    def fill_with_bots(self, table_id: uuid.UUID, player: str, request_id: str) -> Table:
        """The creator seats a server bot at every empty seat; the game starts."""
        player = validation.person_id(player)
        request_id = validation.request_id(request_id)
        table, _ = self._command(
            table_id, player, request_id, "fill", lambda t: t.fill_with_bots(player, request_id)
        )
        return table

    def close_table(self, table_id: uuid.UUID, player: str, request_id: str) -> Table:
        """The creator closes the table before its start."""
        player = validation.person_id(player)
        request_id = validation.request_id(request_id)
        table, _ = self._command(
            table_id, player, request_id, "close", lambda t: t.close(player, request_id)
        )
        return table

    # -- reads ----------------------------------------------------------------------------

    def get_table(self, table_id: uuid.UUID) -> Table:
        """The table (its pending start finished first, if any)."""
        return self._finish_start(self._load(table_id))

    def sweep_pending(self) -> int:
        """Finish every start the lobby read model shows as due (a full, open table: a crash
        came between its last seat and its game); how many. The server runs it when it
        starts; any command or read of such a table also finishes its start."""
        return self.sweep([uuid.UUID(t) for t in pending_starts(self.app.db)])

    def sweep(self, table_ids: list[uuid.UUID]) -> int:
        """Finish the start of every full table among these (after a crash); how many. A
        table that fails (the store, for now) is logged and left for the next sweep: the
        others are still started."""
        started = 0
        for table_id in table_ids:
            try:
                table = self._load(table_id, fresh=True)
                if table.state == OPEN and table.full:
                    started += self._finish_start(table).state == STARTED
            except Exception:
                log.exception("the start of table %s failed; the next sweep retries", table_id)
        return started

    # -- plumbing -------------------------------------------------------------------------

    def _load(self, table_id: uuid.UUID, fresh: bool = False) -> Table:
        try:
            aggregate: Any = self.app._load_any(table_id, fresh=fresh)
        except GameNotFound:
            raise TableNotFound(table_id) from None
        if not isinstance(aggregate, Table):
            raise TableNotFound(table_id)
        return aggregate

    def _command(
        self,
        table_id: uuid.UUID,
        player: str,
        request_id: str,
        fingerprint: str,
        decide: Callable[[Table], T],
    ) -> tuple[Table, T | None]:
        """Decide on the table and save (``_write``). A request id already seen answers as
        the first time (``None``). A full table's start is finished first: its seats never
        change between its last seat and its game."""
        for _ in range(ATTEMPTS):
            self._finish_start(self._load(table_id))

            def step(table: Table) -> tuple[bool, T | None]:
                if table.state == OPEN and table.full:
                    raise _StartFirst
                if table.answer_for(player, request_id, fingerprint) is not None:
                    return False, None
                before = table.version
                answer = decide(table)
                if table.state == OPEN and table.full:  # this decision fills the table
                    self._check_league(table.league, RuleSet.from_dict(table.rules))
                return table.version != before, answer

            try:
                table, answer = self._write(table_id, step)
            except _StartFirst:
                continue
            return self._finish_start(table), answer
        raise Conflict("the table is changing too fast; retry")

    def _write(
        self, table_id: uuid.UUID, step: Callable[[Table], tuple[bool, T]]
    ) -> tuple[Table, T]:
        """``step`` on a copy of the table under its lock: ``(changed, answer)``; a changed
        copy is saved, and ``step`` runs again on a fresh copy if another writer saved first.
        (A copy: readers do not take the lock, and must never see a seat a lost race took.)"""
        for attempt in range(ATTEMPTS):
            with self.app._lock(table_id):
                table = copy.deepcopy(self._load(table_id, fresh=attempt > 0))
                changed, answer = step(table)
                if not changed:
                    return table, answer
                try:
                    self.app.save(table)
                except IntegrityError:
                    self.app._evict(table_id)
                    continue
                except PersistenceError as exc:
                    self.app._evict(table_id)
                    raise StoreUnavailable(str(exc)) from exc
            self.on_change(table_id)
            return table, answer
        raise Conflict("the table is changing too fast; retry")

    def _revoke_leavers(self, table: Table) -> None:
        """Refuse the tokens of every seat's earlier holders (issued until they left)."""
        for seat, moment in table.left_ms.items():
            self.app.revocations.revoke(table.game_id, [seat], moment)

    def _finish_start(self, table: Table) -> Table:
        """Create the game of a full, open table and record its start (idempotent: the game's
        creation is keyed by the table, so a second caller finds the same game)."""
        if table.state != OPEN or not table.full:
            return table
        self._revoke_leavers(table)
        request_id, secret = self.game_request(table.id)
        try:
            created = self.app.create_game(
                [cast(str, p) for p in table.players],
                request_id=request_id,
                rules=RuleSet.from_dict(table.rules),
                league=table.league,
                creator_secret=secret,
                time_control=TimeControl.from_dict(table.time_control),
                bot_seats=tuple(table.bot_seats),
                stake_per_whist=table.stake_per_whist,
            )
        except (LeagueRulesDiffer, InvalidAction) as exc:  # never creatable: close the table
            reason = "LEAGUE_RULES_DIFFER" if isinstance(exc, LeagueRulesDiffer) else "GAME_REFUSED"
            log.warning("table %s cannot start its game (%s): closed", table.id, exc)

            def close(current: Table) -> tuple[bool, None]:
                if current.state != OPEN:
                    return False, None
                current.close_unstartable(reason)
                return True, None

            return self._write(table.id, close)[0]

        self.on_game_created(created.game_id)

        def step(current: Table) -> tuple[bool, None]:
            if current.state != OPEN:
                return False, None  # another process recorded it
            current.start(created.game_id)
            return True, None

        return self._write(table.id, step)[0]


class _StartFirst(Exception):
    """The table filled up meanwhile: finish its start, then judge the command again."""
