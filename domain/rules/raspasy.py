"""Raspasy as a series (RULES.md §1.9, §3.3): prices, scoring, who deals next, and when a
series of raspasy ends — every convention a ``RuleSet`` field.

The *streak* (``raspasy_streak``) is the number of raspasy of the current series played
before a deal. It sets that deal's trick price (``RuleSet.raspasy_price(streak + 1)``), the
lowest level of its auction (``RuleSet.min_level(streak)``) and, under "Любимовка", whether
it is dealt as raspasy without an auction (``RuleSet.raspasy_compulsory(streak)``). After a
deal, ``streak_after`` gives the next streak:

* raspasy: one more — unless a player took no trick and ``raspasy_zero_ends_series``, or the
  series reached ``raspasy_round_limit`` (then 0);
* a made contract (a trick game made, played or not; a misère made): 0;
* a failed contract: 0, unless ``raspasy_failure_ends_series`` is off (S000 "exit by failure
  not allowed": the streak stands, the next all-pass is the next raspasy in order);
* a misère, made or not: as above, unless ``raspasy_misere_ends_series`` is off (S000 "misère
  does not break raspasy": the streak stands).

The dealer after a deal is ``dealer_after`` (sliding, non-sliding with its limit, …).
``check_options`` refuses the raspasy options that make no sense together (``RuleSet`` calls
it when a rule set is made).
"""

from __future__ import annotations

from domain.rules.errors import InvalidAction
from domain.rules.ruleset import (
    Progression,
    RaspasyDealer,
    RaspasyScoring,
    RaspasyTalon,
    RuleSet,
)
from domain.rules.scoring import DealScore
from domain.rules.seats import next_dealer
from domain.rules.state import DealResult, Kind


def score_raspasy(rules: RuleSet, result: DealResult, raspasy_streak: int) -> DealScore:
    """The sheet entries of one raspasy played after ``raspasy_streak`` raspasy in a row.

    With four or five players (§3.6) the seats without a hand take no part, except the dealer
    on the talon: his talon tricks are written like anybody's (``talon_tricks_penalised``), he
    writes the zero bonus (S000; on an open talon S003's "nothing" is
    ``talon_sitter_zero_bonus=False``), and the amnesty counts his tricks (S000)."""
    players = rules.players
    tricks = result.tricks[:players]  # with two players the dummy (position 2) takes no part
    price = rules.raspasy_price(raspasy_streak + 1)
    bonus = price if rules.raspasy_zero_bonus_priced else rules.raspasy_zero_bonus
    hands = result.active or (1 << players) - 1
    sitter = result.talon_seat
    zero_seats = hands
    counted = hands
    if sitter >= 0:
        counted |= 1 << sitter
        if rules.raspasy_talon is not RaspasyTalon.OPEN or rules.talon_sitter_zero_bonus:
            zero_seats |= 1 << sitter
    pool = tuple(
        bonus if taken == 0 and zero_seats >> s & 1 else 0 for s, taken in enumerate(tricks)
    )
    base = min(t for s, t in enumerate(tricks) if counted >> s & 1) if rules.raspasy_amnesty else 0
    scoring = rules.raspasy_scoring
    no_whists = ((0,) * players,) * players
    if scoring is RaspasyScoring.GORA:
        penalised = counted if rules.talon_tricks_penalised else hands
        gora = tuple(
            (taken - base) * price if penalised >> s & 1 else 0 for s, taken in enumerate(tricks)
        )
        return DealScore(pool, gora, no_whists)
    # On whists (Rostov) only the hands compete: a closed talon takes nothing (decision S-40).
    seats = [s for s in range(players) if hands >> s & 1]
    fewest = min(tricks[s] for s in seats)
    whists = [[0] * players for _ in range(players)]
    for writer in seats:
        if scoring is RaspasyScoring.WHISTS_FEWEST and tricks[writer] != fewest:
            continue
        for target in seats:
            if tricks[target] <= tricks[writer]:
                continue
            if scoring is RaspasyScoring.WHISTS_FEWEST:
                whists[writer][target] = (tricks[target] - base) * price
            else:
                whists[writer][target] = (tricks[target] - tricks[writer]) * price
    return DealScore(pool, (0,) * players, tuple(map(tuple, whists)))


def _made(result: DealResult) -> bool:
    """Whether the declarer of a contract made it (no-play contracts count as made)."""
    kind = result.kind
    if kind is Kind.MISERE:
        return result.tricks[result.declarer] == 0
    if kind is Kind.GAME:
        assert result.contract is not None
        return result.tricks[result.declarer] >= result.contract.level
    # "Without three" writes the declarer undertricks: a failure (§3.3 "exit by failure").
    return kind is not Kind.CONCEDED  # PASSED_OUT, HALF_WHIST, PREFERANS: his game is written


def _a_hand_took_nothing(result: DealResult) -> bool:
    """Some hand took no trick (S000 "exit by a zero"; a seat without a hand does not count,
    §3.6: the dealer's talon may simply take nothing)."""
    hands = result.active or (1 << len(result.tricks)) - 1
    return any(t == 0 for s, t in enumerate(result.tricks) if hands >> s & 1)


