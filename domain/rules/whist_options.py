"""The whisting options' kinds and their semantic checks (RULES.md §3.2, §5.1 C-1 … C-4).

Split from ``ruleset.py`` so that module stays short: the fields themselves are in
``RuleSet`` (block "Whisting systems (issue 11, …)"), which calls ``check_whisting``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from domain.rules.bids import LADDER
from domain.rules.errors import InvalidAction

if TYPE_CHECKING:
    from domain.rules.ruleset import RuleSet


_CHEAPEST_BIDS = LADDER[:5]
"""6♠ 6♣ 6♦ 6♥ 6NT: one contract of each strain."""


class WhistLiability(StrEnum):
    """What a whister pays per trick short of his obligation (RULES.md §3.2, §5.1 C-1)."""

    FULL = "full"
    """Responsible whist: the whists-per-trick price per missing trick (the default)."""
    HALF = "half"
    """Half-responsible whist: half the whists-per-trick price (Leningrad, Rostov)."""
    HALF_UNTIL_CLOSED = "half-until-closed"
    """Half-responsible until some player's pool is closed, responsible from then on (S000
    Classic options: "только до того момента, пока хотя бы у одного из игроков не будет
    закрыта пуля")."""


class ShortfallPayer(StrEnum):
    """Who of two whisters pays on a level without whister shares (8–10) (RULES.md §3.2)."""

    SECOND = "second"
    """The second whister ("second whist responsible"; the default, S001 §07)."""
    BOTH = "both"
    """Both whisters pay the missing trick (S000/S003 variant on 8 and 9)."""


class Obligations(StrEnum):
    """Greedy whist with individual obligations (RULES.md §3.2, TV-23, TV-32)."""

    JOINT = "joint"
    """Whisters answer only when the joint norm is missed (the default, S001 §07)."""
    TWO_WHISTERS = "two-whisters"
    """Each of two whisters answers for his own quota even when the joint norm is met; a lone
    whister counts both hands against the joint norm (the S000 sub-variant)."""
    ALL = "all"
    """As ``TWO_WHISTERS``, and a lone whister answers for his quota on his own cards: he plays
    closed and the passer's tricks belong to nobody (S000 conventions)."""


class WhistSharing(StrEnum):
    """How a lone whister and the passer share the whists (RULES.md §3.2, §5.1 C-3, C-4)."""

    GREEDY = "greedy"
    """The whister writes his tricks; the passer only consolation (the default, S000)."""
    GENTLEMAN = "gentleman"
    """Whister and passer split all whists in half (S000, S003, S004)."""


