"""The Classic scoresheet (issue 12, TV-26): each seat's bomb signs, owed and crossed out, and
each deal's bomb level, dark flag and the declarer's sign, through the ``Game`` aggregate and
the API mapping (``Scoresheet.bomb_signs``, ``ScoresheetDeal``/``DealScoredEvent`` fields).

The aggregate is built in memory; the Classic marks are put on its deal as the auction branch
will set them (the agreed ``DealState`` fields).
"""

from __future__ import annotations

import copy
import random
from typing import Any

from domain.handrecord import record_from_game, render_deal_text, validate, verify_record
from domain.model import Game
from domain.rules import DEFAULT, CrossedSign, Kind, Phase, actor, legal_actions
from domain.rules.dealing import shuffle_from_seed
from domain.rules.game import (
    DealRecord,
    GameRecord,
    finish_deal,
    new_game,
    play_deal,
    start_deal,
    with_deal,
)
from service.api import mapping
from service.gen.preferans.v1 import game_pb2 as pb
from tests.unit.game_helpers import created_game
from tests.unit.test_properties import random_policy

SEED = b"\x11" * 32
RNG = random.Random(12)


def new() -> Game:
    game = created_game()
    game.deal_next(SEED, "deal")
    return game


def finish(game: Game, **marks: object) -> dict[str, Any]:
    """Mark the deal in progress (as the Classic auction would) and play it out: all pass on a
    bomb (``bomb`` set), otherwise whatever is first legal."""
    deal = game.state.deal
    assert deal is not None
    game.state = with_deal(game.state, deal.with_(**marks))
    number = game.state.deal_number
    i = 0
    while game.state.deal_number == number and not game.finished:
        deal = game.state.deal
        assert deal is not None
        legal = legal_actions(deal)
        if marks.get("bomb"):
            pick = next((a for a in legal if str(a) == "pass"), legal[0])
        else:
            pick = RNG.choice(legal)
        game.act(actor(deal), pick, f"r{number}-{i}", SEED)
        i += 1
    result = game.deal_results[-1]
    assert result["number"] == number
    return result


def test_bomb_signs_appear_on_the_scoresheet_and_each_deal_shows_its_marks() -> None:
    game = new()
    result = finish(game, bomb=2, bombers=0b011)
    assert result["kind"] == Kind.RASPASY.value
    assert (result["bomb"], result["dark"], result["sign"]) == (2, False, 0)
    assert game.state.bomb_signs == ((2,), (2,), ())
    sheet = mapping.scoresheet_to_proto(game)
    assert [list(s.owed) for s in sheet.bomb_signs] == [[2], [2], []]
    assert sheet.deals[0].bomb == 2 and not sheet.deals[0].dark
    event = mapping.deal_result_to_proto(game.deal_results[0])
    assert event.bomb == 2


def test_an_ordinary_game_shows_no_signs() -> None:
    """Defaults unchanged: no bomb played, the sheet has no ``bomb_signs`` at all."""
    game = new()
    finish(game)
    sheet = mapping.scoresheet_to_proto(game)
    assert list(sheet.bomb_signs) == []
    assert (sheet.deals[0].bomb, sheet.deals[0].dark, sheet.deals[0].sign) == (0, False, 0)


def test_crossed_signs_show_the_deal_and_the_game_made_on_them() -> None:
    owed = ((3, 1), (), (2,))
    crossed = ((CrossedSign(1, 4, "6♠"), CrossedSign(2, 7, "misère")), (), ())
    rows = mapping.bomb_signs_to_proto(owed, crossed)
    assert rows[0] == pb.BombSigns(
        seat=0,
        owed=[3, 1],
        crossed=[
            pb.CrossedBombSign(level=1, deal_number=4, contract="6♠"),
            pb.CrossedBombSign(level=2, deal_number=7, contract="misère"),
        ],
    )
    assert rows[1] == pb.BombSigns(seat=1)
    assert list(rows[2].owed) == [2] and not rows[2].crossed
    assert mapping.bomb_signs_to_proto((), ()) == []


def test_the_deal_records_the_sign_its_declarer_played_on() -> None:
    """Draw deals (each from the game's seed) until one is declared; with a single sign owed by
    every seat the declarer plays on it: the deal shows ``sign`` 1 and, if made, it is crossed."""
    game = new()
    for _ in range(40):
        game.state = game.state._replace(bomb_signs=((1,), (1,), (1,)), bomb_signs_crossed=())
        deal = game.state.deal
        assert deal is not None and deal.phase is Phase.BIDDING
        result = finish(game)
        if result["declarer"] >= 0 and result["kind"] in ("game", "misere", "passed-out"):
            break
    else:
        raise AssertionError("no declared game in 40 deals")
    assert result["sign"] == 1
    declarer = result["declarer"]
    made = bool(game.state.bomb_signs_crossed and game.state.bomb_signs_crossed[declarer])
    assert game.state.bomb_signs[declarer] == (() if made else (1,))
    sheet = mapping.scoresheet_to_proto(game)
    assert sheet.deals[-1].sign == 1
    assert [list(s.owed) for s in sheet.bomb_signs][declarer] == ([] if made else [1])


