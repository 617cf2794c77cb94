"""Stored games of four and five players (issue 13; RULES.md §3.6) on both stores: the audit
verifies their logs from the stored rows, their hand records export, import and verify (JSON and
text), and one deal alone verifies too."""

from __future__ import annotations

import random
import uuid
from fractions import Fraction
from pathlib import Path

import pytest

from domain.rules.seats import hand_seats
from domain.rules.systems import rule_set
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.handrecord import export_game_record, import_record
from service.cli import main
from tests.integration.helpers import play, random_policy

PLAYER_IDS = ("ann", "bob", "cid", "dan", "eve")


@pytest.mark.parametrize("players", [4, 5])
def test_a_stored_game_of_four_or_five_audits_and_exports(
    app: PreferansApplication, players: int, tmp_path: Path
) -> None:
    rules = rule_set("default").with_options(players=players, pool_target=4)
    created = app.create_game(PLAYER_IDS[:players], f"create-{uuid.uuid4()}", rules=rules)
    play(app, created.game_id, random_policy(random.Random(players), bot_share=0.0))
    game = app.get_game(created.game_id)
    assert game.finished

    report = verify_game(app, created.game_id)
    assert report.verified, report.summary
    assert report.settlement is not None and report.settlement == game.settlement
    assert sum(Fraction(v) for v in report.settlement) == 0

    text = export_game_record(app, created.game_id, None, "json")
    rec, verdict = import_record(text)
    assert verdict.consistent, verdict.message
    assert rec["version"] == 3 and rec["players"] == list(PLAYER_IDS[:players])
    assert verdict.deals == game.state.deal_number
    for deal in rec["deals"]:
        assert deal["hand_seats"] == list(hand_seats(deal["dealer"], players))
        assert len(deal["sitters"]) == players - 3
        assert all(deal["hands"][s] == "" for s in deal["sitters"])
    one, alone = import_record(export_game_record(app, created.game_id, verdict.deals, "json"))
    assert alone.consistent, alone.message
    assert [d["number"] for d in one["deals"]] == [verdict.deals]

    readable = export_game_record(app, created.game_id, None, "text")
    assert readable.count("Sitting   ") == verdict.deals
    assert f'[Seat {"ABCDE"[players - 1]} "{PLAYER_IDS[players - 1]}"]' in readable

    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    assert main(["import", str(path)]) == 0
