"""The three-part scoresheet: pool closing, help, leftovers, settlement (RULES.md §1.10–§1.11).

``record`` writes one deal's ``DealScore`` onto a ``ScoreSheet``: gora and whists as they are,
pool points through the pool procedure (own pool up to the target, then help to the largest
unclosed pool at 10 whists a point, then leftovers off one's own gora with any excess added to
each opponent's gora). ``settle`` computes the final result of each player in exact fractions.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import NamedTuple

from domain.rules.ruleset import HelpTie, PreferansEffect, RuleSet
from domain.rules.scoring import DealScore


class Help(NamedTuple):
    helper: int
    recipient: int
    points: int


class ScoreSheet(NamedTuple):
    pool: tuple[int, ...]
    gora: tuple[int, ...]
    whists: tuple[tuple[int, ...], ...]
    """``whists[writer][target]``: whists written by ``writer`` on ``target``."""

    @classmethod
    def empty(cls, players: int = 3) -> ScoreSheet:
        zeros = (0,) * players
        return cls(zeros, zeros, tuple(zeros for _ in range(players)))

    def all_closed(self, rules: RuleSet) -> bool:
        return all(p >= rules.pool_target for p in self.pool)


class SheetEntry(NamedTuple):
    """What one deal changed on the sheet, after the pool procedure."""

    pool: tuple[int, ...]
    gora: tuple[int, ...]
    whists: tuple[tuple[int, ...], ...]
    helps: tuple[Help, ...]


def _recipient(helper: int, pool: Sequence[int], gora: Sequence[int], rules: RuleSet) -> int | None:
    n = len(pool)
    clockwise = [(helper + i) % n for i in range(1, n)]
    open_pools = [s for s in clockwise if pool[s] < rules.pool_target]
    if not open_pools:
        return None
    if rules.help_tie is HelpTie.SMALLER_GORA:
        # max() keeps the first of equals, and the list is in clockwise order.
        return max(open_pools, key=lambda s: (pool[s], -gora[s]))
    return max(open_pools, key=lambda s: pool[s])


def record(
    sheet: ScoreSheet, score: DealScore, rules: RuleSet, order: Sequence[int]
) -> tuple[ScoreSheet, SheetEntry]:
    """Write a deal onto the sheet. ``order`` is the seats from the first hand, which is the
    order in which several pool awards of one deal (raspasy zeros) are placed."""
    if score.closes_all >= 0:
        return close_all(sheet, score, rules)
    n = rules.players
    target = rules.pool_target
    pool = list(sheet.pool)
    gora = [g + d for g, d in zip(sheet.gora, score.gora, strict=True)]
    whists = [
        [w + d for w, d in zip(row, drow, strict=True)]
        for row, drow in zip(sheet.whists, score.whists, strict=True)
    ]
    helps: list[Help] = []
    for seat in order:
        points = score.pool[seat]
        if points <= 0:
            continue
        own = min(points, max(0, target - pool[seat]))
        pool[seat] += own
        points -= own
        while points > 0:
            recipient = _recipient(seat, pool, gora, rules)
            if recipient is None:
                break
            given = min(points, target - pool[recipient])
            pool[recipient] += given
            whists[seat][recipient] += given * rules.help_whists_per_point
            helps.append(Help(seat, recipient, given))
            points -= given
        if points > 0:
            gora[seat] -= points
            if gora[seat] < 0:
                excess = -gora[seat]
                gora[seat] = 0
                for other in range(n):
                    if other != seat:
                        gora[other] += excess
    new = ScoreSheet(tuple(pool), tuple(gora), tuple(tuple(r) for r in whists))
    entry = SheetEntry(
        tuple(a - b for a, b in zip(new.pool, sheet.pool, strict=True)),
        tuple(a - b for a, b in zip(new.gora, sheet.gora, strict=True)),
        tuple(
            tuple(a - b for a, b in zip(r1, r0, strict=True))
            for r1, r0 in zip(new.whists, sheet.whists, strict=True)
        ),
        tuple(helps),
    )
    return new, entry


def close_all(sheet: ScoreSheet, score: DealScore, rules: RuleSet) -> tuple[ScoreSheet, SheetEntry]:
    """ "Preferans" (RULES.md §3.1, TV-40): every pool is closed to the target and the
    declarer's gora is written off; the deal's whists (S004: his hundred on each) are written;
    under S000's ``help-whists`` effect each point he gives another pool is a help with its
    whists; under ``preferans_takes_whists`` the whists others had on him become his on them."""
    declarer = score.closes_all
    target = rules.pool_target
    pool = tuple(max(p, target) for p in sheet.pool)
    gora = tuple(0 if s == declarer else g for s, g in enumerate(sheet.gora))
    whists = [
        [w + d for w, d in zip(row, drow, strict=True)]
        for row, drow in zip(sheet.whists, score.whists, strict=True)
    ]
    helps: list[Help] = []
    for other, points in enumerate(sheet.pool):
        if other == declarer:
            continue
        if rules.preferans_effect is PreferansEffect.HELP_WHISTS and points < target:
            helps.append(Help(declarer, other, target - points))
            whists[declarer][other] += (target - points) * rules.help_whists_per_point
        if rules.preferans_takes_whists:
            whists[declarer][other] += whists[other][declarer]
            whists[other][declarer] = 0
    new = ScoreSheet(pool, gora, tuple(tuple(row) for row in whists))
    entry = SheetEntry(
        tuple(a - b for a, b in zip(new.pool, sheet.pool, strict=True)),
        tuple(a - b for a, b in zip(new.gora, sheet.gora, strict=True)),
        tuple(
            tuple(a - b for a, b in zip(r1, r0, strict=True))
            for r1, r0 in zip(new.whists, sheet.whists, strict=True)
        ),
        tuple(helps),
    )
    return new, entry


def early_stop(sheet: ScoreSheet, rules: RuleSet) -> ScoreSheet:
    """Stopping before every pool is closed: each writes his missing pool points to gora (§1.11)."""
    gora = tuple(
        g + max(0, rules.pool_target - p) for g, p in zip(sheet.gora, sheet.pool, strict=True)
    )
    return sheet._replace(gora=gora)


def settle(sheet: ScoreSheet, rules: RuleSet) -> tuple[Fraction, ...]:
    """Each player's result in whists by the average-gora method; the results sum to zero."""
    n = len(sheet.pool)
    avg = Fraction(sum(sheet.gora), n)
    out = []
    for i in range(n):
        share = rules.settlement_whists_per_gora * (avg - sheet.gora[i])
        written = sum(sheet.whists[i])
        received = sum(sheet.whists[j][i] for j in range(n))
        out.append(share + written - received)
    return tuple(out)
