"""Inputs issue 9 names, sent once at the start of each fuzz run (random draws could miss
them): each is then judged by the same per-call properties as every fuzzed call, and some
also by the status the issue expects."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import grpc
from google.protobuf.message import Message

from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import stats_pb2 as spb
from tests.e2e.fuzz_strategies import World

NESTED_JSON = '{"a":' * 5000 + "1" + "}" * 5000
ISSUE_OPTIONS = [
    '{"pool_target": 2.5}',
    '{"pool_target": true}',
    '{"pool_target": 1234567890123456789012345678901234567890}',
    '{"pool_target": 1e400}',
    '{"pool_target": NaN}',
    NESTED_JSON,
]


@dataclass(frozen=True)
class Case:
    service: str
    method: str
    request: Message
    seat: int | None = None
    """Send the seat token of this seat of the request's game (``None``: no credential)."""
    expected: grpc.StatusCode | None = None
    """The status issue 9 asks for, when it names one."""


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


def _players(*ids: str) -> list[pb.Player]:
    return [pb.Player(player_id=p) for p in ids]


def game_cases(world: World) -> list[Case]:
    """CreateGame with NUL, huge ids and the bad options; ListGames with a NUL filter and
    forged page tokens; min_version far ahead; an action on a finished game (the first game
    of the world is played to its end)."""
    finished, playing = world.games[0].name, world.games[1].name
    rules = pb.RuleSet(name="default", pool_target=1)
    cases = [
        Case(
            "GameService",
            "CreateGame",
            pb.CreateGameRequest(
                players=_players("ann", "bob", "cid"),
                rules=rules,
                league="a\x00b",
                request_id="issue9-nul-league",
            ),
        ),
        Case(
            "GameService",
            "CreateGame",
            pb.CreateGameRequest(
                players=_players("a\x00b", "bob", "cid"),
                rules=rules,
                request_id="issue9-nul-player",
            ),
        ),
        Case(
            "GameService",
            "CreateGame",
            pb.CreateGameRequest(
                players=_players(*(c * 1_300_000 for c in "xyz")),
                rules=rules,
                request_id="issue9-huge-players",
            ),
        ),
    ]
    for number, options in enumerate(ISSUE_OPTIONS):
        request = pb.CreateGameRequest(
            players=_players("ann", "bob", "cid"),
            rules=pb.RuleSet(name="default", options_json=options),
            request_id=f"issue9-options-{number}",
        )
        cases.append(Case("GameService", "CreateGame", request))
    for token in (_b64("offset:" + "9" * 40), _b64("offset:" + "9" * 5000), _b64(NESTED_JSON)):
        cases.append(Case("GameService", "ListGames", pb.ListGamesRequest(page_token=token)))
    passing = pb.Action()
    getattr(passing, "pass").SetInParent()  # "pass" is a Python keyword
    cases += [
        Case("GameService", "ListGames", pb.ListGamesRequest(league="a\x00b")),
        Case("GameService", "GetGame", pb.GetGameRequest(name=playing, min_version=2**62)),
        Case(
            "GameService",
            "SubmitAction",
            pb.SubmitActionRequest(name=finished, action=passing, request_id="issue9-finished"),
            seat=0,
            expected=grpc.StatusCode.FAILED_PRECONDITION,
        ),
    ]
    return cases


def stats_cases() -> list[Case]:
    """NUL in every query string; forged and deeply nested page tokens."""
    nul = "a\x00b"
    return [
        Case("StatsService", "GetPlayerStats", spb.GetPlayerStatsRequest(player_id=nul)),
        Case(
            "StatsService", "GetPlayerStats", spb.GetPlayerStatsRequest(league=nul, player_id="a")
        ),
        Case("StatsService", "GetLeague", spb.GetLeagueRequest(league=nul)),
        Case(
            "StatsService",
            "GetHeadToHead",
            spb.GetHeadToHeadRequest(player_a=nul, player_b="bob"),
        ),
        Case(
            "StatsService",
            "ListLeaderboard",
            spb.ListLeaderboardRequest(
                league=nul, order_by=spb.LEADERBOARD_ORDER_RATING, page_size=10
            ),
        ),
        Case(
            "StatsService",
            "ListLeaderboard",
            spb.ListLeaderboardRequest(
                order_by=spb.LEADERBOARD_ORDER_RATING,
                page_size=10,
                page_token=_b64("[" * 100_000 + "]" * 100_000),
            ),
        ),
        Case(
            "StatsService",
            "ListLeaderboard",
            spb.ListLeaderboardRequest(
                order_by=spb.LEADERBOARD_ORDER_RATING,
                page_size=10,
                page_token=_b64('{"o": ' + "9" * 5000 + ', "q": ""}'),
            ),
        ),
    ]
