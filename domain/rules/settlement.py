"""The final settlement of a pulya, for any number of players (RULES.md §1.11, §3.4; S000
"Первый способ расчета" and "Второй способ расчета", TV-21, TV-22).

Both of S000's methods come to the same totals: with method 2 (average gora, S001) a player's
share is ``per × (avg − own)``; with method 1 (amnesty) the smallest gora is subtracted from
each, every player writes ``per × reduced / n`` whists on each other player's reduced gora and
the pairs cancel. The pairwise amount between two players is therefore
``per × (gora_j − gora_i) / n + whists i wrote on j − whists j wrote on i`` under either
method; this module returns it along with the totals, since method 1 settles pair by pair.

The integer adjustment (S000, both methods) makes the totals whole when ``per × Σgora / n``
is not: one gora is changed by ±1 point and that player is compensated by ``⌊per / n⌋`` whists
from (for −1) or to (for +1) each other player. Whose gora: with method 1 the amnesty player
(the smallest gora, TV-21: С −1), with method 2 the player with the largest result (TV-22:
Ю +1); the direction is −1 for method 1 and +1 for method 2 when it makes the totals whole,
otherwise the other one; ties go to the lower seat number. If neither makes them whole (only
possible with prices the seeds do not use) the fractions are kept.

Two players may settle by the "indivisible gora" (S000, RULES.md §3.4 "Two players";
``RuleSet.duo_indivisible_gora``): "гору не делят пополам, а вычитают из большей меньшую и
умножают разницу на 10" — the pairwise amount is ``per × (gora_j − gora_i)``, not divided by n
(always whole, so no adjustment).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import NamedTuple

from domain.rules.recording import SettlementMethod


class Adjustment(NamedTuple):
    seat: int
    points: int
    """+1 or −1 on that seat's gora."""
    whists: int
    """Whists each other player writes on ``seat`` (for −1) or ``seat`` on each other (for +1)."""


class Settlement(NamedTuple):
    totals: tuple[Fraction, ...]
    """Each player's result in whists; they sum to zero."""
    pairwise: tuple[tuple[Fraction, ...], ...]
    """``pairwise[i][j]``: what ``i`` receives from ``j`` (antisymmetric; rows sum to totals)."""
    adjustment: Adjustment | None


def _pairs(
    gora: Sequence[int], whists: Sequence[Sequence[int]], per: int, indivisible: bool = False
) -> list[list[Fraction]]:
    n = len(gora)
    share = 1 if indivisible else n
    return [
        [
            Fraction(per * (gora[j] - gora[i]), share) + whists[i][j] - whists[j][i]
            if i != j
            else Fraction(0)
            for j in range(n)
        ]
        for i in range(n)
    ]


def settlement(
    gora: Sequence[int],
    whists: Sequence[Sequence[int]],
    per: int = 10,
    method: SettlementMethod = SettlementMethod.AVERAGE,
    integer: bool = False,
    indivisible: bool = False,
) -> Settlement:
    """Settle ``gora`` (each player's) and ``whists[writer][target]`` at ``per`` whists a point;
    ``indivisible``: the gora differences are not shared out (two players, S000)."""
    n = len(gora)
    pairs = _pairs(gora, whists, per, indivisible)
    totals = [sum(row, Fraction(0)) for row in pairs]
    adjustment = None
    if integer and not indivisible and (per * sum(gora)) % n:
        adjustment = _adjustment(gora, totals, per, method)
        if adjustment is not None:
            seat, points, each = adjustment
            gora = [g + points if i == seat else g for i, g in enumerate(gora)]
            sign = 1 if points > 0 else -1
            pairs = _pairs(gora, whists, per)
            for other in range(n):
                if other != seat:
                    pairs[seat][other] += sign * each
                    pairs[other][seat] -= sign * each
            totals = [sum(row, Fraction(0)) for row in pairs]
    return Settlement(tuple(totals), tuple(tuple(row) for row in pairs), adjustment)


def _adjustment(
    gora: Sequence[int], totals: Sequence[Fraction], per: int, method: SettlementMethod
) -> Adjustment | None:
    n = len(gora)
    if method is SettlementMethod.AMNESTY:
        seat = min(range(n), key=lambda s: gora[s])
        deltas = (-1, 1)
    else:
        seat = max(range(n), key=lambda s: totals[s])
        deltas = (1, -1)
    for delta in deltas:
        if (per * (sum(gora) + delta)) % n == 0:
            return Adjustment(seat, delta, per // n)
    return None
