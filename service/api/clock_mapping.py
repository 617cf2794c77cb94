"""Proto mapping of clocks, time-outs and adjournment (issue 14, docs/CLOCKS.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp

from domain.model import Game
from service.gen.preferans.v1 import game_pb2 as pb


def _moment(ms: int) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(datetime.fromtimestamp(ms / 1000, tz=UTC))
    return stamp


def game_clock_to_proto(game: Game) -> pb.GameClock | None:
    """The game's clocks as they stand at its version (``None`` without a time control)."""
    clock = game.clock
    if clock is None:
        return None
    out = pb.GameClock(seat=-1 if clock.deadline_ms is None else clock.actor)
    for bank in clock.banks:
        duration = Duration()
        duration.FromMilliseconds(bank)
        out.remaining.append(duration)
    if clock.deadline_ms is not None:
        out.deadline.CopyFrom(_moment(clock.deadline_ms))
    return out


def game_fields(game: Game) -> dict[str, Any]:
    """The clock and adjournment fields of ``pb.Game`` and ``pb.SeatView``."""
    return {"clock": game_clock_to_proto(game), "adjourned": game.adjourned}


def time_expired_to_proto(event: Any) -> pb.TimeExpiredEvent:
    return pb.TimeExpiredEvent(seat=event.seat, deadline=_moment(event.deadline_ms))


def adjournment_to_proto(event: Any, game: Game, adjourn: bool) -> pb.AdjournmentEvent:
    """``game``: the game just after the event."""
    return pb.AdjournmentEvent(seat=event.seat, adjourn=adjourn, adjourned=game.adjourned)
