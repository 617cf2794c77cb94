"""Client strings over real gRPC, on both stores (issue 9, items 1 and 3): NUL, control and bidi
characters and over-long values are INVALID_ARGUMENT naming the field, and nothing is recorded;
text is NFC-normalised; query strings with a NUL never reach the store (never INTERNAL)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from domain.rules import RuleSet
from service.app.application import PreferansApplication
from service.app.config import StoreConfig
from service.client import GameClient
from service.gen.preferans.v1 import audit_pb2 as apb
from service.gen.preferans.v1 import audit_pb2_grpc, stats_pb2_grpc
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import stats_pb2 as spb
from tests.e2e.conftest import ServerFactory, ServerThread
from tests.e2e.helpers import PLAYERS, Refusal, refused

# Under the 64 KiB request cap, so validation (not the transport) refuses it; a 1.3 MB request is
# the transport's: test_limits.py::test_oversized_request_is_refused_and_records_nothing.
MEGA_ID = "p" * 60_000
DECOMPOSED = "Ame\u0301lie"
COMPOSED = "Am\u00e9lie"
AUDITOR_SECRET = "validation-auditor"
LISTED_WITHIN = 30.0


def create_request(
    players: list[str] | None = None, league: str = "", request_id: str | None = None
) -> pb.CreateGameRequest:
    return pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in (players or PLAYERS)],
        rules=pb.RuleSet(pool_target=6),
        league=league,
        request_id=uuid.uuid4().hex if request_id is None else request_id,
    )


def recorded(app: PreferansApplication) -> int:
    """How many events the store holds (every game's)."""
    return app.recorder.max_notification_id() or 0


def wait_listed(client: GameClient, name: str, league: str = "") -> list[pb.GameSummary]:
    """ListGames (of ``league``) once the projection shows game ``name``: the read model keeps
    up (bounded wait: liveness, not speed)."""
    deadline = time.monotonic() + LISTED_WITHIN
    while True:
        request = pb.ListGamesRequest(league=league, page_size=100)
        games = list(client.stub.ListGames(request, timeout=30).games)
        if name in {g.name for g in games}:
            return games
        assert time.monotonic() < deadline, f"{name} never listed: the read model is stuck"
        time.sleep(0.05)


def assert_invalid(refusal: Refusal, field: str) -> None:
    assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT, refusal.message
    assert refusal.fields == [field]
    assert len(refusal.message) < 200, "the refusal echoes the input"


BAD_CREATIONS: dict[str, tuple[pb.CreateGameRequest, str]] = {
    "NUL in the league": (create_request(league="a\x00b"), "league"),
    "NUL in a player id": (create_request(players=["ann", "x\x00", "cid"]), "players[1].player_id"),
    "bidi override in a player id": (
        create_request(players=["ann", "bob", "evil\u202egnp.exe"]),
        "players[2].player_id",
    ),
    "bidi isolate in the league": (create_request(league="\u2067top\u2069"), "league"),
    "60 kB player id": (create_request(players=[MEGA_ID, "bob", "cid"]), "players[0].player_id"),
    "over-long league": (create_request(league="L" * 65), "league"),
    "over-long request id": (create_request(request_id="r" * 129), "request_id"),
    "NUL in the request id": (create_request(request_id="req\x00"), "request_id"),
    "padded player id": (create_request(players=[" ann", "bob", "cid"]), "players[0].player_id"),
    "over-long rule set name": (
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            rules=pb.RuleSet(name="n" * 60_000),
            request_id="rules-name",
        ),
        "rules.name",
    ),
    # The game's terms (domain.model.terms).
    "one bot seat twice": (
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            request_id="bots-twice",
            bot_seats=[1, 1],
        ),
        "bot_seats",
    ),
    "a bot at every seat": (
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            request_id="all-bots",
            bot_seats=[0, 1, 2],
        ),
        "bot_seats",
    ),
    "negative stake": (
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            request_id="negative-stake",
            stake_per_whist=-5,
        ),
        "stake_per_whist",
    ),
    "a clock of half a second": (
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            request_id="short-clock",
            time_control=pb.TimeControl(),
        ),
        "time_control",
    ),
    "a negative bank": (
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            request_id="negative-bank",
            time_control=pb.TimeControl(move_seconds=10, bank_seconds=-1),
        ),
        "time_control.bank_seconds",
    ),
    "an unknown timeout action": (
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            request_id="timeout-action",
            time_control=pb.TimeControl(move_seconds=10, on_timeout=7),  # type: ignore[arg-type]
        ),
        "time_control.on_timeout",
    ),
}


