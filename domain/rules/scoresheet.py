"""The three-part scoresheet: pool closing, help, leftovers, settlement (RULES.md §1.10–§1.11).

``record`` writes one deal's ``DealScore`` onto a ``ScoreSheet``: gora and whists as they are,
pool points through the pool procedure (own pool up to the target, then help to the largest
unclosed pool at 10 whists a point, then leftovers off one's own gora with any excess added to
each opponent's gora). ``settle`` computes the final result of each player in exact fractions.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from fractions import Fraction
from typing import NamedTuple

from domain.rules.recording import Ending, Leftover
from domain.rules.ruleset import HelpTie, PreferansEffect, RuleSet
from domain.rules.scoring import DealScore
from domain.rules.settlement import Settlement
from domain.rules.settlement import settlement as settle_goras


class Help(NamedTuple):
    helper: int
    recipient: int
    points: int


class Departed(NamedTuple):
    """The account of a player who left before the end (S000 "ПРАВИЛА ДЛЯ ОСОБЫХ СЛУЧАЕВ",
    TV-27): frozen when he left, with his missing pool points in gora; it is settled with the
    others when the game ends. Whists are kept by account, so they outlive later departures."""

    account: int
    seat: int
    """The seat he sat at."""
    pool: int
    gora: int
    wrote: tuple[tuple[int, int], ...]
    """(account, whists he had written on it) for each account at the table when he left."""
    received: tuple[tuple[int, int], ...]
    """(account, whists it had written on him)."""


class ScoreSheet(NamedTuple):
    """The sheet of the players at the table, by seat, and the accounts of those who left.

    ``pool``, ``gora`` and ``whists`` are by seat: they belong to the account now at each seat
    (``account``). Account numbers: the first players are 0 … n−1 by seat; each player who joins
    in place of one who left gets the next number (``replace``)."""

    pool: tuple[int, ...]
    gora: tuple[int, ...]
    whists: tuple[tuple[int, ...], ...]
    """``whists[writer][target]``: whists written by ``writer`` on ``target``."""
    accounts: tuple[int, ...] = ()
    """The account at each seat; empty while nobody has been replaced (seat s is account s)."""
    departed: tuple[Departed, ...] = ()
    """The accounts of the players who left, in the order they left."""

    def account(self, seat: int) -> int:
        return self.accounts[seat] if self.accounts else seat

    @property
    def account_count(self) -> int:
        return len(self.pool) + len(self.departed)

    @classmethod
    def empty(cls, players: int = 3) -> ScoreSheet:
        zeros = (0,) * players
        return cls(zeros, zeros, tuple(zeros for _ in range(players)))

    def any_closed(self, rules: RuleSet) -> bool:
        """Whether some player's pool is closed (at the target): from then on Classic's
        ``half-until-closed`` whist is responsible (S000)."""
        return any(p >= rules.pool_target for p in self.pool)

    def all_closed(self, rules: RuleSet) -> bool:
        """Whether the pools are complete: every pool at the target, or (Leningrad ending) their
        sum at target × players."""
        if rules.ending is Ending.POOL_SUM:
            return sum(self.pool) >= rules.pool_target * rules.players
        return all(p >= rules.pool_target for p in self.pool)


class Race(NamedTuple):
    """A race won this deal (TV-39): the winner and the player with the smallest gora each
    write the prize on every other player, then every pool restarts from zero."""

    winner: int
    amnestier: int


class SheetEntry(NamedTuple):
    """What one deal changed on the sheet, after the pool procedure."""

    pool: tuple[int, ...]
    gora: tuple[int, ...]
    whists: tuple[tuple[int, ...], ...]
    helps: tuple[Help, ...]
    race: Race | None = None
    """A race won this deal (only with ``rules.races``, TV-39)."""


def _recipient(
    helper: int,
    pool: Sequence[int],
    gora: Sequence[int],
    rules: RuleSet,
    barred: Collection[int],
) -> int | None:
    n = len(pool)
    target = rules.pool_target
    clockwise = [(helper + i) % n for i in range(1, n)]
    open_pools = [s for s in clockwise if pool[s] < target and s not in barred]
    if not open_pools:
        return None
    if rules.help_tie is HelpTie.SMALLER_GORA:
        # max() keeps the first of equals, and the list is in clockwise order.
        return max(open_pools, key=lambda s: (pool[s], -gora[s]))
    return max(open_pools, key=lambda s: pool[s])


def _leftover(gora: list[int], seat: int, points: int, rules: RuleSet, lose_excess: bool) -> None:
    """Points nobody can take: off one's own gora (§1.10, §3.4)."""
    gora[seat] -= points
    if gora[seat] >= 0 or (rules.leftover is Leftover.BELOW_ZERO and not lose_excess):
        return
    excess = -gora[seat]
    gora[seat] = 0
    if lose_excess:
        return
    for other in range(len(gora)):
        if other != seat:
            gora[other] += excess


