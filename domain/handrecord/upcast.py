"""Older hand-record versions, read as the current one (docs/HANDRECORD.md, "Versions").

A reader never guesses at a version it does not know, but every version this project ever wrote
stays readable: ``upcast_record`` raises a record one version at a time (``UPCASTERS[v]`` turns
version ``v`` into ``v + 1``) before the schema checks it. Each step only adds what the older
version left implicit; nothing recorded is changed.

- version 1 → 2 (issue 13, any number of seats): version 1 was written for three seats only,
  so each deal's ``hand_seats`` are H1, H2 and the dealer as H3 (``hand_seats(dealer, 3)``)
  and no seat sits out (``sitters`` empty).

- version 2 → 3 (issue 16, referees): version 2 carried no flags or rulings (``[]``), its
  ``settlement`` was the one the game ended with (``settlement_at_end`` the same), no tags
  (all ``null``) and no system and options (derived from ``rules``, which held them all along:
  ``build.system_of``). A version-2 decision names no ``hand``: the decider's own, except a
  card played by a sole open whister from his partner's hand, which the verifier tells from
  the rules (a version-3 record names it).

Two fields were added to version 1 without raising it, so a file of any version may lack them
and reads with their value of the time before they existed: ``stopped`` (``null``: games could
not be stopped early) and ``replacements`` (``[]``: players could not be replaced, TV-27).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.handrecord.build import VERSION, Record, decisions, empty_tags, system_of
from domain.rules import DealtCards, Phase, RuleSet, apply, mask_of, parse_action, parse_cards
from domain.rules.errors import RulesError
from domain.rules.game import deal_state
from domain.rules.seats import hand_seats

VERSION_1_SEATS = 3
"""Version 1 records are of three-seat games (its schema allowed nothing else)."""


def _deal_v1_v2(deal: Any) -> Any:
    """A version-1 deal with the seats of its hands; anything malformed is left to the schema
    (which names the field)."""
    if not isinstance(deal, dict) or "hand_seats" in deal:
        return deal
    dealer = deal.get("dealer")
    if type(dealer) is not int or not 0 <= dealer < VERSION_1_SEATS:
        return deal
    return {**deal, "hand_seats": list(hand_seats(dealer, VERSION_1_SEATS)), "sitters": []}


def _v1_v2(rec: Record) -> Record:
    out: Record = {**rec, "version": 2}
    deals = rec.get("deals")
    if isinstance(deals, list):
        out["deals"] = [_deal_v1_v2(deal) for deal in deals]
    return out


def _hands_named(deal: Any, rules: RuleSet) -> Any:
    """A version-2 deal whose decisions name the hand they were for when it was not the
    decider's own (``build.hand_of``), by replaying them through the rules core; a deal that
    does not replay is left as it is, for the verifier to name what is wrong."""
    try:
        hands = tuple(mask_of(parse_cards(h)) for h in deal["hands"])
        a, b = parse_cards(deal["talon"])
        start = deal_state(
            rules,
            DealtCards(hands, (a, b)),
            deal["dealer"],
            deal["number"],
            deal["raspasy_streak"],
            deal.get("dealer_run", 0),
            deal.get("classic", {}).get("bomb_streak", 0),
        )
        state, actions = start, []
        for step in deal["actions"]:
            action = parse_action(step["action"], cards_first=state.phase is Phase.PLAY)
            actions.append((step["seat"], action))
            state = apply(state, action, step["seat"])
        return {**deal, "actions": decisions(start, actions)}
    except (
        RulesError,
        TypeError,
        ValueError,
        KeyError,
        AttributeError,
        IndexError,  # a dealer or a streak out of range: the schema refuses it next
        OverflowError,
    ):
        return deal


def _rules_of(rec: Record) -> RuleSet | None:
    """The record's rule set, or ``None`` when malformed (the verifier then names it)."""
    try:
        return RuleSet.from_dict(rec.get("rules"))  # type: ignore[arg-type]
    except (RulesError, TypeError, ValueError, AttributeError):
        return None


V3_FIELDS = ("tags", "system", "options", "settlement_at_end", "flags", "rulings")
"""The fields version 3 added: a file labelled with an older version has none of them."""


def _v2_v3(rec: Record) -> Record:
    out: Record = {**rec, "version": 3}
    rules = _rules_of(rec)
    system, options = system_of(rules) if rules is not None else (None, {})
    for key, value in (
        ("tags", empty_tags()),
        ("system", system),
        ("options", options),
        ("settlement_at_end", rec.get("settlement")),
        ("flags", []),
        ("rulings", []),
    ):
        out[key] = value
    deals = rec.get("deals")
    if rules is not None and isinstance(deals, list):
        out["deals"] = [_hands_named(deal, rules) for deal in deals]
    return out


UPCASTERS: dict[int, Callable[[Record], Record]] = {1: _v1_v2, 2: _v2_v3}
"""Version ``v`` → a step to version ``v + 1``, for every version before the current one."""

LATER_DEFAULTS: dict[str, Any] = {"stopped": None, "replacements": []}
"""Fields added within version 1, with their value in a file written before them."""

KNOWN_VERSIONS = tuple(range(1, VERSION + 1))
"""The versions this reader understands."""


def known_version(version: Any) -> bool:
    """Whether ``version`` (as decoded from JSON) is one this reader understands."""
    return type(version) is int and version in KNOWN_VERSIONS


def upcast_record(rec: Record) -> Record:
    """The record in the current version (the same object when it already is and lacks no
    field; otherwise a new one, the input unchanged). ``rec["version"]`` must be known."""
    version = rec["version"]
    if not known_version(version):
        raise ValueError(f"unknown hand-record version {version!r}")
    while version < VERSION:
        rec = UPCASTERS[version](rec)
        version += 1
    missing = {k: v for k, v in LATER_DEFAULTS.items() if k not in rec}
    return {**rec, **missing} if missing else rec
