"""Clocks, time-outs, resignation and adjournment through the application and the event store,
on both stores (issue 14, docs/CLOCKS.md): the time-out is an event decided by the service's
clock (injected here: no waiting, no timing), its default move or forfeit is recorded in the
same save, replayed and audited; a forged early time-out is a discrepancy."""

from __future__ import annotations

import uuid
from datetime import timedelta
from fractions import Fraction

import pytest

from domain.audit_clock import CLOCK
from domain.bots import make_bot
from domain.handrecord import to_json
from domain.model.clock import default_action, ms_of
from domain.model.decisions import BY_NAME
from domain.model.leaving import Adjourned, Moot, NotDue
from domain.model.terms import TimeControl, bot_player_id
from domain.rules import DEFAULT, IllegalAction, actor, legal_actions, seat_view, settle_final
from domain.rules.errors import InvalidAction
from service.app.application import PreferansApplication
from service.app.audit import read_log, verify_game
from service.app.handrecord import game_record, import_record
from tests.integration.helpers import PLAYERS, create, play, topic
from tests.integration.test_audit import edit, rechain
from tests.integration.test_endings import check_log, topics

SECOND = TimeControl(move_ms=1000)
RULES = DEFAULT.with_options(pool_target=10)
SECRET = "k" * 32


def test_a_seat_out_of_time_gets_its_default_move(app: PreferansApplication) -> None:
    game_id = create(app, time_control=SECOND).game_id
    game = app.get_game(game_id)
    version, deadline = game.version, game.deadline_ms
    assert game.clock is not None and deadline is not None
    seat = game.clock.actor
    assert deadline == game.clock.started_ms + 1000
    before = topics(app, game_id)
    with pytest.raises(NotDue):
        app.time_out(game_id, version, now=(deadline - 1) / 1000)
    assert topics(app, game_id) == before

    now = (deadline + 250) / 1000
    result = app.time_out(game_id, version, now=now)
    expired, move = app.game_events(game_id, after=version)[:2]
    assert (topic(expired), expired.seat, expired.deadline_ms) == ("TimeExpired", seat, deadline)
    assert ms_of(expired.timestamp) == deadline + 250 == ms_of(move.timestamp)
    assert (topic(move), move.seat) == ("AuctionPassed", seat)  # pass is legal: the default
    # Idempotent: a retry (another replica) finds it done; an older version is moot.
    again = app.time_out(game_id, version, now=now)
    assert again.replayed and again.version == result.version
    with pytest.raises(Moot):
        app.time_out(game_id, version + 1, now=now + 100)
    # The next seat's turn started at the time-out's moment.
    game = app.get_game(game_id)
    assert game.clock is not None and game.clock.started_ms == deadline + 250
    check_log(app, game_id)


def test_a_decision_that_lands_first_makes_the_time_out_moot(app: PreferansApplication) -> None:
    game_id = create(app, time_control=SECOND).game_id
    game = app.get_game(game_id)
    version, deadline = game.version, game.deadline_ms
    assert game.deal is not None and deadline is not None
    seat = game.clock.actor if game.clock else -1
    app.act(game_id, seat, legal_actions(game.deal)[0], "first")
    with pytest.raises(Moot):
        app.time_out(game_id, version, now=deadline / 1000 + 60)
    assert "TimeExpired" not in topics(app, game_id)


def test_default_moves_play_a_whole_deal_and_the_audit_checks_them(
    app: PreferansApplication,
) -> None:
    game_id = create(app, RULES, time_control=SECOND).game_id
    while app.get_game(game_id).state.deal_number < 2:
        game = app.get_game(game_id)  # the game in memory: read what is needed first
        version, deadline, deal = game.version, game.deadline_ms, game.deal
        assert deadline is not None and deal is not None
        app.time_out(game_id, version, now=deadline / 1000)
        move = app.game_events(game_id, after=version)[1]
        assert BY_NAME[topic(move)].read(move) == default_action(legal_actions(deal))
    assert topics(app, game_id).count("TimeExpired") > 10
    check_log(app, game_id)


