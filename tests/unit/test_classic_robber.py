"""The robber ("Разбойник", S000 "КЛАССИКА", "В варианте с «разбойником»"; issue 12): the
orderer imposes obligatory games in his order ("Каждый должен взять прикуп на объявленные по
разу – мизер и десятерную, два раза – девятерную, три – восьмерную. Объявление игрок должен
сделать до закрытия пули"; "За необъявленные записать как за уход без пяти или пять на
мизере, но без вистов"; "не выполнивший данное условие … пишет за десять взятых на мизере –
200 в гору"). Every number below is worked out by hand from the default prices: game values
6/7/8/9/10 → 2/4/6/8/10, an undertrick costs the game's value, a misère trick 10, a dark
misère trick 20: undeclared ten 5×10 = 50, nine 40, eight 30, misère 5×10 = 50, dark misère
10×20 = 200."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from domain.audit import verify
from domain.bots import make_bot
from domain.handrecord import record_from_events, verify_record
from domain.handrecord.text import render_text
from domain.model import Game
from domain.model.decisions import event_name
from domain.model.replay import advance
from domain.rules import (
    DEFAULT,
    GameState,
    InvalidAction,
    Kind,
    Phase,
    actor,
    awaiting_order,
    call_time,
    finish_deal,
    game_orderer,
    new_game,
    order_game,
    seat_view,
    shuffle_from_seed,
    start_deal,
    table_rules,
)
from domain.rules.game import game_final_sheet, robber_penalties, settle_game
from domain.rules.robber import Obligations, price
from domain.rules.scoresheet import final_sheet
from domain.rules.state import DealResult
from tests.unit.game_helpers import created_game
from tests.unit.rules_helpers import A, B, C, result

ROBBER = DEFAULT.with_options(order_game=True, robber=True, ending_by_time=True)
"""The default prices, the game ordered before deal 1 (no initial rounds), the robber's rights,
and time may be called."""
SEED = b"\x2b" * 32
BOT = make_bot()
SEED_ORDER = {"misere": 1, "ten": 1, "nine": 2, "eight": 3}
"""S000: "по разу – мизер и десятерную, два раза – девятерную, три – восьмерную"."""


def ordered(obligations: dict[str, Any], pool: int = 100, ends_at: int = 1) -> GameState:
    """A robber game (first dealer C) ordered before its first deal by the first hand A."""
    game = new_game(ROBBER, C)
    assert awaiting_order(game) and game_orderer(game) == A
    return order_game(game, A, pool, ends_at, obligations)


def scored(game: GameState, res: DealResult, **marks: Any) -> GameState:
    """Deal the next deal and score it as ``res`` (the deal's ``dark``/``no_talon`` marks as
    given): the scoring tests' shortcut past the play."""
    game = start_deal(game, shuffle_from_seed(SEED, game.deal_number + 1))
    assert game.deal is not None
    final = game.deal.with_(phase=Phase.SCORED, to_act=-1, result=res, **marks)
    return finish_deal(game._replace(deal=final))[0]


def passed(seat: int, contract: str) -> DealResult:
    """``seat`` declared ``contract`` after the talon and both defenders passed."""
    others = tuple(s for s in (A, B, C) if s != seat)
    return result(Kind.PASSED_OUT, seat, contract, (0, 0, 0), passers=others)


