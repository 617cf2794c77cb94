"""End to end (SQLite): the robber ("Разбойник", S000 КЛАССИКА l.657) orders obligatory games
through ``GameService.OrderGame``: typed INVALID_ARGUMENT naming ``obligations.<kind>`` for a
bad count and ``obligations`` in a game without the robber; the order with its obligations in
GetGame, the seat view (what each still owes), the scoresheet and WatchGame; an idempotent
retry; bots play the game out (pools of 4) and what was not declared when every pool closed is
written to gora, the audit verifying the game."""

from __future__ import annotations

import grpc
import pytest

from domain.rules import DEFAULT
from service.app.config import StoreConfig
from service.cli.botplay import play_with_bots
from service.client import GameClient
from service.gen.preferans.v1 import audit_pb2 as apb
from service.gen.preferans.v1 import audit_pb2_grpc
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import UNTHROTTLED, ServerFactory
from tests.e2e.helpers import refused

PLAYERS = ["ann", "bob", "cid"]
ROBBER = DEFAULT.with_options(order_game=True, robber=True, pool_target=4)
SEED_ORDER = {"misere": 1, "ten": 1, "nine": 2, "eight": 3}
"""S000: "по разу – мизер и десятерную, два раза – девятерную, три – восьмерную"."""
SECRET = "robber-auditor"
AUDITOR = (("authorization", f"Bearer auditor:{SECRET}"),)


def test_robber_orders_obligations_through_grpc_and_they_are_written_when_the_pools_close(
    sqlite_only: StoreConfig, start_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREF_AUDITOR_TOKEN", SECRET)
    # A whole game by bots as fast as they go: no call budget (tests/e2e/test_limits.py).
    server = start_server(sqlite_only, limits=UNTHROTTLED)
    client = GameClient(server.address)
    try:
        created = client.create_game(PLAYERS, ROBBER)
        name, tokens = created.game.name, list(created.seat_tokens)
        game = client.get_game(name)
        seats = [client.seat(name, token) for token in tokens]
        orderer = seats[game.orderer]
        for given, field in (
            ({"nine": 6}, "obligations.nine"),
            ({"eight": -1}, "obligations.eight"),
        ):
            bad = refused(orderer.order_game, 4, 0, None, given)
            assert bad.code is grpc.StatusCode.INVALID_ARGUMENT, given
            assert bad.fields == [field]
        assert client.get_game(name).version == game.version  # nothing recorded

        ordered = orderer.order_game(4, 0, "order", SEED_ORDER)
        assert orderer.order_game(4, 0, "order", SEED_ORDER).replayed
        game = client.get_game(name)
        assert game.order.obligations == pb.Obligations(**SEED_ORDER)
        assert game.version == ordered.version
        view = seats[0].view()
        assert view.order.obligations.nine == 2
        # 50 + 50 + 2 × 40 + 3 × 30 = 270 each, all owed.
        assert [(d.seat, d.owed.eight, d.gora) for d in view.robber_owed] == [
            (0, 3, 270),
            (1, 3, 270),
            (2, 3, 270),
        ]
        assert not view.robber_written

        finished = play_with_bots(client, name, tokens)
        assert finished.status == pb.GAME_STATUS_FINISHED

        sheet = client.scoresheet(name)
        assert sheet.robber_written and len(sheet.robber_owed) == 3
        assert all(debt.gora == _price(debt.owed) for debt in sheet.robber_owed)
        assert sheet.settlement
        kinds = []
        for message in seats[0].watch(from_version=0, heartbeat_seconds=1):
            kind = message.WhichOneof("event")
            if kind == "heartbeat":
                break
            kinds.append(kind)
            if kind == "game_ordered":
                assert message.game_ordered.obligations.eight == 3
        assert "game_ordered" in kinds
        audit = audit_pb2_grpc.AuditServiceStub(client.channel)
        answer = audit.VerifyGame(apb.VerifyGameRequest(name=name), metadata=AUDITOR)
        assert answer.verdict == apb.AUDIT_VERDICT_VERIFIED, answer.summary
        assert list(answer.settlement) == list(sheet.settlement)

        plain = client.create_game(PLAYERS, DEFAULT.with_options(order_game=True))
        plain_seat = client.seat(plain.game.name, plain.seat_tokens[plain.game.orderer])
        none = refused(plain_seat.order_game, 20, 0, None, {"eight": 1})
        assert none.code is grpc.StatusCode.INVALID_ARGUMENT and none.fields == ["obligations"]
    finally:
        client.close()


def _price(owed: pb.Obligations) -> int:
    """The default prices (S-34): dark misère 200, misère 50, ten 50 … six 10."""
    return (
        200 * owed.dark_misere
        + 50 * owed.misere
        + 50 * owed.ten
        + 40 * owed.nine
        + 30 * owed.eight
        + 20 * owed.seven
        + 10 * owed.six
    )
