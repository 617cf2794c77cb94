"""A player joining in place of one who leaves, through the application and the event store
(issue 11; S000 "ПРАВИЛА ДЛЯ ОСОБЫХ СЛУЧАЕВ", RULES.md §3.4 "Early stop", TV-27;
docs/SYSTEMS.md S-13): one ``PlayerReplaced`` event on the creator's credential, refused
before anything is recorded, replayed by the domain, verified by the audit, exported in hand
records, counted by the league statistics; the leaver's tokens stop working."""

from __future__ import annotations

import uuid
from fractions import Fraction

import pytest
from rich.console import Console

from domain.audit import ILLEGAL
from domain.handrecord import render_text, to_json
from domain.rules import DEFAULT, GameOver, IllegalAction, RuleSet, settle_final
from domain.rules.errors import InvalidAction
from projections import stats_queries as q
from service.api.mapping import scoresheet_to_proto
from service.app.application import NotCreator, PreferansApplication
from service.app.audit import verify_game
from service.app.handrecord import game_record, import_record
from service.cli.playresult import render_final
from tests.integration.helpers import dump_tables, play
from tests.integration.test_audit import edit, rechain
from tests.integration.test_endings import SECRET, check_log, topics
from tests.integration.test_stats import STATS_TABLES, stats_runner

PLAYERS = ["ann", "bob", "cid"]


def create(
    app: PreferansApplication, rules: RuleSet, league: str = ""
) -> tuple[uuid.UUID, str, list[str]]:
    """A game created with the creator's secret: its id, request id and seat tokens."""
    request_id = f"create-{uuid.uuid4()}"
    created = app.create_game(
        PLAYERS, request_id, rules=rules, league=league, creator_secret=SECRET
    )
    return created.game_id, request_id, list(created.tokens)


def test_replacement_refusals_record_nothing(app: PreferansApplication) -> None:
    game_id, created_with, _ = create(app, DEFAULT)
    before = topics(app, game_id)
    with pytest.raises(NotCreator):
        app.replace_player(game_id, 1, "dan", created_with, "x" * 32, "r1")
    with pytest.raises(InvalidAction):
        app.replace_player(game_id, 3, "dan", created_with, SECRET, "r1")
    with pytest.raises(InvalidAction):
        app.replace_player(game_id, 1, "cid", created_with, SECRET, "r1")  # already playing
    with pytest.raises(InvalidAction):
        app.replace_player(game_id, 1, "d\x00n", created_with, SECRET, "r1")
    with pytest.raises(InvalidAction):
        app.replace_player(game_id, 1, "", created_with, SECRET, "r1")
    assert topics(app, game_id) == before


