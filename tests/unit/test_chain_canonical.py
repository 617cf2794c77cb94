"""The chain's canonical form (docs/AUDIT.md) written by ``orjson`` is byte for byte what the
reference encoder (Python's ``json``, sorted keys, ``,``/``:``, UTF-8) writes: for every event
of whole games of every named system, for every code point in a string, and, through the
reference encoder itself, for what ``orjson`` refuses. A difference would break the chain of
every game recorded before the change."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import pytest

from domain.bots import make_bot
from domain.model.chain import _CANONICAL, GENESIS, canonical, canonical_fields, link
from domain.rules import actor, seat_view
from domain.rules.game import awaiting_order, game_orderer
from domain.rules.systems import RULE_SETS
from tests.unit.game_helpers import created_game


def _reference(event: Any) -> bytes:
    return _CANONICAL.encode(canonical_fields(event)).encode("utf-8")


@pytest.mark.parametrize("system", sorted(RULE_SETS))
def test_every_event_of_a_game_has_the_reference_encoders_canonical_form(system: str) -> None:
    """Bots play up to 600 actions (a Classic game is ordered first); each event's canonical
    form equals the reference encoder's, and the chain recorded links up."""
    rules = RULE_SETS[system].with_options(pool_target=4)
    seed = secrets.token_bytes(32)
    game = created_game(rules, seed=seed)
    game.deal_first(seed, "create")
    if awaiting_order(game.state):
        game.order(game_orderer(game.state), 10, 1_796_166_000, "order", seed)
    bot = make_bot()
    for step in range(600):
        deal = game.state.deal
        if game.finished or deal is None:
            break
        seat = actor(deal)
        game.act(seat, bot(seat_view(deal, seat)), f"r{step}", seed)
    events = game.collect_events()
    assert len(events) > 40
    previous = GENESIS
    for event in events:
        assert canonical(event) == _reference(event), type(event).__name__
        assert event.__dict__["chain"] == link(previous, event)
        previous = event.__dict__["chain"]


class _Event:
    """An event-shaped object with the given fields (the canonical form reads ``__dict__``)."""

    TOPIC = "test:Event"

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(
            originator_id=uuid4(),
            originator_version=1,
            timestamp=datetime(2026, 12, 7, tzinfo=UTC),
            **fields,
        )


def test_every_code_point_in_a_string_is_written_as_the_reference_writes_it() -> None:
    points = [p for p in range(0x110000) if not 0xD800 <= p < 0xE000]
    for start in range(0, len(points), 4096):
        text = "".join(chr(p) for p in points[start : start + 4096])
        event = _Event(reason=text, names={text[:50]: [text[-50:], None, True, -(2**63)]})
        assert canonical(event) == _reference(event)


@pytest.mark.parametrize(
    "value",
    [
        {1: "a", 10: "b", 2: "c"},  # the reference sorts integer keys as numbers
        2**64,  # beyond orjson's integers
        [2**70, -(2**65)],
    ],
)
def test_what_orjson_refuses_is_written_by_the_reference_encoder(value: Any) -> None:
    event = _Event(odd=value)
    assert canonical(event) == _reference(event)


def test_what_the_reference_refuses_is_still_refused() -> None:
    """A datetime inside a field (the envelope's timestamp is written as text first) is passed
    through ``orjson`` to the reference encoder, which refuses it as it did before."""
    with pytest.raises(TypeError):
        canonical(_Event(when=datetime(2026, 12, 7, tzinfo=UTC)))
