"""End to end: a small league played by bots through gRPC, then read back through
``StatsService`` on a real server (SQLite and PostgreSQL), checked against the query functions
on the same store."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import grpc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from domain.rules import RuleSet
from projections import stats_queries
from projections.stats_export import export_stats
from service.app.application import PreferansApplication
from service.app.config import StoreConfig
from service.cli.botplay import play_with_bots
from service.client import GameClient
from service.gen.preferans.v1 import stats_pb2 as spb
from service.gen.preferans.v1 import stats_pb2_grpc
from tests.e2e.conftest import ServerThread
from tests.e2e.helpers import refused

POOL = 2
LEAGUE_PLAYERS = ["ann", "bob", "cid", "dan"]
TABLES = [["ann", "bob", "cid"], ["dan", "ann", "bob"], ["cid", "dan", "ann"]]
PROJECTION_TIMEOUT = 30.0
ORDERS: dict[spb.LeaderboardOrder.ValueType, Callable[[spb.LeaderboardEntry], Any]] = {
    spb.LEADERBOARD_ORDER_RATING: lambda e: e.rating,
    spb.LEADERBOARD_ORDER_SETTLEMENT_TOTAL: lambda e: Fraction(e.settlement_total),
    spb.LEADERBOARD_ORDER_GAMES: lambda e: e.games,
    spb.LEADERBOARD_ORDER_DEALS: lambda e: e.deals,
    spb.LEADERBOARD_ORDER_CONTRACTS_MADE: lambda e: e.contracts_made,
    spb.LEADERBOARD_ORDER_SKILL: lambda e: e.skill.conservative,
}


@pytest.fixture
def stats(client: GameClient) -> Any:
    """A ``StatsService`` stub on the test client's channel."""
    return stats_pb2_grpc.StatsServiceStub(client.channel)


def play_league(client: GameClient, league: str) -> int:
    """Play every table of the league to its end with bots; return the number of games."""
    for players in TABLES:
        created = client.create_game(players, RuleSet(pool_target=POOL), league=league)
        play_with_bots(client, created.game.name, created.seat_tokens)
    return len(TABLES)


def wait_for_league(stats: Any, league: str, games: int) -> spb.League:
    """Poll GetLeague until the projection has counted ``games`` games (or fail)."""
    deadline = time.monotonic() + PROJECTION_TIMEOUT
    seen: str = "nothing"
    while time.monotonic() < deadline:
        try:
            found: spb.League = stats.GetLeague(spb.GetLeagueRequest(league=league)).league
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.NOT_FOUND:
                raise
            seen = "NOT_FOUND"
        else:
            if found.games == games:
                return found
            seen = f"{found.games} games"
        time.sleep(0.1)
    raise AssertionError(f"the stats projection did not count {games} games in time ({seen})")


def leaderboard(
    stats: Any, league: str, order: spb.LeaderboardOrder.ValueType, descending: bool | None
) -> Iterator[spb.LeaderboardEntry]:
    """Every entry, one page of one entry at a time."""
    token = ""
    pages = 0
    while True:
        request = spb.ListLeaderboardRequest(
            league=league, order_by=order, page_size=1, page_token=token
        )
        if descending is not None:
            request.descending = descending
        page: spb.ListLeaderboardResponse = stats.ListLeaderboard(request)
        pages += 1
        assert len(page.entries) == 1, f"page {pages} has {len(page.entries)} entries"
        yield from page.entries
        token = page.next_page_token
        if not token:
            return
        assert pages <= len(LEAGUE_PLAYERS), "more pages than players"


