"""The Classic way of writing win points (S000 "Варианты правил для классики", first item;
RULES.md §3.4 "Classic ending"; ``RuleSet.classic_ending``).

"В некоторых компаниях игрок пишет весь выигрыш в пулю только в том случае, если в горе у него
ничего нет. В обратном случае он всегда должен половину выигрыша списывать с горы, а другую –
писать в пулю. Игрок, закрывший пулю, половину списывает с горы, вторую половину пишет в вистах
на игрока, которому «вливает» в пулю – «помогает». «Помогают» игроку, имеющему больше всех в
пуле. Подсевшему и сидящему на прикупе «помогать» нельзя. Если «помогать» некому, оставшуюся
сумму сыгравший списывает с горы. Игрок, не имеющий горы, когда пули у всех закрыты, списывает с
горы игрока, имеющего меньше всех в горе, за что пишет вдесятеро вистов. Если у двоих игроков в
горе ноль, то списание производится со следующего игрока, имеющего в горе более нуля."

For each player's win points ``P`` of a deal, in the order of the hands:

1. with gora above zero, ⌊P/2⌋ come off his gora (as far as it goes); the rest is the pool half
   (decision: an odd point goes to the pool half; a gora smaller than the half is written off
   to zero and the remainder joins the pool half);
2. the pool half fills his own pool up to the target;
3. what is beyond helps the largest unclosed pool (``help_tie`` for equals) at
   ``help_whists_per_point`` whists a point — never a player who failed this deal (S000
   "подсевшему помогать нельзя", whatever ``help_failed_whister`` says);
4. nobody to help: off his own gora as far as it goes; then, if every pool is closed, off the
   smallest gora above zero of another player (then the next smallest), writing
   ``help_whists_per_point`` whists a point on him ("вдесятеро вистов"); anything still left
   follows ``leftover`` (points nobody can take).

A raspasy zero that may not help (``raspasy_zero_helps`` false) takes steps 1 and 2 only; the
rest comes off his own gora and any excess is lost, as without this option.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from domain.rules.ruleset import RuleSet
from domain.rules.scoresheet import (
    Help,
    ScoreSheet,
    SheetEntry,
    _entry,
    _leftover,
    _recipient,
)
from domain.rules.scoring import DealScore


def record_classic(
    sheet: ScoreSheet,
    score: DealScore,
    rules: RuleSet,
    order: Sequence[int],
    *,
    failed: Collection[int] = (),
    raspasy: bool = False,
    written_off: Collection[int] = (),
) -> tuple[ScoreSheet, SheetEntry]:
    """``scoresheet.record`` under ``rules.classic_ending`` (same arguments, see there)."""
    target = rules.pool_target
    per_point = rules.help_whists_per_point
    pool = list(sheet.pool)
    gora = [g + d for g, d in zip(sheet.gora, score.gora, strict=True)]
    whists = [
        [w + d for w, d in zip(row, drow, strict=True)]
        for row, drow in zip(sheet.whists, score.whists, strict=True)
    ]
    helps: list[Help] = []
    lose_excess = raspasy and not rules.raspasy_zero_helps
    for seat in order:
        points = score.pool[seat]
        if points <= 0:
            continue
        if seat in written_off:
            points -= _off_own_gora(gora, seat, points)
        if gora[seat] > 0:
            points -= _off_own_gora(gora, seat, points // 2)
        own = min(points, max(0, target - pool[seat]))
        pool[seat] += own
        points -= own
        while not lose_excess and points > 0:
            recipient = _recipient(seat, pool, gora, rules, failed)
            if recipient is None:
                break
            given = min(points, target - pool[recipient])
            pool[recipient] += given
            whists[seat][recipient] += given * per_point
            helps.append(Help(seat, recipient, given))
            points -= given
        points -= _off_own_gora(gora, seat, points)
        if not lose_excess and all(p >= target for p in pool):
            while points > 0:
                other = _smallest_other_gora(gora, seat)
                if other is None:
                    break
                taken = min(points, gora[other])
                gora[other] -= taken
                whists[seat][other] += taken * per_point
                points -= taken
        if points > 0:
            _leftover(gora, seat, points, rules, lose_excess)
    new = sheet._replace(pool=tuple(pool), gora=tuple(gora), whists=tuple(tuple(r) for r in whists))
    return new, _entry(sheet, new, helps)


def _off_own_gora(gora: list[int], seat: int, points: int) -> int:
    """Write up to ``points`` off the seat's own gora, not below zero; how many came off."""
    off = min(points, max(0, gora[seat]))
    gora[seat] -= off
    return off


def _smallest_other_gora(gora: Sequence[int], seat: int) -> int | None:
    """Another player with the smallest gora above zero (S000: players at zero are passed
    over); equals: the first clockwise from ``seat``."""
    n = len(gora)
    others = [(seat + i) % n for i in range(1, n)]
    positive = [s for s in others if gora[s] > 0]
    return min(positive, key=lambda s: gora[s]) if positive else None
