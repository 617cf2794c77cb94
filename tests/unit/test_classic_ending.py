"""The Classic ending variant (RULES.md §3.4 "Classic ending"; S000 "Варианты правил для
классики", first item; ``RuleSet.classic_ending``). Every number is worked by hand in the test:
pool target 20, help at 10 whists a point."""

from __future__ import annotations

import pytest

from domain.rules import (
    DEFAULT,
    DealScore,
    Ending,
    Help,
    InitialRounds,
    InvalidAction,
    ScoreSheet,
    new_game,
    order_game,
    record,
    table_rules,
)
from tests.unit.rules_helpers import A, B, C, whists

CLASSIC = DEFAULT.with_options(classic_ending=True)
ORDER = (A, B, C)
NONE = (0, 0, 0)


def points(pool: tuple[int, int, int]) -> DealScore:
    return DealScore(pool, NONE, whists({}))


def sheet_of(pool: tuple[int, int, int], gora: tuple[int, int, int] = NONE) -> ScoreSheet:
    return ScoreSheet(pool, gora, whists({}))


def test_classic_ending_all_to_pool_only_when_gora_is_empty() -> None:
    """S000: "пишет весь выигрыш в пулю только в том случае, если в горе у него ничего нет"."""
    sheet, entry = record(sheet_of(NONE, (0, 5, 0)), points((4, 0, 0)), CLASSIC, ORDER)
    assert sheet.pool == (4, 0, 0) and sheet.gora == (0, 5, 0) and entry.helps == ()


def test_classic_ending_half_off_gora_half_to_pool() -> None:
    """S000: "половину выигрыша списывать с горы, а другую – писать в пулю": a seven (4) with
    10 in gora → 2 off gora (8 left), 2 to pool. Without the option all 4 go to the pool."""
    sheet, _ = record(sheet_of((6, 0, 0), (10, 0, 0)), points((4, 0, 0)), CLASSIC, ORDER)
    assert sheet.pool == (8, 0, 0) and sheet.gora == (8, 0, 0)
    plain, _ = record(sheet_of((6, 0, 0), (10, 0, 0)), points((4, 0, 0)), DEFAULT, ORDER)
    assert plain.pool == (10, 0, 0) and plain.gora == (10, 0, 0)


def test_classic_ending_half_stops_at_an_empty_gora_and_odd_points_favour_the_pool() -> None:
    """Decisions: a misère (10) with 3 in gora writes the 3 off and 7 to the pool (the gora
    half stops at zero, the rest is the pool's); a raspasy zero (1) with gora: ⌊1/2⌋ = 0 off
    gora, the point to the pool."""
    sheet, _ = record(sheet_of(NONE, (3, 0, 0)), points((10, 0, 0)), CLASSIC, ORDER)
    assert sheet.pool == (7, 0, 0) and sheet.gora == (0, 0, 0)
    sheet, _ = record(sheet_of(NONE, (0, 4, 0)), points((0, 1, 0)), CLASSIC, ORDER)
    assert sheet.pool == (0, 1, 0) and sheet.gora == (0, 4, 0)


def test_classic_ending_closer_half_off_gora_half_as_whists_on_the_helped() -> None:
    """S000: "Игрок, закрывший пулю, половину списывает с горы, вторую половину пишет в вистах
    на игрока, которому … помогает. «Помогают» игроку, имеющему больше всех в пуле." A (pool
    closed, gora 6) makes a seven (4): 2 off gora (4 left); 2 help C (15, the largest open
    pool) → C 17, A writes 2 × 10 = 20 whists on C."""
    sheet, entry = record(sheet_of((20, 12, 15), (6, 0, 0)), points((4, 0, 0)), CLASSIC, ORDER)
    assert sheet.pool == (20, 12, 17)
    assert sheet.gora == (4, 0, 0)
    assert sheet.whists == whists({(A, C): 20})
    assert entry.helps == (Help(A, C, 2),)


def test_classic_ending_closing_pool_takes_its_half_then_helps() -> None:
    """A at 19 with gora 2 makes a seven (4): 2 off gora (0 left); of the pool half 2, 1 closes
    his pool and 1 helps B (the largest open pool) at 10 whists."""
    sheet, entry = record(sheet_of((19, 10, 8), (2, 0, 0)), points((4, 0, 0)), CLASSIC, ORDER)
    assert sheet.pool == (20, 11, 8) and sheet.gora == (0, 0, 0)
    assert entry.helps == (Help(A, B, 1),)
    assert sheet.whists == whists({(A, B): 10})


