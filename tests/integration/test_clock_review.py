"""Clocks and leaving, as docs/CLOCKS.md states them: a time-out is recorded whole or not at
all, a substitute's time-out and resignation go to a fresh bot account, a forfeit's revocation
survives a crash, default moves call time and concede nothing, another seat's replacement leaves
the actor's turn alone, and an adjourned game cannot be ordered (review of issue 14)."""

from __future__ import annotations

import contextlib
import uuid

import pytest

from domain.model.leaving import Moot
from domain.model.terms import TimeControl
from domain.rules import DEFAULT, legal_actions
from domain.rules.errors import RulesError
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from tests.integration.helpers import PLAYERS
from tests.integration.test_endings import topics
from tests.integration.test_game_order import RULES as CLASSIC_UNTIL_TIME

RULES = DEFAULT.with_options(pool_target=10)
UNTIL_TIME = CLASSIC_UNTIL_TIME
"""Classic: ordered after one round of bombs, played until the ordered end time."""
SECRET = "k" * 32
FORFEIT = TimeControl(move_ms=1000, on_timeout="forfeit")


def _substitute_at_actor(app: PreferansApplication) -> tuple[uuid.UUID, int]:
    """A forfeit game whose acting person resigned and whom the creator then replaced by a
    person ("dan"): the seat is a person's again."""
    created = app.create_game(
        list(PLAYERS), "review-forfeit", rules=RULES, creator_secret=SECRET, time_control=FORFEIT
    )
    game_id = created.game_id
    game = app.get_game(game_id)
    assert game.clock is not None
    seat = game.clock.actor
    app.resign(game_id, seat, "leave")
    app.replace_player(game_id, seat, "dan", "review-forfeit", SECRET, "dan-joins")
    game = app.get_game(game_id)
    assert game.players[seat] == "dan" and seat not in game.bot_seats
    assert game.clock is not None and game.clock.actor == seat
    return game_id, seat


def test_a_substitute_out_of_time_under_forfeit_is_timed_out(
    app: PreferansApplication,
) -> None:
    """docs/CLOCKS.md "Leaving": the seat's time is up, so the time-out must be recordable,
    although the seat's first bot id is already among the accounts (the bot took the seat
    once): the seat forfeits to a fresh bot account. Were it refused, the keeper would retry
    for ever and the table would stall."""
    game_id, _seat = _substitute_at_actor(app)
    game = app.get_game(game_id)
    version, deadline = game.version, game.deadline_ms
    assert deadline is not None
    app.time_out(game_id, version, now=deadline / 1000 + 1)
    assert "TimeExpired" in topics(app, game_id)


