"""Scoring of one finished deal (RULES.md §1.6–§1.9; A-01, A-02, A-08, A-19).

``score_result`` turns a ``DealResult`` into a ``DealScore``: points each seat earns for the
pool (before pool closing and help, which ``scoresheet`` applies), gora written, and whists
written by each seat on each other. How defence whists and whister penalties are written is a
strategy looked up by ``RuleSet.whist_kind`` in ``DEFENCE_SCORERS``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from domain.rules.ruleset import PreferansEffect, RuleSet, Underbid
from domain.rules.state import DealResult, DealState, Kind

TRICKS = 10


class DealScore(NamedTuple):
    pool: tuple[int, ...]
    """Points each seat earns this deal (the pool procedure places them)."""
    gora: tuple[int, ...]
    """Gora written on each seat this deal."""
    whists: tuple[tuple[int, ...], ...]
    """``whists[writer][target]`` written this deal."""
    closes_all: int = -1
    """The seat that declared "preferans" (RULES.md §3.1): ``scoresheet.record`` closes every
    pool and writes off his gora; -1 otherwise."""


class _Sheet:
    """A small mutable accumulator, used only inside a scoring function."""

    def __init__(self, players: int) -> None:
        self.pool = [0] * players
        self.gora = [0] * players
        self.whists = [[0] * players for _ in range(players)]

    def freeze(self, closes_all: int = -1) -> DealScore:
        whists = tuple(map(tuple, self.whists))
        return DealScore(tuple(self.pool), tuple(self.gora), whists, closes_all)


DefenceScorer = Callable[[RuleSet, DealResult, _Sheet], None]


def responsible_defence(rules: RuleSet, result: DealResult, sheet: _Sheet) -> None:
    """S001 §07–§08: responsible whist with full penalties and consolation (§1.7)."""
    assert result.contract is not None
    level = result.contract.level
    value = rules.value(level)
    norm = rules.norm(level)
    declarer = result.declarer
    taken = result.tricks[declarer]
    defence = TRICKS - taken
    under = max(0, level - taken)
    consolation = under * value if rules.consolation else 0
    whisters = result.whisters
    if len(whisters) == 2:
        for w in whisters:
            sheet.whists[w][declarer] += result.tricks[w] * value + consolation
        if defence < norm:
            shortfall = norm - defence
            share = rules.whister_shares.get(level)
            if share is None:
                sheet.gora[whisters[1]] += shortfall * value
            else:
                for w in whisters:
                    short = max(0, share - result.tricks[w])
                    if rules.penalty_capped:
                        short = min(short, shortfall)
                    sheet.gora[w] += short * value
    elif len(whisters) == 1:
        (w,) = whisters
        sheet.whists[w][declarer] += defence * value + consolation
        for p in result.passers:
            if result.returned and not rules.return_whist_passer_keeps_consolation:
                sheet.whists[w][declarer] += consolation
            else:
                sheet.whists[p][declarer] += consolation
        if defence < norm:
            sheet.gora[w] += (norm - defence) * value
    else:
        for p in result.passers:
            sheet.whists[p][declarer] += consolation


DEFENCE_SCORERS: dict[str, DefenceScorer] = {"responsible": responsible_defence}
"""Registry of whisting systems; a new system adds its function here (docs/RULES-ENGINE.md)."""


def score_result(rules: RuleSet, result: DealResult, raspasy_streak: int = 0) -> DealScore:
    """The scoresheet entries of one finished deal, before pool closing and help."""
    sheet = _Sheet(rules.players)
    kind = result.kind
    declarer = result.declarer
    if kind is Kind.RASPASY:
        price = rules.raspasy_price(raspasy_streak + 1)
        base = min(result.tricks) if rules.raspasy_amnesty else 0
        for seat, taken in enumerate(result.tricks):
            sheet.gora[seat] += (taken - base) * price
            if taken == 0:
                sheet.pool[seat] += rules.raspasy_zero_bonus
        return sheet.freeze()
    contract = result.contract
    assert contract is not None
    if kind is Kind.MISERE:
        taken = result.tricks[declarer]
        if taken == 0:
            sheet.pool[declarer] += rules.misere_value
        else:
            sheet.gora[declarer] += taken * rules.misere_trick_penalty
        return sheet.freeze()
    value = rules.value(contract.level)
    if kind is Kind.PREFERANS:  # every pool closes; he writes on each (RULES.md §3.1, TV-40)
        hundred = rules.preferans_effect is PreferansEffect.HUNDRED_ON_EACH
        for seat in range(rules.players):
            sheet.pool[seat] = rules.pool_target
            if seat != declarer and hundred:
                sheet.whists[declarer][seat] += rules.preferans_whists
        return sheet.freeze(closes_all=declarer)
    if kind is Kind.UNDERBID:  # a void game: the penalty only (RULES.md §3.1, TV-25)
        penalty = value if rules.underbid_penalty is Underbid.GAME_VALUE else 2
        sheet.gora[declarer] += penalty
        return sheet.freeze()
    if kind is Kind.CONCEDED:  # "without three": undertricks, no whists (RULES.md §3.1)
        sheet.gora[declarer] += rules.concede_undertricks * value
        return sheet.freeze()
    if kind is Kind.PASSED_OUT:
        sheet.pool[declarer] += value
        return sheet.freeze()
    if kind is Kind.HALF_WHIST:
        sheet.pool[declarer] += value
        sheet.whists[result.half_whister][declarer] += rules.norm(contract.level) // 2 * value
        return sheet.freeze()
    taken = result.tricks[declarer]
    if taken >= contract.level:
        sheet.pool[declarer] += value
    else:
        sheet.gora[declarer] += (contract.level - taken) * value
    DEFENCE_SCORERS[rules.whist_kind](rules, result, sheet)
    return sheet.freeze()


def score_deal(state: DealState) -> DealScore:
    """Score a finished deal state."""
    if state.result is None:
        raise ValueError("the deal is not finished")
    return score_result(state.rules, state.result, state.raspasy_streak)
