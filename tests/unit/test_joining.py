"""A player joining in place of one who leaves (S000 "ПРАВИЛА ДЛЯ ОСОБЫХ СЛУЧАЕВ", RULES.md
§3.4 "Early stop", TV-27; docs/SYSTEMS.md S-13).

The leaver closes his pool, writing the missing points to his gora, and his result is settled
with the others when the game ends; the newcomer starts with the average pool and gora of the
others and no whists. The expected numbers below are computed by hand in the comments.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from domain.bots import make_bot
from domain.rules import (
    DEFAULT,
    Departed,
    GameOver,
    IllegalAction,
    Phase,
    ScoreSheet,
    accounts_sheet,
    actor,
    apply,
    finish_deal,
    new_game,
    replace_player,
    rule_set,
    seat_view,
    settle,
    settle_final,
    shuffle_from_seed,
    start_deal,
)
from domain.rules.game import MAX_REPLACEMENTS, GameState
from domain.rules.recording import Ending
from domain.rules.scoresheet import replace


def sheet(
    pool: tuple[int, ...], gora: tuple[int, ...], whists: dict[tuple[int, int], int]
) -> ScoreSheet:
    rows = tuple(tuple(whists.get((w, t), 0) for t in range(3)) for w in range(3))
    return ScoreSheet(pool, gora, rows)


BEFORE = sheet(
    (12, 6, 8),
    (4, 10, 0),
    {(0, 1): 30, (1, 0): 10, (2, 1): 20, (0, 2): 5},
)


def test_tv27_leaver_writes_missing_pool_to_gora_newcomer_starts_with_the_average() -> None:
    after = replace(BEFORE, 1, DEFAULT)
    # The leaver (seat 1, account 1) had 6 in the pool of 20: he closes it, 14 to gora → 24.
    assert after.departed == (Departed(1, 1, 20, 24, ((0, 10), (2, 0)), ((0, 30), (2, 20))),)
    # The newcomer (account 3): pool (12 + 8) / 2 = 10, gora (4 + 0) / 2 = 2, no whists.
    assert after.pool == (12, 10, 8)
    assert after.gora == (4, 2, 0)
    assert after.whists == ((0, 0, 5), (0, 0, 0), (0, 0, 0))
    assert after.accounts == (0, 3, 2)
    assert after.account_count == 4


def test_tv27_settlement_includes_the_leaver_as_one_more_part_of_the_sheet() -> None:
    after = replace(BEFORE, 1, DEFAULT)
    gora, whists = accounts_sheet(after)
    assert gora == (4, 24, 0, 2)
    assert whists[0] == (0, 30, 5, 0) and whists[1] == (10, 0, 0, 0)
    assert whists[2] == (0, 20, 0, 0) and whists[3] == (0, 0, 0, 0)
    # Average gora (4 + 24 + 0 + 2) / 4 = 7.5; shares 10 × (7.5 − gora): 35, −165, 75, 55.
    # Whists net: account 0 wrote 35, received 10 → +25; account 1 wrote 10, received 50 → −40;
    # account 2 wrote 20, received 5 → +15; the newcomer 0.
    assert settle(after, DEFAULT) == tuple(Fraction(v) for v in (60, -205, 90, 55))


def test_leaver_under_the_sum_of_pools_ending_writes_the_doubled_difference() -> None:
    leningrad = rule_set("leningrad")
    assert leningrad.ending is Ending.POOL_SUM
    target = leningrad.pool_target
    start = sheet((target - 5, target + 3, target), (0, 0, 0), {})
    gone = replace(start, 0, leningrad).departed[0]
    assert gone.gora == 10  # TV-38: 2 × (mean − own pool)
    gone = replace(start, 1, leningrad).departed[0]
    assert gone.gora == -6  # an excess is written off, doubled


def test_second_replacement_keeps_whists_between_accounts_that_left() -> None:
    once = replace(BEFORE, 1, DEFAULT)
    # The newcomer (account 3) and account 0 write whists on each other, then account 0 leaves.
    once = once._replace(whists=((0, 7, 5), (3, 0, 0), (0, 0, 0)))
    twice = replace(once, 0, DEFAULT)
    assert twice.accounts == (4, 3, 2)
    gora, whists = accounts_sheet(twice)
    assert len(gora) == 5
    assert whists[0][1] == 30 and whists[1][0] == 10  # from the first departure
    assert whists[0][3] == 7 and whists[3][0] == 3  # from the second
    assert sum(settle(twice, DEFAULT)) == 0


def _play(game: GameState, seed: bytes, deals: int, replace_at: dict[int, int]) -> GameState:
    """Deal and play with bots; ``replace_at`` maps a deal number to the seat replaced in the
    middle of that deal (after its first decision)."""
    bots = [make_bot(), make_bot(), make_bot()]
    while not game.finished and game.deal_number < deals:
        game = start_deal(game, shuffle_from_seed(seed, game.deal_number + 1))
        deal = game.deal
        assert deal is not None
        first = True
        while deal.phase is not Phase.SCORED:
            seat = actor(deal)
            deal = apply(deal, bots[seat](seat_view(deal, seat)), seat)
            if first and game.deal_number in replace_at:
                game = replace_player(game._replace(deal=deal), replace_at[game.deal_number])
            first = False
        game = finish_deal(game._replace(deal=deal))[0]
    return game


def test_replaced_seat_scores_the_deal_in_progress_on_the_newcomers_account() -> None:
    seed = b"joining-a-game-in-progress"
    two = _play(new_game(DEFAULT), seed, 2, {})
    joined = _play(new_game(DEFAULT), seed, 3, {3: 2})
    # Joining during deal 3 is the same as joining between deals 2 and 3: deal 3 is written
    # on the newcomer's account.
    between = _play(replace_player(two, 2), seed, 3, {})
    assert joined.sheet == between.sheet and joined.deal_number == 3
    gone = joined.sheet.departed[0]
    assert (gone.account, gone.seat, gone.pool) == (2, 2, 20)
    assert gone.gora == two.sheet.gora[2] + 20 - two.sheet.pool[2]
    assert joined.sheet.accounts == (0, 1, 3)
    result = settle_final(joined.sheet, DEFAULT)
    assert len(result) == 4 and sum(result) == 0


def test_replacement_drops_the_leavers_agreement_to_stop() -> None:
    game = start_deal(new_game(DEFAULT), shuffle_from_seed(b"a seed of sixteen bytes", 1))
    game = game._replace(stop_agreed=frozenset({0, 1}))
    assert replace_player(game, 1).stop_agreed == frozenset({0})


def test_replacement_refused_after_the_end_for_a_bad_seat_and_beyond_the_bound() -> None:
    game = new_game(DEFAULT)
    with pytest.raises(IllegalAction):
        replace_player(game, 3)
    with pytest.raises(GameOver):
        replace_player(game._replace(finished=True), 0)
    for i in range(MAX_REPLACEMENTS):
        game = replace_player(game, i % 3)
    with pytest.raises(IllegalAction, match="at most"):
        replace_player(game, 0)
    totals = settle(game.sheet, DEFAULT)
    assert len(totals) == 3 + MAX_REPLACEMENTS and sum(totals, Fraction(0)) == 0


def test_classic_leaver_takes_his_signs_and_the_newcomer_owes_his_own_dark_misere() -> None:
    """Classic (TV-26): bomb signs are the player's ("значок бомбы пишут себе только игроки,
    объявившие бомбу"), and so is the robber's obligation; the ordered pool length is the one
    the leaver closes his pool at."""
    from domain.rules.start import GameOrder

    game = new_game(rule_set("classic"))._replace(
        bomb_signs=((1, 2), (1,), ()),
        dark_misere_played=0b011,
        order=GameOrder(0, 50, 1),
    )
    after = replace_player(game, 0)
    assert after.bomb_signs[0] == () and after.bomb_signs[1] == (1,)
    assert after.dark_misere_played == 0b010
    assert after.sheet.departed[0].gora == 50  # an empty pool of 50 closed into gora


# --- hand records of replacements under Classic (review findings, 2026-12-01) ------------

SEED = bytes(range(32))


def _classic_game(name: str = "classic") -> Any:
    from domain.model import Game
    from tests.unit.game_helpers import created_game

    game: Game = created_game(rule_set(name), 0, SEED)
    game.deal_first(SEED, "create")
    return game


def _step(game: Any) -> None:
    deal = game.state.deal
    seat = actor(deal)
    game.act(seat, make_bot()(seat_view(deal, seat)), f"r{game.version}", SEED)


def _record_verifies(game: Any) -> None:
    from domain.audit import verify
    from domain.handrecord import record_from_events, validate, verify_record

    events = game.collect_events()
    assert verify(str(game.id), events).verified
    verdict = verify_record(validate(record_from_events(events, str(game.id))))
    assert verdict.consistent, verdict.message


def test_classic_replacement_during_a_deal_is_played_on_the_newcomers_signs_in_the_record() -> None:
    """The deal in progress is the newcomer's: its hand-record section holds the signs and
    debts he plays it on (the leaver's left with him, ``bombs.leaves``)."""
    game = _classic_game()
    while game.state.deal_number < 2:
        _step(game)
    assert any(game.state.bomb_signs)
    game.replace_player(2, "newcomer", 1, "rp")
    while game.state.deal_number < 3:
        _step(game)
    _record_verifies(game)


@pytest.mark.parametrize("name", ["classic", "hooligan"])
def test_replacement_during_the_first_ordered_deal_comes_after_the_order_in_the_record(
    name: str,
) -> None:
    """The order deals the first ordered deal at once, so a player who joins during it joins
    after the order: the leaver closes his pool at the ordered length (S-13)."""
    from domain.rules.game import awaiting_order, game_orderer

    game = _classic_game(name)
    while not awaiting_order(game.state):
        _step(game)
    game.order(game_orderer(game.state), 10, 1_796_166_000, "order", SEED)
    number = game.state.deal_number
    game.replace_player(0, "newcomer", 1, "rp")
    assert game.state.sheet.departed[0].pool == 10
    while game.state.deal_number == number:
        _step(game)
    _record_verifies(game)


def test_the_stream_tells_a_dark_declarer_his_hand_with_the_talon_only_he_sees() -> None:
    """A dark game's talon is taken unseen by the others (S000 "получает две карты прикупа
    втемную, не показывая их другим игрокам"): the WatchGame message of the declarer who has
    looked resends his twelve cards (the talon field stays empty for everyone)."""
    from domain.rules import Phase
    from domain.rules.actions import DarkCall, Look, Pass, TakeTalon
    from domain.rules.game import awaiting_order, game_orderer
    from service.api.mapping import Visibility, watch_messages

    game = _classic_game()
    while not awaiting_order(game.state):
        _step(game)
    game.order(game_orderer(game.state), 10, 1_796_166_000, "order", SEED)

    def act(kind: type) -> None:
        deal = game.state.deal
        seat = actor(deal)
        action = next(a for a in seat_view(deal, seat).legal if isinstance(a, kind))
        game.act(seat, action, f"r{game.version}", SEED)

    act(DarkCall)
    while game.state.deal.phase is Phase.BIDDING:
        act(Pass)
    declarer = game.state.deal.declarer
    act(Look)
    game.collect_events()
    before = [Visibility(game, s) for s in range(3)]
    deal_before = game.state.deal
    act(TakeTalon)
    [event] = game.collect_events()
    after = [Visibility(game, s) for s in range(3)]
    messages = watch_messages(event, before, deal_before, game, after)
    mine = {c.seat: len(c.cards) for c in messages[declarer].revealed}
    assert mine == {declarer: 12} and not messages[declarer].talon
    for seat in set(range(3)) - {declarer}:
        assert not messages[seat].revealed and not messages[seat].talon