def plain(s: spb.PlayerStats) -> dict[str, Any]:
    """A ``PlayerStats`` message back in the shape of ``stats_queries.player_stats``."""
    return {
        "league": s.league,
        "player_id": s.player_id,
        "games_started": s.games_started,
        "games": s.games,
        "deals": s.deals,
        "rating": s.rating,
        "skill": {"mu": s.skill.mu, "sigma": s.skill.sigma, "conservative": s.skill.conservative},
        "rating_rulings": s.rating_rulings,
        "settlement_total": s.settlement_total,
        "settlement_avg": s.settlement_avg,
        "pool": s.pool,
        "gora": s.gora,
        "whists_written": s.whists_written,
        "whists_received": s.whists_received,
        "contracts": {
            "declared": s.contracts.declared,
            "made": s.contracts.made,
            "failed": s.contracts.failed,
            "by_level": dict(s.contracts.by_level),
            "by_strain": dict(s.contracts.by_strain),
            "undertricks": s.contracts.undertricks,
            "undertricks_avg": s.contracts.undertricks_avg,
            "made_rate": s.contracts.made_rate,
            "made_by_level": dict(s.contracts.made_by_level),
            "failed_by_level": dict(s.contracts.failed_by_level),
            "made_by_strain": dict(s.contracts.made_by_strain),
            "failed_by_strain": dict(s.contracts.failed_by_strain),
        },
        "misere": {
            "declared": s.misere.declared,
            "made": s.misere.made,
            "failed": s.misere.failed,
            "tricks": s.misere.tricks,
            "made_rate": s.misere.made_rate,
            "defended": s.misere.defended,
            "caught": s.misere.caught,
            "caught_rate": s.misere.caught_rate,
        },
        "whist": {
            "whist": s.whist.whists,
            "pass": s.whist.passes,
            "half_whist": s.whist.half_whists,
            "return": s.whist.returns,
            "whists_earned": s.whist.whists_earned,
            "penalties": s.whist.penalties,
            "penalised_deals": s.whist.penalised_deals,
            "whists_tricks": s.whist.whists_tricks,
            "whists_consolation": s.whist.whists_consolation,
            "whists_half": s.whist.whists_half,
            "defended": s.whist.defended,
            "defended_ok": s.whist.defended_ok,
            "success_rate": s.whist.success_rate,
        },
        "defence": {
            mode: {"deals": count.deals, "penalised": count.penalised, "whists": count.whists}
            for mode, count in (("open", s.defence.open), ("closed", s.defence.closed))
        },
        "help": {"given": s.help.given, "received": s.help.received},
        "raspasy": {
            "deals": s.raspasy.deals,
            "tricks": s.raspasy.tricks,
            "true_zeros": s.raspasy.true_zeros,
            "pool": s.raspasy.pool,
            "gora": s.raspasy.gora,
        },
        "classic": {
            "bombs_declared": s.classic.bombs_declared,
            "bombs_joined": s.classic.bombs_joined,
            "bomb_signs": s.classic.bomb_signs,
            "bomb_signs_crossed": s.classic.bomb_signs_crossed,
            "dark": {"declared": s.classic.dark.declared, "made": s.classic.dark.made},
            "dark_misere": {
                "declared": s.classic.dark_misere.declared,
                "made": s.classic.dark_misere.made,
            },
            "no_talon": {"declared": s.classic.no_talon.declared, "made": s.classic.no_talon.made},
        },
    }


