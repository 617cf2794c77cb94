"""Stakes on both stores (docs/STAKES.md): a staked game's end records its money in the same
save, a ruling records the difference, the balances read model sums the ledger and rebuilds to
the same numbers, the audit recomputes every ledger event; aborting a game."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from domain.audit import LEDGER
from domain.handrecord import to_json, validate, verify_record
from domain.model.codec import settlement_from_strings
from domain.model.game import AbortRefused
from domain.model.stakes import money
from domain.model.terms import bot_player_id
from domain.rules import RuleSet
from domain.rules.errors import GameOver
from projections import standard_runners
from projections.ledger_queries import balance, balances, entries
from projections.queries import list_games
from projections.stats_queries import player_stats
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.handrecord import game_record
from tests.integration.helpers import PLAYERS, create, dump_tables, play, topic
from tests.integration.test_audit import edit, rechain

RULES = RuleSet(pool_target=2)
SHORT = RuleSet(pool_target=6)
"""A pool no single deal closes for all, short enough to play out."""
LONG = RuleSet(pool_target=20)
"""A pool no single deal can close (the game goes on after its first deal)."""
STAKE = 7
LEDGER_TABLES = ("ledger_games", "ledger_entries", "ledger_balances")
ADJUSTMENT = {"gora": [0, 0, 0], "whists": [[0, 0, 30], [0, 0, 0], [0, 0, 0]]}


def project(app: PreferansApplication) -> None:
    for runner in standard_runners(app, app.db).values():
        runner.catch_up()


def names(app: PreferansApplication, game_id: uuid.UUID) -> list[str]:
    return [topic(event) for event in app.game_events(game_id)]


def settled_money(app: PreferansApplication, game_id: uuid.UUID) -> list[int]:
    game = app.get_game(game_id)
    assert game.settlement is not None
    return money(settlement_from_strings(game.settlement), STAKE)


def test_a_finished_game_moves_its_money_and_a_ruling_the_difference(
    app: PreferansApplication,
) -> None:
    game_id = create(app, RULES, stake_per_whist=STAKE, league="club").game_id
    play(app, game_id)
    log = names(app, game_id)
    assert log[-2:] == ["GameFinished", "StakesSettled"]
    first = settled_money(app, game_id)
    project(app)
    assert [balance(app.db, p)["balance_cents"] for p in PLAYERS] == first
    assert [balance(app.db, p, "club")["balance_cents"] for p in PLAYERS] == first
    assert balance(app.db, "nobody") == {
        "player_id": "nobody",
        "league": "",
        "balance_cents": 0,
        "entries": 0,
        "games": 0,
    }

    # A ruling after the end: the difference, in the same save as the ruling.
    app.record_ruling(game_id, 1, "a revoke in trick 4", ADJUSTMENT, "rule-1")
    app.record_ruling(game_id, 1, "a revoke in trick 4", ADJUSTMENT, "rule-1")  # a retry
    assert names(app, game_id)[len(log) :] == ["RulingRecorded", "StakesAdjusted"]
    now = settled_money(app, game_id)
    assert now != first
    project(app)
    assert [balance(app.db, p)["balance_cents"] for p in PLAYERS] == now
    assert sum(row["balance_cents"] for row in balances(app.db)) == 0
    ann = entries(app.db, "ann")
    assert [e["kind"] for e in ann] == ["adjusted", "settled"]
    assert sum(e["amount_cents"] for e in ann) == now[0]
    assert balance(app.db, "ann")["games"] == 1 and balance(app.db, "ann")["entries"] == 2

    report = verify_game(app, game_id)
    assert report.verified, report.summary
    assert report.money == now


def test_an_early_stop_settles_the_stakes(app: PreferansApplication) -> None:
    game_id = create(app, LONG, stake_per_whist=STAKE).game_id
    play(app, game_id, stop=lambda g: len(g.deal_results) >= 1)
    for seat in range(3):
        app.agree_stop(game_id, seat, f"stop-{seat}")
    assert names(app, game_id)[-3:] == ["EarlyStopAgreed", "GameFinished", "StakesSettled"]
    project(app)
    assert [balance(app.db, p)["balance_cents"] for p in PLAYERS] == settled_money(app, game_id)


def test_a_game_without_stake_moves_nothing(app: PreferansApplication) -> None:
    game_id = create(app, RULES).game_id
    play(app, game_id)
    assert "StakesSettled" not in names(app, game_id)
    project(app)
    assert balances(app.db) == []


def test_the_balances_rebuild_to_the_same_numbers(app: PreferansApplication) -> None:
    for league in ("", "club", "club"):
        game_id = create(app, RULES, stake_per_whist=STAKE, league=league).game_id
        play(app, game_id)
    app.record_ruling(game_id, 1, "a revoke", ADJUSTMENT, "rule-1")
    project(app)
    live = dump_tables(app.db, LEDGER_TABLES)
    assert len(live["ledger_entries"]) == 3 * 4
    board = balances(app.db)
    assert sum(row["balance_cents"] for row in board) == 0
    assert [row["balance_cents"] for row in board] == sorted(
        (row["balance_cents"] for row in board), reverse=True
    )
    assert sum(row["balance_cents"] for row in balances(app.db, "club")) == 0
    # Dropped and rebuilt from the log: the same rows.
    with app.db.transaction() as c:
        for table in LEDGER_TABLES:
            c.execute(f"DELETE FROM {table}")
    assert balances(app.db) == []
    standard_runners(app, app.db, ("ledger",))["ledger"].rebuild()
    assert dump_tables(app.db, LEDGER_TABLES) == live
    # Keyset pages: two rows, then the third.
    first = balances(app.db, limit=2)
    rest = balances(app.db, after=(first[-1]["balance_cents"], first[-1]["player_id"]))
    assert first + rest == board


def test_a_tampered_amount_is_a_ledger_discrepancy(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    game_id = create(app, RULES, stake_per_whist=STAKE).game_id
    play(app, game_id)
    version = app.get_game(game_id).version
    assert names(app, game_id)[-1] == "StakesSettled"

    def shift(state: dict[str, Any]) -> None:
        amounts = state["amounts"]
        state["amounts"] = [amounts[0] + 100, amounts[1] - 100, *amounts[2:]]

    edit(app, store_env, game_id, version, shift)
    rechain(app, store_env, game_id)  # the forger's cover-up: only the recomputation finds it
    report = verify_game(app, game_id)
    assert report.discrepancy is not None and report.discrepancy.kind == LEDGER
    assert report.discrepancy.version == version


def test_aborting_a_game(app: PreferansApplication) -> None:
    game_id = create(app, RULES, stake_per_whist=STAKE).game_id
    done = app.abort_game(game_id, 1, "abort-1")
    again = app.abort_game(game_id, 1, "abort-1")
    assert again.replayed and again.version == done.version
    assert names(app, game_id)[-1] == "GameAborted"
    game = app.get_game(game_id)
    assert game.aborted and game.finished and game.settlement is None
    with pytest.raises(GameOver):
        app.abort_game(game_id, 0, "abort-2")
    project(app)
    row = next(r for r in list_games(app.db) if r["game_id"] == str(game_id))
    assert row["status"] == "aborted" and row["settlement"] is None
    assert [r["game_id"] for r in list_games(app.db, status="aborted")] == [str(game_id)]
    assert balances(app.db) == []
    stats = player_stats(app.db, "", "ann")
    assert stats is not None and stats["games_started"] == 0 and stats["games"] == 0
    assert verify_game(app, game_id).verified


def test_no_abort_after_the_first_deal_is_scored(app: PreferansApplication) -> None:
    game_id = create(app, LONG).game_id
    play(app, game_id, stop=lambda g: len(g.deal_results) >= 1)
    version = app.get_game(game_id).version
    with pytest.raises(AbortRefused):
        app.abort_game(game_id, 0, "abort")
    assert app.get_game(game_id).version == version


def test_the_hand_record_carries_the_money(app: PreferansApplication) -> None:
    game_id = create(app, RULES, stake_per_whist=STAKE).game_id
    play(app, game_id)
    record = validate(json.loads(to_json(game_record(app, game_id))))
    assert record["stakes"] == {
        "stake_per_whist": STAKE,
        "amounts": settled_money(app, game_id),
    }
    assert verify_record(record).consistent
    amounts = record["stakes"]["amounts"]
    record["stakes"]["amounts"] = [amounts[0] + 1, amounts[1] - 1, *amounts[2:]]
    verdict = verify_record(record)
    assert not verdict.consistent and "stakes" in verdict.message
    # One deal of it: no money (the record is not the whole game).
    assert "stakes" not in game_record(app, game_id, deal_number=1)


def test_a_replaced_player_and_a_bot_are_settled_on_their_own_accounts(
    app: PreferansApplication,
) -> None:
    request_id, secret = f"create-{uuid.uuid4()}", "s" * 32
    game_id = app.create_game(
        PLAYERS, request_id, rules=SHORT, creator_secret=secret, stake_per_whist=STAKE
    ).game_id
    play(app, game_id, stop=lambda g: g.state.deal_number >= 2)
    bot = bot_player_id(1)
    app.resign(game_id, 1, "resign-1")  # ReplacePlayer refuses bot ids: the bot comes by resigning
    play(app, game_id)
    settled = app.game_events(game_id)[-1]
    assert topic(settled) == "StakesSettled"
    assert settled.players == [*PLAYERS, bot] == app.get_game(game_id).accounts
    assert settled.amounts == settled_money(app, game_id) and sum(settled.amounts) == 0
    project(app)
    assert [balance(app.db, p)["balance_cents"] for p in settled.players] == settled.amounts
    assert bot in {row["player_id"] for row in balances(app.db)}  # the house account
    assert verify_game(app, game_id).verified
