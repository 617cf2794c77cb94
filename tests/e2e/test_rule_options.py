"""Rule options from a client are validated in full before anything is recorded (issue 9,
item 2): each bad ``options_json`` is INVALID_ARGUMENT naming the option, and the game's stream
stays empty."""

from __future__ import annotations

import grpc
import pytest

from domain.model import game_id_for
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread
from tests.e2e.helpers import PLAYERS, refused

BAD_OPTIONS = {
    "fraction": ('{"pool_target": 2.5}', "rules.options_json.pool_target"),
    "boolean": ('{"pool_target": true}', "rules.options_json.pool_target"),
    "not an object": ("true", "rules.options_json"),
    "forty digits": ('{"pool_target": ' + "9" * 40 + "}", "rules.options_json.pool_target"),
    "overflowing float": ('{"pool_target": 1e400}', "rules.options_json.pool_target"),
    "NaN": ('{"pool_target": NaN}', "rules.options_json"),
    "Infinity": ('{"misere_value": -Infinity}', "rules.options_json"),
    "deeply nested": ('{"pool_target": ' + "[" * 1000 + "]" * 1000 + "}", "rules.options_json"),
    "nested object": ('{"defence_norms": {"6": {"7": {"8": {}}}}}', "rules.options_json"),
    "unknown option": ('{"tea_break": true}', "rules.options_json"),
    "string for a table": ('{"defence_norms": "4,2,1,1,1"}', "rules.options_json.defence_norms"),
    "norm out of range": (
        '{"defence_norms": {"6": 4, "7": 2, "8": 1, "9": 1, "10": 99}}',
        "rules.options_json.defence_norms.10",
    ),
    "bad enum": ('{"bidding": "leaping"}', "rules.options_json.bidding"),
    "huge text": ('{"name": "' + "a" * 20000 + '"}', "rules.options_json"),
    "repeated key": ('{"pool_target": 2, "pool_target": 3}', "rules.options_json"),
    "renamed system": ('{"name": "sochi"}', "rules.options_json.name"),
}


@pytest.mark.parametrize("case", sorted(BAD_OPTIONS))
def test_bad_rule_options_are_refused_and_record_nothing(
    server: ServerThread, client: GameClient, case: str
) -> None:
    text, field = BAD_OPTIONS[case]
    request_id = f"bad-options-{case}"
    request = pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in PLAYERS],
        rules=pb.RuleSet(name="default", options_json=text),
        request_id=request_id,
    )
    refusal = refused(client.stub.CreateGame, request)
    assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT, refusal.message
    assert refusal.fields == [field]
    assert len(refusal.message) < 200  # the input is not echoed
    assert list(server.app.recorder.select_events(game_id_for(request_id))) == []


def test_a_pool_target_out_of_range_is_refused(server: ServerThread, client: GameClient) -> None:
    request = pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in PLAYERS],
        rules=pb.RuleSet(name="default", pool_target=-5),
        request_id="negative-pool",
    )
    refusal = refused(client.stub.CreateGame, request)
    assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refusal.fields == ["rules.pool_target"]
    assert list(server.app.recorder.select_events(game_id_for("negative-pool"))) == []


def test_valid_options_create_a_game_that_loads(client: GameClient) -> None:
    request = pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in PLAYERS],
        rules=pb.RuleSet(
            name="default",
            options_json='{"pool_target": 7, "bidding": "jump", "raspasy_trick_prices": [1, 2]}',
        ),
        request_id="good-options",
    )
    created = client.stub.CreateGame(request)
    game = client.get_game(created.game.name)
    assert game.rules.pool_target == 7
    assert '"bidding": "jump"' in game.rules.options_json


def test_the_view_and_the_scoresheet_say_which_conventions_are_in_force(
    client: GameClient,
) -> None:
    """Issue 11 item 4: the named system and only the options that differ from it."""
    request = pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in PLAYERS],
        rules=pb.RuleSet(
            name="default", pool_target=9, options_json='{"raspasy_trick_prices": [1, 2]}'
        ),
        request_id="rules-in-force",
        creator_secret="s" * 16,
    )
    created = client.stub.CreateGame(request)
    view = client.seat(created.game.name, created.seat_tokens[0]).view()
    sheet = client.scoresheet(created.game.name)
    for rules in (view.rules, sheet.rules):
        assert (rules.name, rules.pool_target) == ("default", 9)
        assert rules.options_json == '{"raspasy_trick_prices": [1, 2]}'
    plain = client.create_game(PLAYERS)
    assert client.scoresheet(plain.game.name).rules == pb.RuleSet(name="default", pool_target=20)
