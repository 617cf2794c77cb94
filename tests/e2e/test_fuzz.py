"""The fuzz suite: every RPC of GameService, StatsService, AuditService and LedgerService
against a real server on each store, with Hypothesis-drawn requests, raw malformed bytes and
hostile metadata.

For every call (``tests.e2e.fuzz_harness``): never INTERNAL or UNKNOWN, no internals in the
status message, and nothing recorded unless it is an accepted command; an accepted command
retried with its request id is answered again without recording anything. After each run: the
server is SERVING and its read models show every game and reach the log's end.

Bounded for CI: one Hypothesis run per method; the ``ci`` profile (default) draws
``FUZZ_EXAMPLES`` (30) examples per method (commands more, raw bytes and metadata half),
derandomised (the same inputs every run, so a failure reproduces); ``PREF_FUZZ_PROFILE=long``
draws 500 per method with fresh randomness; ``PREF_FUZZ_EXAMPLES=<n>`` overrides the count. The
outcome counts (status per method) are printed at the end of the module.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.rules import RuleSet
from service.app.application import PreferansApplication
from service.app.config import postgres_store, sqlite_store
from service.cli.botplay import play_with_bots
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import game_pb2_grpc
from tests.e2e.conftest import UNTHROTTLED, ServerThread, postgres_schema
from tests.e2e.fuzz_cases import Case, game_cases, stats_cases
from tests.e2e.fuzz_harness import COMMANDS, METHODS, SERVICES, Target, shown
from tests.e2e.fuzz_strategies import (
    Game,
    World,
    fresh_ids,
    hostile_text,
    message_strategy,
    options_json,
    pick,
    with_hostile,
)
from tests.e2e.helpers import PLAYERS

PROFILE = os.environ.get("PREF_FUZZ_PROFILE", "ci")
FUZZ_EXAMPLES = int(os.environ.get("PREF_FUZZ_EXAMPLES", "0")) or (500 if PROFILE == "long" else 30)
"""Examples per method (commands get more; raw bytes and metadata half as many)."""
WEIGHTS = {"CreateGame": 2, "SubmitAction": 3}
"""Commands are drawn more often: they are what can record something."""
AUDITOR_SECRET = "fuzz-auditor-secret"
pytestmark = pytest.mark.fuzz


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=PROFILE != "long",
        database=None,
        print_blob=True,
        suppress_health_check=list(HealthCheck),
    )


# -- the server under fuzz ------------------------------------------------------------------


def _seed_world(address: str, world: World) -> None:
    """Three games (one played to its end by bots, so finished-game paths are reachable)."""
    client = GameClient(address)
    try:
        for number, league in enumerate(["fuzz", "", "fuzz"]):
            created = client.create_game(
                PLAYERS, RuleSet(pool_target=1), league=league, request_id=f"seed-{number}"
            )
            world.games.append(Game(created.game.name, list(created.seat_tokens)))
        first = world.games[0]
        play_with_bots(client, first.name, first.tokens)
    finally:
        client.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def target(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Target]:
    """A server on a fresh store (with an auditor credential) and the world seeded on it."""
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            store = sqlite_store(str(tmp_path_factory.mktemp("fuzz") / "events.sqlite"))
        else:
            store = postgres_store(stack.enter_context(postgres_schema()))
        patch = stack.enter_context(pytest.MonkeyPatch.context())
        patch.setenv("PREF_AUDITOR_TOKEN", AUDITOR_SECRET)
        # The per-caller budgets are off here (tests/e2e/test_limits.py tests them): every call
        # of the fuzz comes from one address, and a throttled call never reaches validation.
        server = ServerThread(store, limits=UNTHROTTLED).start()
        stack.callback(server.stop)
        app = PreferansApplication(store.env)
        stack.callback(app.close)
        world = World(auditor_token=f"auditor:{AUDITOR_SECRET}")
        _seed_world(server.address, world)
        fuzzed = Target(server.address, app, world, request.param)
        stack.callback(fuzzed.close)
        yield fuzzed
        # The counts go to the terminal even when the tests pass (output is captured then).
        plugins = request.config.pluginmanager
        reporter: Any = plugins.get_plugin("terminalreporter")
        capture: Any = plugins.get_plugin("capturemanager")
        if reporter is not None and capture is not None:
            with capture.global_and_fixture_disabled():
                reporter.write_line("")
                reporter.write_line(fuzzed.summary())


def _finish(target: Target) -> None:
    target.check_health()
    target.save_report(os.environ.get("PREF_FUZZ_REPORT", ""))
    if target.violations:
        listed = "\n".join(target.violations[:40])
        raise AssertionError(
            f"[{target.label}] {len(target.violations)} violations:\n{listed}\n{target.summary()}"
        )


# -- credentials ----------------------------------------------------------------------------

GARBAGE_AUTH = st.one_of(
    st.sampled_from(
        [
            "",
            "Bearer",
            "Bearer ",
            "bearer   ",
            "Basic Zm9vOmJhcg==",
            "Bearer auditor:",
            "Bearer auditor:wrong",
            "Bearer .",
            "Bearer ..",
            "Bearer 00000000-0000-0000-0000-000000000000.abc",
            "Bearer not-a-uuid.x",
            "Bearer " + "a" * 5000,
        ]
    ),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60).map(
        lambda t: f"Bearer {t}"
    ),
)


def _name_of(request: Message) -> str:
    if "name" not in request.DESCRIPTOR.fields_by_name:
        return ""
    name: str = getattr(request, "name")  # noqa: B009 (any message type)
    return name


def credentials(
    data: st.DataObject, world: World, method: MethodDescriptor, request: Message
) -> tuple[tuple[str, str], ...] | None:
    """A seat token of the game the request names (mostly), the auditor credential (for the
    audit API), another game's token, none, or garbage."""
    name = _name_of(request)
    game = world.game(name) or world.game(f"games/{name}")
    kinds = ["seat", "seat", "seat", "none", "other", "garbage", "mangled"]
    if method.containing_service.name == "AuditService":
        kinds += ["auditor"] * 6
    kind = data.draw(st.sampled_from(kinds), label="credential")
    # Draw the same things whatever the server's state (Hypothesis replays draws).
    other: Game | None = data.draw(pick(lambda: world.games), label="other game")
    seat = data.draw(st.integers(0, 2), label="seat")
    garbage = data.draw(GARBAGE_AUTH, label="authorization")
    mangle = data.draw(st.integers(0, 3), label="mangled")
    if kind == "auditor":
        return (("authorization", f"Bearer {world.auditor_token}"),)
    if kind == "none":
        return None
    if kind == "garbage":
        return (("authorization", garbage),)
    if kind == "other" or game is None:
        game = other
    assert game is not None
    token = game.tokens[seat]
    if kind == "mangled":
        token = [token[:-1], token + "0", token.upper(), token.replace(".", "")][mangle]
    return (("authorization", f"Bearer {token}"),)


