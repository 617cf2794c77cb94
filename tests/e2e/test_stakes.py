"""End to end over real gRPC, on both stores: a game with a stake played by bots, then its
money read back through ``LedgerService`` (GetBalance, ListBalances in pages); aborting a game
(AbortGame) before and after its first deal is scored (docs/STAKES.md)."""

from __future__ import annotations

import secrets
import time
import uuid
from typing import Any

import grpc
import pytest

from domain.model.codec import settlement_from_strings
from domain.model.stakes import format_cents, money
from domain.rules import RuleSet
from service.api.mapping import rules_to_proto
from service.app.config import StoreConfig
from service.cli.botplay import play_with_bots
from service.client import GameClient
from service.gen.preferans.v1 import audit_pb2 as apb
from service.gen.preferans.v1 import audit_pb2_grpc, ledger_pb2_grpc
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import ledger_pb2 as lpb
from tests.e2e.conftest import ServerFactory, ServerThread
from tests.e2e.helpers import PLAYERS, StreamReader, refused
from tests.e2e.test_audit import AUDITOR, SECRET

STAKE = 5
LEAGUE = "stakes"
PROJECTION_TIMEOUT = 30.0


@pytest.fixture
def ledger(client: GameClient) -> Any:
    return ledger_pb2_grpc.LedgerServiceStub(client.channel)


def create(
    client: GameClient, stake: int = STAKE, pool: int = 2, league: str = LEAGUE
) -> pb.CreateGameResponse:
    request = pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in PLAYERS],
        rules=rules_to_proto(RuleSet(pool_target=pool)),
        league=league,
        request_id=uuid.uuid4().hex,
        creator_secret=secrets.token_hex(16),
        stake_per_whist=stake,
    )
    created: pb.CreateGameResponse = client.stub.CreateGame(request)
    return created


def wait_for_balances(ledger: Any, rows: int) -> list[lpb.RankedBalance]:
    """Every row of the league's leaderboard, one per page, once it has ``rows`` rows."""
    deadline = time.monotonic() + PROJECTION_TIMEOUT
    while time.monotonic() < deadline:
        found: list[lpb.RankedBalance] = []
        token = ""
        while True:
            page = ledger.ListBalances(
                lpb.ListBalancesRequest(league=LEAGUE, page_size=1, page_token=token)
            )
            found.extend(page.balances)
            token = page.next_page_token
            if not token:
                break
        if len(found) == rows:
            return found
        time.sleep(0.1)
    raise AssertionError(f"the ledger projection did not list {rows} players in time")


def test_balances_after_a_game_with_a_stake(
    server: ServerThread, client: GameClient, ledger: Any
) -> None:
    created = create(client)
    assert created.game.stake_per_whist == STAKE
    play_with_bots(client, created.game.name, created.seat_tokens)
    sheet = client.scoresheet(created.game.name)
    expected = money(settlement_from_strings(list(sheet.settlement)), STAKE)
    board = wait_for_balances(ledger, 3)
    assert [row.rank for row in board] == [1, 2, 3]
    by_player = {row.balance.player_id: row.balance for row in board}
    assert [by_player[p].balance_cents for p in PLAYERS] == expected
    assert sum(expected) == 0
    assert [row.balance.balance_cents for row in board] == sorted(expected, reverse=True)
    assert all(row.balance.balance == format_cents(row.balance.balance_cents) for row in board)

    answer = ledger.GetBalance(lpb.GetBalanceRequest(player_id="ann", league=LEAGUE))
    assert answer.balance.balance_cents == expected[0] and answer.balance.games == 1
    [entry] = answer.entries
    assert entry.game == created.game.name and entry.kind == lpb.LEDGER_ENTRY_KIND_SETTLED
    assert entry.amount_cents == expected[0] and entry.stake_per_whist == STAKE
    assert not answer.next_page_token
    everywhere = ledger.GetBalance(lpb.GetBalanceRequest(player_id="ann"))
    assert everywhere.balance.balance_cents == expected[0]
    nobody = ledger.GetBalance(lpb.GetBalanceRequest(player_id="nobody"))
    assert nobody.balance.balance_cents == 0 and list(nobody.entries) == []

    anonymous = refused(ledger.GetBalance, lpb.GetBalanceRequest(player_id=""))
    assert anonymous.code == grpc.StatusCode.UNAUTHENTICATED  # "me" needs a player's JWT
    bad = refused(ledger.GetBalance, lpb.GetBalanceRequest(player_id=" ann"))
    assert bad.code == grpc.StatusCode.INVALID_ARGUMENT
    foreign = refused(ledger.GetBalance, lpb.GetBalanceRequest(player_id="ann", page_token="bogus"))
    assert foreign.code == grpc.StatusCode.INVALID_ARGUMENT

    # The finished game cannot be aborted.
    seat = client.seat(created.game.name, created.seat_tokens[0])
    over = refused(
        client.stub.AbortGame,
        pb.AbortGameRequest(name=created.game.name, request_id="abort"),
        metadata=seat.metadata,
    )
    assert over.code == grpc.StatusCode.FAILED_PRECONDITION
    assert over.error_info is not None and over.error_info.reason == "GAME_OVER"


class _FirstDealScored(Exception):
    pass


def test_aborting_a_game(
    store: StoreConfig, start_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREF_AUDITOR_TOKEN", SECRET)  # the audit API verifies the abort
    client = GameClient(start_server(store).address)
    try:
        _abort(client)
    finally:
        client.close()


def _abort(client: GameClient) -> None:
    created = create(client)
    name = created.game.name
    seat = client.seat(name, created.seat_tokens[2])
    request = pb.AbortGameRequest(name=name, request_id="abort-1")
    unauthenticated = refused(client.stub.AbortGame, request)
    assert unauthenticated.code == grpc.StatusCode.UNAUTHENTICATED
    first = client.stub.AbortGame(request, metadata=seat.metadata)
    again = client.stub.AbortGame(request, metadata=seat.metadata)
    assert again.replayed and again.version == first.version and not first.replayed
    game = client.get_game(name)
    assert game.status == pb.GAME_STATUS_ABORTED and game.seed_hex == ""
    assert list(client.scoresheet(name).settlement) == []
    assert seat.view(min_version=first.version).actor == -1  # nobody is to act
    verdict = audit_pb2_grpc.AuditServiceStub(client.channel).VerifyGame(
        apb.VerifyGameRequest(name=name), metadata=AUDITOR, timeout=30
    )
    assert verdict.verdict == apb.AUDIT_VERDICT_VERIFIED, verdict.summary
    assert verdict.aborted and not verdict.finished and list(verdict.money_cents) == []
    reader = StreamReader(seat.watch())
    while (message := reader.next()).version < first.version:
        pass
    assert message.WhichOneof("event") == "game_aborted" and message.game_aborted.seat == 2
    reader.close()

    # Once a deal is scored: too late (a pool long enough that one deal cannot end the game).
    later = create(client, pool=20, league="")

    def stop(version: int) -> None:
        if client.scoresheet(later.game.name).deals:
            raise _FirstDealScored

    with pytest.raises(_FirstDealScored):
        play_with_bots(client, later.game.name, later.seat_tokens, on_action=stop)
    late = refused(
        client.stub.AbortGame,
        pb.AbortGameRequest(name=later.game.name, request_id="abort-2"),
        metadata=client.seat(later.game.name, later.seat_tokens[0]).metadata,
    )
    assert late.code == grpc.StatusCode.FAILED_PRECONDITION
    assert late.error_info is not None and late.error_info.reason == "ABORT_TOO_LATE"
    assert client.get_game(later.game.name).status == pb.GAME_STATUS_PLAYING
