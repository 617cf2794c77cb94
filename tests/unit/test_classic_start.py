"""The start and the end of a Classic game (issue 12; S000 "КЛАССИКА" lines ~580-633; RULES.md
§3.4 "Pool length", "End condition", "Classic ending"; §3.5 "Classic"; TV-26): initial raspasy
and bomb rounds, the simplified start, the order of the game by the largest gora, the ordered
pool length, and play until time after the pools close."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from fractions import Fraction

import pytest

from domain.bots import make_bot
from domain.handrecord import record_from_game, verify_record
from domain.rules import (
    DEFAULT,
    DealScore,
    DealState,
    GameState,
    IllegalAction,
    InitialRounds,
    InvalidAction,
    Kind,
    NotYourTurn,
    Phase,
    RuleSet,
    awaiting_order,
    call_time,
    finish_deal,
    game_orderer,
    new_game,
    order_game,
    play_deal,
    play_game,
    shuffle_from_seed,
    start_deal,
    table_rules,
)
from domain.rules.game import game_final_sheet, robber_penalties, settle_game
from domain.rules.start import GameOrder
from tests.unit.rules_helpers import A, B, C, result

BOT = make_bot()
TRIPLE = {"initial_levels": 3, "order_game": True}
AT_2300 = int(datetime(2026, 12, 1, 23, 0, tzinfo=UTC).timestamp())
"""S000's "до 23 часов", as the order records it: seconds since the epoch (UTC)."""


def seed(n: int) -> bytes:
    return hashlib.sha256(f"classic-start-{n}".encode()).digest()


Initial = list[tuple[DealState, DealState, DealScore]]


def play_initial(rules: RuleSet, first_dealer: int = A, n: int = 1) -> tuple[GameState, Initial]:
    """Play the initial deals with bots; returns the game waiting for its order and the deals
    (as dealt, then as scored)."""
    game = new_game(rules, first_dealer)
    deals: Initial = []
    while not awaiting_order(game):
        game = start_deal(game, shuffle_from_seed(seed(n), game.deal_number + 1))
        assert game.deal is not None
        dealt = game.deal
        final, _ = play_deal(dealt, [BOT] * 3)
        game, score, _ = finish_deal(game._replace(deal=final))
        deals.append((dealt, final, score))
    return game, deals


def test_s000_initial_bombs_variant_1_the_same_dealer_deals_single_double_triple() -> None:
    """S000 "Первый вариант": the same dealer deals a single, a double and a triple bomb, then
    the deal passes; after every player has dealt three times the first dealer is dealer
    again and the goras are compared. A bomb round is a raspasy without an auction with every
    seat a bomber (3 players: nobody sits out)."""
    rules = DEFAULT.with_options(initial_rounds=InitialRounds.BOMBS_BY_DEALER, **TRIPLE)
    game, deals = play_initial(rules, first_dealer=B)
    assert [d.dealer for d, _, _ in deals] == [B, B, B, C, C, C, A, A, A]
    assert [d.bomb for d, _, _ in deals] == [1, 2, 3] * 3
    assert all(d.bombers == 0b111 and d.phase is Phase.PLAY for d, _, _ in deals)
    assert all(d.auction.calls == () for d, _, _ in deals)
    assert all(f.result is not None and f.result.kind is Kind.RASPASY for _, f, _ in deals)
    assert game.dealer == B and game.deal_number == 9 and game.raspasy_streak == 0
    with pytest.raises(IllegalAction, match="must order the game"):
        start_deal(game, shuffle_from_seed(seed(1), 10))


def test_s000_initial_bombs_variant_2_a_round_of_singles_then_doubles_then_triples() -> None:
    """S000 "Второй вариант": a round of single bombs with the dealer changing, then a round
    of double bombs, then of triple."""
    rules = DEFAULT.with_options(initial_rounds=InitialRounds.BOMBS_BY_ROUND, **TRIPLE)
    game, deals = play_initial(rules, first_dealer=A)
    assert [d.dealer for d, _, _ in deals] == [A, B, C] * 3
    assert [d.bomb for d, _, _ in deals] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert game.dealer == A and awaiting_order(game)


