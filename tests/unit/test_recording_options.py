"""Recording, help, settlement and ending options (issue 11, RULES.md §3.4, §3.0; A-16, A-20,
C-5, C-6, C-7; seeds S000 "Порядок записи", "Первый/Второй способ расчета", "ПРАВИЛА ДЛЯ ОСОБЫХ
СЛУЧАЕВ", S004 Leningrad and "скачки"). The 3-player numbers are worked by hand in each test."""

from __future__ import annotations

import hashlib
from fractions import Fraction

import pytest

from domain.bots import make_bot
from domain.rules import (
    DEFAULT,
    Adjustment,
    DealScore,
    Ending,
    GameOver,
    Help,
    HelpTie,
    IllegalAction,
    InvalidAction,
    Leftover,
    Race,
    RuleSet,
    ScoreSheet,
    SettlementMethod,
    call_time,
    early_stop,
    final_sheet,
    joining_position,
    new_game,
    play_game,
    record,
    settle,
    settle_final,
    settlement,
    shuffle_from_seed,
    start_deal,
    stop_early,
)
from domain.rules.ruleset import PreferansHand
from domain.rules.settlement import settlement as settle_goras
from tests.unit.rules_helpers import A, B, C, whists

ORDER = (A, B, C)
NONE = (0, 0, 0)
BOT = make_bot()


def points(pool: tuple[int, int, int], gora: tuple[int, int, int] = NONE) -> DealScore:
    return DealScore(pool, gora, whists({}))


def sheet_of(pool: tuple[int, int, int], gora: tuple[int, int, int] = NONE) -> ScoreSheet:
    return ScoreSheet(pool, gora, whists({}))


# ------------------------------------------------------------------------------------------
# 1. Help: recipient, tie, eligibility, leftovers


def test_c7_sochi_help_tie_goes_to_the_left_of_the_helper_whatever_the_gora() -> None:
    """C-7 (RULES.md §5.1; S000 "СОЧИНКА" summary): on a tie the closer helps the player to his
    left — the next clockwise from the helper (A-20) — even if that player's gora is larger."""
    sochi = DEFAULT.with_options(help_tie=HelpTie.CLOCKWISE)
    _, entry = record(sheet_of((20, 15, 15), (0, 9, 1)), points((2, 0, 0)), sochi, ORDER)
    assert entry.helps == (Help(A, B, 2),)
    _, entry = record(sheet_of((15, 15, 20), (0, 9, 1)), points((0, 0, 2)), sochi, ORDER)
    assert entry.helps == (Help(C, A, 2),)


def test_a16_s000_general_tie_smaller_gora_then_left() -> None:
    """A-16 (S000 "Порядок записи"): tie → the smaller gora; equal goras → to the left."""
    rules = DEFAULT.with_options(help_tie=HelpTie.SMALLER_GORA)
    _, entry = record(sheet_of((20, 15, 15), (0, 9, 1)), points((2, 0, 0)), rules, ORDER)
    assert entry.helps == (Help(A, C, 2),)
    _, entry = record(sheet_of((20, 15, 15), (0, 4, 4)), points((2, 0, 0)), rules, ORDER)
    assert entry.helps == (Help(A, B, 2),)


def test_tv15_help_whists_are_ten_a_point_under_every_help_option() -> None:
    """TV-15 (S000 "Порядок записи", "СОЧИНКА"): 4 points helped → 40 whists; a closer's six →
    2 points and 20 whists, whichever tie and eligibility rule is agreed."""
    for rules in (
        DEFAULT,
        DEFAULT.with_options(help_tie=HelpTie.SMALLER_GORA),
        DEFAULT.with_options(help_failed_whister=False),
        DEFAULT.with_options(raspasy_zero_helps=False, leftover=Leftover.BELOW_ZERO),
    ):
        new, entry = record(sheet_of((20, 10, 4)), points((4, 0, 0)), rules, ORDER)
        assert entry.helps == (Help(A, B, 4),)
        assert new.whists == whists({(A, B): 40})
        new, entry = record(sheet_of((18, 20, 12)), points((0, 2, 0)), rules, ORDER)
        assert entry.helps == (Help(B, A, 2),)
        assert new.whists == whists({(B, A): 20})


