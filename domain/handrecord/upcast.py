"""Older hand-record versions, read as the current one (docs/HANDRECORD.md, "Versions").

A reader never guesses at a version it does not know, but every version this project ever wrote
stays readable: ``upcast_record`` raises a record one version at a time (``UPCASTERS[v]`` turns
version ``v`` into ``v + 1``) before the schema checks it. Each step only adds what the older
version left implicit; nothing recorded is changed.

- version 1 → 2 (issue 13, any number of seats): version 1 was written for three seats only,
  so each deal's ``hand_seats`` are H1, H2 and the dealer as H3 (``hand_seats(dealer, 3)``)
  and no seat sits out (``sitters`` empty).

Two fields were added to version 1 without raising it, so a file of any version may lack them
and reads with their value of the time before they existed: ``stopped`` (``null``: games could
not be stopped early) and ``replacements`` (``[]``: players could not be replaced, TV-27).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.handrecord.build import VERSION, Record
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


UPCASTERS: dict[int, Callable[[Record], Record]] = {1: _v1_v2}
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