def test_a_league_read_through_the_stats_service(
    store: StoreConfig,
    server: ServerThread,
    client: GameClient,
    stats: Any,
    open_app: Callable[[StoreConfig], PreferansApplication],
    tmp_path: Path,
) -> None:
    league = f"league-{uuid.uuid4().hex[:8]}"
    games = play_league(client, league)
    totals = wait_for_league(stats, league, games)

    # The league: every player counted, and the books balance.
    assert totals.league == league
    assert totals.games_started == games
    assert totals.players == len(LEAGUE_PLAYERS)
    assert totals.deals >= games
    assert totals.settlement_sum == "0"
    listed = stats.ListLeagues(spb.ListLeaguesRequest()).leagues
    assert league in listed and list(listed) == sorted(listed)

    # The leaderboard, one entry per page, in every order and both directions: every player
    # exactly once, ranked 1..n, in the requested order.
    for order, key in ORDERS.items():
        for descending in (True, False, None):
            entries = list(leaderboard(stats, league, order, descending))
            ids = [e.player_id for e in entries]
            assert sorted(ids) == sorted(LEAGUE_PLAYERS), (order, descending, ids)
            assert [e.rank for e in entries] == list(range(1, len(LEAGUE_PLAYERS) + 1))
            values = [key(e) for e in entries]
            expected = sorted(values, reverse=descending is not False)
            assert values == expected, (order, descending, values)
    board = list(leaderboard(stats, league, spb.LEADERBOARD_ORDER_UNSPECIFIED, None))
    by_rating = list(leaderboard(stats, league, spb.LEADERBOARD_ORDER_RATING, True))
    assert [e.player_id for e in board] == [e.player_id for e in by_rating]
    assert sum(Fraction(e.settlement_total) for e in board) == 0
    assert sum(e.games for e in board) == 3 * games

    # A page token continues only the query it came from.
    first = stats.ListLeaderboard(spb.ListLeaderboardRequest(league=league, page_size=1))
    assert first.next_page_token
    other = spb.ListLeaderboardRequest(
        league=league,
        page_size=1,
        page_token=first.next_page_token,
        order_by=spb.LEADERBOARD_ORDER_GAMES,
    )
    assert refused(stats.ListLeaderboard, other).fields == ["page_token"]

    # Each player's statistics through gRPC equal the query on the same store.
    app = open_app(store)
    for player in LEAGUE_PLAYERS:
        answer = stats.GetPlayerStats(spb.GetPlayerStatsRequest(league=league, player_id=player))
        direct = stats_queries.player_stats(app.db, league, player)
        assert direct is not None
        assert plain(answer.stats) == direct
        entry = next(e for e in board if e.player_id == player)
        assert (entry.games, entry.deals, entry.settlement_total) == (
            answer.stats.games,
            answer.stats.deals,
            answer.stats.settlement_total,
        )
    direct_totals = stats_queries.league_totals(app.db, league)
    assert direct_totals is not None and direct_totals["games"] == games

    # The export files (what `pref stats export` writes), read back with pyarrow, hold the
    # same numbers as the gRPC answers.
    written = export_stats(app.db, tmp_path, [league])
    players_file = next(p for p in written if p.name == "players.parquet")
    exported = {row["player_id"]: row for row in pq.read_table(players_file).to_pylist()}
    from_csv = pa_csv.read_csv(tmp_path / "players.csv").to_pylist()
    assert sorted(row["player_id"] for row in from_csv) == sorted(LEAGUE_PLAYERS)
    for player in LEAGUE_PLAYERS:
        answer = stats.GetPlayerStats(spb.GetPlayerStatsRequest(league=league, player_id=player))
        flat = stats_queries.flatten(plain(answer.stats))
        total = flat.pop("settlement_total")
        assert exported[player].pop("settlement_total_exact") == total
        assert exported[player].pop("settlement_total") == float(Fraction(total))
        assert exported[player] == flat, player

    # The per-deal table through gRPC, in pages of 4 rows (deals of 3 seats straddle pages),
    # equals the query; one player's rows; a token is bound to its league and player.
    table = stats_queries.deals(app.db, league)
    assert len(table) == 3 * totals.deals
    assert list_deals(stats, league, page_size=4) == table
    assert list_deals(stats, league, "dan", page_size=5) == [
        row for row in table if row["player_id"] == "dan"
    ]
    first = stats.ListDeals(spb.ListDealsRequest(league=league, page_size=4))
    assert first.next_page_token
    elsewhere = spb.ListDealsRequest(
        league=league, player_id="dan", page_token=first.next_page_token
    )
    assert refused(stats.ListDeals, elsewhere).fields == ["page_token"]

    # Head to head is symmetric.
    ab = stats.GetHeadToHead(
        spb.GetHeadToHeadRequest(league=league, player_a="ann", player_b="bob")
    ).head_to_head
    ba = stats.GetHeadToHead(
        spb.GetHeadToHeadRequest(league=league, player_a="bob", player_b="ann")
    ).head_to_head
    together = sum(1 for table in TABLES if {"ann", "bob"} <= set(table))
    assert (ab.player_a, ab.player_b, ba.player_a, ba.player_b) == ("ann", "bob", "bob", "ann")
    assert ab.games == ba.games == together
    assert (ab.a_settlement, ab.b_settlement) == (ba.b_settlement, ba.a_settlement)
    assert (ab.a_ahead, ab.b_ahead, ab.equal) == (ba.b_ahead, ba.a_ahead, ba.equal)
    assert ab.a_ahead + ab.b_ahead + ab.equal == ab.games

    # Unknown players of a known league.
    missing = refused(
        stats.GetPlayerStats, spb.GetPlayerStatsRequest(league=league, player_id="zoe")
    )
    assert missing.code == grpc.StatusCode.NOT_FOUND
    assert missing.resource_info is not None and missing.resource_info.resource_type == "player"


