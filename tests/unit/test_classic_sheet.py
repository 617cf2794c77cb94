"""The Classic scoresheet (issue 12, TV-26): each seat's bomb signs, owed and crossed out, and
each deal's bomb level, dark flag and the declarer's sign, through the ``Game`` aggregate and
the API mapping (``Scoresheet.bomb_signs``, ``ScoresheetDeal``/``DealScoredEvent`` fields).

The aggregate is built in memory; the Classic marks are put on its deal as the auction branch
will set them (the agreed ``DealState`` fields).
"""

from __future__ import annotations

import random
import uuid
from typing import Any

from domain.model import Game
from domain.rules import DEFAULT, CrossedSign, Kind, Phase, actor, legal_actions
from domain.rules.game import with_deal
from service.api import mapping
from service.gen.preferans.v1 import game_pb2 as pb

SEED = b"\x11" * 32
RNG = random.Random(12)


def new() -> Game:
    game = Game._create(
        Game.Created,
        id=uuid.uuid4(),
        seat=-1,
        request_id="create",
        players=["a", "b", "c"],
        rules=DEFAULT.to_dict(),
        league="",
        seed_commitment="",
        token_hashes=["", "", ""],
        first_dealer=0,
    )
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
