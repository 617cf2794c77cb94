"""Paged reads in front of untrusted clients (issue 9, items 3 and 4): page tokens are opaque,
signed and bound to their query; pages are stable under inserts (AIP-158); every response stays
under gRPC's 4 MB default, whatever the rows hold."""

from __future__ import annotations

import base64
import json
import time
import uuid
from typing import Any

import grpc
import pytest

from domain.rules import RuleSet
from projections import stats_queries
from service.app.config import StoreConfig
from service.client import GameClient
from service.gen.preferans.v1 import audit_pb2 as apb
from service.gen.preferans.v1 import audit_pb2_grpc, stats_pb2_grpc
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import stats_pb2 as spb
from tests.e2e.conftest import ServerFactory, ServerThread
from tests.e2e.helpers import PLAYERS, refused

SECRET = "paging-auditor"
AUDITOR = (("authorization", f"Bearer auditor:{SECRET}"),)
GRPC_DEFAULT_LIMIT = 4 * 1024 * 1024


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode()


HOSTILE_TOKENS = [
    "not-a-token",
    _b64(b"offset:" + b"9" * 5000),
    _b64(b"offset:99999999999999999999999999999999"),
    _b64(b"[" * 20_000 + b"]" * 20_000),  # under the 64 KiB request cap
    _b64(json.dumps({"o": 10**40, "q": "x"}).encode()),
    _b64(b"\x00" * 64),
    "A" * 60_000,
    "%%%%",
    "\u00e9\u00e9\u00e9",
]


@pytest.fixture
def audited(
    store: StoreConfig, start_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> ServerThread:
    monkeypatch.setenv("PREF_AUDITOR_TOKEN", SECRET)
    return start_server(store)


def _listed(client: GameClient, count: int, **filters: Any) -> list[pb.GameSummary]:
    """Every listed game, once the projection shows at least ``count``."""
    deadline = time.monotonic() + 30
    while True:
        games = list(client.stub.ListGames(pb.ListGamesRequest(page_size=500, **filters)).games)
        if len(games) >= count:
            return games
        assert time.monotonic() < deadline, f"{len(games)} of {count} games listed"
        time.sleep(0.1)


def test_hostile_page_tokens_are_invalid_argument_on_every_paged_method(
    audited: ServerThread,
) -> None:
    client = GameClient(audited.address)
    stats: Any = stats_pb2_grpc.StatsServiceStub(client.channel)
    audit: Any = audit_pb2_grpc.AuditServiceStub(client.channel)
    try:
        created = client.create_game(PLAYERS, RuleSet(pool_target=2), league="l")
        name = created.game.name
        calls = [
            lambda t: client.stub.ListGames(pb.ListGamesRequest(page_token=t)),
            lambda t: stats.ListLeaderboard(
                spb.ListLeaderboardRequest(league="l", page_size=5, page_token=t)
            ),
            lambda t: audit.GetEventLog(
                apb.GetEventLogRequest(name=name, page_token=t), metadata=AUDITOR
            ),
        ]
        for call in calls:
            for token in HOSTILE_TOKENS:
                error = refused(call, token)
                assert error.code == grpc.StatusCode.INVALID_ARGUMENT, (token[:40], error)
                assert error.fields == ["page_token"]
                assert len(error.message) < 200
    finally:
        client.close()


def test_a_list_games_token_is_bound_to_its_filter(
    server: ServerThread, client: GameClient
) -> None:
    for league in ("a", "a", "a", "b"):
        client.create_game(PLAYERS, RuleSet(pool_target=2), league=league)
    _listed(client, 4)
    first = client.stub.ListGames(pb.ListGamesRequest(page_size=1, league="a"))
    assert first.next_page_token
    for other in (
        pb.ListGamesRequest(page_size=1, league="b", page_token=first.next_page_token),
        pb.ListGamesRequest(page_size=1, page_token=first.next_page_token),
        pb.ListGamesRequest(
            page_size=1,
            league="a",
            status=pb.GAME_STATUS_FINISHED,
            page_token=first.next_page_token,
        ),
    ):
        error = refused(client.stub.ListGames, other)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["page_token"]
    # A token with one character changed is not one this server issued.
    token = first.next_page_token
    tampered = token[:10] + ("A" if token[10] != "A" else "B") + token[11:]
    error = refused(
        client.stub.ListGames, pb.ListGamesRequest(page_size=1, league="a", page_token=tampered)
    )
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["page_token"]
    # The same query goes on; a different page size is the same query.
    second = client.stub.ListGames(
        pb.ListGamesRequest(page_size=5, league="a", page_token=first.next_page_token)
    )
    assert [g.league for g in second.games] == ["a", "a"]
    assert not second.next_page_token


def test_list_games_pages_are_stable_under_inserts(
    server: ServerThread, client: GameClient
) -> None:
    for _ in range(5):
        client.create_game(PLAYERS, RuleSet(pool_target=2))
    everything = [g.name for g in _listed(client, 5)]
    page = client.stub.ListGames(pb.ListGamesRequest(page_size=2))
    seen = [g.name for g in page.games]
    assert seen == everything[:2]
    # New games arrive while a client pages through: it sees each old game exactly once.
    for _ in range(3):
        client.create_game(PLAYERS, RuleSet(pool_target=2))
    _listed(client, 8)
    token = page.next_page_token
    while token:
        page = client.stub.ListGames(pb.ListGamesRequest(page_size=2, page_token=token))
        seen += [g.name for g in page.games]
        token = page.next_page_token
    assert seen == everything


def test_list_games_stays_under_the_message_limit_with_huge_rows(
    server: ServerThread, client: GameClient
) -> None:
    """Rows written straight into the read model (as if a huge player id had got in): the
    listing still answers every client, in pages below 4 MB, and skips a row too big to send."""
    client.create_game(PLAYERS, RuleSet(pool_target=2))
    _listed(client, 1)
    big = {str(uuid.uuid4()): [f"{i}" * 600_000 for i in range(3)] for _ in range(3)}
    too_big = {str(uuid.uuid4()): ["x" * 1_500_000, "y" * 1_500_000, "z" * 1_500_000]}
    with server.app.db.transaction() as c:
        for game_id, players in {**big, **too_big}.items():
            c.execute(
                "INSERT INTO games (game_id, created_at, updated_at, players, league, rules, "
                "status, deal_number, version, settlement) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    "2000-01-01T00:00:00+00:00",
                    "2000-01-01T00:00:00+00:00",
                    json.dumps(players),
                    "",
                    "{}",
                    "playing",
                    1,
                    1,
                    None,
                ),
            )
    names: list[str] = []
    token = ""
    pages = 0
    while True:
        page = client.stub.ListGames(pb.ListGamesRequest(page_size=500, page_token=token))
        assert page.ByteSize() < GRPC_DEFAULT_LIMIT
        names += [g.name for g in page.games]
        pages += 1
        token = page.next_page_token
        if not token:
            break
        assert pages < 10
    assert pages >= 2
    assert sorted(n for n in names if n.removeprefix("games/") in big) == sorted(
        f"games/{g}" for g in big
    )
    assert not [n for n in names if n.removeprefix("games/") in too_big]
    assert len(names) == len(set(names)) == 4