# --- hand records --------------------------------------------------------------------------


def _game_with_a_bomb(seed: bytes) -> GameRecord:
    """A game by the pure driver whose first raspasy is marked a double bomb declared by all,
    continued until a later deal is a declared game (its declarer then owes a sign)."""
    rules = DEFAULT
    policies = random_policy(random.Random(seed[0]))
    game = new_game(rules, 0)
    deals: list[DealRecord] = []
    bombed = False
    while not game.finished and len(deals) < 40:
        game = start_deal(game, shuffle_from_seed(seed, game.deal_number + 1))
        assert game.deal is not None
        final, actions = play_deal(game.deal, policies)
        kind = final.result.kind if final.result is not None else None
        if kind is Kind.RASPASY and not bombed:
            final, bombed = final.with_(bomb=2, bombers=0b111), True
        dealer, number = game.dealer, game.deal_number
        game, score, entry = finish_deal(game._replace(deal=final))
        deals.append(DealRecord(number, dealer, final, actions, score, entry))
        if bombed and kind is not Kind.RASPASY:
            break
    return GameRecord(rules, seed, 0, tuple(deals), game.sheet, (), False)


def _bombed_record() -> tuple[GameRecord, dict[str, Any]]:
    for i in range(60):
        played = _game_with_a_bomb(bytes([i]) * 16)
        last = played.deals[-1].final.result
        first_bomb = next((d for d in played.deals if d.final.bomb), None)
        if first_bomb is not None and last is not None and last.kind is not Kind.RASPASY:
            return played, record_from_game(played)
    raise AssertionError("no game with a bomb then a declared game in 60 seeds")


def test_a_hand_record_carries_the_signs_owed_before_each_deal() -> None:
    played, rec = _bombed_record()
    bomb_at = next(d.number for d in played.deals if d.final.bomb)
    for deal in rec["deals"]:
        if deal["number"] <= bomb_at:
            assert "bomb_signs" not in deal
        else:
            assert deal["bomb_signs"], deal["number"]
    last = rec["deals"][-1]
    assert "Bombs" in "\n".join(render_deal_text(last, rec["players"]))
    assert validate(rec) is rec


def test_verification_reads_the_signs_owed() -> None:
    """The deal after the bomb is scored on its declarer's double sign: verifying it as a record
    of its own, the recorded signs are what make its score right; without them it is wrong;
    a wrong ledger in a whole record is a discrepancy."""
    played, rec = _bombed_record()
    last = played.deals[-1]
    single = record_from_game(played, deal_number=last.number)
    signs = single["deals"][0]["bomb_signs"]
    assert last.final.result is not None
    assert signs[last.final.result.declarer] == [2], "every seat declared the double bomb"
    verdict = verify_record(single)
    # The bomb itself cannot be replayed from its decisions until the auction plays bombs; the
    # declared game after it can, with the recorded signs.
    assert verdict.consistent, verdict.message
    stripped = copy.deepcopy(single)
    del stripped["deals"][0]["bomb_signs"]
    assert not verify_record(stripped).consistent
    wrong = copy.deepcopy(single)
    wrong["deals"][0]["bomb_signs"] = [[1], [1], [1]]
    assert not verify_record(wrong).consistent
    started = copy.deepcopy(rec)
    started["deals"] = started["deals"][:1]
    started["deals"][0]["bomb_signs"] = [[1], [], []]
    assert "no bombs" in verify_record(started).message


def test_the_cli_sheet_shows_signs_struck_when_crossed_and_owed_in_order() -> None:
    from rich.console import Console

    from service.cli.playtext import bomb_signs_text, scoresheet_table

    signs = mapping.bomb_signs_to_proto(((3, 1), (), ()), ((CrossedSign(1, 4, "6♠"),), (), ()))
    text = bomb_signs_text(signs[0])
    assert text.plain == "1(6♠) 3 1"
    assert any("strike" in str(span.style) for span in text.spans)
    sheet = pb.Scoresheet(bomb_signs=signs)
    console = Console(width=120, record=True)
    console.print(scoresheet_table(sheet))
    assert "bombs" in console.export_text()
    console = Console(width=120, record=True)
    console.print(scoresheet_table(pb.Scoresheet()))
    assert "bombs" not in console.export_text()
