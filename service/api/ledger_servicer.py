"""The ``LedgerService`` servicer: virtual-money balances from the ``ledger`` projection.

Thin, like ``StatsServicer``: check the request (strings by ``service.app.validation``), call
``projections.ledger_queries`` in the application's thread pool, convert the plain data to
messages, page with ``service.api.pagetoken`` (AIP-158 keyset tokens). Every call is public (no
token): stakes are a table's public terms and a settlement is public once the game ends
(docs/STAKES.md).
"""

from __future__ import annotations

import datetime
import itertools
from typing import Any

import grpc
from google.protobuf import timestamp_pb2

from domain.model.stakes import format_cents
from projections import ledger_queries
from service.api.auth import current_player
from service.api.game_servicer import refusing
from service.api.pagetoken import Page, fill_page, keyset_rows, page_size
from service.api.stats_servicer import ReadModelServicer
from service.app import validation
from service.gen.preferans.v1 import ledger_pb2 as pb
from service.gen.preferans.v1 import ledger_pb2_grpc

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
ENTRIES_TOKEN = "ledger-entries"
BALANCES_TOKEN = "ledger-balances"
KINDS = {"settled": pb.LEDGER_ENTRY_KIND_SETTLED, "adjusted": pb.LEDGER_ENTRY_KIND_ADJUSTED}


class LedgerServicer(ReadModelServicer, ledger_pb2_grpc.LedgerServiceServicer):
    @refusing
    async def GetBalance(  # noqa: N802 (the proto's method name)
        self, request: pb.GetBalanceRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetBalanceResponse:
        """Reads the ``ledger`` projection (a player's balance and entries, in pages); without
        ``player_id``, the caller's own (a player's JWT)."""
        player = validation.player_id(request.player_id) if request.player_id else current_player()
        league = validation.league(request.league)
        size = page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        query = (player, league)
        position = self.page_tokens.decode(request.page_token, ENTRIES_TOKEN, query)
        after = None if position is None else _entry_position(position)

        def key(row: dict[str, Any]) -> tuple[str, str, int]:
            return (row["recorded_at"], row["game_id"], row["version"])

        def read() -> tuple[dict[str, Any], Page[dict[str, Any], pb.LedgerEntry]]:
            page = fill_page(
                keyset_rows(
                    lambda k, limit: ledger_queries.entries(self.db, player, league, limit, k),
                    key,
                    after,
                ),
                size,
                entry_to_proto,
                lambda entry: entry.ByteSize(),
                lambda row: self.page_tokens.fits(ENTRIES_TOKEN, query, list(key(row))),
            )
            return ledger_queries.balance(self.db, player, league), page

        found, page = await self._run(read)
        token = ""
        if page.more and page.last is not None:
            token = self.page_tokens.encode(ENTRIES_TOKEN, query, list(key(page.last)))
        return pb.GetBalanceResponse(
            balance=balance_to_proto(found), entries=page.messages, next_page_token=token
        )

    @refusing
    async def ListBalances(  # noqa: N802 (the proto's method name)
        self, request: pb.ListBalancesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListBalancesResponse:
        """Reads the ``ledger`` projection (the players of a scope by balance, in pages)."""
        league = validation.league(request.league)
        descending = request.descending if request.HasField("descending") else True
        size = page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        query = (league, descending)
        position = self.page_tokens.decode(request.page_token, BALANCES_TOKEN, query)
        after, rank = (None, 0) if position is None else _balance_position(position)

        def fetch(k: tuple[int, str] | None, limit: int) -> list[dict[str, Any]]:
            return ledger_queries.balances(self.db, league, descending, limit, k)

        def at(row: dict[str, Any]) -> list[Any]:
            return [row["balance_cents"], row["player_id"], row["rank"]]

        def read() -> Page[dict[str, Any], pb.RankedBalance]:
            counter = itertools.count(rank + 1)
            ranked = (
                {**row, "rank": next(counter)}
                for row in keyset_rows(fetch, lambda r: (r["balance_cents"], r["player_id"]), after)
            )
            return fill_page(
                ranked,
                size,
                lambda row: pb.RankedBalance(rank=row["rank"], balance=balance_to_proto(row)),
                lambda entry: entry.ByteSize(),
                lambda row: self.page_tokens.fits(BALANCES_TOKEN, query, at(row)),
            )

        page = await self._run(read)
        token = ""
        if page.more and page.last is not None:
            token = self.page_tokens.encode(BALANCES_TOKEN, query, at(page.last))
        return pb.ListBalancesResponse(balances=page.messages, next_page_token=token)


def _entry_position(position: list[Any]) -> tuple[str, str, int]:
    """An entries token's position: the last entry's time, game id and version."""
    recorded_at, game_id, version = position
    return str(recorded_at), str(game_id), int(version)


def _balance_position(position: list[Any]) -> tuple[tuple[int, str], int]:
    """A leaderboard token's position: the last row's balance and player id, and its rank."""
    cents, player, rank = position
    return (int(cents), str(player)), int(rank)


def balance_to_proto(row: dict[str, Any]) -> pb.Balance:
    return pb.Balance(
        player_id=row["player_id"],
        league=row["league"],
        balance_cents=row["balance_cents"],
        balance=format_cents(row["balance_cents"]),
        entries=row["entries"],
        games=row["games"],
    )


def entry_to_proto(row: dict[str, Any]) -> pb.LedgerEntry:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(datetime.datetime.fromisoformat(row["recorded_at"]))
    return pb.LedgerEntry(
        game=f"games/{row['game_id']}",
        version=row["version"],
        account=row["account"],
        league=row["league"],
        kind=KINDS[row["kind"]],
        amount_cents=row["amount_cents"],
        amount=format_cents(row["amount_cents"]),
        stake_per_whist=row["stake_per_whist"],
        record_time=stamp,
    )
