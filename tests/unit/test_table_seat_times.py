"""When a seat was taken and left (``SeatTaken.taken_ms``, ``SeatLeft.left_ms``): the moments
the lobby issues and revokes seat tokens at."""

from __future__ import annotations

import uuid

from domain.model.table import Table
from domain.rules import DEFAULT


def _table() -> Table:
    return Table.open(
        uuid.uuid4(),
        creator="ann",
        request_id="t",
        rules=DEFAULT.to_dict(),
        seats=3,
        visibility="public",
        league="",
        time_control=None,
        stake_per_whist=0,
        game_id=uuid.uuid4(),
    )


def test_a_seat_is_never_taken_before_its_last_leaving() -> None:
    table = _table()
    table.join("bob", "j", "", now_ms=10_000)
    table.leave("bob", "l", now_ms=12_000)
    table.join("cid", "j", "", now_ms=11_000)  # a replica whose clock is behind
    assert table.taken_ms[0] == 12_001


def test_a_seat_is_never_left_before_it_was_taken() -> None:
    table = _table()
    table.join("bob", "j", "", now_ms=10_000)
    table.leave("bob", "l", now_ms=7_000)  # a replica whose clock is behind
    assert table.left_ms[0] == 10_000
