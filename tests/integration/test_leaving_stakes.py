"""Stakes and leaving checked by hand (RULES.md §3.4 "Early stop"), and the server bots'
house accounts kept off people's seats (docs/STAKES.md "Bots")."""

from __future__ import annotations

from fractions import Fraction

from domain.model.terms import bot_player_id
from domain.rules import DEFAULT
from service.app.application import PreferansApplication
from tests.integration.helpers import PLAYERS, create
from tests.integration.test_endings import check_log, topics

RULES = DEFAULT.with_options(pool_target=10)


def test_a_resignation_then_an_agreed_stop_settles_by_hand(app: PreferansApplication) -> None:
    """By hand (RULES.md §3.4): seat 1 leaves before any deal is scored: pool closed at 10, the
    10 missing points to his gora. The others (and the bot, from the averages 0/0) stop by
    agreement at once: each gets 10 - 0 = 10 gora. Every account has gora 10 and no whists:
    everyone settles at 0, and no money moves."""
    game_id = create(app, RULES, stake_per_whist=3).game_id
    app.resign(game_id, 1, "leave")
    app.agree_stop(game_id, 0, "stop-0")
    app.agree_stop(game_id, 2, "stop-2")
    game = app.get_game(game_id)
    app.play_bot(game_id, game.version)  # the bot agrees once every person has
    game = app.get_game(game_id)
    assert game.finished
    assert game.accounts == [*PLAYERS, bot_player_id(1)]
    assert [Fraction(v) for v in (game.settlement or [])] == [0, 0, 0, 0]
    assert game.ledger == [[0, 0, 0, 0]]
    assert topics(app, game_id)[-2:] == ["GameFinished", "StakesSettled"]
    check_log(app, game_id)


def test_the_creator_cannot_seat_a_person_under_a_house_account(
    app: PreferansApplication,
) -> None:
    """``check_bot_players`` keeps the server bots' ids (``bot:seat<N>``, one house account per
    id across every game, docs/STAKES.md "Bots") off people's seats at creation, and the JWT
    verifier and the lobby refuse them as people's ids. ``ReplacePlayer`` does not: the creator
    seats a person (who plays with the newcomer's token) as "bot:seat2" at seat 1; the
    keeper does not play that seat, and the settlement moves that person's money into the
    house account every bot at seat 2 shares."""
    import pytest

    from domain.rules.errors import InvalidAction

    secret = "k" * 32
    created = app.create_game(
        list(PLAYERS), "review-house", rules=RULES, creator_secret=secret, stake_per_whist=1
    )
    with pytest.raises(InvalidAction):
        app.replace_player(
            created.game_id, 1, bot_player_id(2), "review-house", secret, "masquerade"
        )
