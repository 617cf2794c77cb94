"""Classic scoring (issue 12): bombs, bomb signs and dark games — RULES.md §3.5 "Classic",
TV-26, seed S000 "КЛАССИКА" ("Бомба", "Игры на взятие втемную", "Мизер втемную", "Игра на
бомбах", the robber in "Варианты правил для классики").

The auction (another branch) sets ``DealState.bomb``, ``bombers`` and ``dark``; here the scored
deal states are built with those fields set (``scored``), as the agreed interface says.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from domain.rules import (
    DEFAULT,
    DealResult,
    DealScore,
    GameState,
    Kind,
    Phase,
    ScoreSheet,
    score_result,
    settle_final,
)
from domain.rules.bombs import (
    CrossedSign,
    add_signs,
    bomb_trick_price,
    game_factor,
    score_bomb,
    sign_factor,
)
from domain.rules.game import finish_deal, new_game
from domain.rules.ruleset import RASPASY_PRICE_CEILING, RuleSet
from domain.rules.state import DealState
from tests.unit.rules_helpers import A, B, C, result, sample, whists

NONE = (0, 0, 0)


def scored(
    res: DealResult,
    *,
    bomb: int = 0,
    bombers: int = 0,
    dark: bool = False,
    rules: RuleSet = DEFAULT,
) -> DealState:
    """A scored deal with ``res`` and the Classic fields the auction would have set."""
    return sample(rules=rules).with_(
        phase=Phase.SCORED,
        to_act=-1,
        result=res,
        declarer=res.declarer,
        contract=res.contract,
        bomb=bomb,
        bombers=bombers,
        dark=dark,
    )


def game_with(
    signs: tuple[tuple[int, ...], ...] = (), *, rules: RuleSet = DEFAULT, number: int = 1
) -> GameState:
    return new_game(rules)._replace(bomb_signs=signs, deal_number=number)


def play(game: GameState, deal: DealState) -> tuple[GameState, DealScore]:
    """Finish ``deal`` in ``game`` (the next deal number), as the service does."""
    after, score, _ = finish_deal(game._replace(deal=deal, deal_number=game.deal_number + 1))
    return after, score


def bomb(tricks: tuple[int, int, int]) -> DealResult:
    return result(Kind.RASPASY, -1, None, tricks)


# --- bombs (raspasy declared dark) -------------------------------------------------------


@pytest.mark.parametrize(("level", "price"), [(1, 2), (2, 4), (3, 8), (4, 16), (5, 32)])
def test_tv26_bomb_trick_values(level: int, price: int) -> None:
    """TV-26: single 2, double 4, triple 8, then 16, 32 per trick (powers of 2), to gora."""
    assert bomb_trick_price(DEFAULT, level) == price
    score = score_result(DEFAULT, bomb((5, 3, 2)), bomb=level)
    assert score == DealScore(NONE, (5 * price, 3 * price, 2 * price), whists({}))


def test_tv26_bomb_zero_writes_the_bomb_price_to_pool() -> None:
    """S000: "За невзятие взяток на бомбах игроки … пишут в пулю по стоимости бомбы": a triple
    bomb taken 6-4-0: 48 and 32 to gora, 8 to C's pool."""
    score = score_result(DEFAULT, bomb((6, 4, 0)), bomb=3)
    assert score == DealScore((0, 0, 8), (48, 32, 0), whists({}))


def test_bomb_ignores_the_raspasy_progression_and_streak() -> None:
    """A bomb's price is its level's, not the raspasy series' (S000: "Двойные, тройные и т. д.
    бомбы – соответственно второй, третий и т. д. круги распасов втемную")."""
    rules = DEFAULT.with_options(raspasy_trick_prices=(1, 2, 3), raspasy_amnesty=True)
    assert score_result(rules, bomb((4, 3, 3)), 2, bomb=1).gora == (8, 6, 6)
    assert score_result(rules, bomb((4, 3, 3)), 2).gora == (1 * 3, 0, 0)  # ordinary: amnesty


def test_bomb_price_never_exceeds_the_ceiling() -> None:
    assert bomb_trick_price(DEFAULT, 30) == RASPASY_PRICE_CEILING
    with pytest.raises(ValueError):
        bomb_trick_price(DEFAULT, 0)