# -- requests -------------------------------------------------------------------------------


def legal_move(
    data: st.DataObject, target: Target
) -> tuple[pb.SubmitActionRequest, tuple[tuple[str, str], ...]] | None:
    """A legal action of the seat to act in a known game (drives games on to their end)."""
    game: Game | None = data.draw(pick(lambda: target.world.games), label="game")
    choice = data.draw(st.integers(0, 1000), label="legal action index")
    request_id = data.draw(
        st.one_of(
            fresh_ids(target.world), fresh_ids(target.world), pick(lambda: target.world.request_ids)
        ),
        label="request_id",
    )
    assert game is not None
    stub = game_pb2_grpc.GameServiceStub(target.channel)

    def view(seat: int) -> pb.SeatView | None:
        metadata = (("authorization", f"Bearer {game.tokens[seat]}"),)
        try:
            request = pb.GetSeatViewRequest(name=game.name)
            answer: pb.GetSeatViewResponse = stub.GetSeatView(
                request, metadata=metadata, timeout=10
            )
        except grpc.RpcError:
            return None  # a game the fuzz broke: its calls are checked elsewhere
        return answer.view

    first = view(0)
    if first is None or first.actor < 0:
        return None
    actor = view(first.actor)
    if actor is None or not actor.legal:
        return None
    action = actor.legal[choice % len(actor.legal)]
    request = pb.SubmitActionRequest(name=game.name, action=action, request_id=request_id)
    return request, (("authorization", f"Bearer {game.tokens[first.actor]}"),)


