"""The referee's replay (``pref replay``, issue 16): forward and back over every position, jumps
to a deal, a trick or a position, who decided each action for which hand, flags and rulings
where they were made, and the final settlement."""

from __future__ import annotations

import copy
from itertools import pairwise
from typing import Any

from rich.console import Console

from service.cli.replay import HELP, Cursor, Replay, command, frames, run_replay
from tests.unit.test_handrecord import golden_record


def screen(renderable: Any) -> str:
    console = Console(record=True, width=120, color_system=None)
    console.print(renderable)
    return console.export_text()


def disputed() -> dict[str, Any]:
    """The golden deal (RULES.md §1.6 outcome 2: A whists alone, open, and plays C's cards)
    with a flag and a ruling after it, as a record of a finished game would list them."""
    rec = copy.deepcopy(golden_record())
    where = {"after_deal": 1, "during_deal": False, "after_end": False}
    rec["flags"] = [{"seat": 2, "deal_number": 1, "reason": "a revoke in trick 3", **where}]
    rec["rulings"] = [
        {
            "deal_number": 1,
            "reason": "the revoke stood: two tricks to B",
            "auditor": "judge",
            "adjustment": {"gora": [0, -2, 0], "whists": [[0, 0, 0], [4, 0, 0], [0, 0, 0]]},
            "settlement": None,
            **where,
        }
    ]
    return rec


