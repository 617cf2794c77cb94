"""What the seats without a hand write, and what is written on them (four or five players,
RULES.md §3.6; the decisions are ``domain.rules.sitters``'s).

``with_sitters`` completes a deal's ``DealScore`` computed among the three hands:

* a failed declarer pays every sitter his consolation (``sitter_consolation``; S000, TV-23);
* a whist returned by a sitter replaces the defence's whists: he alone writes every defence
  trick, both passers' consolation and his own, and answers alone for the norm; the passers
  write nothing (S000 conv., S003; TV-24, TV-30);
* the dealer's talon whists (``talon_whists``; TV-20, TV-29), whatever the game's result;
* the returned talon's penalty (``talon_return``; §5.1 C-8);
* the misère shared with the dealer (``misere_partner``): each side of the misère's entries
  split equally, the odd point staying with the declarer.
"""

from __future__ import annotations

from domain.rules.ruleset import RuleSet, TalonReturn
from domain.rules.scoring import TRICKS, DealScore
from domain.rules.state import DealResult, Kind


def with_sitters(rules: RuleSet, result: DealResult, score: DealScore) -> DealScore:
    n = rules.players
    pool, gora = list(score.pool), list(score.gora)
    whists = [list(row) for row in score.whists]
    declarer = result.declarer
    contract = result.contract
    assert contract is not None
    sitters = [s for s in range(n) if not result.active >> s & 1]
    level = contract.level
    if result.kind is Kind.GAME and not contract.is_misere:
        under = level - result.tricks[declarer]
        consolation = (
            under * rules.consolation_price(level) if under > 0 and rules.consolation else 0
        )
        returner = result.whisters[0] if len(result.whisters) == 1 else -1
        if returner in sitters:
            _returned_whist(rules, result, whists, gora, returner, consolation)
        if rules.sitter_consolation and consolation:
            for seat in sitters:
                whists[seat][declarer] += consolation
    if result.talon_count:
        talon = result.talon_seat
        if contract.is_misere:
            whists[talon][declarer] += result.talon_count * rules.talon_misere_seven_whists
        elif rules.talon_whist_values:
            whists[talon][declarer] += rules.talon_whist_values[result.talon_count - 1]
        else:
            whists[talon][declarer] += result.talon_count * rules.whist_price(level)
    if result.talon_returned:
        penalty = 2
        if rules.talon_return is TalonReturn.GAME_VALUE:
            penalty = rules.misere_value if contract.is_misere else rules.value(level)
        gora[declarer if rules.talon_return_refuser_gora else result.talon_seat] += penalty
    if result.partner >= 0:
        _share(result.partner, declarer, pool, gora, whists)
    return DealScore(tuple(pool), tuple(gora), tuple(map(tuple, whists)), score.closes_all)


def _returned_whist(
    rules: RuleSet,
    result: DealResult,
    whists: list[list[int]],
    gora: list[int],
    returner: int,
    consolation: int,
) -> None:
    """The sitter who returned the whist writes the whole defence (the hands' scoring wrote
    none of it; the passers write nothing, S000: "даже консоляцию"): every defence trick at
    the whist price, both passers' consolation and (added by the caller) his own; short of the
    norm he alone writes the penalty at the full price ("он один уже несет полную
    ответственность")."""
    assert result.contract is not None
    level = result.contract.level
    declarer = result.declarer
    defence = TRICKS - result.tricks[declarer]
    whists[returner][declarer] += defence * rules.whist_price(level) + 2 * consolation
    short = rules.defence_norms[level] - defence
    if short > 0:
        gora[returner] += short * rules.whist_price(level)


def _share(
    partner: int, declarer: int, pool: list[int], gora: list[int], whists: list[list[int]]
) -> None:
    half = pool[declarer] // 2
    pool[declarer] -= half
    pool[partner] += half
    half = gora[declarer] // 2
    gora[declarer] -= half
    gora[partner] += half
    for writer, row in enumerate(whists):
        if writer == partner:
            continue  # his own talon whists on the declarer are not his to share
        half = row[declarer] // 2
        row[declarer] -= half
        row[partner] += half
