"""Classic whisting conventions as rule options (issue 12; RULES.md §3.2 last row "Complicated
whisting (Classic)", §3.5 "Classic" options, §5.1 open points; seed S000 "КЛАССИКА / Варианты
правил для классики").

S000: "Вариант с усложненным вистованием отличается от обычного следующим. Вистующие обязаны
взять на шестерной – четыре, семерной – три, восьмерной – две, девятерной – одну взятку. Уход,
соответственно, на шестерной, семерной – за две, восьмерной – за одну. Игрок имеет право, кроме
того, вистовать на десятерной и мизере. В этом случае при невзятии вистующим взятки на
десятерной или при сыгранном мизере он пишет 10 в гору. Если на десятерной вистующий взял
взятку или на мизере дал взятку, то кроме подсада играющего вистующий пишет на него висты.
Если же никто на десятерной или мизере не вистует, то на севшего на мизере или десятерной
висты не пишутся. За взятки на распасах: одинарных – 2 очка, двойных – 4, тройных – 6 очков."

S000: "Иногда играют с полуответственным вистом, но только до того момента, пока хотя бы у
одного из игроков не будет закрыта пуля. С этого момента вист становится ответственным."

S000: "некоторые придерживаются современной унифицированной таблицы (стоимость игры не
зависит от масти козыря), а другие пользуются старинной иерархией — пики самые дешевые, а без
козыря — самые дорогие."

Prices are the default 2/4/6/8/10 (Classic records "as Sochi"); every expected number below is
worked by hand in the comment next to it. Seats: A = 0, B = 1, C = 2; C deals, A is first hand,
so against A the first defender is B.
"""

from __future__ import annotations

import pytest

from domain.rules import (
    DEFAULT,
    HALF_WHIST,
    PASS,
    WHIST,
    DealScore,
    DealState,
    InvalidAction,
    Kind,
    Obligations,
    Phase,
    RuleSet,
    ScoreSheet,
    WhistLiability,
    actor,
    legal_actions,
    score_deal,
    score_result,
)
from domain.rules.game import GameState, finish_deal
from tests.unit.rules_helpers import A, B, C, act, play_out, result, sample, whists, won_by_a

NONE = (0, 0, 0)

COMPLICATED = DEFAULT.with_options(
    name="complicated",
    defence_norms={6: 4, 7: 3, 8: 2, 9: 1, 10: 1},
    whister_shares={6: 2, 7: 1, 8: 1, 10: 1},
    second_whister_shares={7: 2},
    half_whist_levels=frozenset({6, 7, 8}),
    half_whist_tricks={6: 2, 7: 2, 8: 1},
    ten_whisted=True,
    misere_whisted=True,
    raspasy_trick_prices=(2, 4, 6),
)
"""S000's complicated whisting: the values /work/wt/notes/whist.md proposes for Classic."""


# --- norms 4 / 3 / 2 / 1 -------------------------------------------------------------------


def test_complicated_norms_six_is_four() -> None:
    """ "на шестерной – четыре": a lone whister B (3 tricks of both hands) against 6♠ made
    with 7 is one short: 1 × 2 = 2 gora; he writes his 3 tricks × 2 = 6 whists."""
    score = score_result(COMPLICATED, result(Kind.GAME, A, "6♠", (7, 2, 1), (B,), (C,)))
    assert score == DealScore((2, 0, 0), (0, 2, 0), whists({(B, A): 6}))
    # Two whisters answer for 2 each (S000 "взявший на шестерной – меньше двух"): B with 1
    # of the 3 pays (2 − 1) × 2 = 2; C with 2 pays nothing.
    pair = score_result(COMPLICATED, result(Kind.GAME, A, "6♠", (7, 1, 2), (B, C)))
    assert pair == DealScore((2, 0, 0), (0, 2, 0), whists({(B, A): 2, (C, A): 4}))


def test_complicated_norms_seven_is_three() -> None:
    """ "семерной – три": against 7♠ made with 8 the defence's 2 tricks are one short of 3:
    the lone whister B writes 1 × 4 = 4 gora and 2 × 4 = 8 whists. By the default norm 2
    the same deal costs him nothing."""
    deal = result(Kind.GAME, A, "7♠", (8, 1, 1), (B,), (C,))
    assert score_result(COMPLICATED, deal) == DealScore((4, 0, 0), (0, 4, 0), whists({(B, A): 8}))
    assert score_result(DEFAULT, deal) == DealScore((4, 0, 0), NONE, whists({(B, A): 8}))