def test_a16_s000_a_whister_who_failed_this_deal_is_not_helped() -> None:
    """A-16 (S000 general): the largest pool belongs to a whister penalised this deal → the help
    goes to the next largest; S001 (default) helps him normally."""
    score = points((4, 0, 0), (0, 2, 0))
    strict = DEFAULT.with_options(help_failed_whister=False)
    _, entry = record(sheet_of((20, 16, 10)), score, strict, ORDER, failed=(B,))
    assert entry.helps == (Help(A, C, 4),)
    _, entry = record(sheet_of((20, 16, 10)), score, DEFAULT, ORDER, failed=(B,))
    assert entry.helps == (Help(A, B, 4),)


def test_a16_failed_whister_the_only_open_pool_points_go_off_own_gora() -> None:
    """With the only unclosed pool barred, the points are leftovers: own gora 3 → 0, the excess
    1 added to each opponent's gora (§1.10)."""
    strict = DEFAULT.with_options(help_failed_whister=False)
    new, entry = record(
        sheet_of((20, 16, 20), (3, 0, 0)), points((4, 0, 0)), strict, ORDER, failed=(B,)
    )
    assert entry.helps == ()
    assert new.pool == (20, 16, 20)
    assert new.gora == (0, 1, 1)


def test_s000_conv_a_raspasy_zero_does_not_help_excess_is_lost() -> None:
    """S000 conv.: a raspasy zero with a closed pool may not help: the point goes off his own
    gora (2 → 1) and, with no gora left, is lost (nobody's gora grows)."""
    rules = DEFAULT.with_options(raspasy_zero_helps=False)
    new, entry = record(
        sheet_of((20, 10, 4), (2, 5, 5)), points((1, 0, 0)), rules, ORDER, raspasy=True
    )
    assert entry.helps == ()
    assert new.gora == (1, 5, 5)
    new, _ = record(sheet_of((20, 10, 4), (0, 5, 5)), points((1, 0, 0)), rules, ORDER, raspasy=True)
    assert new.gora == (0, 5, 5) and new.pool == (20, 10, 4)
    # The default helps (§1.10): 1 point to B, 10 whists.
    new, entry = record(
        sheet_of((20, 10, 4), (0, 5, 5)), points((1, 0, 0)), DEFAULT, ORDER, raspasy=True
    )
    assert entry.helps == (Help(A, B, 1),)
    # A made game still helps under the convention (it concerns raspasy zeros only).
    _, entry = record(sheet_of((20, 10, 4)), points((1, 0, 0)), rules, ORDER)
    assert entry.helps == (Help(A, B, 1),)


def test_s000_conv_leftover_below_zero_settles_the_same() -> None:
    """S000 conv.: leftovers are written off one's own gora even below zero: gora 1, 3 points
    left → −2 (S001: 0 and +2 on each opponent). The settlements are equal (§3.4 "equivalent")."""
    below = DEFAULT.with_options(leftover=Leftover.BELOW_ZERO)
    start = sheet_of((20, 20, 20), (1, 4, 7))
    new_below, _ = record(start, points((3, 0, 0)), below, ORDER)
    new_default, _ = record(start, points((3, 0, 0)), DEFAULT, ORDER)
    assert new_below.gora == (-2, 4, 7)
    assert new_default.gora == (0, 6, 9)
    assert settle(new_below, below) == settle(new_default, DEFAULT)
    # avg 3: A 10 × (3 + 2) = 50, B −10, C −40.
    assert settle(new_below, below) == q(50, -10, -40)


# ------------------------------------------------------------------------------------------
# 2. Settlement methods 1 and 2, the integer adjustment

S, Z, V, YU = 0, 1, 2, 3
TV21_GORA = (0, 5, 15, 11)


