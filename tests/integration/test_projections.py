"""The read models on both stores: exactly-once processing, rebuilds equal to the live views,
runners racing on one projection, and the game list agreeing with the log replayed in the rules
core. (A seat's view and the scoresheet are read from the aggregate: tests/e2e and
tests/unit/test_hidden_information.py check what they show.)"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest

from domain.rules import DEFAULT, RuleSet
from projections import (
    PROJECTION_NAMES,
    RETIRED,
    ProjectionRunner,
    drop_retired,
    standard_runners,
)
from projections.queries import list_games
from service.app.application import PreferansApplication
from service.app.tables import Lobby
from service.cli import main as pref
from tests.integration.helpers import (
    create,
    dump_tables,
    play,
    replay_in_domain,
    store_argument,
    tracking_positions,
)


def _played_games(app: PreferansApplication, count: int = 2) -> list[Any]:
    """A couple of finished short games (the first with a stake, so the ledger has rows) and
    one in progress (the views of a live deal too)."""
    ids = []
    for index in range(count):
        stake = 3 if index == 0 else 0
        game_id = create(app, RuleSet(pool_target=6), stake_per_whist=stake).game_id
        play(app, game_id)
        ids.append(game_id)
    live = create(app, RuleSet(pool_target=6)).game_id
    play(app, live, stop=lambda g: g.state.deal_number >= 2 and g.version % 7 == 0)
    return [*ids, live]


def _check_game_list(app: PreferansApplication, game_ids: list[uuid.UUID]) -> None:
    """Each game's row in the list says what its log, replayed in the rules core, says."""
    rows = {row["game_id"]: row for row in list_games(app.db, limit=1000)}
    for game_id in game_ids:
        row = rows[str(game_id)]
        events = app.game_events(game_id)
        expected = replay_in_domain(events)
        assert row["version"] == events[-1].originator_version
        assert row["deal_number"] == expected.game.deal_number
        assert row["status"] == ("finished" if expected.settlement is not None else "playing")
        assert row["settlement"] == expected.settlement


def test_rebuilt_views_equal_the_live_ones_and_catch_up_is_exactly_once(
    app: PreferansApplication,
) -> None:
    game_ids = _played_games(app)
    Lobby(app).create_table("ann", "a table", DEFAULT, take_seat=True)  # the lobby's rows
    runners = standard_runners(app, app.db, batch=50)
    assert set(runners) == set(PROJECTION_NAMES)
    last = app.recorder.max_notification_id()
    assert last is not None
    for runner in runners.values():
        assert runner.catch_up() == last
        assert runner.position() == runner.max_position() == last
    # A second catch-up has nothing to do.
    for runner in runners.values():
        assert runner.catch_up() == 0
        assert runner.run_once() == 0
    live = dump_tables(app.db)
    assert all(live[table] for table in live)
    assert tracking_positions(app.db) == dict.fromkeys(PROJECTION_NAMES, last)

    # Dropped and rebuilt from the log, by new runners as after a deploy: identical rows.
    progress: list[int] = []
    for runner in standard_runners(app, app.db, batch=64).values():
        assert runner.rebuild(progress.append) == last
    assert sum(progress) == last * len(PROJECTION_NAMES)
    assert dump_tables(app.db) == live
    assert tracking_positions(app.db) == dict.fromkeys(PROJECTION_NAMES, last)

    # New events are picked up incrementally, and the result equals a rebuild again.
    play(app, game_ids[-1], stop=lambda g: g.state.deal_number >= 3, prefix="more")
    now = app.recorder.max_notification_id()
    assert now is not None
    added = now - last
    assert added > 0
    for runner in runners.values():
        assert runner.catch_up() == added
    incremental = dump_tables(app.db)
    for runner in runners.values():
        runner.rebuild()
    assert dump_tables(app.db) == incremental

    _check_game_list(app, game_ids)