def near_valid_create(world: World) -> st.SearchStrategy[pb.CreateGameRequest]:
    """A creation that is valid but for at most a field or two (so that what the validation
    lets through is recorded, and later calls hit games made of hostile input)."""
    player = with_hostile(st.sampled_from(["ann", "bob", "cid", "dan", "eve", "fay"]))
    return st.builds(
        lambda players, league, options, pool, request_id: pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in players],
            rules=pb.RuleSet(name="default", pool_target=pool, options_json=options),
            league=league,
            request_id=request_id,
        ),
        st.lists(player, min_size=3, max_size=3, unique=True),
        with_hostile(pick(lambda: world.leagues)),
        st.one_of(st.just(""), options_json()),
        st.sampled_from([1, 0]),
        st.one_of(
            fresh_ids(world), fresh_ids(world), st.uuids().map(lambda u: u.hex), hostile_text()
        ),
    )


def each_method(
    methods: Sequence[MethodDescriptor],
    examples: int,
    body: Callable[[st.DataObject, MethodDescriptor], None],
) -> None:
    """A Hypothesis run of ``body`` per method, so that every method gets its share."""
    for method in methods:
        _for_method(method, examples * WEIGHTS.get(method.name, 1), body)()


def _for_method(
    method: MethodDescriptor, examples: int, body: Callable[[st.DataObject, MethodDescriptor], None]
) -> Callable[[], None]:
    @fuzz_settings(examples)
    @given(st.data())
    def run(data: st.DataObject) -> None:
        body(data, method)

    return run


def fuzz_one(data: st.DataObject, target: Target, method: MethodDescriptor) -> None:
    move = None
    if method.name == "SubmitAction" and data.draw(st.booleans(), label="legal move"):
        move = legal_move(data, target)
    request: Message = data.draw(message_strategy(method.input_type, target.world), label="request")
    creation = data.draw(near_valid_create(target.world), label="near-valid creation")
    if method.name == "CreateGame" and data.draw(st.integers(0, 3), label="near-valid") > 0:
        request = creation
    metadata: Any = credentials(data, target.world, method, request)
    if move is not None:
        request, metadata = move
    retry = data.draw(st.booleans(), label="retry if accepted")
    outcome = target.exercise(method, request, metadata)
    if retry and method.name in COMMANDS and outcome.code == grpc.StatusCode.OK:
        target.check_retry(method, request, metadata, outcome)


def _run(
    target: Target, group: str, methods: list[MethodDescriptor], cases: Sequence[Case] = ()
) -> None:
    target.start(group)
    for case in cases:
        method = SERVICES[case.service].methods_by_name[case.method]
        metadata = None
        if case.seat is not None:
            game = target.world.game(getattr(case.request, "name", ""))
            assert game is not None
            metadata = (("authorization", f"Bearer {game.tokens[case.seat]}"),)
        outcome = target.exercise(method, case.request, metadata)
        if case.expected is not None and outcome.code != case.expected:
            target.violation(
                f"{case.method}: {outcome.code} where issue 9 expects {case.expected.name}: "
                f"{outcome.details[:200]!r}\n  request: {shown(case.request)}"
            )

    each_method(methods, FUZZ_EXAMPLES, lambda data, method: fuzz_one(data, target, method))
    _finish(target)


def test_fuzz_game_service(target: Target) -> None:
    _run(target, "GameService", list(SERVICES["GameService"].methods), game_cases(target.world))


def test_fuzz_stats_service(target: Target) -> None:
    _run(target, "StatsService", list(SERVICES["StatsService"].methods), stats_cases())


def test_fuzz_audit_service(target: Target) -> None:
    _run(target, "AuditService", list(SERVICES["AuditService"].methods))


