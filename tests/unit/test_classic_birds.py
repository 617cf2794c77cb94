"""The simplified Classic variants of seed S000 ("Варианты правил для классики", lines 651 and
653 of seeds/000_*.txt): «Хулиганка» (``rule_set("hooligan")``) and the simplified Classic
without sliding deal (``rule_set("classic-simple")``); docs/SYSTEMS.md A-18, A-19, S-25, S-26.

S000 l.651: "Существует упрощенный вид классики, который играется без бомб. Распасы всегда
одинарные (например, по одному очку за взятку) при скользящей сдаче. Игрок, сказавший “пас”
после того, как двое игроков до него объявили “пас”, ставит «птичку»; остальные ничего не
ставят. Игра на птичке аналогична игре на одинарной бомбе. В остальном – обычные правила.
Имеет особое название: «Хулиганка»."

S000 l.653: "Кроме того, имеется вариант упрощенной классики, в котором сдача не скользящая.
Все игроки при распасах ставят птичку, в том числе и сдатчик. Перед игрой два круга распасов.
Игры втемную нет. До закрытия пули вист полуответственный, после закрытия – ответственный.
Игра кончается списанием горы или по времени."

Deals are driven through the rules core with the players' decisions (``apply``); the play of
the cards is replaced by a claim of the trick split that everyone accepts (the engine's own
claim). Every expected number is computed by hand in the comments. Seats A = 0, B = 1, C = 2.
"""

from __future__ import annotations

import hashlib

import pytest

from domain.audit import verify
from domain.bots import make_bot, order_choice
from domain.handrecord import record_from_events, record_from_game, validate, verify_record
from domain.rules import GameState, InvalidAction, Kind, RuleSet, ScoreSheet, actor, seat_view
from domain.rules.actions import LOOK, PASS
from domain.rules.birds import birds, gora_written_off, third_passer
from domain.rules.bombs import CrossedSign
from domain.rules.game import (
    awaiting_order,
    game_orderer,
    new_game,
    order_game,
    play_game,
    with_game,
)
from domain.rules.recording import Birds, GoraEnding, InitialRounds
from domain.rules.ruleset import RaspasyDealer
from domain.rules.start import GameOrder
from domain.rules.systems import rule_set
from domain.rules.whist_options import WhistLiability
from tests.unit.game_helpers import created_game
from tests.unit.rules_helpers import whists
from tests.unit.test_classic_pulya import scripted

A, B, C = 0, 1, 2
HOOLIGAN = rule_set("hooligan")
SIMPLE = rule_set("classic-simple")
ENDS_AT = 1_800_000_000
"""Any end time (seconds since the epoch): the rules core never reads a clock."""
TAKE = ["take talon", "discard"]


def ordered(game: GameState, pool: int = 20) -> GameState:
    """The largest gora orders the agreed pool, until ``ENDS_AT``."""
    assert awaiting_order(game)
    return order_game(game, game_orderer(game), pool, ENDS_AT)


# --- «Хулиганка» ---------------------------------------------------------------------------


def test_hooligan_is_classic_without_bombs_with_single_raspasy_and_the_sliding_deal() -> None:
    """S000 l.651: "играется без бомб. Распасы всегда одинарные (например, по одному очку за
    взятку) при скользящей сдаче … В остальном – обычные правила" (Classic's dark games,
    games without talon, order and play until time; one initial round of single raspasy,
    S-25)."""
    assert not HOOLIGAN.bombs and HOOLIGAN.dark_bids and HOOLIGAN.dark_misere
    assert HOOLIGAN.birds is Birds.THIRD_PASSER
    assert [HOOLIGAN.raspasy_price(streak) for streak in range(4)] == [1, 1, 1, 1]
    assert HOOLIGAN.raspasy_dealer is RaspasyDealer.SLIDING
    assert HOOLIGAN.initial_rounds is InitialRounds.RASPASY and HOOLIGAN.initial_levels == 1
    assert HOOLIGAN.order_game and HOOLIGAN.play_until_time
    assert HOOLIGAN.gora_ending is GoraEnding.NONE


