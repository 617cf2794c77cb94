"""Scoring of one finished deal (RULES.md §1.6–§1.8; A-01, A-02, A-08); raspasy (§1.9, §3.3,
A-19) is scored by ``domain.rules.raspasy.score_raspasy``.

``score_result`` turns a ``DealResult`` into a ``DealScore``: points each seat earns for the
pool (before pool closing and help, which ``scoresheet`` applies), gora written, and whists
written by each seat on each other. How defence whists and whister penalties are written is a
strategy looked up by ``RuleSet.whist_kind`` in ``DEFENCE_SCORERS``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from domain.rules.ruleset import PreferansEffect, RuleSet, Underbid
from domain.rules.state import DealResult, DealState, Kind
from domain.rules.whist_options import Obligations, ShortfallPayer, WhistLiability, WhistSharing

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
    """S001 §07–§08 (§1.7) and the whisting axes of RULES.md §3.2 and §5.1: whists for tricks
    and consolation at the whists-per-trick and consolation prices (C-1, C-2), penalties full
    or half (C-1), joint norm or individual obligations (TV-23, TV-32), greedy or gentleman
    sharing with the passer (C-3, C-4, A-10)."""
    assert result.contract is not None
    level = result.contract.level
    declarer = result.declarer
    tricks = result.tricks
    under = level - tricks[declarer]
    consolation = under * rules.consolation_price(level) if under > 0 and rules.consolation else 0
    whisters = result.whisters
    if len(whisters) == 2:
        price = rules.whist_price(level)
        writes = rules.failing_whister_writes_whists
        w1, w2 = whisters
        s1, s2 = _two_whister_shortfalls(rules, level, tricks[w1], tricks[w2])
        whists = sheet.whists
        whists[w1][declarer] += (tricks[w1] * price if writes or not s1 else 0) + consolation
        whists[w2][declarer] += (tricks[w2] * price if writes or not s2 else 0) + consolation
        if s1 or s2:
            penalty = rules.shortfall_price(level)
            sheet.gora[w1] += s1 * penalty
            sheet.gora[w2] += s2 * penalty
    elif len(whisters) == 1:
        _lone_whister(rules, result, sheet, consolation, TRICKS - tricks[declarer])
    else:
        for p in result.passers:
            sheet.whists[p][declarer] += consolation


def _two_whister_shortfalls(rules: RuleSet, level: int, t1: int, t2: int) -> tuple[int, int]:
    """Tricks each of two whisters (tricks ``t1``, ``t2`` in the order they whisted) is short
    of what he answers for (§1.6 item 1, §3.2)."""
    if rules.whist_obligations is not Obligations.JOINT:
        if rules.is_checked(level):
            return 0, 0
        quota = rules.whister_quota(level)
        return max(0, quota - t1), max(0, quota - t2)
    shortfall = rules.defence_norms[level] - (t1 + t2)
    if shortfall <= 0 or rules.is_checked(level):
        return 0, 0  # norm met, or A-17: a checked ten is defended at no risk
    share = rules.whister_shares.get(level)
    second = rules.second_whister_share(level)
    if share is None or second is None:
        if rules.shortfall_payer is ShortfallPayer.BOTH:
            return shortfall, shortfall
        return 0, shortfall
    s1, s2 = max(0, share - t1), max(0, second - t2)
    if rules.penalty_capped:
        return min(s1, shortfall), min(s2, shortfall)
    return s1, s2


def _lone_whister(
    rules: RuleSet, result: DealResult, sheet: _Sheet, consolation: int, defence: int
) -> None:
    """One whister and one passer (or the half-whister after a return whist)."""
    assert result.contract is not None
    level = result.contract.level
    declarer = result.declarer
    (w,) = result.whisters
    if rules.whist_obligations is Obligations.ALL or result.own_cards:
        # S000 conv.: the whister answers on his own cards; the passer's tricks are nobody's
        # (two players, ``duo_whist_own_cards``: the dummy's; S000 "на шестерной – 2, на
        # семерной и более – одну").
        counted = result.tricks[w]
        quota = (2 if level == 6 else 1) if result.own_cards else rules.whister_quota(level)
        short = max(0, quota - counted)
    else:
        counted = defence
        short = max(0, rules.defence_norms[level] - defence)
    if short:
        own = counted * rules.whist_price(level) if rules.failing_whister_writes_whists else 0
        gora = short * rules.shortfall_price(level)
    else:
        own = counted * rules.whist_price(level)
        gora = 0
    passers = result.passers
    if result.returned:
        # the returner writes all; the half-whister at most his own consolation.
        sheet.whists[w][declarer] += own + consolation
        sheet.gora[w] += gora
        for p in passers:
            if rules.return_whist_passer_keeps_consolation:
                sheet.whists[p][declarer] += consolation
            else:
                sheet.whists[w][declarer] += consolation
        return
    if rules.whist_sharing is WhistSharing.GENTLEMAN and result.half_whister not in passers:
        # All whists split in half, on failure (S000, S004) or always (S003, A-10); a passer
        # who went half-whist writes only his consolation (S000), as under greedy.
        if rules.gentleman_split_always or result.tricks[declarer] < level:
            half = (own + consolation * (1 + len(passers))) // (1 + len(passers))
            sheet.whists[w][declarer] += half
            for p in passers:
                sheet.whists[p][declarer] += half
        else:
            sheet.whists[w][declarer] += own
        if rules.gentleman_split_penalties:
            for seat in (w, *passers):
                sheet.gora[seat] += gora // (1 + len(passers))
        else:
            sheet.gora[w] += gora
        return
    sheet.whists[w][declarer] += own + consolation
    sheet.gora[w] += gora
    for p in passers:
        if rules.greedy_passer_consolation:
            sheet.whists[p][declarer] += consolation
        else:
            sheet.whists[w][declarer] += consolation


DEFENCE_SCORERS: dict[str, DefenceScorer] = {"responsible": responsible_defence}
"""Registry of whisting systems; a new system adds its function here (docs/RULES-ENGINE.md)."""


def score_result(
    rules: RuleSet,
    result: DealResult,
    raspasy_streak: int = 0,
    pool_closed: bool = False,
    *,
    bomb: int = 0,
    dark: bool = False,
    sign: int = 0,
    bombers: int = 0,
) -> DealScore:
    """The scoresheet entries of one finished deal, before pool closing and help.
    ``pool_closed``: some player's pool was closed before this deal (the liability of
    ``half-until-closed`` whist, S000 Classic).

    Classic (``domain.rules.bombs``, TV-26): ``bomb`` is the level of a bomb raspasy, ``dark``
    says the contract was a dark game, ``sign`` is the level of the bomb sign the declarer plays
    his game on (0: none); a multiplied game has every entry multiplied."""
    if bomb or dark or sign:
        from domain.rules import bombs  # bombs builds on this module

        kind = result.kind
        if kind is Kind.RASPASY:
            if bomb:
                return bombs.score_bomb(rules, result, bomb, bombers)
        elif bombs.multiplied(kind):
            if dark and kind is Kind.MISERE:
                priced = bombs.dark_misere_rules(rules)
                plain = _score_plain(priced, result, raspasy_streak, pool_closed)
                return bombs.scaled(plain, bombs.sign_factor(sign))
            factor = bombs.game_factor(rules, dark=dark, sign=sign)
            return bombs.scaled(_score_plain(rules, result, raspasy_streak, pool_closed), factor)
    return _score_plain(rules, result, raspasy_streak, pool_closed)


def _score_plain(
    rules: RuleSet, result: DealResult, raspasy_streak: int, pool_closed: bool
) -> DealScore:
    """``score_result`` of a deal without Classic multipliers."""
    score = _score_table(rules, result, raspasy_streak, pool_closed)
    if result.talon_seat < 0 or result.kind in (Kind.RASPASY, Kind.UNDERBID, Kind.PREFERANS):
        return score
    from domain.rules.sitter_scoring import with_sitters  # it builds on this module

    return with_sitters(_liable(rules.priced_for(result.contract), pool_closed), result, score)


def _score_table(
    rules: RuleSet, result: DealResult, raspasy_streak: int, pool_closed: bool
) -> DealScore:
    """The deal's entries among the seats that held a hand (and the raspasy talon)."""
    sheet = _Sheet(rules.players)
    rules = _liable(rules.priced_for(result.contract), pool_closed)
    kind = result.kind
    declarer = result.declarer
    if kind is Kind.REDEAL:  # two players passed and deal again: nothing is written (§3.6)
        return sheet.freeze()
    if kind is Kind.RASPASY:
        from domain.rules.raspasy import score_raspasy  # raspasy builds on this module

        return score_raspasy(rules, result, raspasy_streak)
    contract = result.contract
    assert contract is not None
    if kind is Kind.MISERE:
        taken = result.tricks[declarer]
        if taken == 0:
            sheet.pool[declarer] += rules.misere_value
        else:
            sheet.gora[declarer] += taken * rules.misere_trick_penalty
        _misere_whisters(rules, result, sheet)
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
        half = rules.half_whist_price(contract.level)
        sheet.whists[result.half_whister][declarer] += half
        return sheet.freeze()
    taken = result.tricks[declarer]
    if taken >= contract.level:
        sheet.pool[declarer] += value
    else:
        sheet.gora[declarer] += (contract.level - taken) * rules.undertrick_price(contract.level)
    if result.talon_seat >= 0 and result.whisters and not result.active >> result.whisters[0] & 1:
        return sheet.freeze()  # a whist returned by a sitter: ``sitter_scoring`` writes it
    DEFENCE_SCORERS[rules.whist_kind](rules, result, sheet)
    return sheet.freeze()