def test_complicated_seven_two_whisters_first_answers_one_second_two() -> None:
    """Decision (RULES.md §5.1 "the two-whister split under the 4/3/2/1 norms"): each
    whister answers for half the norm and the odd trick is the second whister's, as S000's
    "второй вист ответственный" gives the one trick of an 8 or 9 to the second. On a 7 (norm
    3): the first (B) answers for 1, the second (C) for 2; each pays 4 per trick he is short
    (not capped at the joint shortfall, as A-01's literal default)."""
    # 8-2-0: joint shortfall 1; B has his 1, C is 2 short: 2 × 4 = 8.
    assert score_result(COMPLICATED, result(Kind.GAME, A, "7♠", (8, 2, 0), (B, C))).gora == (
        0,
        0,
        8,
    )
    # 8-0-2: B is 1 short: 4; C has his 2.
    assert score_result(COMPLICATED, result(Kind.GAME, A, "7♠", (8, 0, 2), (B, C))).gora == (
        0,
        4,
        0,
    )
    # 8-1-1: B has his 1; C is 1 short: 4. Norm met (7-2-1 … 7-3-0): nobody pays.
    assert score_result(COMPLICATED, result(Kind.GAME, A, "7♠", (8, 1, 1), (B, C))).gora == (
        0,
        0,
        4,
    )
    assert score_result(COMPLICATED, result(Kind.GAME, A, "7♠", (7, 3, 0), (B, C))).gora == NONE


def test_complicated_norms_eight_is_two() -> None:
    """ "восьмерной – две": the lone whister B with 1 trick against 8♠ made with 9 is one
    short: 6 gora, 1 × 6 = 6 whists; two whisters answer for 1 each: 10-0-0 costs each 6."""
    lone = score_result(COMPLICATED, result(Kind.GAME, A, "8♠", (9, 1, 0), (B,), (C,)))
    assert lone == DealScore((6, 0, 0), (0, 6, 0), whists({(B, A): 6}))
    assert score_result(DEFAULT, result(Kind.GAME, A, "8♠", (9, 1, 0), (B,), (C,))).gora == NONE
    pair = score_result(COMPLICATED, result(Kind.GAME, A, "8♠", (10, 0, 0), (B, C)))
    assert pair == DealScore((6, 0, 0), (0, 6, 6), whists({}))


def test_complicated_norms_nine_is_one() -> None:
    """ "девятерной – одну": as the default, the second whister (C) pays the missing trick
    of a 9 taken 10-0-0: 8 gora."""
    pair = score_result(COMPLICATED, result(Kind.GAME, A, "9♠", (10, 0, 0), (B, C)))
    assert pair == DealScore((8, 0, 0), (0, 0, 8), whists({}))


# --- going: 6 and 7 "for two", 8 "for one" --------------------------------------------------


@pytest.mark.parametrize(("level", "pool", "whisted"), [(6, 2, 4), (7, 4, 8), (8, 6, 6)])
def test_complicated_going_six_seven_for_two_eight_for_one(
    level: int, pool: int, whisted: int
) -> None:
    """ "Уход, соответственно, на шестерной, семерной – за две, восьмерной – за одну": B
    passes, C goes (half-whist), B lets it stand: A writes the game to pool, C writes 2 tricks
    × 2 = 4 on a 6, 2 × 4 = 8 on a 7 (the default: 1 × 4 = 4), 1 × 6 = 6 on an 8."""
    state = act(won_by_a(f"declare {level}♠", rules=COMPLICATED), "pass")
    assert HALF_WHIST in legal_actions(state)
    done = act(state, "half-whist", "pass")
    assert done.result is not None and done.result.kind is Kind.HALF_WHIST
    assert score_deal(done) == DealScore((pool, 0, 0), NONE, whists({(C, A): whisted}))
    if level == 7:
        default = act(won_by_a("declare 7♠"), "pass", "half-whist", "pass")
        assert score_deal(default).whists[C][A] == 4
    if level == 8:
        assert HALF_WHIST not in legal_actions(act(won_by_a("declare 8♠"), "pass"))


def test_complicated_no_going_on_a_nine() -> None:
    """No going on a 9 (norm 1) or a 10."""
    for contract in ("declare 9♠", "declare 10♠"):
        assert legal_actions(act(won_by_a(contract, rules=COMPLICATED), "pass")) == (WHIST, PASS)


# --- whisting a ten ------------------------------------------------------------------------


