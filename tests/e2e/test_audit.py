"""End to end: the ``AuditService`` on a real server (SQLite and PostgreSQL) — verification
and the full event log for the auditor credential, tampering found through the API, and the
credential rules (no token: UNAUTHENTICATED; a seat token: PERMISSION_DENIED)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from domain.rules import RuleSet
from service.app.application import PreferansApplication
from service.app.config import StoreConfig
from service.cli.botplay import play_with_bots
from service.client import GameClient
from service.gen.preferans.v1 import audit_pb2 as apb
from service.gen.preferans.v1 import audit_pb2_grpc
from tests.e2e.conftest import ServerFactory, ServerThread
from tests.e2e.helpers import refused
from tests.integration.helpers import events_table, rewrite_stored_state, stored_state

SECRET = "s3cret-for-auditors"
AUDITOR = (("authorization", f"Bearer auditor:{SECRET}"),)
PLAYERS = ["ann", "bob", "cid"]


@pytest.fixture
def audited(
    store: StoreConfig, start_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> ServerThread:
    """A server started with an auditor credential (from ``PREF_AUDITOR_TOKEN``)."""
    monkeypatch.setenv("PREF_AUDITOR_TOKEN", SECRET)
    return start_server(store)


def stubs(server: ServerThread) -> tuple[GameClient, Any]:
    client = GameClient(server.address)
    return client, audit_pb2_grpc.AuditServiceStub(client.channel)


def finished_game(client: GameClient) -> tuple[str, list[str]]:
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    play_with_bots(client, created.game.name, created.seat_tokens)
    return created.game.name, list(created.seat_tokens)


def game_with_a_card_played(
    client: GameClient, app: PreferansApplication
) -> tuple[str, uuid.UUID, int]:
    """A finished game and the version of its last CardPlayed. The bots' game is random: a
    short one may have had no card played at all (every contract passed out by its defenders),
    so draw another game then."""
    for _ in range(20):
        name, _tokens = finished_game(client)
        game_id = uuid.UUID(name.removeprefix("games/"))
        played = [
            e.originator_version
            for e in app.game_events(game_id)
            if type(e).__name__ == "CardPlayed"
        ]
        if played:
            return name, game_id, played[-1]
    raise AssertionError("20 games without a card played")


def seat(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def test_verify_and_read_the_log_as_auditor(audited: ServerThread) -> None:
    client, audit = stubs(audited)
    try:
        name, _ = finished_game(client)
        answer = audit.VerifyGame(apb.VerifyGameRequest(name=name), metadata=AUDITOR)
        assert answer.verdict == apb.AUDIT_VERDICT_VERIFIED, answer.summary
        assert answer.finished and not answer.HasField("discrepancy")
        sheet = client.scoresheet(name)
        assert list(answer.settlement) == list(sheet.settlement)
        assert answer.summary.startswith(f"verified: {answer.events} events, {answer.deals} deals")

        entries: list[apb.EventLogEntry] = []
        token = ""
        pages = 0
        while True:
            page = audit.GetEventLog(
                apb.GetEventLogRequest(name=name, page_size=40, page_token=token),
                metadata=AUDITOR,
            )
            assert len(page.entries) <= 40
            entries.extend(page.entries)
            pages += 1
            token = page.next_page_token
            if not token:
                break
        assert [e.version for e in entries] == list(range(1, answer.events + 1))
        assert pages == -(-answer.events // 40)
        assert entries[-1].chain == answer.chain_head
        assert all(len(e.chain) == 64 and not e.decode_error for e in entries)
        created = json.loads(entries[0].fields_json)
        assert entries[0].topic == "preferans.v1.GameCreated"
        assert created["players"] == PLAYERS and len(created["token_hashes"]) == 3
        dealt = json.loads(entries[1].fields_json)
        assert len(dealt["hands"]) == 3 and len(dealt["deck"]) == 32  # unredacted

        bad = refused(
            audit.GetEventLog,
            apb.GetEventLogRequest(name=name, page_token="not-a-token"),
            metadata=AUDITOR,
        )
        assert bad.code is grpc.StatusCode.INVALID_ARGUMENT and bad.fields == ["page_token"]
        big = refused(
            audit.GetEventLog, apb.GetEventLogRequest(name=name, page_size=5000), metadata=AUDITOR
        )
        assert big.code is grpc.StatusCode.INVALID_ARGUMENT and big.fields == ["page_size"]
        missing = refused(
            audit.VerifyGame, apb.VerifyGameRequest(name=f"games/{uuid.uuid4()}"), metadata=AUDITOR
        )
        assert missing.code is grpc.StatusCode.NOT_FOUND
        malformed = refused(audit.VerifyGame, apb.VerifyGameRequest(name="x"), metadata=AUDITOR)
        assert malformed.code is grpc.StatusCode.INVALID_ARGUMENT
    finally:
        client.close()


def test_tampering_is_reported_through_the_api(
    audited: ServerThread,
    store: StoreConfig,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    client, audit = stubs(audited)
    try:
        app = open_app(store)
        name, game_id, version = game_with_a_card_played(client, app)
        state = stored_state(app, game_id, version)
        state["card"] = "A♥" if state["card"] != "A♥" else "K♥"
        rewrite_stored_state(store.env, events_table(app), game_id, version, state)
        answer = audit.VerifyGame(apb.VerifyGameRequest(name=name), metadata=AUDITOR)
        assert answer.verdict == apb.AUDIT_VERDICT_DISCREPANCY
        found = answer.discrepancy
        assert (found.version, found.topic, found.kind) == (version, "CardPlayed", "chain")
        assert answer.summary == found.message
        assert found.message.startswith(f"event {version} (CardPlayed): the stored chain")
    finally:
        client.close()


def test_a_malformed_stored_event_is_a_discrepancy_not_an_error(
    audited: ServerThread,
    store: StoreConfig,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    """A stored event that decodes but lacks its fields (issue 9, item 9): VerifyGame answers
    with the discrepancy at its position (not INTERNAL), and GetEventLog still reads the log."""
    client, audit = stubs(audited)
    try:
        app = open_app(store)
        name, game_id, version = game_with_a_card_played(client, app)
        rewrite_stored_state(store.env, events_table(app), game_id, version, {"seat": 1})
        answer = audit.VerifyGame(apb.VerifyGameRequest(name=name), metadata=AUDITOR)
        assert answer.verdict == apb.AUDIT_VERDICT_DISCREPANCY
        found = answer.discrepancy
        assert (found.version, found.topic, found.kind) == (version, "CardPlayed", "unreadable")
        assert found.message.startswith(f"event {version} (CardPlayed): the stored event cannot")
        page = audit.GetEventLog(
            apb.GetEventLogRequest(name=name, page_size=1000), metadata=AUDITOR
        )
        entry = page.entries[version - 1]
        assert entry.version == version and entry.decode_error
    finally:
        client.close()


def test_only_the_auditor_may_audit(
    audited: ServerThread,
    start_server: ServerFactory,
    store: StoreConfig,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client, audit = stubs(audited)
    try:
        created = client.create_game(PLAYERS, RuleSet(pool_target=2))
        name = created.game.name
        verify = apb.VerifyGameRequest(name=name)
        log = apb.GetEventLogRequest(name=name)
        export = apb.ExportHandRecordRequest(name=name)
        for call, request in ((audit.VerifyGame, verify), (audit.GetEventLog, log)):
            assert refused(call, request).code is grpc.StatusCode.UNAUTHENTICATED
            for token in created.seat_tokens:
                denied = refused(call, request, metadata=seat(token))
                assert denied.code is grpc.StatusCode.PERMISSION_DENIED
                assert "auditor" in denied.message
            wrong = refused(call, request, metadata=(("authorization", "Bearer auditor:nope"),))
            assert wrong.code is grpc.StatusCode.UNAUTHENTICATED
        # Hand records: the auditor at any time; a seat of the game only once it has ended.
        assert refused(audit.ExportHandRecord, export).code is grpc.StatusCode.UNAUTHENTICATED
        early = refused(audit.ExportHandRecord, export, metadata=seat(created.seat_tokens[0]))
        assert early.code is grpc.StatusCode.PERMISSION_DENIED
        play_with_bots(client, name, created.seat_tokens)
        other = client.create_game(PLAYERS, RuleSet(pool_target=2))
        stranger = refused(audit.ExportHandRecord, export, metadata=seat(other.seat_tokens[0]))
        assert stranger.code is grpc.StatusCode.PERMISSION_DENIED
        text = audit.ExportHandRecord(
            apb.ExportHandRecordRequest(name=name, format=apb.HAND_RECORD_FORMAT_TEXT),
            metadata=seat(created.seat_tokens[1]),
        ).text
        assert text.strip()
        record = audit.ExportHandRecord(export, metadata=AUDITOR).text
        assert json.loads(record)
    finally:
        client.close()
    # A server without an auditor credential refuses every audit call.
    monkeypatch.delenv("PREF_AUDITOR_TOKEN")
    bare = start_server(store)
    client, audit = stubs(bare)
    try:
        answer = refused(audit.VerifyGame, apb.VerifyGameRequest(name=name), metadata=AUDITOR)
        assert answer.code is grpc.StatusCode.UNAUTHENTICATED
        assert "PREF_AUDITOR_TOKEN" in answer.message
    finally:
        client.close()
