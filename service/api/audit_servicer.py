"""The ``AuditService`` servicer: the auditor's independent checks of a game's log.

Every call needs the auditor credential, ``authorization: Bearer auditor:<secret>``, checked
against the secret the server was started with (``PREF_AUDITOR_TOKEN`` or ``pref serve
--auditor-token``); ``ExportHandRecord`` also accepts a seat token of the game once it has
ended. No credential → UNAUTHENTICATED; a seat token (or anything else) → PERMISSION_DENIED.
The work runs in the application's thread pool (``service.app.audit``); errors become statuses in
``service.api.errors``.
"""

from __future__ import annotations

import hmac
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from domain.audit import UNCHAINED, AuditReport
from service.api.auth import AUDITOR_PREFIX, bearer_token, verify_async
from service.api.errors import BadInput, PermissionDenied, Unauthenticated
from service.api.game_servicer import Delegating, refusing
from service.api.mapping import (
    adjustment_from_proto,
    flag_to_proto,
    parse_game_name,
    ruling_to_proto,
    scoresheet_to_proto,
)
from service.api.pagetoken import PageTokens, fill_page, page_size
from service.app.application import PreferansApplication
from service.app.audit import LogEntry, event_log, verify_game
from service.gen.preferans.v1 import audit_pb2 as pb
from service.gen.preferans.v1 import audit_pb2_grpc

AUDITOR_LABEL = "auditor"
"""Who ruled, as a ruling records it (the server has one auditor credential)."""
DEFAULT_PAGE_SIZE = 200
MAX_PAGE_SIZE = 1000
EVENT_LOG_TOKEN = "event-log"
FORMATS = {
    pb.HAND_RECORD_FORMAT_UNSPECIFIED: "json",
    pb.HAND_RECORD_FORMAT_JSON: "json",
    pb.HAND_RECORD_FORMAT_TEXT: "text",
}


