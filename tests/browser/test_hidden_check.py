"""The browser test's hidden-card check (tests/browser/hidden.py) on a real game's log, without a
browser: what it allows is the domain's own view of the game, and it finds a planted card in a
DOM snapshot and in a captured Connect stream."""

from __future__ import annotations

import base64
import dataclasses
import json
import sqlite3
import struct
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from domain.rules import visible_mask
from service.app.application import PreferansApplication
from service.app.audit import event_log
from service.app.config import sqlite_store
from service.gen.preferans.v1 import audit_pb2 as apb
from service.gen.preferans.v1 import game_pb2 as pb
from tests.browser.hidden import ALL_CARDS, Truth, check_dom, check_network, truth_from_log
from tests.e2e.helpers import mask_texts

REPO = Path(__file__).resolve().parents[2]
PLAYERS = ["ann", "bob", "cid"]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Truth, list[Any]]]:
    """A bots' game of two deals (``pref simulate``), its truth for seat 0's player from the
    audit log's entries, and the game's domain events read from the store."""
    store = str(tmp_path_factory.mktemp("hidden") / "game.sqlite")
    done = subprocess.run(
        [
            *(str(Path(sys.executable).with_name("pref")), "simulate", "--store", store),
            *("--games", "1", "--deals", "2", "--player-ids", ",".join(PLAYERS)),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    app = PreferansApplication(sqlite_store(store).env)
    try:
        game_id = _game_ids(store)[0]
        entries, more = event_log(app, game_id, 0, 5000)
        assert not more
        created = json.loads(entries[0].fields_json)
        log = [
            apb.EventLogEntry(
                version=e.version,
                topic=e.topic,
                timestamp=e.timestamp,
                fields_json=e.fields_json,
                chain=e.chain,
            )
            for e in entries
        ]
        yield truth_from_log(game_id, log, created["players"][0]), app.game_events(game_id)
    finally:
        app.close()


def _game_ids(store: str) -> list[uuid.UUID]:
    with sqlite3.connect(store) as db:
        rows = db.execute(
            "SELECT originator_id FROM stored_events WHERE originator_version = 1"
            " AND topic = 'preferans.v1.GameCreated'"
        ).fetchall()
    return [uuid.UUID(str(row[0])) for row in rows]


def _mid_deal(truth: Truth) -> int:
    """The last version of deal 1 at which some cards are hidden from the seat."""
    versions = range(truth.scored_at[1])
    return [v for v in versions if truth.deal_of[v] == 1 and truth.hidden_at(v)][-1]


def test_truth_is_the_domains_view(game: tuple[Truth, list[Any]]) -> None:
    truth, events = game
    state: Any = None
    assert len(events) == truth.last
    for event in events:
        state = event.mutate(state)
        deal = state.state.deal
        want = ALL_CARDS if deal is None else mask_texts(visible_mask(deal, truth.seat))
        assert truth.allowed[event.originator_version] == want
    assert 1 in truth.scored_at and 2 in truth.hands


def snapshot(version: int, cards: list[tuple[str, list[str]]], **more: Any) -> dict[str, Any]:
    return {
        "why": "test",
        "route": "#/game/x",
        "version": str(version),
        "replay": None,
        "deal": None,
        "cards": [{"card": c, "regions": r} for c, r in cards],
        "text": [],
        **more,
    }


def test_dom_check_finds_hidden_cards(game: tuple[Truth, list[Any]]) -> None:
    truth, _ = game
    version = _mid_deal(truth)
    own = truth.hands[1][truth.seat].split()
    other = sorted(truth.hidden_at(version))[0]
    clean = snapshot(version, [(c, ["hand"]) for c in own if c in truth.allowed[version]])
    assert check_dom([clean], truth) == ([], len(clean["cards"]))

    leaks = [
        snapshot(version, [(other, ["hand"])]),
        snapshot(version, [(other, ["opponents", "table"])]),
        {**snapshot(version, []), "text": [{"card": other, "regions": [], "text": other}]},
        # a deal's result shown before the deal was scored
        snapshot(version, [(other, ["deal-result"])], deal="1"),
        # cards on the lobby
        {**snapshot(version, [(own[0], ["hand"])]), "route": "#/"},
        # cards with no version
        {**snapshot(version, [(own[0], ["hand"])]), "version": None},
    ]
    for leak in leaks:
        violations, _ = check_dom([leak], truth)
        assert violations, leak
    # The replay at a position of a deal still in play (not scored in the log) shows what the
    # seat saw then.
    replayed = {**snapshot(0, [(other, ["hand"])]), "route": "#/replay/x", "replay": str(version)}
    assert check_dom([replayed], dataclasses.replace(truth, scored_at={}))[0]
    # Once deal 1 is scored its result is public, and so is the replay of it.
    after = truth.scored_at[1] + 1
    result = snapshot(after, [(other, ["deal-result"])], deal="1")
    replay = {**snapshot(0, [(other, ["hand"])]), "route": "#/replay/x", "replay": str(version)}
    assert check_dom([result, replay], truth)[0] == []


def _stream_capture(messages: list[pb.WatchGameResponse], cut: bytes = b"") -> dict[str, Any]:
    body = b""
    for message in messages:
        data = json_format.MessageToJson(message).encode()
        body += struct.pack(">BI", 0, len(data)) + data
    end = b"{}"
    body += struct.pack(">BI", 2, len(end)) + end + cut
    return {
        "method": "/preferans.v1.GameService/WatchGame",
        "status": 200,
        "streaming": True,
        "contentType": "application/connect+json",
        "body": base64.b64encode(body).decode(),
    }


def test_network_check_finds_hidden_cards(game: tuple[Truth, list[Any]]) -> None:
    truth, _ = game
    version = min(v for v in range(truth.last) if truth.deal_of[v] == 1)  # deal 1 dealt
    own = truth.hands[1][truth.seat].split()
    others = [s for s in range(3) if s != truth.seat]
    hidden = truth.hands[1][others[0]].split()  # all of it, as the deal starts
    assert set(hidden) <= truth.hidden_at(version)

    dealt = pb.WatchGameResponse(version=2, deal_dealt=pb.DealDealtEvent(deal_number=1))
    dealt.revealed.add(seat=truth.seat, cards=own)
    heartbeat = pb.WatchGameResponse(version=version, heartbeat=pb.Heartbeat())
    clean = _stream_capture([dealt, heartbeat], cut=b"\x00\x00\x00")  # a cut-off message
    violations, messages, checked = check_network([clean], truth)
    assert (violations, messages, checked) == ([], 2, 10)

    leak = pb.WatchGameResponse(version=version, heartbeat=pb.Heartbeat())
    leak.revealed.add(seat=others[0], cards=hidden)
    violations, _, _ = check_network([_stream_capture([dealt, leak])], truth)
    assert [set(v.cards) for v in violations] == [set(hidden)]

    view = pb.SeatView(version=version, seat=truth.seat, hand=own)
    view.visible_hands.add(seat=others[0], cards=hidden)
    unary = {
        "method": "/preferans.v1.GameService/GetSeatView",
        "status": 200,
        "contentType": "application/json",
        "body": base64.b64encode(
            json_format.MessageToJson(pb.GetSeatViewResponse(view=view)).encode()
        ).decode(),
    }
    violations, messages, _ = check_network([unary], truth)
    assert messages == 1 and [set(v.cards) for v in violations] == [set(hidden)]


def test_dom_check_window_between_snapshots(game: tuple[Truth, list[Any]]) -> None:
    """A table snapshot may draw the view of the next snapshot's version (the page asked for it
    after the stream's event), never a card hidden at every version in between."""
    truth, _ = game
    growing = [
        v
        for v in range(2, truth.last)
        if truth.deal_of[v - 2] == truth.deal_of[v]
        and truth.hidden_at(v)
        and truth.allowed[v] - truth.allowed[v - 1]
    ]
    assert growing, "no event of the game showed the seat a card"
    version = growing[0]
    ahead = sorted(truth.allowed[version] - truth.allowed[version - 1])
    window = [snapshot(version - 2, []), snapshot(version - 1, [(ahead[0], ["trick"])])]
    assert check_dom([*window, snapshot(version, [])], truth)[0] == []
    assert check_dom(window, truth)[0]  # no next snapshot: only its own version
    hidden = sorted(truth.hidden_at(version))[0]
    leak = snapshot(version - 1, [(hidden, ["trick"])])
    assert check_dom([snapshot(version - 2, []), leak, snapshot(version, [])], truth)[0]
