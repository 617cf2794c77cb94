"""A whole hand-computed pulya for each named system (issue 11, "Tests that must exist").

Each pulya is a sequence of deal outcomes — who declared what, who whisted, passed or
half-whisted, and the tricks each seat took — written through the rules core's own game driver
(``start_deal`` → the scored deal → ``finish_deal``: scoring, pool closing, help, leftovers,
the dealer, the raspasy series, the ending) and settled by it. Every number asserted below was
worked out by hand from the rules text, deal by deal, in the comments; the code under test
never computes an expected value. The play of the cards is not part of these tests (the
property tests and the bot games play real deals under every system).

Seats A = 0, B = 1, C = 2; C deals first, so A is the first hand of deal 1; the deal passes to
the left. V is the pool value (2/4/6/8/10), W the whists-per-trick price, U the undertricks.
"""

from __future__ import annotations

from fractions import Fraction

from domain.rules import DealResult, Kind, Phase, RuleSet, ScoreSheet
from domain.rules.bids import Bid
from domain.rules.dealing import Shuffle
from domain.rules.game import GameState, finish_deal, new_game, start_deal
from domain.rules.scoresheet import final_sheet, settle_final
from domain.rules.systems import LENINGRAD, LENINGRAD_S000, ROSTOV, SOCHI

A, B, C = 0, 1, 2
SHUFFLE = Shuffle(tuple(range(32)), 5)
"""Any deal: only the recorded outcome is scored."""


def game_(declarer: int, contract: str, tricks: tuple[int, int, int], whisters: tuple[int, ...],
          passers: tuple[int, ...] = ()) -> DealResult:  # fmt: skip
    return DealResult(
        Kind.GAME, declarer, Bid.parse(contract), tricks, whisters, passers, -1, False, False
    )


def misere(declarer: int, tricks: tuple[int, int, int]) -> DealResult:
    return DealResult(Kind.MISERE, declarer, Bid.parse("misère"), tricks, (), (), -1, False, False)


def raspasy(tricks: tuple[int, int, int]) -> DealResult:
    return DealResult(Kind.RASPASY, -1, None, tricks, (), (), -1, False, False)


def given(declarer: int, contract: str, passers: tuple[int, int]) -> DealResult:
    return DealResult(
        Kind.PASSED_OUT, declarer, Bid.parse(contract), (0, 0, 0), (), passers, -1, False, False
    )


def half_whist(declarer: int, contract: str, passer: int, half_whister: int) -> DealResult:
    return DealResult(
        Kind.HALF_WHIST, declarer, Bid.parse(contract), (0, 0, 0), (),
        (passer, half_whister), half_whister, False, False,
    )  # fmt: skip


def play(rules: RuleSet, outcomes: list[DealResult]) -> list[GameState]:
    """The game after each deal, written by the rules core's game driver."""
    game = new_game(rules, first_dealer=C)
    after = []
    for outcome in outcomes:
        assert not game.finished, "the game ended before the last outcome"
        game = start_deal(game, SHUFFLE)
        deal = game.deal
        assert deal is not None
        game = game._replace(deal=deal.with_(phase=Phase.SCORED, result=outcome))
        game, _, _ = finish_deal(game)
        after.append(game)
    return after


def whists(entries: dict[tuple[int, int], int]) -> tuple[tuple[int, ...], ...]:
    rows = [[0, 0, 0] for _ in range(3)]
    for (writer, target), amount in entries.items():
        rows[writer][target] = amount
    return tuple(tuple(row) for row in rows)


