"""The scoresheet: pool closing, help, leftovers, early stop and settlement (RULES.md §1.10,
§1.11; decision A-20)."""

from __future__ import annotations

from fractions import Fraction

from domain.rules import (
    DEFAULT,
    DealScore,
    Help,
    RuleSet,
    ScoreSheet,
    SheetEntry,
    early_stop,
    record,
    settle,
)
from tests.unit.rules_helpers import A, B, C, whists

ORDER = (A, B, C)
NONE = (0, 0, 0)


def points(pool: tuple[int, int, int], gora: tuple[int, int, int] = NONE) -> DealScore:
    return DealScore(pool, gora, whists({}))


def sheet_of(pool: tuple[int, int, int], gora: tuple[int, int, int] = NONE) -> ScoreSheet:
    return ScoreSheet(pool, gora, whists({}))


def test_points_go_to_own_pool_while_open() -> None:
    new, entry = record(sheet_of((12, 0, 5)), points((4, 0, 0)), DEFAULT, ORDER)
    assert new == sheet_of((16, 0, 5))
    assert entry == SheetEntry((4, 0, 0), NONE, whists({}), ())


def test_own_pool_only_up_to_twenty_then_help_the_largest() -> None:
    new, entry = record(sheet_of((18, 10, 14)), points((6, 0, 0)), DEFAULT, ORDER)
    assert new.pool == (20, 10, 18)
    assert entry.helps == (Help(A, C, 4),)
    assert new.whists == whists({(A, C): 40})


def test_help_continues_to_the_next_largest_pool() -> None:
    new, entry = record(sheet_of((20, 19, 12)), points((10, 0, 0)), DEFAULT, ORDER)
    assert new.pool == (20, 20, 20)
    assert entry.helps == (Help(A, B, 1), Help(A, C, 8))
    assert new.whists == whists({(A, B): 10, (A, C): 80})
    assert new.gora == (0, 1, 1)  # the 10th point: own gora is 0, the excess to each other


def test_help_tie_next_clockwise_from_the_helper() -> None:
    """A-20 default: with two equal unclosed pools the one next clockwise from the helper."""
    _, from_a = record(sheet_of((20, 15, 15)), points((2, 0, 0)), DEFAULT, ORDER)
    _, from_b = record(sheet_of((15, 20, 15)), points((0, 2, 0)), DEFAULT, ORDER)
    _, from_c = record(sheet_of((15, 15, 20)), points((0, 0, 2)), DEFAULT, ORDER)
    assert from_a.helps == (Help(A, B, 2),)
    assert from_b.helps == (Help(B, C, 2),)
    assert from_c.helps == (Help(C, A, 2),)


def test_help_may_go_to_a_whister_penalised_in_the_same_deal() -> None:
    score = DealScore((2, 0, 0), (0, 4, 0), whists({(B, A): 4}))
    new, entry = record(sheet_of((20, 16, 10)), score, DEFAULT, ORDER)
    assert entry.helps == (Help(A, B, 2),)
    assert new.gora == (0, 4, 0)
    assert new.whists == whists({(B, A): 4, (A, B): 20})


def test_leftover_reduces_own_gora() -> None:
    new, entry = record(sheet_of((20, 20, 20), (10, 3, 0)), points((6, 0, 0)), DEFAULT, ORDER)
    assert (new.pool, new.gora, entry.helps) == ((20, 20, 20), (4, 3, 0), ())


def test_leftover_excess_beyond_zero_goes_to_each_opponent() -> None:
    new, entry = record(sheet_of((20, 20, 20), (4, 3, 0)), points((6, 0, 0)), DEFAULT, ORDER)
    assert new.gora == (0, 5, 2)
    assert entry.gora == (-4, 2, 2)


def test_leftover_after_helping_all_pools_closed() -> None:
    """§1.10: points of the last award remaining after all pools are closed."""
    new, entry = record(sheet_of((20, 19, 20), (1, 0, 0)), points((4, 0, 0)), DEFAULT, ORDER)
    assert entry.helps == (Help(A, B, 1),)
    assert (new.pool, new.gora) == ((20, 20, 20), (0, 2, 2))
    assert new.all_closed(DEFAULT) and not sheet_of((20, 19, 20)).all_closed(DEFAULT)


def test_several_awards_placed_in_order_from_the_first_hand() -> None:
    """Raspasy zeros for A and B: each award is placed in the order given (from H1)."""
    score = points((1, 1, 0), (0, 0, 10))
    sheet = sheet_of((20, 19, 19))
    first_a, _ = record(sheet, score, DEFAULT, (A, B, C))
    first_b, _ = record(sheet, score, DEFAULT, (B, C, A))
    assert first_a.whists == whists({(A, B): 10, (B, C): 10})
    assert first_b.whists == whists({(A, C): 10})
    assert first_a.pool == first_b.pool == (20, 20, 20)


def test_gora_and_whists_are_written_as_scored() -> None:
    score = DealScore(NONE, (4, 0, 2), whists({(B, A): 16, (C, A): 8}))
    base = ScoreSheet((3, 4, 5), (1, 1, 1), whists({(A, B): 7}))
    new, entry = record(base, score, DEFAULT, ORDER)
    assert new == ScoreSheet((3, 4, 5), (5, 1, 3), whists({(A, B): 7, (B, A): 16, (C, A): 8}))
    assert entry.whists == score.whists and entry.gora == (4, 0, 2)


def test_settle_average_gora_keeps_thirds_and_sums_to_zero() -> None:
    totals = settle(sheet_of((20, 20, 20), (0, 1, 0)), DEFAULT)
    assert totals == (Fraction(10, 3), Fraction(-20, 3), Fraction(10, 3))
    assert sum(totals) == 0


def test_settle_counts_whists_written_and_received() -> None:
    sheet = ScoreSheet((20, 20, 20), (6, 12, 0), whists({(A, B): 40, (C, A): 12, (B, C): 5}))
    # avg 6: shares 0, −60, +60; A +40 −12; B +5 −40; C +12 −5.
    assert settle(sheet, DEFAULT) == (Fraction(28), Fraction(-95), Fraction(67))


def test_early_stop_adds_missing_pool_to_gora_only() -> None:
    sheet = ScoreSheet((20, 13, 0), (2, 0, 5), whists({(A, B): 3}))
    stopped = early_stop(sheet, DEFAULT)
    assert stopped == ScoreSheet((20, 13, 0), (2, 7, 25), whists({(A, B): 3}))
    assert settle(stopped, DEFAULT) == (Fraction(289, 3), Fraction(121, 3), Fraction(-410, 3))


def test_pool_target_option_changes_closing() -> None:
    rules = RuleSet(pool_target=10)
    new, entry = record(sheet_of((8, 9, 0)), points((5, 0, 0)), rules, ORDER)
    assert new.pool == (10, 10, 2)
    assert entry.helps == (Help(A, B, 1), Help(A, C, 2))
