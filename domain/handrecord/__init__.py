"""Hand records: an open, versioned file format for deals and whole games (docs/HANDRECORD.md).

A hand record is plain JSON (``preferans-hand-record``, version 1; its JSON Schema is
``handrecord.schema.json`` in this package) with a readable text form in the spirit of bridge's
PBN. One module per job:

- ``build``: a record from a game's decoded events, from a pure ``GameRecord`` or from one deal;
- ``text``: the readable text form;
- ``reading``: JSON text back to a record, its shape checked by the schema (``jsonschema``);
- ``verify``: replay a record through the rules core and name the first discrepancy.

No I/O but reading the schema shipped with the package; no clock, no randomness.
"""

from __future__ import annotations

from domain.handrecord.build import (
    FORMAT,
    VERSION,
    Record,
    deal_section,
    record_from_deal,
    record_from_events,
    record_from_game,
    to_json,
)
from domain.handrecord.reading import HandRecordError, parse_record, schema, validate
from domain.handrecord.text import render_deal_text, render_text
from domain.handrecord.verify import Verdict, verify_record

__all__ = [
    "FORMAT",
    "VERSION",
    "HandRecordError",
    "Record",
    "Verdict",
    "deal_section",
    "parse_record",
    "record_from_deal",
    "record_from_events",
    "record_from_game",
    "render_deal_text",
    "render_text",
    "schema",
    "to_json",
    "validate",
    "verify_record",
]