def test_complicated_ten_whisted_no_trick_ten_to_gora() -> None:
    """ "при невзятии вистующим взятки на десятерной … он пишет 10 в гору": a 10 made 10-0-0
    costs each whister who took no trick 1 × 10 = 10 (the default makes only the second pay);
    a lone whister too."""
    pair = result(Kind.GAME, A, "10♠", (10, 0, 0), (B, C))
    assert score_result(COMPLICATED, pair) == DealScore((10, 0, 0), (0, 10, 10), whists({}))
    assert score_result(DEFAULT, pair).gora == (0, 0, 10)
    lone = result(Kind.GAME, A, "10♠", (10, 0, 0), (B,), (C,))
    assert score_result(COMPLICATED, lone) == DealScore((10, 0, 0), (0, 10, 0), whists({}))


def test_complicated_ten_whister_takes_trick_writes_whists() -> None:
    """ "Если на десятерной вистующий взял взятку …, то кроме подсада играющего вистующий
    пишет на него висты": 10♠ down one (9-1-0), lone whister B: A 1 × 10 = 10 gora; B his
    trick and his consolation (1 + 1) × 10 = 20; C (passer) his consolation 10."""
    lone = score_result(COMPLICATED, result(Kind.GAME, A, "10♠", (9, 1, 0), (B,), (C,)))
    assert lone == DealScore(NONE, (10, 0, 0), whists({(B, A): 20, (C, A): 10}))
    # Two whisters, the one who took nothing is not short: the joint norm (1) is met.
    pair = score_result(COMPLICATED, result(Kind.GAME, A, "10♠", (9, 0, 1), (B, C)))
    assert pair == DealScore(NONE, (10, 0, 0), whists({(B, A): 10, (C, A): 20}))


def test_complicated_ten_nobody_whists_no_whists() -> None:
    """ "Если же никто на десятерной … не вистует, то на севшего … висты не пишутся": two
    passes give the 10 (10 to pool) and nobody writes whists."""
    given = act(won_by_a("declare 10♠", rules=COMPLICATED), "pass", "pass")
    assert given.result is not None and given.result.kind is Kind.PASSED_OUT
    assert score_deal(given) == DealScore((10, 0, 0), NONE, whists({}))


# --- whisting a misère -----------------------------------------------------------------------


def _misere(rules: RuleSet) -> DealState:
    """SAMPLE: A calls misère, both pass, he takes the talon, discards Q♠ 10♣, declares it."""
    return act(
        sample(rules=rules),
        "misère",
        "pass",
        "pass",
        "take talon",
        "discard Qs Tc",
        "declare misère",
    )


def test_complicated_misere_is_whisted_by_both_defenders() -> None:
    """ "Игрок имеет право … вистовать на … мизере": after the misère is declared the first
    defender B, then C, says whist or pass (events WhistCalled / WhistPassed); then it is
    played as any misère (open defence, each defender plays his own cards). By default there
    is no whisting on a misère."""
    state = _misere(COMPLICATED)
    assert state.phase is Phase.WHISTING and actor(state) == B
    assert legal_actions(state) == (WHIST, PASS)
    state = act(state, "whist")
    assert actor(state) == C and legal_actions(state) == (WHIST, PASS)
    playing = act(state, "pass")
    assert playing.phase is Phase.PLAY and playing.whist.whisters == (B,)
    done = play_out(playing)
    assert done.result is not None and done.result.kind is Kind.MISERE
    assert done.result.whisters == (B,) and done.result.passers == ()
    # Lowest cards: A takes 4 tricks: 4 × 10 = 40 gora; B writes 4 × 10 = 40 whists on him.
    assert done.result.tricks[A] == 4
    assert score_deal(done) == DealScore(NONE, (40, 0, 0), whists({(B, A): 40}))
    assert _misere(DEFAULT).phase is Phase.PLAY


def test_complicated_misere_made_whister_ten_to_gora() -> None:
    """ "при … сыгранном мизере он пишет 10 в гору": the misère made (0 tricks), A 10 to pool;
    each whister 10 to gora; a passer nothing."""
    lone = score_result(COMPLICATED, result(Kind.MISERE, A, "misère", (0, 5, 5), (B,)))
    assert lone == DealScore((10, 0, 0), (0, 10, 0), whists({}))
    pair = score_result(COMPLICATED, result(Kind.MISERE, A, "misère", (0, 5, 5), (B, C)))
    assert pair == DealScore((10, 0, 0), (0, 10, 10), whists({}))


