"""Writing an unwhisted contract off gora (S000 conventions "Варианты правил при записи",
RULES.md §3.4; option ``RuleSet.unwhisted_write_off``).

When both defenders pass, the declarer may have the contract's points written off his own gora
instead of into the pool: a decision of his (``WriteOff``), recorded as its own event. The
scoresheet takes the points off his gora as far as it goes; the rest goes to the pool as usual.
"""

from __future__ import annotations

from domain.rules.actions import TO_POOL, WRITE_OFF, Action, WriteOff
from domain.rules.errors import IllegalAction
from domain.rules.state import DealState, Kind

CHOICES: tuple[Action, ...] = (TO_POOL, WRITE_OFF)


def legal(state: DealState) -> tuple[Action, ...]:
    return CHOICES


def apply(state: DealState, action: Action) -> DealState:
    if not isinstance(action, WriteOff):
        raise IllegalAction(
            "both defenders passed: choose 'write off' (the points off your gora) or 'to pool'",
            allowed=CHOICES,
        )
    from domain.rules.play import finish

    done = finish(state, Kind.PASSED_OUT)
    assert done.result is not None
    return done.with_(result=done.result._replace(written_off=action.off))