def test_sochi_pulya_to_ten() -> None:
    """Sochi (RULES.md §3.5, S000 СОЧИНКА): the default's greedy responsible whist, raspasy
    1-2-3 with a zero worth one trick's price, help 10 whists a point."""
    rules = SOCHI.with_options(pool_target=10)
    after = play(
        rules,
        [
            # 1 (dealer C) A 6♠ made; B whists alone (D = 4): B writes D×V = 4×2 = 8.
            game_(A, "6♠", (6, 3, 1), (B,), (C,)),
            # 2 (dealer A) B 7♥ two down; C and A whist: B gora 2×4 = 8; C (3+2)×4 = 20,
            #   A (2+2)×4 = 16 on B (tricks plus consolation, §1.7).
            game_(B, "7♥", (2, 5, 3), (C, A)),
            # 3 (dealer B) raspasy, 1st of the series: 1 a trick; A 4, B 6 to gora; C's zero
            #   writes one trick's price (1) to his pool.
            raspasy((4, 6, 0)),
            # 4 (dealer C) 2nd raspasy: 2 a trick: B 10, C 10; A's zero: 2 to pool.
            raspasy((0, 5, 5)),
            # 5 (dealer A) 3rd raspasy: 3 a trick: A 9, B 9, C 12.
            raspasy((3, 3, 4)),
            # 6 (dealer B) A's misère made: 10 points; 6 close A's pool (4 → 10), 4 help the
            #   largest open pool, C's 1 (B has 0): C 5, A writes 40 whists on C.
            misere(A, (0, 5, 5)),
            # 7 (dealer C) B 6♦; C passes, A half-whists: B 2 to pool, A writes 2×2 = 4.
            half_whist(B, "6♦", C, A),
            # 8 (dealer A) C 8♣ one down; A whists, B passes: C gora 6; A (3+1)×6 = 24,
            #   B's consolation 6.
            game_(C, "8♣", (2, 1, 7), (A,), (B,)),
            # 9 (dealer B) B 9♥ made; C whists alone with 1 trick: 8 whists; B's pool 2 → 10.
            game_(B, "9♥", (0, 9, 1), (C,), (A,)),
            # 10 (dealer C) C 8♦ made; A and B whist a trick each: 6 and 6 whists. C's 6
            #   points: 5 close his pool, 1 is left with every pool closed: off his gora.
            game_(C, "8♦", (1, 1, 8), (A, B)),
        ],
    )
    assert [g.raspasy_streak for g in after[2:6]] == [1, 2, 3, 0]
    assert after[3].sheet.pool == (4, 0, 1) and after[4].sheet.gora == (13, 33, 22)
    assert after[5].sheet.pool == (10, 0, 5) and after[5].sheet.whists[A][C] == 40
    end = after[-1]
    assert end.finished and [g.finished for g in after[:-1]] == [False] * 9
    assert end.sheet == ScoreSheet(
        (10, 10, 10),
        (13, 33, 27),
        whists({(A, B): 16 + 4, (A, C): 40 + 24 + 6, (B, A): 8, (B, C): 6 + 6, (C, B): 20 + 8}),
    )
    # avg gora 73/3; A 10×(73/3 − 13) + 90 − 8 = 586/3; B −260/3 + 20 − 48 = −344/3;
    # C −80/3 + 28 − 82 = −242/3.
    assert settle_final(end.sheet, rules) == (
        Fraction(586, 3),
        Fraction(-344, 3),
        Fraction(-242, 3),
    )