@pytest.mark.parametrize("case", BAD_CREATIONS.values(), ids=BAD_CREATIONS.keys())
def test_create_game_refuses_bad_strings_and_records_nothing(
    store: StoreConfig,
    server: ServerThread,
    client: GameClient,
    open_app: Callable[[StoreConfig], PreferansApplication],
    case: tuple[pb.CreateGameRequest, str],
) -> None:
    request, field = case
    first = client.create_game(PLAYERS, RuleSet(pool_target=6))
    games_before = wait_listed(client, first.game.name)
    reader = open_app(store)
    events_before = recorded(reader)

    assert_invalid(refused(client.stub.CreateGame, request, timeout=30), field)

    assert recorded(reader) == events_before
    assert list(client.list_games().games) == games_before
    # The read models keep up: a good game afterwards is listed, by its league too.
    after = client.create_game(PLAYERS, RuleSet(pool_target=6), league="after")
    assert [g.name for g in wait_listed(client, after.game.name, "after")] == [after.game.name]


def test_query_strings_with_nul_are_invalid_argument_not_internal(
    server: ServerThread, client: GameClient
) -> None:
    client.create_game(PLAYERS, RuleSet(pool_target=6), league="real")
    games = client.stub
    stats: Any = stats_pb2_grpc.StatsServiceStub(client.channel)
    calls: list[tuple[Any, Any, str]] = [
        (games.ListGames, pb.ListGamesRequest(league="a\x00b"), "league"),
        (games.ListGames, pb.ListGamesRequest(league="x" * 60_000), "league"),
        (games.GetGame, pb.GetGameRequest(name="games/\x00"), "name"),
        (games.GetGame, pb.GetGameRequest(name="games/" + "x" * 60_000), "name"),
        (stats.GetLeague, spb.GetLeagueRequest(league="a\x00"), "league"),
        (stats.GetLeague, spb.GetLeagueRequest(league="\u202ereal"), "league"),
        (
            stats.ListLeaderboard,
            spb.ListLeaderboardRequest(league="\x00", page_size=10),
            "league",
        ),
        (
            stats.GetPlayerStats,
            spb.GetPlayerStatsRequest(league="real", player_id="ann\x00"),
            "player_id",
        ),
        (
            stats.GetPlayerStats,
            spb.GetPlayerStatsRequest(league="real\x00", player_id="ann"),
            "league",
        ),
        (
            stats.GetHeadToHead,
            spb.GetHeadToHeadRequest(league="real", player_a="ann", player_b="\x00bob"),
            "player_b",
        ),
        (
            stats.GetHeadToHead,
            spb.GetHeadToHeadRequest(league="real", player_a="a" * 65, player_b="bob"),
            "player_a",
        ),
    ]
    for call, request, field in calls:
        assert_invalid(refused(call, request, timeout=30), field)


def test_nfc_makes_two_spellings_one_player_and_one_league(
    server: ServerThread, client: GameClient
) -> None:
    created = client.stub.CreateGame(
        create_request(players=[DECOMPOSED, "bob", "cid"], league=f"club {DECOMPOSED}"),
        timeout=30,
    )
    assert created.game.players[0].player_id == COMPOSED
    assert created.game.league == f"club {COMPOSED}"
    # Either spelling finds the game.
    for spelling in (DECOMPOSED, COMPOSED):
        listed = wait_listed(client, created.game.name, f"club {spelling}")
        assert [g.name for g in listed] == [created.game.name]
    # The two spellings are the same player: a game cannot seat both.
    same = refused(
        client.stub.CreateGame, create_request(players=[DECOMPOSED, COMPOSED, "cid"]), timeout=30
    )
    assert same.code == grpc.StatusCode.INVALID_ARGUMENT