def test_tv26_three_pre_pool_bomb_rounds_make_every_player_a_bomber_nine_times() -> None:
    """TV-26 (S000): "если игроки … условились играть три круга бомб … каждый получил по 9
    бомб" (four players, the dealer sitting out; with three players each holds cards in every
    one of the 9 deals): each seat is a bomber of 9 initial bombs, three of each level."""
    for kind in (InitialRounds.BOMBS_BY_DEALER, InitialRounds.BOMBS_BY_ROUND):
        _, deals = play_initial(DEFAULT.with_options(initial_rounds=kind, **TRIPLE))
        for seat in (A, B, C):
            levels = sorted(d.bomb for d, _, _ in deals if d.bombers >> seat & 1)
            assert levels == [1, 1, 1, 2, 2, 2, 3, 3, 3]


def test_s000_initial_raspasy_rounds_single_then_double() -> None:
    """S000: "Если же принято решение начинать игру с распасов (например, с одинарных и
    двойных), проводятся круги соответствующих распасов (сначала одинарных, а затем
    двойных)": a round of raspasy at the first price of a series (1 a trick), then a round at
    the second (2 a trick), no auction; no bomb. Gora = tricks × price (hand check)."""
    rules = DEFAULT.with_options(
        initial_rounds=InitialRounds.RASPASY,
        initial_levels=2,
        raspasy_trick_prices=(1, 2),
        order_game=True,
    )
    game, deals = play_initial(rules, first_dealer=C)
    assert [d.dealer for d, _, _ in deals] == [C, A, B] * 2
    assert [d.raspasy_streak for d, _, _ in deals] == [0, 0, 0, 1, 1, 1]
    assert all(d.bomb == 0 and d.phase is Phase.PLAY for d, _, _ in deals)
    for dealt, final, score in deals:
        price = 1 if dealt.raspasy_streak == 0 else 2
        assert final.result is not None
        assert score.gora == tuple(t * price for t in final.result.tricks)
    assert game.raspasy_streak == 0  # the pool proper starts a new series


def test_initial_rounds_without_an_order_go_straight_on_to_the_pool() -> None:
    """Initial rounds do not need an order: without ``order_game`` the 7th deal is dealt."""
    rules = DEFAULT.with_options(initial_rounds=InitialRounds.RASPASY, initial_levels=2)
    game = play_game(seed(7), [BOT] * 3, rules, max_deals=7)
    assert [d.final.phase for d in game.deals] == [Phase.SCORED] * 7
    assert [d.final.auction.calls == () for d in game.deals] == [True] * 6 + [False]


def test_s000_simplified_start_agreed_gora_for_everyone() -> None:
    """S000 "с упрощенным началом": "перед началом игры вместо обязательных распасов или бомб
    в гору записывается заранее обусловленное количество очков"."""
    rules = DEFAULT.with_options(initial_rounds=InitialRounds.GORA, initial_gora=10)
    game = new_game(rules, A)
    assert game.sheet.gora == (10, 10, 10)
    assert start_deal(game, shuffle_from_seed(seed(2), 1)).deal is not None


def test_s000_the_largest_gora_orders_ties_to_the_first_hand() -> None:
    """S000: "Игрок, имеющий наибольшее количество очков в горе, заказывает игру". Decision for
    a tie (the seed is silent): the first of the tied from the next deal's first hand."""
    rules = DEFAULT.with_options(
        initial_rounds=InitialRounds.GORA, initial_gora=10, order_game=True
    )
    game = new_game(rules, A)  # A deals first: B is the first hand
    assert awaiting_order(game) and game_orderer(game) == B
    assert game_orderer(new_game(rules, C)) == A
    sheet = game.sheet
    assert game_orderer(game._replace(sheet=sheet._replace(gora=(12, 11, 12)))) == C
    assert game_orderer(game._replace(sheet=sheet._replace(gora=(13, 11, 12)))) == A