def test_every_paged_method_has_a_default_page_size(audited: ServerThread) -> None:
    client = GameClient(audited.address)
    stats: Any = stats_pb2_grpc.StatsServiceStub(client.channel)
    try:
        client.create_game(PLAYERS, RuleSet(pool_target=2), league="d")
        deadline = time.monotonic() + 30
        while True:
            try:
                board = stats.ListLeaderboard(spb.ListLeaderboardRequest(league="d"))
                break
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.NOT_FOUND
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert sorted(e.player_id for e in board.entries) == sorted(PLAYERS)
        assert [e.rank for e in board.entries] == [1, 2, 3]
    finally:
        client.close()


def test_a_page_token_from_one_replica_continues_on_another(
    store: StoreConfig, start_server: ServerFactory
) -> None:
    """Replicas on one store sign tokens with a key derived from the same server key."""
    a, b = start_server(store), start_server(store)
    client_a, client_b = GameClient(a.address), GameClient(b.address)
    try:
        for _ in range(3):
            client_a.create_game(PLAYERS, RuleSet(pool_target=2))
        everything = [g.name for g in _listed(client_a, 3)]
        _listed(client_b, 3)
        first = client_a.stub.ListGames(pb.ListGamesRequest(page_size=1))
        rest = client_b.stub.ListGames(
            pb.ListGamesRequest(page_size=5, page_token=first.next_page_token)
        )
        assert [g.name for g in [*first.games, *rest.games]] == everything
    finally:
        client_a.close()
        client_b.close()


