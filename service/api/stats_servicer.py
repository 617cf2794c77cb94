"""The ``StatsService`` servicer: league and player statistics from the ``stats`` projection.

Thin, like ``GameServicer``: check the request (strings by ``service.app.validation``), call
``projections.stats_queries`` in the application's thread pool, convert the plain data to
messages. Every call is public (no seat
token). Errors become statuses through ``service.api.errors`` (``StatsNotFound`` is a
``NotFound``: NOT_FOUND with a ``google.rpc.ResourceInfo``).

Why over 400 lines: the whole ``StatsService`` contract is this one servicer class, one method
per RPC with its paging (keyset tokens bound to the query) and its not-found rules; the queries
themselves are ``projections.stats_queries``.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
import structlog

from projections import stats_queries
from projections.db import Database
from service.api.errors import BadInput, NotFound
from service.api.game_servicer import Delegating, refusing
from service.api.pagetoken import Page, PageTokens, fill_page, keyset_rows, page_size
from service.app import validation
from service.gen.preferans.v1 import stats_pb2 as pb
from service.gen.preferans.v1 import stats_pb2_grpc

T = TypeVar("T")
log = structlog.get_logger(__name__)

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
LEADERBOARD_TOKEN = "leaderboard"
LEAGUES_TOKEN = "leagues"
DEALS_TOKEN = "deals"
ORDERS = {
    pb.LEADERBOARD_ORDER_UNSPECIFIED: "rating",
    pb.LEADERBOARD_ORDER_RATING: "rating",
    pb.LEADERBOARD_ORDER_SETTLEMENT_TOTAL: "settlement_total",
    pb.LEADERBOARD_ORDER_GAMES: "games",
    pb.LEADERBOARD_ORDER_DEALS: "deals",
    pb.LEADERBOARD_ORDER_CONTRACTS_MADE: "contracts_made",
    pb.LEADERBOARD_ORDER_SKILL: "skill",
}


class StatsNotFound(NotFound):
    """No such league, player in a league, or pair of players who met in a league."""


class ReadModelServicer(Delegating):
    """A servicer of a read model's queries (``StatsService``, ``LedgerService``): the
    database, the application's thread pool, the page tokens."""

    def __init__(
        self, db: Database, executor: ThreadPoolExecutor, page_tokens: PageTokens | None = None
    ) -> None:
        self.db = db
        self.executor = executor
        self.page_tokens = page_tokens or PageTokens.random()