def test_bomb_trick_price_is_a_ruleset_field() -> None:
    rules = DEFAULT.with_options(bomb_trick_price=3)
    assert [bomb_trick_price(rules, level) for level in (1, 2, 3)] == [3, 6, 12]
    assert score_bomb(rules, bomb((10, 0, 0)), 2).pool == (0, 6, 6)


def test_tv26_bomb_gives_its_sign_to_the_bombers_only() -> None:
    """S000: "значок бомбы пишут себе только игроки, объявившие бомбу. Посмотревший в карты и
    сказавший “пас” этого значка не ставит": A and B declared a double bomb, C looked."""
    game, score = play(game_with(), scored(bomb((5, 3, 2)), bomb=2, bombers=0b011))
    assert score.gora == (20, 12, 8)
    assert game.bomb_signs == ((2,), (2,), ())
    assert game.bomb_signs_crossed == ()


def test_signs_are_recorded_in_the_order_the_bombs_were_played() -> None:
    """S000: "Игроки записывают бомбы строго по порядку в соответствии с сыгранными" and later
    bombs are added "в порядке их получения": single, triple, single."""
    game = game_with()
    for level, bombers in ((1, 0b111), (3, 0b001), (1, 0b101)):
        game, _ = play(game, scored(bomb((4, 3, 3)), bomb=level, bombers=bombers))
    assert game.bomb_signs == ((1, 3, 1), (1,), (1, 1))


def test_an_ordinary_raspasy_gives_no_sign_and_keeps_its_price() -> None:
    """Defaults unchanged: a raspasy without bomb or bombers writes 1 per trick, no sign."""
    game, score = play(game_with(), scored(bomb((4, 3, 3))))
    assert score.gora == (4, 3, 3) and game.bomb_signs == ()


def test_a_bird_on_an_ordinary_raspasy_is_a_single_sign() -> None:
    """S000 "Хулиганка": "Игра на птичке аналогична игре на одинарной бомбе": bombers marked on an
    ordinary raspasy (level 0) get a single sign; the raspasy keeps its ordinary price."""
    game, score = play(game_with(), scored(bomb((4, 3, 3)), bombers=0b100))
    assert score.gora == (4, 3, 3)
    assert game.bomb_signs == ((), (), (1,))


# --- games on bomb signs ---------------------------------------------------------------


@pytest.mark.parametrize(("sign", "factor"), [(0, 1), (1, 2), (2, 4), (3, 8), (4, 16)])
def test_tv26_sign_multipliers(sign: int, factor: int) -> None:
    """S000 "Игра на бомбах": on a single bomb "за шестерную – 4, за семерную – 8"; double ×4,
    triple ×8, quadruple ×16."""
    assert sign_factor(sign) == factor
    six = score_result(DEFAULT, result(Kind.GAME, A, "6♠", (6, 2, 2), (B, C)), sign=sign)
    seven = score_result(DEFAULT, result(Kind.GAME, A, "7♠", (7, 2, 1), (B, C)), sign=sign)
    assert (six.pool[A], seven.pool[A]) == (2 * factor, 4 * factor)


def test_tv26_single_bomb_six_four_seven_eight() -> None:
    """S000: "объявивший … простую игру на одинарной бомбе пишет на нее вдвое, то есть за
    шестерную – 4, за семерную – 8"."""
    six = score_result(DEFAULT, result(Kind.PASSED_OUT, A, "6♥", NONE), sign=1)
    seven = score_result(DEFAULT, result(Kind.PASSED_OUT, A, "7♥", NONE), sign=1)
    assert (six.pool, seven.pool) == ((4, 0, 0), (8, 0, 0))