def test_a_failed_time_out_leaves_no_half_command_in_memory(
    app: PreferansApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/CLOCKS.md: ``TimeExpired`` and its consequence are one save. Whatever refuses the
    consequence after ``TimeExpired`` was triggered (here a default move the rules refuse),
    nothing of the command may stay pending in the game in memory: else the next ordinary
    command saves it with its own event, and the log holds a ``TimeExpired`` whose
    consequence never came (the audit's ``clock`` discrepancy)."""
    from domain.model import game as game_module
    from domain.rules import Card, PlayCard

    created = app.create_game(
        list(PLAYERS), "review-half", rules=RULES, time_control=TimeControl(move_ms=1000)
    )
    game_id = created.game_id
    game = app.get_game(game_id)
    assert game.clock is not None and game.deal is not None
    seat, version, deadline = game.clock.actor, game.version, game.deadline_ms
    assert deadline is not None
    hand = game.deal.dealt[seat]
    illegal = PlayCard(Card(next(c for c in range(32) if not hand >> c & 1)))
    monkeypatch.setattr(game_module, "default_action", lambda legal: illegal)
    with pytest.raises(RulesError):
        app.time_out(game_id, version, now=deadline / 1000 + 1)
    monkeypatch.undo()
    game = app.get_game(game_id)
    assert game.version == version, "the game in memory moved on without a save"
    deal = game.deal
    assert deal is not None
    with contextlib.suppress(Moot, RulesError):  # the seat, late but not timed out, plays
        app.act(game_id, seat, legal_actions(deal)[-1], "late-play")
    assert "TimeExpired" not in topics(app, game_id), topics(app, game_id)[-4:]
    report = verify_game(app, game_id)
    assert report.verified, report.discrepancy


def test_a_substitute_can_resign_to_a_fresh_bot_account(app: PreferansApplication) -> None:
    """docs/CLOCKS.md "Leaving": a seat the bot took once and the creator then gave to a person
    goes, when that person resigns too, to a fresh bot account (``bot:seat<N>.2``): one account
    per player of the sheet. The keeper plays it; a retry of the resignation is one."""
    from domain.model.terms import is_bot_of

    game_id, seat = _substitute_at_actor(app)
    app.resign(game_id, seat, "dan-leaves")
    game = app.get_game(game_id)
    assert game.players[seat] == f"bot:seat{seat}.2" and seat in game.bot_seats
    assert is_bot_of(game.players[seat], seat)
    again = app.resign(game_id, seat, "dan-leaves")
    assert again.replayed
    assert verify_game(app, game_id).verified


def test_a_forfeit_whose_revocation_was_lost_is_revoked_on_the_retry(
    app: PreferansApplication,
) -> None:
    """A forfeit revokes the leaver's tokens only after the save, and only when the command
    was not replayed: if the process dies (or the revocation fails) between the two, every
    retry (the keeper's, another replica's) finds the request done and revokes nothing. The
    leaver's seat token then keeps acting for the bot's seat for ever."""
    created = app.create_game(
        list(PLAYERS), "review-revoke", rules=RULES, creator_secret=SECRET, time_control=FORFEIT
    )
    game_id = created.game_id
    game = app.get_game(game_id)
    assert game.clock is not None and game.deadline_ms is not None
    seat, version, deadline = game.clock.actor, game.version, game.deadline_ms
    revocations = app.revocations
    real = revocations.revoke

    def crash(*args: object, **kwargs: object) -> int:
        raise RuntimeError("the process died after the save")

    revocations.revoke = crash  # type: ignore[method-assign]
    try:
        with pytest.raises(RuntimeError):
            app.time_out(game_id, version, now=deadline / 1000 + 1)
    finally:
        revocations.revoke = real  # type: ignore[method-assign]
    assert "PlayerReplaced" in topics(app, game_id)  # the forfeit is recorded
    again = app.time_out(game_id, version, now=deadline / 1000 + 2)  # the keeper retries
    assert again.replayed
    assert app.seat_of_token(game_id, created.tokens[seat]) is None, (
        "the forfeited player's token still acts for the bot's seat"
    )


def test_a_default_move_after_the_ordered_end_time_calls_time(
    app: PreferansApplication,
) -> None:
    """A game played until its ordered end time: every decision after the end time records
    ``TimeCalled`` first, so the deal in progress is the last (``Game.act(time_up=...)``; the
    bots' ``play_bot`` passes it), and so does a time-out's default move: a table whose persons
    stopped answering still ends at its end time."""
    from datetime import UTC, datetime

    from domain.rules import awaiting_order
    from tests.integration.helpers import order_if_awaited, play

    evening = int(datetime(2026, 12, 1, 19, 0, tzinfo=UTC).timestamp())
    rules = UNTIL_TIME
    app.clock = lambda: evening
    created = app.create_game(
        list(PLAYERS),
        "review-until-time",
        rules=rules,
        first_dealer=0,
        time_control=TimeControl(move_ms=1000),
    )
    game_id = created.game_id
    play(app, game_id, stop=lambda g: awaiting_order(g.state))
    assert order_if_awaited(app, app.get_game(game_id), "o")
    game = app.get_game(game_id)
    order = game.state.order
    assert order is not None and order.ends_at > 0
    ends_at = order.ends_at
    app.clock = lambda: float(ends_at + 60)
    number = game.state.deal_number
    for _ in range(200):  # every seat times out until the deal in progress is scored
        game = app.get_game(game_id)
        if game.finished or game.state.deal_number > number:
            break
        assert game.deadline_ms is not None
        app.time_out(game_id, game.version, now=game.deadline_ms / 1000)
    after = app.get_game(game_id)
    assert after.finished or after.state.deal_number > number  # the deal was played out
    assert "TimeCalled" in topics(app, game_id)
    assert after.finished, "a new deal was dealt after the end time"


def test_another_seat_changing_hands_does_not_restart_the_actors_turn(
    app: PreferansApplication,
) -> None:
    """docs/CLOCKS.md: a seat's new occupant starts a turn (the newcomer's); another seat
    changing hands leaves the running turn alone: when seat B resigns (or the creator replaces
    B) while seat A is thinking, A's elapsed time still counts and its deadline stays."""
    from tests.integration.helpers import create

    game_id = create(app, time_control=TimeControl(move_ms=60_000)).game_id
    game = app.get_game(game_id)
    assert game.clock is not None
    acting, deadline = game.clock.actor, game.deadline_ms
    other = (acting + 1) % 3
    import time as _time

    _time.sleep(0.05)
    app.resign(game_id, other, "other-leaves")
    game = app.get_game(game_id)
    assert game.clock is not None and game.clock.actor == acting
    assert game.deadline_ms == deadline, "the acting seat's turn was restarted"


def test_a_time_out_never_accepts_a_claim(app: PreferansApplication) -> None:
    """A seat asked to answer a claim and out of time gets ``default_action``: with no pass
    and no card legal, "the first legal action in the rules core's order", which is ACCEPT.
    A player who claims every remaining trick wins them whenever his opponent's clock runs
    out: the automatic move concedes. The neutral answer is REJECT (play goes on, and the
    time-outs then play the lowest cards)."""
    from domain.rules import Claim, Phase, actor
    from domain.rules.actions import REJECT
    from tests.integration.helpers import create, play

    game_id = create(app, RULES, time_control=TimeControl(move_ms=1000)).game_id
    play(
        app,
        game_id,
        stop=lambda g: (
            g.deal is not None
            and g.deal.phase is Phase.PLAY
            and any(isinstance(a, Claim) for a in legal_actions(g.deal))
        ),
    )
    game = app.get_game(game_id)
    deal = game.deal
    assert deal is not None
    claimer = actor(deal)
    claims = [a for a in legal_actions(deal) if isinstance(a, Claim)]
    greedy = max(claims, key=lambda c: c.tricks[claimer])
    app.act(game_id, claimer, greedy, "greedy-claim")
    game = app.get_game(game_id)
    assert game.deal is not None and game.deadline_ms is not None
    asked = actor(game.deal)
    assert REJECT in legal_actions(game.deal)
    version = game.version
    app.time_out(game_id, version, now=game.deadline_ms / 1000)
    new = app.game_events(game_id, after=version)
    assert len(new) >= 2, [type(e).__name__ for e in app.game_events(game_id)][-6:]
    answer = new[1]
    assert answer.seat == asked
    assert type(answer).__name__ == "ClaimRejected", type(answer).__name__


def test_an_adjourned_game_cannot_be_ordered(app: PreferansApplication) -> None:
    """docs/CLOCKS.md: adjourned, "every decision is refused (ADJOURNED)". ``Game.act`` checks
    it; ``Game.order`` (a person's order of a Classic game, with the first deal of the ordered
    pool dealt in the same save) does not: the game moves on while adjourned."""
    from domain.model.leaving import Adjourned
    from domain.rules import awaiting_order
    from tests.integration.helpers import create, order_if_awaited, play

    rules = UNTIL_TIME
    game_id = create(app, rules, time_control=TimeControl(move_ms=60_000)).game_id
    play(app, game_id, stop=lambda g: awaiting_order(g.state))
    for seat in range(3):
        app.adjourn(game_id, seat, f"adjourn-{seat}")
    assert app.get_game(game_id).adjourned
    with pytest.raises(Adjourned):
        order_if_awaited(app, app.get_game(game_id), "o")


def test_a_bots_order_end_time_is_the_same_on_every_replica(app: PreferansApplication) -> None:
    """docs/CLOCKS.md "The keeper": a bot ordering a game played until time orders the end time
    ``ORDER_MINUTES`` after the game's last event (the deal that ended the initial rounds), not
    after the replica's clock: every replica and retry computes the same order (the same request
    fingerprint), whatever its clock says."""
    from domain.rules import awaiting_order
    from service.app.application import ORDER_MINUTES
    from tests.integration.helpers import create, play

    rules = UNTIL_TIME
    game_id = create(app, rules).game_id
    play(app, game_id, stop=lambda g: awaiting_order(g.state))
    for seat in range(3):  # every seat the bots', so a bot orders
        app.resign(game_id, seat, f"leave-{seat}")
    game = app.get_game(game_id)
    expected = int(game.modified_on.timestamp()) + ORDER_MINUTES * 60
    app.clock = lambda: 12_345.0  # this replica's clock is far off
    app.play_bot(game_id, game.version)
    order = app.get_game(game_id).state.order
    assert order is not None and order.ends_at == expected


def test_the_audit_flags_an_order_recorded_while_adjourned(app: PreferansApplication) -> None:
    """docs/AUDIT.md "Time-outs": no decision, nor a Classic game's order, while adjourned. A
    log holding one (here written by a server whose copy of the game forgot the adjournment)
    is a ``clock`` discrepancy at the order."""
    from domain.audit_clock import CLOCK
    from domain.rules import awaiting_order
    from tests.integration.helpers import create, order_if_awaited, play

    game_id = create(app, UNTIL_TIME, time_control=TimeControl(move_ms=60_000)).game_id
    play(app, game_id, stop=lambda g: awaiting_order(g.state))
    for seat in range(3):
        app.adjourn(game_id, seat, f"adjourn-{seat}")
    game = app.get_game(game_id)
    ordered = game.version + 1
    game.adjourned = False  # the faulty server's copy
    assert order_if_awaited(app, game, "o")
    found = verify_game(app, game_id).discrepancy
    assert found is not None and (found.version, found.kind) == (ordered, CLOCK), found
