"""Hand records v3 against malformed and altered files (review rev-b of issue 16): every
refusal is a typed ``HandRecordError``, never a traceback, and what the import checks is what
docs/AUDIT.md says it checks."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from domain.handrecord import HandRecordError, parse_record, verify_record
from service.app.application import PreferansApplication
from service.app.handrecord import export_game_record
from service.cli.replay import HELP, Cursor, Replay, command
from tests.integration.test_handrecord_rulings import ruled_game

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _golden(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / name).read_text("utf-8"))
    return data


@pytest.fixture
def ruled(app: PreferansApplication) -> dict[str, Any]:
    game_id = ruled_game(app)
    rec: dict[str, Any] = json.loads(export_game_record(app, game_id, None, "json"))
    return rec


def _import(rec: dict[str, Any]) -> Any:
    return verify_record(parse_record(json.dumps(rec, ensure_ascii=False)))


@pytest.mark.parametrize(
    ("field", "value"),
    [("dealer", 3), ("dealer", -4), ("dealer", 2**63), ("raspasy_streak", -5)],
)
def test_a_version_2_record_with_a_deal_field_out_of_range_is_refused_not_a_traceback(
    field: str, value: int
) -> None:
    rec = _golden("handrecord_deal_v2.json")
    rec["deals"][0][field] = value
    with pytest.raises(HandRecordError):
        parse_record(json.dumps(rec))


@pytest.mark.parametrize("where", ["ruling", "settlement_at_end", "settlement"])
def test_a_zero_denominator_in_a_settlement_is_refused(ruled: dict[str, Any], where: str) -> None:
    rec = copy.deepcopy(ruled)
    if where == "ruling":
        rec["rulings"][-1]["settlement"] = ["1/0", "0", "0"]
    else:
        rec[where] = ["1/0", "0", "0"]
    with pytest.raises(HandRecordError, match="settlement"):
        parse_record(json.dumps(rec))


@pytest.mark.parametrize("tag", ["event", "site", "round"])
@pytest.mark.parametrize("text", ['Cup"]\n[Result "forged', "a\x00b", "a\u2028b", "a\x85b"])
def test_a_tag_with_a_control_character_is_refused(
    ruled: dict[str, Any], tag: str, text: str
) -> None:
    rec = copy.deepcopy(ruled)
    rec["tags"][tag] = text
    with pytest.raises(HandRecordError, match="tags"):
        parse_record(json.dumps(rec))


def test_a_tag_with_quotes_and_letters_of_any_script_is_kept(ruled: dict[str, Any]) -> None:
    rec = copy.deepcopy(ruled)
    rec["tags"]["event"] = 'Кубок "Сочи" [2026]'
    assert parse_record(json.dumps(rec))["tags"]["event"] == 'Кубок "Сочи" [2026]'


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("flags", [{"seat": 0, "deal_number": 1, "kind": "misdeal", "note": ""}]),
        ("rulings", []),
        ("settlement_at_end", ["0", "0", "0"]),
        ("tags", {"date": None, "event": None, "site": None, "round": None}),
    ],
)
def test_a_version_2_record_carrying_a_version_3_field_is_refused(field: str, value: Any) -> None:
    rec = _golden("handrecord_deal_v2.json")
    rec[field] = value
    with pytest.raises(HandRecordError, match=f"no field '{field}'"):
        parse_record(json.dumps(rec))


def test_replay_commands_with_a_non_ascii_digit_or_trick_0_are_refused(
    ruled: dict[str, Any],
) -> None:
    cursor = Cursor(Replay(parse_record(json.dumps(ruled))))
    assert command(cursor, "d ²") == HELP
    assert command(cursor, "t ٣") == HELP
    before = cursor.index
    assert command(cursor, "t 0") == f"deal {ruled['deals'][0]['number']} has no trick 0"
    assert cursor.index == before


def test_a_finished_game_marked_incomplete_with_an_invented_settlement_is_a_discrepancy(
    ruled: dict[str, Any],
) -> None:
    rec = copy.deepcopy(ruled)
    rec["complete"] = False
    rec["settlement"] = ["100", "-50", "-50"]
    rec["settlement_at_end"] = ["1", "2", "-3"]
    verdict = _import(rec)
    assert not verdict.consistent and "not over" in verdict.message
    rec["settlement"] = rec["settlement_at_end"] = None
    verdict = _import(rec)  # its rulings after the end record settlements nothing checks
    assert not verdict.consistent and "comes after the end" in verdict.message


def test_a_one_deal_record_leaves_out_the_rulings_made_after_the_end(
    app: PreferansApplication,
) -> None:
    game_id = ruled_game(app)
    whole = json.loads(export_game_record(app, game_id, None, "json"))
    late = [r for r in whole["rulings"] if r["after_end"]]
    assert late
    number = late[0]["deal_number"]
    one = json.loads(export_game_record(app, game_id, number, "json"))
    assert not any(r["after_end"] for r in one["rulings"])
    assert [r for r in one["rulings"] if not r["after_end"]] == [
        r
        for r in whole["rulings"]
        if not r["after_end"]
        and (r["deal_number"] == number or (r["during_deal"] and r["after_deal"] == number - 1))
    ]
    assert _import(one).consistent
