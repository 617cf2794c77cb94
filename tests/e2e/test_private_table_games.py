"""Over gRPC: ListGames leaves out the games of private tables."""

from __future__ import annotations

import time
from typing import Any

from service.gen.preferans.v1 import game_pb2, table_pb2
from tests.e2e.conftest import auth


def _started(tables: Any, creator: str, visibility: Any) -> str:
    opened = tables.CreateTable(
        table_pb2.CreateTableRequest(request_id="t", visibility=visibility), metadata=auth(creator)
    ).table
    code = tables.CreateInvitation(
        table_pb2.CreateInvitationRequest(name=opened.name, request_id="i"), metadata=auth(creator)
    ).invitation_code
    tables.JoinTable(
        table_pb2.JoinTableRequest(name=opened.name, invitation_code=code, request_id="j"),
        metadata=auth(creator),
    )
    filled = tables.FillWithBots(
        table_pb2.FillWithBotsRequest(name=opened.name, request_id="f"), metadata=auth(creator)
    ).table
    assert filled.state == table_pb2.TABLE_STATE_STARTED
    return str(filled.game)


def test_list_games_leaves_out_the_games_of_private_tables(lobby: Any) -> None:
    tables, games = lobby
    private = _started(tables, "bob", table_pb2.VISIBILITY_PRIVATE)
    public = _started(tables, "ann", table_pb2.VISIBILITY_PUBLIC)  # after the private one
    deadline = time.monotonic() + 20  # the game list is a read model, a moment behind
    listed: set[str] = set()
    while public not in listed and time.monotonic() < deadline:
        time.sleep(0.05)
        page = games.ListGames(game_pb2.ListGamesRequest(page_size=100))
        listed = {g.name for g in page.games}
    assert public in listed
    assert private not in listed
