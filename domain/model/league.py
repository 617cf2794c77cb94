"""The ``League`` aggregate: the conventions a league plays under (issue 11, RULES.md §1.0).

"All these conditions are agreed before the game" and "do not mix systems mid-session" (S001
§02, §13): a league's statistics only compare like with like if every game of the league is
played under the same rule set. The first game created in a league fixes it — name and every
option, as recorded in that game's ``GameCreated`` — in one ``LeagueOpened`` event
(``League.Created``); a game asking for other conventions in that league is refused before
anything is recorded.

The league's id follows from its name (``league_id_for``), so every process finds it without
a lookup, and two first games racing for one new league meet at the store's version check.
"""

from __future__ import annotations

import uuid
from typing import Any

from eventsourcing.domain import Aggregate

from domain.model.decisions import EVENT_PREFIX

LEAGUE_EVENTS = frozenset({"LeagueOpened"})
"""The names of the league's events: readers of the whole log that fold games skip them."""

LEAGUE_ID_NAMESPACE = uuid.UUID("0b7d4d9e-5b0e-4f55-8d0c-6a3c1f5e2b90")


def league_id_for(name: str) -> uuid.UUID:
    """The league's id: a pure function of its (validated, NFC-normalised) name."""
    return uuid.uuid5(LEAGUE_ID_NAMESPACE, name)


class League(Aggregate):
    """A league tag with the rule set its games are played under."""

    TOPIC = "preferans.v1.League"

    @staticmethod
    def create_id(name: str) -> uuid.UUID:
        return league_id_for(name)

    class Event(Aggregate.Event):
        TOPIC = EVENT_PREFIX + "LeagueEvent"

    class Created(Event, Aggregate.Created):
        TOPIC = EVENT_PREFIX + "LeagueOpened"
        name: str
        rules: dict[str, Any]
        """The rule set's recorded form (``RuleSet.to_dict``), as its first game has it."""
        first_game: str
        """The id of the game whose creation fixed the league's conventions."""

    def __init__(self, *, name: str, rules: dict[str, Any], first_game: str) -> None:
        self.name = name
        self.rules = dict(rules)
        self.first_game = first_game

    @classmethod
    def open(cls, name: str, rules: dict[str, Any], first_game: uuid.UUID) -> League:
        league: League = cls._create(
            cls.Created, id=league_id_for(name), name=name, rules=rules, first_game=str(first_game)
        )
        return league
