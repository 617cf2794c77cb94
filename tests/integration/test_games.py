"""Whole games through the application, idempotent retries, illegal commands and replay, on
SQLite and on PostgreSQL (the ``store_env`` fixture runs every test on both)."""

from __future__ import annotations

import uuid
from fractions import Fraction

import pytest

from domain.model import RequestReused
from domain.rules import (
    IllegalAction,
    InvalidAction,
    NotYourTurn,
    Phase,
    RuleSet,
    actor,
    seat_view,
    seed_commitment,
    shuffle_from_seed,
)
from domain.rules.actions import CALLS, PLAYS
from projections import standard_runners
from projections.queries import list_games
from service.api.mapping import scoresheet_to_proto
from service.app.application import GameNotFound, PreferansApplication
from tests.integration.helpers import (
    BOT,
    PLAYERS,
    AppFactory,
    create,
    fold,
    play,
    replay_in_domain,
    topic,
)


@pytest.mark.parametrize("pool_target", [10, 20])
def test_whole_games_are_scored_exactly_as_the_rules_core_scores_them(
    app: PreferansApplication, pool_target: int
) -> None:
    created = create(app, RuleSet(pool_target=pool_target))
    game_id = created.game_id
    sent = play(app, game_id)

    game = app.get_game(game_id)
    assert game.finished
    assert game.seed_hex is not None and game.settlement is not None
    events = app.game_events(game_id)
    assert [e.originator_version for e in events] == list(range(1, game.version + 1))

    # The pure rules core, fed only the log, reaches the same game; the log holds exactly the
    # decisions the players sent, in order.
    replay = replay_in_domain(events)
    assert replay.actions == sent
    assert replay.game == game.state
    assert replay.game.finished

    # The shuffle is provably fair: the revealed seed matches the commitment made at creation
    # and every deal derives from it.
    seed = bytes.fromhex(game.seed_hex)
    assert seed_commitment(seed) == created.seed_commitment == events[0].seed_commitment
    dealt = [e for e in events if topic(e) == "DealDealt"]
    assert [e.number for e in dealt] == list(range(1, len(dealt) + 1))
    for event in dealt:
        shuffle = shuffle_from_seed(seed, event.number)
        assert (tuple(event.deck), event.talon_pair) == (shuffle.order, shuffle.talon_pair)

    # The recorded scores are the rules core's, deal by deal.
    scored = [
        {
            "number": e.number,
            "kind": e.kind,
            "declarer": e.declarer,
            "contract": e.contract,
            "tricks": e.tricks,
            "score": e.score,
            "entry": e.entry,
        }
        for e in events
        if topic(e) == "DealScored"
    ]
    assert scored == replay.scored
    assert len(scored) == len(dealt)
    assert topic(events[-1]) == "GameFinished"
    assert replay.settlement is not None
    assert events[-1].settlement == replay.settlement == game.settlement

    # The scoresheet as served (GetScoresheet reads the aggregate) agrees with the rules core
    # for every deal, the totals and the settlement.
    sheet = scoresheet_to_proto(app.get_game(game_id))
    assert sheet.version == game.version
    assert len(sheet.deals) == len(replay.scored)
    for served, expected in zip(sheet.deals, replay.scored, strict=True):
        entry = expected["entry"]
        assert (served.deal_number, served.kind, served.declarer, served.contract) == (
            expected["number"],
            expected["kind"],
            expected["declarer"],
            expected["contract"],
        )
        assert list(served.tricks) == expected["tricks"]
        assert [(r.pool, r.gora, list(r.whists)) for r in served.entries] == [
            (entry["pool"][s], entry["gora"][s], entry["whists"][s]) for s in range(3)
        ]
    final_sheet = replay.game.sheet
    assert [r.pool for r in sheet.totals] == list(final_sheet.pool)
    assert all(r.pool >= pool_target for r in sheet.totals)
    assert [r.gora for r in sheet.totals] == list(final_sheet.gora)
    assert [list(r.whists) for r in sheet.totals] == [list(row) for row in final_sheet.whists]
    assert list(sheet.settlement) == replay.settlement
    assert sum(Fraction(value) for value in sheet.settlement) == 0

    # The game list (a projection) agrees once caught up.
    for runner in standard_runners(app, app.db).values():
        runner.catch_up()
    (listed,) = [g for g in list_games(app.db) if g["game_id"] == str(game_id)]
    assert listed["status"] == "finished"
    assert listed["players"] == PLAYERS
    assert listed["deal_number"] == len(dealt)
    assert listed["version"] == game.version
    assert listed["settlement"] == replay.settlement
    assert [g["game_id"] for g in list_games(app.db, status="finished")] == [str(game_id)]
    assert list_games(app.db, status="playing") == []