def test_complicated_misere_trick_given_whister_writes_whists() -> None:
    """ "если … на мизере дал взятку, то кроме подсада играющего вистующий пишет на него
    висты". Decision (RULES.md §5.1 "the whists for a trick given on a whisted misère"): the
    misère's value per trick, by each whister: A takes 2: 2 × 10 = 20 gora; B, and C when he
    whists too, 2 × 10 = 20 whists each."""
    lone = score_result(COMPLICATED, result(Kind.MISERE, A, "misère", (2, 4, 4), (B,)))
    assert lone == DealScore(NONE, (20, 0, 0), whists({(B, A): 20}))
    pair = score_result(COMPLICATED, result(Kind.MISERE, A, "misère", (2, 4, 4), (B, C)))
    assert pair == DealScore(NONE, (20, 0, 0), whists({(B, A): 20, (C, A): 20}))


def test_complicated_misere_nobody_whists_no_whists() -> None:
    """ "Если же никто на … мизере не вистует, то на севшего на мизере … висты не пишутся":
    A down two, nobody whisted: 20 gora and nothing else, as the default misère."""
    deal = result(Kind.MISERE, A, "misère", (2, 4, 4))
    assert score_result(COMPLICATED, deal) == DealScore(NONE, (20, 0, 0), whists({}))
    assert score_result(COMPLICATED, deal) == score_result(DEFAULT, deal)


def test_complicated_misere_whister_half_responsible_writes_five() -> None:
    """A made misère costs a half-responsible whister half: 10 / 2 = 5 (S000 "вист
    полуответственный: за подсад на висте в гору пишется половина стоимости игры")."""
    rules = COMPLICATED.with_options(whist_liability=WhistLiability.HALF)
    made = score_result(rules, result(Kind.MISERE, A, "misère", (0, 5, 5), (B,)))
    assert made.gora == (0, 5, 0)


# --- raspasy 2 / 4 / 6 ------------------------------------------------------------------------


def test_complicated_raspasy_two_four_six() -> None:
    """ "За взятки на распасах: одинарных – 2 очка, двойных – 4, тройных – 6": tricks 4-6-0
    on the single, double and triple raspasy cost 8-12, 16-24, 24-36; later ones as the
    triple."""
    res = result(Kind.RASPASY, -1, None, (4, 6, 0))
    assert [score_result(COMPLICATED, res, streak).gora for streak in (0, 1, 2, 5)] == [
        (8, 12, 0),
        (16, 24, 0),
        (24, 36, 0),
        (24, 36, 0),
    ]


# --- half-responsible until a pool closes ----------------------------------------------------

HALF_UNTIL_CLOSED = DEFAULT.with_options(whist_liability=WhistLiability.HALF_UNTIL_CLOSED)


def test_classic_half_responsible_until_a_pool_closes_then_responsible() -> None:
    """S000 Classic: half-responsible "только до того момента, пока хотя бы у одного из
    игроков не будет закрыта пуля. С этого момента вист становится ответственным". A lone
    whister one trick short on a 6 writes 2 / 2 = 1 while no pool is closed, 2 after."""
    deal = result(Kind.GAME, A, "6♥", (7, 2, 1), (B,), (C,))
    assert score_result(HALF_UNTIL_CLOSED, deal).gora == (0, 1, 0)
    assert score_result(HALF_UNTIL_CLOSED, deal, pool_closed=True).gora == (0, 2, 0)
    assert score_result(DEFAULT, deal).gora == score_result(DEFAULT, deal, pool_closed=True).gora


@pytest.mark.parametrize(("pools", "penalty"), [((19, 0, 0), 1), ((0, 20, 0), 2)])
def test_classic_half_responsible_reads_the_sheet_before_the_deal(
    pools: tuple[int, int, int], penalty: int
) -> None:
    """The game writes the deal with the liability of its sheet: SAMPLE 6♥, B whists alone
    and closed, 7-2-1: one short. With pools 19-0-0 none is closed: 1 gora; with one pool
    at 20: 2."""
    final = play_out(
        act(won_by_a("declare 6♥", rules=HALF_UNTIL_CLOSED), "whist", "pass", "closed")
    )
    assert final.result is not None and final.result.tricks == (7, 2, 1)
    sheet = ScoreSheet(pools, NONE, whists({}))
    game = GameState(HALF_UNTIL_CLOSED, C, 1, 0, sheet, final, False)
    _, score, entry = finish_deal(game)
    assert score.gora == (0, penalty, 0) and entry.gora[B] == penalty


