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
from types import MappingProxyType
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


class Underbid(StrEnum):
    """The underbid penalty, "перезаклад" (RULES.md §3.1, TV-25; S000 conv.)."""

    NONE = "none"
    """Not played (the default)."""
    TWO = "two"
    """A proved underbid voids the game; the declarer writes 2 to his gora (S000)."""
    GAME_VALUE = "game-value"
    """As ``two``, but the declarer writes the contract's value (S000: "sometimes")."""


class PreferansHand(StrEnum):
    """Which hands may declare "preferans" after taking the talon (RULES.md §3.1, TV-40)."""

    NONE = "none"
    """Not played (the default; S000: "the players must agree whether it is played")."""
    ACE_KING_QUEEN = "ace-king-queen"
    """S004 glossary, S000 "some companies": A-K-Q in all four suits, with the talon."""
    ALL_TRICKS = "all-tricks"
    """S000: twelve cards that take every trick in no trump against any layout and any lead."""


class PreferansEffect(StrEnum):
    """What a declared "preferans" writes (RULES.md §3.1, TV-40)."""

    HUNDRED_ON_EACH = "hundred-on-each"
    """S004: every pool closed, his gora written off, ``preferans_whists`` on each other."""
    HELP_WHISTS = "help-whists"
    """S000: his gora written off; he closes every pool, the others' "receiving the
    corresponding whists": help whists (``help_whists_per_point``) for each point he gives."""


class HelpTie(StrEnum):
    """Whom a closed pool helps when two unclosed pools are equal (A-16, A-20)."""

    CLOCKWISE = "clockwise"
    """The next player clockwise from the helper (the default)."""
    SMALLER_GORA = "smaller-gora"
    """The one with the smaller gora; if equal, the next clockwise from the helper."""


LEVELS = (6, 7, 8, 9, 10)
"""The contract levels, the keys of the price and norm tables."""

_TABLES = ("contract_values", "defence_norms", "whister_shares")
"""The fields that are tables by level (read-only mappings, written as JSON objects)."""