def test_retried_commands_have_no_second_effect(
    app: PreferansApplication, open_app: AppFactory
) -> None:
    rules = RuleSet(pool_target=10)
    request_id = f"create-{uuid.uuid4()}"
    secret = "creator-secret-0123456789"
    first = app.create_game(PLAYERS, request_id, rules=rules, creator_secret=secret)
    game_id = first.game_id
    created_events = len(app.game_events(game_id))
    assert created_events == first.version == 2  # created, then the first deal dealt

    # Creation retried with the creator's secret: the same game, valid tokens, nothing new;
    # also on another replica.
    replica = open_app()
    for retrier in (app, replica):
        recreated = retrier.create_game(PLAYERS, request_id, rules=rules, creator_secret=secret)
        assert (recreated.game_id, recreated.version, recreated.seed_commitment) == (
            game_id,
            first.version,
            first.seed_commitment,
        )
        for seat, token in enumerate(recreated.tokens):
            assert app.authenticate(game_id, token) == seat
    assert len(app.game_events(game_id)) == created_events
    with pytest.raises(InvalidAction):
        app.create_game(["dan", "eve", "fay"], request_id, rules=rules, creator_secret=secret)
    for seat, token in enumerate(first.tokens):
        assert app.authenticate(game_id, token) == seat
    assert app.authenticate(game_id, "not a token") is None

    # A command retried: the same version, marked as replayed, nothing recorded.
    deal = app.get_game(game_id).deal
    assert deal is not None
    seat = actor(deal)
    action = BOT(seat_view(deal, seat))
    landed = app.act(game_id, seat, action, request_id="move-1")
    assert not landed.replayed
    count = len(app.game_events(game_id))
    assert count == landed.version
    again = app.act(game_id, seat, action, request_id="move-1")
    assert again.replayed
    assert again.version == landed.version
    assert len(app.game_events(game_id)) == count

    # The same request id for a different command is refused, and records nothing.
    deal = app.get_game(game_id).deal
    assert deal is not None
    next_seat = actor(deal)
    next_action = BOT(seat_view(deal, next_seat))
    assert (next_seat, next_action) != (seat, action)
    with pytest.raises(RequestReused):
        app.act(game_id, next_seat, next_action, request_id="move-1")
    with pytest.raises(InvalidAction):
        app.act(game_id, seat, CALLS[0] if action != CALLS[0] else CALLS[1], request_id="move-1")
    assert len(app.game_events(game_id)) == count

    # Later commands land; the retry still gets its first answer, from any replica.
    play(app, game_id, stop=lambda g: g.version >= landed.version + 5)
    count = len(app.game_events(game_id))
    assert app.act(game_id, seat, action, request_id="move-1") == again
    assert replica.act(game_id, seat, action, request_id="move-1") == again
    assert len(app.game_events(game_id)) == count


def test_illegal_commands_leave_the_log_unchanged(
    app: PreferansApplication, open_app: AppFactory
) -> None:
    game_id = create(app, RuleSet(pool_target=10)).game_id
    play(app, game_id, stop=lambda g: g.deal is not None and g.deal.phase is Phase.PLAY)
    game = app.get_game(game_id)
    deal = game.deal
    assert deal is not None
    seat = actor(deal)
    view = seat_view(deal, seat)
    version, state = game.version, game.state
    events = [(e.originator_version, topic(e)) for e in app.game_events(game_id)]

    def assert_unchanged() -> None:
        now = app.get_game(game_id)
        assert now.version == version
        assert now.state == state
        assert [(e.originator_version, topic(e)) for e in app.game_events(game_id)] == events

    # Out of turn.
    for other in range(3):
        if other != seat:
            with pytest.raises(NotYourTurn):
                app.act(game_id, other, BOT(view), request_id="bad-1")
            assert_unchanged()
    # Against the rules: a card that may not be played now, and a bid in the play phase.
    illegal_card = next(p for p in PLAYS if p not in view.legal)
    with pytest.raises(IllegalAction) as raised:
        app.act(game_id, seat, illegal_card, request_id="bad-1")
    assert not isinstance(raised.value, NotYourTurn)
    assert str(raised.value)
    assert_unchanged()
    with pytest.raises(IllegalAction):
        app.act(game_id, seat, CALLS[0], request_id="bad-1")
    assert_unchanged()
    # Malformed request ids.
    for bad_id in ("", "x" * 129, "two\nlines"):
        with pytest.raises(InvalidAction):
            app.act(game_id, seat, BOT(view), request_id=bad_id)
        assert_unchanged()
    # Unknown game.
    unknown = uuid.uuid4()
    with pytest.raises(GameNotFound):
        app.act(unknown, seat, BOT(view), request_id="bad-1")
    with pytest.raises(GameNotFound):
        app.get_game(unknown)
    with pytest.raises(GameNotFound):
        app.game_at(unknown, 1)
    assert app.game_events(unknown) == []
    assert_unchanged()

    # A fresh application reads the same log, and the refused request id was not used up.
    fresh = open_app()
    assert fresh.get_game(game_id).state == state
    result = fresh.act(game_id, seat, BOT(view), request_id="bad-1")
    assert not result.replayed
    assert result.version > version


def test_game_at_replays_exactly_the_first_events(app: PreferansApplication) -> None:
    game_id = create(app, RuleSet(pool_target=10)).game_id
    play(app, game_id, stop=lambda g: g.state.deal_number >= 3)
    events = app.game_events(game_id)
    last = len(events)
    assert [e.originator_version for e in events] == list(range(1, last + 1))
    boundaries = [e.originator_version for e in events if topic(e) in ("DealDealt", "DealScored")]
    for version in sorted({1, 2, 3, last // 3, last // 2, last - 1, last, *boundaries}):
        past = app.game_at(game_id, version)
        expected = fold(events[:version])
        assert past.version == expected.version == version
        assert past.state == expected.state
        assert past.requests == expected.requests
    assert app.game_at(game_id, last).state == app.get_game(game_id).state
    assert [e.originator_version for e in app.game_events(game_id, after=last - 3)] == [
        last - 2,
        last - 1,
        last,
    ]
    assert [e.originator_version for e in app.game_events(game_id, after=5, limit=2)] == [6, 7]

    for out_of_range in (0, -1, last + 1, last + 1000):
        with pytest.raises(InvalidAction, match="version"):
            app.game_at(game_id, out_of_range)