def tv21_whists() -> tuple[tuple[int, ...], ...]:
    nets = {(S, Z): 2, (S, V): -10, (S, YU): -42, (Z, V): -50, (Z, YU): -78, (V, YU): 0}
    entries: dict[tuple[int, int], int] = {}
    for (x, y), net in nets.items():
        if net > 0:
            entries[x, y] = net
        elif net < 0:
            entries[y, x] = -net
    return whists(entries, players=4)


def q(*values: int | Fraction) -> tuple[Fraction, ...]:
    """Exact results, as ``settle`` gives them."""
    return tuple(Fraction(v) for v in values)


def half(x: int) -> Fraction:
    return Fraction(x, 2)


def test_tv21_method1_amnesty_pairwise_terms_as_printed() -> None:
    """TV-21 (S000 "Первый способ расчета … Пример расчета"), 4 players: С +14.5 −14.5 +27.5,
    З −14.5 −25 −63, В −27.5 +25 −10, Ю +63 +14.5 +10 → +27.5 / −102.5 / −12.5 / +87.5."""
    out = settle_goras(TV21_GORA, tv21_whists(), 10, SettlementMethod.AMNESTY)
    assert out.adjustment is None
    p = out.pairwise
    assert (p[S][Z], p[S][YU], p[S][V]) == (half(29), half(-29), half(55))
    assert (p[Z][S], p[Z][V], p[Z][YU]) == q(half(-29), -25, -63)
    assert (p[V][S], p[V][Z], p[V][YU]) == q(half(-55), 25, -10)
    assert (p[YU][Z], p[YU][S], p[YU][V]) == q(63, half(29), 10)
    assert out.totals == (half(55), half(-205), half(-25), half(175))


def test_tv21_method1_integer_adjustment_one_point_off_the_amnesty_gora() -> None:
    """TV-21 adjustment: 1 point off С's gora before the amnesty, the others write ⌊10/4⌋ = 2
    whists each on С → С +15 −14 +28 = +29, З −103, В −13, Ю +87."""
    out = settle_goras(TV21_GORA, tv21_whists(), 10, SettlementMethod.AMNESTY, integer=True)
    assert out.adjustment == Adjustment(S, -1, 2)
    p = out.pairwise
    assert (p[S][Z], p[S][YU], p[S][V]) == q(15, -14, 28)
    assert (p[Z][S], p[Z][V], p[Z][YU]) == q(-15, -25, -63)
    assert (p[V][S], p[V][Z], p[V][YU]) == q(-28, 25, -10)
    assert (p[YU][Z], p[YU][S], p[YU][V]) == q(63, 14, 10)
    assert out.totals == q(29, -103, -13, 87)


def test_tv22_method2_integer_adjustment_one_point_on_the_largest_result() -> None:
    """TV-22 (S000 "Второй способ расчета"): 31 : 4 = 7.75; 1 point added to Ю (the largest
    result) → average 8, Ю writes 2 whists on each other → +28 / −102 / −12 / +86."""
    exact = settle_goras(TV21_GORA, tv21_whists(), 10, SettlementMethod.AVERAGE)
    assert exact.totals == (half(55), half(-205), half(-25), half(175))
    out = settle_goras(TV21_GORA, tv21_whists(), 10, SettlementMethod.AVERAGE, integer=True)
    assert out.adjustment == Adjustment(YU, 1, 2)
    assert out.totals == q(28, -102, -12, 86)


def test_three_player_methods_agree_without_adjustment_and_differ_only_in_its_seat() -> None:
    """3 players, worked by hand: goras A 0, B 5, C 11, C wrote 100 whists on A.
    Exact: avg 16/3; A 10·16/3 − 100 = −140/3, B 10/3, C −170/3 + 100 = 130/3.
    Method 1 (amnesty, A): A −1 → goras −1/5/11, avg 5: A 60 − 6 − 100 = −46, B 0 + 3 = 3,
    C −60 + 3 + 100 = 43. Method 2 (largest result C): +1 gives 17 (not whole), so C −1 →
    0/5/10, avg 5: A 50 + 3 − 100 = −47, B 3, C −50 − 6 + 100 = 44."""
    gora = (0, 5, 11)
    w = whists({(C, A): 100})
    for method in SettlementMethod:
        assert settle_goras(gora, w, 10, method).totals == (
            Fraction(-140, 3),
            Fraction(10, 3),
            Fraction(130, 3),
        )
    one = settle_goras(gora, w, 10, SettlementMethod.AMNESTY, integer=True)
    assert one.adjustment == Adjustment(A, -1, 3)
    assert one.totals == q(-46, 3, 43)
    two = settle_goras(gora, w, 10, SettlementMethod.AVERAGE, integer=True)
    assert two.adjustment == Adjustment(C, -1, 3)
    assert two.totals == q(-47, 3, 44)