def test_tv26_failed_game_on_a_sign_penalty_and_whists_multiplied() -> None:
    """S000: "За подсад и висты пишется по стоимости игры соответственно": 7♠ two down on a
    double sign: every entry ×4 — declarer 2 × 4 × 4 = 32 gora; B (4 tricks + 2 consolation) × 4
    × 4 = 96, C (1 + 2) × 4 × 4 = 48 whists."""
    res = result(Kind.GAME, A, "7♠", (5, 4, 1), (B, C))
    plain = score_result(DEFAULT, res)
    assert plain == DealScore(NONE, (8, 0, 0), whists({(B, A): 24, (C, A): 12}))
    assert score_result(DEFAULT, res, sign=2) == DealScore(
        NONE, (32, 0, 0), whists({(B, A): 96, (C, A): 48})
    )


def test_whister_penalty_on_a_sign_is_multiplied() -> None:
    """Decision (S000 "по стоимости игры"): a whister's penalty is priced on the game too: a
    nine made on a single sign, the lone whister took nothing: 8 × 2 = 16 to his gora (TV-19)."""
    res = result(Kind.GAME, A, "9♦", (10, 0, 0), (B,), (C,))
    assert score_result(DEFAULT, res).gora == (0, 8, 0)
    assert score_result(DEFAULT, res, sign=1) == DealScore((16, 0, 0), (0, 16, 0), whists({}))


def test_tv26_signs_are_played_in_order_single_triple_single() -> None:
    """S000: "имеющий запись: [1], [3], [1] играет первую игру на одинарной бомбе, вторую – на
    тройной, третью – опять на одинарной"; each made game crosses its sign out."""
    game = game_with(((1, 3, 1), (), ()))
    game, six = play(game, scored(result(Kind.GAME, A, "6♠", (6, 2, 2), (B, C))))
    assert six.pool[A] == 4 and game.bomb_signs == ((3, 1), (), ())
    game, misere = play(game, scored(result(Kind.MISERE, A, "misère", (0, 5, 5))))
    assert misere.pool[A] == 80 and game.bomb_signs == ((1,), (), ())
    game, seven = play(game, scored(result(Kind.PASSED_OUT, A, "7♣", NONE)))
    assert seven.pool[A] == 8 and game.bomb_signs == ((), (), ())
    assert game.bomb_signs_crossed == (
        (CrossedSign(1, 2, "6♠"), CrossedSign(3, 3, "misère"), CrossedSign(1, 4, "7♣")),
        (),
        (),
    )
    game, plain = play(game, scored(result(Kind.PASSED_OUT, A, "7♣", NONE)))
    assert plain.pool[A] == 4, 'S000: "Если все бомбы закрыты, игрок играет за обычную стоимость"'


def test_tv26_failed_game_leaves_the_sign() -> None:
    """S000: "Если в результате игры игрок подсел, то бомба остается": his next game is on it."""
    game = game_with(((2, 1), (), ()))
    game, failed = play(game, scored(result(Kind.GAME, A, "6♠", (5, 3, 2), (B, C))))
    assert failed.gora[A] == 2 * 4 and game.bomb_signs == ((2, 1), (), ())
    assert game.bomb_signs_crossed == ()
    game, made = play(game, scored(result(Kind.GAME, A, "6♠", (7, 2, 1), (B, C))))
    assert made.pool[A] == 2 * 4 and game.bomb_signs == ((1,), (), ())


def test_failed_misere_on_a_sign_is_multiplied_and_keeps_it() -> None:
    game, score = play(
        game_with(((1,), (), ())), scored(result(Kind.MISERE, A, "misère", (2, 4, 4)))
    )
    assert score.gora == (40, 0, 0) and game.bomb_signs == ((1,), (), ())


def test_conceded_game_on_a_sign_is_a_failure() -> None:
    """ "Without three" writes undertricks at the game's value: multiplied, the sign stays."""
    rules = DEFAULT.with_options(concede_undertricks=3)
    game = game_with(((1,), (), ()), rules=rules)
    game, score = play(game, scored(result(Kind.CONCEDED, A, "6♠", NONE), rules=rules))
    assert score.gora == (12, 0, 0) and game.bomb_signs == ((1,), (), ())


def test_only_the_declarers_sign_counts() -> None:
    """A bomb is the coefficient of the game of the player who has it ("Игрок, у которого
    имеется … значок … играет на бомбе"): a whister's signs change nothing and stay."""
    game = game_with(((), (3,), (1,)))
    game, score = play(game, scored(result(Kind.GAME, A, "7♠", (7, 2, 1), (B, C))))
    assert score == DealScore((4, 0, 0), NONE, whists({(B, A): 8, (C, A): 4}))
    assert game.bomb_signs == ((), (3,), (1,))


