"""Hand records of games with flags and rulings (issue 16, docs/HANDRECORD.md version 3), on
both stores: export → import → verify round trips with a ruling during the game (mid-deal and
between deals) and after its end, and the record's settlement after the rulings.

The three defects of issue 16 each have a test here: a record exported after a ruling showed
the old settlement; a game with a mid-game ruling failed its own import ("the sheet before it is
not what the deals before it wrote"); after a post-game ruling the record kept the old settlement
and import still said "consistent"."""

from __future__ import annotations

import copy
import json
import uuid
from typing import Any

from domain.handrecord import parse_record, verify_record
from domain.model.codec import settlement_to_strings
from domain.rules import settle
from service.app.application import PreferansApplication
from service.app.handrecord import export_game_record, game_record, import_record
from tests.integration.helpers import play
from tests.integration.test_disputes import AFTER, DURING, game_with_a_scored_deal

MID = {"gora": [0, -2, 2], "whists": [[0, 0, 1], [0, 0, 0], [0, 4, 0]]}


def ruled_game(app: PreferansApplication) -> uuid.UUID:
    """A finished game with: a flag and an adjusting ruling on deal 1 recorded while deal 2 was
    in progress, a "no change" ruling later in the game, then after the end a flag, a "no
    change" ruling and an adjusting ruling on deal 1 (which changes the settlement)."""
    game_id = game_with_a_scored_deal(app)
    app.flag_deal(game_id, 1, 1, "the declarer's tricks were miscounted", "flag-1")
    app.record_ruling(game_id, 1, "two tricks to the defence", DURING, "rule-1")
    # A few decisions of the next deal, then a ruling in the middle of it.
    play(app, game_id, stop=lambda g: g.deal is not None and len(g.deal.auction.calls) >= 2)
    game = app.get_game(game_id)
    if not game.finished:
        app.record_ruling(game_id, 1, "a second look: one more trick", MID, "rule-mid")
    play(app, game_id, prefix="rest")
    game = app.get_game(game_id)
    assert game.finished
    deals = len(game.deal_results)
    app.flag_deal(game_id, 2, deals, "the talon was wrong", "flag-2")
    app.record_ruling(game_id, deals, "the play was correct", None, "rule-2")
    app.record_ruling(game_id, 1, "a revoke in trick 4", AFTER, "rule-3")
    return game_id


def exported(app: PreferansApplication, game_id: uuid.UUID) -> dict[str, Any]:
    rec: dict[str, Any] = json.loads(export_game_record(app, game_id, None, "json"))
    return rec


def check(rec: dict[str, Any]) -> Any:
    return verify_record(parse_record(json.dumps(rec, ensure_ascii=False)))


def test_the_export_after_a_ruling_shows_the_settlement_after_it(
    app: PreferansApplication,
) -> None:
    game_id = ruled_game(app)
    game = app.get_game(game_id)
    rec = exported(app, game_id)
    assert game.settlement == settlement_to_strings(settle(game.state.sheet, game.rule_set))
    assert rec["settlement"] == game.settlement
    # The settlement as the game ended is kept beside it, and the last ruling recorded it.
    finished = [e for e in app.game_events(game_id) if type(e).__name__ == "GameFinished"]
    assert rec["settlement_at_end"] == list(finished[0].settlement)
    assert rec["settlement_at_end"] != rec["settlement"]
    assert rec["rulings"][-1]["settlement"] == game.settlement


def test_a_game_with_rulings_during_and_after_it_round_trips(app: PreferansApplication) -> None:
    game_id = ruled_game(app)
    game = app.get_game(game_id)
    text = export_game_record(app, game_id, None, "json")
    rec, verdict = import_record(text)
    assert verdict.consistent, verdict.message
    assert rec["version"] == 3
    assert [r["adjustment"] for r in rec["rulings"]] == [r["adjustment"] for r in game.rulings]
    assert [(f["seat"], f["deal_number"]) for f in rec["flags"]] == [
        (f["seat"], f["deal_number"]) for f in game.flags
    ]
    first, *_, last = rec["rulings"]
    assert (first["after_deal"], first["after_end"]) == (1, False)
    assert last["after_end"] and last["after_deal"] == len(rec["deals"])
    assert rec["rulings"][0]["auditor"] == "auditor"
    # The next deal is dealt in the save that scores one, so both rulings made during the game
    # came while deal 2 was being played (the second after two calls of its auction).
    during = [r["reason"] for r in rec["rulings"] if r["during_deal"]]
    assert during[0] == "two tricks to the defence"
    assert during[1:] in ([], ["a second look: one more trick"])
    assert {r["after_deal"] for r in rec["rulings"] if r["during_deal"]} == {1}
    # Every deal alone verifies too (its sheet before holds what was ruled before it).
    for number in range(1, len(rec["deals"]) + 1):
        _, alone = import_record(export_game_record(app, game_id, number, "json"))
        assert alone.consistent, (number, alone.message)
    # The text form shows the flags, the rulings and both settlements.
    shown = export_game_record(app, game_id, None, "text")
    assert "Ruling" in shown and "a revoke in trick 4" in shown
    assert "Flag" in shown and "the talon was wrong" in shown
    settled = game.settlement or []
    assert f'[Settlement "A {settled[0]} B {settled[1]} C {settled[2]}"]' in shown
    assert "[SettlementAtEnd" in shown and "[Date " in shown and '[Event "disputes' in shown