def test_three_player_adjustment_adds_a_point_when_subtracting_does_not_make_it_whole() -> None:
    """Goras 0/4/4 (sum 8): −1 leaves 70/3, so A (amnesty) gets +1 → 1/4/4, avg 3: A 20 + 2·3 =
    26, B −10 − 3 = −13, C −13 (exact: 80/3, −40/3, −40/3)."""
    rules = DEFAULT.with_options(
        settlement_method=SettlementMethod.AMNESTY, settlement_integer=True
    )
    sheet = sheet_of((20, 20, 20), (0, 4, 4))
    assert settle(sheet, DEFAULT) == (Fraction(80, 3), Fraction(-40, 3), Fraction(-40, 3))
    assert settlement(sheet, rules).adjustment == Adjustment(A, 1, 3)
    assert settle(sheet, rules) == q(26, -13, -13)


def test_whole_settlements_need_no_adjustment() -> None:
    rules = DEFAULT.with_options(settlement_integer=True)
    sheet = sheet_of((20, 20, 20), (0, 3, 6))
    assert settlement(sheet, rules).adjustment is None
    assert settle(sheet, rules) == settle(sheet, DEFAULT) == q(30, 0, -30)


# ------------------------------------------------------------------------------------------
# 3. Endings


def test_tv38_leningrad_pool_sum_pools_are_not_capped_and_nobody_helps() -> None:
    """TV-38 (S004; C-5): ending by the sum of pools — a pool may pass the target; no help."""
    rules = DEFAULT.with_options(ending=Ending.POOL_SUM)
    new, entry = record(sheet_of((18, 10, 10)), points((6, 0, 0)), rules, ORDER)
    assert new.pool == (24, 10, 10) and entry.helps == ()
    assert not new.all_closed(rules)


def test_tv38_leningrad_ending_doubled_difference_worked_for_three() -> None:
    """TV-38, 3 players, pool to 20 (sum 60): pools 24/19/15, goras 6/0/3; B makes a six
    (2 points) → pools 24/21/15 = 60, the game ends. Mean 20: A writes off 2·4 = 8 (6 → −2),
    B writes off 2·1 = 2 (0 → −2), C puts 2·5 = 10 (3 → 13). Sum 9, avg 3: A 10·(3+2) = 50,
    B 50, C 10·(3−13) = −100."""
    rules = DEFAULT.with_options(ending=Ending.POOL_SUM)
    new, _ = record(sheet_of((24, 19, 15), (6, 0, 3)), points((0, 2, 0)), rules, ORDER)
    assert new.pool == (24, 21, 15) and new.all_closed(rules)
    final = final_sheet(new, rules)
    assert final.gora == (-2, -2, 13)
    assert settle(final, rules) == q(50, 50, -100)


def test_tv38_points_beyond_the_total_are_leftovers() -> None:
    """The last award fills the sum to 60 (2 of B's 4 points); the other 2 go off B's gora
    (1 → 0, excess 1 to each opponent, §1.10)."""
    rules = DEFAULT.with_options(ending=Ending.POOL_SUM)
    new, _ = record(sheet_of((24, 19, 15), (6, 1, 3)), points((0, 4, 0)), rules, ORDER)
    assert new.pool == (24, 21, 15)
    assert new.gora == (7, 0, 4)


def test_tv38_stopped_before_the_sum_is_reached_uses_the_early_stop_rule() -> None:
    rules = DEFAULT.with_options(ending=Ending.POOL_SUM)
    sheet = sheet_of((24, 19, 5), (0, 0, 0))
    assert final_sheet(sheet, rules) == early_stop(sheet, rules)
    assert final_sheet(sheet, rules).gora == (0, 1, 15)


