"""The projection worker: keeps runners caught up in a background thread (``pref serve`` runs one
in-process; ``pref projections run`` one per projection), retries failed runners with backoff
and reports each read model's health (``ProjectionStatus``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from projections import metrics
from projections.runner import PassReads, ProjectionFailed, ProjectionRunner

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class ProjectionStatus:
    """Whether a read model keeps up: ``serving``, else the failure (``error``: the
    exception's type; ``position``: the event it stopped at; ``transient``: a store error)."""

    name: str
    serving: bool = True
    error: str | None = None
    position: int | None = None
    transient: bool = False


StatusListener = Callable[[ProjectionStatus], None]
MEASURE_EVERY = 1.0
"""Seconds between two readings of the log's end (for the lag metric)."""


class ProjectionWorker:
    """Keeps runners caught up in a background thread (polling; woken early by ``poke``).

    A runner that fails is retried with exponential backoff (``backoff``: first and longest
    delay in seconds) and never skips an event. Each failure is logged (an error if the event
    cannot be applied, a warning if the store failed), counted in the metrics, and the read
    model's status turns ``serving=False`` until it catches up again; ``watch`` reports every
    change of status (the server maps it to gRPC health)."""

    def __init__(
        self,
        runners: list[ProjectionRunner],
        interval: float = 0.05,
        backoff: tuple[float, float] = (0.5, 60.0),
        gather: float = 0.05,
    ) -> None:
        self.runners = runners
        self.interval = interval
        self.backoff = backoff
        self.gather = gather
        """After a pass that applied events, the seconds the next pass waits at least, so
        that under a stream of commands a pass applies the events of many (each pass costs
        every projection a read and a transaction; one per command cost this process about
        a sixth of its CPU in the open-loop benchmark, docs/PERFORMANCE.md). After an idle
        pass a poke starts the next at once."""
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="projections", daemon=True)
        self.errors: list[BaseException] = []
        self._status_lock = threading.Lock()
        self._statuses = {r.projection.name: ProjectionStatus(r.projection.name) for r in runners}
        self._listeners: list[StatusListener] = []
        self._attempts: dict[str, int] = {}
        self._retry_at: dict[str, float] = {}
        self._measured_at = -MEASURE_EVERY
        for name in self._statuses:
            metrics.SERVING.labels(name).set(1)

    def start(self) -> None:
        self._thread.start()

    def poke(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def statuses(self) -> dict[str, ProjectionStatus]:
        """Each read model's current status, by projection name."""
        with self._status_lock:
            return dict(self._statuses)

    def watch(self, listener: StatusListener) -> None:
        """Call ``listener`` now with every current status, then with each change (from the
        worker's thread; it must not block)."""
        with self._status_lock:
            self._listeners.append(listener)
            for status in self._statuses.values():
                listener(status)

    def _report(self, status: ProjectionStatus) -> None:
        with self._status_lock:
            if self._statuses.get(status.name) == status:
                return
            self._statuses[status.name] = status
            metrics.SERVING.labels(status.name).set(1 if status.serving else 0)
            for listener in self._listeners:
                try:
                    listener(status)
                except Exception:  # a listener's failure must not stop the projections
                    log.exception("projection_status_listener_failed", projection=status.name)

    def step(self) -> int:
        """One pass: catch up every runner that is not waiting for its next retry (their
        reads of the log shared, if there are several: ``PassReads``); returns the events
        applied."""
        now = time.monotonic()
        shared, done = PassReads() if len(self.runners) > 1 else None, 0
        for runner in self.runners:
            name = runner.projection.name
            if self._retry_at.get(name, 0.0) > now:
                continue
            runner.shared = shared
            try:
                done += runner.catch_up()
            except Exception as exc:
                self._failed(runner, exc, now)
            else:
                self._recovered(name)
            finally:
                runner.shared = None
        self._measure()
        return done

    def _failed(self, runner: ProjectionRunner, exc: Exception, now: float) -> None:
        name = runner.projection.name
        if not isinstance(exc, ProjectionFailed):
            # Failed before any event was taken (reading the position or the log).
            at = (runner.last_position or 0) + 1
            failure = ProjectionFailed(name, at, exc)
            failure.__cause__ = exc
            exc = failure
        self.errors.append(exc)
        del self.errors[:-10]
        attempts = self._attempts.get(name, 0) + 1
        self._attempts[name] = attempts
        first, longest = self.backoff
        delay = min(longest, first * 2 ** min(attempts - 1, 30))
        self._retry_at[name] = now + delay
        kind = "transient" if exc.transient else "event"
        metrics.FAILURES.labels(name, kind).inc()
        fields = {
            "projection": name,
            "position": exc.position,
            "error_type": exc.error,
            "attempt": attempts,
            "retry_in_s": round(delay, 3),
        }
        if exc.transient:
            log.warning("projection_store_failed", **fields)
        else:
            log.error("projection_stalled", **fields)
        self._report(ProjectionStatus(name, False, exc.error, exc.position, exc.transient))

    def _recovered(self, name: str) -> None:
        if self._attempts.pop(name, 0):
            self._retry_at.pop(name, None)
            log.info("projection_recovered", projection=name)
        self._report(ProjectionStatus(name))

    def _measure(self) -> None:
        now = time.monotonic()
        if now < self._measured_at + MEASURE_EVERY:
            return
        self._measured_at = now
        try:
            head = self.runners[0].max_position() if self.runners else 0
        except Exception:  # the store is down: the failures say so already
            return
        for runner in self.runners:
            position = runner.last_position
            if position is not None:
                metrics.POSITION.labels(runner.projection.name).set(position)
                metrics.LAG.labels(runner.projection.name).set(max(0, head - position))

    def _loop(self) -> None:
        while not self._stop.is_set():
            if self.step() and self.gather:
                self._stop.wait(self.gather)  # busy: let the next commands' events gather
            self._wake.wait(self.interval)
            self._wake.clear()
