"""A league plays under one rule set (issue 11 item 4; S001 §02, §13 "do not mix systems"):
the league's first game fixes it, a game asking for other conventions in that league is
refused before anything is recorded, on both stores and across replicas."""

from __future__ import annotations

import threading
import uuid

import grpc
import pytest
from google.rpc import error_details_pb2

from domain.model import League, league_id_for
from domain.rules import DEFAULT, RuleSet
from projections import standard_runners
from projections.queries import list_games
from service.api.errors import map_error
from service.app.application import LeagueRulesDiffer, PreferansApplication
from tests.integration.helpers import AppFactory

PLAYERS = ["ann", "bob", "cid"]
LENIENT = DEFAULT.with_options(raspasy_amnesty=True)


def _create(app: PreferansApplication, league: str, rules: RuleSet) -> uuid.UUID:
    return app.create_game(PLAYERS, uuid.uuid4().hex, rules, league=league).game_id


def test_the_first_game_fixes_the_league_and_other_rules_are_refused(
    app: PreferansApplication,
) -> None:
    first = _create(app, "club", LENIENT)
    _create(app, "club", LENIENT)  # the same conventions: accepted
    before = app.recorder.max_notification_id()
    with pytest.raises(LeagueRulesDiffer) as refused:
        _create(app, "club", DEFAULT)
    assert "'club'" in str(refused.value) and str(first) in str(refused.value)
    assert refused.value.system == "default"
    assert app.recorder.max_notification_id() == before  # nothing recorded
    league: League = app.repository.get(league_id_for("club"))
    assert (league.version, league.first_game) == (1, str(first))
    assert RuleSet.from_dict(league.rules) == LENIENT


def test_games_without_a_league_and_other_leagues_are_free(app: PreferansApplication) -> None:
    _create(app, "club", LENIENT)
    _create(app, "", DEFAULT)
    _create(app, "", LENIENT)
    _create(app, "other club", DEFAULT)
    with pytest.raises(LeagueRulesDiffer):
        _create(app, "other club", LENIENT)


def test_a_replica_judges_by_the_league_another_replica_opened(open_app: AppFactory) -> None:
    one, two = open_app(), open_app()
    _create(one, "club", LENIENT)
    with pytest.raises(LeagueRulesDiffer):
        _create(two, "club", DEFAULT)
    _create(two, "club", LENIENT)


def test_first_games_racing_for_a_new_league_agree_on_one_rule_set(
    open_app: AppFactory,
) -> None:
    replicas = [open_app(), open_app()]
    outcomes: list[tuple[RuleSet, bool]] = []
    lock = threading.Lock()

    def create(number: int) -> None:
        rules = (LENIENT, DEFAULT)[number % 2]
        try:
            _create(replicas[number % 2], "new club", rules)
            accepted = True
        except LeagueRulesDiffer:
            accepted = False
        with lock:
            outcomes.append((rules, accepted))

    threads = [threading.Thread(target=create, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    league: League = replicas[0].repository.get(league_id_for("new club"))
    fixed = RuleSet.from_dict(league.rules)
    assert league.version == 1
    assert sorted(outcomes, key=str) == sorted(((r, r == fixed) for r, _ in outcomes), key=str)
    assert sum(accepted for _, accepted in outcomes) == 4


def test_projections_catch_up_over_league_events_and_list_only_games(
    app: PreferansApplication,
) -> None:
    games = [_create(app, "club", LENIENT), _create(app, "club", LENIENT)]
    for runner in standard_runners(app, app.db).values():
        runner.catch_up()
    rows = list_games(app.db, limit=10)
    assert sorted(row["game_id"] for row in rows) == sorted(map(str, games))
    assert str(league_id_for("club")) not in {row["game_id"] for row in rows}


def test_the_refusal_is_failed_precondition_naming_the_league() -> None:
    mapped = map_error(LeagueRulesDiffer("club", "sochi", "g1"))
    assert mapped is not None
    assert mapped.code == grpc.StatusCode.FAILED_PRECONDITION
    (detail,) = mapped.status.details
    info = error_details_pb2.ErrorInfo()
    assert detail.Unpack(info)
    assert (info.reason, dict(info.metadata)) == (
        "LEAGUE_RULES",
        {"league": "club", "system": "sochi"},
    )
