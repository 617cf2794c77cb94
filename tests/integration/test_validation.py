"""The application's own commands check client strings too (issue 9, items 1 and 3), so the
command-line paths (`pref flag`, `pref rule`, `pref simulate --league`) cannot record a NUL,
a bidi override or a huge string either; on both stores."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from domain.rules.errors import InvalidAction
from service.app.application import PreferansApplication
from service.cli import main as pref
from tests.integration.helpers import PLAYERS, create, play, store_argument

BIDI = "\u202e"


def recorded(app: PreferansApplication) -> int:
    return app.recorder.max_notification_id() or 0


def refused_field(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(InvalidAction) as caught:
        call(*args, **kwargs)
    assert len(caught.value.message) < 200
    return caught.value.field


def test_create_game_checks_and_normalises_its_strings(app: PreferansApplication) -> None:
    before = recorded(app)
    rid = "create-1"
    for players, league, request_id, field in [
        (PLAYERS, "a\x00b", rid, "league"),
        (["ann", "x\x00", "cid"], "", rid, "players[1].player_id"),
        (["ann", "bob", f"cid{BIDI}"], "", rid, "players[2].player_id"),
        (["p" * 1_300_000, "bob", "cid"], "", rid, "players[0].player_id"),
        (PLAYERS, "", "r" * 129, "request_id"),
        (PLAYERS, "", "", "request_id"),
    ]:
        assert refused_field(app.create_game, players, request_id, league=league) == field
    assert recorded(app) == before
    secret = "creator-secret-0123456789"
    created = app.create_game(
        ["Ame\u0301lie", "bob", "cid"], "re\u0301try-1", league="cafe\u0301", creator_secret=secret
    )
    game = app.get_game(created.game_id)
    assert game.players[0] == "Am\u00e9lie"
    first = app.game_events(created.game_id, limit=1)[0]
    assert first.league == "caf\u00e9"
    # A retry that spells the request id (and the players) the other way is the same request.
    again = app.create_game(
        ["Am\u00e9lie", "bob", "cid"], "r\u00e9try-1", league="caf\u00e9", creator_secret=secret
    )
    assert again.game_id == created.game_id and len(again.tokens) == 3
    events = recorded(app)
    app.create_game(
        ["Ame\u0301lie", "bob", "cid"], "re\u0301try-1", league="cafe\u0301", creator_secret=secret
    )
    assert recorded(app) == events


def test_flags_and_rulings_check_their_strings(app: PreferansApplication) -> None:
    created = create(app)
    play(app, created.game_id, stop=lambda g: len(g.deal_results) >= 1)
    before = recorded(app)
    game_id = created.game_id
    flag = app.flag_deal
    assert refused_field(flag, game_id, 0, 1, f"revoke{BIDI}", "f-1") == "reason"
    assert refused_field(flag, game_id, 0, 1, "revoke", "f\x00") == "request_id"
    rule = app.record_ruling
    assert refused_field(rule, game_id, 1, "a\u2066b", None, "r-1") == "reason"
    assert refused_field(rule, game_id, 1, "fine", None, "r-1", auditor="x\x00") == "auditor"
    assert refused_field(rule, game_id, 1, "fine", None, "r-1", auditor="") == "auditor"
    assert recorded(app) == before


def test_the_command_line_refuses_bad_strings_in_one_line(
    app: PreferansApplication, store_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store = store_argument(store_env)
    created = create(app)
    play(app, created.game_id, stop=lambda g: len(g.deal_results) >= 1)
    game, token = str(created.game_id), created.tokens[1]
    capsys.readouterr()
    before = recorded(app)
    args = ["--deal", "1", "--store", store]
    assert pref(["flag", game, "--reason", f"x{BIDI}y", "--token", token, *args]) == 1
    assert pref(["rule", game, "--reason", "z" * 501, *args]) == 1
    assert pref(["rule", game, "--reason", "fine", "--auditor", f"a{BIDI}", *args]) == 1
    league = f"evil{BIDI}league-{uuid.uuid4().hex[:6]}"
    code = pref(["simulate", "--games", "1", "--league", league, "--store", store])
    assert code != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "may not contain" in err
    assert recorded(app) == before