def hooligan_start() -> GameState:
    """Deals 1-3 of «Хулиганка», C dealing first: one round of single raspasy without an
    auction (1 a trick; nobody says pass, so nobody puts a bird), then the order."""
    game = new_game(HOOLIGAN, first_dealer=C)
    # 1 C deals 5-3-2, 2 A deals 4-4-2, 3 B deals 3-3-4 (no zero: nothing to pool).
    for tricks in ((5, 3, 2), (4, 4, 2), (3, 3, 4)):
        game, scored = scripted(game, [], tricks)
        assert scored.result is not None and scored.result.kind is Kind.RASPASY
        assert scored.auction.calls == () and birds(scored) == 0
    # Gora: A 5+4+3 = 12, B 3+4+3 = 10, C 2+2+4 = 8; no bird yet.
    assert game.sheet == ScoreSheet((0, 0, 0), (12, 10, 8), whists({}))
    assert not any(game.bomb_signs)
    assert game_orderer(game) == A
    return ordered(game)


def test_hooligan_third_passer_puts_a_bird() -> None:
    """S000 l.651: "Игрок, сказавший “пас” после того, как двое игроков до него объявили “пас”,
    ставит «птичку»; остальные ничего не ставят" (A-18). Deal 4: C deals again, A (first
    hand) looks and passes, B looks and passes, C looks and passes: the raspasy (1 a trick)
    and C, the third passer, puts a bird — A and B nothing."""
    game = hooligan_start()
    moves = ["look", "pass"] * 3
    game, scored = scripted(game, moves, (3, 4, 3))
    assert scored.dealer == C and [seat for seat, _ in scored.auction.calls][1::2] == [A, B, C]
    assert scored.result is not None and scored.result.kind is Kind.RASPASY
    assert birds(scored) == 1 << C
    # Gora +3 / +4 / +3 at 1 a trick: A 15, B 14, C 11.
    assert game.sheet == ScoreSheet((0, 0, 0), (15, 14, 11), whists({}))
    assert game.bomb_signs == ((), (), (1,))  # a bird = a single-bomb sign
    # Deal 5 (the deal slides to A): B passes without looking (a pass all the same), C looks
    # and passes, A looks and bids 6♠: no three passes in a row, no bird; A wins the auction.
    game, scored = scripted(
        game, ["pass", "look", "pass", "look", "6♠", *TAKE, "declare 6♠", "pass", "pass"], None
    )
    assert scored.dealer == A and scored.result is not None
    assert scored.result.kind is Kind.PASSED_OUT and birds(scored) == 0
    # A's 6♠ given without play: 2 to his pool. C still owes his bird.
    assert game.sheet == ScoreSheet((2, 0, 0), (15, 14, 11), whists({}))
    assert game.bomb_signs == ((), (), (1,))


def test_hooligan_the_bird_is_the_third_pass_in_a_row() -> None:
    """The rule read on the calls: the third pass in a row (looking is no call); a bid breaks
    the row; no three passes (or no auction at all) → no bird."""
    assert third_passer(((A, PASS), (B, LOOK), (B, PASS), (C, PASS))) == C
    assert third_passer(((B, PASS), (C, PASS), (A, PASS))) == A
    assert third_passer(((A, LOOK), (A, PASS), (B, PASS))) == -1
    assert third_passer(()) == -1


def test_hooligan_bird_plays_like_a_single_bomb() -> None:
    """S000 l.651 "Игра на птичке аналогична игре на одинарной бомбе"; l.623-629 (a single
    bomb): "за шестерную – 4 … если игра сыграна, то играющий закрывает (зачеркивает) бомбу",
    "За подсад и висты пишется по стоимости игры". C got a bird in deal 4; in deal 5 (A
    deals; B first hand) he bids 6♠, declares 6♠, A whists, B passes, A plays open; C takes 6,
    the defence 4 (all the whister's, Sochi). Plain: C 2 to pool, A 4 tricks × 2 = 8 whists on
    C. On the bird ×2: C 4 to pool, A 16 whists on C; the bird is crossed out with the game
    made on it. Deal 6 (B deals; C first hand): C's next 6♠ (made, both pass) is a plain game
    again: 2 to pool."""
    game = hooligan_start()
    game, _ = scripted(game, ["look", "pass"] * 3, (3, 4, 3))
    assert game.bomb_signs == ((), (), (1,))
    moves = ["look", "pass", "look", "6♠", "look", "pass", *TAKE, "declare 6♠"]
    game, scored = scripted(game, [*moves, "whist", "pass", "open"], (0, 4, 6))
    assert scored.dealer == A and scored.declarer == C
    assert game.sheet == ScoreSheet((0, 0, 4), (15, 14, 11), whists({(A, C): 16}))
    assert not any(game.bomb_signs)
    assert game.bomb_signs_crossed == ((), (), (CrossedSign(1, 5, "6♠"),))
    moves = ["look", "6♠", "look", "pass", "look", "pass", *TAKE, "declare 6♠", "pass", "pass"]
    game, scored = scripted(game, moves, None)
    assert scored.dealer == B and scored.declarer == C
    assert game.sheet == ScoreSheet((0, 0, 6), (15, 14, 11), whists({(A, C): 16}))


