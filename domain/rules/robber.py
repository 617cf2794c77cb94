"""The robber's obligatory games (S000 "КЛАССИКА", "В варианте с «разбойником»"; issue 12).

Under ``RuleSet.robber`` the player who orders the game (``order_game``: "назначающий игру
(«разбойник»)") may impose obligatory games in his order: "Каждый должен взять прикуп на
объявленные по разу – мизер и десятерную, два раза – девятерную, три – восьмерную.
Объявление игрок должен сделать до закрытия пули", or "чтобы каждый из игроков объявил по
разу мизер втемную". The order holds, per contract kind, how many times every player (the
robber included: "каждый") must do it (``Obligations``). Pure data and arithmetic:

* **What counts** (``fulfil``): a game the player declared after taking the talon ("взять
  прикуп на объявленные"), made or not (the obligation is the declaration: "Объявление игрок
  должен сделать"), i.e. a deal scored as a game played, passed out or half-whisted, or a
  misère. A game without talon does not count (no talon taken); "without three", an underbid
  (void) and "preferans" are no declared game. A declared trick game counts for its own level
  if still owed, otherwise for the highest lower level still owed (a harder game fulfils an
  easier one); a dark misère counts for the dark misère, otherwise for the misère; an ordinary
  misère never for the dark one.
* **The deadline** ("до закрытия пули"): once every pool is closed (``deadline``) nothing counts
  any more and what is still owed is written to gora (``penalties``); a game that ends before
  that (time, agreed stop, the number of deals) writes it at the end.
* **The price** ("За необъявленные записать как за уход без пяти или пять на мизере, но без
  вистов"): a trick game of level L, five undertricks of L (the cheapest strain's price under
  a suit-dependent table); a misère, five tricks on misère; a dark misère, the seed's own "за
  десять взятых на мизере – 200" (ten tricks at the dark misère's price). No whists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from domain.rules.bids import Bid, Strain
from domain.rules.errors import InvalidAction
from domain.rules.ruleset import RuleSet
from domain.rules.state import DealState, Kind

MAX_OBLIGATION = 5
"""The most times one contract kind may be imposed (the seed's example asks three eights)."""


class Obligations(NamedTuple):
    """How many times each player must declare each contract kind (or, per seat, still owes)."""

    dark_misere: int = 0
    misere: int = 0
    ten: int = 0
    nine: int = 0
    eight: int = 0
    seven: int = 0
    six: int = 0

    @property
    def total(self) -> int:
        return sum(self)

    def as_dict(self) -> dict[str, int]:
        """The kinds imposed (count > 0), as an event and a hand record write them."""
        return {kind: count for kind, count in zip(KINDS, self, strict=True) if count}


KINDS: tuple[str, ...] = Obligations._fields
"""The contract kinds, highest first (the names of the event's and the API's fields)."""

NONE = Obligations()

LEVEL_KIND = {10: "ten", 9: "nine", 8: "eight", 7: "seven", 6: "six"}
"""The trick game kind of each contract level."""

DARK_MISERE_TRICKS = 10
"""S000: "не выполнивший данное условие … пишет за десять взятых на мизере – 200 в гору"."""
UNDECLARED_TRICKS = 5
"""S000: "За необъявленные записать как за уход без пяти или пять на мизере"."""


def check_obligations(rules: RuleSet, given: Mapping[str, object]) -> Obligations:
    """The obligations of an order, validated (``InvalidAction`` naming the field
    ``obligations.<kind>``); only under ``rules.robber``."""
    counts = dict.fromkeys(KINDS, 0)
    for kind, count in given.items():
        if kind not in counts:
            raise InvalidAction(
                f"no obligatory game {str(kind)[:20]!r}; known: {', '.join(KINDS)}",
                field="obligations",
            )
        if isinstance(count, bool) or not isinstance(count, int):
            raise InvalidAction("an obligation is a whole count", field=f"obligations.{kind}")
        if not 0 <= count <= MAX_OBLIGATION:
            raise InvalidAction(
                f"an obligatory game may be imposed 0 to {MAX_OBLIGATION} times",
                field=f"obligations.{kind}",
            )
        counts[kind] = count
    obligations = Obligations(**counts)
    if obligations.total and not rules.robber:
        raise InvalidAction(
            "this game has no robber (rules.robber): the order imposes no obligatory games",
            field="obligations",
        )
    return obligations


ALIASES = {
    **{kind: kind for kind in ("dark_misere", "misere", "ten", "nine", "eight", "seven", "six")},
    **{str(level): kind for level, kind in LEVEL_KIND.items()},
    "misère": "misere",
    "dark misere": "dark_misere",
    "dark misère": "dark_misere",
    "dark-misere": "dark_misere",
    "misere dark": "dark_misere",
    "misère dark": "dark_misere",
}
"""The names a player may type for each contract kind (``parse_obligations``)."""


def parse_obligations(text: str) -> dict[str, int]:
    """Obligations as a player types them: ``"misere 1, ten 1, nine 2, eight 3"`` (or ``"10
    1, 9 2"``, ``"dark misere 1"``); empty text imposes none. ``InvalidAction`` (field
    ``obligations``) for what cannot be read; the counts are checked by ``check_obligations``."""
    out: dict[str, int] = {}
    for part in text.split(","):
        words = part.strip().lower().split()
        if not words:
            continue
        if len(words) < 2 or not words[-1].isdigit():
            raise InvalidAction(
                f"write each obligatory game as a contract and a count, e.g. 'nine 2', not "
                f"{part.strip()[:30]!r}",
                field="obligations",
            )
        kind = ALIASES.get(" ".join(words[:-1]))
        if kind is None:
            raise InvalidAction(
                f"no obligatory game {' '.join(words[:-1])[:20]!r}; known: {', '.join(KINDS)}",
                field="obligations",
            )
        out[kind] = out.get(kind, 0) + int(words[-1][:3])
    return out


def describe(obligations: Obligations) -> str:
    """``"misere ×1, ten ×1, nine ×2"`` (``"none"`` when nothing is imposed)."""
    text = ", ".join(f"{kind.replace('_', ' ')} ×{n}" for kind, n in obligations.as_dict().items())
    return text or "none"


def counted(deal: DealState) -> str | None:
    """The contract kind ``deal``'s declarer declared after taking the talon, if it counts
    towards the robber's obligations (see the module): ``"dark_misere"``, ``"misere"`` or a
    level's kind; ``None`` otherwise."""
    result = deal.result
    if result is None or result.contract is None or deal.no_talon:
        return None
    if result.kind is Kind.MISERE:
        return "dark_misere" if deal.dark else "misere"
    if result.kind in (Kind.GAME, Kind.PASSED_OUT, Kind.HALF_WHIST):
        return LEVEL_KIND[result.contract.level]
    return None


def fulfil(owed: Obligations, deal: DealState) -> Obligations:
    """What the declarer of ``deal`` still owes after it (``owed`` unchanged if it does not
    count or he owes nothing it fulfils)."""
    kind = counted(deal)
    if kind is None:
        return owed
    if kind == "dark_misere":
        candidates: tuple[str, ...] = ("dark_misere", "misere")
    elif kind == "misere":
        candidates = ("misere",)
    else:
        candidates = KINDS[KINDS.index(kind) :]  # its level, then the lower ones, highest first
    for candidate in candidates:
        if getattr(owed, candidate):
            return owed._replace(**{candidate: getattr(owed, candidate) - 1})
    return owed


def price(rules: RuleSet, kind: str) -> int:
    """The gora written for one obligatory game of ``kind`` not declared in time (see the
    module; no whists)."""
    if kind == "dark_misere":
        return DARK_MISERE_TRICKS * rules.dark_misere_trick_penalty
    if kind == "misere":
        return UNDECLARED_TRICKS * rules.misere_trick_penalty
    level = next(lv for lv, name in LEVEL_KIND.items() if name == kind)
    cheapest = rules.priced_for(Bid.ordinary(level, Strain.SPADES))
    return UNDECLARED_TRICKS * cheapest.undertrick_price(level)


def penalty(rules: RuleSet, owed: Obligations) -> int:
    """The gora for everything in ``owed``."""
    return sum(count * price(rules, kind) for kind, count in zip(KINDS, owed, strict=True))


def penalties(rules: RuleSet, owed: tuple[Obligations, ...]) -> tuple[int, ...]:
    """Each seat's gora for what it still owes."""
    return tuple(penalty(rules, seat) for seat in owed)