def test_raspasy_does_not_play_on_a_sign() -> None:
    """Raspasy (and a bomb) is not a declared game: the signs are neither used nor crossed."""
    game, score = play(game_with(((1,), (1,), (1,))), scored(bomb((4, 3, 3))))
    assert score.gora == (4, 3, 3) and game.bomb_signs == ((1,), (1,), (1,))


def test_a_void_underbid_game_does_not_use_the_sign() -> None:
    """Decision: a proved underbid voids the game (TV-25) — nothing is multiplied or crossed."""
    game = game_with(((1,), (), ()))
    game, score = play(game, scored(result(Kind.UNDERBID, A, "7♠", (8, 1, 1), (B, C))))
    assert score.gora == (2, 0, 0) and game.bomb_signs == ((1,), (), ())


# --- dark games --------------------------------------------------------------------------


def test_tv26_dark_game_doubles() -> None:
    """S000: "Игра, объявленная втемную, ценится вдвойне, то есть шестерная – по 4, семерная – по
    8 и т. д."."""
    six = score_result(DEFAULT, result(Kind.GAME, A, "6♠", (6, 4, 0), (B, C)), dark=True)
    seven = score_result(DEFAULT, result(Kind.GAME, A, "7♠", (7, 3, 0), (B, C)), dark=True)
    assert six == DealScore((4, 0, 0), NONE, whists({(B, A): 16}))
    assert seven == DealScore((8, 0, 0), NONE, whists({(B, A): 24}))
    assert game_factor(DEFAULT, dark=True, sign=0) == 2


def test_tv26_dark_game_penalties_and_whists_doubled() -> None:
    """S000: "Вдвойне также пишутся и ремизы, и висты по стоимости игры": 6♠ taken 4, whist–pass:
    declarer 2 × 2 × 2 = 8 gora; whister (6 + 2) × 2 × 2 = 32, passer 2 × 2 × 2 = 8 whists."""
    res = result(Kind.GAME, A, "6♠", (4, 5, 1), (B,), (C,))
    assert score_result(DEFAULT, res) == DealScore(NONE, (4, 0, 0), whists({(B, A): 16, (C, A): 4}))
    assert score_result(DEFAULT, res, dark=True) == DealScore(
        NONE, (8, 0, 0), whists({(B, A): 32, (C, A): 8})
    )


def test_tv26_dark_misere_twenty() -> None:
    """S000: "Сыгранный мизер ценится в 20 очков. Каждая взятка также 20 очков"."""
    made = score_result(DEFAULT, result(Kind.MISERE, B, "misère", (5, 0, 5)), dark=True)
    failed = score_result(DEFAULT, result(Kind.MISERE, B, "misère", (4, 3, 3)), dark=True)
    assert made == DealScore((0, 20, 0), NONE, whists({}))
    assert failed == DealScore(NONE, (0, 60, 0), whists({}))


def test_dark_misere_price_is_its_own_field() -> None:
    """The seed prices the dark misère at 20 whatever the light misère costs (Leningrad 15)."""
    rules = DEFAULT.with_options(misere_value=15, misere_trick_penalty=20)
    made = score_result(rules, result(Kind.MISERE, B, "misère", (5, 0, 5)), dark=True)
    assert made.pool == (0, 20, 0)
    rules = rules.with_options(dark_misere_value=30, dark_misere_trick_penalty=25)
    failed = score_result(rules, result(Kind.MISERE, B, "misère", (4, 1, 5)), dark=True)
    assert failed.gora == (0, 25, 0)