def test_hooligan_a_failed_game_on_a_bird_leaves_it() -> None:
    """As a bomb sign (S000 l.625 "Если в результате игры игрок подсел, то бомба остается"):
    C on his bird declares 6♠, B and A whist (closed), C takes 5. Plain Sochi: C 1 undertrick
    × 2 = 2 gora; whists 2 per trick: A 3 × 2 = 6 and B 2 × 2 = 4 on C, and each defender's
    consolation for the undertrick, 2 on C. On the bird ×2: C 4 gora, A 16, B 12 on C; the
    bird stays."""
    game = hooligan_start()
    game, _ = scripted(game, ["look", "pass"] * 3, (3, 4, 3))
    moves = ["look", "pass", "look", "6♠", "look", "pass", *TAKE, "declare 6♠", "whist", "whist"]
    game, _ = scripted(game, moves, (3, 2, 5))
    assert game.sheet == ScoreSheet((0, 0, 0), (15, 14, 15), whists({(A, C): 16, (B, C): 12}))
    assert game.bomb_signs == ((), (), (1,)) and game.bomb_signs_crossed == ()


# --- The simplified Classic without sliding deal -------------------------------------------


def test_simple_classic_options() -> None:
    """S000 l.653 "сдача не скользящая … Игры втемную нет. До закрытия пули вист
    полуответственный, после закрытия – ответственный. Игра кончается списанием горы или по
    времени" (S-26: ended when a player has written off his gora, every pool being closed)."""
    assert SIMPLE.raspasy_dealer is RaspasyDealer.STAYS and SIMPLE.raspasy_dealer_limit == 3
    assert not (SIMPLE.bombs or SIMPLE.dark_bids or SIMPLE.dark_misere or SIMPLE.dark_auction)
    assert SIMPLE.whist_liability is WhistLiability.HALF_UNTIL_CLOSED
    assert SIMPLE.birds is Birds.EVERY_RASPASY_PLAYER
    assert SIMPLE.gora_ending is GoraEnding.FIRST and SIMPLE.play_until_time
    assert SIMPLE.ending_by_time and SIMPLE.order_game and not SIMPLE.classic_ending


def simple_start() -> GameState:
    """Deals 1-6 of the simplified Classic, C dealing first: "Перед игрой два круга
    распасов" — two rounds of single raspasy (1 a trick) with the deal passing (the initial
    rounds are no raspasy series, so the non-sliding deal does not hold them)."""
    game = new_game(SIMPLE, first_dealer=C)
    dealers = []
    tricks = [(5, 3, 2), (4, 4, 2), (3, 3, 4), (2, 6, 2), (4, 2, 4), (3, 5, 2)]
    for number, split in enumerate(tricks, start=1):
        game, scored = scripted(game, [], split)
        dealers.append(scored.dealer)
        assert scored.result is not None and scored.result.kind is Kind.RASPASY
        assert birds(scored) == 0b111
        assert game.bomb_signs == ((1,) * number,) * 3
    assert dealers == [C, A, B, C, A, B]
    # Gora: A 5+4+3+2+4+3 = 21, B 3+4+3+6+2+5 = 23, C 2+2+4+2+4+2 = 16 (no zero, no pool).
    assert game.sheet == ScoreSheet((0, 0, 0), (21, 23, 16), whists({}))
    assert game_orderer(game) == B
    return ordered(game)


