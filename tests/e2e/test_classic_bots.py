"""End to end (SQLite and PostgreSQL): bots playing Classic through gRPC (``pref bots --system
classic``: ``service.cli.botplay.play_with_bots``) declare bombs and bid dark in the pool, as
the in-process bots do (issue 12; S000 "КЛАССИКА": "Бомба", "Игры на взятие втемную").

A bot that has not looked decides a bomb or a dark six from the public game context only; the
proto ``SeatView`` carries it (``bomb_call``, ``sheet``, ``bomb_signs``, ``pool_target``) and
``view_from_proto`` hands it to the bot. Without it a bot through the API never declared a
bomb nor bid a dark six, so no deal of the pool proper (after the nine initial bomb deals,
which everyone must play) was a bomb raspasy or a dark game. Games are drawn (fresh deals
each) until one has such a deal, at most ``MAX_GAMES``: in-process about 85 % of the games of
``POOL_DEALS`` pool deals have one. The server's log of that game verifies in the audit."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable

from domain.rules.start import initial_deals
from domain.rules.systems import rule_set
from service.api.mapping import parse_game_name
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.config import StoreConfig
from service.cli.botplay import Creator, play_with_bots
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb

PLAYERS = ["ann", "bob", "cid"]
CLASSIC = rule_set("classic")
POOL_DEALS = 6
"""Deals of the ordered pool each game lasts: the creator calls time then (``--deals``)."""
MAX_GAMES = 8


def bot_game(client: GameClient) -> tuple[pb.Game, pb.Scoresheet, list[str]]:
    """One Classic game of three bots through the API, as ``pref bots`` plays it; its sheet and
    seat tokens."""
    creator = Creator(uuid.uuid4().hex, secrets.token_hex(16))
    created = client.create_game(
        PLAYERS, CLASSIC, request_id=creator.request_id, creator_secret=creator.secret
    )
    name = created.game.name
    game = play_with_bots(client, name, created.seat_tokens, creator=creator, time_deals=POOL_DEALS)
    return game, client.scoresheet(name, min_version=game.version), list(created.seat_tokens)


def pool_deals(sheet: pb.Scoresheet) -> list[pb.ScoresheetDeal]:
    """The deals of the pool proper: after the initial bomb rounds, a bomb there was declared
    by a bot."""
    return [d for d in sheet.deals if d.deal_number > initial_deals(CLASSIC)]


def test_bots_through_the_api_bomb_or_bid_dark_in_the_pool(
    store: StoreConfig,
    client: GameClient,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    for _ in range(MAX_GAMES):
        game, sheet, tokens = bot_game(client)
        if any(d.bomb or d.dark for d in pool_deals(sheet)):
            break
    assert any(d.bomb or d.dark for d in pool_deals(sheet)), f"none in {MAX_GAMES} games"
    assert game.status == pb.GAME_STATUS_FINISHED and game.time_called
    assert len(pool_deals(sheet)) == POOL_DEALS and sheet.bomb_signs
    # Every seat's view carries the public context the bots decided by: the sheet's own.
    for token in tokens:
        view = client.seat(game.name, token).view(min_version=game.version)
        assert list(view.sheet) == list(sheet.totals)
        assert list(view.bomb_signs) == list(sheet.bomb_signs)
        assert view.pool_target == game.order.pool == CLASSIC.pool_target
    report = verify_game(open_app(store), parse_game_name(game.name))
    assert report.verified, report.summary