def list_deals(stats: Any, league: str, player: str = "", page_size: int = 0) -> list[Any]:
    """Every page of ListDeals, as ``stats_queries.deals`` rows."""
    rows, token = [], ""
    while True:
        answer = stats.ListDeals(
            spb.ListDealsRequest(
                league=league, player_id=player, page_size=page_size, page_token=token
            )
        )
        assert len(answer.deals) <= (page_size or 500)
        for deal in answer.deals:
            row = {f.name: getattr(deal, f.name) for f in deal.DESCRIPTOR.fields}
            row["holds_hand"], row["whisted"] = int(row["holds_hand"]), int(row["whisted"])
            rows.append(row)
        token = answer.next_page_token
        if not token:
            return rows


def assert_unknown_league(stats: Any, nowhere: str) -> None:
    """Every call on a league without games answers NOT_FOUND naming the league."""
    for call, request in (
        (stats.GetLeague, spb.GetLeagueRequest(league=nowhere)),
        (stats.ListLeaderboard, spb.ListLeaderboardRequest(league=nowhere, page_size=10)),
        (stats.GetPlayerStats, spb.GetPlayerStatsRequest(league=nowhere, player_id="ann")),
        (stats.ListDeals, spb.ListDealsRequest(league=nowhere)),
        (
            stats.GetHeadToHead,
            spb.GetHeadToHeadRequest(league=nowhere, player_a="ann", player_b="bob"),
        ),
    ):
        refusal = refused(call, request)
        assert refusal.code == grpc.StatusCode.NOT_FOUND, call
        assert refusal.resource_info is not None
        assert refusal.resource_info.resource_type == "league"
        assert refusal.resource_info.resource_name == nowhere


def test_stats_refusals(server: ServerThread, stats: Any) -> None:
    # "" is the untagged league: not an error, but unknown while no untagged game exists.
    for nowhere in (f"no-such-league-{uuid.uuid4().hex[:8]}", ""):
        assert_unknown_league(stats, nowhere)
    assert list(stats.ListLeagues(spb.ListLeaguesRequest()).leagues) == []

    def bad(call: Any, request: Any, field: str) -> None:
        refusal = refused(call, request)
        assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT, (request, refusal.message)
        assert refusal.fields == [field]

    board = stats.ListLeaderboard
    bad(board, spb.ListLeaderboardRequest(league="x", page_size=1000), "page_size")
    bad(board, spb.ListLeaderboardRequest(league="x", page_size=-1), "page_size")
    bad(board, spb.ListLeaderboardRequest(league="x" * 257, page_size=10), "league")
    unknown_order = spb.LeaderboardOrder.ValueType(99)
    bad(
        board,
        spb.ListLeaderboardRequest(league="x", page_size=10, order_by=unknown_order),
        "order_by",
    )
    for token in ("garbage", "b2Zmc2V0OjE=", "e30="):
        bad(
            board,
            spb.ListLeaderboardRequest(league="x", page_size=10, page_token=token),
            "page_token",
        )
    bad(
        stats.GetPlayerStats,
        spb.GetPlayerStatsRequest(league="x", player_id="p" * 257),
        "player_id",
    )
    bad(stats.GetPlayerStats, spb.GetPlayerStatsRequest(league="x"), "player_id")
    bad(stats.ListDeals, spb.ListDealsRequest(league="x", page_size=501), "page_size")
    bad(stats.ListDeals, spb.ListDealsRequest(league="x", player_id="p" * 257), "player_id")
    bad(stats.ListDeals, spb.ListDealsRequest(league="x", page_token="garbage"), "page_token")
    bad(
        stats.GetHeadToHead,
        spb.GetHeadToHeadRequest(league="x", player_a="ann", player_b="ann"),
        "player_b",
    )