@dataclass(frozen=True)
class RuleSet:
    """Everything a table agrees on before play. Immutable and hashable; compare with ``==``.

    Tables are read-only mappings (``types.MappingProxyType`` over a private copy), sequences
    tuples and sets frozensets, whatever was passed in: a rule set cannot change once made."""

    name: str = "default"
    players: int = 3
    pool_target: int = 20

    # Prices (§1.7, §1.8, §1.9).
    contract_values: Mapping[int, int] = field(
        default_factory=lambda: {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
    )
    defence_norms: Mapping[int, int] = field(
        default_factory=lambda: {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
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

    # Auction and contract variants (issue 11, RULES.md §3.1)
    here_passes_to_later: bool = False
    """A-06, S000 main text: a hand that raises where it could have said "here" gives the
    "here" priority over that opponent to him (default: only the earlier hand, ever)."""
    misere_beaten_by_ten: bool = False
    """S004: misère ranks above the nines and only a ten beats it (default: any nine)."""
    concede_undertricks: int = 0
    """S000 conv. "without three without whists": the talon taker on a six may, instead of
    declaring, refuse to play and be written this many undertricks with no whists (3; "without
    four": 4). 0: not allowed (the default)."""
    concede_any_level: bool = False
    """S000 conv.: "without three" on every trick game, not only on a six."""
    underbid_penalty: Underbid = Underbid.NONE
    preferans: PreferansHand = PreferansHand.NONE
    """TV-40: the talon taker may declare "preferans" with such a hand: the game ends, he
    writes off his gora, every pool is closed, and he writes ``preferans_whists`` on each."""
    preferans_whists: int = 100
    """S004: "writes 100 whists on each" (with ``preferans``)."""
    preferans_effect: PreferansEffect = PreferansEffect.HUNDRED_ON_EACH
    preferans_takes_whists: bool = False
    """S000 "some companies": the preferans declarer also writes on himself (turns into his
    own whists on them) every whist the others had written on him."""
    misere_shows_twelve: bool = False
    """S003 ("dictates his cards by suit") / S004 ("shows all 12 cards, closes them, then
    discards"): after taking the talon on misère the declarer's twelve cards are shown to all;
    the discard stays secret. Default: only the talon is shown."""
    """TV-25, S000 conv.: whisters may prove an underbid after the play (``underbid.py``)."""

    # Whisting (§1.6, §1.7).
    whist_kind: str = "responsible"
    """Key into ``scoring.DEFENCE_SCORERS``: how defence whists and penalties are written."""
    whister_shares: Mapping[int, int] = field(default_factory=lambda: {6: 2, 7: 1})
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
        for name in _TABLES:
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        object.__setattr__(self, "raspasy_trick_prices", tuple(self.raspasy_trick_prices))
        object.__setattr__(self, "raspasy_exit_levels", tuple(self.raspasy_exit_levels))
        object.__setattr__(self, "half_whist_levels", frozenset(self.half_whist_levels))
        self._check()

    def _check(self) -> None:
        """The semantic checks (types and ranges are the schema's: ``ruleset_schema``)."""
        if self.players != 3:
            raise InvalidAction(
                "only three-player tables are supported by this rules core yet",
                field="rules.players",
            )
        if self.pool_target <= 0:
            raise InvalidAction("the pool target must be positive", field="rules.pool_target")
        for name in ("contract_values", "defence_norms"):
            if tuple(sorted(getattr(self, name))) != LEVELS:
                raise InvalidAction(
                    "price and norm tables need levels 6 to 10", field=f"rules.{name}"
                )
        if not set(self.whister_shares) <= set(LEVELS):
            raise InvalidAction(
                "whister shares are given by levels 6 to 10", field="rules.whister_shares"
            )
        if not self.half_whist_levels <= set(LEVELS):
            raise InvalidAction(
                "half-whist levels must be 6 to 10", field="rules.half_whist_levels"
            )
        if not self.raspasy_trick_prices or not self.raspasy_exit_levels:
            raise InvalidAction(
                "raspasy prices and exit levels need at least one entry",
                field="rules.raspasy_trick_prices",
            )
        if any(not 6 <= level <= 10 for level in self.raspasy_exit_levels):
            raise InvalidAction(
                "raspasy exit levels must be 6 to 10", field="rules.raspasy_exit_levels"
            )
        if self.concede_undertricks not in (0, 3, 4):
            raise InvalidAction(
                'a concession is "without three" (3) or "without four" (4), or 0 for none',
                field="rules.concede_undertricks",
            )
        if self.concede_any_level and not self.concede_undertricks:
            raise InvalidAction(
                "concede_any_level needs concede_undertricks (3 or 4): "
                '"without three" is not allowed at all',
                field="rules.concede_any_level",
            )
        if self.preferans is PreferansHand.NONE:
            for name, default in (
                ("preferans_whists", 100),
                ("preferans_effect", PreferansEffect.HUNDRED_ON_EACH),
                ("preferans_takes_whists", False),
            ):
                if getattr(self, name) != default:
                    raise InvalidAction(
                        f"{name} is set but preferans is 'none': no preferans is declared",
                        field=f"rules.{name}",
                    )
        if self.preferans_effect is PreferansEffect.HELP_WHISTS and self.preferans_whists != 100:
            raise InvalidAction(
                "preferans_whists is S004's hundred on each; with preferans_effect "
                "'help-whists' the whists are the help whists of the points given",
                field="rules.preferans_whists",
            )
        from domain.rules.scoring import DEFENCE_SCORERS

        if self.whist_kind not in DEFENCE_SCORERS:
            raise InvalidAction(
                f"unknown whist kind {self.whist_kind!r:.40}; known: {', '.join(DEFENCE_SCORERS)}",
                field="rules.whist_kind",
            )

    def __hash__(self) -> int:
        return hash(tuple(_hashable(getattr(self, f.name)) for f in dataclasses.fields(self)))

    def __reduce__(self) -> tuple[Any, ...]:
        # Copies and pickles go through the JSON-ready form (read-only mappings do not pickle).
        return (RuleSet.from_dict, (self.to_dict(),))

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
            named = ", ".join(f"{name!s:.40}" for name in sorted(unknown, key=str)[:5])
            raise InvalidAction(f"unknown rule options: {named}", field="rules")
        kwargs: dict[str, Any] = {}
        for name, value in data.items():
            kwargs[name] = _decode_field(name, value)
        return cls(**kwargs)


def _hashable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted(value.items()))
    return value


def _integer(value: Any) -> int:
    """A JSON integer (not a bool, not a float, not text)."""
    if type(value) is not int:
        raise TypeError(f"{value!r:.40} is not an integer")
    return value


def _level(key: Any) -> int:
    """A table's key: a level, written as text in JSON ("6") or as an integer."""
    level = _LEVEL_KEYS.get(key) if isinstance(key, str) else key
    if type(level) is not int or level not in LEVELS:
        raise ValueError(f"{key!r:.40} is not a level 6 to 10")
    return level


_LEVEL_KEYS = {str(level): level for level in LEVELS}


def _decode_field(name: str, value: Any) -> Any:
    """One recorded option in its Python form, with its JSON type checked (``InvalidAction``)."""
    kind = _KINDS[name]
    try:
        if kind is MappingProxyType:
            if not isinstance(value, Mapping):
                raise TypeError("not an object of levels")
            return {_level(k): _integer(v) for k, v in value.items()}
        if kind in (tuple, frozenset):
            if not isinstance(value, list | tuple | frozenset | set):
                raise TypeError("not a list")
            return kind(_integer(v) for v in value)
        if kind is int:
            return _integer(value)
        if kind in (bool, str):
            if type(value) is not kind:
                raise TypeError(f"not a {'boolean' if kind is bool else 'string'}")
            return value
        return kind(value)  # an enum
    except (TypeError, ValueError) as exc:
        raise InvalidAction(f"rule option {name}: {exc}", field=f"rules.{name}") from None


DEFAULT = RuleSet()
"""The default profile: seed S001 as distilled in RULES.md §1, with the decisions of §6."""

_KINDS: dict[str, type] = {
    f.name: type(getattr(DEFAULT, f.name)) for f in dataclasses.fields(DEFAULT)
}
"""Each option's Python type, as the default profile has it."""

RULE_SETS: dict[str, RuleSet] = {"default": DEFAULT}
"""Named rule sets a game may be created with."""


def rule_set(name: str) -> RuleSet:
    """Look a rule set up by name."""
    try:
        return RULE_SETS[name]
    except KeyError:
        raise InvalidAction(
            f"unknown rule set {name!r:.40}; known: {', '.join(sorted(RULE_SETS))}",
            field="rules.name",
        ) from None