def test_tv39_race_winner_and_amnestier_write_the_prize_c6() -> None:
    """TV-39 (S004 "5 по 20"; C-6), 3 players: pools 18/10/5, goras 4/2/6; A makes a six → 20:
    A wins the race and writes 100 on B and C; B has the smallest gora and writes 100 on A and
    C. A and B cancel; C pays 200. Pools restart from zero; gora and whists carry on."""
    rules = DEFAULT.with_options(races=5)
    new, entry = record(sheet_of((18, 10, 5), (4, 2, 6)), points((2, 0, 0)), rules, ORDER)
    assert entry.race == Race(A, B)
    assert new.pool == (0, 0, 0) and new.gora == (4, 2, 6)
    assert new.whists == whists({(A, B): 100, (A, C): 100, (B, A): 100, (B, C): 100})
    totals = settle(new, rules)
    # avg 4: A 0 + 200 − 100 = 100, B 20 + 200 − 100 = 120, C −20 − 200 = −220.
    assert totals == q(100, 120, -220)


def test_tv39_winner_who_also_has_the_smallest_gora_writes_both_prizes() -> None:
    rules = DEFAULT.with_options(races=5)
    new, entry = record(sheet_of((18, 10, 5), (0, 2, 6)), points((4, 0, 0)), rules, ORDER)
    assert entry.race == Race(A, A)
    assert new.whists == whists({(A, B): 200, (A, C): 200})
    # Points beyond the target are leftovers: 2 off A's gora (0 → 0, +2 to each other).
    assert new.gora == (0, 4, 8)


def seed(n: int) -> bytes:
    return hashlib.sha256(f"settle-{n}".encode()).digest()


def test_ending_by_a_fixed_number_of_deals_settles_by_the_early_stop_rule() -> None:
    """§3.4 (S004): a game of 4 deals ends after the 4th; unclosed pools → early-stop rule."""
    rules = DEFAULT.with_options(ending=Ending.DEALS, ending_deals=4)
    game = play_game(seed(1), [BOT] * 3, rules)
    assert game.finished and len(game.deals) == 4
    assert game.settlement == settle(early_stop(game.sheet, rules), rules)
    assert sum(game.settlement) == 0


@pytest.mark.parametrize("races", [1, 2])
def test_games_of_races_end_after_the_last_race(races: int) -> None:
    rules = DEFAULT.with_options(races=races, pool_target=6)
    game = play_game(seed(races + 10), [BOT] * 3, rules)
    assert game.finished
    assert sum(1 for d in game.deals if d.entry.race is not None) == races
    assert game.deals[-1].entry.race is not None
    assert sum(game.settlement) == 0


def test_time_is_an_event_the_deal_in_progress_is_finished_then_the_game_ends() -> None:
    """§3.4 by time (S000 Classic, C-5): calling time marks the game; the current deal is played
    out and then the game ends, settled by the early-stop rule."""
    rules = DEFAULT.with_options(ending_by_time=True)
    game = start_deal(new_game(rules), shuffle_from_seed(seed(2), 1))
    called = call_time(game)
    assert called.time_called and not called.finished
    with pytest.raises(IllegalAction):
        call_time(called)
    with pytest.raises(IllegalAction):
        call_time(start_deal(new_game(DEFAULT), shuffle_from_seed(seed(2), 1)))
    between = call_time(new_game(rules))
    assert between.finished
    with pytest.raises(GameOver):
        start_deal(between, shuffle_from_seed(seed(2), 1))


def test_agreed_early_stop_ends_the_game_now() -> None:
    game = start_deal(new_game(DEFAULT), shuffle_from_seed(seed(3), 1))
    stopped = stop_early(game)
    assert stopped.finished and stopped.deal is None
    with pytest.raises(GameOver):
        stop_early(stopped)


