"""A whole three-player game played through a server by a client that knows only the frozen
stubs of this package (the contract as of commit ec7027e).

Run in a process of its own: ``python -m tests.e2e.old_client.play ADDRESS SEED``. It creates a
game of the default rules (pool 2), joins the three seats, follows every seat's ``WatchGame``
stream (and seat 0's ``WatchGameBatches``), and plays random legal actions as each seat's view
offers them until the game is finished. It checks what an old client relies on (three tokens,
its own hand of ten cards in its view and in its stream, every version streamed once and in
order, the game's end) and prints one JSON line: the game's name, version, deals and settlement.
It exits non-zero on the first surprise. Nothing of the project is imported but the stubs.
"""

from __future__ import annotations

import json
import queue
import random
import secrets
import sys
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import grpc

from tests.e2e.old_client.preferans.v1 import game_pb2 as pb
from tests.e2e.old_client.preferans.v1 import game_pb2_grpc

PLAYERS = ("ann-old", "bob-old", "cid-old")
MAX_DECISIONS = 5000
"""A game of pool 2 played at random ends long before (the client fails rather than hang)."""
TIMEOUT = 30.0
"""Seconds any call or stream message may take."""


class Stream:
    """A server stream read in a thread, so that every read has a timeout."""

    def __init__(self, calls: Any) -> None:
        self.calls = calls
        self.queue: queue.Queue[Any] = queue.Queue()
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        try:
            for message in self.calls:
                self.queue.put(message)
        except grpc.RpcError as error:
            self.queue.put(error)

    def updates(self) -> Iterator[pb.WatchGameResponse]:
        """Every update (heartbeats left out; a batch unpacked) until the game finished."""
        while True:
            item = self.queue.get(timeout=TIMEOUT)
            if isinstance(item, grpc.RpcError):
                raise item
            batch = list(item.updates) if isinstance(item, pb.WatchGameBatchesResponse) else [item]
            for update in batch:
                if update.HasField("heartbeat"):
                    continue
                yield update
                if update.HasField("game_finished"):
                    return

    def close(self) -> None:
        self.calls.cancel()
        self.thread.join(TIMEOUT)


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


def check_stream(updates: list[pb.WatchGameResponse], seat: int, final: int) -> None:
    """Every version once and in order; the creation with three players; each deal dealt with
    this seat's own ten cards, and no other seat's."""
    check([u.version for u in updates] == list(range(1, final + 1)), f"seat {seat}: versions")
    created = updates[0].game_created
    check([p.player_id for p in created.players] == list(PLAYERS), "the creation's players")
    for update in updates:
        if update.HasField("deal_dealt"):
            mine = [hand for hand in update.revealed if hand.seat == seat]
            others = [hand for hand in update.revealed if hand.seat != seat]
            check(len(mine) == 1 and len(mine[0].cards) == 10, f"seat {seat}: its dealt hand")
            check(not others, f"seat {seat} was dealt another seat's hand")


def play(address: str, seed: str) -> dict[str, Any]:
    rng = random.Random(seed)
    channel = grpc.insecure_channel(address)
    stub = game_pb2_grpc.GameServiceStub(channel)
    created = stub.CreateGame(
        pb.CreateGameRequest(
            players=[pb.Player(player_id=p) for p in PLAYERS],
            rules=pb.RuleSet(name="default", pool_target=2),
            request_id=uuid.uuid4().hex,
            creator_secret=secrets.token_hex(16),
        ),
        timeout=TIMEOUT,
    )
    name = created.game.name
    check(len(created.seat_tokens) == 3, "three seat tokens")
    check(list(created.game.players) == [pb.Player(player_id=p) for p in PLAYERS], "players")
    seats = [(("authorization", f"Bearer {token}"),) for token in created.seat_tokens]
    for seat, metadata in enumerate(seats):
        joined = stub.JoinGame(pb.JoinGameRequest(name=name), metadata=metadata, timeout=TIMEOUT)
        check(joined.seat == seat and joined.player.player_id == PLAYERS[seat], "JoinGame")
    streams = [
        Stream(stub.WatchGame(pb.WatchGameRequest(name=name), metadata=metadata))
        for metadata in seats
    ]
    batched = Stream(
        stub.WatchGameBatches(
            pb.WatchGameBatchesRequest(name=name, max_batch_size=4), metadata=seats[0]
        )
    )
    version, dealt = created.game.version, 0
    try:
        for _ in range(MAX_DECISIONS):
            request = pb.GetSeatViewRequest(name=name, min_version=version)
            view = stub.GetSeatView(request, metadata=seats[0], timeout=TIMEOUT).view
            if view.actor < 0:
                game = stub.GetGame(pb.GetGameRequest(name=name), timeout=TIMEOUT).game
                if game.status == pb.GAME_STATUS_FINISHED:
                    break
                version = game.version
                continue
            actor = view.actor
            if actor != 0:
                view = stub.GetSeatView(request, metadata=seats[actor], timeout=TIMEOUT).view
            check(view.seat == actor and view.actor == actor, "the actor's own view")
            if view.deal_number > dealt:  # a fresh deal: the actor holds ten cards
                dealt = view.deal_number
                if view.phase == pb.PHASE_BIDDING and not view.auction:
                    check(len(view.hand) == 10, f"seat {actor}: ten cards at the deal's start")
            check(len(view.legal) == len(view.legal_actions) > 0, "legal actions offered")
            action = rng.choice(list(view.legal))
            answer = stub.SubmitAction(
                pb.SubmitActionRequest(name=name, action=action, request_id=uuid.uuid4().hex),
                metadata=seats[actor],
                timeout=TIMEOUT,
            )
            check(answer.version > version and answer.view.seat == actor, "the command's answer")
            version = answer.version
        else:
            raise AssertionError(f"the game did not end within {MAX_DECISIONS} decisions")
        game = stub.GetGame(pb.GetGameRequest(name=name), timeout=TIMEOUT).game
        sheet = stub.GetScoresheet(
            pb.GetScoresheetRequest(name=name, min_version=game.version), timeout=TIMEOUT
        ).scoresheet
        check(len(sheet.totals) == 3 and len(sheet.settlement) == 3, "a three-seat sheet")
        for seat, stream in enumerate(streams):
            check_stream(list(stream.updates()), seat, game.version)
        check_stream(list(batched.updates()), 0, game.version)
    finally:
        for stream in [*streams, batched]:
            stream.close()
        channel.close()
    return {
        "name": name,
        "version": game.version,
        "deals": game.deal_number,
        "settlement": list(sheet.settlement),
    }


def main(argv: list[str]) -> int:
    address, seed = argv
    summary = play(address, seed)
    check("service.gen.preferans.v1.game_pb2" not in sys.modules, "only the frozen stubs")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
