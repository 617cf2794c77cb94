"""The keeper: the background worker of ``pref serve`` that plays the server's bot seats and
enforces the time controls of live games (issue 14, docs/CLOCKS.md).

It follows games: the event hub tells it of every event written (``watch``), and at start it
sweeps the playing games of the game list (``sweep``). For each game due it

1. lets the server's bot decide while the game waits for one (the seat to act is a bot seat,
   or a bot orders a Classic game): ``PreferansApplication.play_bot``;
2. otherwise, if a clock runs, looks again at the deadline of the seat to act, and once the
   server's clock has passed it records the time-out (``PreferansApplication.time_out``).

Both commands take request ids derived from the game's version, so several replicas running a
keeper, or a keeper retrying after a crash, never act twice: the first write wins, the others
find their request done or the game moved on (``Moot``). A decision that lands before the
time-out makes the time-out moot.

It runs in one thread of its own (never on the event loop: a bot's decision is CPU work), one
game at a time, at most ``MAX_MOVES`` bot decisions of one game before it turns to the others.
Its clock is injectable (tests call ``run_once`` with a clock of their own, without the thread).
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable

import structlog
from cachetools import LRUCache

from domain.model import Game
from domain.model.decisions import event_name
from domain.model.leaving import Moot, NotDue
from domain.model.terms import is_bot_of
from domain.rules.errors import RulesError
from projections.queries import list_games
from service.app.application import (
    Conflict,
    GameNotFound,
    PreferansApplication,
    StoreUnavailable,
)

log = structlog.get_logger(__name__)

MAX_MOVES = 64
"""Bot decisions of one game in a row before the keeper turns to the other games due."""
IDLE_SECONDS = 1.0
"""The longest the thread sleeps without being woken (a new event, a deadline)."""
RETRY_SECONDS = 1.0
"""How soon a game whose command failed (a lost race, the store down) is looked at again; each
further failure in a row doubles the wait, up to ``MAX_RETRY_SECONDS``."""
MAX_RETRY_SECONDS = 300.0
"""The longest wait before a game that keeps failing (one that cannot be loaded) is tried."""
SWEEP_RETRY_SECONDS = 0.5
"""How soon a failed start-up sweep (the store or read model not up yet) is tried again; each
further failure doubles the wait, up to ``MAX_RETRY_SECONDS``, until a sweep succeeds."""
SWEEP_PAGE = 500
PLAIN_GAMES = 100_000
"""Games remembered as needing no keeper (so their events cost one small read, not a load)."""


def needs_keeper(game: object) -> bool:
    """Whether the keeper has work in a game: a clock to enforce or a bot seat to play (never
    in a table's or a league's aggregate, which share the store)."""
    return isinstance(game, Game) and (game.time_control is not None or bool(game.bot_seats))


class Keeper:
    """Plays bot seats and times out seats whose deadline has passed (see the module)."""

    def __init__(
        self,
        app: PreferansApplication,
        *,
        clock: Callable[[], float] = time.time,
        after_write: Callable[[uuid.UUID], None] | None = None,
    ) -> None:
        self._app = app
        self._clock = clock
        self.after_write = after_write
        """Called after each command the keeper recorded (the server wakes its watchers)."""
        self._plain: LRUCache[uuid.UUID, int] = LRUCache(PLAIN_GAMES)
        """Games that need no keeper (no clock, no bot seat; other aggregates) → the last
        version looked at (``_still_plain``). Used by the keeper's thread only."""
        self._due: dict[uuid.UUID, float] = {}
        """Each followed game → when to look at it again (seconds since the epoch)."""
        self._failures: dict[uuid.UUID, int] = {}
        """Each followed game whose last looks failed → how many failed in a row (backoff)."""
        self._unfinished: dict[uuid.UUID, int] = {}
        """Each game whose time-out (at this version) failed after maybe being recorded: it is
        tried again first, so a forfeit's revocation lost after the save is made (a replay
        revokes too, ``PreferansApplication.time_out``)."""
        self._guard = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # -- following games ------------------------------------------------------------------

    def watch(self, game_id: uuid.UUID, version: int = 0) -> None:
        """A game changed (from any thread): look at it as soon as possible."""
        with self._guard:
            self._due[game_id] = 0.0
        self._wake.set()

    def sweep(self) -> int:
        """Follow every playing game of the game list (at start: a restarted keeper picks up
        pending deadlines and waiting bots); returns how many."""
        after: tuple[str, str] | None = None
        found = 0
        while True:
            rows = list_games(self._app.db, status="playing", limit=SWEEP_PAGE, after=after)
            for row in rows:
                self.watch(uuid.UUID(row["game_id"]))
            found += len(rows)
            if len(rows) < SWEEP_PAGE:
                return found
            after = (rows[-1]["created_at"], rows[-1]["game_id"])

    @property
    def followed(self) -> dict[uuid.UUID, float]:
        with self._guard:
            return dict(self._due)

    # -- work -----------------------------------------------------------------------------

    def run_once(self) -> int:
        """Look at every game due by the clock now; returns the commands recorded."""
        now = self._clock()
        with self._guard:
            due = [g for g, at in self._due.items() if at <= now]
        done = 0
        for game_id in due:
            try:
                done += self._step(game_id)
            except Exception as exc:  # one game's failure never stops the others
                self._retry(game_id, exc, unexpected=True)
        return done

    def _schedule(self, game_id: uuid.UUID, at: float | None) -> None:
        with self._guard:
            self._failures.pop(game_id, None)
            if at is None:
                self._due.pop(game_id, None)
                self._unfinished.pop(game_id, None)
            else:
                self._due[game_id] = at

    def _retry(self, game_id: uuid.UUID, exc: Exception, unexpected: bool = False) -> None:
        """Look at a game whose step failed again later: ``RETRY_SECONDS``, doubled by each
        failure in a row up to ``MAX_RETRY_SECONDS`` (a game that cannot be loaded is not
        tried, nor logged, every second for ever). Logged at the 1st, 2nd, 4th, 8th... failure."""
        with self._guard:
            failures = self._failures.get(game_id, 0) + 1
            self._failures[game_id] = failures
            wait = min(MAX_RETRY_SECONDS, RETRY_SECONDS * 2 ** min(failures - 1, 20))
            self._due[game_id] = self._clock() + wait
        if failures & (failures - 1) == 0:
            report = log.exception if unexpected else log.info
            report("keeper: will retry", game=str(game_id), error=str(exc), failures=failures)

    def _still_plain(self, game_id: uuid.UUID) -> bool:
        """Whether a game known to need no keeper (no clock, no bot seat, or no game at all)
        still needs none: only a bot taking a seat changes that. Asked of the game in memory
        when it is there (no read); else only its new events are read (one small query)."""
        seen = self._plain.get(game_id)
        if seen is None:
            return False
        peeked = self._app.peek_game(game_id, needs_keeper)  # in memory: no read at all
        if peeked is not None:
            version, needed = peeked
            if needed:
                del self._plain[game_id]
                return False
            self._plain[game_id] = max(seen, version)
            return True
        new = self._app.game_events(game_id, after=seen)
        for event in new:
            player = getattr(event, "player", None)
            if event_name(event) == "PlayerReplaced" and is_bot_of(str(player), event.seat):
                del self._plain[game_id]
                return False
        if new:
            self._plain[game_id] = new[-1].originator_version
        return True

    def _step(self, game_id: uuid.UUID) -> int:
        """Bots' decisions, then the clock, of one game; schedules its next look."""
        app, done = self._app, 0
        try:
            if self._still_plain(game_id):
                self._schedule(game_id, None)
                return done
            unfinished = self._unfinished.get(game_id)
            if unfinished is not None:
                with contextlib.suppress(Moot, NotDue):  # not recorded: the game moved on
                    app.time_out(game_id, unfinished, self._clock())
                del self._unfinished[game_id]
            for _ in range(MAX_MOVES):
                game = app.get_game(game_id)
                version = game.version
                if not needs_keeper(game):
                    self._plain[game_id] = version
                    self._schedule(game_id, None)
                    return done
                if game.finished:
                    self._schedule(game_id, None)
                    return done
                try:
                    app.play_bot(game_id, version)
                except Moot:
                    pass
                else:
                    done += 1
                    self._wrote(game_id)
                    continue
                deadline = app.get_game(game_id).deadline_ms
                if deadline is None:  # no clock runs (adjourned, a person's order, no clock)
                    self._schedule(game_id, None)
                    return done
                now = self._clock()
                if now * 1000 < deadline:
                    self._schedule(game_id, deadline / 1000)
                    return done
                try:
                    app.time_out(game_id, version, now)
                except Moot:
                    continue
                except Exception:  # recorded or not: tried again first (``_unfinished``)
                    self._unfinished[game_id] = version
                    raise
                done += 1
                self._wrote(game_id)
            self._schedule(game_id, 0.0)  # more to do: after the other games due
        except GameNotFound:
            self._schedule(game_id, None)
        except (Conflict, StoreUnavailable, RulesError) as exc:
            self._retry(game_id, exc)
        return done

    def _wrote(self, game_id: uuid.UUID) -> None:
        if self.after_write is not None:
            self.after_write(game_id)

    # -- the thread -----------------------------------------------------------------------

    def start(self) -> None:
        """Sweep, then follow games in a background thread until ``stop``. A failed sweep is
        tried again (``SWEEP_RETRY_SECONDS``, doubled by each failure) until one succeeds;
        the games' events are followed meanwhile."""

        def run() -> None:
            swept, backoff, sweep_at = False, SWEEP_RETRY_SECONDS, time.monotonic()
            while not self._stopping.is_set():
                self._wake.clear()
                if not swept and time.monotonic() >= sweep_at:
                    try:
                        self.sweep()
                    except Exception as exc:  # the store or read model is not up yet: again
                        log.warning(
                            "keeper: cannot sweep the game list", error=str(exc), retry_in=backoff
                        )
                        sweep_at = time.monotonic() + backoff
                        backoff = min(MAX_RETRY_SECONDS, backoff * 2)
                    else:
                        swept = True
                try:
                    self.run_once()
                except Exception as exc:  # never let one game stop the keeper
                    log.exception("keeper: step failed", error=str(exc))
                with self._guard:
                    soonest = min(self._due.values(), default=None)
                wait = IDLE_SECONDS
                if soonest is not None:
                    wait = max(0.0, min(IDLE_SECONDS, soonest - self._clock()))
                if not swept:
                    wait = max(0.0, min(wait, sweep_at - time.monotonic()))
                if wait:
                    self._wake.wait(wait)

        self._thread = threading.Thread(target=run, name="keeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