# ------------------------------------------------------------------------------------------
# Refusals


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"ending": Ending.DEALS}, "rules.ending_deals"),
        ({"ending_deals": 10}, "rules.ending_deals"),
        ({"races": 5, "ending": Ending.POOL_SUM}, "rules.races"),
        ({"races": 5, "ending": Ending.DEALS, "ending_deals": 3}, "rules.races"),
        ({"race_prize_whists": 50}, "rules.race_prize_whists"),
        ({"ending": Ending.POOL_SUM, "help_failed_whister": False}, "rules.help_failed_whister"),
        ({"races": 5, "help_tie": HelpTie.SMALLER_GORA}, "rules.help_tie"),
        # TV-39 races end by their count, TV-40 "preferans" ends the game: not both.
        ({"races": 5, "preferans": PreferansHand.ACE_KING_QUEEN}, "rules.preferans"),
    ],
)
def test_combinations_that_make_no_sense_are_refused(
    options: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidAction) as refused:
        RuleSet(**options)  # type: ignore[arg-type]
    assert refused.value.field == field


def test_options_round_trip_through_json() -> None:
    rules = DEFAULT.with_options(
        help_failed_whister=False,
        raspasy_zero_helps=False,
        leftover=Leftover.BELOW_ZERO,
        settlement_method=SettlementMethod.AMNESTY,
        settlement_integer=True,
        ending=Ending.DEALS,
        ending_deals=12,
        ending_by_time=True,
    )
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert RuleSet.from_dict({"races": 5, "race_prize_whists": 50}).races == 5


# ------------------------------------------------------------------------------------------
# 4. Early stop and joining (TV-27)


def test_tv27_stop_before_anyone_closed_missing_points_to_gora() -> None:
    """TV-27 (S000 "ПРАВИЛА ДЛЯ ОСОБЫХ СЛУЧАЕВ"): game to 25, a player with 20 in pool writes 5
    to gora. 3 players, pools 20/12/25, goras 2/0/0 → goras 7/13/0; avg 20/3:
    A 10·(20/3 − 7) = −10/3, B 10·(20/3 − 13) = −190/3, C 200/3."""
    rules = RuleSet(pool_target=25)
    stopped = early_stop(sheet_of((20, 12, 25), (2, 0, 0)), rules)
    assert stopped.gora == (7, 13, 0)
    assert settle_final(sheet_of((20, 12, 25), (2, 0, 0)), rules) == q(
        Fraction(-10, 3), Fraction(-190, 3), Fraction(200, 3)
    )


def test_tv27_joining_player_starts_with_the_average_pool_and_gora() -> None:
    """TV-27: three players' pools total 15 → the newcomer writes 5 to pool; gora likewise the
    average of the others' goras (4 seats, as printed)."""
    sheet = ScoreSheet((4, 5, 6, 0), (10, 2, 6, 30), whists({}, players=4))
    assert joining_position(sheet, 3) == (5, 6)


def test_tv27_joining_three_players_rounds_against_the_newcomer() -> None:
    """3 players, worked: others' pools 7 and 8 → 7 (7.5 rounded down); goras 3 and 6 → 5 (4.5
    rounded up); whole averages are exact (pools 6 and 10 → 8, goras 2 and 4 → 3)."""
    assert joining_position(sheet_of((7, 0, 8), (3, 40, 6)), B) == (7, 5)
    assert joining_position(sheet_of((6, 10, 1), (2, 4, 9)), C) == (8, 3)


def test_tv38_pool_to_fifty_worked_for_three() -> None:
    """TV-38 with S004's "pool to 50" (sum 150), 3 players: pools 62/50/38, goras 20/10/0.
    A writes off 2·12 = 24 (20 → −4), B nothing, C puts 2·12 = 24 (0 → 24). Sum 30, avg 10:
    A 10·14 = 140, B 0, C 10·(10 − 24) = −140."""
    rules = DEFAULT.with_options(ending=Ending.POOL_SUM, pool_target=50)
    sheet = sheet_of((62, 50, 38), (20, 10, 0))
    assert sheet.all_closed(rules)
    assert final_sheet(sheet, rules).gora == (-4, 10, 24)
    assert settle_final(sheet, rules) == q(140, 0, -140)