def test_simple_classic_two_raspasy_rounds_first() -> None:
    """S000 l.653 "Перед игрой два круга распасов": six raspasy deals without an auction,
    both rounds single (1 a trick), then the largest gora (B, 23) orders the game."""
    game = simple_start()
    assert game.order == GameOrder(B, 20, ENDS_AT) and game.deal_number == 6
    assert game.dealer == C  # "сдатчиком опять стал первый игрок"


def test_simple_classic_every_player_birds_on_raspasy_dealer_included() -> None:
    """S000 l.653 "Все игроки при распасах ставят птичку, в том числе и сдатчик" (A-19): six
    birds each after the two initial rounds; deal 7 (C deals, A first hand): all pass, a
    raspasy 4-3-3 at 1 a trick, and every player puts a seventh bird, C the dealer too. The
    deal does not slide: C deals deal 8 as well."""
    game = simple_start()
    game, scored = scripted(game, ["pass", "pass", "pass"], (4, 3, 3))
    assert scored.dealer == C and birds(scored) == 0b111
    assert game.bomb_signs == ((1,) * 7,) * 3
    assert game.sheet == ScoreSheet((0, 0, 0), (25, 26, 19), whists({}))
    assert game.dealer == C
    # Deal 8: A bids 6♠ on his first bird, declares 6♠, both pass: 2 × 2 = 4 to his pool, a
    # bird crossed out; the deal passes to A.
    game, scored = scripted(game, ["6♠", "pass", "pass", *TAKE, "declare 6♠", "pass", "pass"], None)
    assert scored.dealer == C and game.dealer == A
    assert game.sheet == ScoreSheet((4, 0, 0), (25, 26, 19), whists({}))
    assert game.bomb_signs == ((1,) * 6, (1,) * 7, (1,) * 7)


def end_game(ending: GoraEnding) -> GameState:
    """A simplified Classic game ordered to pool 20 after its initial rounds with every pool
    closed (20/20/20) and gora A 4, B 30, C 12; C deals next."""
    rules = SIMPLE.with_options(gora_ending=ending)
    game = new_game(rules, first_dealer=C)
    sheet = ScoreSheet((20, 20, 20), (4, 30, 12), whists({}))
    return game._replace(deal_number=6, order=GameOrder(B, 20, ENDS_AT), sheet=sheet)


def test_simple_classic_ends_by_writing_off_gora() -> None:
    """S000 l.653 "Игра кончается списанием горы или по времени" (S-26): with every pool closed
    the game goes on (play until time), a won game's points being written off the winner's
    gora (S000 l.223 "оставшееся после закрытия пули он списывает с горы"); when a player has
    written off his gora, the game ends. A (gora 4) bids 6♠, declares 7♠, both pass: 4 points,
    nobody to help, off his gora: 4 − 4 = 0 — the game ends."""
    game = end_game(GoraEnding.FIRST)
    assert not game.finished and not gora_written_off(game.sheet, game.rules)
    moves = ["6♠", "pass", "pass", *TAKE, "declare 7♠", "pass", "pass"]
    game, scored = scripted(game, moves, None)
    assert scored.declarer == A and game.sheet.gora == (0, 30, 12)
    assert game.finished and not game.time_called


def test_simple_classic_all_gora_ending_option_waits_for_every_gora() -> None:
    """The alternative reading (``gora_ending="all"``): the game ends only when every gora is
    written off; the same deal leaves B's and C's gora, so play goes on."""
    game = end_game(GoraEnding.ALL)
    moves = ["6♠", "pass", "pass", *TAKE, "declare 7♠", "pass", "pass"]
    game, _ = scripted(game, moves, None)
    assert game.sheet.gora == (0, 30, 12) and not game.finished
    assert gora_written_off(ScoreSheet((20, 20, 20), (0, 0, 0), whists({})), game.rules)


def test_simple_classic_no_gora_ending_while_a_pool_is_open() -> None:
    """Writing off gora ends the game only once every pool is closed: A with no gora and an
    open pool of C's does not end it."""
    rules = SIMPLE
    assert not gora_written_off(ScoreSheet((20, 20, 18), (0, 30, 12), whists({})), rules)
    assert gora_written_off(ScoreSheet((20, 20, 20), (0, 30, 12), whists({})), rules)