def test_classic_ending_the_failed_player_is_not_helped() -> None:
    """S000: "Подсевшему … «помогать» нельзя" — even where ``help_failed_whister`` would allow
    it: B failed this deal, so A's pool half (2) helps C although B's pool is larger."""
    assert CLASSIC.help_failed_whister
    sheet, entry = record(
        sheet_of((20, 15, 12), (6, 0, 0)), points((4, 0, 0)), CLASSIC, ORDER, failed=(B,)
    )
    assert entry.helps == (Help(A, C, 2),)
    assert sheet.pool == (20, 15, 14) and sheet.gora == (4, 0, 0)


def test_classic_ending_nobody_to_help_off_gora() -> None:
    """S000: "Если «помогать» некому, оставшуюся сумму сыгравший списывает с горы": B's pool
    is closed and C failed; A (gora 6) makes 4: 2 off gora, the other 2 off gora too → 2."""
    sheet, entry = record(
        sheet_of((20, 20, 15), (6, 0, 0)), points((4, 0, 0)), CLASSIC, ORDER, failed=(C,)
    )
    assert entry.helps == () and sheet.pool == (20, 20, 15) and sheet.gora == (2, 0, 0)


def test_classic_ending_no_gora_with_all_pools_closed_writes_off_the_smallest_gora() -> None:
    """S000: "Игрок, не имеющий горы, когда пули у всех закрыты, списывает с горы игрока,
    имеющего меньше всех в горе, за что пишет вдесятеро вистов. Если у двоих игроков в горе
    ноль, то списание производится со следующего игрока, имеющего в горе более нуля."
    Every pool closed; gora A 0, B 7, C 3; A makes 6: C's 3 (the smallest) → 0, 30 whists on
    C; the next above zero, B: 3 off (7 → 4), 30 whists on B."""
    sheet, entry = record(sheet_of((20, 20, 20), (0, 7, 3)), points((6, 0, 0)), CLASSIC, ORDER)
    assert sheet.gora == (0, 4, 0)
    assert sheet.whists == whists({(A, C): 30, (A, B): 30})
    assert entry.helps == () and sheet.pool == (20, 20, 20)


def test_classic_ending_own_gora_first_then_the_others() -> None:
    """Every pool closed, A has 1 in gora and makes 6: the half 3 takes his 1 (gora 0), the
    pool half 5 finds nobody to help and no own gora, so it writes off C's 3 (30 whists on C)
    and 2 of B's 7 (20 whists on B)."""
    sheet, _ = record(sheet_of((20, 20, 20), (1, 7, 3)), points((6, 0, 0)), CLASSIC, ORDER)
    assert sheet.gora == (0, 5, 0)
    assert sheet.whists == whists({(A, C): 30, (A, B): 20})


def test_classic_ending_a_pool_not_everywhere_closed_does_not_write_off_other_gora() -> None:
    """The write-off from another's gora is only "когда пули у всех закрыты": C's pool is open
    but C failed, so A's remainder follows ``leftover`` (default: excess to each opponent)."""
    sheet, _ = record(
        sheet_of((20, 20, 15), (0, 7, 3)), points((4, 0, 0)), CLASSIC, ORDER, failed=(C,)
    )
    assert sheet.gora == (0, 11, 7) and sheet.whists == whists({})


def test_classic_ending_needs_pools_ending_without_races() -> None:
    with pytest.raises(InvalidAction) as raised:
        DEFAULT.with_options(classic_ending=True, ending=Ending.POOL_SUM)
    assert raised.value.field == "rules.classic_ending"
    with pytest.raises(InvalidAction):
        DEFAULT.with_options(classic_ending=True, races=5)


def test_tv26_the_ordered_pool_of_50_is_the_target_of_pool_and_help() -> None:
    """TV-26 "to 50": once ordered, the pools close at 50 (``table_rules``). A at 48 with no
    gora makes a seven (4): 2 close his pool at 50, 2 help B (30, the largest open pool) at 10
    whists a point; under the agreed 20 A's pool would have been closed long ago."""
    rules = CLASSIC.with_options(initial_rounds=InitialRounds.GORA, initial_gora=1, order_game=True)
    game = order_game(new_game(rules, C), A, 50, 0)
    sheet, entry = record(sheet_of((48, 30, 20)), points((4, 0, 0)), table_rules(game), ORDER)
    assert sheet.pool == (50, 32, 20) and entry.helps == (Help(A, B, 2),)
    assert sheet.whists == whists({(A, B): 20})