def test_tv26_double_bomb_dark_seven_is_32() -> None:
    """S000: "играющий на двойной бомбе пику втемную при назначении семерной получает 4х2х4=32
    очка"; through the game: A owes a double sign, plays 7♠ dark and makes it."""
    assert game_factor(DEFAULT, dark=True, sign=2) == 8
    res = result(Kind.GAME, A, "7♠", (7, 3, 0), (B, C))
    assert score_result(DEFAULT, res, dark=True, sign=2).pool == (32, 0, 0)
    game, score = play(game_with(((2,), (), ())), scored(res, dark=True))
    assert score.pool == (32, 0, 0)
    assert game.bomb_signs == ((), (), ())
    assert game.bomb_signs_crossed == ((CrossedSign(2, 2, "7♠"),), (), ())
    assert game.sheet.pool[A] == 20, "32 points: own pool closed, the rest helps"


def test_dark_misere_on_a_sign_is_multiplied_by_the_sign() -> None:
    """S000: "Игрок, играющий втемную на бомбе, умножает запись": dark misère on a single: 40."""
    res = result(Kind.MISERE, A, "misère", (0, 5, 5))
    assert score_result(DEFAULT, res, dark=True, sign=1).pool == (40, 0, 0)


def test_dark_multiplier_is_a_ruleset_field() -> None:
    rules = DEFAULT.with_options(dark_multiplier=3)
    res = result(Kind.PASSED_OUT, A, "8♠", NONE)
    assert score_result(rules, res, dark=True).pool == (18, 0, 0)


def test_classic_fields_are_validated() -> None:
    from domain.rules import InvalidAction

    for name in ("bomb_trick_price", "dark_multiplier"):
        with pytest.raises(InvalidAction):
            DEFAULT.with_options(**{name: 0})


def test_classic_fields_round_trip_through_the_recorded_form() -> None:
    rules = DEFAULT.with_options(
        bomb_trick_price=4, dark_multiplier=3, dark_misere_value=25, dark_misere_trick_penalty=30
    )
    assert RuleSet.from_dict(rules.to_dict()) == rules


def test_add_signs_without_bombers_is_unchanged() -> None:
    assert add_signs((), 0, 2, 3) == ()
    assert add_signs(((1,), (), ()), 0b010, 2, 3) == ((1,), (2,), ())


@pytest.mark.parametrize(
    ("order", "ledger"),
    [
        ((1, 1, 1, 2, 2, 2, 3, 3, 3), (1, 1, 1, 2, 2, 2, 3, 3, 3)),  # variant 2: rounds
        ((1, 2, 3, 1, 2, 3, 1, 2, 3), (1, 2, 3, 1, 2, 3, 1, 2, 3)),  # variant 1: same dealer
    ],
)
def test_tv26_three_rounds_of_bombs_give_nine_signs_in_order(
    order: tuple[int, ...], ledger: tuple[int, ...]
) -> None:
    """TV-26 / S000: after three rounds of bombs before the pool "каждый получил по 9 бомб",
    recorded "строго по порядку"; with three players nobody sits on the talon, so every seat
    declares every bomb (the 4-player dealer's exception is out of scope)."""
    game = game_with()
    for level in order:
        game, _ = play(game, scored(bomb((4, 3, 3)), bomb=level, bombers=0b111))
    assert game.bomb_signs == (ledger, ledger, ledger)


def test_after_a_bomb_the_next_raspasy_is_single() -> None:
    """S000: "Когда после объявленной и разыгранной бомбы все три игрока … говорят “пас”,
    производятся обычные одинарные распасы": a bomb ends the raspasy series (streak 0), so the
    next ordinary raspasy costs the first price of a progression."""
    rules = DEFAULT.with_options(raspasy_trick_prices=(1, 2, 3))
    game = game_with(rules=rules)._replace(raspasy_streak=2)
    game, _ = play(game, scored(bomb((4, 3, 3)), bomb=1, bombers=0b001, rules=rules))
    assert game.raspasy_streak == 0
    after_bomb = scored(bomb((4, 3, 3)), rules=rules).with_(raspasy_streak=game.raspasy_streak)
    game, plain = play(game, after_bomb)
    assert plain.gora == (4, 3, 3) and game.raspasy_streak == 1
    game, double = play(game, after_bomb.with_(raspasy_streak=game.raspasy_streak))
    assert double.gora == (8, 6, 6)


