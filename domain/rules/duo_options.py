"""The two-player options ("гусарик", RULES.md §3.6 row "2", §3.4 "Two players"; S000 "Игра при
двух игроках") and their semantic checks.

Split from ``ruleset.py`` like ``whist_options``: the fields are in ``RuleSet`` (block "Two
players"), which calls ``check_duo``. The play itself is ``domain.rules.duo``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from domain.rules.errors import InvalidAction
from domain.rules.recording import InitialRounds

if TYPE_CHECKING:
    from domain.rules.ruleset import RuleSet


class DuoAllPass(StrEnum):
    """What two passes lead to with two players (S000 "Игра при двух игроках")."""

    RASPASY = "raspasy"
    """Raspasy between the two players: the dummy takes no part and the talon is not opened
    (the main text; the default)."""
    REDEAL = "redeal"
    """ "При двух пасах производится пересдача без розыгрыша": nothing is played or written;
    the deal passes on as after any deal."""
    VARENIK = "varenik"
    """ "С вареником": the first hand (the dealer's opponent) takes the talon and shows it, gives
    his opponent any two cards, the opponent discards any two; then raspasy."""


DUO_DEFAULTS: dict[str, object] = {
    "duo_dummy_hand": 1,
    "duo_retract_pass": False,
    "duo_whist_own_cards": False,
    "duo_all_pass": DuoAllPass.RASPASY,
    "duo_indivisible_gora": False,
}
"""The two-player options at their defaults: any other value needs ``players`` = 2."""

_NOT_FOR_TWO: dict[str, tuple[object, str]] = {
    "bombs": (False, "Classic's bombs are a three-to-five-player game (S000)"),
    "dark_bids": (False, "Classic's dark bids are a three-to-five-player game (S000)"),
    "dark_misere": (False, "Classic's dark misère is a three-to-five-player game (S000)"),
    "misere_whisted": (False, "a whisted misère needs two defenders who decide"),
    "ten_checked": (False, "a checked ten needs two defenders who decide"),
    "whist_pass_half_whist": (False, "whist – pass – half-whist needs two defenders who decide"),
    "pass_pass_whist_levels": (frozenset(), "pass – pass – whist needs two defenders who decide"),
    "own_whist_levels": (frozenset(), "S004's own whist needs two defenders who pass"),
}
"""Options that make no sense with a dummy that always passes (refused with two players)."""


def check_duo(rules: RuleSet) -> None:
    """Refuse the two-player options at a larger table, a dummy hand other than H1 or H2, and
    the options that need a third player who decides (the dummy never does)."""
    if rules.players != 2:
        for name, default in DUO_DEFAULTS.items():
            if getattr(rules, name) != default:
                raise InvalidAction(
                    f"{name} is a two-player option (гусарик): it needs players = 2",
                    field=f"rules.{name}",
                )
        return
    if rules.duo_dummy_hand not in (1, 2):
        raise InvalidAction(
            "the dummy sits always at the first hand (1) or always at the second (2)",
            field="rules.duo_dummy_hand",
        )
    if rules.initial_rounds in (InitialRounds.BOMBS_BY_DEALER, InitialRounds.BOMBS_BY_ROUND):
        raise InvalidAction(
            "initial bomb rounds cannot be played by two players: Classic's bombs are a "
            "three-to-five-player game (S000)",
            field="rules.initial_rounds",
        )
    for name, (default, why) in _NOT_FOR_TWO.items():
        if getattr(rules, name) != default:
            raise InvalidAction(
                f"{name} cannot be played by two players: {why}", field=f"rules.{name}"
            )