def timed_out(app: PreferansApplication, late_by: float = 0.0) -> tuple[uuid.UUID, int]:
    """A new game whose first seat timed out ``late_by`` seconds after its deadline: its id
    and the version of the ``TimeExpired``."""
    game_id = create(app, time_control=SECOND).game_id
    game = app.get_game(game_id)
    version, deadline = game.version, game.deadline_ms
    assert deadline is not None
    app.time_out(game_id, version, now=deadline / 1000 + late_by)
    assert verify_game(app, game_id).verified
    return game_id, version + 1


def test_a_forged_early_time_out_is_a_discrepancy(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    game_id, expired = timed_out(app, late_by=2)
    stored = read_log(app, game_id)[expired - 1]
    early = (stored.timestamp - timedelta(seconds=2, milliseconds=1)).isoformat()
    edit(app, store_env, game_id, expired, lambda s: s.update(timestamp=_stamp(s, early)))
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (expired, CLOCK), found
    assert "before its deadline" in found.message


def _stamp(state: dict[str, object], iso: str) -> object:
    """The stored form of a timestamp, as the stored event has it."""
    stored = state["timestamp"]
    if isinstance(stored, dict):
        return {**stored, "_data_": iso}
    return iso


def test_a_consequence_other_than_the_configured_one_is_a_discrepancy(
    app: PreferansApplication, store_env: dict[str, str]
) -> None:
    game_id, expired = timed_out(app)
    move = expired + 1
    # A forger claims the table played "forfeit": the recorded default move is not that.
    edit(app, store_env, game_id, 1, lambda s: s["time_control"].update(on_timeout="forfeit"))
    rechain(app, store_env, game_id)
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (move, CLOCK), found
    assert "forfeit on time must follow" in found.message


def test_a_forfeit_on_time_is_settled_by_the_early_leave_rule(
    app: PreferansApplication,
) -> None:
    control = TimeControl(move_ms=1000, on_timeout="forfeit")
    created = create(app, RULES, time_control=control)
    game_id = created.game_id
    game = app.get_game(game_id)
    assert game.clock is not None and game.deadline_ms is not None
    seat = game.clock.actor
    app.time_out(game_id, game.version, now=game.deadline_ms / 1000)
    assert topics(app, game_id)[-2:] == ["TimeExpired", "PlayerReplaced"]
    replaced = app.game_events(game_id)[-1]
    assert (replaced.seat, replaced.player, replaced.reason) == (seat, bot_player_id(seat), "time")
    game = app.get_game(game_id)
    assert game.bot_seats == [seat] and game.players[seat] == bot_player_id(seat)
    assert app.seat_of_token(game_id, created.tokens[seat]) is None
    # By hand (RULES.md §3.4, TV-27): nothing was scored yet, so the leaver's pool is closed at
    # its length, 10, and the 10 points he missed go to his gora; the bot starts from the
    # others' averages (0 and 0).
    sheet = game.state.sheet
    leaver = sheet.departed[0]
    assert (leaver.account, leaver.seat, leaver.pool, leaver.gora) == (seat, seat, 10, 10)
    assert all(w == 0 for _, w in leaver.wrote + leaver.received)
    assert (sheet.pool[seat], sheet.gora[seat]) == (0, 0)
    # The server's bot plays the seat to the end; the persons play in time.
    while not app.get_game(game_id).finished:
        game = app.get_game(game_id)
        try:
            app.play_bot(game_id, game.version)
        except Moot:
            assert game.deal is not None
            person = actor(game.deal)
            action = make_bot()(seat_view(game.deal, person))
            app.act(game_id, person, action, f"person-{game.version}")
    game = app.get_game(game_id)
    assert game.settlement is not None and len(game.settlement) == 4
    assert game.settlement == [str(v) for v in settle_final(game.state.sheet, RULES)]
    assert sum(Fraction(v) for v in game.settlement) == 0
    check_log(app, game_id)


def test_resignation(app: PreferansApplication) -> None:
    created = create(app, RULES)
    game_id = created.game_id
    play(app, game_id, stop=lambda g: g.state.deal_number == 2 and g.deal is not None)
    before = app.get_game(game_id).state.sheet
    with pytest.raises(InvalidAction):
        app.resign(game_id, 3, "r1")
    result = app.resign(game_id, 1, "r1")
    game = app.get_game(game_id)
    assert game.players == ["ann", bot_player_id(1), "cid"] and game.bot_seats == [1]
    assert game.accounts == [*PLAYERS, bot_player_id(1)]
    assert game.state.sheet.departed[0].gora == before.gora[1] + max(0, 10 - before.pool[1])
    assert app.game_events(game_id)[-1].reason == "resigned"
    assert app.seat_of_token(game_id, created.tokens[1]) is None
    assert app.seat_of_token(game_id, created.tokens[0]) == 0
    again = app.resign(game_id, 1, "r1")
    assert again.replayed and again.version == result.version
    with pytest.raises(IllegalAction, match="bot"):
        app.resign(game_id, 1, "r2")
    # Every person resigns: the bots play the game to its end.
    app.resign(game_id, 0, "r3")
    app.resign(game_id, 2, "r4")
    while not app.get_game(game_id).finished:
        app.play_bot(game_id, app.get_game(game_id).version)
    game = app.get_game(game_id)
    assert game.settlement is not None and len(game.settlement) == 6
    check_log(app, game_id)
    # The hand record names the bots that joined, and verifies.
    rec = game_record(app, game_id)
    assert [r["player"] for r in rec["replacements"]] == [bot_player_id(s) for s in (1, 0, 2)]
    assert import_record(to_json(rec))[1].consistent


def test_adjournment_by_agreement(app: PreferansApplication) -> None:
    game_id = create(app, time_control=SECOND, bot_seats=(2,)).game_id
    game = app.get_game(game_id)
    assert game.deal is not None
    app.adjourn(game_id, 0, "a0")
    assert not app.get_game(game_id).adjourned
    with pytest.raises(IllegalAction, match="bot"):
        app.adjourn(game_id, 2, "a2")
    with pytest.raises(IllegalAction, match="already"):
        app.adjourn(game_id, 0, "a0-again")
    assert app.adjourn(game_id, 0, "a0").replayed
    app.adjourn(game_id, 1, "a1")
    game = app.get_game(game_id)
    assert game.adjourned and game.deadline_ms is None and game.deal is not None
    seat = game.clock.actor if game.clock else -1
    with pytest.raises(Adjourned):
        app.act(game_id, seat, legal_actions(game.deal)[0], "while-adjourned")
    with pytest.raises(NotDue):
        app.time_out(game_id, game.version, now=10**10)
    with pytest.raises(Moot):
        app.play_bot(game_id, game.version)
    with pytest.raises(IllegalAction, match="already adjourned"):
        app.adjourn(game_id, 0, "a0-b")
    app.adjourn(game_id, 1, "r1", resume=True)
    assert app.get_game(game_id).adjourned
    app.adjourn(game_id, 0, "r0", resume=True)
    game = app.get_game(game_id)
    assert not game.adjourned and game.deadline_ms is not None
    with pytest.raises(IllegalAction, match="not adjourned"):
        app.adjourn(game_id, 0, "r0-b", resume=True)
    check_log(app, game_id)


def test_when_every_person_leaves_an_adjourned_game_the_bots_play_it_out(
    app: PreferansApplication,
) -> None:
    game_id = create(app, RULES, time_control=SECOND).game_id
    for seat in range(3):
        app.adjourn(game_id, seat, f"a{seat}")
    assert app.get_game(game_id).adjourned
    app.resign(game_id, 0, "r0")
    app.resign(game_id, 1, "r1")
    assert app.get_game(game_id).adjourned  # seat 2, a person, agreed
    app.resign(game_id, 2, "r2")
    game = app.get_game(game_id)
    assert not game.adjourned and game.deadline_ms is not None
    app.play_bot(game_id, game.version)
    check_log(app, game_id)


def test_a_person_seated_in_a_bots_place_plays_it(app: PreferansApplication) -> None:
    players = [*PLAYERS[:2], bot_player_id(2)]
    created = app.create_game(players, "bot-seat-taken", creator_secret=SECRET, bot_seats=(2,))
    app.replace_player(created.game_id, 2, "dan", "bot-seat-taken", SECRET, "seat-dan")
    game = app.get_game(created.game_id)
    assert game.bot_seats == [] and game.players[2] == "dan"
    assert verify_game(app, created.game_id).verified
