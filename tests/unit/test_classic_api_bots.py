"""Bots through the API decide as in-process under Classic (issue 12; S000 "КЛАССИКА": "Бомба",
"Игры на взятие втемную", "заказывает игру").

A bot that has not looked decides a bomb or a dark six from the public game context only: the
level a bomb would have, the sheet, the bomb signs owed and the pool length in force
(domain/bots/classic.py). In-process it gets them from ``domain.rules.game_seat_view``; a
client of the API gets them from the proto ``SeatView`` (``bomb_call``, ``sheet``,
``bomb_signs``, ``pool_target``) through ``service.cli.viewstate.view_from_proto``. For the
situations of tests/unit/test_classic_bots.py, and for every decision of a whole Classic bot
game played through the ``Game`` aggregate, the bot's action from
``view_from_proto(seat_view_to_proto(game, seat))`` is its action from
``game_seat_view(game.state, seat)``.
"""

from __future__ import annotations

from domain.bots import make_bot, order_choice
from domain.bots.classic import SIX_DARK
from domain.model import Game
from domain.rules import (
    Action,
    GameState,
    ScoreSheet,
    actor,
    awaiting_order,
    game_orderer,
    game_seat_view,
    new_game,
    seat_view,
)
from domain.rules.actions import BOMB, LOOK, Bomb, Call, Look
from domain.rules.bids import MISERE, Bid, Strain
from domain.rules.start import GameOrder
from domain.rules.state import DealState
from domain.rules.view import SeatView
from service.api.mapping import seat_view_to_proto
from service.cli.viewstate import view_from_proto
from tests.unit.game_helpers import created_game
from tests.unit.rules_helpers import SAMPLE, A, B, act, deal
from tests.unit.test_classic_bots import (
    CLASSIC,
    DARK_MISERE_HAND,
    EVEN,
    FAR_AHEAD_A,
    FAR_BEHIND_A,
    SEEDS,
    STRONG_SPADES,
    classic_deal,
    sheet,
)

BOT = make_bot()
NO_BOMBS = CLASSIC.with_options(bombs=False)
SIX_SPADES = Call(Bid.ordinary(6, Strain.SPADES))


def aggregate(
    deal_state: DealState,
    table: ScoreSheet,
    signs: tuple[tuple[int, ...], ...] = (),
    order: int = 0,
) -> Game:
    """A Classic game aggregate whose current deal is ``deal_state``, with the sheet ``table``,
    the bomb signs ``signs`` and, when ``order`` is given, ordered to a pool of ``order``."""
    game = created_game(deal_state.rules)
    state: GameState = new_game(deal_state.rules)._replace(
        deal_number=12,
        deal=deal_state,
        sheet=table,
        bomb_signs=signs,
        bomb_streak=deal_state.bomb_streak,
        order=GameOrder(seat=A, pool=order, ends_at=0) if order else None,
    )
    game.state = state
    return game


def both_views(game: Game, seat: int) -> tuple[SeatView, SeatView]:
    """The seat's view in-process and through the API."""
    return game_seat_view(game.state, seat), view_from_proto(seat_view_to_proto(game, seat))


def same_context(core: SeatView, api: SeatView) -> None:
    assert api.bomb_call == core.bomb_call
    assert api.pool_target == core.pool_target
    assert api.sheet is not None and core.sheet is not None
    assert api.sheet[:3] == core.sheet[:3]  # pool, gora, whists (no seat was replaced)
    assert api.bomb_signs == core.bomb_signs


def decides_alike(game: Game, seat: int) -> Action:
    """The bot's action for ``seat`` in-process, checked equal to its action through the API."""
    core, api = both_views(game, seat)
    same_context(core, api)
    assert BOT(api) == BOT(core)
    return BOT(core)


