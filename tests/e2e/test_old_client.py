"""An old three-player client keeps working: a client built on the Python stubs of the contract
as released before tables of four and five seats (frozen in ``tests/e2e/old_client``, commit
ec7027e) plays a whole game through today's server, on both stores (RULES.md §3.6: three seats
stay the default; the contract only grew, ``scripts/buf-breaking``)."""

from __future__ import annotations

import json
import subprocess
import sys

from service.app.config import StoreConfig
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import REPO, UNTHROTTLED, ServerFactory

OLD_CLIENT_TIMEOUT = 600


def test_a_client_on_the_released_stubs_plays_a_whole_three_seat_game(
    store: StoreConfig, start_server: ServerFactory
) -> None:
    # Unthrottled: the old client plays as fast as it can (its subject is the contract).
    server = start_server(store, limits=UNTHROTTLED)
    client = GameClient(server.address)
    done = subprocess.run(
        [sys.executable, "-m", "tests.e2e.old_client.play", server.address, "old-client"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=OLD_CLIENT_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    # Today's client sees the same game, finished, with the field the old one does not know.
    game = client.get_game(summary["name"])
    assert game.status == pb.GAME_STATUS_FINISHED
    assert (game.version, game.deal_number, game.seats) == (
        summary["version"],
        summary["deals"],
        3,
    )
    sheet = client.scoresheet(summary["name"], min_version=game.version)
    assert list(sheet.settlement) == summary["settlement"]
    client.close()