def streak_after(rules: RuleSet, raspasy_streak: int, result: DealResult) -> int:
    """The raspasy streak before the next deal, after a deal with ``result`` (see above)."""
    if result.kind is Kind.UNDERBID or result.kind is Kind.REDEAL:
        return raspasy_streak  # a void game is dealt again, as if not played (§3.1, §3.6)
    if result.kind is Kind.RASPASY:
        streak = raspasy_streak + 1
        if rules.raspasy_zero_ends_series and _a_hand_took_nothing(result):
            return 0
        if rules.raspasy_round_limit and streak >= rules.raspasy_round_limit:
            return 0
        return streak
    if result.kind is Kind.MISERE and not rules.raspasy_misere_ends_series:
        return raspasy_streak
    if not rules.raspasy_failure_ends_series and not _made(result):
        return raspasy_streak
    return 0


def dealer_after(
    rules: RuleSet, dealer: int, dealer_run: int, result: DealResult
) -> tuple[int, int]:
    """The next deal's dealer and how many deals in a row he has dealt before it.

    ``dealer_run`` is how many deals in a row ``dealer`` had dealt before the one just
    finished (0 for the first). He deals again only if the convention keeps him after this
    result and (for the limited conventions) he has dealt fewer than the limit so far."""
    if result.kind is Kind.UNDERBID:  # a void game is dealt again by the same dealer (§3.1)
        return dealer, dealer_run
    policy = rules.raspasy_dealer
    raspasy = result.kind is Kind.RASPASY
    if policy is RaspasyDealer.NEVER_PASSES:
        stays = raspasy
    elif policy is RaspasyDealer.STAYS:
        stays = raspasy and dealer_run + 1 < rules.raspasy_dealer_limit
    elif policy is RaspasyDealer.STAYS_UNTIL_MISERE_MADE:
        misere_failed = result.kind is Kind.MISERE and not _made(result)
        stays = (raspasy or misere_failed) and dealer_run + 1 < rules.raspasy_dealer_limit
    else:
        stays = False
    if stays:
        return dealer, dealer_run + 1
    return next_dealer(dealer, rules.players), 0


def check_options(rules: RuleSet) -> None:
    """Refuse combinations of the raspasy options that make no sense (RULES.md §3.3); called
    by ``RuleSet`` when it is made, with a message naming the conflict."""
    for name in (
        "raspasy_progression_limit",
        "raspasy_round_limit",
        "raspasy_compulsory_rounds",
    ):
        if getattr(rules, name) < 0:
            raise InvalidAction(f"{name} cannot be negative", field=f"rules.{name}")
    if rules.raspasy_dealer_limit < 1:
        raise InvalidAction(
            "raspasy_dealer_limit must be at least 1", field="rules.raspasy_dealer_limit"
        )
    kind = rules.raspasy_progression
    if kind is Progression.TABLE:
        if rules.raspasy_progression_step != 1 or rules.raspasy_progression_limit != 0:
            raise InvalidAction(
                "raspasy_progression_step and raspasy_progression_limit apply only to an "
                "arithmetic or geometric raspasy_progression; a 'table' progression lists "
                "its prices in raspasy_trick_prices",
                field="rules.raspasy_progression",
            )
    else:
        if len(rules.raspasy_trick_prices) != 1:
            raise InvalidAction(
                f"an {kind.value} raspasy_progression grows from one base price: give "
                "raspasy_trick_prices one entry, or use the 'table' progression",
                field="rules.raspasy_trick_prices",
            )
        least = 2 if kind is Progression.GEOMETRIC else 1
        if rules.raspasy_progression_step < least:
            raise InvalidAction(
                f"an {kind.value} raspasy_progression needs raspasy_progression_step of at "
                f"least {least} (a flat price is the 'table' progression)",
                field="rules.raspasy_progression_step",
            )
    if rules.raspasy_compulsory_rounds:
        if rules.raspasy_zero_ends_series:
            raise InvalidAction(
                "compulsory raspasy rounds (raspasy_compulsory_rounds, Любимовка) cannot "
                "be cut short by raspasy_zero_ends_series",
                field="rules.raspasy_compulsory_rounds",
            )
        if 0 < rules.raspasy_round_limit <= rules.raspasy_compulsory_rounds:
            raise InvalidAction(
                "raspasy_round_limit ends the series before the raspasy_compulsory_rounds "
                "are played: the limit must exceed the compulsory rounds",
                field="rules.raspasy_round_limit",
            )
    limited = (RaspasyDealer.STAYS, RaspasyDealer.STAYS_UNTIL_MISERE_MADE)
    if rules.raspasy_dealer not in limited and rules.raspasy_dealer_limit != 3:
        raise InvalidAction(
            f"raspasy_dealer_limit applies only when the dealer stays after raspasy, not "
            f"with raspasy_dealer {rules.raspasy_dealer.value!r}",
            field="rules.raspasy_dealer_limit",
        )
    if rules.raspasy_scoring is RaspasyScoring.WHISTS_PAIRWISE and rules.raspasy_amnesty:
        raise InvalidAction(
            "raspasy_amnesty changes nothing with raspasy_scoring 'whists-pairwise' "
            "(only differences of tricks are written)",
            field="rules.raspasy_amnesty",
        )
