"""End to end (SQLite and PostgreSQL): a seat flags a scored deal with ``GameService.FlagDeal``,
the auditor rules with ``AuditService.RecordRuling`` (during the game and after it), the
scoresheet shows the rulings and the adjusted totals and settlement, the audit lists them; a
seat token cannot rule, and a refused ruling records nothing (docs/AUDIT.md, "Disputes")."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import grpc
import pytest

from domain.rules import RuleSet
from service.app.config import StoreConfig
from service.cli.botplay import play_with_bots
from service.client import GameClient
from service.gen.preferans.v1 import audit_pb2 as apb
from service.gen.preferans.v1 import audit_pb2_grpc
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerFactory, ServerThread
from tests.e2e.helpers import refused

SECRET = "s3cret-for-rulings"
AUDITOR = (("authorization", f"Bearer auditor:{SECRET}"),)
PLAYERS = ["ann", "bob", "cid"]


class _Scored(Exception):
    """Stops the bots once the first deal has been scored."""


@pytest.fixture
def audited(
    store: StoreConfig, start_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> ServerThread:
    monkeypatch.setenv("PREF_AUDITOR_TOKEN", SECRET)
    return start_server(store)


def seat(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def rows(gora: list[int], whists: list[list[int]]) -> list[pb.ScoresheetRow]:
    return [pb.ScoresheetRow(seat=s, gora=gora[s], whists=whists[s]) for s in range(3)]


def totals(sheet: pb.Scoresheet) -> tuple[list[int], list[list[int]], list[int]]:
    ordered = sorted(sheet.totals, key=lambda r: r.seat)
    return (
        [r.gora for r in ordered],
        [list(r.whists) for r in ordered],
        [r.pool for r in ordered],
    )


def plus(
    before: tuple[list[int], list[list[int]], list[int]], gora: list[int], whists: list[list[int]]
) -> tuple[list[int], list[list[int]], list[int]]:
    return (
        [a + b for a, b in zip(before[0], gora, strict=True)],
        [
            [a + b for a, b in zip(r, d, strict=True)]
            for r, d in zip(before[1], whists, strict=True)
        ],
        before[2],
    )


def test_flag_and_rulings_through_grpc(audited: ServerThread) -> None:
    client = GameClient(audited.address)
    audit: Any = audit_pb2_grpc.AuditServiceStub(client.channel)
    try:
        created = client.create_game(PLAYERS, RuleSet(pool_target=2))
        name, tokens = created.game.name, list(created.seat_tokens)

        def flag(deal: int, reason: str, request_id: str, token: str) -> pb.FlagDealResponse:
            request = pb.FlagDealRequest(
                name=name, deal_number=deal, reason=reason, request_id=request_id
            )
            answer: pb.FlagDealResponse = client.stub.FlagDeal(request, metadata=seat(token))
            return answer

        early = refused(
            client.stub.FlagDeal,
            pb.FlagDealRequest(name=name, deal_number=1, reason="why", request_id="f0"),
            metadata=seat(tokens[0]),
        )
        assert early.code is grpc.StatusCode.INVALID_ARGUMENT and early.fields == ["deal_number"]
        anonymous = refused(
            client.stub.FlagDeal,
            pb.FlagDealRequest(name=name, deal_number=1, reason="why", request_id="f0"),
        )
        assert anonymous.code is grpc.StatusCode.UNAUTHENTICATED

        def stop_when_scored(version: int) -> None:
            if client.scoresheet(name, min_version=version).deals:
                raise _Scored

        with pytest.raises(_Scored):
            play_with_bots(client, name, tokens, on_action=stop_when_scored)

        flagged = flag(1, "the defence took two more tricks", "flag-1", tokens[1])
        assert not flagged.replayed
        again = flag(1, "the defence took two more tricks", "flag-1", tokens[1])
        assert again.replayed and again.version == flagged.version

        before = client.scoresheet(name, min_version=flagged.version)
        gora, whists = [2, 0, -1], [[0, 4, 0], [0, 0, 0], [0, 1, 0]]
        ruling = apb.RecordRulingRequest(
            name=name,
            deal_number=1,
            reason="two tricks to the defence",
            adjustment=rows(gora, whists),
            request_id="rule-1",
        )
        # A seat token cannot rule (nor can nobody), and nothing is recorded.
        for token in tokens:
            denied = refused(audit.RecordRuling, ruling, metadata=seat(token))
            assert denied.code is grpc.StatusCode.PERMISSION_DENIED
        assert refused(audit.RecordRuling, ruling).code is grpc.StatusCode.UNAUTHENTICATED
        assert client.get_game(name).version == flagged.version

        ruled = audit.RecordRuling(ruling, metadata=AUDITOR)
        assert not ruled.replayed and ruled.version == flagged.version + 1
        assert totals(ruled.scoresheet) == plus(totals(before), gora, whists)
        (shown,) = ruled.scoresheet.rulings
        assert (shown.deal_number, shown.reason, shown.auditor) == (
            1,
            "two tricks to the defence",
            "auditor",
        )
        assert not shown.no_change and totals(pb.Scoresheet(totals=shown.adjustment)) == (
            gora,
            whists,
            [0, 0, 0],
        )
        assert [(f.seat, f.deal_number) for f in ruled.scoresheet.flags] == [(1, 1)]
        retried = audit.RecordRuling(ruling, metadata=AUDITOR)
        assert retried.replayed and retried.version == ruled.version
        sheet = client.scoresheet(name, min_version=ruled.version)
        assert totals(sheet) == totals(ruled.scoresheet) and len(sheet.rulings) == 1

        # Malformed rulings: INVALID_ARGUMENT, nothing recorded.
        pool = apb.RecordRulingRequest(
            name=name,
            deal_number=1,
            reason="pool",
            adjustment=[pb.ScoresheetRow(seat=s, pool=1, whists=[0, 0, 0]) for s in range(3)],
            request_id="rule-bad",
        )
        bad = refused(audit.RecordRuling, pool, metadata=AUDITOR)
        assert bad.code is grpc.StatusCode.INVALID_ARGUMENT and bad.fields == ["adjustment"]
        unscored = apb.RecordRulingRequest(
            name=name, deal_number=99, reason="later", request_id="rule-bad"
        )
        bad = refused(audit.RecordRuling, unscored, metadata=AUDITOR)
        assert bad.code is grpc.StatusCode.INVALID_ARGUMENT and bad.fields == ["deal_number"]
        assert client.get_game(name).version == ruled.version

        # After the end: "no change", then an adjustment that changes the settlement.
        play_with_bots(client, name, tokens)
        final = client.scoresheet(name, min_version=client.get_game(name).version)
        assert final.settlement
        no_change = audit.RecordRuling(
            apb.RecordRulingRequest(
                name=name, deal_number=1, reason="the play stands", request_id="rule-2"
            ),
            metadata=AUDITOR,
        )
        assert list(no_change.scoresheet.settlement) == list(final.settlement)
        assert no_change.scoresheet.rulings[-1].no_change
        late = audit.RecordRuling(
            apb.RecordRulingRequest(
                name=name,
                deal_number=1,
                reason="a revoke",
                adjustment=rows([0, 0, 3], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]),
                request_id="rule-3",
            ),
            metadata=AUDITOR,
        )
        sheet = client.scoresheet(name, min_version=late.version)
        assert len(sheet.rulings) == 3 and [f.deal_number for f in sheet.flags] == [1]
        assert totals(sheet) == plus(totals(final), [0, 0, 3], [[0] * 3] * 3)
        assert list(sheet.settlement) != list(final.settlement)
        assert sum(Fraction(v) for v in sheet.settlement) == 0
        # Seat 2 took 3 more gora: it loses, the others gain.
        assert Fraction(sheet.settlement[2]) < Fraction(final.settlement[2])

        verified = audit.VerifyGame(apb.VerifyGameRequest(name=name), metadata=AUDITOR)
        assert verified.verdict == apb.AUDIT_VERDICT_VERIFIED, verified.summary
        assert list(verified.settlement) == list(sheet.settlement)
        assert [r.no_change for r in verified.rulings] == [False, True, False]
        assert [f.seat for f in verified.flags] == [1]
        assert "3 rulings" in verified.summary
    finally:
        client.close()
