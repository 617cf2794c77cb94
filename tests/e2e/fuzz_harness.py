"""The fuzz suite's harness: call any method of any service generically, judge every answer,
and count outcomes.

Properties checked for EVERY call (``Target.exercise``):

- the status is never INTERNAL or UNKNOWN, and its message shows no internals (class names,
  tracebacks);
- a call that is not an accepted command records nothing: the notification log's last id is
  the same before and after (reads never record; a refused command records nothing);

and after a run (``Target.check_health``): the server answers SERVING for every service, and the
read models keep up (ListGames shows every game created, every projection reaches the log's
end) within a bounded wait.

``PREF_FUZZ_SURVEY=1`` records the violations instead of failing at the first one (to count
outcomes over a whole run); the test then fails at its end with all of them listed.
"""

from __future__ import annotations

import json
import os
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.app.application import PreferansApplication
from service.gen.preferans.v1 import audit_pb2, game_pb2, ledger_pb2, stats_pb2
from tests.e2e.fuzz_strategies import Game, World

T = TypeVar("T")
SERVICES: dict[str, ServiceDescriptor] = {
    "GameService": game_pb2.DESCRIPTOR.services_by_name["GameService"],
    "StatsService": stats_pb2.DESCRIPTOR.services_by_name["StatsService"],
    "AuditService": audit_pb2.DESCRIPTOR.services_by_name["AuditService"],
    "LedgerService": ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"],
}
METHODS: list[MethodDescriptor] = [m for s in SERVICES.values() for m in s.methods]
COMMANDS = frozenset({"CreateGame", "SubmitAction", "FlagDeal", "RecordRuling"})
"""The methods that may record events (when they are accepted)."""
FORBIDDEN = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
UNCERTAIN = (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED)
"""A command that ends so may or may not have been recorded (the client gave up waiting)."""
INTERNALS = ("Traceback", "<class ", "Error:", "Exception", 'File "')
CLIENT_CHECK = "Invalid metadata"
"""What gRPC's own client answers, without sending anything, for metadata HTTP/2 cannot carry
(non-ASCII or control characters, upper-case keys)."""
READ_TIMEOUT = 3.0
"""Client deadline of a read, and how long a stream is read."""
COMMAND_TIMEOUT = 30.0
CATCH_UP_SECONDS = 30.0
"""Liveness bound for the read models to show what the log holds after a run."""
ACCEPTED_TEXT_MAX = 1024
"""No client string longer than this is ever recorded (the issue asks for length limits on every
client string; the real limits are lower — see docs/SECURITY.md)."""
REFUSED_CHARACTERS = frozenset(
    [chr(c) for c in range(0x20)]
    + [chr(0x7F)]
    + [chr(c) for c in range(0x80, 0xA0)]
    + ["\u061c", "\u200e", "\u200f"]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
)
"""Control characters (NUL among them) and bidi controls: never recorded from a client."""
UNCHECKED_TEXT = frozenset({"options_json", "display_name"})
"""Not checked as recorded text: JSON has its own validation (its strings escape control
characters); ``Player.display_name`` is not recorded (CreateGame keeps only the player ids)."""
SURVEY = os.environ.get("PREF_FUZZ_SURVEY", "") not in ("", "0")


def path(method: MethodDescriptor) -> str:
    return f"/{method.containing_service.full_name}/{method.name}"


@dataclass
class Outcome:
    code: grpc.StatusCode | None
    """``None``: the client library refused to send the call (invalid metadata)."""
    details: str = ""
    answers: list[Any] = field(default_factory=list)


def unclean_text(message: Message, prefix: str = "") -> list[str]:
    """What an accepted command should not have let through: strings with control or bidi
    characters, or longer than ``ACCEPTED_TEXT_MAX``."""
    problems = []
    for fd, value in message.ListFields():
        name = f"{prefix}{fd.name}"
        values = value if fd.is_repeated else [value]
        for item in values:
            if isinstance(item, Message):
                problems.extend(unclean_text(item, f"{name}."))
            elif isinstance(item, str) and fd.name not in UNCHECKED_TEXT:
                bad = sorted({c for c in item if c in REFUSED_CHARACTERS})
                if bad:
                    problems.append(f"accepted {name} with characters {bad!r}")
                if len(item) > ACCEPTED_TEXT_MAX:
                    problems.append(f"accepted {name} of {len(item)} characters")
    return problems


def retrying(read: Callable[[], T], attempts: int = 10) -> T:
    """The test's own read of the store, again after a dropped connection (the shared
    PostgreSQL may be restarted under the suite; the pool replaces broken connections)."""
    for attempt in range(attempts):
        try:
            return read()
        except Exception:
            if attempt == attempts - 1:
                raise
            time.sleep(0.5)
    raise AssertionError("unreachable")


def projection_positions(app: PreferansApplication) -> dict[str, int]:
    """Each projection's position in the notification log."""
    with app.db.reading() as c:
        c.execute("SELECT name, position FROM projection_tracking")
        return {str(name): int(position) for name, position in c.fetchall()}


