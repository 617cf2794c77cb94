"""Whole games through the real gRPC API, scored exactly as the pure rules core scores them;
retried commands have no second effect."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from domain.rules import RuleSet, parse_action, seed_commitment
from service.app.application import PreferansApplication
from service.app.config import StoreConfig
from service.cli.botplay import play_with_bots
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread
from tests.e2e.helpers import PLAYERS
from tests.integration.helpers import replay_in_domain, topic

POOL = 6


def _rows(entry: dict[str, Any]) -> list[tuple[int, int, int, list[int]]]:
    pool, gora, whists = entry["pool"], entry["gora"], entry["whists"]
    return [(seat, pool[seat], gora[seat], list(whists[seat])) for seat in range(len(pool))]


def _proto_rows(rows: list[pb.ScoresheetRow]) -> list[tuple[int, int, int, list[int]]]:
    return [(r.seat, r.pool, r.gora, list(r.whists)) for r in rows]


def test_bots_play_whole_games_scored_as_the_rules_core_scores_them(
    store: StoreConfig,
    server: ServerThread,
    client: GameClient,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    app = open_app(store)
    for number in range(2):
        created = client.create_game(PLAYERS, RuleSet(pool_target=POOL), league="e2e")
        name = created.game.name
        assert created.game.status == pb.GAME_STATUS_PLAYING
        assert len(created.seat_tokens) == 3 and len(set(created.seat_tokens)) == 3

        versions: list[int] = []
        game = play_with_bots(client, name, created.seat_tokens, on_action=versions.append)
        assert game.status == pb.GAME_STATUS_FINISHED
        assert versions == sorted(versions) and versions[-1] == game.version
        sheet = client.scoresheet(name, min_version=game.version)
        assert sheet.version == game.version

        # The pure rules core, fed only the recorded log, computes the same sheet.
        events = app.game_events(uuid.UUID(name.removeprefix("games/")))
        assert [e.originator_version for e in events] == list(range(1, game.version + 1))
        replay = replay_in_domain(events)
        assert replay.game.finished
        assert len(sheet.deals) == len(replay.scored) == game.deal_number
        for deal, expected in zip(sheet.deals, replay.scored, strict=True):
            assert deal.deal_number == expected["number"]
            assert deal.kind == expected["kind"]
            assert deal.declarer == expected["declarer"]
            assert deal.contract == expected["contract"]
            assert list(deal.tricks) == expected["tricks"]
            assert _proto_rows(list(deal.entries)) == _rows(expected["entry"])
        final = replay.game.sheet
        assert [r.pool for r in sheet.totals] == list(final.pool)
        assert all(p >= POOL for p in final.pool)
        assert [r.gora for r in sheet.totals] == list(final.gora)
        assert [list(r.whists) for r in sheet.totals] == [list(w) for w in final.whists]
        assert replay.settlement is not None
        assert list(sheet.settlement) == replay.settlement
        assert sum(Fraction(s) for s in sheet.settlement) == 0
        assert topic(events[-1]) == "GameFinished"

        # The seed revealed at the end is the one committed to at creation.
        assert game.seed_hex
        assert seed_commitment(bytes.fromhex(game.seed_hex)) == created.game.seed_commitment

        # The game is listed as finished with the same settlement (projections catch up).
        listed = _listed(client, name, game.version)
        assert listed.status == pb.GAME_STATUS_FINISHED
        assert list(listed.player_ids) == PLAYERS
        assert listed.seats == game.seats == 3
        assert list(listed.settlement) == replay.settlement
        assert number == 0 or listed.league == "e2e"


def _listed(client: GameClient, name: str, version: int) -> pb.GameSummary:
    deadline = time.monotonic() + 10
    while True:
        found = [g for g in client.list_games(page_size=500).games if g.name == name]
        if found and found[0].version == version:
            return found[0]
        assert time.monotonic() < deadline, f"{name} not listed at version {version}: {found}"
        time.sleep(0.1)


def test_a_retried_command_returns_the_first_answer_and_records_nothing(
    server: ServerThread, client: GameClient
) -> None:
    rules, secret = RuleSet(pool_target=POOL), "creator-secret-0123456789"
    created = client.create_game(PLAYERS, rules, request_id="create-once", creator_secret=secret)
    again = client.create_game(PLAYERS, rules, request_id="create-once", creator_secret=secret)
    assert again.game.name == created.game.name
    # Tokens issued again (the creator's retry also renews them): both sets act for the seats.
    for seat, token in enumerate(again.seat_tokens):
        assert client.seat(created.game.name, token).join().seat == seat
    assert again.game.version == created.game.version
    name = created.game.name
    seats = [client.seat(name, token) for token in created.seat_tokens]

    for step in range(4):
        view = seats[0].view()
        actor = seats[view.actor]
        legal = actor.view().legal_actions
        action = parse_action(legal[-1])
        first = actor.act(action, request_id=f"retry-{step}")
        assert not first.replayed
        assert first.version == client.get_game(name).version
        for _ in range(2):
            retry = actor.act(action, request_id=f"retry-{step}")
            assert retry.replayed
            assert retry.version == first.version
            assert retry.view.seat == first.view.seat
        assert client.get_game(name).version == first.version