def test_flag_reason_and_action_text_are_checked_before_anything_is_recorded(
    store: StoreConfig,
    server: ServerThread,
    client: GameClient,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    created = client.create_game(PLAYERS, RuleSet(pool_target=6))
    name, token = created.game.name, created.seat_tokens[0]
    seat = (("authorization", f"Bearer {token}"),)
    reader = open_app(store)
    before = recorded(reader)

    def flag(reason: str, request_id: str = "flag-1") -> Refusal:
        request = pb.FlagDealRequest(name=name, deal_number=1, reason=reason, request_id=request_id)
        return refused(client.stub.FlagDeal, request, metadata=seat, timeout=30)

    assert_invalid(flag("bad\x00reason"), "reason")
    assert_invalid(flag("r" * 501), "reason")
    assert_invalid(flag("\u202eevil"), "reason")
    assert_invalid(flag("fine reason", request_id="\x00"), "request_id")
    huge_card = pb.SubmitActionRequest(
        name=name, action=pb.Action(play_card="Q♠" * 10_000), request_id="act-1"
    )
    assert_invalid(
        refused(client.stub.SubmitAction, huge_card, metadata=seat, timeout=30),
        "action.play_card",
    )
    assert recorded(reader) == before


def test_ruling_strings_are_checked(
    store: StoreConfig,
    start_server: ServerFactory,
    open_app: Callable[[StoreConfig], PreferansApplication],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PREF_AUDITOR_TOKEN", AUDITOR_SECRET)
    server = start_server(store)
    client = GameClient(server.address)
    try:
        created = client.create_game(PLAYERS, RuleSet(pool_target=6))
        audit: Any = audit_pb2_grpc.AuditServiceStub(client.channel)
        auditor = (("authorization", f"Bearer auditor:{AUDITOR_SECRET}"),)
        reader = open_app(store)
        before = recorded(reader)
        for reason, request_id, field in [
            ("a\x00", "rule-1", "reason"),
            ("x" * 10_000, "rule-1", "reason"),
            ("ok", "r" * 200, "request_id"),
        ]:
            request = apb.RecordRulingRequest(
                name=created.game.name, deal_number=1, reason=reason, request_id=request_id
            )
            refusal = refused(audit.RecordRuling, request, metadata=auditor, timeout=30)
            assert_invalid(refusal, field)
        assert recorded(reader) == before
    finally:
        client.close()


def test_a_game_s_terms_are_recorded_and_shown(server: ServerThread, client: GameClient) -> None:
    """The clock, bot seats and stake asked at creation come back in GetGame and in the
    stream's GameCreatedEvent (domain.model.terms)."""
    clock = pb.TimeControl(
        move_seconds=30,
        bank_seconds=600,
        increment_seconds=5,
        on_timeout=pb.TIMEOUT_ACTION_FORFEIT,
    )
    created = client.stub.CreateGame(
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in [*PLAYERS[:2], "bot:seat2"]],
            request_id=uuid.uuid4().hex,
            time_control=clock,
            bot_seats=[2],
            stake_per_whist=7,
        ),
        timeout=30,
    )
    game = client.stub.GetGame(pb.GetGameRequest(name=created.game.name), timeout=30).game
    assert game.time_control == clock
    assert list(game.bot_seats) == [2] and game.stake_per_whist == 7
    plain = client.create_game(PLAYERS, RuleSet(pool_target=6)).game
    assert not plain.HasField("time_control")
    assert list(plain.bot_seats) == [] and plain.stake_per_whist == 0