def shown(value: Any, limit: int = 400) -> str:
    """A request or metadata, shortened, with control characters visible."""
    text = repr(value) if not isinstance(value, Message) else repr(str(value))
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} chars)"


class Target:
    """One server under fuzz: its channel, what exists on it, and the outcome counts."""

    def __init__(self, address: str, app: PreferansApplication, world: World, label: str) -> None:
        self.address = address
        self.app = app
        self.world = world
        self.label = label
        # Large limits, so that the fuzz sees what the server itself answers to huge requests.
        self.channel = grpc.insecure_channel(
            address,
            options=[
                ("grpc.max_receive_message_length", 64 * 1024 * 1024),
                ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ],
        )
        self.group = "requests"
        """What the current run fuzzes (outcomes are counted per group and method)."""
        self.plain = grpc.insecure_channel(address)
        """A channel with gRPC's default limits (4 MB answers), as any client has."""
        self.tally: dict[tuple[str, str], Counter[str]] = {}
        self.violations: list[str] = []

    def close(self) -> None:
        self.channel.close()
        self.plain.close()

    def start(self, group: str) -> None:
        """A new run: its outcomes are counted under ``group``; no violations yet."""
        self.group = group
        self.violations = []

    # -- calling --------------------------------------------------------------------------

    def call(self, method: MethodDescriptor, request: Message | bytes, metadata: Any) -> Outcome:
        serializer = None if isinstance(request, bytes) else type(request).SerializeToString
        response_class = GetMessageClass(method.output_type)
        timeout = COMMAND_TIMEOUT if method.name in COMMANDS else READ_TIMEOUT
        try:
            if method.server_streaming:
                stream: Any = self.channel.unary_stream(
                    path(method),
                    request_serializer=serializer,
                    response_deserializer=response_class.FromString,
                )
                return self._read_stream(stream(request, metadata=metadata, timeout=timeout))
            unary: Any = self.channel.unary_unary(
                path(method),
                request_serializer=serializer,
                response_deserializer=response_class.FromString,
            )
            answer = unary(request, metadata=metadata, timeout=timeout)
            return Outcome(grpc.StatusCode.OK, answers=[answer])
        except grpc.RpcError as error:
            assert isinstance(error, grpc.Call)
            if error.code() == grpc.StatusCode.INTERNAL and error.details() == CLIENT_CHECK:
                return Outcome(None, CLIENT_CHECK)
            return Outcome(error.code(), error.details() or "")
        except (ValueError, TypeError) as error:  # metadata grpc will not send
            return Outcome(None, f"{type(error).__name__}: {error}")

    @staticmethod
    def _read_stream(stream: Any) -> Outcome:
        answers: list[Any] = []
        try:
            for message in stream:
                answers.append(message)
                if len(answers) >= 3:
                    break
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.INTERNAL and error.details() == CLIENT_CHECK:
                return Outcome(None, CLIENT_CHECK)
            if not answers:
                return Outcome(error.code(), error.details() or "")
        finally:
            stream.cancel()
        return Outcome(grpc.StatusCode.OK, answers=answers)

    def log_end(self) -> int:
        return retrying(lambda: int(self.app.recorder.max_notification_id() or 0))

    # -- the properties -------------------------------------------------------------------

    def exercise(
        self, method: MethodDescriptor, request: Message | bytes, metadata: Any
    ) -> Outcome:
        """Make the call and check every per-call property; learn from accepted answers."""
        before = self.log_end()
        outcome = self.call(method, request, metadata)
        after = self.log_end()
        code = "CLIENT_REFUSED" if outcome.code is None else outcome.code.name
        self.tally.setdefault((self.group, method.name), Counter())[code] += 1
        problems = []
        if outcome.code in FORBIDDEN:
            problems.append(f"status {code}: {outcome.details[:300]!r}")
        elif outcome.code is not None and any(word in outcome.details for word in INTERNALS):
            problems.append(f"status {code} shows internals: {outcome.details[:300]!r}")
        accepted_command = method.name in COMMANDS and outcome.code == grpc.StatusCode.OK
        if accepted_command and isinstance(request, Message):
            problems.extend(unclean_text(request))
            if method.name == "CreateGame" and outcome.answers:
                game = outcome.answers[0].game
                for text in [*(p.player_id for p in game.players), game.league]:
                    if not unicodedata.is_normalized("NFC", text):
                        problems.append(f"recorded text not in NFC: {text[:50]!r}")
        if after != before and not accepted_command and outcome.code not in UNCERTAIN:
            problems.append(f"status {code} yet {after - before} notifications were recorded")
        if problems:
            self.violation(
                f"{method.name}: {'; '.join(problems)}\n  request: {shown(request)}\n"
                f"  metadata: {shown(metadata, 200)}"
            )
        if outcome.code == grpc.StatusCode.OK and not isinstance(request, bytes):
            self._learn(method, request, outcome.answers)
        return outcome

    def check_retry(
        self, method: MethodDescriptor, request: Message, metadata: Any, first: Outcome
    ) -> None:
        """An accepted command sent again with the same request id: the same answer, marked
        replayed, and nothing recorded."""
        before = self.log_end()
        again = self.call(method, request, metadata)
        after = self.log_end()
        self.tally.setdefault((self.group, f"{method.name} retry"), Counter())[
            "CLIENT_REFUSED" if again.code is None else again.code.name
        ] += 1
        problems = []
        if again.code != grpc.StatusCode.OK:
            problems.append(f"the retry got {again.code}: {again.details[:200]!r}")
        elif method.name == "CreateGame":
            if again.answers[0].game.name != first.answers[0].game.name:
                problems.append("the retry created another game")
        elif not again.answers[0].replayed or again.answers[0].version != first.answers[0].version:
            problems.append(f"the retry was not a replay: {shown(again.answers[0], 200)}")
        if after != before:
            problems.append(f"the retry recorded {after - before} notifications")
        if problems:
            self.violation(
                f"{method.name} retry: {'; '.join(problems)}\n  request: {shown(request)}"
            )

    def violation(self, text: str) -> None:
        if SURVEY:
            self.violations.append(text)
            return
        raise AssertionError(f"[{self.label}] {text}")

    def _learn(self, method: MethodDescriptor, request: Any, answers: list[Any]) -> None:
        request_id = getattr(request, "request_id", "")
        if method.name in COMMANDS and request_id and len(self.world.request_ids) < 30:
            self.world.request_ids.append(request_id)
        for answer in answers:
            token = getattr(answer, "next_page_token", "")
            if token:
                self.world.remember_token(token)
        if method.name == "CreateGame" and answers:
            created = answers[0]
            name = created.game.name
            if self.world.game(name) is None:
                self.world.games.append(Game(name, list(created.seat_tokens)))
                self.world.created.append(name)
            for player in request.players:
                if player.player_id not in self.world.players and len(self.world.players) < 40:
                    self.world.players.append(player.player_id)
            if request.league not in self.world.leagues and len(self.world.leagues) < 20:
                self.world.leagues.append(request.league)

    # -- after a run ----------------------------------------------------------------------

    def check_health(self) -> None:
        """SERVING for every service; the read models show every game and reach the log's
        end within ``CATCH_UP_SECONDS``."""
        stub: Any = health_pb2_grpc.HealthStub(self.plain)
        for service in ("", *(s.full_name for s in SERVICES.values())):
            answer = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
            if answer.status != health_pb2.HealthCheckResponse.SERVING:
                self.violation(f"health of {service!r} is {answer.status} after the run")
        deadline = time.monotonic() + CATCH_UP_SECONDS
        while True:
            missing, behind = self._lagging()
            if not missing and not behind:
                return
            if time.monotonic() > deadline:
                self.violation(
                    f"read models do not keep up: ListGames misses {len(missing)} of "
                    f"{len(self.world.games)} games (e.g. {missing[:3]}); projections behind "
                    f"the log's end {self.log_end()}: {behind}"
                )
                return
            time.sleep(0.5)

    def _lagging(self) -> tuple[list[str], dict[str, int]]:
        listed: set[str] = set()
        token = ""
        list_games = self.plain.unary_unary(
            "/preferans.v1.GameService/ListGames",
            request_serializer=game_pb2.ListGamesRequest.SerializeToString,
            response_deserializer=game_pb2.ListGamesResponse.FromString,
        )
        try:
            while True:
                request = game_pb2.ListGamesRequest(page_size=100, page_token=token)
                page = list_games(request, timeout=30)
                listed.update(g.name for g in page.games)
                token = page.next_page_token
                if not token:
                    break
        except grpc.RpcError as error:
            assert isinstance(error, grpc.Call)
            return [f"ListGames fails: {error.code().name} {error.details()!r:.200}"], {}
        missing = [g.name for g in self.world.games if g.name not in listed]
        end = self.log_end()
        positions = retrying(lambda: projection_positions(self.app))
        behind = {name: position for name, position in positions.items() if position < end}
        return missing, behind

    def save_report(self, path: str) -> None:
        """With ``PREF_FUZZ_REPORT=<file>``: append the outcome counts and violations as one JSON
        line per run (for docs/SECURITY.md's figures)."""
        if not path:
            return
        line = {
            "store": self.label,
            "group": self.group,
            "tally": {f"{g} {m}": dict(c) for (g, m), c in self.tally.items() if g == self.group},
            "violations": self.violations,
        }
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")

    def summary(self) -> str:
        """One line per method: how many calls ended with each status."""
        lines = []
        for (group, method), counts in sorted(self.tally.items()):
            text = ", ".join(f"{code} {n}" for code, n in counts.most_common())
            lines.append(f"  {group} {method}: {text}")
        total = sum(sum(c.values()) for c in self.tally.values())
        return f"fuzz [{self.label}]: {total} calls\n" + "\n".join(lines)
