"""An unwhisted contract written off gora (S000 conv.; RULES.md §3.4; ``unwhisted_write_off``)
through the application and the event store: its own event ``WriteOffChosen``, replayed by the
domain, verified by the audit and by the hand record."""

from __future__ import annotations

from domain.bots import make_bot
from domain.handrecord import to_json
from domain.rules import PASS, TO_POOL, WRITE_OFF, Action, Phase, RuleSet, SeatView
from service.app.application import PreferansApplication
from service.app.audit import read_log, verify_game
from service.app.handrecord import game_record, import_record
from tests.integration.helpers import create, play, replay_in_domain, topic

BOT = make_bot()


class Passing:
    """Never whists; writes off and keeps to pool in turn."""

    def __init__(self) -> None:
        self.choices = 0

    def __call__(self, view: SeatView) -> Action:
        if view.phase is Phase.WHISTING and PASS in view.legal:
            return PASS
        if view.phase is Phase.WRITE_OFF:
            self.choices += 1
            return WRITE_OFF if self.choices % 2 else TO_POOL
        return BOT(view)


def test_write_off_decisions_are_recorded_replayed_and_audited(
    app: PreferansApplication,
) -> None:
    rules = RuleSet(pool_target=6, unwhisted_write_off=True)
    # Each game's deals come from a fresh secret seed: draw games until one has both choices.
    for _ in range(5):
        game_id = create(app, rules).game_id
        play(app, game_id, Passing())
        events = read_log(app, game_id)
        chosen = [e for e in events if topic(e) == "WriteOffChosen"]
        if {e.write_off for e in chosen} == {True, False}:
            break
    assert chosen and {e.write_off for e in chosen} == {True, False}
    game = app.get_game(game_id)
    assert game.finished
    passed_out = [r["declarer"] for r in game.deal_results if r["kind"] == "passed-out"]
    assert [e.seat for e in chosen] == passed_out
    replay = replay_in_domain(events)
    assert replay.game.sheet == game.state.sheet and replay.settlement == game.settlement
    assert verify_game(app, game_id).verified
    rec = game_record(app, game_id)
    actions = [a["action"] for d in rec["deals"] for a in d["actions"]]
    assert "write off" in actions and "to pool" in actions
    assert import_record(to_json(rec))[1].consistent