class StatsServicer(ReadModelServicer, stats_pb2_grpc.StatsServiceServicer):
    # -- plumbing -------------------------------------------------------------------------

    def _league_or_not_found(self, league: str) -> dict[str, Any]:
        """The league's totals (in the thread pool), or ``StatsNotFound``."""
        totals = stats_queries.league_totals(self.db, league)
        if totals is None:
            raise StatsNotFound("league", league, f"no league {league!r}")
        return totals

    # -- methods --------------------------------------------------------------------------

    @refusing
    async def GetPlayerStats(  # noqa: N802 (the proto's method name)
        self, request: pb.GetPlayerStatsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetPlayerStatsResponse:
        """Reads the ``stats`` projection (one player's row in a league)."""
        league = validation.league(request.league)
        player = validation.player_id(request.player_id)

        def read() -> dict[str, Any]:
            found = stats_queries.player_stats(self.db, league, player)
            if found is None:
                self._league_or_not_found(league)
                # The league was written after the first read (with its players, in one
                # transaction): read the player again before saying he has no game.
                found = stats_queries.player_stats(self.db, league, player)
            if found is None:
                raise StatsNotFound(
                    "player", player, f"player {player!r} has no game in league {league!r}"
                )
            return found

        return pb.GetPlayerStatsResponse(stats=player_stats_to_proto(await self._run(read)))

    @refusing
    async def ListLeaderboard(  # noqa: N802 (the proto's method name)
        self, request: pb.ListLeaderboardRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListLeaderboardResponse:
        """Reads the ``stats`` projection (players of a league, in pages)."""
        league = validation.league(request.league)
        order = ORDERS.get(request.order_by)
        if order is None:
            raise BadInput("order_by", f"unknown order_by {request.order_by}")
        descending = request.descending if request.HasField("descending") else True
        size = page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        query = (league, order, descending)
        after, rank = _leaderboard_position(
            self.page_tokens.decode(request.page_token, LEADERBOARD_TOKEN, query)
        )

        def fetch(key: tuple[Any, str] | None, limit: int) -> list[dict[str, Any]]:
            return stats_queries.leaderboard(
                self.db, league, order_by=order, descending=descending, limit=limit, after=key
            )

        def position(row: dict[str, Any], at: int) -> list[Any]:
            return [row["key"], row["player_id"], at]

        def one_page() -> Page[dict[str, Any], pb.LeaderboardEntry]:
            counter = itertools.count(rank + 1)
            ranked = (
                {**row, "rank": next(counter)}
                for row in keyset_rows(fetch, lambda r: (r["key"], r["player_id"]), after)
            )
            return fill_page(
                ranked,
                size,
                lambda row: leaderboard_entry_to_proto(row, row["rank"]),
                lambda entry: entry.ByteSize(),
                lambda row: self.page_tokens.fits(
                    LEADERBOARD_TOKEN, query, position(row, row["rank"])
                ),
            )

        def read() -> Page[dict[str, Any], pb.LeaderboardEntry]:
            page = one_page()
            if not page.messages and after is None:
                self._league_or_not_found(league)
                # The league was written after the first read, with its players in the same
                # transaction: an empty page now would show a league no snapshot ever held.
                page = one_page()
            return page

        page = await self._run(read)
        token = ""
        if page.more and page.last is not None:
            last = page.last
            token = self.page_tokens.encode(LEADERBOARD_TOKEN, query, position(last, last["rank"]))
        return pb.ListLeaderboardResponse(entries=page.messages, next_page_token=token)

    @refusing
    async def GetHeadToHead(  # noqa: N802 (the proto's method name)
        self, request: pb.GetHeadToHeadRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetHeadToHeadResponse:
        """Reads the ``stats`` projection (two players' meetings in a league)."""
        league = validation.league(request.league)
        a = validation.player_id(request.player_a, "player_a")
        b = validation.player_id(request.player_b, "player_b")
        if a == b:
            raise BadInput("player_b", "player_b must differ from player_a")

        def read() -> dict[str, Any]:
            found = stats_queries.head_to_head(self.db, league, a, b)
            if found is None:
                self._league_or_not_found(league)
                raise StatsNotFound(
                    "head-to-head",
                    f"{a} vs {b}",
                    f"{a!r} and {b!r} have not played each other in league {league!r}",
                )
            return found

        found = await self._run(read)
        return pb.GetHeadToHeadResponse(head_to_head=head_to_head_to_proto(found))

    @refusing
    async def GetLeague(  # noqa: N802 (the proto's method name)
        self, request: pb.GetLeagueRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetLeagueResponse:
        """Reads the ``stats`` projection (a league's totals)."""
        league = validation.league(request.league)
        totals = await self._run(self._league_or_not_found, league)
        return pb.GetLeagueResponse(league=league_to_proto(totals))

    @refusing
    async def ListLeagues(  # noqa: N802 (the proto's method name)
        self, request: pb.ListLeaguesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListLeaguesResponse:
        """Reads the ``stats`` projection (the leagues' names, in pages by name)."""
        size = page_size(request.page_size, MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        position = self.page_tokens.decode(request.page_token, LEAGUES_TOKEN, ())
        after = None if position is None else str(position[0])

        def read() -> Page[str, str]:
            return fill_page(
                keyset_rows(
                    lambda key, limit: stats_queries.leagues(self.db, key, limit),
                    lambda name: name,
                    after,
                ),
                size,
                lambda name: name,
                lambda name: len(name.encode()) + 2,
                lambda name: self.page_tokens.fits(LEAGUES_TOKEN, (), [name]),
            )

        page = await self._run(read)
        token = ""
        if page.more and page.last is not None:
            token = self.page_tokens.encode(LEAGUES_TOKEN, (), [page.last])
        return pb.ListLeaguesResponse(leagues=page.messages, next_page_token=token)

    @refusing
    async def ListDeals(  # noqa: N802 (the proto's method name)
        self, request: pb.ListDealsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListDealsResponse:
        """Reads the ``stats`` projection (a league's per-deal table, in pages by log order)."""
        league = validation.league(request.league)
        player = validation.player_id(request.player_id, "player_id") if request.player_id else None
        size = page_size(request.page_size, MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        query = (league, player or "")
        position = self.page_tokens.decode(request.page_token, DEALS_TOKEN, query)
        after = None if position is None else (int(str(position[0])), int(str(position[1])))

        def key(row: dict[str, Any]) -> tuple[int, int]:
            return int(row["position"]), int(row["seat"])

        def read() -> Page[dict[str, Any], pb.DealRow]:
            page = fill_page(
                keyset_rows(
                    lambda at, limit: stats_queries.deals(self.db, league, player, at, limit),
                    key,
                    after,
                ),
                size,
                deal_row_to_proto,
                lambda row: row.ByteSize(),
                lambda row: self.page_tokens.fits(DEALS_TOKEN, query, list(key(row))),
            )
            if not page.messages and after is None:
                self._league_or_not_found(league)
            return page

        page = await self._run(read)
        token = ""
        if page.more and page.last is not None:
            token = self.page_tokens.encode(DEALS_TOKEN, query, list(key(page.last)))
        return pb.ListDealsResponse(deals=page.messages, next_page_token=token)


# -----------------------------------------------------------------------------------------
# checks and page tokens


def _leaderboard_position(position: list[Any] | None) -> tuple[tuple[Any, str] | None, int]:
    """A leaderboard token's position: the last row's sort value and player id, and its rank."""
    if position is None:
        return None, 0
    value, player, rank = position
    return (value, str(player)), int(rank)


# -----------------------------------------------------------------------------------------
# plain data → messages


def _counts(mapping: dict[str, Any]) -> dict[str, int]:
    return {str(k): int(v) for k, v in mapping.items()}


def player_stats_to_proto(s: dict[str, Any]) -> pb.PlayerStats:
    contracts = s["contracts"]
    misere = s["misere"]
    whist = s["whist"]
    raspasy = s["raspasy"]
    classic = s["classic"]
    return pb.PlayerStats(
        league=s["league"],
        player_id=s["player_id"],
        games=int(s["games"]),
        games_started=int(s["games_started"]),
        deals=int(s["deals"]),
        rating=float(s["rating"]),
        settlement_total=str(s["settlement_total"]),
        pool=int(s["pool"]),
        gora=int(s["gora"]),
        whists_written=int(s["whists_written"]),
        whists_received=int(s["whists_received"]),
        contracts=pb.ContractStats(
            declared=int(contracts["declared"]),
            made=int(contracts["made"]),
            failed=int(contracts["failed"]),
            by_level=_counts(contracts["by_level"]),
            by_strain=_counts(contracts["by_strain"]),
            undertricks_avg=float(contracts["undertricks_avg"]),
            undertricks=int(contracts["undertricks"]),
            made_rate=float(contracts["made_rate"]),
            made_by_level=_counts(contracts["made_by_level"]),
            failed_by_level=_counts(contracts["failed_by_level"]),
            made_by_strain=_counts(contracts["made_by_strain"]),
            failed_by_strain=_counts(contracts["failed_by_strain"]),
        ),
        misere=pb.MisereStats(
            declared=int(misere["declared"]),
            made=int(misere["made"]),
            failed=int(misere["failed"]),
            tricks=int(misere["tricks"]),
            made_rate=float(misere["made_rate"]),
            defended=int(misere["defended"]),
            caught=int(misere["caught"]),
            caught_rate=float(misere["caught_rate"]),
        ),
        whist=pb.WhistStats(
            whists=int(whist["whist"]),
            passes=int(whist["pass"]),
            half_whists=int(whist["half_whist"]),
            returns=int(whist["return"]),
            whists_earned=int(whist["whists_earned"]),
            penalties=int(whist["penalties"]),
            penalised_deals=int(whist["penalised_deals"]),
            whists_tricks=int(whist["whists_tricks"]),
            whists_consolation=int(whist["whists_consolation"]),
            whists_half=int(whist["whists_half"]),
            defended=int(whist["defended"]),
            defended_ok=int(whist["defended_ok"]),
            success_rate=float(whist["success_rate"]),
        ),
        raspasy=pb.RaspasyStats(
            deals=int(raspasy["deals"]),
            tricks=int(raspasy["tricks"]),
            true_zeros=int(raspasy["true_zeros"]),
            pool=int(raspasy["pool"]),
            gora=int(raspasy["gora"]),
        ),
        classic=pb.ClassicStats(
            bombs_declared=int(classic["bombs_declared"]),
            bombs_joined=int(classic["bombs_joined"]),
            bomb_signs=int(classic["bomb_signs"]),
            bomb_signs_crossed=int(classic["bomb_signs_crossed"]),
            dark=_contract_count(classic["dark"]),
            dark_misere=_contract_count(classic["dark_misere"]),
            no_talon=_contract_count(classic["no_talon"]),
        ),
        skill=skill_to_proto(s["skill"]),
        rating_rulings=int(s["rating_rulings"]),
        settlement_avg=float(s["settlement_avg"]),
        defence=pb.DefenceStats(
            open=_defence_count(s["defence"]["open"]),
            closed=_defence_count(s["defence"]["closed"]),
        ),
        help=pb.HelpStats(given=int(s["help"]["given"]), received=int(s["help"]["received"])),
    )


def _defence_count(count: dict[str, Any]) -> pb.DefenceCount:
    return pb.DefenceCount(
        deals=int(count["deals"]), penalised=int(count["penalised"]), whists=int(count["whists"])
    )


def skill_to_proto(skill: dict[str, Any]) -> pb.SkillRating:
    return pb.SkillRating(
        mu=float(skill["mu"]),
        sigma=float(skill["sigma"]),
        conservative=float(skill["conservative"]),
    )


def _contract_count(count: dict[str, Any]) -> pb.ContractCount:
    return pb.ContractCount(declared=int(count["declared"]), made=int(count["made"]))


def leaderboard_entry_to_proto(row: dict[str, Any], rank: int) -> pb.LeaderboardEntry:
    return pb.LeaderboardEntry(
        rank=rank,
        player_id=row["player_id"],
        games=int(row["games"]),
        deals=int(row["deals"]),
        rating=float(row["rating"]),
        settlement_total=str(row["settlement_total"]),
        contracts_made=int(row["contracts_made"]),
        contracts_failed=int(row["contracts_failed"]),
        skill=skill_to_proto(row["skill"]),
        rating_rulings=int(row["rating_rulings"]),
    )


def head_to_head_to_proto(h: dict[str, Any]) -> pb.HeadToHead:
    return pb.HeadToHead(
        league=h["league"],
        player_a=h["a"],
        player_b=h["b"],
        games=int(h["games"]),
        a_settlement=str(h["a_settlement"]),
        b_settlement=str(h["b_settlement"]),
        a_ahead=int(h["a_ahead"]),
        b_ahead=int(h["b_ahead"]),
        equal=int(h["equal"]),
    )


def league_to_proto(t: dict[str, Any]) -> pb.League:
    return pb.League(
        league=t["league"],
        games=int(t["games"]),
        games_started=int(t["games_started"]),
        deals=int(t["deals"]),
        players=int(t["players"]),
        contracts_declared=int(t["contracts_declared"]),
        misere_declared=int(t["misere_declared"]),
        raspasy_deals=int(t["raspasy_deals"]),
        settlement_sum=str(t["settlement_sum"]),
        bomb_deals=int(t["bomb_deals"]),
        dark_games=int(t["dark_games"]),
        no_talon_games=int(t["no_talon_games"]),
    )


def deal_row_to_proto(row: dict[str, Any]) -> pb.DealRow:
    message = pb.DealRow()
    for name, value in row.items():
        setattr(message, name, bool(value) if name in ("holds_hand", "whisted") else value)
    return message