def test_a_post_game_ruling_left_out_or_changed_is_a_discrepancy(
    app: PreferansApplication,
) -> None:
    game_id = ruled_game(app)
    rec = exported(app, game_id)
    assert check(rec).consistent

    dropped = copy.deepcopy(rec)
    dropped["rulings"].pop()  # the last ruling, after the end, changed the settlement
    verdict = check(dropped)
    assert not verdict.consistent
    assert "settlement" in verdict.message

    changed = copy.deepcopy(rec)
    changed["rulings"][-1]["adjustment"]["gora"] = [0, 5, 0]
    verdict = check(changed)
    assert not verdict.consistent and "settlement" in verdict.message

    mid = copy.deepcopy(rec)
    mid["rulings"][0]["adjustment"] = None  # the ruling during the game changed later sheets
    verdict = check(mid)
    assert not verdict.consistent
    # The deal after it shows it (its sheet before), or, when the game ended with deal 2 (the
    # deal it was made in), the settlement at the end does.
    later = "sheet before" if len(rec["deals"]) > 2 else "settlement at the end"
    assert later in verdict.message

    early = copy.deepcopy(rec)
    early["rulings"][0]["after_deal"] = 0  # a ruling on deal 1 before deal 1 was scored
    verdict = check(early)
    assert not verdict.consistent and "before deal 1 was scored" in verdict.message


def test_a_record_without_rulings_still_reads_as_version_2(app: PreferansApplication) -> None:
    game_id = game_with_a_scored_deal(app)
    play(app, game_id)
    rec = exported(app, game_id)
    old = {
        k: v
        for k, v in rec.items()
        if k not in ("flags", "rulings", "settlement_at_end", "tags", "system", "options")
    }
    old["version"] = 2
    for deal in old["deals"]:
        for step in deal["actions"]:
            step.pop("hand", None)
    back, verdict = import_record(json.dumps(old, ensure_ascii=False))
    assert verdict.consistent, verdict.message
    assert back["version"] == 3 and back["rulings"] == [] and back["flags"] == []
    assert back["settlement_at_end"] == back["settlement"] == rec["settlement"]


def test_a_mid_game_ruling_exported_before_the_end_verifies(app: PreferansApplication) -> None:
    game_id = game_with_a_scored_deal(app)
    app.record_ruling(game_id, 1, "two tricks to the defence", DURING, "rule-1")
    play(app, game_id, stop=lambda g: len(g.deal_results) >= 3 or g.finished)
    rec = game_record(app, game_id)
    verdict = verify_record(rec)
    assert verdict.consistent, verdict.message


def test_the_replay_of_a_ruled_game_goes_both_ways_and_ends_with_the_settlement(
    app: PreferansApplication,
) -> None:
    """Replay backwards equals replay forwards at every position of a whole stored game with
    flags and rulings (``tests/unit/test_replay.py`` does the same for one deal)."""
    from tests.unit.test_replay import walk_both_ways

    game_id = ruled_game(app)
    rec = game_record(app, game_id)
    forward, backward = walk_both_ways(rec)
    assert backward == list(reversed(forward))
    decisions = sum(len(d["actions"]) for d in rec["deals"])
    disputes = len(rec["flags"]) + len(rec["rulings"])
    assert len(forward) == decisions + 2 * len(rec["deals"]) + disputes + 1
    assert "a revoke in trick 4" in forward[-2] and "settlement now" in forward[-2]
    last = forward[-1]
    assert "Settlement" in last
    for value in (*rec["settlement"], *rec["settlement_at_end"]):
        assert value in last


def test_pref_export_sets_the_tags_and_pref_replay_steps_back(
    app: PreferansApplication,
    store_env: dict[str, str],
    tmp_path: Any,
    capsys: Any,
    monkeypatch: Any,
) -> None:
    from service.cli import main as pref
    from tests.integration.helpers import store_argument

    game_id = ruled_game(app)
    out = tmp_path / "game.json"
    store = store_argument(store_env)
    args = ["export", str(game_id), "--store", store, "--out", str(out)]
    assert pref([*args, "--event", "Club cup", "--site", "Odesa", "--round", "3"]) == 0
    rec, verdict = import_record(out.read_text(encoding="utf-8"))
    assert verdict.consistent, verdict.message
    assert rec["tags"]["event"] == "Club cup" and rec["tags"]["site"] == "Odesa"
    assert rec["tags"]["round"] == "3" and rec["tags"]["date"] is not None
    assert pref([*args, "--round", "x" * 201]) == 1
    assert "the round tag must be 1 to 200 printable characters" in capsys.readouterr().err
    answers = iter(["p 5", "b", "q"])
    monkeypatch.setattr("builtins.input", lambda _: next(answers))
    assert pref(["replay", str(game_id), "--store", store, "--step"]) == 0
    shown = capsys.readouterr().out
    assert "#5/" in shown and "#4/" in shown