# Each situation: the game, the seat deciding, the bot's choice, and whether the bare deal
# view without the bomb level (what ``view_from_proto`` gave before) decides otherwise.
SITUATIONS: dict[str, tuple[Game, int, Action, bool]] = {
    "far behind: single bomb": (aggregate(classic_deal(), FAR_BEHIND_A), A, BOMB, True),
    "even: looks": (aggregate(classic_deal(), EVEN), A, LOOK, False),
    "far ahead: looks": (aggregate(classic_deal(), FAR_AHEAD_A), A, LOOK, False),
    "triple bomb: never": (
        aggregate(classic_deal(bomb_streak=2), sheet(gora=(200, 0, 0))),
        A,
        LOOK,
        False,
    ),
    # bomb_call: read as a single bomb without it, this sheet would bomb.
    "double bomb 300 behind: looks": (
        aggregate(classic_deal(bomb_streak=1), FAR_BEHIND_A),
        A,
        LOOK,
        False,
    ),
    "double bomb 500 behind: bombs": (
        aggregate(classic_deal(bomb_streak=1), sheet(gora=(60, 10, 10))),
        A,
        BOMB,
        True,
    ),
    # bomb_signs: owing more than the others, no bomb; owing as many, a bomb.
    "more signs owed: looks": (
        aggregate(classic_deal(), FAR_BEHIND_A, ((1, 2, 3), (1,), (1,))),
        A,
        LOOK,
        False,
    ),
    "as many signs: bombs": (
        aggregate(classic_deal(), FAR_BEHIND_A, ((1,), (1,), (1,))),
        A,
        BOMB,
        True,
    ),
    "joins a single bomb": (aggregate(act(classic_deal(), "bomb"), EVEN), B, BOMB, False),
    "far ahead: no join": (
        aggregate(act(classic_deal(), "bomb"), sheet(gora=(30, 0, 30))),
        B,
        LOOK,
        True,
    ),
    "pre-empts a triple bomb with 6♠ dark": (
        aggregate(act(classic_deal(bomb_streak=2), "bomb"), EVEN),
        B,
        SIX_DARK,
        True,
    ),
    "first hand, early, behind: 6♠ dark": (
        aggregate(deal(*SAMPLE, rules=NO_BOMBS), sheet(gora=(40, 10, 10), pool=(4, 0, 0))),
        A,
        SIX_DARK,
        True,
    ),
    # pool_target in force: the same sheet is no longer early in an ordered pool of 5.
    "ordered short pool: not early, looks": (
        aggregate(deal(*SAMPLE, rules=NO_BOMBS), sheet(gora=(40, 10, 10), pool=(4, 0, 0)), order=5),
        A,
        LOOK,
        False,
    ),
    "late in the pool: looks": (
        aggregate(deal(*SAMPLE, rules=NO_BOMBS), FAR_BEHIND_A),
        A,
        LOOK,
        False,
    ),
    "dark declarer looks": (
        aggregate(act(deal(*DARK_MISERE_HAND, rules=NO_BOMBS), "6♠ dark", "pass", "pass"), EVEN),
        A,
        LOOK,
        False,
    ),
    "dark declarer switches to misère": (
        aggregate(
            act(deal(*DARK_MISERE_HAND, rules=NO_BOMBS), "6♠ dark", "pass", "pass", "look"),
            EVEN,
        ),
        A,
        Call(MISERE),
        False,
    ),
    "looked: bids 6♠": (
        aggregate(act(deal(*STRONG_SPADES, rules=CLASSIC), "look"), EVEN),
        A,
        SIX_SPADES,
        False,
    ),
}


def test_api_bots_bomb_and_bid_dark_in_the_classic_situations_as_in_process() -> None:
    """Each named situation of test_classic_bots.py: the same action from both views, the
    one expected; where the game context decides it, the bare deal view decides otherwise."""
    for name, (game, seat, expected, context_decides) in SITUATIONS.items():
        assert decides_alike(game, seat) == expected, name
        deal_state = game.state.deal
        assert deal_state is not None
        bare = BOT(seat_view(deal_state, seat)._replace(bomb_call=0))
        assert (bare != expected) == context_decides, name


def test_api_bots_decide_alike_through_a_whole_classic_game() -> None:
    """Every decision of a Classic game of bots played through the ``Game`` aggregate (the
    initial bomb rounds, the order, then the pool): the API's view gives the same action for
    every seat's view, and the game has bot-declared bombs and looks."""
    seed = SEEDS[0]
    game = created_game(CLASSIC, 0, seed)
    game.deal_first(seed, "create")
    kinds: set[type] = set()
    n = 0
    while not game.finished and game.state.deal_number <= 30:
        n += 1
        if awaiting_order(game.state):
            seat = game_orderer(game.state)
            game.order(seat, order_choice(CLASSIC, game.state.sheet, seat), 1, f"o{n}", seed)
            continue
        deal_state = game.state.deal
        assert deal_state is not None
        seat = actor(deal_state)
        action = decides_alike(game, seat)
        kinds.add(type(action))
        game.act(seat, action, f"r{n}", seed)
    assert {Bomb, Look} <= kinds, kinds
