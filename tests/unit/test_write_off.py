"""Writing an unwhisted contract off gora at the declarer's wish (S000 conventions
"Варианты правил при записи"; RULES.md §3.4; option ``unwhisted_write_off``): its own
decision, legal only to the declarer after both defenders passed, scored through the sheet."""

from __future__ import annotations

import pytest

from domain.bots import make_bot
from domain.rules import (
    DEFAULT,
    TO_POOL,
    WRITE_OFF,
    DealScore,
    Kind,
    NotYourTurn,
    Phase,
    ScoreSheet,
    legal_actions,
    parse_action,
    record,
    seat_view,
    write_deal,
)
from tests.unit.rules_helpers import A, B, C, act, assert_illegal, whists, won_by_a

RULES = DEFAULT.with_options(unwhisted_write_off=True)


def test_default_both_passes_give_the_contract_at_once() -> None:
    state = act(won_by_a("declare 7♥"), "pass", "pass")
    assert state.phase is Phase.SCORED and state.result is not None
    assert not state.result.written_off


def test_s000_conv_the_declarer_chooses_after_both_passes() -> None:
    state = act(won_by_a("declare 7♥", rules=RULES), "pass", "pass")
    assert state.phase is Phase.WRITE_OFF and state.to_act == A
    assert legal_actions(state) == (TO_POOL, WRITE_OFF)
    assert_illegal(state, "write off", error=NotYourTurn, seat=B)
    assert_illegal(state, "pass", "write off", "to pool")
    done = act(state, "write off")
    assert done.phase is Phase.SCORED and done.result is not None
    assert done.result.kind is Kind.PASSED_OUT and done.result.written_off
    kept = act(state, "to pool")
    assert kept.result is not None and not kept.result.written_off


def test_write_off_takes_the_points_off_own_gora_as_far_as_it_goes() -> None:
    """7♥ unwhisted = 4 points. Gora 10 → 6, pool unchanged; gora 1 → 0 and 3 to the pool."""
    state = act(won_by_a("declare 7♥", rules=RULES), "pass", "pass", "write off")
    score = DealScore((4, 0, 0), (0, 0, 0), whists({}))
    sheet, entry = write_deal(ScoreSheet((5, 0, 0), (10, 2, 2), whists({})), state, score, RULES)
    assert sheet.gora == (6, 2, 2) and sheet.pool == (5, 0, 0)
    assert entry.gora == (-4, 0, 0) and entry.pool == (0, 0, 0)
    sheet, _ = write_deal(ScoreSheet((5, 0, 0), (1, 2, 2), whists({})), state, score, RULES)
    assert sheet.gora == (0, 2, 2) and sheet.pool == (8, 0, 0)
    # "To pool": recorded as the default does.
    kept = act(won_by_a("declare 7♥", rules=RULES), "pass", "pass", "to pool")
    sheet, _ = write_deal(ScoreSheet((5, 0, 0), (10, 2, 2), whists({})), kept, score, RULES)
    assert (
        sheet == record(ScoreSheet((5, 0, 0), (10, 2, 2), whists({})), score, RULES, (A, B, C))[0]
    )


def test_notation_and_the_bot() -> None:
    assert parse_action("write off") == WRITE_OFF and parse_action("to pool") == TO_POOL
    assert (str(WRITE_OFF), str(TO_POOL)) == ("write off", "to pool")
    state = act(won_by_a("declare 7♥", rules=RULES), "pass", "pass")
    assert make_bot()(seat_view(state, A)) == TO_POOL


@pytest.mark.parametrize("field", ["unwhisted_write_off"])
def test_option_round_trips(field: str) -> None:
    assert type(RULES).from_dict(RULES.to_dict()) == RULES
    assert RULES.to_dict()[field] is True
