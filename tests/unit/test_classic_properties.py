"""Property checks of Classic scoring (issue 12, TV-26): whole random games whose deals are
marked as the Classic auction would mark them (a raspasy a bomb of some level with some
bombers, a contract dark) keep every invariant: each deal's score is its plain score times the
declarer's sign and dark factors (a bomb at its level's price), the sheet is the sum of the
entries, the settlement sums to zero, and the sign ledger conserves signs: every sign given is
owed or crossed out, crossed out only by a game made on it, in order.

The auction is another branch: here the Classic fields are set on each finished deal before it
is written (``DealState.with_``), as the agreed interface allows.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings

from domain.rules import DEFAULT, Kind, RuleSet, ScoreSheet, score_result, settle_final
from domain.rules.bombs import bomb_trick_price, made, multiplied, sign_factor
from domain.rules.dealing import shuffle_from_seed
from domain.rules.game import finish_deal, new_game, play_deal, start_deal
from tests.unit.test_properties import DEALERS, RNG_SEEDS, SEEDS, random_policy

RULES = DEFAULT.with_options(pool_target=10)


def run(
    seed: bytes, first_dealer: int, rng_seed: int, rules: RuleSet = RULES, max_deals: int = 60
) -> None:
    """Play a game with Classic marks drawn at random, checking every deal and the end."""
    rng = random.Random(rng_seed)
    policies = random_policy(rng)
    game = new_game(rules, first_dealer)
    n = rules.players
    pool, gora = [0] * n, [0] * n
    whists = [[0] * n for _ in range(n)]
    given_signs: list[list[int]] = [[] for _ in range(n)]
    crossed_seen = [0] * n
    while not game.finished and game.deal_number < max_deals:
        game = start_deal(game, shuffle_from_seed(seed, game.deal_number + 1))
        assert game.deal is not None
        final, _ = play_deal(game.deal, policies)
        result = final.result
        assert result is not None
        if result.kind is Kind.RASPASY and rng.random() < 0.7:
            final = final.with_(bomb=rng.randint(0, 4), bombers=rng.randint(0, 7))
        elif result.kind is not Kind.RASPASY and rng.random() < 0.4:
            final = final.with_(dark=True)
        before = game
        game, score, entry = finish_deal(game._replace(deal=final))
        # The score: plain times the factors (a bomb: its level's price per trick).
        plain = score_result(rules, result, final.raspasy_streak)
        owed = (
            before.bomb_signs[result.declarer] if before.bomb_signs and result.declarer >= 0 else ()
        )
        sign = owed[0] if owed and multiplied(result.kind) else 0
        if result.kind is Kind.RASPASY and final.bomb:
            price = bomb_trick_price(rules, final.bomb)
            assert score.gora == tuple(t * price for t in result.tricks)
            assert score.pool == tuple(price if t == 0 else 0 for t in result.tricks)
        elif final.dark and result.kind is Kind.MISERE:
            taken = result.tricks[result.declarer]
            base = (
                rules.dark_misere_value if taken == 0 else taken * rules.dark_misere_trick_penalty
            )
            assert sum(score.pool) + sum(score.gora) == base * sign_factor(sign)
        else:
            dark = final.dark and multiplied(result.kind)
            factor = sign_factor(sign) * (rules.dark_multiplier if dark else 1)
            assert score.pool == tuple(p * factor for p in plain.pool)
            assert score.gora == tuple(g * factor for g in plain.gora)
            assert score.whists == tuple(tuple(w * factor for w in r) for r in plain.whists)
        # The ledger: bombs add signs to their bombers; a made game on a sign crosses it.
        if result.kind is Kind.RASPASY:
            for seat in range(n):
                if final.bombers >> seat & 1:
                    given_signs[seat].append(max(final.bomb, 1))
        if sign:
            declarer = result.declarer
            if made(result):
                crossed_seen[declarer] += 1
                last = game.bomb_signs_crossed[declarer][-1]
                assert (last.level, last.deal_number) == (sign, game.deal_number)
            else:
                assert game.bomb_signs[declarer] == owed
        for seat in range(n):
            owes = game.bomb_signs[seat] if game.bomb_signs else ()
            done = game.bomb_signs_crossed[seat] if game.bomb_signs_crossed else ()
            assert len(done) == crossed_seen[seat]
            assert [c.level for c in done] + list(owes) == given_signs[seat]
        for seat in range(n):
            pool[seat] += entry.pool[seat]
            gora[seat] += entry.gora[seat]
            for other in range(n):
                whists[seat][other] += entry.whists[seat][other]
        assert all(0 <= p <= rules.pool_target for p in pool)
    sheet = ScoreSheet(tuple(pool), tuple(gora), tuple(tuple(r) for r in whists))
    assert game.sheet == sheet
    settlement = settle_final(sheet, rules)
    assert sum(settlement) == 0
    assert all(isinstance(x, Fraction) for x in settlement)


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, first_dealer=DEALERS, rng_seed=RNG_SEEDS)
def test_random_classic_games_settle_to_zero_and_keep_the_sign_ledger(
    seed: bytes, first_dealer: int, rng_seed: int
) -> None:
    run(seed, first_dealer, rng_seed)


def test_random_games_do_play_bombs_dark_games_and_games_on_signs() -> None:
    """The property above is not vacuous: drawing games until each case occurs (each game's
    seed fresh), a bomb, a dark game, a game on a sign made and one failed all happen."""
    seen: set[str] = set()
    for i in range(200):
        rng = random.Random(i)
        game = new_game(RULES, i % 3)
        policies = random_policy(rng)
        seed = bytes([i % 256]) * 16
        while not game.finished and game.deal_number < 60:
            game = start_deal(game, shuffle_from_seed(seed, game.deal_number + 1))
            assert game.deal is not None
            final, _ = play_deal(game.deal, policies)
            result = final.result
            assert result is not None
            if result.kind is Kind.RASPASY:
                final = final.with_(bomb=1 + i % 3, bombers=0b111)
                seen.add("bomb")
            elif multiplied(result.kind):
                final = final.with_(dark=i % 2 == 0)
                seen.add("dark" if final.dark else "light")
                owes = game.bomb_signs[result.declarer] if game.bomb_signs else ()
                if owes:
                    seen.add("made on a sign" if made(result) else "failed on a sign")
            game, _, _ = finish_deal(game._replace(deal=final))
        if {"bomb", "dark", "made on a sign", "failed on a sign"} <= seen:
            break
    assert {"bomb", "dark", "made on a sign", "failed on a sign"} <= seen


def test_the_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken multiplier (a sign worth ×3) is caught by ``run``."""
    from domain.rules import bombs

    monkeypatch.setattr(bombs, "sign_factor", lambda level: 3 if level else 1)
    with pytest.raises(AssertionError):
        for i in range(30):
            run(bytes([i]) * 16, 0, i)


@pytest.mark.parametrize("bomb_price", [1, 2, 5])
def test_settlement_sums_to_zero_with_other_bomb_prices(bomb_price: int) -> None:
    for i in range(5):
        rules = RULES.with_options(bomb_trick_price=bomb_price, dark_multiplier=2 + i % 2)
        run(bytes([i + 7]) * 16, i % 3, i, rules=rules)
