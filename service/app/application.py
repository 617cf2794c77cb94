"""The application: use cases over the event store (create a game, act, read, replay).

Commands are safe to retry: a command repeated with the same ``request_id`` has no second
effect and returns the first answer. Two commands racing for one game never both land: the
event store's optimistic concurrency rejects the second, which gets ``Conflict`` (retry it).
Within one process, commands on one game are serialised by a lock, and games are served from
the aggregate cache (fast-forwarded from the store, so writes by other replicas are seen).

Why over 400 lines: every use case shares one command path (request ids, the per-game lock,
conflict handling, group commit and the command's steps across it, the key-derived secrets);
the key handling itself lives in ``service.app.keys`` and ``keystore``.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, cast

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import (
    ApplicationRecorder,
    IntegrityError,
    PersistenceError,
    StoredEvent,
)

from domain.bots import make_bot, order_choice
from domain.model import Game, League, league_id_for
from domain.model.codec import (
    TIME_FINGERPRINT,
    abort_fingerprint,
    action_fingerprint,
    order_fingerprint,
    replace_fingerprint,
    stop_fingerprint,
)
from domain.model.disputes import flag_fingerprint, ruling_fingerprint
from domain.model.leaving import (
    RESIGNED,
    TIMEOUT_FINGERPRINT,
    Moot,
    adjourn_fingerprint,
    bot_request,
    persons,
    resume_fingerprint,
    timeout_request,
)
from domain.model.terms import (
    TimeControl,
    check_bot_players,
    check_bot_seats,
    check_stake,
)
from domain.rules import (
    DEFAULT,
    Action,
    Phase,
    RuleSet,
    actor,
    awaiting_order,
    game_orderer,
    game_seat_view,
    seed_commitment,
)
from domain.rules.errors import IllegalAction, InvalidAction
from projections.db import Database
from service.app import validation
from service.app.config import ensure_schema, refuse_in_memory
from service.app.groupcommit import GroupCommitter
from service.app.hub import SqliteChanges
from service.app.identity import JwtVerifier, load_verifier
from service.app.keys import KeyConfigError, Keyring, TokenClaims, load_keyring
from service.app.keystore import LEGACY_KEY_MESSAGE, Revocations, legacy_key
from service.app.pgrecorder import RECORDER_TOPIC
from service.app.rule_options import check_rule_set
from service.app.shards import ShardedCommitter, Shards, recorders_of
from service.app.sqliterecorder import RECORDER_TOPIC as SQLITE_RECORDER_TOPIC

T = TypeVar("T")

ORDER_MINUTES = 60
"""How far ahead a bot orders the end time of a game played until time (a bot has no clock): the
keeper's bot from the game's last event's moment (so every replica orders the same end time),
the simulation from its own clock."""


class ServiceError(Exception):
    """Base of the application's own errors (the rules' errors pass through unchanged)."""


class GameNotFound(ServiceError):
    pass


class Conflict(ServiceError):
    """Another command on the same game landed first; retry with the same request id."""


class StoreUnavailable(ServiceError):
    """The event store cannot be reached."""


class NotInMemory(ServiceError):
    """A command asked to run ``in_memory`` would have to wait for its game's lock or read
    the store: run it without ``in_memory`` (nothing was changed)."""


class KeyMissing(StoreUnavailable):
    """No configured key derives this game's seed (its key was removed from the keyring)."""


class LeagueRulesDiffer(ServiceError):
    """A game asked for other conventions than its league's (fixed by the league's first game:
    "do not mix systems", S001 §02, §13)."""

    def __init__(self, league: str, system: str, first_game: str) -> None:
        super().__init__(
            f"league {league!r} plays under the {system!r} rule set with the options of its "
            f"first game ({first_game}); create the game with those rules or in another league"
        )
        self.league = league
        self.system = system


class TokensWithheld(ServiceError):
    """A creation was retried without the creator's secret: the game exists, and its seat
    tokens go only to a retry that proves to be the same caller."""

    def __init__(self, game_id: uuid.UUID) -> None:
        super().__init__(
            f"game {game_id} was already created with this request id; its seat tokens are "
            "returned again only to a retry with the same creator_secret"
        )
        self.game_id = game_id


class NotCreator(ServiceError):
    """A command only the game's creator may give (calling time) came without the creator's
    credential: the request id and ``creator_secret`` of the game's creation."""


@dataclass(frozen=True)
class CreatedGame:
    game_id: uuid.UUID
    tokens: tuple[str, ...]
    """One secret token per seat; only their hashes are stored."""
    version: int
    seed_commitment: str


@dataclass(frozen=True)
class CommandResult:
    game_id: uuid.UUID
    version: int
    """The game's version after the command (the same on a retry)."""
    replayed: bool
    """True when this answer is the stored answer of an earlier identical request."""
    answer: Any = None
    """What the command's ``then`` callback returned."""


CommandSteps = Generator[Game, BaseException | None, CommandResult]
"""A command run in steps (``act_steps``), holding its game's lock throughout: it yields the game
when the game's new events are to be saved, and is sent ``None`` once they are saved or the
error the save raised (``save_failed``); its return value is the answer. ``_command`` drives it
in one thread; the gRPC servicer drives it without holding a thread while the save waits for
its group commit (``submit``)."""