def record(
    sheet: ScoreSheet,
    score: DealScore,
    rules: RuleSet,
    order: Sequence[int],
    *,
    failed: Collection[int] = (),
    raspasy: bool = False,
    written_off: Collection[int] = (),
    sitters: Collection[int] = (),
) -> tuple[ScoreSheet, SheetEntry]:
    """Write a deal onto the sheet. ``order`` is the seats from the first hand, which is the
    order in which several pool awards of one deal (raspasy zeros) are placed. ``failed`` are
    the whisters penalised this deal (not helped unless ``rules.help_failed_whister``);
    ``raspasy`` says the awards are raspasy zeros (``rules.raspasy_zero_helps``);
    ``written_off`` are the declarers who chose to write an unwhisted contract off their gora
    (``rules.unwhisted_write_off``): as far as their gora goes, the points come off it.
    ``sitters`` are the seats without a hand (not helped unless ``rules.help_sitter``)."""
    if score.closes_all >= 0:
        return close_all(sheet, score, rules)
    if rules.classic_ending:  # S000 Classic: half off gora, half to the pool (RULES.md §3.4)
        from domain.rules.classic_ending import record_classic  # it builds on this module

        return record_classic(
            sheet,
            score,
            rules,
            order,
            # S000 Classic: "Подсевшему и сидящему на прикупе «помогать» нельзя".
            failed=(*failed, *sitters),
            raspasy=raspasy,
            written_off=written_off,
        )
    n = rules.players
    target = rules.pool_target
    pool = list(sheet.pool)
    gora = [g + d for g, d in zip(sheet.gora, score.gora, strict=True)]
    whists = [
        [w + d for w, d in zip(row, drow, strict=True)]
        for row, drow in zip(sheet.whists, score.whists, strict=True)
    ]
    helps: list[Help] = []
    by_sum = rules.ending is Ending.POOL_SUM
    lose_excess = raspasy and not rules.raspasy_zero_helps
    helping = rules.helps() and not lose_excess
    barred = (
        *(() if rules.help_failed_whister else failed),
        *(() if rules.help_sitter else sitters),
    )
    for seat in order:
        points = score.pool[seat]
        if points <= 0:
            continue
        if seat in written_off:
            off = min(points, max(0, gora[seat]))
            gora[seat] -= off
            points -= off
            if points == 0:
                continue
        room = target * n - sum(pool) if by_sum else target - pool[seat]
        own = min(points, max(0, room))
        pool[seat] += own
        points -= own
        while helping and points > 0:
            recipient = _recipient(seat, pool, gora, rules, barred)
            if recipient is None:
                break
            given = min(points, target - pool[recipient])
            pool[recipient] += given
            whists[seat][recipient] += given * rules.help_whists_per_point
            helps.append(Help(seat, recipient, given))
            points -= given
        if points > 0:
            _leftover(gora, seat, points, rules, lose_excess)
    race = _race(pool, gora, whists, rules, order) if rules.races else None
    new = sheet._replace(pool=tuple(pool), gora=tuple(gora), whists=tuple(tuple(r) for r in whists))
    entry = _entry(sheet, new, helps, race)
    return new, entry


