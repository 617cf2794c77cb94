"""Classic (Классика) scoring: bombs, bomb signs and dark games (RULES.md §3.5 "Classic",
TV-26; seed S000 "КЛАССИКА").

* A **bomb** is a raspasy declared dark. Every trick of it costs its taker the bomb's trick price
  in gora, whoever declared the bomb: 2 on a single bomb, 4 double, 8 triple, 16, 32 … (powers
  of two from ``RuleSet.bomb_trick_price``); a player who takes no trick writes that price to
  pool (``score_bomb``).
* Each player who declared a played bomb gets its **sign** (``DealState.bombers``), appended to
  his ledger ``GameState.bomb_signs`` in the order the bombs were played (``add_signs``). A
  player with signs plays his next games on his first sign: the game's value is multiplied by
  2 on a single, 4 on a double, 8 on a triple … (``sign_factor``); made, that sign is crossed
  out (``cross_out``, kept in ``GameState.bomb_signs_crossed`` so the sheet shows which were
  made); failed, it remains and his next game is played on it again.
* A **dark game** is worth ``RuleSet.dark_multiplier`` (2) times as much; a **dark misère**
  ``dark_misere_value`` (20) made and ``dark_misere_trick_penalty`` (20) per trick. A dark game
  on a sign multiplies both: 7 (4) dark (×2) on a double bomb (×4) = 32 (``game_factor``).
* Decision (S000 "За подсад и висты пишется по стоимости игры соответственно", "Вдвойне также
  пишутся и ремизы, и висты по стоимости игры"): every entry of a multiplied game is multiplied
  alike — the pool value, the declarer's undertricks, the whists and consolation the defenders
  write and a whister's penalty — so the deal's whole ``DealScore`` is scaled (``scaled``). A
  void game (underbid) and a "preferans" are not multiplied and do not cross out a sign.
* The **robber** ("Разбойник", ``RuleSet.robber_gora``) is the ending's:
  ``domain.rules.game.robber_penalties``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, TypeVar

from domain.rules.ruleset import RASPASY_PRICE_CEILING, RuleSet
from domain.rules.scoring import DealScore
from domain.rules.state import DealResult, Kind

TRICKS = 10
T = TypeVar("T")

_MAX_DOUBLINGS = 10
"""2**10 times any price exceeds the ceiling: larger powers are never computed."""

BombLedger = tuple[tuple[int, ...], ...]
"""Per seat, the bomb levels owed, first to be played first (``GameState.bomb_signs``)."""


class CrossedSign(NamedTuple):
    """A bomb sign crossed out: the player made a game on it (S000: the game is written over
    the sign, e.g. "6" and "М" over the first two)."""

    level: int
    """1 single, 2 double, 3 triple …"""
    deal_number: int
    """The deal in which the game on it was made."""
    contract: str
    """The game made on it, as ``str(Bid)`` ("6♠", "misère")."""


CrossedLedger = tuple[tuple[CrossedSign, ...], ...]
"""Per seat, the signs crossed out, in the order they were (``GameState.bomb_signs_crossed``)."""


def _capped(price: int, doublings: int) -> int:
    """``price`` × 2**``doublings``, never above ``RASPASY_PRICE_CEILING`` (so a long chain of
    bombs cannot write numbers beyond 32-bit sheet fields)."""
    return min(price << min(doublings, _MAX_DOUBLINGS), RASPASY_PRICE_CEILING)


def bomb_trick_price(rules: RuleSet, level: int) -> int:
    """Gora per trick (and pool for a zero) on a bomb of ``level`` (1 single): 2/4/8/16/32 …
    (TV-26), capped at ``RASPASY_PRICE_CEILING``."""
    if level < 1:
        raise ValueError("a bomb has level 1 or more")
    return _capped(rules.bomb_trick_price, level - 1)


def score_bomb(rules: RuleSet, result: DealResult, level: int, bombers: int = 0) -> DealScore:
    """The sheet entries of a bomb of ``level``: each trick costs its taker the bomb's price in
    gora (the same for those who declared it and those who looked and passed); a player with no
    trick writes the price to pool (S000: "За невзятие взяток на бомбах игроки … пишут в пулю по
    стоимости бомбы")."""
    price = bomb_trick_price(rules, level)
    players = rules.players
    if result.talon_seat < 0:
        pool = tuple(price if taken == 0 else 0 for taken in result.tricks)
        gora = tuple(taken * price for taken in result.tricks)
        return DealScore(pool, gora, ((0,) * players,) * players)
    # Four or five players: the hands and the dealer on the talon ("в том числе сидящий на
    # прикупе"), not a player sitting out; a dealer who joined pays double a trick (l.655).
    playing = result.active | 1 << result.talon_seat
    joined = rules.dealer_joins_bomb and bool(bombers >> result.talon_seat & 1)
    pool = tuple(
        price if taken == 0 and playing >> s & 1 else 0 for s, taken in enumerate(result.tricks)
    )
    written = [taken * price for taken in result.tricks]
    if joined:
        written[result.talon_seat] *= 2
    return DealScore(pool, tuple(written), ((0,) * players,) * players)


def sign_factor(level: int) -> int:
    """The multiplier of a game played on a sign of ``level``: ×2 single, ×4 double, ×8 triple,
    ×16 … (S000 "Игра на бомбах"); 1 on no sign (``level`` 0)."""
    return 1 << min(level, _MAX_DOUBLINGS)


def game_factor(rules: RuleSet, *, dark: bool, sign: int) -> int:
    """The multiplier of a declared game: dark (``dark_multiplier``) times the sign's (TV-26:
    dark 7 on a double bomb = 4 × 2 × 4 = 32)."""
    return (rules.dark_multiplier if dark else 1) * sign_factor(sign)


def scaled(score: DealScore, factor: int) -> DealScore:
    """Every entry of ``score`` multiplied by ``factor`` (pool, gora, whists)."""
    if factor == 1:
        return score
    return DealScore(
        tuple(p * factor for p in score.pool),
        tuple(g * factor for g in score.gora),
        tuple(tuple(w * factor for w in row) for row in score.whists),
        score.closes_all,
    )


@lru_cache(maxsize=64)
def dark_misere_rules(rules: RuleSet) -> RuleSet:
    """The rules a dark misère is scored by: the misère's prices are the dark misère's — made,
    ``dark_misere_value`` (20) to pool; each trick ``dark_misere_trick_penalty`` (20) to gora
    (TV-26) — and so are the entries of any whister of it (complicated whisting prices a
    whisted misère's whists and penalty at the misère's value: doubled like a dark game's)."""
    return rules.with_options(
        misere_value=rules.dark_misere_value, misere_trick_penalty=rules.dark_misere_trick_penalty
    )


def multiplied(kind: Kind) -> bool:
    """Whether a result of ``kind`` is a game played on the declarer's sign (and multiplied by
    dark play): every declared game but a void one (underbid) and "preferans"."""
    return kind not in (Kind.RASPASY, Kind.UNDERBID, Kind.PREFERANS)


def made(result: DealResult) -> bool:
    """Whether the declarer made his game (crossing out his sign): a trick game taken at its
    level, a misère without a trick, a game given without play (both passed, half-whist)."""
    kind = result.kind
    if kind is Kind.MISERE:
        return result.tricks[result.declarer] == 0
    if kind is Kind.GAME:
        assert result.contract is not None
        return result.tricks[result.declarer] >= result.contract.level
    return kind in (Kind.PASSED_OUT, Kind.HALF_WHIST)  # CONCEDED ("without three") failed


def first_sign(ledger: BombLedger, seat: int) -> int:
    """The level of the sign ``seat`` plays his next game on (0: none)."""
    if seat < 0 or seat >= len(ledger) or not ledger[seat]:
        return 0
    return ledger[seat][0]


def _seats(ledger: tuple[tuple[T, ...], ...], players: int) -> list[list[T]]:
    """A mutable copy of a ledger, one (possibly empty) list per seat (``()`` before any)."""
    return [list(ledger[s]) if s < len(ledger) else [] for s in range(players)]


def add_signs(ledger: BombLedger, bombers: int, level: int, players: int) -> BombLedger:
    """Each seat in the mask ``bombers`` gets the sign of a bomb of ``level``, after the signs he
    already owes. Level 0 with bombers (an ordinary raspasy whose passers get a "bird", the
    simplified Classic "Хулиганка") gives a single sign."""
    if not bombers:
        return ledger
    seats = _seats(ledger, players)
    for seat in range(players):
        if bombers >> seat & 1:
            seats[seat].append(max(level, 1))
    return tuple(tuple(row) for row in seats)


def cross_out(
    ledger: BombLedger, crossed: CrossedLedger, seat: int, sign: CrossedSign, players: int
) -> tuple[BombLedger, CrossedLedger]:
    """``seat`` made a game on his first sign: it moves from what he owes to what he crossed."""
    owed = _seats(ledger, players)
    done = _seats(crossed, players)
    owed[seat].pop(0)
    done[seat].append(sign)
    return (
        tuple(tuple(row) for row in owed),
        tuple(tuple(row) for row in done),
    )


def signs_after(
    owed: BombLedger,
    crossed: CrossedLedger,
    result: DealResult,
    *,
    bomb: int,
    bombers: int,
    sign: int,
    deal_number: int,
    players: int,
) -> tuple[BombLedger, CrossedLedger]:
    """The sign ledgers after a deal with ``result``: a played bomb (or raspasy with bombers)
    gives its sign to each who declared it; a game made on a sign (``sign``, the declarer's
    first) crosses that sign out; a failed one leaves it (S000 "КЛАССИКА")."""
    if result.kind is Kind.RASPASY:
        return add_signs(owed, bombers, bomb, players), crossed
    if sign and made(result):
        assert result.contract is not None
        done = CrossedSign(sign, deal_number, str(result.contract))
        return cross_out(owed, crossed, result.declarer, done, players)
    return owed, crossed


def ledger_rows(owed: BombLedger, players: int) -> list[list[int]]:
    """The owed ledger as one list per seat (the hand record's ``bomb_signs``)."""
    return [list(row) for row in _seats(owed, players)]


def leaves(ledger: BombLedger, seat: int, players: int) -> BombLedger:
    """The owed ledger after the player at ``seat`` leaves and another joins in his place
    (TV-27): his signs leave with him — a sign is the declarer's own ("значок бомбы пишут себе
    только игроки, объявившие бомбу") — and the newcomer owes none."""
    if not ledger or not ledger[seat]:
        return ledger
    rows = _seats(ledger, players)
    rows[seat] = []
    return tuple(tuple(row) for row in rows)