class PreferansApplication(Application[uuid.UUID]):
    """Games as event streams in the configured store."""

    name = "preferans"
    env: ClassVar[dict[str, str]] = {
        "AGGREGATE_CACHE_MAXSIZE": "2000",
        # Games are served from memory; optimistic concurrency catches a stale copy, and the
        # server's store subscription evicts games that other replicas changed.
        "AGGREGATE_CACHE_FASTFORWARD": "n",
        "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
    }

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        given = dict(env or {})
        resolved = self.construct_env(self.name, given)
        refuse_in_memory(resolved)
        ensure_schema(resolved)
        module = resolved.get("PERSISTENCE_MODULE", "")
        if not resolved.get("APPLICATION_RECORDER_TOPIC"):
            if module.endswith("postgres"):
                # The library's recorder, with COMMIT in the INSERT's round trip (pgrecorder.py).
                given["APPLICATION_RECORDER_TOPIC"] = RECORDER_TOPIC
            elif module.endswith("sqlite"):
                # The library's recorder, its writer on a kept connection (sqliterecorder.py).
                given["APPLICATION_RECORDER_TOPIC"] = SQLITE_RECORDER_TOPIC
        super().__init__(given)
        self.db = Database(self.env)
        try:
            if legacy_key(self.db) is not None:
                raise KeyConfigError(LEGACY_KEY_MESSAGE)
            self.revocations = Revocations(self.db)
        except BaseException:
            self.db.close()
            raise
        self._keys: Keyring | None = None
        self._identity: JwtVerifier | None = None
        self._locks: dict[uuid.UUID, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._changes: list[SqliteChanges] = []
        if self.db.flavor == "sqlite":
            self._changes = [
                SqliteChanges(r, r.datastore.pool.db_name) for r in recorders_of(self.recorder)
            ]
        self._committer: GroupCommitter | ShardedCommitter | None = None
        if self.env.get("PREF_GROUP_COMMIT", "y").lower() in ("y", "yes", "true", "1"):
            self._committer = self._shards.committer(self._insert_stored)

    def construct_recorder(self) -> ApplicationRecorder:
        """The library's recorder, or one per shard behind a router (``service.app.shards``)."""
        self._shards = Shards(self.name, self.env, super().construct_recorder())
        return self._shards.recorder

    # -- secrets derived from the server's keys (service/app/keys.py) -------------------------

    @property
    def keys(self) -> Keyring:
        """The keyring, loaded on first use: processes that never derive a secret (migrations,
        projection workers, audits) need no key. The server loads it at start
        (``AuthInterceptor``), so a missing key stops it at once."""
        if self._keys is None:
            with self._locks_guard:
                if self._keys is None:
                    self._keys = load_keyring(self.env)
        return self._keys

    @property
    def identity(self) -> JwtVerifier:
        """The JWT verifier of the configured issuers (``service.app.identity``), loaded on
        first use like ``keys`` (the server loads it at start)."""
        if self._identity is None:
            with self._locks_guard:
                if self._identity is None:
                    self._identity = load_verifier(self.env)
        return self._identity

    def _seed_of(self, game: Game) -> bytes:
        """The game's secret seed: under the key whose seed matches its commitment."""
        seed = self.keys.seed_for(game.id, game.seed_commitment)
        if seed is None:
            raise KeyMissing(
                f"game {game.id} was created under a key this server does not have; "
                "add the old key back to the keyring (after the current one)"
            )
        return seed

    def _seed(self, game_id: uuid.UUID) -> bytes:
        """The seed of an existing game (for tests and benchmarks that play in process)."""
        return self._seed_of(self.get_game(game_id))

    def _mint_tokens(self, game_id: uuid.UUID, seats: int) -> tuple[str, ...]:
        """One token for each of the game's ``seats`` seats, issued now."""
        issued = int(time.time() * 1000)
        return tuple(self.keys.mint(game_id, seat, issued) for seat in range(seats))

    @staticmethod
    def token_hash(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    # -- commands -------------------------------------------------------------------------

    def create_game(
        self,
        players: Sequence[str],
        request_id: str,
        rules: RuleSet = DEFAULT,
        league: str = "",
        first_dealer: int | None = None,
        creator_secret: str = "",
        *,
        time_control: TimeControl | None = None,
        bot_seats: Sequence[int] = (),
        stake_per_whist: int = 0,
    ) -> CreatedGame:
        """Create a game and deal its first deal.

        Retrying with the same request id and the same ``creator_secret`` (a client-chosen
        secret) returns the same game with freshly issued tokens. Without the secret a retry
        gets ``TokensWithheld``: the request id alone proves nothing (it may be guessed).
        Strings are checked and NFC-normalised (``service.app.validation``)."""
        request_id = validation.request_id(request_id)
        _check_creator_secret(creator_secret)
        seats = rules.players
        if len(players) != seats:
            raise InvalidAction(
                f"a game of these rules needs {seats} players (rules.players), each with a "
                f"non-empty id; {len(players)} given",
                field="players",
            )
        players = [
            validation.player_id(p, f"players[{i}].player_id") for i, p in enumerate(players)
        ]
        league = validation.league(league)
        if len(set(players)) != seats:
            raise InvalidAction(f"the {seats} players must be different", field="players")
        check_rule_set(rules)  # a game is never recorded with rules that cannot be loaded
        bots = check_bot_seats(tuple(bot_seats), seats)
        check_bot_players(players, bots)
        check_stake(stake_per_whist)
        candidates = self.keys.game_ids(request_id, creator_secret)
        game_id = candidates[0]
        asked = (list(players), rules, league, first_dealer, time_control, bots, stake_per_whist)
        with self._lock(game_id):
            for candidate in candidates:
                with contextlib.suppress(GameNotFound):
                    return self._created_before(candidate, request_id, asked, creator_secret)
            if league:
                self._fix_league(league, rules, game_id)
            seed = self.keys.seed(game_id)
            dealer = seed[0] % seats if first_dealer is None else first_dealer
            tokens = self._mint_tokens(game_id, seats)
            game = Game._create(
                Game.Created,
                id=game_id,
                seat=-1,
                request_id=request_id,
                players=list(players),
                rules=rules.to_dict(),
                league=league,
                seed_commitment=seed_commitment(seed),
                token_hashes=[self.token_hash(t) for t in tokens],
                first_dealer=dealer,
                time_control=None if time_control is None else time_control.to_dict(),
                bot_seats=bots,
                stake_per_whist=stake_per_whist,
            )
            game.deal_first(seed, request_id)
            try:
                self._save(game)
            except IntegrityError:
                # Another replica created it at the same moment: the same answer if it is the
                # same request, else a conflict.
                self._evict(game_id)
                return self._created_before(game_id, request_id, asked, creator_secret)
            return CreatedGame(game_id, tokens, game.version, game.seed_commitment)

    def check_league(self, league: str, rules: RuleSet) -> bool:
        """Whether the league is open (``False`` before its first game); ``LeagueRulesDiffer``
        if it is and ``rules`` are not its rules (read only)."""
        try:
            existing: League = self.repository.get(league_id_for(league))
        except AggregateNotFoundError:
            return False
        except PersistenceError as exc:
            raise StoreUnavailable(str(exc)) from exc
        if RuleSet.from_dict(existing.rules) != rules:
            raise LeagueRulesDiffer(league, existing.rules.get("name", "?"), existing.first_game)
        return True

    def _fix_league(self, league: str, rules: RuleSet, game_id: uuid.UUID) -> None:
        """Open the league with ``rules`` if this is its first game, else check that ``rules``
        are the league's (``LeagueRulesDiffer``). Two first games racing meet at the store's
        version check: the loser reads the winner's league and is judged by it."""
        for _ in range(2):
            if self.check_league(league, rules):
                return
            try:
                self.save(League.open(league, rules.to_dict(), game_id))
            except IntegrityError:
                continue  # another game opened it first: judge by it
            except PersistenceError as exc:
                raise StoreUnavailable(str(exc)) from exc
            return
        raise Conflict(f"league {league!r} is being opened by another game; retry")

    def _created_before(
        self, game_id: uuid.UUID, request_id: str, asked: tuple[Any, ...], creator_secret: str
    ) -> CreatedGame:
        """The answer to a retried creation (``GameNotFound`` if the game does not exist).

        The game's id derives from the request id and the creator's secret, so this request
        created it: a retry if it asked for the same game, as recorded in the creation event.
        A retry gets tokens issued now (so a retry also renews expired tokens)."""
        existing: Game = self._load(game_id)
        first = self.game_events(game_id, limit=1)[0]
        dealer = asked[3]
        if dealer is None:
            dealer = self._seed_of(existing)[0] % existing.rule_set.players
        recorded = (
            first.players,
            existing.rule_set,
            first.league,
            first.first_dealer,
            existing.time_control,
            existing.bot_seats,
            existing.stake_per_whist,
        )
        if recorded != (*asked[:3], dealer, *asked[4:]):
            raise InvalidAction(f"request id {request_id!r} names another command")
        if not creator_secret:
            raise TokensWithheld(game_id)
        version = existing.requests[request_id][1]
        tokens = self._mint_tokens(game_id, existing.rule_set.players)
        return CreatedGame(game_id, tokens, version, existing.seed_commitment)

    def act(
        self,
        game_id: uuid.UUID,
        seat: int,
        action: Action,
        request_id: str,
        then: Callable[[Game], T] | None = None,
    ) -> CommandResult:
        """One player's decision. Illegal actions raise the rules' errors and record nothing.

        ``then`` is called with the game after the command, under the game's lock (to build a
        response from a consistent state); its result is the ``CommandResult.answer``."""
        return self.drive(self.act_steps(game_id, seat, action, request_id, then))

    def act_steps(
        self,
        game_id: uuid.UUID,
        seat: int,
        action: Action,
        request_id: str,
        then: Callable[[Game], T] | None = None,
        in_memory: bool = False,
    ) -> CommandSteps:
        """``act`` in steps (``CommandSteps``). ``in_memory``: only if the game is in memory
        and its lock is free; otherwise the steps raise ``NotInMemory`` before any change, so
        the event loop may run them (until the save)."""
        request_id = validation.request_id(request_id)
        return self._steps(
            game_id,
            request_id,
            action_fingerprint(seat, action),
            lambda game: game.act(
                seat, action, request_id, self._seed_of(game), time_up=self._time_up(game)
            ),
            then,
            judged_again_on=IllegalAction,
            in_memory=in_memory,
        )

    clock: Callable[[], float] = staticmethod(time.time)
    """The server's clock (seconds since the epoch): the one place the time of a game played
    until its ordered end time is read (tests replace it)."""

    def _time_up(self, game: Game) -> bool:
        """Whether the ordered end time of a game played until time has passed, and time is
        not called yet: then the next valid decision records ``TimeCalled`` first."""
        state = game.state
        order = state.order
        return (
            order is not None
            and order.ends_at > 0
            and not state.time_called
            and self.clock() >= order.ends_at
        )

    def order_game(
        self,
        game_id: uuid.UUID,
        seat: int,
        pool: int,
        ends_at: int,
        request_id: str,
        then: Callable[[Game], T] | None = None,
        obligations: Mapping[str, int] | None = None,
    ) -> CommandResult:
        """The seat with the largest gora orders the game (S000 Classic, ``rules.order_game``):
        the pool length and, in a game played until time, the end time (seconds since the
        epoch), which must be in the future by the server's clock; under ``rules.robber`` the
        obligatory games (contract kind → count, ``domain.rules.robber``). The rules core
        checks the rest (the seat, the moment, the ranges, the obligations). Idempotent by
        request id."""
        request_id = validation.request_id(request_id)

        def decide(game: Game) -> None:
            if ends_at and ends_at <= self.clock():
                raise InvalidAction("the end time must be in the future", field="end_time")
            game.order(seat, pool, ends_at, request_id, self._seed_of(game), obligations)

        return self._command(
            game_id,
            request_id,
            order_fingerprint(seat, pool, ends_at, obligations),
            decide,
            then,
            judged_again_on=IllegalAction,
        )

    def flag_deal(
        self, game_id: uuid.UUID, seat: int, deal_number: int, reason: str, request_id: str
    ) -> CommandResult:
        """A seat disputes a scored deal (also after the game has ended). Idempotent by request
        id; a malformed flag raises ``InvalidAction`` and records nothing."""
        request_id = validation.request_id(request_id)
        reason = validation.reason(reason)
        fingerprint = flag_fingerprint(seat, deal_number, reason)
        return self._command(
            game_id,
            request_id,
            fingerprint,
            lambda game: game.flag_deal(seat, deal_number, reason, request_id),
        )

    def call_time(
        self,
        game_id: uuid.UUID,
        created_with: str,
        creator_secret: str,
        request_id: str,
        then: Callable[[Game], T] | None = None,
    ) -> CommandResult:
        """Time is called in a game played until time (``rules.ending_by_time``, RULES.md §3.4).

        Only the creator may call it: ``created_with`` and ``creator_secret`` must be the
        request id and secret the game was created with (its id derives from both under the
        server's key, so nothing new is stored). Time is an event, never a clock read: the deal
        in progress is played out, then the game ends and is settled by the early-stop rule."""
        request_id = validation.request_id(request_id)
        created_with = validation.request_id(created_with, field="created_with")
        _check_creator_secret(creator_secret)
        if not creator_secret or game_id not in self.keys.game_ids(created_with, creator_secret):
            raise NotCreator(
                "only the game's creator may call time: give the request id and the "
                "creator_secret the game was created with"
            )
        return self._command(
            game_id,
            request_id,
            TIME_FINGERPRINT,
            lambda game: game.call_time(request_id, self._seed_of(game)),
            then,
        )

    def replace_player(
        self,
        game_id: uuid.UUID,
        seat: int,
        player: str,
        created_with: str,
        creator_secret: str,
        request_id: str,
    ) -> tuple[CommandResult, str]:
        """The player at ``seat`` leaves and ``player`` joins in his place (S000 "ПРАВИЛА ДЛЯ
        ОСОБЫХ СЛУЧАЕВ", TV-27; docs/SYSTEMS.md S-13); returns the result and the newcomer's
        seat token.

        Only the creator may do it (the table's consent is his to give, as for calling time).
        Every token of the seat issued until the replacement is refused from then on; a retry
        with the same request id has no second effect and returns a fresh token for the
        newcomer."""
        request_id = validation.request_id(request_id)
        created_with = validation.request_id(created_with, field="created_with")
        _check_creator_secret(creator_secret)
        player = validation.person_id(player, "player.player_id")  # a bot comes by resigning
        if isinstance(seat, bool) or seat not in range(validation.MAX_SEATS):  # at no table
            raise InvalidAction(
                f"no table has a seat {seat}: seats are 0 to {validation.MAX_SEATS - 1} at most",
                field="seat",
            )
        if not creator_secret or game_id not in self.keys.game_ids(created_with, creator_secret):
            raise NotCreator(
                "only the game's creator may replace a player: give the request id and the "
                "creator_secret the game was created with"
            )
        fingerprint = replace_fingerprint(seat, player)
        now_ms = 0
        game = self.get_game(game_id)
        check_seats(game, [seat])
        if game.answer_for(request_id, fingerprint) is None:
            # Refuse first what the rules refuse (a refusal revokes nothing), then revoke the
            # seat's tokens before the replacement is recorded: there is no moment at which
            # the seat is the newcomer's and the leaver's token still acts for it.
            game.check_replacement(seat, player)
            now_ms = self.revocations.revoke(game_id, [seat])
        result = self._command(
            game_id,
            request_id,
            fingerprint,
            lambda game: game.replace_player(seat, player, now_ms, request_id),
            lambda game: game.replaced_ms(request_id),
            judged_again_on=IllegalAction,
        )
        if result.answer is None:
            raise IllegalAction(
                f"seat {seat} has been given to another player since this request: no token for it"
            )
        revoked = self.revocations.of_game(game_id).get(seat, -1)
        issued = max(int(time.time() * 1000), revoked + 1, cast(int, result.answer) + 1)
        return result, self.keys.mint(game_id, seat, issued_ms=issued)

    def agree_stop(
        self,
        game_id: uuid.UUID,
        seat: int,
        request_id: str,
        then: Callable[[Game], T] | None = None,
    ) -> CommandResult:
        """A seat agrees to stop the game early (RULES.md §3.0, TV-27). When every seat has
        agreed during the same deal the game ends at once, settled by the early-stop rule."""
        request_id = validation.request_id(request_id)
        return self._command(
            game_id,
            request_id,
            stop_fingerprint(seat),
            lambda game: game.agree_stop(seat, request_id, self._seed_of(game)),
            then,
            judged_again_on=IllegalAction,
        )

    # -- clocks, bots, leaving (issue 14; docs/CLOCKS.md) -----------------------------------

    def time_out(self, game_id: uuid.UUID, version: int, now: float | None = None) -> CommandResult:
        """The seat to act at ``version`` is out of time by the server's clock (``now``, seconds
        since the epoch; ``clock()`` by default): ``TimeExpired`` and its consequence, in one
        save. Its request id derives from ``version``, so replicas and retries record it once;
        ``Moot`` if a decision landed first, ``NotDue`` before the deadline (nothing recorded).
        A forfeit revokes the leaver's seat tokens once recorded, and again on every replay
        while the bot still holds the seat (a revocation lost to a crash is made by the retry)."""
        now_ms = int((self.clock() if now is None else now) * 1000)
        request_id = timeout_request(version)
        result = self._command(
            game_id,
            request_id,
            TIMEOUT_FINGERPRINT,
            lambda game: game.time_out(
                version, now_ms, request_id, self._seed_of(game), time_up=self._time_up(game)
            ),
            lambda game: _forfeited_seat(game, request_id),
            judged_again_on=IllegalAction,
        )
        if result.answer is not None:  # also on a replay: the first revocation may have been lost
            self.revocations.revoke(game_id, [result.answer])
        return result

    def play_bot(self, game_id: uuid.UUID, version: int) -> CommandResult:
        """The server's bot decides for its seat when the game at ``version`` waits for it (the
        seat to act, or the orderer of a Classic game); once every person has agreed to stop
        early, the bots agree too. Its request id derives from ``version``.
        ``Moot`` if the game has left ``version`` or waits for no bot."""
        game = self.get_game(game_id)
        if game.version != version or game.finished or game.adjourned:
            raise Moot(f"the game at version {version} waits for no bot")
        state = game.state
        request_id = bot_request(version)
        waiting = persons(len(game.players), game.bot_seats) <= state.stop_agreed
        if state.stop_agreed and waiting:  # every person agreed to stop: so do the bots
            seat = min(set(game.bot_seats) - state.stop_agreed)

            def stop(game: Game) -> None:
                if game.version != version:
                    raise Moot(f"the game has left version {version}")
                game.agree_stop(seat, request_id, self._seed_of(game))

            return self._command(game_id, request_id, stop_fingerprint(seat), stop)
        if awaiting_order(state):
            seat = game_orderer(state)
            if seat not in game.bot_seats:
                raise Moot("the orderer is a person")
            rules = state.rules
            # From the game's last event (the deal scored), not this replica's clock: every
            # replica and retry computes the same order, so the same fingerprint.
            last = int(game.modified_on.timestamp())
            ends_at = last + ORDER_MINUTES * 60 if rules.ending_by_time else 0
            pool = order_choice(rules, state.sheet, seat)
            fingerprint = order_fingerprint(seat, pool, ends_at)

            def order(game: Game) -> None:
                if game.version != version:
                    raise Moot(f"the game has left version {version}")
                game.order(seat, pool, ends_at, request_id, self._seed_of(game))

            return self._command(game_id, request_id, fingerprint, order)
        deal = state.deal
        if deal is None or deal.phase is Phase.SCORED or actor(deal) not in game.bot_seats:
            raise Moot("no bot is to act")
        seat = actor(deal)
        action = make_bot()(game_seat_view(state, seat))  # deterministic: every replica agrees

        def decide(game: Game) -> None:
            if game.version != version:
                raise Moot(f"the game has left version {version}")
            game.act(seat, action, request_id, self._seed_of(game), time_up=self._time_up(game))

        return self._command(
            game_id,
            request_id,
            action_fingerprint(seat, action),
            decide,
            judged_again_on=IllegalAction,
        )

    def resign(self, game_id: uuid.UUID, seat: int, request_id: str) -> CommandResult:
        """The person at ``seat`` resigns: he leaves by the early-leave rule and the server's
        bot plays on (``domain.model.leaving``). His seat's tokens are revoked before the
        resignation is recorded (as for ``replace_player``). Idempotent by request id."""
        request_id = validation.request_id(request_id)
        game = self.get_game(game_id)
        check_seats(game, [seat])
        done = next((r for r in game.replacements if r["request_id"] == request_id), None)
        bot = game.bot_for(seat) if done is None else done["player"]
        fingerprint = replace_fingerprint(seat, bot)
        now_ms = 0
        if game.answer_for(request_id, fingerprint) is None:
            game.check_resignation(seat)  # a refusal revokes nothing
            now_ms = self.revocations.revoke(game_id, [seat])
        return self._command(
            game_id,
            request_id,
            fingerprint,
            lambda game: game.resign(seat, RESIGNED, now_ms, request_id),
            judged_again_on=IllegalAction,
        )

    def adjourn(
        self,
        game_id: uuid.UUID,
        seat: int,
        request_id: str,
        *,
        resume: bool = False,
        then: Callable[[Game], T] | None = None,
    ) -> CommandResult:
        """A person's seat agrees to adjourn the game (or, ``resume``, asks to resume it); the
        last agreement adjourns (resumes) it. Idempotent by request id."""
        request_id = validation.request_id(request_id)
        fingerprint = resume_fingerprint(seat) if resume else adjourn_fingerprint(seat)
        return self._command(
            game_id,
            request_id,
            fingerprint,
            lambda game: game.agree_adjournment(seat, request_id, adjourn=not resume),
            then,
            judged_again_on=IllegalAction,
        )

    def abort_game(
        self,
        game_id: uuid.UUID,
        seat: int,
        request_id: str,
        then: Callable[[Game], T] | None = None,
    ) -> CommandResult:
        """A seat aborts the game before its first deal is scored (docs/STAKES.md "Aborting a
        game"): it ends with no settlement and no money. Idempotent by request id."""
        request_id = validation.request_id(request_id)
        return self._command(
            game_id,
            request_id,
            abort_fingerprint(seat),
            lambda game: game.abort(seat, request_id),
            then,
            judged_again_on=IllegalAction,
        )

    def record_ruling(
        self,
        game_id: uuid.UUID,
        deal_number: int,
        reason: str,
        adjustment: dict[str, Any] | None,
        request_id: str,
        auditor: str = "auditor",
        then: Callable[[Game], T] | None = None,
    ) -> CommandResult:
        """An auditor's ruling on a scored deal: ``adjustment`` (gora and whists deltas, see
        ``domain.model.disputes``) or ``None`` for "no change". Idempotent by request id."""
        request_id = validation.request_id(request_id)
        reason = validation.reason(reason)
        auditor = validation.label(auditor, "auditor")
        fingerprint = ruling_fingerprint(deal_number, reason, adjustment)
        return self._command(
            game_id,
            request_id,
            fingerprint,
            lambda game: game.record_ruling(deal_number, reason, adjustment, request_id, auditor),
            then,
        )

    def _command(
        self,
        game_id: uuid.UUID,
        request_id: str,
        fingerprint: str,
        decide: Callable[[Game], None],
        then: Callable[[Game], Any] | None = None,
        judged_again_on: type[Exception] = InvalidAction,
    ) -> CommandResult:
        """Run a command on the game in memory under its lock and save it (``_steps``)."""
        return self.drive(
            self._steps(game_id, request_id, fingerprint, decide, then, judged_again_on)
        )

    def drive(self, steps: CommandSteps) -> CommandResult:
        """Run a command's steps in this thread, saving with ``_save``."""
        outcome: BaseException | None = None
        try:
            while True:
                game = steps.send(outcome)
                try:
                    self._save(game)
                except BaseException as exc:  # handed back to the command, which decides
                    outcome = exc
                else:
                    outcome = None
        except StopIteration as stop:
            result: CommandResult = stop.value
            return result

    def _steps(
        self,
        game_id: uuid.UUID,
        request_id: str,
        fingerprint: str,
        decide: Callable[[Game], None],
        then: Callable[[Game], Any] | None = None,
        judged_again_on: type[Exception] = InvalidAction,
        in_memory: bool = False,
    ) -> CommandSteps:
        """Run a command on the game in memory under its lock and save it.

        A request id already seen returns its first answer. If ``decide`` refuses the command
        (``judged_again_on``), our copy may be behind another replica's writes: it is judged
        again on a fresh copy from the store. A lost race at the save is a ``Conflict``, unless
        the request id shows our own earlier write had in fact committed."""
        with self._locked(game_id, wait=not in_memory):
            game = self._in_memory(game_id) if in_memory else self._load(game_id)
            if in_memory and game.rule_set.costly_decisions:
                raise NotInMemory(str(game_id))  # not on the event loop: decided in the pool
            done = game.answer_for(request_id, fingerprint)
            if done is not None:
                return self._result(game, done, True, then)
            version = game.version
            try:
                self._decide(game, decide)
            except judged_again_on:
                if in_memory:  # to be judged again on a fresh copy: that reads the store
                    raise NotInMemory(str(game_id)) from None
                fresh = self._load(game_id, fresh=True)
                if fresh.version == version:
                    raise
                game = fresh
                done = game.answer_for(request_id, fingerprint)
                if done is not None:
                    return self._result(game, done, True, then)
                self._decide(game, decide)
            failure = yield game  # saved by the driver (``drive``), which sends what it raised
            if isinstance(failure, IntegrityError):
                fresh = self._load(game_id, fresh=True)
                done = fresh.answer_for(request_id, fingerprint)
                if done is not None:
                    return self._result(fresh, done, True, then)
                raise Conflict(
                    "another command on this game landed first; read the game and retry"
                ) from None
            if failure is not None:
                raise failure
            return self._result(game, game.version, False, then)

    def _decide(self, game: Game, decide: Callable[[Game], None]) -> None:
        """``decide(game)``; if it raises after triggering events (a command refused half-way),
        the game in memory is forgotten: its pending events must never reach a later save."""
        version = game.version
        try:
            decide(game)
        except BaseException:
            if game.version != version:
                self._evict(game.id)
            raise

    @staticmethod
    def _result(
        game: Game, version: int, replayed: bool, then: Callable[[Game], Any] | None
    ) -> CommandResult:
        answer = None if then is None else then(game)
        return CommandResult(game.id, version, replayed, answer)

    # -- queries --------------------------------------------------------------------------

    def get_game(self, game_id: uuid.UUID, min_version: int = 0) -> Game:
        """The current game, from memory; read from the store if it is older than
        ``min_version`` (read-your-writes across replicas)."""
        with self._lock(game_id):
            return self._load(game_id, min_version=min_version)

    def read_game(
        self, game_id: uuid.UUID, then: Callable[[Game], T], min_version: int = 0
    ) -> tuple[int, T]:
        """``then(game)`` under the game's lock, with the game's version (for responses)."""
        with self._lock(game_id):
            game = self._load(game_id, min_version=min_version)
            return game.version, then(game)

    def peek_game(
        self, game_id: uuid.UUID, then: Callable[[Game], T], min_version: int = 0
    ) -> tuple[int, T] | None:
        """``read_game`` if it can answer at once, without the store (so the event loop may
        call it): ``None`` when the game is not in memory or is older than ``min_version``, a
        command holds its lock, or writes of other processes must be polled first (SQLite)."""
        try:
            with self._locked(game_id, wait=False):
                game = self._in_memory(game_id)
                if game.version < min_version:
                    return None
                return game.version, then(game)
        except NotInMemory:
            return None

    def invalidate(self, game_id: uuid.UUID, version: int) -> None:
        """The store has event ``version`` of this game (from another writer, maybe): forget
        the game in memory if it is older, so the next use reads it again."""
        cache = self.repository.cache
        if cache is None:
            return
        try:
            cached = cache.get(game_id)
        except KeyError:
            return
        if cached.version < version:
            self._evict(game_id)

    def game_at(self, game_id: uuid.UUID, version: int) -> Game:
        """The game exactly as it was after event number ``version`` (replay)."""
        if version < 1:
            raise InvalidAction("versions start at 1 (the game's creation)")
        try:
            game: Game = self.repository.get(game_id, version=version)
        except AggregateNotFoundError:
            raise GameNotFound(f"no game {game_id}") from None
        except PersistenceError as exc:
            raise StoreUnavailable(str(exc)) from exc
        if game.version != version:
            # The repository silently returns the latest version for a version past the end.
            raise InvalidAction(
                f"no version {version}: game {game_id} has {game.version} events so far"
            )
        return game

    def game_events(
        self, game_id: uuid.UUID, after: int = 0, limit: int | None = None
    ) -> list[Any]:
        """The game's domain events after version ``after`` (all of them by default)."""
        try:
            return list(self.events.get(game_id, gt=after or None, limit=limit))
        except PersistenceError as exc:
            raise StoreUnavailable(str(exc)) from exc

    def check_token(self, token: str) -> TokenClaims | str:
        """A token's claims (signature, key and expiry checked; no store access), or why it
        is refused. Revocations are checked by ``revoked``."""
        return self.keys.check(token)

    @staticmethod
    def revoked(claims: TokenClaims, revocations: Mapping[int, int]) -> bool:
        """Whether a revocation of the game's seats (``Revocations.of_game``) covers it."""
        moment = revocations.get(claims.seat)
        return moment is not None and claims.issued_ms <= moment

    def seat_of_token(self, game_id: uuid.UUID, token: str) -> int | None:
        """The seat a valid, unexpired, unrevoked token acts for in this game, or ``None``."""
        claims = self.check_token(token)
        if isinstance(claims, str) or claims.game_id != game_id:
            return None
        if self.revoked(claims, self.revocations.of_game(game_id)):
            return None
        return claims.seat

    def authenticate(self, game_id: uuid.UUID, token: str) -> int | None:
        """The seat a token belongs to in this existing game (``GameNotFound`` if none)."""
        self.get_game(game_id)
        return self.seat_of_token(game_id, token)

    def revoke_tokens(self, game_id: uuid.UUID, seats: Sequence[int] | None = None) -> int:
        """Refuse every token issued so far for these seats of an existing game (every seat
        of it by default); returns the moment (ms). New tokens: the creator retries CreateGame
        with its secret."""
        game = self.get_game(game_id)
        if seats is None:
            seats = range(game.rule_set.players)
        check_seats(game, seats)
        return self.revocations.revoke(game_id, list(seats))

    def close(self) -> None:
        if self._committer is not None:
            self._committer.close()
        for recorder in recorders_of(self.recorder):
            release = getattr(recorder, "release", None)
            if release is not None:  # the writer's kept connection (pgrecorder, sqliterecorder)
                release()
        self.db.close()
        super().close()
        self._shards.close()

    # -- plumbing -------------------------------------------------------------------------

    def _lock(self, game_id: uuid.UUID) -> threading.Lock:
        with self._locks_guard:
            lock = self._locks.get(game_id)
            if lock is None:
                lock = self._locks[game_id] = threading.Lock()
            return lock

    @contextlib.contextmanager
    def _locked(self, game_id: uuid.UUID, wait: bool = True) -> Iterator[None]:
        """The game's lock held; without ``wait``, ``NotInMemory`` if it is taken."""
        lock = self._lock(game_id)
        if not lock.acquire(blocking=wait):
            raise NotInMemory(str(game_id))
        try:
            yield
        finally:
            lock.release()

    def _in_memory(self, game_id: uuid.UUID) -> Game:
        """The game in memory, without the store (``NotInMemory`` if it is not there, or if
        other processes' writes must be polled first: SQLite)."""
        cache = self.repository.cache
        if cache is None or self._changes:
            raise NotInMemory(str(game_id))
        try:
            game = cache.get(game_id)
        except KeyError:
            raise NotInMemory(str(game_id)) from None
        if not isinstance(game, Game):  # a table or league: the store path says NOT_FOUND
            raise NotInMemory(str(game_id))
        return game

    def _load(self, game_id: uuid.UUID, *, min_version: int = 0, fresh: bool = False) -> Game:
        """The game (``_load_any``); ``GameNotFound`` when the id names another aggregate (a
        league, a table)."""
        game = self._load_any(game_id, min_version=min_version, fresh=fresh)
        if not isinstance(game, Game):
            raise GameNotFound(f"no game {game_id}")
        return game

    def _load_any(self, game_id: uuid.UUID, *, min_version: int = 0, fresh: bool = False) -> Any:
        """The aggregate (a game, or a league or table) from memory (no store round trip), or
        from the store when ``fresh`` or when the copy in memory is older than ``min_version``
        (then only its newer events are read). A stale copy is safe for commands: its save
        fails the store's version check, and the command is judged again. On SQLite, games
        that another process changed are forgotten first (``SqliteChanges``)."""
        try:
            for changes in self._changes:
                for changed, version in changes.poll():
                    self.invalidate(changed, version)
            if fresh:
                self._evict(game_id)
            game: Any = self.repository.get(game_id, deepcopy_from_cache=False)
            if game.version < min_version:
                game = self._fast_forward(game)
        except AggregateNotFoundError:
            raise GameNotFound(f"no game {game_id}") from None
        except PersistenceError as exc:
            raise StoreUnavailable(str(exc)) from exc
        return game

    def _fast_forward(self, game: Game) -> Game:
        """The game in memory brought up to date with the store by its newer events alone (a
        read of what it lacks, not a replay of the whole game). Called under the game's lock; a
        failure forgets the copy, which may be half advanced."""
        try:
            for event in self.events.get(game.id, gt=game.version):
                game = cast("Game", cast(Any, event).mutate(game))
        except BaseException:
            self._evict(game.id)
            raise
        return game

    def _save(self, game: Game) -> None:
        try:
            if self._committer is None:
                recordings = self.save(game)
                self._wrote(
                    [r.notification.id for r in recordings],
                    (
                        (r.domain_event.originator_id, r.domain_event.originator_version)
                        for r in recordings
                    ),
                )
            else:
                self._committer.save(self._stored_events(game))
        except BaseException as exc:
            failure = self.save_failed(game, exc)
            if failure is exc:
                raise
            raise failure from exc

    @property
    def group_commit(self) -> bool:
        """Whether saves go through the group-commit thread (``submit``)."""
        return self._committer is not None

    def submit(self, game: Game) -> Future[None]:
        """Start saving the game's new events with the next group commit, without waiting
        (only with ``group_commit``); map a failure with ``save_failed``."""
        if self._committer is None:
            raise RuntimeError("submit needs group commit")
        try:
            stored = self._stored_events(game)
        except BaseException as exc:  # failed like a write: the caller maps it (save_failed)
            failed: Future[None] = Future()
            failed.set_exception(exc)
            return failed
        return self._committer.submit(stored)

    def _stored_events(self, game: Game) -> list[StoredEvent]:
        """The game's pending events, encoded for the store in the calling thread: the group
        commit thread, the serial part of every command, then only writes them."""
        return [self.mapper.to_stored_event(event) for event in game.collect_events()]

    def _insert_stored(self, *stored: StoredEvent) -> None:
        """The group commit's write: what ``Application.save`` does with events (not
        aggregates) and neither snapshots nor ``_notify`` hooks, which this application has
        none of, with the events already encoded (``_stored_events``)."""
        if stored:
            ids = self.recorder.insert_events(list(stored))
            self._wrote(ids, ((e.originator_id, e.originator_version) for e in stored))

    def _wrote(self, ids: Sequence[int] | None, events: Iterable[tuple[Any, int]]) -> None:
        """Tell the SQLite change poll (one file: ids of several shards are not comparable)
        which notification ids this process's write was given, so it need not read them back;
        and forget a copy in memory older than what was written, as reading them back did (a
        command cancelled after its save releases the game before the write lands, and another
        may load the game meanwhile). ``events`` (game, version) is read only then: on
        PostgreSQL the write path builds nothing for it."""
        if not ids or len(self._changes) != 1:
            return
        self._changes[0].wrote(ids)
        newest: dict[Any, int] = {}
        for game_id, version in events:
            newest[game_id] = max(version, newest.get(game_id, 0))
        for game_id, version in newest.items():
            self.invalidate(game_id, version)

    def save_failed(self, game: Game, exc: BaseException) -> BaseException:
        """What a failed save of ``game`` raises: a lost race (``IntegrityError``) as it is;
        otherwise the game in memory is forgotten (it holds unsaved changes), and a store
        failure becomes ``StoreUnavailable``."""
        if isinstance(exc, IntegrityError):
            return exc
        self._evict(game.id)
        if isinstance(exc, PersistenceError):
            failure = StoreUnavailable(str(exc))
            failure.__cause__ = exc
            return failure
        return exc

    def _evict(self, game_id: uuid.UUID) -> None:
        cache = self.repository.cache
        if cache is not None:
            with contextlib.suppress(KeyError):
                cache.get(game_id, evict=True)


def _forfeited_seat(game: Game, request_id: str) -> int | None:
    """The seat the time-out ``request_id`` forfeited, while its bot still holds it (a later
    replacement of the seat gives it to someone whose tokens must not be revoked)."""
    if game.replaced_ms(request_id) is None:
        return None
    return next(cast(int, r["seat"]) for r in game.replacements if r["request_id"] == request_id)


def seats_are(seats: int) -> str:
    """What a refused seat number is told: "seats are 0, 1 and 2" for three seats."""
    return f"seats are {', '.join(str(s) for s in range(seats - 1))} and {seats - 1}"


def check_seats(game: Game, seats: Sequence[int]) -> None:
    """``InvalidAction`` (field ``seat``) unless every seat is one of the game's
    (``RuleSet.players``: a 4-seat game has seats 0 to 3)."""
    count = game.rule_set.players
    if any(isinstance(seat, bool) or seat not in range(count) for seat in seats):
        raise InvalidAction(seats_are(count), field="seat")


def _check_creator_secret(secret: str) -> None:
    if secret and not (16 <= len(secret) <= 128 and secret.isprintable()):
        raise InvalidAction(
            "creator_secret must be empty or 16 to 128 printable characters",
            field="creator_secret",
        )
