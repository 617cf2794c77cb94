"""Old logs stay readable: a ``DealDealt`` event stored in its version-1 shape (the shuffle only)
is upcast on reading to version 2 (with the dealt hands and the talon), on both stores."""

from __future__ import annotations

from domain.model import Game
from domain.rules import RuleSet
from service.app.application import PreferansApplication
from tests.integration.helpers import (
    AppFactory,
    create,
    events_table,
    play,
    rewrite_stored_state,
    stored_state,
    topic,
)


def test_a_version_1_deal_event_is_read_as_version_2(
    app: PreferansApplication, open_app: AppFactory, store_env: dict[str, str]
) -> None:
    assert Game.DealDealt.class_version == 2
    game_id = create(app, RuleSet(pool_target=10)).game_id
    play(app, game_id, stop=lambda g: g.state.deal_number >= 2 and g.version >= 40)
    original = app.get_game(game_id)
    events = app.game_events(game_id)
    dealt = [e for e in events if topic(e) == "DealDealt"]
    assert len(dealt) >= 2

    # Rewrite every DealDealt in the store to the shape version 1 wrote.
    table = events_table(app)
    for event in dealt:
        state = stored_state(app, game_id, event.originator_version)
        assert state["class_version"] == 2
        assert state["hands"] == event.hands and state["talon"] == event.talon
        for v2_only in ("hands", "talon", "class_version"):
            del state[v2_only]
        rewrite_stored_state(store_env, table, game_id, event.originator_version, state)
        stored = stored_state(app, game_id, event.originator_version)
        assert "hands" not in stored and "talon" not in stored and "class_version" not in stored

    # A process reading the old log gets version-2 events with the same hands and talon...
    fresh = open_app()
    reread = fresh.game_events(game_id)
    assert len(reread) == len(events)
    for before, after in zip(events, reread, strict=True):
        assert type(after) is type(before)
        assert after.__dict__ == before.__dict__
    for event in (e for e in reread if topic(e) == "DealDealt"):
        assert isinstance(event, Game.DealDealt)
        assert len(event.hands) == 3 and all(len(hand.split()) == 10 for hand in event.hands)
        assert len(event.talon.split()) == 2

    # ...and exactly the same game, which plays on.
    game = fresh.get_game(game_id)
    assert game.version == original.version
    assert game.state == original.state
    for version in (e.originator_version for e in dealt):
        assert fresh.game_at(game_id, version).state == app.game_at(game_id, version).state
    play(fresh, game_id, stop=lambda g: g.version >= original.version + 3, prefix="after")
    assert fresh.get_game(game_id).version >= original.version + 3