def check_whisting(rules: RuleSet) -> None:
    """Combinations of the whisting options that make sense (RULES.md §3.2, §5.1); a
    combination that does not is refused naming the conflicting field."""
    from domain.rules.ruleset import LEVELS

    for name in ("whist_prices", "consolation_prices", "undertrick_prices"):
        table = getattr(rules, name)
        if table and tuple(sorted(table)) != LEVELS:
            raise InvalidAction(
                "a price table is empty (the default prices) or has levels 6 to 10",
                field=f"rules.{name}",
            )
    odd = [level for level in LEVELS if rules.whist_price(level) % 2]
    if rules.whist_liability is not WhistLiability.FULL and odd:
        raise InvalidAction(
            f"half-responsible whist halves the whists-per-trick price, odd on level {odd[0]};"
            " give even whist_prices",
            field="rules.whist_liability",
        )
    gentleman = rules.whist_sharing is WhistSharing.GENTLEMAN
    if gentleman and odd:
        raise InvalidAction(
            f"gentleman whist splits the whists in half, odd on level {odd[0]};"
            " give even whist_prices",
            field="rules.whist_sharing",
        )
    if not gentleman and (rules.gentleman_split_always or rules.gentleman_split_penalties):
        name = "always" if rules.gentleman_split_always else "penalties"
        raise InvalidAction(
            "gentleman_split_* options need whist_sharing 'gentleman'",
            field=f"rules.gentleman_split_{name}",
        )
    if gentleman and not rules.greedy_passer_consolation:
        raise InvalidAction(
            "greedy_passer_consolation=false is the greedy reading (C-4);"
            " gentleman whist splits everything with the passer",
            field="rules.greedy_passer_consolation",
        )
    if rules.gentleman_split_penalties and any(
        rules.shortfall_price(level, closed) % 2 for level in LEVELS for closed in (False, True)
    ):
        raise InvalidAction(
            "splitting penalties in half needs an even penalty per trick on every level",
            field="rules.gentleman_split_penalties",
        )
    if rules.whist_obligations is not Obligations.JOINT:
        if rules.penalty_capped:
            raise InvalidAction(
                "penalty_capped caps at the joint shortfall, but individual obligations"
                " pay even when the joint norm is met",
                field="rules.penalty_capped",
            )
        if rules.shortfall_payer is not ShortfallPayer.SECOND:
            raise InvalidAction(
                "shortfall_payer applies to the joint norm; individual obligations make"
                " each whister pay his own quota",
                field="rules.shortfall_payer",
            )
    if not rules.pass_pass_whist_levels <= set(LEVELS):
        raise InvalidAction(
            "pass–pass–whist levels must be 6 to 10", field="rules.pass_pass_whist_levels"
        )
    both = sorted(rules.pass_pass_whist_levels & rules.half_whist_levels)
    if both:
        raise InvalidAction(
            f"pass–pass–whist is for levels without half-whist; level {both[0]} has both",
            field="rules.pass_pass_whist_levels",
        )
    if not rules.own_whist_levels <= {6, 7}:
        raise InvalidAction("own whist is only for 6 and 7 (S004)", field="rules.own_whist_levels")
    both = sorted(rules.own_whist_levels & rules.pass_pass_whist_levels)
    if both:
        raise InvalidAction(
            f"after two passes on level {both[0]} the first defender either reconsiders"
            " (pass_pass_whist_levels) or offers an own whist (own_whist_levels), not both",
            field="rules.own_whist_levels",
        )
    _check_complicated(rules)
    if rules.ten_checked and rules.ten_whisted:
        raise InvalidAction(
            "a ten is either whisted (ten_whisted) or checked (ten_checked), not both",
            field="rules.ten_checked",
        )
    if rules.ten_checked and 10 in rules.half_whist_levels:
        raise InvalidAction(
            "a checked ten has no half-whist; remove 10 from half_whist_levels",
            field="rules.ten_checked",
        )
    if 10 in rules.pass_pass_whist_levels and not rules.ten_whisted:
        raise InvalidAction(
            "pass–pass–whist on 10 needs ten_whisted", field="rules.pass_pass_whist_levels"
        )


def _check_complicated(rules: RuleSet) -> None:
    """The options of Classic complicated whisting and the old price hierarchy (S000)."""
    if not set(rules.second_whister_shares) <= set(rules.whister_shares):
        raise InvalidAction(
            "second_whister_shares differ from whister_shares on their levels only",
            field="rules.second_whister_shares",
        )
    if rules.second_whister_shares and rules.whist_obligations is not Obligations.JOINT:
        raise InvalidAction(
            "second_whister_shares split the joint norm; individual obligations give each"
            " whister the same quota (whister_shares)",
            field="rules.second_whister_shares",
        )
    if not set(rules.half_whist_tricks) <= rules.half_whist_levels:
        raise InvalidAction(
            "half_whist_tricks are given for half-whist levels only",
            field="rules.half_whist_tricks",
        )
    for level, tricks in rules.half_whist_tricks.items():
        if not 1 <= tricks <= rules.norm(level):
            raise InvalidAction(
                f"a half-whist on level {level} writes for 1 to {rules.norm(level)} tricks",
                field="rules.half_whist_tricks",
            )
    steps = rules.strain_price_steps
    if steps:
        if len(steps) != 5:
            raise InvalidAction(
                "strain_price_steps are five amounts, for spades, clubs, diamonds, hearts and"
                " no trump",
                field="rules.strain_price_steps",
            )
        for strain in range(5):
            rules.priced_for(_CHEAPEST_BIDS[strain])  # each strain's prices must be valid