def test_robber_orders_misere_and_ten_once_nine_twice_eight_three_times() -> None:
    """The seed's order, for every player (the robber A included: "Каждый должен"). A declared
    game counts made or not (the obligation is the declaration); a harder trick game counts
    for the highest lower level still owed; a game without talon does not count ("взять
    прикуп"), nor does "without three". Time is called before the pools close: what is still
    owed is written at the end, without whists."""
    game = ordered(SEED_ORDER)
    assert game.order is not None and game.order.obligations == Obligations(
        misere=1, ten=1, nine=2, eight=3
    )
    assert game.robber_owed == (Obligations(misere=1, ten=1, nine=2, eight=3),) * 3
    game = scored(game, passed(A, "8♠"))  # A: eight 3 → 2
    game = scored(game, passed(A, "10♥"))  # A: ten 1 → 0
    game = scored(game, passed(A, "10♦"))  # no ten owed: the nine, 2 → 1
    game = scored(game, result(Kind.MISERE, B, "misère", (4, 1, 5)))  # B failed: misère done
    game = scored(game, passed(C, "9♣"))  # C: nine 2 → 1
    game = scored(game, passed(C, "8♥"), no_talon=True)  # without talon: counts nothing
    game = scored(game, result(Kind.CONCEDED, B, "8♠", (0, 0, 0)))  # "without three": nothing
    assert game.robber_owed == (
        Obligations(misere=1, ten=0, nine=1, eight=2),
        Obligations(misere=0, ten=1, nine=2, eight=3),
        Obligations(misere=1, ten=1, nine=1, eight=3),
    )
    assert not game.robber_written and not game.sheet.all_closed(table_rules(game))
    assert game.sheet.gora[B] == 10  # the failed misère's trick ("without three" costs 0 here)
    end = call_time(game)
    assert end.finished
    # A: misère 50 + nine 40 + eights 2×30 = 150; B: 50 + 2×40 + 3×30 = 220;
    # C: misère 50 + ten 50 + nine 40 + eights 3×30 = 230.
    assert robber_penalties(end) == (150, 220, 230)
    plain = final_sheet(end.sheet, ROBBER.with_options(pool_target=100))
    assert game_final_sheet(end).gora == tuple(
        g + p for g, p in zip(plain.gora, (150, 220, 230), strict=True)
    )
    assert game_final_sheet(end).whists == plain.whists  # "но без вистов"


def test_robber_a_dark_misere_fulfils_a_misere_but_a_light_misere_no_dark_one() -> None:
    """A dark misère is a misère taken harder: it counts for the dark misère, and when none is
    owed, for the misère; a light misère never counts for the dark one."""
    game = ordered({"dark_misere": 1, "misere": 1})
    misere = result(Kind.MISERE, A, "misère", (0, 5, 5))
    game = scored(game, misere, dark=True)  # A: the dark misère
    game = scored(game, misere, dark=True)  # A: then the misère
    game = scored(game, result(Kind.MISERE, B, "misère", (0, 5, 5)))  # B: the misère only
    assert game.robber_owed == (
        Obligations(),
        Obligations(dark_misere=1),
        Obligations(dark_misere=1, misere=1),
    )


def test_robber_undeclared_eight_written_as_without_five_no_whists() -> None:
    """The deadline is the closing of the pools ("до закрытия пули"). Ordered: an eight each,
    pool 10. A and B close their pools with a ten each (a ten fulfils the eight); C closes his
    with a misère (no eight). Every pool is closed: C's eight is written then, as going
    without five on an eight: 5 × 6 = 30 to gora, no whists. Settlement: gora 0/0/30, mean
    10, ten whists a point: A +100, B +100, C −200."""
    game = ordered({"eight": 1}, pool=10)
    game = scored(game, passed(A, "10♠"))
    game = scored(game, passed(B, "10♥"))
    game = scored(game, result(Kind.MISERE, C, "misère", (5, 5, 0)))
    assert game.sheet.pool == (10, 10, 10)
    assert game.robber_written and game.finished
    assert game.robber_owed == (Obligations(), Obligations(), Obligations(eight=1))
    assert game.sheet.gora == (0, 0, 30)
    assert game.sheet.whists == ((0, 0, 0),) * 3
    assert robber_penalties(game) == (0, 0, 0)  # written already: not again at the end
    assert settle_game(game) == (Fraction(100), Fraction(100), Fraction(-200))
    assert price(ROBBER, "eight") == 30 and price(ROBBER, "ten") == 50


