"""A game's terms (clock, bot seats, stake; ``domain.model.terms``) are recorded in its
``GameCreated``, validated before anything is recorded, and part of the creation a retry must
repeat; a ``GameCreated`` stored before terms existed still reads (no clock, no bots, no stake)
and still passes the audit's chain check, on both stores."""

from __future__ import annotations

import pytest

from domain.model.terms import TimeControl, bot_player_id
from domain.rules import RuleSet
from domain.rules.errors import InvalidAction
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from tests.integration.helpers import (
    PLAYERS,
    AppFactory,
    create,
    events_table,
    play,
    rewrite_stored_state,
    stored_state,
)
from tests.integration.test_audit import rechain

CLOCK = TimeControl(move_ms=20_000, bank_ms=300_000, increment_ms=2_000, on_timeout="forfeit")


def test_terms_are_recorded_and_read_back(app: PreferansApplication, open_app: AppFactory) -> None:
    players = [*PLAYERS[:2], bot_player_id(2)]
    created = app.create_game(
        players, "terms", time_control=CLOCK, bot_seats=(2,), stake_per_whist=5
    )
    stored = stored_state(app, created.game_id, 1)
    assert stored["time_control"] == CLOCK.to_dict()
    assert stored["bot_seats"] == [2] and stored["stake_per_whist"] == 5
    game = open_app().get_game(created.game_id)
    assert (game.time_control, game.bot_seats, game.stake_per_whist) == (CLOCK, [2], 5)
    assert verify_game(app, created.game_id).discrepancy is None


def test_a_retry_must_ask_for_the_same_terms(app: PreferansApplication) -> None:
    first = app.create_game(PLAYERS, "terms-retry", creator_secret="s" * 32, stake_per_whist=3)
    again = app.create_game(PLAYERS, "terms-retry", creator_secret="s" * 32, stake_per_whist=3)
    assert again.game_id == first.game_id
    with pytest.raises(InvalidAction, match="names another command"):
        app.create_game(PLAYERS, "terms-retry", creator_secret="s" * 32, stake_per_whist=4)


@pytest.mark.parametrize(
    ("terms", "field"),
    [
        ({"bot_seats": (0, 0)}, "bot_seats"),
        ({"bot_seats": (3,)}, "bot_seats"),
        ({"bot_seats": (0, 1, 2)}, "bot_seats"),
        ({"stake_per_whist": -1}, "stake_per_whist"),
        ({"bot_seats": (1,)}, "players[1].player_id"),  # a person's id at a bot seat
        ({"stake_per_whist": 10_001}, "stake_per_whist"),
    ],
)
def test_bad_terms_record_nothing(
    app: PreferansApplication, terms: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidAction) as refused:
        app.create_game(PLAYERS, f"bad-terms-{field}-{terms}", **terms)  # type: ignore[arg-type]
    assert refused.value.field == field
    for game_id in app.keys.game_ids(f"bad-terms-{field}-{terms}", ""):
        assert app.game_events(game_id, limit=1) == []


@pytest.mark.parametrize(
    ("control", "field"),
    [
        ({"move_ms": 0, "bank_ms": 999}, "time_control"),
        ({"move_ms": -1, "bank_ms": 5000}, "time_control.move_ms"),
        ({"move_ms": 1000, "increment_ms": 3_600_001}, "time_control.increment_ms"),
        ({"move_ms": 1000, "on_timeout": "nap"}, "time_control.on_timeout"),
    ],
)
def test_bad_time_controls_are_refused(control: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidAction) as refused:
        TimeControl(**control)  # type: ignore[arg-type]
    assert refused.value.field == field


def test_a_game_created_before_terms_reads_and_audits(
    app: PreferansApplication, open_app: AppFactory, store_env: dict[str, str]
) -> None:
    game_id = create(app, RuleSet(pool_target=10)).game_id
    play(app, game_id, stop=lambda g: g.version >= 30)
    original = app.get_game(game_id)
    # The log as a server from before terms wrote it: GameCreated without the three fields,
    # every chain value computed over what is stored.
    state = stored_state(app, game_id, 1)
    assert state["time_control"] is None and state["bot_seats"] == []
    for added in ("time_control", "bot_seats", "stake_per_whist"):
        del state[added]
    rewrite_stored_state(store_env, events_table(app), game_id, 1, state)
    rechain(app, store_env, game_id)
    fresh = open_app()
    created = fresh.game_events(game_id, limit=1)[0]
    assert not {"time_control", "bot_seats", "stake_per_whist"} & set(created.__dict__)
    game = fresh.get_game(game_id)
    assert (game.time_control, game.bot_seats, game.stake_per_whist) == (None, [], 0)
    assert game.state == original.state
    report = verify_game(fresh, game_id)
    assert report.verified, report.summary


def test_a_person_cannot_take_a_bot_s_id(app: PreferansApplication) -> None:
    with pytest.raises(InvalidAction) as refused:
        app.create_game(["ann", "bot:seat1", "cid"], "bot-impostor")
    assert refused.value.field == "players[1].player_id"