def _misere_whisters(rules: RuleSet, result: DealResult, sheet: _Sheet) -> None:
    """Classic complicated whisting (S000, ``misere_whisted``): "при сыгранном мизере он
    пишет 10 в гору", "на мизере дал взятку, то кроме подсада играющего вистующий пишет на
    него висты". Decisions (RULES.md §5.1 open point): each whister writes the misère's value
    in whists per trick the declarer took (the game's cost in whists, as "висты по стоимости
    игры"), and the misère's value to gora when it is made, halved under half-responsible
    whist like any shortfall ("за подсад на висте в гору пишется половина стоимости игры")."""
    declarer = result.declarer
    taken = result.tricks[declarer]
    for w in result.whisters:
        if taken:
            sheet.whists[w][declarer] += taken * rules.misere_value
        else:
            half = rules.whist_liability is WhistLiability.HALF
            sheet.gora[w] += rules.misere_value // 2 if half else rules.misere_value


def _liable(rules: RuleSet, pool_closed: bool) -> RuleSet:
    """``half-until-closed`` resolved for this deal: half before a pool is closed, full after
    (S000 Classic); other liabilities are what they are."""
    if rules.whist_liability is not WhistLiability.HALF_UNTIL_CLOSED:
        return rules
    return _resolved(rules, rules.half_liability(pool_closed))


@lru_cache(maxsize=64)
def _resolved(rules: RuleSet, half: bool) -> RuleSet:
    return rules.with_options(whist_liability=WhistLiability.HALF if half else WhistLiability.FULL)


def score_deal(state: DealState, pool_closed: bool = False, sign: int = 0) -> DealScore:
    """Score a finished deal state; ``pool_closed`` as in ``score_result``; ``sign`` is the
    level of the bomb sign its declarer plays on (Classic, ``bombs.first_sign`` of the game's
    ledger; 0 none)."""
    if state.result is None:
        raise ValueError("the deal is not finished")
    return score_result(
        state.rules,
        state.result,
        state.raspasy_streak,
        pool_closed,
        bomb=state.bomb,
        dark=state.dark,
        sign=sign,
        bombers=state.bombers,
    )