def test_robber_dark_misere_not_played_200() -> None:
    """S000: "чтобы каждый из игроков объявил по разу мизер втемную. Если это не оговорено
    особо, не выполнивший данное условие до конца игры пишет за десять взятых на мизере – 200
    в гору". A plays a dark misère (made: 20 to pool, TV-26); B a light one (10 to pool;
    not dark: still owes); time is called. Early stop (pool 20): missing pool 0/10/20 to
    gora, the robber 0/200/200: gora 0/210/220, mean 430/3: A +4300/3, B −2000/3 − 2300/3…
    worked out: A (430/3 − 0) × 10 = 4300/3, B (430/3 − 210) × 10 = −2000/3,
    C (430/3 − 220) × 10 = −2300/3."""
    game = ordered({"dark_misere": 1}, pool=20)
    game = scored(game, result(Kind.MISERE, A, "misère", (0, 5, 5)), dark=True)
    game = scored(game, result(Kind.MISERE, B, "misère", (5, 0, 5)))
    assert game.sheet.pool == (20, 10, 0)
    end = call_time(game)
    assert robber_penalties(end) == (0, 200, 200)
    assert game_final_sheet(end).gora == (0, 210, 220)
    assert settle_game(end) == (Fraction(4300, 3), Fraction(-2000, 3), Fraction(-2300, 3))


@pytest.mark.parametrize(
    ("obligations", "field"),
    [
        ({"eleven": 1}, "obligations"),
        ({"nine": 6}, "obligations.nine"),
        ({"eight": -1}, "obligations.eight"),
        ({"ten": True}, "obligations.ten"),
        ({"misere": "1"}, "obligations.misere"),
    ],
)
def test_robber_obligations_are_validated_naming_the_field(
    obligations: dict[str, Any], field: str
) -> None:
    game = new_game(ROBBER, C)
    with pytest.raises(InvalidAction) as raised:
        order_game(game, A, 20, 1, obligations)
    assert raised.value.field == field


def test_robber_obligations_need_the_robber_option() -> None:
    """Without ``robber`` an order imposes nothing; ``robber`` needs the order and excludes the
    agreed dark misère (``robber_gora``)."""
    plain = DEFAULT.with_options(order_game=True)
    with pytest.raises(InvalidAction) as raised:
        order_game(new_game(plain, C), A, 20, 0, {"eight": 1})
    assert raised.value.field == "obligations"
    ordered_plain = order_game(new_game(plain, C), A, 20, 0, {"eight": 0})
    assert ordered_plain.robber_owed == () and ordered_plain.order is not None
    for options in ({"robber": True}, {"robber": True, "order_game": True, "robber_gora": 200}):
        with pytest.raises(InvalidAction) as raised:
            DEFAULT.with_options(**options)
        assert raised.value.field == "rules.robber"


def test_robber_a_newcomer_owes_the_whole_order() -> None:
    from domain.rules.game import replace_player

    game = scored(ordered({"eight": 2}), passed(B, "8♠"))
    assert game.robber_owed[B] == Obligations(eight=1)
    joined = replace_player(game, B)
    assert joined.robber_owed == (Obligations(eight=2),) * 3


def _created(rules: Any) -> Game:
    game = created_game(rules, 2, SEED)
    game.deal_first(SEED, "create")
    return game


def _play(game: Game, until: Any) -> None:
    n = 0
    while not game.finished and not until(game):
        deal = game.state.deal
        assert deal is not None
        seat = actor(deal)
        n += 1
        game.act(seat, BOT(seat_view(deal, seat)), f"r{n}", SEED)


