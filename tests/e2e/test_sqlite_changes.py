"""Issue 9, item 11: a server on a SQLite file sees what another process wrote to the same file
(``pref flag``, ``pref rule``, a second server): GetGame at once (before the fix it served the
cached game until a restart), and watch streams get the event. The other process is an
application object of its own (its own connections, as another process has)."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from domain.bots import make_bot
from domain.rules import actor, seat_view
from service.app.application import PreferansApplication
from service.app.config import StoreConfig
from service.client import GameClient
from tests.e2e.conftest import ServerFactory
from tests.e2e.helpers import PLAYERS, StreamReader

BOT = make_bot()


def test_a_write_by_another_process_is_served_at_once(
    sqlite_only: StoreConfig,
    start_server: ServerFactory,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    server = start_server(sqlite_only)
    client = GameClient(server.address)
    try:
        created = client.create_game(PLAYERS)
        name = created.game.name
        game_id = uuid.UUID(name.removeprefix("games/"))
        seat = client.seat(name, created.seat_tokens[0])
        watched = StreamReader(seat.watch(from_version=created.game.version, heartbeat_seconds=300))
        assert client.get_game(name).version == created.game.version  # now in the cache

        other = open_app(sqlite_only)
        game = other.get_game(game_id)
        assert game.deal is not None
        who = actor(game.deal)
        landed = other.act(game_id, who, BOT(seat_view(game.deal, who)), "from-elsewhere")

        assert client.get_game(name).version == landed.version
        versions = [m.version for m in watched.events_until(landed.version)]
        assert versions[-1] == landed.version
    finally:
        client.close()