def test_leningrad_pulya_by_the_sum_of_pools() -> None:
    """Leningrad as S004 defines it (RULES.md §3.5, TV-36 … TV-38): doubled whists (W =
    4/8/12/16/20) and undertricks, half-responsible gentleman whist with the penalty split,
    misère 20 a trick, raspasy 2-4-6 with the hard exit 6/7/7, ending by the sum of pools
    (pool to 10: the sum 30) with the doubled difference from the mean."""
    rules = LENINGRAD.with_options(pool_target=10)
    after = play(
        rules,
        [
            # 1 (dealer C) A 6♠ made; B whists alone (D = 4), made: no split, B writes 4×4.
            game_(A, "6♠", (6, 3, 1), (B,), (C,)),
            # 2 (dealer A) TV-36: B 6♣ one down, C whists, A passes: (5×4 + 1×4 + 1×4)/2 = 14
            #   each; B gora 1 × 4.
            game_(B, "6♣", (1, 5, 4), (C,), (A,)),
            # 3 (dealer B) raspasy 1st: 2 a trick: B 8, C 12; A's zero: 2 to pool.
            raspasy((0, 4, 6)),
            # 4 (dealer C) raspasy 2nd: 4 a trick: A 8, B 12, C 20; the next auction is from 7.
            raspasy((2, 3, 5)),
            # 5 (dealer A) B 7♥ made; C and A whist 2 and 1: 2×8 = 16 and 1×8 = 8.
            game_(B, "7♥", (1, 7, 2), (C, A)),
            # 6 (dealer B) C's misère, one trick: 20 gora.
            misere(C, (5, 4, 1)),
            # 7 (dealer C) A 6♦ with 8; B and C whist 2 and 0 (D = 2 < 4): C answers for 2
            #   tricks at half of W: 2 × 2 = 4 gora; B writes 2×4 = 8.
            game_(A, "6♦", (8, 2, 0), (B, C)),
            # 8 (dealer A) C 8♠ made; A whists alone (D = 2), made: A writes 2×12 = 24.
            game_(C, "8♠", (1, 1, 8), (A,), (B,)),
            # 9 (dealer B) C 7♣; A passes, B half-whists: C 4 to pool, B writes 1×8 = 8.
            half_whist(C, "7♣", A, B),
            # 10 (dealer C) B 9NT given (both pass): 8 to B's pool (pools are not capped).
            given(B, "9NT", (C, A)),
            # 11 (dealer A) A 6♥ given: 2 to pool; the pools sum to 8 + 12 + 10 = 30: over.
            given(A, "6♥", (B, C)),
        ],
    )
    assert [g.raspasy_streak for g in after[2:5]] == [1, 2, 0]
    assert rules.min_level(after[3].raspasy_streak) == 7, "hard exit after the double"
    assert after[1].sheet.whists[C][B] == after[1].sheet.whists[A][B] == 14
    end = after[-1]
    assert end.finished and not after[-2].finished
    assert end.sheet == ScoreSheet(
        (8, 12, 10),
        (8, 24, 56),
        whists({(B, A): 16 + 8, (C, B): 14 + 16, (A, B): 14 + 8, (A, C): 24, (B, C): 8}),
    )
    # TV-38: mean 10; A below by 2 puts 2×2 into gora, B above by 2 writes 2×2 off.
    assert final_sheet(end.sheet, rules).gora == (12, 20, 56)
    # avg gora 88/3; A 520/3 + 46 − 24 = 586/3; B 280/3 + 32 − 52 = 220/3;
    # C −800/3 + 30 − 32 = −806/3.
    assert settle_final(end.sheet, rules) == (
        Fraction(586, 3),
        Fraction(220, 3),
        Fraction(-806, 3),
    )


def test_a09_leningrad_pulya_with_s000_prices() -> None:
    """Leningrad with S000's price list (A-09, docs/SYSTEMS.md W-13): pool values 3/6/9/8/12 and
    misère 15, doubled for whists and undertricks (W = 6/12/18/16/24), raspasy 3-6-9, the
    gentleman split of whists only (the gora stays the whister's), ending by the sum of pools
    (pool to 10: the sum 30)."""
    rules = LENINGRAD_S000.with_options(pool_target=10)
    after = play(
        rules,
        [
            # 1 A 6♠ made; B whists alone (D = 4), made: no split, B writes 4 × 6 = 24; A 3.
            game_(A, "6♠", (6, 3, 1), (B,), (C,)),
            # 2 B 6♣ one down, C whists, A passes: (5 × 6 + 1 × 6 + 1 × 6) / 2 = 21 each;
            #   B gora 1 × 6.
            game_(B, "6♣", (1, 5, 4), (C,), (A,)),
            # 3 raspasy 1st: 3 a trick: B 12, C 18; A's zero: 3 to pool.
            raspasy((0, 4, 6)),
            # 4 raspasy 2nd: 6 a trick: A 12, B 18, C 30; the next auction is from 7.
            raspasy((2, 3, 5)),
            # 5 B 7♥ made; C and A whist 2 and 1: 2 × 12 = 24 and 1 × 12 = 12; B 6.
            game_(B, "7♥", (1, 7, 2), (C, A)),
            # 6 C's misère, one trick: 20 gora (Leningrad's misère penalty).
            misere(C, (5, 4, 1)),
            # 7 A 6♦ with 8; B and C whist 2 and 0 (D = 2 < 4): C answers for his 2 tricks at
            #   half of W: 2 × 3 = 6 gora; B writes 2 × 6 = 12; A 3.
            game_(A, "6♦", (8, 2, 0), (B, C)),
            # 8 C 8♠ made; A whists alone (D = 2), made: A writes 2 × 18 = 36; C 9.
            game_(C, "8♠", (1, 1, 8), (A,), (B,)),
            # 9 C 7♣; A passes, B half-whists: C 6 to pool, B writes 1 × 12 = 12. The pools
            #   are 9 + 6 + 15 = 30: over.
            half_whist(C, "7♣", A, B),
        ],
    )
    assert after[1].sheet.whists[C][B] == after[1].sheet.whists[A][B] == 21
    assert rules.min_level(after[3].raspasy_streak) == 7, "hard exit after the double"
    end = after[-1]
    assert end.finished and not after[-2].finished
    assert end.sheet == ScoreSheet(
        (9, 6, 15),
        (12, 36, 74),
        whists({(B, A): 24 + 12, (C, B): 21 + 24, (A, B): 21 + 12, (A, C): 36, (B, C): 12}),
    )
    # TV-38: mean 10: A +2 × 1, B +2 × 4, C −2 × 5 → gora 14, 44, 64.
    assert final_sheet(end.sheet, rules).gora == (14, 44, 64)
    # avg 122/3; A 800/3 + 69 − 36 = 899/3; B −100/3 + 48 − 78 = −190/3;
    # C −700/3 + 45 − 48 = −709/3.
    assert settle_final(end.sheet, rules) == (
        Fraction(899, 3),
        Fraction(-190, 3),
        Fraction(-709, 3),
    )