def test_robber_obligations_replay_and_audit() -> None:
    """The order with the seed's obligations is a ``GameOrdered`` event with them, replayed by
    the aggregate and the pure replay, verified by the audit (a forged count is illegal),
    and exported and verified in the hand record's order section;
    an order without obligations records the event exactly as before (no such field)."""
    game = _created(ROBBER.with_options(pool_target=6))
    orderer = game_orderer(game.state)
    game.order(orderer, 6, 4_000_000_000, "order", SEED, SEED_ORDER)
    assert game.answer_for("order", f"{orderer}:order 6 4000000000 eight=3,misere=1,nine=2,ten=1")
    _play(game, lambda g: False)
    assert game.finished and game.state.robber_written
    events = game.collect_events()
    ordered_event = next(e for e in events if event_name(e) == "GameOrdered")
    assert ordered_event.__dict__["obligations"] == SEED_ORDER
    replayed: Any = None
    for event in events:
        replayed = event.mutate(replayed)
    assert isinstance(replayed, Game) and replayed.state == game.state
    state: GameState | None = None
    for event in events:
        state = advance(state, event)
    assert state == game.state
    report = verify(str(game.id), events)
    assert report.verified, report.summary

    rec = record_from_events(events)
    assert rec["order"]["obligations"] == SEED_ORDER
    verdict = verify_record(rec)
    assert verdict.consistent, verdict.message
    assert "each must declare misere ×1, ten ×1, nine ×2, eight ×3" in render_text(rec)
    assert sum(Fraction(v) for v in game.settlement or ()) == 0

    # A forged count is refused by the audit.
    from tests.unit.test_game_order_events import _forged

    at = events.index(ordered_event)
    previous = events[at - 1].__dict__["chain"]
    forged = _forged(ordered_event, previous, obligations={"nine": 9})
    report = verify(str(game.id), [*events[:at], forged])
    assert report.discrepancy is not None and report.discrepancy.kind == "illegal"

    # No obligations: the event has no such field, as recorded before the robber.
    plain = _created(ROBBER)
    plain.order(game_orderer(plain.state), 20, 4_000_000_000, "order", SEED)
    plain_events = plain.collect_events()
    event = next(e for e in plain_events if event_name(e) == "GameOrdered")
    assert "obligations" not in event.__dict__ and plain.state.robber_owed == ()
    assert "obligations" not in record_from_events(plain_events)["order"]
    assert verify(str(plain.id), plain_events).verified


def test_robber_obligations_as_a_player_types_them() -> None:
    """The CLI's notation: "misere 1, ten 1, nine 2, eight 3" (S000's order), levels as
    numbers, "dark misère"; what cannot be read names the field ``obligations``."""
    from domain.rules.robber import describe, parse_obligations

    assert parse_obligations("misere 1, ten 1, nine 2, eight 3") == SEED_ORDER
    assert parse_obligations("10 1, 9 2, 8 3, misère 1") == SEED_ORDER
    assert parse_obligations("dark misère 1") == {"dark_misere": 1}
    assert parse_obligations("  ") == {}
    assert describe(Obligations(misere=1, eight=3)) == "misere ×1, eight ×3"
    for text in ("nine", "eleven 1", "nine two"):
        with pytest.raises(InvalidAction) as raised:
            parse_obligations(text)
        assert raised.value.field == "obligations"


def test_robber_progress_is_in_each_deal_of_a_hand_record() -> None:
    """A hand record carries, on each deal before the deadline, what every seat still owed the
    robber before it, so a record of one deal (or a tail of the game) verifies on its own; the
    driver's record (``play_game`` with obligations) verifies; a forged progress in a whole
    record is a discrepancy."""
    import copy

    from domain.handrecord import record_from_game
    from domain.rules import play_game

    rules = ROBBER.with_options(ending_by_time=False, pool_target=6)
    driven = play_game(SEED, [BOT] * 3, rules, first_dealer=2, obligations=SEED_ORDER)
    assert driven.finished
    rec = record_from_game(driven)
    verdict = verify_record(rec)
    assert verdict.consistent, verdict.message
    owed = [d.get("robber_owed") for d in rec["deals"]]
    assert owed[0] == [SEED_ORDER] * 3  # nothing declared before deal 1
    assert owed[-1] is not None  # the pools close in the last deal: still owed before it
    for number in (2, len(rec["deals"])):
        alone = record_from_game(driven, deal_number=number)
        assert verify_record(alone).consistent, (number, verify_record(alone).message)
    forged = copy.deepcopy(rec)
    forged["deals"][1]["robber_owed"] = [{"eight": 1}, {}, {}]
    verdict = verify_record(forged)
    assert not verdict.consistent and "owed the robber" in verdict.message