# --- the old hierarchy of prices ---------------------------------------------------------------

HIERARCHY = DEFAULT.with_options(strain_price_steps=(0, 1, 2, 3, 4))
"""An example old hierarchy: 6♠ 2, 6♣ 3, 6♦ 4, 6♥ 5, 6NT 6, … (S000 gives no numbers)."""


def test_classic_old_hierarchy_spades_cheapest_no_trump_dearest() -> None:
    """S000 "старинной иерархией — пики самые дешевые, а без козыря — самые дорогие": with
    steps 0/1/2/3/4 a 6♠ made 6-3-1 is the default (2 to pool, whists 3 × 2, 1 × 2); a 6NT
    the same (2 + 4 = 6 to pool, whists 3 × 6 = 18, 1 × 6 = 6); a 7♥ down two, 5-3-2, costs
    2 × (4 + 3) = 14 gora, whists (3 + 2) × 7 = 35 and (2 + 2) × 7 = 28."""
    spades = score_result(HIERARCHY, result(Kind.GAME, A, "6♠", (6, 3, 1), (B, C)))
    assert spades == DealScore((2, 0, 0), NONE, whists({(B, A): 6, (C, A): 2}))
    no_trump = score_result(HIERARCHY, result(Kind.GAME, A, "6NT", (6, 3, 1), (B, C)))
    assert no_trump == DealScore((6, 0, 0), NONE, whists({(B, A): 18, (C, A): 6}))
    hearts = score_result(HIERARCHY, result(Kind.GAME, A, "7♥", (5, 3, 2), (B, C)))
    assert hearts == DealScore(NONE, (14, 0, 0), whists({(B, A): 35, (C, A): 28}))
    # The default (the "modern unified table"): the strain does not matter.
    assert score_result(DEFAULT, result(Kind.GAME, A, "6NT", (6, 3, 1), (B, C))).pool == (2, 0, 0)


# --- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"second_whister_shares": {9: 1}}, "rules.second_whister_shares"),
        (
            {"second_whister_shares": {7: 2}, "whist_obligations": Obligations.ALL},
            "rules.second_whister_shares",
        ),
        ({"half_whist_tricks": {8: 1}}, "rules.half_whist_tricks"),
        ({"half_whist_tricks": {6: 0}}, "rules.half_whist_tricks"),
        ({"half_whist_tricks": {6: 5}}, "rules.half_whist_tricks"),
        ({"strain_price_steps": (0, 1)}, "rules.strain_price_steps"),
        (
            {"strain_price_steps": (0, 1, 2, 3, 4), "whist_liability": WhistLiability.HALF},
            "rules.whist_liability",
        ),
        (
            {
                "whist_liability": WhistLiability.HALF_UNTIL_CLOSED,
                "whist_prices": dict.fromkeys((6, 7, 8, 9, 10), 3),
            },
            "rules.whist_liability",
        ),
    ],
)
def test_classic_whisting_options_are_checked(options: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidAction) as info:
        DEFAULT.with_options(**options)
    assert info.value.field == field


def test_classic_whisting_options_round_trip_as_json() -> None:
    rules = COMPLICATED.with_options(
        whist_liability=WhistLiability.HALF_UNTIL_CLOSED, strain_price_steps=(0, 2, 4, 6, 8)
    )
    assert RuleSet.from_dict(rules.to_dict()) == rules


def test_complicated_misere_whisting_events_and_seat_views() -> None:
    """The misère's whist calls are the existing events (domain/model/decisions.py): a whist
    is WhistCalled, a pass WhistPassed, and each reads back as its action; the seat views show
    the calls, the actor's legal calls and no defender's cards before the play."""
    from domain.model.decisions import record
    from domain.rules import seat_view

    state = _misere(COMPLICATED)
    rows = {str(action): record(action, state)[0].name for action in legal_actions(state)}
    assert rows == {"whist": "WhistCalled", "pass": "WhistPassed"}
    after = act(state, "whist")
    assert record(PASS, after)[0].name == "WhistPassed"
    assert record(WHIST, after)[0].name == "WhistCalled"
    view = seat_view(after, C)
    assert view.phase is Phase.WHISTING and view.legal == (WHIST, PASS)
    assert view.whist_calls == ((B, WHIST),) and view.whisters == (B,)
    assert view.hands[A] is None and view.hands[B] is None
    assert seat_view(after, A).legal == ()