def test_rostov_pulya_to_ten() -> None:
    """Rostov (RULES.md §3.5, S000 РОСТОВКА, S004): half-responsible gentleman whist with the
    gora only for the whister, consolation 10 whists an undertrick, raspasy on whists (5 a
    trick, written by the fewest on the others), help: a failing whister is not helped."""
    rules = ROSTOV.with_options(pool_target=10)
    after = play(
        rules,
        [
            # 1 (dealer C) A 6♠ made; B whists alone, made: no split: 4×2 = 8.
            game_(A, "6♠", (6, 3, 1), (B,), (C,)),
            # 2 (dealer A) B 7♦ two down; C whists, A passes: 5×4 + 2×10 + 2×10 = 60, split
            #   30 / 30; B gora 2×4 = 8.
            game_(B, "7♦", (2, 5, 3), (C,), (A,)),
            # 3 (dealer B) raspasy on whists: A took fewest (2): 3×5 = 15 on B, 5×5 = 25 on C.
            raspasy((2, 3, 5)),
            # 4 (dealer C) again 5 a trick (no progression): A (0) writes 20 on B, 30 on C,
            #   and his zero puts 1 in his pool.
            raspasy((0, 4, 6)),
            # 5 (dealer A) C 6♥ with 7; A 3, B 0 (D = 3 < 4): B answers for 2 at half of
            #   V: 2 gora; A writes 3×2 = 6.
            game_(C, "6♥", (3, 0, 7), (A, B)),
            # 6 (dealer B) A's misère made: 10 points: 7 close A's pool (3 → 10), 3 help the
            #   largest open pool, C's 2 (B has 0): C 5, A writes 30 on C.
            misere(A, (0, 4, 6)),
            # 7 (dealer C) C 9♣ with all ten; A and B whist, none taken: the second whister B
            #   answers: 1 × 4 = 4 gora. C's 8 points: 5 close his pool; B, the only open pool,
            #   failed as whister this deal and is not helped: 3 off C's gora (0), the excess 3
            #   to each opponent's gora.
            game_(C, "9♣", (0, 0, 10), (A, B)),
            # 8 (dealer A) B 10♦ given: 10 to B's pool; every pool is closed.
            given(B, "10♦", (C, A)),
        ],
    )
    assert after[3].sheet.pool == (3, 0, 0)
    assert after[6].sheet.gora == (3, 17, 0) and after[6].sheet.pool == (10, 0, 10)
    end = after[-1]
    assert end.finished and not after[-2].finished
    assert end.sheet == ScoreSheet(
        (10, 10, 10),
        (3, 17, 0),
        whists({(B, A): 8, (C, B): 30, (A, B): 30 + 15 + 20, (A, C): 25 + 30 + 6 + 30}),
    )
    # avg gora 20/3; A 110/3 + 156 − 8 = 554/3; B −310/3 + 8 − 95 = −571/3;
    # C 200/3 + 30 − 91 = 17/3.
    assert settle_final(end.sheet, rules) == (
        Fraction(554, 3),
        Fraction(-571, 3),
        Fraction(17, 3),
    )