def _race(
    pool: list[int],
    gora: Sequence[int],
    whists: list[list[int]],
    rules: RuleSet,
    order: Sequence[int],
) -> Race | None:
    """TV-39 (S004): the first (in deal order) to reach the target wins the race; he and the
    player with the smallest gora (tie: the first of them from the winner clockwise, the
    winner included) each write the prize on every other player; every pool restarts."""
    closed = [s for s in order if pool[s] >= rules.pool_target]
    if not closed:
        return None
    winner = closed[0]
    n = len(pool)
    clockwise = [(winner + i) % n for i in range(n)]
    amnestier = min(clockwise, key=lambda s: gora[s])
    for writer in (winner, amnestier):
        for other in range(n):
            if other != writer:
                whists[writer][other] += rules.race_prize_whists
    pool[:] = [0] * n
    return Race(winner, amnestier)


def pool_sum_gora(sheet: ScoreSheet, rules: RuleSet) -> tuple[int, ...]:
    """Leningrad ending (S004, TV-38): with the mean pool ``target`` (the pools sum to
    target × players), each player puts 2 × (mean − own pool) into gora; a negative amount is
    written off (gora may go below zero: settlement depends only on differences)."""
    mean = rules.pool_target
    return tuple(g + 2 * (mean - p) for g, p in zip(sheet.gora, sheet.pool, strict=True))


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
    new = sheet._replace(pool=pool, gora=gora, whists=tuple(tuple(row) for row in whists))
    entry = _entry(sheet, new, helps)
    return new, entry


def early_stop(sheet: ScoreSheet, rules: RuleSet) -> ScoreSheet:
    """Stopping before every pool is closed: each writes his missing pool points to gora (§1.11)."""
    gora = tuple(
        g + max(0, rules.pool_target - p) for g, p in zip(sheet.gora, sheet.pool, strict=True)
    )
    return sheet._replace(gora=gora)


def settlement(sheet: ScoreSheet, rules: RuleSet) -> Settlement:
    """The final settlement of a finished sheet: totals, pairwise amounts, any adjustment.

    It is by account (``accounts_sheet``): with nobody replaced, account s is seat s. A player
    who left is settled with the others, as one more part of the sheet (decision S-13)."""
    gora, whists = accounts_sheet(sheet)
    return settle_goras(
        gora,
        whists,
        rules.settlement_whists_per_gora,
        rules.settlement_method,
        rules.settlement_integer,
        rules.duo_indivisible_gora,
    )