def walk_both_ways(rec: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Every position's screen going forward (one decision applied at a time), then going back
    from the last (each table rebuilt from its deal's start)."""
    cursor = Cursor(Replay(rec))
    forward = [screen(cursor.frame())]
    while cursor.forward():
        forward.append(screen(cursor.frame()))
    backward = [screen(cursor.frame())]
    while cursor.back():
        backward.append(screen(cursor.frame()))
    return forward, backward


def test_replay_backwards_equals_replay_forwards_at_every_position() -> None:
    rec = disputed()
    forward, backward = walk_both_ways(rec)
    assert len(forward) == 1 + 39 + 1 + 2  # dealt, each decision, scored, the flag, the ruling
    assert backward == list(reversed(forward))
    # Consecutive decision screens differ: the walk really moved.
    assert all(a != b for a, b in pairwise(forward))


def test_a_card_from_the_partners_open_hand_is_his_hand_decided_by_the_whister() -> None:
    """RULES.md §1.6 outcome 2: the sole whister A plays open and plays C's cards. Decision 10
    is C's K♣, played by A; decision 11 is A's own 7♣."""
    shown = [screen(f) for f in frames(golden_record())]
    assert "Deal 1 · 10. A: K♣ from C's hand (A decides for C)" in shown[10]
    assert "Deal 1 · 11. A: 7♣" in shown[11] and "decides for" not in shown[11]
    assert "Deal 1 · 12. B: 7♠" in shown[12]


def test_flags_and_rulings_are_shown_where_they_were_made_and_on_their_deal() -> None:
    shown = [screen(f) for f in frames(disputed())]
    scored = shown[40]
    assert "Result: game, B 6♠, tricks 1-7-2" in scored
    assert "C flagged deal 1 (after deal 1): a revoke in trick 3" in scored
    assert "ruling by judge on deal 1 (after deal 1)" in scored
    assert "Flag" in shown[41] and "a revoke in trick 3" in shown[41]
    assert "gora B -2; whists B on A +4" in shown[42]


def test_the_final_settlement_after_rulings_beside_the_one_at_the_end() -> None:
    rec = disputed()
    rec["complete"] = True
    rec["settlement_at_end"] = ["1", "2", "-3"]
    rec["settlement"] = ["3", "0", "-3"]
    last = screen(list(frames(rec))[-1])
    assert "Settlement" in last
    assert "A ann" in last and "at the end" in last and "after rulings" in last
    lines = [line.strip("│ ").split() for line in last.splitlines()]
    assert ["A", "ann", "1", "3"] in lines and ["B", "bob", "2", "0"] in lines


def test_jumps_to_a_deal_a_trick_and_a_position() -> None:
    replay = Replay(disputed())
    cursor = Cursor(replay)
    assert command(cursor, "t 1") is None
    assert "Trick  1  C K♣  A 7♣  B 7♠  won by B" in screen(cursor.frame())
    assert "Deal 1 · 12." in screen(cursor.frame())
    assert command(cursor, "t 10") is None
    assert "Trick 10  B 9♠  C 10♣  A A♣  won by B" in screen(cursor.frame())
    assert command(cursor, "d 1") is None and cursor.index == 0
    assert command(cursor, "p 42") is None and "Flag" in screen(cursor.frame())
    assert command(cursor, "b") is None and cursor.index == 40
    assert command(cursor, "t 11") == "deal 1 has no trick 11"
    assert command(cursor, "d 2") == "no deal 2 in this replay"
    assert command(cursor, "p 99") == f"positions are 1 to {len(replay)}"
    assert command(cursor, "jump") == HELP


def test_a_number_int_cannot_read_gets_the_help_not_a_traceback() -> None:
    # "²" is a digit to str.isdigit() but not to int(); 5,000 digits are past int()'s limit.
    cursor = Cursor(Replay(disputed()))
    for text in ("d ²", "t ²", "p " + "9" * 5000):
        assert command(cursor, text) == HELP and cursor.index == 0


def test_run_replay_steps_back_and_forth_and_quits() -> None:
    console = Console(record=True, width=120, color_system=None)
    answers = iter(["", "b", "?", "t 2", "q"])
    assert run_replay(disputed(), console, step=True, read=lambda _: next(answers)) == 0
    out = console.export_text()
    assert out.count("Deal 1 dealt by B") == 2  # the start, and again after going back
    assert "Deal 1 · 1. C: pass" in out
    assert HELP in out
    assert "Trick  2" in out


def test_the_verifier_checks_hands_flags_rulings_and_the_system() -> None:
    """Version 3's new fields are checked, not just carried (docs/HANDRECORD.md,
    "Verification")."""
    from domain.handrecord import verify_record

    def message(rec: dict[str, Any]) -> str:
        verdict = verify_record(rec)
        assert not verdict.consistent
        return verdict.message

    assert verify_record(disputed()).consistent
    rec = disputed()
    del rec["deals"][0]["actions"][9]["hand"]  # C's K♣, played by A
    assert "decision 10 (A: K♣): the record gives the hand as null; it was C's" in message(rec)
    rec = disputed()
    rec["deals"][0]["actions"][10]["hand"] = 2  # A's own 7♣
    assert "decision 11 (A: 7♣): the record gives the hand as 2; it was his own" in message(rec)
    rec = disputed()
    rec["flags"][0]["deal_number"] = 2
    assert message(rec) == "flag 1 is on deal 2, before deal 2 was scored"
    rec = disputed()
    rec["flags"][0]["after_deal"] = 0
    assert message(rec) == "flag 1 is on deal 1, before deal 1 was scored"
    rec = disputed()
    rec["rulings"][0]["reason"] = "  "
    assert message(rec).startswith("ruling 1: the reason must be 1 to 500 printable")
    rec = disputed()
    rec["rulings"][0]["adjustment"]["whists"][0][0] = 3
    assert message(rec).startswith("ruling 1: nobody writes whists on himself")
    rec = disputed()
    rec["rulings"][0]["settlement"] = ["0", "0", "0"]
    assert "exactly when it comes after the end" in message(rec)
    rec = disputed()
    rec["options"] = {"pool_target": 30}
    assert message(rec).startswith('the record names the system "default" with the options')


def test_a_ruling_between_deals_is_applied_before_the_next_deals_sheet() -> None:
    """A stored game deals its next deal in the save that scores one, so a ruling there is
    "during" a deal; a record may still place one between deals (a game waiting for its order,
    or a record written by another tool). The verifier adds it before comparing the next deal's
    sheet before, and a record whose later sheets lack it is a discrepancy."""
    from domain.bots import make_bot
    from domain.handrecord import record_from_game, verify_record
    from domain.rules import DEFAULT, play_game

    game = play_game(
        b"a ruling between deals", [make_bot()] * 3, DEFAULT.with_options(pool_target=20)
    )
    rec = record_from_game(game)
    assert len(rec["deals"]) >= 3
    rec["deals"] = rec["deals"][:3]
    rec.update(complete=False, settlement=None, settlement_at_end=None, seed=None)
    assert verify_record(rec).consistent
    gora, whists = [3, 0, -1], [[0, 2, 0], [0, 0, 0], [5, 0, 0]]
    adjustment = {"gora": gora, "whists": whists}
    rec["rulings"] = [
        {
            "deal_number": 1,
            "reason": "a misdeal of the score",
            "auditor": "judge",
            "adjustment": adjustment,
            "after_deal": 1,
            "during_deal": False,
            "after_end": False,
            "settlement": None,
        }
    ]
    verdict = verify_record(rec)
    assert not verdict.consistent
    assert verdict.message == "deal 2: the sheet before it is not what the deals before it wrote"
    for deal in rec["deals"][1:]:
        sheet = deal["sheet_before"]
        sheet["gora"] = [g + d for g, d in zip(sheet["gora"], gora, strict=True)]
        sheet["whists"] = [
            [w + d for w, d in zip(row, drow, strict=True)]
            for row, drow in zip(sheet["whists"], whists, strict=True)
        ]
    verdict = verify_record(rec)
    assert verdict.consistent, verdict.message


def test_tags_in_the_text_form_are_quoted_as_pbn_quotes_them() -> None:
    from domain.handrecord import render_text

    rec = disputed()
    rec["tags"] = {"date": "2026-12-02", "event": 'Cup "A" \\ 2', "site": None, "round": "3"}
    shown = render_text(rec)
    assert '[Date "2026-12-02"]' in shown and '[Round "3"]' in shown
    assert '[Event "Cup \\"A\\" \\\\ 2"]' in shown and "[Site" not in shown
    assert "Flag      C on deal 1 (after deal 1): a revoke in trick 3" in shown
    assert "Ruling    on deal 1 by judge (after deal 1): the revoke stood" in shown


def test_two_players_dummy_cards_are_the_dummys_hand_decided_by_its_defender() -> None:
    """RULES.md §3.6: with two players the dummy (position 2) is played by its defender; the
    record names the dummy as the hand of those decisions, verifies, and the replay says so."""
    from domain.bots import make_bot
    from domain.handrecord import record_from_game, verify_record
    from domain.rules import RuleSet, play_game

    game = play_game(
        b"two players and a dummy", [make_bot()] * 2, RuleSet(players=2, pool_target=4)
    )
    rec = record_from_game(game)
    verdict = verify_record(rec)
    assert verdict.consistent, verdict.message
    for_dummy = [s for d in rec["deals"] for s in d["actions"] if s.get("hand") == 2]
    assert for_dummy and all(s["seat"] in (0, 1) for s in for_dummy)
    number = next(d["number"] for d in rec["deals"] if any(s.get("hand") for s in d["actions"]))
    shown = "".join(screen(f) for f in frames(rec, number))
    assert "from Dummy's hand" in shown