class AuditServicer(Delegating, audit_pb2_grpc.AuditServiceServicer):
    def __init__(
        self,
        app: PreferansApplication,
        executor: ThreadPoolExecutor,
        auditor_token: str | None,
        page_tokens: PageTokens | None = None,
    ) -> None:
        self.app = app
        self.executor = executor
        self.page_tokens = page_tokens or PageTokens.random()
        self.auditor_token = auditor_token or None
        self.after_write: Callable[[uuid.UUID], None] | None = None
        """Called after a ruling is recorded (wakes the game's watchers and projections)."""

    # -- plumbing -------------------------------------------------------------------------

    def _is_auditor(self, token: str | None) -> bool:
        """True for the auditor credential; raises for none or a wrong auditor secret."""
        if token is None:
            raise Unauthenticated(
                "the audit API needs the auditor credential: "
                "send 'authorization: Bearer auditor:<secret>'"
            )
        if not token.startswith(AUDITOR_PREFIX):
            return False
        if self.auditor_token is None:
            raise Unauthenticated(
                "this server has no auditor credential configured (PREF_AUDITOR_TOKEN)"
            )
        secret = token[len(AUDITOR_PREFIX) :].encode()
        if not hmac.compare_digest(secret, self.auditor_token.encode()):
            raise Unauthenticated("the auditor credential is not valid")
        return True

    def _auditor(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        if not self._is_auditor(bearer_token(context.invocation_metadata())):
            raise PermissionDenied(
                "the audit API is for auditors: a seat token (or any other credential) "
                "cannot use it"
            )

    # -- methods --------------------------------------------------------------------------

    @refusing
    async def VerifyGame(  # noqa: N802 (the proto's method name)
        self, request: pb.VerifyGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.VerifyGameResponse:
        """Reads the stored events (``service.app.audit``): no aggregate, no projection."""
        self._auditor(context)
        game_id = parse_game_name(request.name)
        report = await self._run(verify_game, self.app, game_id)
        return report_to_proto(report)

    @refusing
    async def GetEventLog(  # noqa: N802 (the proto's method name)
        self, request: pb.GetEventLogRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetEventLogResponse:
        """Reads the stored events themselves (``service.app.audit.event_log``)."""
        self._auditor(context)
        game_id = parse_game_name(request.name)
        size = page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        position = self.page_tokens.decode(request.page_token, EVENT_LOG_TOKEN, (str(game_id),))
        after = 0 if position is None else int(position[0] or 0)

        def read() -> tuple[list[Any], bool, Any]:
            entries, more = event_log(self.app, game_id, after, size)
            page = fill_page(
                entries, size, entry_to_proto, lambda e: e.ByteSize(), oversized_alone=True
            )
            return entries, more, page

        entries, more, page = await self._run(read)  # one trip to the thread pool
        last = page.last if page.more else (entries[-1] if entries else None)
        token = ""
        if (page.more or more) and last is not None:
            token = self.page_tokens.encode(EVENT_LOG_TOKEN, (str(game_id),), [last.version])
        return pb.GetEventLogResponse(entries=page.messages, next_page_token=token)

    @refusing
    async def ExportHandRecord(  # noqa: N802 (the proto's method name)
        self, request: pb.ExportHandRecordRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ExportHandRecordResponse:
        """Reads the game's events (the hand record is built from them); a seat's export first
        reads the aggregate to see that the game has ended."""
        game_id = parse_game_name(request.name)
        token = bearer_token(context.invocation_metadata())
        if not self._is_auditor(token):
            caller = await verify_async(self.app, token)  # a JWT's keys, revocations: off the loop
            if caller.player_id is None:
                caller.seat_in(game_id)  # before any read: no token, or another game's token
            game = await self._run(self.app.get_game, game_id)
            caller.seat_at(game_id, game.players)  # a player: PERMISSION_DENIED where not seated
            if not game.finished:
                raise PermissionDenied(
                    "a seat may export the hand record once the game has ended; "
                    "until then only auditors may"
                )
        fmt = FORMATS.get(request.format)
        if fmt is None:
            raise BadInput("format", f"unknown format {request.format}")
        if request.deal_number < 0:
            raise BadInput("deal_number", "deal_number must be 0 (the whole game) or a deal")
        deal = request.deal_number or None
        text = await self._run(_export, self.app, game_id, deal, fmt)
        return pb.ExportHandRecordResponse(text=text)

    @refusing
    async def RecordRuling(  # noqa: N802 (the proto's method name)
        self, request: pb.RecordRulingRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.RecordRulingResponse:
        """A command on the aggregate; the scoresheet it returns is the aggregate's after it."""
        self._auditor(context)
        game_id = parse_game_name(request.name)
        adjustment = adjustment_from_proto(request.adjustment)
        result = await self._run(
            lambda: self.app.record_ruling(
                game_id,
                request.deal_number,
                request.reason,
                adjustment,
                request.request_id,
                AUDITOR_LABEL,
                scoresheet_to_proto,
            )
        )
        if not result.replayed and self.after_write is not None:
            self.after_write(game_id)
        return pb.RecordRulingResponse(
            version=result.version, replayed=result.replayed, scoresheet=result.answer
        )


def _export(app: PreferansApplication, game_id: uuid.UUID, deal: int | None, fmt: str) -> str:
    from service.app.handrecord import export_game_record

    try:
        return export_game_record(app, game_id, deal, fmt)
    except ValueError as exc:
        raise BadInput("deal_number" if deal is not None else "format", str(exc)) from None


def report_to_proto(report: AuditReport) -> pb.VerifyGameResponse:
    found = report.discrepancy
    if found is None:
        verdict = pb.AUDIT_VERDICT_VERIFIED
    elif found.kind == UNCHAINED:
        verdict = pb.AUDIT_VERDICT_UNCHAINED
    else:
        verdict = pb.AUDIT_VERDICT_DISCREPANCY
    response = pb.VerifyGameResponse(
        verdict=verdict,
        summary=report.summary,
        events=report.events,
        deals=report.deals,
        finished=report.finished,
        settlement=report.settlement or [],
        chain_head=report.chain_head,
        flags=[flag_to_proto(f) for f in report.flags],
        rulings=[ruling_to_proto(r) for r in report.rulings],
        aborted=report.aborted,
        money_cents=report.money or [],
    )
    if found is not None:
        response.discrepancy.CopyFrom(
            pb.Discrepancy(
                version=found.version, topic=found.topic, kind=found.kind, message=found.message
            )
        )
    return response


def entry_to_proto(entry: LogEntry) -> pb.EventLogEntry:
    return pb.EventLogEntry(
        version=entry.version,
        topic=entry.topic,
        timestamp=entry.timestamp,
        fields_json=entry.fields_json,
        chain=entry.chain,
        decode_error=entry.decode_error,
    )