def test_tv26_a_hand_computed_classic_sheet() -> None:
    """Five deals written by hand (pool 20, Sochi-like default prices), then settled:

    1. single bomb, all declare, 5-3-2: gora 10, 6, 4; signs A 1, B 1, C 1.
    2. double bomb, A and B declare, 4-6-0: gora 16, 24; C's zero 4 to pool; A 1 2, B 1 2.
    3. A 7♠ on his single, 7-2-1, both whist: pool 4 × 2 = 8; B 2 × 4 × 2 = 16, C 8 whists on
       A; A's single crossed out.
    4. A 6♥ dark on his double (× 2 × 4 = × 8), 6-4-0, B whists, C passes: 2 × 8 = 16 points:
       12 close A's pool (8 → 20), 4 help C (pool 4, the largest open; → 8) and A writes 40
       whists on C; B writes 4 × 2 × 8 = 64 on A.
    5. B dark misère on his single, one trick: 20 × 2 = 40 gora; his single stays.
    """
    game = game_with(number=0)
    game, _ = play(game, scored(bomb((5, 3, 2)), bomb=1, bombers=0b111))
    game, _ = play(game, scored(bomb((4, 6, 0)), bomb=2, bombers=0b011))
    seven = result(Kind.GAME, A, "7♠", (7, 2, 1), (B, C))
    game, _ = play(game, scored(seven))
    six = result(Kind.GAME, A, "6♥", (6, 4, 0), (B,), (C,))
    game, dark_six = play(game, scored(six, dark=True))
    assert dark_six == DealScore((16, 0, 0), NONE, whists({(B, A): 64}))
    misere = result(Kind.MISERE, B, "misère", (5, 1, 4))
    game, _ = play(game, scored(misere, dark=True))
    assert game.sheet == ScoreSheet(
        (20, 0, 8), (26, 70, 4), whists({(B, A): 80, (C, A): 8, (A, C): 40})
    )
    assert game.bomb_signs == ((), (1, 2), (1,))
    assert game.bomb_signs_crossed == (
        (CrossedSign(1, 3, "7♠"), CrossedSign(2, 4, "6♥")),
        (),
        (),
    )
    # Early stop (pools open): B +20, C +12 to gora → 26, 90, 16; mean 44; × 10 per point.
    totals = settle_final(game.sheet, DEFAULT)
    # A (44 − 26) × 10 + 40 − 88 = 132; B (44 − 90) × 10 + 80 = −380; C (44 − 16) × 10 + 8 − 40.
    assert totals == tuple(Fraction(x) for x in (132, -380, 248))


def test_whisted_dark_misere_is_priced_at_the_dark_misere_throughout() -> None:
    """Complicated whisting (S000) whists a misère at its value: on a dark misère that value is
    20 (TV-26), doubled like a dark game's whists and penalties ("Вдвойне также пишутся и
    ремизы, и висты"): a made dark misère costs its whister 20 gora; a trick given, 20 whists
    per trick; on a single sign all of it ×2."""
    rules = DEFAULT.with_options(misere_whisted=True)
    made = result(Kind.MISERE, A, "misère", (0, 5, 5), (B,))
    assert score_result(rules, made) == DealScore((10, 0, 0), (0, 10, 0), whists({}))
    assert score_result(rules, made, dark=True) == DealScore((20, 0, 0), (0, 20, 0), whists({}))
    given = result(Kind.MISERE, A, "misère", (2, 4, 4), (B, C))
    assert score_result(rules, given, dark=True, sign=1) == DealScore(
        NONE, (80, 0, 0), whists({(B, A): 80, (C, A): 80})
    )


def test_a_leaving_players_signs_leave_with_him() -> None:
    """Decision (TV-27 joining, S000 "значок бомбы пишут себе только игроки, объявившие
    бомбу"): the newcomer in a seat owes none of the leaver's signs; the others keep theirs;
    the crossed-out history stays on the sheet."""
    from domain.rules.game import replace_player

    crossed = ((), (CrossedSign(1, 2, "6♠"),), ())
    game = game_with(((1,), (2, 1), (3,)))._replace(bomb_signs_crossed=crossed)
    after = replace_player(game, B)
    assert after.bomb_signs == ((1,), (), (3,))
    assert after.bomb_signs_crossed == crossed
    assert replace_player(game_with(), A).bomb_signs == ()
