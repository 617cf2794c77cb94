"""Log lines never hold unbounded client input, hidden cards or credentials (issue 9, item 5).

The processor chain is the server's own (``service.api.logs.processors``), rendered to JSON into a
buffer, so what is checked is what the server would write."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import structlog

from domain.rules.errors import IllegalAction, InvalidAction
from service.api import logs
from service.api.errors import BadInput, refuse

HAND = "you must follow ♠: you hold 7♠ Q♠"


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """Every log line written while the test runs, as the server renders them (JSON)."""
    buffer = io.StringIO()
    structlog.configure(
        processors=logs.processors(json=True),
        logger_factory=structlog.PrintLoggerFactory(file=buffer),
        cache_logger_on_first_use=False,
    )
    try:
        yield buffer
    finally:
        structlog.reset_defaults()


def written(buffer: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def test_every_string_is_bounded_and_escaped(lines: io.StringIO) -> None:
    structlog.get_logger("t").info(
        "something", name="N" * 100_000, nested={"deep": ["x" * 5000]}, raw=b"\x00" * 9000
    )
    [line] = written(lines)
    text = lines.getvalue()
    assert len(text) < 2000
    assert line["name"].startswith("N" * 200) and "100000 chars" in line["name"]
    assert "x" * 300 not in text


def test_credentials_are_never_written(lines: io.StringIO) -> None:
    structlog.get_logger("t").info(
        "call", authorization="Bearer auditor:hunter2", seat_tokens=["abc.def"], token="abc.def"
    )
    text = lines.getvalue()
    assert "hunter2" not in text and "abc.def" not in text
    assert written(lines)[0]["authorization"] == "[redacted]"


def test_control_characters_do_not_break_a_console_line() -> None:
    buffer = io.StringIO()
    structlog.configure(
        processors=logs.processors(json=False),
        logger_factory=structlog.PrintLoggerFactory(file=buffer),
        cache_logger_on_first_use=False,
    )
    try:
        structlog.get_logger("t").info("refused", name="a\nfake line\u202eb\x00")
    finally:
        structlog.reset_defaults()
    assert buffer.getvalue().count("\n") == 1
    assert "\u202e" not in buffer.getvalue() and "\x00" not in buffer.getvalue()


def test_a_long_traceback_is_bounded(lines: io.StringIO) -> None:
    try:
        raise KeyError("k" * 100_000)
    except KeyError:
        structlog.get_logger("t").exception("unexpected error")
    [line] = written(lines)
    assert len(line["exception"]) <= logs.MAX_LOGGED_TRACEBACK + 40
    assert "KeyError" in line["exception"]


class FakeContext:
    """Just enough of a servicer context for ``refuse``."""

    async def abort_with_status(self, status: Any) -> None:
        raise grpc.aio.AbortError()

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise grpc.aio.AbortError()


def refused_log(error: BaseException, lines: io.StringIO) -> dict[str, Any]:
    with pytest.raises(grpc.aio.AbortError):
        asyncio.run(refuse(FakeContext(), error))  # type: ignore[arg-type]
    [line] = written(lines)
    lines.seek(0)
    lines.truncate()
    return line


def test_an_illegal_play_is_logged_without_the_hand(lines: io.StringIO) -> None:
    line = refused_log(IllegalAction(HAND, allowed=()), lines)
    assert "7♠" not in json.dumps(line, ensure_ascii=False) and "hold" not in json.dumps(line)
    assert line["code"] == "FAILED_PRECONDITION"
    assert line["kind"] == "IllegalAction"


def test_a_refusal_of_malformed_input_names_the_field_briefly(lines: io.StringIO) -> None:
    line = refused_log(BadInput("name", "n" * 3_000_000), lines)
    assert line["field"] == "name" and line["code"] == "INVALID_ARGUMENT"
    assert len(json.dumps(line)) < 1000
    line = refused_log(InvalidAction("not a card", field="action.play_card"), lines)
    assert line["field"] == "action.play_card" and line["reason"] == "not a card"


def test_a_client_request_id_header_is_used_only_when_it_is_a_good_one() -> None:
    assert logs.request_id_from([("x-request-id", "abc-123")]) == "abc-123"
    for bad in ["r" * 100_000, "a\x00b", "\u202eevil", ""]:
        chosen = logs.request_id_from([("x-request-id", bad)])
        assert chosen != bad and len(chosen) == 32
    assert len(logs.request_id_from(None)) == 32