@pytest.mark.parametrize("mode", ["alternating", "threads"])
def test_runners_racing_on_one_projection_apply_each_batch_once(
    app: PreferansApplication, mode: str
) -> None:
    game_ids = _played_games(app)
    last = app.recorder.max_notification_id()
    # Two runners per projection, each with its own in-memory state (as two worker processes).
    racers = list(standard_runners(app, app.db, batch=17).values())
    twins = list(standard_runners(app, app.db, batch=23).values())
    if mode == "alternating":
        # Two runners of each projection take turns batch by batch.
        busy = True
        while busy:
            busy = False
            for pair in zip(racers, twins, strict=True):
                for runner in pair:
                    busy |= runner.run_once() > 0
    else:
        errors: list[BaseException] = []

        def run(runner: ProjectionRunner) -> None:
            try:
                runner.catch_up()
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(r,)) for r in (*racers, *twins)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not errors
    assert tracking_positions(app.db) == dict.fromkeys(PROJECTION_NAMES, last)
    raced = dump_tables(app.db)
    _check_game_list(app, game_ids)
    # One runner alone, from scratch, produces the same rows.
    for runner in standard_runners(app, app.db).values():
        runner.rebuild()
    assert dump_tables(app.db) == raced


def test_migrate_drops_the_read_models_nothing_reads(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    """A store written by a version that kept seat views, a scoresheet projection and a
    per-game deal history: ``pref migrate`` drops their tables (and a rebuild's leftover
    shadow) and tracking rows, and keeps the served read models and their positions."""
    play(app, create(app, RuleSet(pool_target=4)).game_id, stop=lambda g: g.version > 20)
    for runner in standard_runners(app, app.db).values():
        runner.catch_up()
    served = dump_tables(app.db)
    positions = tracking_positions(app.db)
    old = [t for tables in RETIRED.values() for t in tables] + ["seat_views__rebuild"]
    with app.db.transaction() as c:
        for table in old:
            c.execute(f"CREATE TABLE {table} (game_id TEXT)")
            c.execute(f"INSERT INTO {table} VALUES ('x')")
        for name in ("seat_views", "scoresheet", "scoresheet__rebuild"):
            c.execute("INSERT INTO projection_tracking (name, position) VALUES (?, 7)", (name,))

    assert pref(["migrate", "--store", store_argument(store_env)]) == 0
    assert tracking_positions(app.db) == positions
    assert dump_tables(app.db) == served
    for table in old:
        with pytest.raises(Exception, match=r"seat_views|scoresheet|game_deals"):
            dump_tables(app.db, (table,))
    assert drop_retired(app.db) == []  # idempotent


def test_the_game_list_names_each_tables_seats_and_an_old_table_gains_the_column(
    app: PreferansApplication,
) -> None:
    """Issue 13: the game list (ListGames' ``GameSummary.seats``) says how many seats each
    table has; a ``games`` table made before the column existed gets it, with 3 (every game
    then had three seats), and a rebuild gives the same rows."""
    players = ["ann", "bob", "cid", "dan", "eve"]
    ids = {}
    for seats in (2, 3, 4, 5):
        created = app.create_game(
            players[:seats], f"seats-{seats}", rules=RuleSet(players=seats, pool_target=6)
        )
        ids[seats] = str(created.game_id)
    runner = standard_runners(app, app.db, batch=50)["games"]
    runner.catch_up()
    rows = {row["game_id"]: row for row in list_games(app.db, limit=100)}
    assert {seats: rows[game_id]["seats"] for seats, game_id in ids.items()} == {
        2: 2,
        3: 3,
        4: 4,
        5: 5,
    }
    live = dump_tables(app.db)["games"]
    with app.db.transaction() as c:  # the table as an earlier version made it
        c.execute("DROP TABLE games")
        c.execute(
            "CREATE TABLE games (game_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, "
            "updated_at TEXT NOT NULL, players TEXT NOT NULL, league TEXT NOT NULL, rules TEXT "
            "NOT NULL, status TEXT NOT NULL, deal_number INTEGER NOT NULL, version INTEGER NOT "
            "NULL, settlement TEXT)"
        )
        c.execute(
            "INSERT INTO games VALUES ('old', '2026-01-01', '2026-01-01', '[]', '', 'default', "
            "'finished', 1, 9, NULL)"
        )
        runner.projection.create_tables(c)
    old = {row["game_id"]: row for row in list_games(app.db, limit=100)}["old"]
    assert old["seats"] == 3
    runner.rebuild()
    assert dump_tables(app.db)["games"] == live