def accounts_sheet(sheet: ScoreSheet) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Gora and whists (``[writer][target]``) by account number, those who left included."""
    if not sheet.departed:
        return sheet.gora, sheet.whists
    k = sheet.account_count
    gora = [0] * k
    whists = [[0] * k for _ in range(k)]
    for seat, g in enumerate(sheet.gora):
        a = sheet.account(seat)
        gora[a] = g
        for target, w in enumerate(sheet.whists[seat]):
            whists[a][sheet.account(target)] = w
    for gone in sheet.departed:
        gora[gone.account] = gone.gora
        for other, w in gone.wrote:
            whists[gone.account][other] = w
        for other, w in gone.received:
            whists[other][gone.account] = w
    return tuple(gora), tuple(tuple(row) for row in whists)


def leaving_gora(sheet: ScoreSheet, seat: int, rules: RuleSet) -> int:
    """What a player leaving now writes to his gora: his missing pool points, as if the game
    stopped for him (§3.4, S000 "ПРАВИЛА ДЛЯ ОСОБЫХ СЛУЧАЕВ"); under the sum-of-pools ending,
    the doubled difference from the mean (TV-38), which may write gora off."""
    pool = sheet.pool[seat]
    if rules.ending is Ending.POOL_SUM:
        return 2 * (rules.pool_target - pool)
    return max(0, rules.pool_target - pool)


def replace(sheet: ScoreSheet, seat: int, rules: RuleSet) -> ScoreSheet:
    """The player at ``seat`` leaves and another joins in his place (S000 "ПРАВИЛА ДЛЯ
    ОСОБЫХ СЛУЧАЕВ", TV-27). The leaver closes his pool, writing the missing points to his
    gora, and his account is kept for the settlement; the newcomer starts with the average
    pool and gora of the others (``joining_position``) and no whists."""
    account = sheet.account(seat)
    others = [s for s in range(len(sheet.pool)) if s != seat]
    gone = Departed(
        account,
        seat,
        max(sheet.pool[seat], rules.pool_target),
        sheet.gora[seat] + leaving_gora(sheet, seat, rules),
        tuple((sheet.account(o), sheet.whists[seat][o]) for o in others),
        tuple((sheet.account(o), sheet.whists[o][seat]) for o in others),
    )
    pool, gora = joining_position(sheet, seat)
    accounts = [sheet.account(s) for s in range(len(sheet.pool))]
    accounts[seat] = sheet.account_count
    whists = tuple(
        tuple(0 if seat in (writer, target) else w for target, w in enumerate(row))
        for writer, row in enumerate(sheet.whists)
    )
    return ScoreSheet(
        tuple(pool if s == seat else p for s, p in enumerate(sheet.pool)),
        tuple(gora if s == seat else g for s, g in enumerate(sheet.gora)),
        whists,
        tuple(accounts),
        (*sheet.departed, gone),
    )


def settle(sheet: ScoreSheet, rules: RuleSet) -> tuple[Fraction, ...]:
    """Each player's result in whists (RULES.md §1.11, §3.4); the results sum to zero. Both
    methods give the same totals (TV-21, TV-22): one computation, ``settlement``."""
    return settlement(sheet, rules).totals


def joining_position(sheet: ScoreSheet, seat: int) -> tuple[int, int]:
    """TV-27 (S000 "ПРАВИЛА ДЛЯ ОСОБЫХ СЛУЧАЕВ"): a player joining (with consent) in place of
    one who leaves starts with the average pool and the average gora of the others. Decision for
    a fractional average: the pool rounds down and the gora up, so rounding never favours the
    newcomer. Returns (pool, gora)."""
    others = [s for s in range(len(sheet.pool)) if s != seat]
    pool = sum(sheet.pool[s] for s in others) // len(others)
    gora = -(-sum(sheet.gora[s] for s in others) // len(others))
    return pool, gora


def settle_final(sheet: ScoreSheet, rules: RuleSet) -> tuple[Fraction, ...]:
    """The settlement of a game that has ended, however it ended (``final_sheet``)."""
    return settle(final_sheet(sheet, rules), rules)


def final_sheet(sheet: ScoreSheet, rules: RuleSet) -> ScoreSheet:
    """The sheet a game is settled on: as it stands when the ending was reached (the sum of
    pools adds its doubled differences, TV-38), otherwise by the early-stop rule (§1.11)."""
    if rules.ending is Ending.POOL_SUM:
        if sum(sheet.pool) >= rules.pool_target * rules.players:
            return sheet._replace(gora=pool_sum_gora(sheet, rules))
        return early_stop(sheet, rules)
    if rules.races or sheet.all_closed(rules):
        return sheet
    return early_stop(sheet, rules)


def _entry(
    before: ScoreSheet, after: ScoreSheet, helps: Sequence[Help], race: Race | None = None
) -> SheetEntry:
    """What a deal wrote on the sheet: the difference between the sheet after and before."""
    return SheetEntry(
        tuple(a - b for a, b in zip(after.pool, before.pool, strict=True)),
        tuple(a - b for a, b in zip(after.gora, before.gora, strict=True)),
        tuple(
            tuple(a - b for a, b in zip(r1, r0, strict=True))
            for r1, r0 in zip(after.whists, before.whists, strict=True)
        ),
        tuple(helps),
        race,
    )