def test_the_newcomer_plays_on_with_the_average_and_the_leaver_is_settled_at_the_end(
    app: PreferansApplication,
) -> None:
    rules = DEFAULT.with_options(pool_target=10)
    game_id, created_with, old = create(app, rules)
    play(app, game_id, stop=lambda g: g.state.deal_number == 3 and g.deal is not None)
    sheet = app.get_game(game_id).state.sheet
    assert app.seat_of_token(game_id, old[1]) == 1

    result, token = app.replace_player(game_id, 1, "dan", created_with, SECRET, "r1")
    assert not result.replayed
    game = app.get_game(game_id)
    assert game.players == ["ann", "dan", "cid"]
    assert game.accounts == ["ann", "bob", "cid", "dan"]
    assert topics(app, game_id)[-1] == "PlayerReplaced"
    # TV-27: the newcomer's pool is the others' average (rounded down), his gora theirs
    # (rounded up); the leaver's missing pool points went to his gora.
    after = game.state.sheet
    assert after.pool[1] == (sheet.pool[0] + sheet.pool[2]) // 2
    assert after.gora[1] == -(-(sheet.gora[0] + sheet.gora[2]) // 2)
    assert after.departed[0].gora == sheet.gora[1] + max(0, 10 - sheet.pool[1])
    # The leaver's token is refused; the newcomer's acts for seat 1; other seats keep theirs.
    assert app.seat_of_token(game_id, old[1]) is None
    assert app.seat_of_token(game_id, token) == 1
    assert app.seat_of_token(game_id, old[0]) == 0
    again, token2 = app.replace_player(game_id, 1, "dan", created_with, SECRET, "r1")
    assert again.replayed and again.version == result.version
    assert app.seat_of_token(game_id, token2) == 1
    with pytest.raises(InvalidAction):  # a request id is one command
        app.replace_player(game_id, 2, "eve", created_with, SECRET, "r1")

    play(app, game_id)
    game = app.get_game(game_id)
    assert game.finished and game.settlement is not None and len(game.settlement) == 4
    assert sum(Fraction(v) for v in game.settlement) == 0
    assert game.settlement == [str(v) for v in settle_final(game.state.sheet, rules)]
    with pytest.raises(GameOver):
        app.replace_player(game_id, 0, "eve", created_with, SECRET, "r2")
    check_log(app, game_id)

    # The hand record says who joined before which deal and verifies; a forged one does not.
    rec = game_record(app, game_id)
    assert rec["replacements"] == [
        {"seat": 1, "player": "dan", "before_deal": 3, "during_deal": True}
    ]
    assert import_record(to_json(rec))[1].consistent
    text = render_text(rec)
    assert '[Joined "dan in place of' in text and "before deal 3" in text
    assert '[Settlement "ann ' in text and f" dan {game.settlement[3]}" in text
    # The terminal client's final sheet names every account, the leaver marked.
    shown = Console(width=200, record=True)
    shown.print(render_final(scoresheet_to_proto(game)))
    out = shown.export_text()
    assert "bob (left)" in out and "dan " in out
    moved = {**rec, "replacements": [{"seat": 1, "player": "dan", "before_deal": 2}]}
    assert not import_record(to_json(moved))[1].consistent
    missing = {k: v for k, v in rec.items() if k != "replacements"}
    assert not import_record(to_json(missing))[1].consistent


def test_the_audit_reports_a_replacement_the_rules_do_not_allow(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    game_id, created_with, _ = create(app, DEFAULT)
    app.replace_player(game_id, 0, "dan", created_with, SECRET, "r1")
    assert verify_game(app, game_id).verified
    position = topics(app, game_id).index("PlayerReplaced") + 1

    def bad_seat(state: dict[str, object]) -> None:
        state["seat"] = 5

    edit(app, store_env, game_id, position, bad_seat)
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (position, ILLEGAL), found


def test_league_statistics_count_both_the_leaver_and_the_newcomer(
    app: PreferansApplication,
) -> None:
    rules = DEFAULT.with_options(pool_target=6)
    game_id, created_with, _ = create(app, rules, league="club")
    live = stats_runner(app, batch=7)
    play(app, game_id, stop=lambda g: g.state.deal_number == 2 and g.deal is not None)
    live.catch_up()
    app.replace_player(game_id, 2, "dan", created_with, SECRET, "r1")
    play(app, game_id)
    live.catch_up()
    incremental = dump_tables(app.db, STATS_TABLES)
    stats_runner(app, batch=500).rebuild()
    assert dump_tables(app.db, STATS_TABLES) == incremental
    settlement = app.get_game(game_id).settlement
    assert settlement is not None
    results = {r["player_id"]: Fraction(r["settlement"]) for r in q.game_results(app.db, "club")}
    assert len(settlement) == 4
    assert results == dict(
        zip(["ann", "bob", "cid", "dan"], map(Fraction, settlement), strict=True)
    )
    board = {r["player_id"]: r for r in q.leaderboard(app.db, "club")}
    assert set(board) == {"ann", "bob", "cid", "dan"}
    assert all(board[p]["games"] == 1 for p in board)
    dealt = app.get_game(game_id).state.deal_number
    # Deal 2 was in progress when cid left: it and every later deal are dan's.
    assert board["cid"]["deals"] == 1 and board["dan"]["deals"] == dealt - 1
    assert board["ann"]["deals"] == dealt


def test_replacement_is_refused_past_the_bound(app: PreferansApplication) -> None:
    game_id, created_with, _ = create(app, DEFAULT)
    for i in range(16):
        app.replace_player(game_id, i % 3, f"p{i}", created_with, SECRET, f"r{i}")
    with pytest.raises(IllegalAction):
        app.replace_player(game_id, 0, "last", created_with, SECRET, "r-last")
    check_log(app, game_id)


def test_the_old_tokens_are_revoked_before_the_replacement_is_recorded(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the revocation cannot be written, nothing is recorded (the seat stays the leaver's,
    and his token with it); the creator's retry then replaces him (review finding)."""
    game_id, created_with, old = create(app, DEFAULT)
    before = topics(app, game_id)

    def down(*args: object, **kwargs: object) -> int:
        raise RuntimeError("the store is down")

    with monkeypatch.context() as patch:
        patch.setattr(app.revocations, "revoke", down)
        with pytest.raises(RuntimeError):
            app.replace_player(game_id, 2, "dan", created_with, SECRET, "r1")
    assert topics(app, game_id) == before
    assert app.seat_of_token(game_id, old[2]) == 2
    _, token = app.replace_player(game_id, 2, "dan", created_with, SECRET, "r1")
    assert app.seat_of_token(game_id, old[2]) is None
    assert app.seat_of_token(game_id, token) == 2


def test_a_retry_returns_a_fresh_token_unless_the_seat_went_to_another_since(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retry of ReplacePlayer returns a token issued now, still valid a day later when the
    first one has expired; once the seat has gone to yet another player, the old request
    gets no token (review finding)."""
    import time

    game_id, created_with, _ = create(app, DEFAULT)
    _, first = app.replace_player(game_id, 2, "dan", created_with, SECRET, "r1")
    later = time.time() + 25 * 3600
    monkeypatch.setattr(time, "time", lambda: later)
    assert app.seat_of_token(game_id, first) is None  # expired (24 h by default)
    again, token = app.replace_player(game_id, 2, "dan", created_with, SECRET, "r1")
    assert again.replayed and token != first
    assert app.seat_of_token(game_id, token) == 2
    app.replace_player(game_id, 2, "eve", created_with, SECRET, "r2")
    with pytest.raises(IllegalAction):
        app.replace_player(game_id, 2, "dan", created_with, SECRET, "r1")