def test_the_order_is_the_orderers_decision_validated_by_the_rules_core() -> None:
    rules = DEFAULT.with_options(
        initial_rounds=InitialRounds.GORA, initial_gora=5, order_game=True, ending_by_time=True
    )
    game = new_game(rules, A)
    with pytest.raises(NotYourTurn) as turn:
        order_game(game, A, 50, AT_2300)
    assert turn.value.to_act == B
    for pool in (0, 201, True):
        with pytest.raises(InvalidAction) as bad:
            order_game(game, B, pool, AT_2300)
        assert bad.value.field == "pool"
    with pytest.raises(InvalidAction) as bad:
        order_game(game, B, 50, 0)  # until time: the end time is part of the order
    assert bad.value.field == "end_time"
    ordered = order_game(game, B, 50, AT_2300)
    with pytest.raises(IllegalAction, match="already"):
        order_game(ordered, B, 40, AT_2300)
    untimed = new_game(rules.with_options(ending_by_time=False), A)
    with pytest.raises(InvalidAction):
        order_game(untimed, B, 50, AT_2300)  # no end time in a game not played until time
    assert order_game(untimed, B, 50, 0).order == GameOrder(B, 50, 0)
    with pytest.raises(IllegalAction, match="not ordered"):
        order_game(new_game(DEFAULT), A, 50, 0)


def test_the_order_comes_after_the_initial_rounds_not_before() -> None:
    rules = DEFAULT.with_options(initial_rounds=InitialRounds.BOMBS_BY_ROUND, **TRIPLE)
    game = new_game(rules, A)
    assert not awaiting_order(game)
    with pytest.raises(IllegalAction, match="after the initial rounds"):
        order_game(game, game_orderer(game), 50, 0)


def test_tv26_order_to_50_until_2300() -> None:
    """TV-26 (S000): "он предлагает играть до 50 очков в пулю до 23 часов. Это означает, что для
    закрытия пули каждому нужно набрать 50 очков. После закрытия пули игра должна вестись
    оставшееся до 23 часов время." The order is recorded with its pool length and end time;
    the pool length replaces the agreed 20 (the game's rule set is unchanged); pools at 20
    are not closed; every pool at 50 does not end the game (play until time); time called
    ends it after the deal in progress."""
    rules = DEFAULT.with_options(
        initial_rounds=InitialRounds.RASPASY,
        initial_levels=1,
        order_game=True,
        ending_by_time=True,
        play_until_time=True,
    )
    game, _ = play_initial(rules, first_dealer=A, n=26)
    seat = game_orderer(game)
    first_hand = (game.dealer + 1) % 3
    clockwise = [(first_hand + i) % 3 for i in range(3)]
    assert seat == max(clockwise, key=lambda s: game.sheet.gora[s])
    game = order_game(game, seat, 50, AT_2300)
    assert game.order == GameOrder(seat, 50, AT_2300)
    assert table_rules(game).pool_target == 50 and game.rules.pool_target == 20
    assert not game.sheet._replace(pool=(20, 20, 20)).all_closed(table_rules(game))

    def finished_with(pools: tuple[int, int, int], n: int, called: bool = False) -> bool:
        state = game._replace(sheet=game.sheet._replace(pool=pools))
        state = start_deal(state, shuffle_from_seed(seed(n), state.deal_number + 1))
        assert state.deal is not None and state.deal.rules.pool_target == 50
        if called:
            state = call_time(state)
        deal = state.deal
        assert deal is not None
        final, _ = play_deal(deal, [BOT] * 3)
        return finish_deal(state._replace(deal=final))[0].finished

    assert not finished_with((50, 50, 50), 1)  # the pools are closed: play on until 23:00
    assert finished_with((50, 50, 50), 2, called=True)
    assert finished_with((0, 0, 0), 3, called=True)
    without = rules.with_options(play_until_time=False)
    assert finished_with_rules(game, without, (50, 50, 50), 4)


def finished_with_rules(
    game: GameState, rules: RuleSet, pools: tuple[int, int, int], n: int
) -> bool:
    state = game._replace(rules=rules, sheet=game.sheet._replace(pool=pools))
    state = start_deal(state, shuffle_from_seed(seed(n), state.deal_number + 1))
    deal = state.deal
    assert deal is not None
    final, _ = play_deal(deal, [BOT] * 3)
    return finish_deal(state._replace(deal=final))[0].finished


