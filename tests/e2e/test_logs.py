"""What a real ``pref serve`` writes to its log when attacked (issue 9, item 5): refusals of huge
input leave no long echo, an illegal card play leaves no hand, and no credential is written."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc

from domain.rules import Card
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import stats_pb2 as spb
from service.gen.preferans.v1 import stats_pb2_grpc
from tests.e2e.conftest import ServeProcess
from tests.e2e.helpers import PLAYERS, refused
from tests.e2e.test_errors import Table

HUGE = "Z" * 60_000  # under the 64 KiB request cap, so the service (not the transport) sees it


def _suit(card: str) -> int:
    return int(Card.parse(card).suit)


def off_suit_possible(view: pb.SeatView) -> bool:
    """The seat to act could play a card that does not follow the suit led."""
    if view.phase != pb.PHASE_PLAY or not view.current_trick or view.actor != view.to_act:
        return False
    lead = _suit(view.current_trick[0].card)
    suits = {_suit(c) for c in view.hand}
    return lead in suits and len(suits) > 1


def test_the_log_holds_no_hand_no_long_echo_and_no_token(
    tmp_path: Path, serve_process: Callable[..., ServeProcess]
) -> None:
    server = serve_process(str(tmp_path / "events.sqlite"), log_level="info")
    client = GameClient(server.address)
    try:
        stats: Any = stats_pb2_grpc.StatsServiceStub(client.channel)
        huge_requests = [
            (client.stub.GetGame, pb.GetGameRequest(name=f"games/{HUGE}")),
            (client.stub.GetGame, pb.GetGameRequest(name=HUGE)),
            (client.stub.ListGames, pb.ListGamesRequest(league=HUGE)),
            (
                client.stub.CreateGame,
                pb.CreateGameRequest(
                    players=[pb.Player(player_id=p) for p in [HUGE, "bob", "cid"]],
                    request_id=uuid.uuid4().hex,
                ),
            ),
            (
                client.stub.CreateGame,
                pb.CreateGameRequest(
                    players=[pb.Player(player_id=p) for p in PLAYERS],
                    rules=pb.RuleSet(name=HUGE),
                    request_id=uuid.uuid4().hex,
                ),
            ),
            (stats.GetLeague, spb.GetLeagueRequest(league=HUGE)),
        ]
        for call, request in huge_requests:
            refusal = refused(call, request, metadata=(("x-request-id", "R" * 4000),), timeout=30)
            assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
            assert HUGE[:300] not in refusal.message

        table = Table(client)
        view = table.play_until(off_suit_possible)
        lead = _suit(view.current_trick[0].card)
        wrong = next(c for c in view.hand if _suit(c) != lead)
        error = refused(table.submit, pb.Action(play_card=wrong), table.tokens[view.actor])
        assert error.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "you hold" in error.message  # the caller owns that hand: it may see it
        tokens = list(table.tokens)
    finally:
        client.close()
    server.terminate()

    log = server.log_path.read_text(errors="replace")
    assert log.count("request refused") >= len(huge_requests) + 1, log[-2000:]
    assert "Z" * 300 not in log and "R" * 300 not in log
    assert "you hold" not in log and "must follow" not in log
    assert "IllegalAction" in log
    for token in tokens:
        assert token not in log and token.partition(".")[2] not in log
    assert max(len(line) for line in log.splitlines()) < 2000