def test_simple_classic_half_responsible_whist_until_a_pool_closes() -> None:
    """S000 l.653 "До закрытия пули вист полуответственный, после закрытия – ответственный"
    (``half-until-closed``, whist's W-20). After the initial rounds no pool is closed: A (H1)
    bids 6♠, declares it, B whists, C passes, B plays open, A takes 7 and B 3, one short of
    the single whister's four: half-responsible, half the whist price, 1 to gora (responsible:
    2). Whists: B 3 × 2 = 6 on A; A 2 to pool. A plays on his first bird (he has six): all
    ×2 — A 4 to pool, B 2 to gora, 12 whists on A; a bird crossed out."""
    game = simple_start()
    moves = ["6♠", "pass", "pass", *TAKE, "declare 6♠", "whist", "pass", "open"]
    game, _ = scripted(game, moves, (7, 3, 0))
    assert game.sheet == ScoreSheet((4, 0, 0), (21, 25, 16), whists({(B, A): 12}))
    assert game.bomb_signs == ((1,) * 5, (1,) * 6, (1,) * 6)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"bombs": True, "birds": "third-passer"}, "rules.birds"),
        ({"gora_ending": "first"}, "rules.gora_ending"),
    ],
)
def test_bird_options_are_checked(options: dict[str, object], field: str) -> None:
    """Birds are played without bombs; the gora ending needs a game that goes on after its
    pools close (``play_until_time``)."""
    with pytest.raises(InvalidAction) as caught:
        RuleSet.from_dict(options)
    assert caught.value.field == field


def test_bird_options_round_trip() -> None:
    for rules in (HOOLIGAN, SIMPLE):
        assert RuleSet.from_dict(rules.to_dict()) == rules


# --- bot games through the aggregate and the audit -----------------------------------------

BOT = make_bot()


@pytest.mark.parametrize("system", ["hooligan", "classic-simple"])
def test_bot_games_with_birds_replay_through_the_audit(system: str) -> None:
    """Bots play the system through the ``Game`` aggregate (the orderer orders with the bots'
    ``order_choice``), drawn with fresh seeds until a bird has been put and a game played on a
    bird; the events are verified by the audit (the birds follow from the recorded decisions)
    and the game's hand record verifies."""
    rules = rule_set(system)
    bird, crossed = False, False
    for n in range(40):
        seed = hashlib.sha256(f"birds/{system}/{n}".encode()).digest()
        game = created_game(rules, n % 3, seed)
        game.deal_first(seed, "create")
        step = 0
        while not game.finished and game.state.deal_number <= 30:
            step += 1
            if awaiting_order(game.state):
                seat = game_orderer(game.state)
                pool = order_choice(rules, game.state.sheet, seat)
                game.order(seat, pool, ENDS_AT, f"o{step}", seed)
                continue
            deal = game.state.deal
            assert deal is not None
            seat = actor(deal)
            game.act(seat, BOT(with_game(seat_view(deal, seat), game.state)), f"r{step}", seed)
        bird = bird or any(game.state.bomb_signs)
        crossed = crossed or any(game.state.bomb_signs_crossed)
        events = game.collect_events()
        report = verify(str(game.id), events)
        assert report.verified, report.summary
        verdict = verify_record(validate(record_from_events(events, str(game.id))))
        assert verdict.consistent, verdict.message
        if bird and crossed:
            break
    assert bird and crossed, (bird, crossed)


@pytest.mark.parametrize("system", ["hooligan", "classic-simple"])
def test_driver_games_with_birds_export_and_verify_hand_records(system: str) -> None:
    """The pure driver's games (``play_game``) as hand records: the birds owed before each deal
    are written and re-derived by ``verify_record``."""
    rules = rule_set(system)
    seed = hashlib.sha256(f"birds-driver/{system}".encode()).digest()
    game = play_game(seed, [BOT] * 3, rules, max_deals=40)  # stopped, not over
    assert any(d.final.result is not None and birds(d.final) for d in game.deals)
    verdict = verify_record(validate(record_from_game(game)))
    assert verdict.consistent, verdict.message