def test_the_ordered_pool_length_closes_the_pools_and_settles_the_game() -> None:
    """A game ordered to a pool of 4 (through the driver's order) ends when every pool reaches
    4, not 20; its sheet closes at 4 and its settlement sums to zero. Drawn until a game ends
    by its pools within the deals allowed."""
    rules = DEFAULT.with_options(initial_rounds=InitialRounds.GORA, initial_gora=2, order_game=True)
    for n in range(20):
        record = play_game(seed(100 + n), [BOT] * 3, rules, max_deals=60, order=(4, 0))
        if record.finished:
            break
    else:
        pytest.fail("no game closed its pools of 4 in 60 deals")
    assert all(p >= 4 for p in record.sheet.pool) and min(record.sheet.pool) < 20
    assert sum(record.settlement) == 0


def test_options_of_the_start_are_checked_together() -> None:
    bad: list[tuple[str, Callable[[], RuleSet]]] = [
        ("rules.initial_levels", lambda: DEFAULT.with_options(initial_levels=3)),
        (
            "rules.initial_levels",
            lambda: DEFAULT.with_options(initial_rounds=InitialRounds.BOMBS_BY_DEALER),
        ),
        ("rules.initial_gora", lambda: DEFAULT.with_options(initial_rounds=InitialRounds.GORA)),
        ("rules.initial_gora", lambda: DEFAULT.with_options(initial_gora=5)),
        ("rules.play_until_time", lambda: DEFAULT.with_options(play_until_time=True)),
    ]
    for field, make in bad:
        with pytest.raises(InvalidAction) as raised:
            make()
        assert raised.value.field == field
    assert DEFAULT.initial_rounds is InitialRounds.NONE and not DEFAULT.order_game


def test_tv26_robber_not_having_played_a_dark_misere_writes_200_to_gora() -> None:
    """TV-26 / S000 "Разбойник": "не выполнивший данное условие до конца игры пишет за десять
    взятых на мизере – 200 в гору". A plays a dark misère (made: 20 to pool, TV-26); time is
    called. Final sheet: early stop gives missing pool 0 / 20 / 20 to gora, the robber
    0 / 200 / 200: gora 0 / 220 / 220, mean 440/3, at 10 whists a point: A +4400/3, B and C
    −2200/3 each. A light misère does not count."""
    rules = DEFAULT.with_options(robber_gora=200, ending_by_time=True)
    game = start_deal(new_game(rules, C), shuffle_from_seed(seed(9), 1))
    deal = game.deal
    assert deal is not None
    misere = result(Kind.MISERE, A, "misère", (0, 5, 5))

    def played(dark: bool) -> GameState:
        final = deal.with_(phase=Phase.SCORED, to_act=-1, result=misere, dark=dark)
        return finish_deal(call_time(game._replace(deal=final)))[0]

    light = played(False)
    assert light.finished and light.dark_misere_played == 0
    assert robber_penalties(light) == (200, 200, 200)
    dark = played(True)
    assert dark.dark_misere_played == 1 << A and dark.sheet.pool == (20, 0, 0)
    assert robber_penalties(dark) == (0, 200, 200)
    assert game_final_sheet(dark).gora == (0, 220, 220)
    assert settle_game(dark) == (Fraction(4400, 3), Fraction(-2200, 3), Fraction(-2200, 3))
    no_robber = dark._replace(rules=DEFAULT.with_options(ending_by_time=True))
    assert settle_game(no_robber) == (Fraction(400, 3), Fraction(-200, 3), Fraction(-200, 3))


def test_a_driven_classic_game_exports_a_hand_record_that_verifies() -> None:
    """The pure driver's record (``record_from_game``) of a game with initial raspasy rounds,
    an order to a pool of 6 and the Classic ending carries the order and replays consistently
    (initial deals without an auction, the ordered pool length)."""
    rules = DEFAULT.with_options(
        initial_rounds=InitialRounds.RASPASY,
        initial_levels=2,
        raspasy_trick_prices=(1, 2),
        order_game=True,
        classic_ending=True,
    )
    game = play_game(seed(31), [BOT] * 3, rules, max_deals=25, order=(6, 0))
    assert game.order is not None and game.order.pool == 6
    rec = record_from_game(game)
    assert rec["order"] == {"seat": game.order.seat, "pool": 6, "ends_at": 0}
    verdict = verify_record(rec)
    assert verdict.consistent, verdict.message
    assert verdict.deals == len(game.deals) > 6