def test_fuzz_ledger_service(target: Target) -> None:
    _run(target, "LedgerService", list(SERVICES["LedgerService"].methods))


# -- raw bytes ------------------------------------------------------------------------------

CRAFTED = [
    b"\x0a\x02\xff\xfe",  # field 1 (a string) with invalid UTF-8
    b"\x0a\x03a\x00b",  # a NUL in field 1
    b"\x0a\xff\xff\xff\xff\x0f",  # a length far past the end
    b"\x08" + b"\xff" * 10 + b"\x01",  # an 11-byte varint
    b"\x0b" * 150 + b"\x0c" * 150,  # groups nested past the recursion limit
    b"\x0b" * 20_000,  # unterminated nesting
    b"\x0f",  # wire type 7
    b"\x0e\x00",  # wire type 6
    b"\xf8\xff\xff\xff\x0f\x01",  # the largest field number
    b"\x00\x00",  # field number 0
    b"\x12\x04\x0a\x02\xff\xfe",  # a nested message with invalid UTF-8
    b"\x10\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",  # a varint past 64 bits
    b"\x0a\x03abc" * 20_000,  # the same field 20 000 times
]


def raw_bytes(method: MethodDescriptor, world: World) -> st.SearchStrategy[bytes]:
    valid = message_strategy(method.input_type, world).map(lambda m: m.SerializeToString())

    def flip(args: tuple[bytes, int, int]) -> bytes:
        raw, at, value = args
        if not raw:
            return bytes([value])
        at %= len(raw)
        return raw[:at] + bytes([value]) + raw[at + 1 :]

    return st.one_of(
        st.binary(max_size=200),
        st.tuples(valid, st.integers(0, 10_000)).map(lambda p: p[0][: p[1] % (len(p[0]) + 1)]),
        st.tuples(valid, st.integers(0, 10_000), st.integers(0, 255)).map(flip),
        st.tuples(valid, st.binary(min_size=1, max_size=20)).map(lambda p: p[0] + p[1]),
        st.sampled_from(CRAFTED),
    )


def test_fuzz_raw_bytes(target: Target) -> None:
    """Every method, sent bytes that may not decode (through identity serializers)."""
    target.start("raw-bytes")

    def send(data: st.DataObject, method: MethodDescriptor) -> None:
        raw = data.draw(raw_bytes(method, target.world), label="bytes")
        metadata = credentials(data, target.world, method, pb.GetGameRequest())
        target.exercise(method, raw, metadata)

    each_method(METHODS, FUZZ_EXAMPLES // 2, send)
    _finish(target)


# -- hostile metadata -----------------------------------------------------------------------

HEADER_KEYS = st.one_of(
    st.sampled_from(
        [
            "authorization",
            "authorization",
            "x-request-id",
            "x-forwarded-for",
            "user-agent",
            "grpc-timeout",
            "content-type",
            "te",
            "x-data-bin",
            "authorization-bin",
        ]
    ),
    st.text("abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=20),
)
HEADER_VALUES = st.one_of(
    GARBAGE_AUTH,
    st.sampled_from([4_000, 8_500, 17_000, 100_000]).map(lambda n: "Bearer " + "a" * n),
    hostile_text(),
)


@st.composite
def hostile_metadata(draw: st.DrawFn) -> tuple[tuple[str, Any], ...]:
    pairs: list[tuple[str, Any]] = []
    for key in draw(st.lists(HEADER_KEYS, min_size=1, max_size=4)):
        if key.endswith("-bin"):
            pairs.append((key, draw(st.binary(max_size=200))))
        else:
            pairs.append((key, draw(HEADER_VALUES)))
    return tuple(pairs)


def test_fuzz_metadata(target: Target) -> None:
    """Every method, with garbage, repeated, huge and non-ASCII headers."""
    target.start("metadata")

    def send(data: st.DataObject, method: MethodDescriptor) -> None:
        request = data.draw(message_strategy(method.input_type, target.world), label="request")
        metadata = data.draw(hostile_metadata(), label="metadata")
        target.exercise(method, request, metadata)

    each_method(METHODS, FUZZ_EXAMPLES // 2, send)
    _finish(target)