def test_an_event_log_token_is_bound_to_its_game(audited: ServerThread) -> None:
    client = GameClient(audited.address)
    audit: Any = audit_pb2_grpc.AuditServiceStub(client.channel)
    try:
        one = client.create_game(PLAYERS, RuleSet(pool_target=2)).game.name
        two = client.create_game(PLAYERS, RuleSet(pool_target=2)).game.name
        page = audit.GetEventLog(apb.GetEventLogRequest(name=one, page_size=1), metadata=AUDITOR)
        assert page.next_page_token
        error = refused(
            audit.GetEventLog,
            apb.GetEventLogRequest(name=two, page_token=page.next_page_token),
            metadata=AUDITOR,
        )
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["page_token"]
        rest = audit.GetEventLog(
            apb.GetEventLogRequest(name=one, page_token=page.next_page_token), metadata=AUDITOR
        )
        assert rest.entries[0].version == page.entries[-1].version + 1
    finally:
        client.close()


def test_list_leagues_pages_by_name_and_is_stable_under_inserts(audited: ServerThread) -> None:
    """ListLeagues in pages (AIP-158): every league once, in name order, a page at a time; a
    league added meanwhile before the position is not sent again, nor one skipped; a hostile
    or foreign token is INVALID_ARGUMENT; no page size means up to 500 (the unpaged answer)."""
    client = GameClient(audited.address)
    stats: Any = stats_pb2_grpc.StatsServiceStub(client.channel)
    try:
        for league in ("pb", "pd", "pf"):
            client.create_game(PLAYERS, RuleSet(pool_target=2), league=league)
        deadline = time.monotonic() + 30
        while len(stats.ListLeagues(spb.ListLeaguesRequest()).leagues) < 3:
            assert time.monotonic() < deadline, "the stats projection did not list the leagues"
            time.sleep(0.1)
        assert list(stats.ListLeagues(spb.ListLeaguesRequest()).leagues) == ["pb", "pd", "pf"]
        first = stats.ListLeagues(spb.ListLeaguesRequest(page_size=2))
        assert list(first.leagues) == ["pb", "pd"] and first.next_page_token
        client.create_game(PLAYERS, RuleSet(pool_target=2), league="pa")  # before the position
        client.create_game(PLAYERS, RuleSet(pool_target=2), league="pe")  # after it
        while len(stats.ListLeagues(spb.ListLeaguesRequest()).leagues) < 5:
            assert time.monotonic() < deadline, "the stats projection did not list the leagues"
            time.sleep(0.1)
        rest = stats.ListLeagues(
            spb.ListLeaguesRequest(page_size=2, page_token=first.next_page_token)
        )
        assert list(rest.leagues) == ["pe", "pf"] and not rest.next_page_token
        for token in (*HOSTILE_TOKENS, first.next_page_token[:-2] + "AA"):
            error = refused(stats.ListLeagues, spb.ListLeaguesRequest(page_token=token))
            assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.fields == ["page_token"]
        board = stats.ListLeaderboard(spb.ListLeaderboardRequest(league="pb", page_size=1))
        foreign = refused(
            stats.ListLeagues, spb.ListLeaguesRequest(page_token=board.next_page_token)
        )
        assert foreign.code == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        client.close()


def test_a_league_written_between_the_two_reads_is_not_shown_empty(
    audited: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI found the leaderboard's race: the players' read ran before the projection's commit
    and the league's check after it, so a league with three players came back as an empty page
    (no snapshot ever held the league without its players: they are written in one
    transaction). GetPlayerStats said "no game" the same way. The first read is made to run
    "before the commit" here (it finds nothing); the answer must still hold the players."""
    client = GameClient(audited.address)
    stats: Any = stats_pb2_grpc.StatsServiceStub(client.channel)
    try:
        client.create_game(PLAYERS, RuleSet(pool_target=2), league="race")
        deadline = time.monotonic() + 30
        while len(stats_queries.leaderboard(audited.app.db, "race")) < len(PLAYERS):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        for name in ("leaderboard", "player_stats"):
            real = getattr(stats_queries, name)
            missed: list[bool] = []

            def first_misses(
                *args: Any,
                _real: Any = real,
                _missed: list[bool] = missed,
                _nothing: Any = [] if name == "leaderboard" else None,
                **kwargs: Any,
            ) -> Any:
                if not _missed:
                    _missed.append(True)
                    return _nothing
                return _real(*args, **kwargs)

            monkeypatch.setattr(stats_queries, name, first_misses)
        board = stats.ListLeaderboard(spb.ListLeaderboardRequest(league="race"))
        assert sorted(e.player_id for e in board.entries) == sorted(PLAYERS)
        player = stats.GetPlayerStats(spb.GetPlayerStatsRequest(league="race", player_id="ann"))
        assert player.stats.player_id == "ann"
    finally:
        client.close()
