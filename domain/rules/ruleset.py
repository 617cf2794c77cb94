"""``RuleSet``: the conventions of a table, as data (RULES.md §1.0 and §6).

A rule set is chosen when a game is created and recorded in its first event. The default
profile (seed S001, RULES.md §1) is ``DEFAULT``; every alternative named in §6 is a field here.
Tables of prices and norms live in this module and nowhere else.

Adding another system (Sochi, Leningrad, Rostov, ...) means a new ``RuleSet`` value plus, where
the arithmetic differs, a new entry in one of the strategy registries (for example
``domain.rules.scoring.DEFENCE_SCORERS``) named by a field here; see docs/RULES-ENGINE.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

from domain.rules.errors import InvalidAction


class Bidding(StrEnum):
    """How far a raise may go (A-04)."""

    SEQUENTIAL = "sequential"
    """Exactly one step, NT included: 6♥ → 6NT → 7♠ (the default)."""
    NT_SKIP = "nt-skip"
    """One step, but NT steps may be skipped: 6♥ → 7♠ is allowed."""
    JUMP = "jump"
    """Any higher ordinary bid."""


class HelpTie(StrEnum):
    """Whom a closed pool helps when two unclosed pools are equal (A-16, A-20)."""

    CLOCKWISE = "clockwise"
    """The next player clockwise from the helper (the default)."""
    SMALLER_GORA = "smaller-gora"
    """The one with the smaller gora; if equal, the next clockwise from the helper."""


def _frozen(mapping: Mapping[int, int]) -> Mapping[int, int]:
    return dict(mapping)


@dataclass(frozen=True)
class RuleSet:
    """Everything a table agrees on before play. Immutable; compare with ``==``."""

    name: str = "default"
    players: int = 3
    pool_target: int = 20

    # Prices (§1.7, §1.8, §1.9).
    contract_values: Mapping[int, int] = field(
        default_factory=lambda: _frozen({6: 2, 7: 4, 8: 6, 9: 8, 10: 10})
    )
    defence_norms: Mapping[int, int] = field(
        default_factory=lambda: _frozen({6: 4, 7: 2, 8: 1, 9: 1, 10: 1})
    )
    misere_value: int = 10
    misere_trick_penalty: int = 10
    """A-08: gora per trick the misère declarer takes (Leningrad: 20)."""
    raspasy_trick_prices: tuple[int, ...] = (1,)
    """Gora per trick on the 1st, 2nd, … consecutive raspasy; the last price repeats."""
    raspasy_zero_bonus: int = 1
    """Points to pool for a true zero on raspasy."""
    raspasy_exit_levels: tuple[int, ...] = (6,)
    """Lowest level allowed in the auction after 0, 1, … consecutive raspasy (last repeats)."""
    raspasy_amnesty: bool = False
    """A-19: subtract the common minimum of tricks when recording raspasy."""
    help_whists_per_point: int = 10
    settlement_whists_per_gora: int = 10

    # Auction (§1.3).
    bidding: Bidding = Bidding.SEQUENTIAL
    here_between_two_only: bool = False
    """A-05: "here" only when exactly two players are still bidding."""
    misere_beaten_stops_auction: bool = False
    """A-18: a nine over misère ends the auction at once."""

    # Whisting (§1.6, §1.7).
    whist_kind: str = "responsible"
    """Key into ``scoring.DEFENCE_SCORERS``: how defence whists and penalties are written."""
    whister_shares: Mapping[int, int] = field(default_factory=lambda: _frozen({6: 2, 7: 1}))
    """Tricks each of two whisters answers for, by level; levels absent here make the
    second whister answer for the shortfall (§1.6: 8–10)."""
    penalty_capped: bool = False
    """A-01: cap a whister's penalty at the joint shortfall."""
    half_whist_levels: frozenset[int] = frozenset({6, 7})
    whist_pass_half_whist: bool = False
    """A-03: after whist–pass on a 6 or 7 the first whister may fall back to half-whist."""
    return_whist_passer_keeps_consolation: bool = False
    """A-02: on a return whist the half-whister keeps his own consolation."""
    consolation: bool = True
    ten_whisted: bool = True
    """A-17: a ten is whisted (norm 1); otherwise it is played out unwhisted."""
    misere_defence_choice: bool = False
    """A-24: the misère defence chooses open or closed (default: always open)."""

    # Pool (§1.10).
    help_tie: HelpTie = HelpTie.CLOCKWISE

    def __post_init__(self) -> None:
        if self.players != 3:
            raise InvalidAction("only three-player tables are supported by this rules core yet")
        if self.pool_target <= 0:
            raise InvalidAction("the pool target must be positive")
        for table in (self.contract_values, self.defence_norms):
            if sorted(table) != [6, 7, 8, 9, 10]:
                raise InvalidAction("price and norm tables need levels 6 to 10")
        if not self.raspasy_trick_prices or not self.raspasy_exit_levels:
            raise InvalidAction("raspasy prices and exit levels need at least one entry")
        if any(not 6 <= level <= 10 for level in self.raspasy_exit_levels):
            raise InvalidAction("raspasy exit levels must be 6 to 10")
        from domain.rules.scoring import DEFENCE_SCORERS

        if self.whist_kind not in DEFENCE_SCORERS:
            raise InvalidAction(
                f"unknown whist kind {self.whist_kind!r}; known: {', '.join(DEFENCE_SCORERS)}"
            )

    def value(self, level: int) -> int:
        """Pool value of a made contract of ``level`` tricks."""
        return self.contract_values[level]

    def norm(self, level: int) -> int:
        """Tricks the defence must take together against ``level``."""
        return self.defence_norms[level]

    def raspasy_price(self, streak: int) -> int:
        """Gora per trick on raspasy number ``streak`` (1-based) in a row."""
        return self.raspasy_trick_prices[min(streak, len(self.raspasy_trick_prices)) - 1]

    def min_level(self, raspasy_streak: int) -> int:
        """Lowest level allowed in the auction after ``raspasy_streak`` raspasy in a row."""
        return self.raspasy_exit_levels[min(raspasy_streak, len(self.raspasy_exit_levels) - 1)]

    def is_whisted(self, level: int) -> bool:
        return level < 10 or self.ten_whisted

    def with_options(self, **changes: Any) -> RuleSet:
        """A copy with some options changed (validated)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form, recorded in a game's first event."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Enum):
                value = value.value
            elif isinstance(value, Mapping):
                value = {str(k): v for k, v in sorted(value.items())}
            elif isinstance(value, frozenset):
                value = sorted(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Inverse of ``to_dict``; unknown keys are an error, missing keys take defaults."""
        known = {f.name: f for f in dataclasses.fields(cls)}
        unknown = set(data) - set(known)
        if unknown:
            raise InvalidAction(f"unknown rule options: {', '.join(sorted(unknown))}")
        kwargs: dict[str, Any] = {}
        for name, value in data.items():
            kwargs[name] = _decode_field(name, value)
        return cls(**kwargs)


def _decode_field(name: str, value: Any) -> Any:
    try:
        if name in ("contract_values", "defence_norms", "whister_shares"):
            return {int(k): int(v) for k, v in dict(value).items()}
        if name == "half_whist_levels":
            return frozenset(int(v) for v in value)
        if name in ("raspasy_trick_prices", "raspasy_exit_levels"):
            return tuple(int(v) for v in value)
        if name == "bidding":
            return Bidding(value)
        if name == "help_tie":
            return HelpTie(value)
    except (TypeError, ValueError) as exc:
        raise InvalidAction(f"rule option {name}: {exc}") from None
    return value


DEFAULT = RuleSet()
"""The default profile: seed S001 as distilled in RULES.md §1, with the decisions of §6."""

RULE_SETS: dict[str, RuleSet] = {"default": DEFAULT}
"""Named rule sets a game may be created with."""


def rule_set(name: str) -> RuleSet:
    """Look a rule set up by name."""
    try:
        return RULE_SETS[name]
    except KeyError:
        raise InvalidAction(
            f"unknown rule set {name!r}; known: {', '.join(sorted(RULE_SETS))}"
        ) from None
