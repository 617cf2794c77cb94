"""The Classic auction through the event store (issue 12, RULES.md §3.5): games with bombs and
dark games are played through the application; the audit verifies them from their events
alone, a replay in the pure core gives the same deals and scores, and the exported hand record
re-verifies."""

from __future__ import annotations

import random

from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.handrecord import export_game_record, import_record
from tests.integration.helpers import create, play, random_policy, replay_in_domain, topic
from tests.unit.test_classic_auction import CLASSIC_AUCTION

RULES = CLASSIC_AUCTION.with_options(pool_target=4)


def test_classic_auction_games_verify_through_the_store(app: PreferansApplication) -> None:
    # Each game's deals come from a fresh secret seed: draw games until one holds a bomb
    # raspasy and a dark bid.
    for attempt in range(12):
        created = create(app, RULES)
        play(app, created.game_id, random_policy(random.Random(attempt), bot_share=0.5))
        events = app.game_events(created.game_id)
        record, verdict = import_record(export_game_record(app, created.game_id, None, "json"))
        assert verdict.consistent, verdict.message
        bombs = [d for d in record["deals"] if d["classic"]["bomb"]]
        if bombs and "DarkBidCalled" in {topic(e) for e in events}:
            break
    assert bombs, "no game of 12 played a bomb"
    assert "DarkBidCalled" in {topic(e) for e in events}
    assert any(c["call"] == "bomb" for d in bombs for c in d["auction"])
    game = app.get_game(created.game_id)
    assert game.finished and game.rule_set == RULES
    report = verify_game(app, created.game_id)
    assert report.verified, report.summary
    replay = replay_in_domain(events)
    assert replay.settlement == game.settlement
