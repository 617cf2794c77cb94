"""A whole hand-computed Classic pulya (issue 12, "Tests that must exist"; RULES.md §3.5
"Classic", TV-26; seed S000 "КЛАССИКА", lines 563-661 of seeds/000_*.txt).

The game is ``rule_set("classic")`` as it is — nothing shortened: three rounds of bombs by the
same dealer before the pool (S000 l.583 "Первый вариант"), the largest gora orders the pool
length and the end time (l.589, ``GameOrdered``), then the pool proper, played on past the
closing of the pools (l.633) until time is called. Every deal is driven through the rules
core with the players' own decisions (``apply``: looking, bombs, dark and no-talon bids,
taking the talon, discarding, declaring, whisting); only the play of the cards is replaced by
a claim of the trick split (all accept), because the cards do not change the score. The deal
is then written by the game driver (``finish_deal``: scoring, bomb signs, pool closing and
help, the dealer, the raspasy and bomb series) and the game is settled by ``settle_game``.

Every number asserted below was computed by hand in the comments from the rules (RULES.md
§1.6-1.11 for Sochi's recording, which Classic keeps — S000 l.567, l.633 — and the Classic
rules of S000 with the decisions of docs/SYSTEMS.md), before the test was run; the code under
test never computes an expected value.

Seats A = 0, B = 1, C = 2. C deals first, so A is the first hand (H1) of deal 1. V is the pool
value of a contract (2/4/6/8/10), f the factor of a game: 2^level of the declarer's first
bomb sign (single ×2, double ×4, triple ×8; l.623, l.629), times 2 for a dark game (l.615).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from domain.audit import verify
from domain.handrecord import record_from_events, verify_record
from domain.model import Game
from domain.model.codec import settlement_to_strings
from domain.model.decisions import event_name
from domain.rules import (
    Action,
    DealState,
    GameState,
    Kind,
    Phase,
    RuleSet,
    ScoreSheet,
    actor,
    apply,
    legal_actions,
    parse_action,
    seed_commitment,
)
from domain.rules.actions import ACCEPT, Claim, Discard
from domain.rules.bombs import CrossedSign
from domain.rules.dealing import Shuffle
from domain.rules.game import (
    awaiting_order,
    call_time,
    finish_deal,
    game_final_sheet,
    game_orderer,
    new_game,
    order_game,
    settle_game,
    start_deal,
    table_rules,
)
from domain.rules.start import GameOrder
from domain.rules.systems import rule_set
from tests.unit.rules_helpers import whists

A, B, C = 0, 1, 2
CLASSIC = rule_set("classic")
SEED = b"\x5c" * 32
"""The service's seed for the same pulya through the game aggregate."""
SHUFFLE = Shuffle(tuple(range(32)), 5)
"""Any deal: the cards only decide which discards are legal; the tricks are claimed."""
AT_2300 = int(datetime(2026, 12, 1, 23, 0, tzinfo=UTC).timestamp())
"""S000 l.589 "до 23 часов", as the order records it (seconds since the epoch, UTC)."""
DISCARD = "discard"
"""In a script: the first legal discard (which two cards go does not change the score)."""
SINGLES = (1, 2, 3) * 3
"""Every seat's signs after the three initial rounds by the same dealer (TV-26 "по 9 бомб")."""
INITIAL = [
    (5, 5, 0),
    (4, 3, 3),
    (2, 3, 5),
    (3, 6, 1),
    (0, 4, 6),
    (3, 3, 4),
    (6, 2, 2),
    (2, 2, 6),
    (4, 4, 2),
]
"""The tricks (A, B, C) of the nine initial bombs (deals 1-9), priced in the test."""
TAKE = ["take talon", DISCARD]
LIGHT_SIX = ["look", "6♠", "look", "pass", "look", "pass", *TAKE]
"""H1 looks and bids 6♠, the others look and pass; H1 takes the talon and discards."""
POOL: dict[int, tuple[list[str], tuple[int, int, int] | None]] = {
    10: (["bomb", "bomb", "look", "pass"], (3, 5, 2)),
    11: (["look", "pass", "bomb", "bomb"], (2, 8, 0)),
    12: (["look", "pass"] * 3, (0, 6, 4)),
    13: (["6♠ dark", "pass", "pass", *TAKE, "declare 6♠", "whist", "whist"], (7, 2, 1)),
    14: (
        ["look", "6♠ without talon", "look", "pass", "pass", "declare 7♥", "whist", "pass", "open"],
        (1, 7, 2),
    ),
    15: (["misère dark", "pass", "pass", *TAKE, "declare misère"], (5, 5, 0)),
    16: ([*LIGHT_SIX, "declare 7♦", "whist", "whist"], (6, 2, 2)),
    17: ([*LIGHT_SIX, "declare 6♥", "pass", "half-whist", "pass"], None),
    18: (["6♠ dark", "pass", "pass", *TAKE, "declare 7♠", "whist", "pass", "open"], (2, 1, 7)),
    19: (["bomb", "look", "7♠", "look", "pass", *TAKE, "declare 7♠", "pass", "pass"], None),
}
"""The decisions of deals 10-19 (the pool), each seat in turn, and the claimed tricks (A, B,
C); ``None``: the deal ends without play. The prices are worked out in the test."""
TIME_UP = (19, "take talon")
"""Time is called in deal 19, just before the talon is taken (it is past 23:00)."""


def step(state: DealState, move: str) -> Action:
    """The action ``move`` names in ``state``."""
    if move == DISCARD:
        return next(a for a in legal_actions(state) if isinstance(a, Discard))
    return parse_action(move)


def claim(state: DealState, tricks: tuple[int, int, int]) -> DealState:
    """The player to act claims the split (each seat's tricks); everybody else accepts."""
    assert state.phase is Phase.PLAY, state.phase
    state = apply(state, Claim(tricks), actor(state))
    while state.phase is Phase.CLAIM:
        state = apply(state, ACCEPT, actor(state))
    return state


def deal(game: GameState, number: int) -> tuple[GameState, DealState]:
    """Deal ``number`` of the script (``INITIAL`` or ``POOL``); time is called before the move
    ``TIME_UP`` names. Returns the game after the deal and the deal as scored."""
    moves, tricks = POOL[number] if number in POOL else ([], INITIAL[number - 1])
    assert game.deal_number + 1 == number
    time_up = TIME_UP[1] if TIME_UP[0] == number else ""
    return scripted(game, moves, tricks, time_up=time_up)


def scripted(
    game: GameState,
    moves: list[str],
    tricks: tuple[int, int, int] | None,
    *,
    time_up: str = "",
) -> tuple[GameState, DealState]:
    """Deal (``SHUFFLE``), make the decisions ``moves`` (each by the seat to act), claim
    ``tricks`` (``None``: the deal ends without play) and write the deal with the game driver.
    Time is called (``call_time``) just before the move ``time_up``, if one is named."""
    game = start_deal(game, SHUFFLE)
    state = game.deal
    assert state is not None
    for move in moves:
        if move == time_up:
            game = call_time(game._replace(deal=state))
            assert not game.finished, "the deal in progress is played to its end"
        state = apply(state, step(state, move), actor(state))
    if tricks is not None:
        state = claim(state, tricks)
    assert state.phase is Phase.SCORED and state.result is not None
    game, _, _ = finish_deal(game._replace(deal=state))
    return game, state


def test_classic_pulya_from_the_bomb_rounds_to_the_time() -> None:
    """Nineteen deals of ``rule_set("classic")``, each sheet written out by hand."""
    game = new_game(CLASSIC, first_dealer=C)

    # --- The initial rounds (S000 l.579-587, "Первый вариант"): nine bombs without an auction,
    # every seat a bomber (3 players: nobody sits on the talon). C deals the single, the double
    # and the triple, then A, then B. Gora per trick 2 / 4 / 8 (l.579, TV-26); a player with no
    # trick writes the bomb's price to pool ("за невзятие взяток на бомбах … пишут в пулю").
    #  1 C single (2) 5-5-0: A 10, B 10 gora; C's zero: 2 to pool.
    #  2 C double (4) 4-3-3: A 16, B 12, C 12.
    #  3 C triple (8) 2-3-5: A 16, B 24, C 40.
    #  4 A single (2) 3-6-1: A 6, B 12, C 2.
    #  5 A double (4) 0-4-6: A's zero: 4 to pool; B 16, C 24.
    #  6 A triple (8) 3-3-4: A 24, B 24, C 32.
    #  7 B single (2) 6-2-2: A 12, B 4, C 4.
    #  8 B double (4) 2-2-6: A 8, B 8, C 24.
    #  9 B triple (8) 4-4-2: A 32, B 32, C 16.
    dealers, levels = [], []
    for number in range(1, 10):
        assert not awaiting_order(game)
        game, scored = deal(game, number)
        dealers.append(scored.dealer)
        levels.append(scored.bomb)
        assert scored.bombers == 0b111 and scored.auction.calls == ()
        assert scored.result is not None and scored.result.kind is Kind.RASPASY
    assert dealers == [C, C, C, A, A, A, B, B, B]
    assert levels == [1, 2, 3] * 3
    # Gora: A 10+16+16+6+0+24+12+8+32 = 124; B 10+12+24+12+16+24+4+8+32 = 142;
    # C 0+12+40+2+24+32+4+24+16 = 154. Pools: A 4, C 2.
    assert game.sheet == ScoreSheet((4, 0, 2), (124, 142, 154), whists({}))
    # "каждый получил по 9 бомб … записывают бомбы строго по порядку" (l.593): 1 2 3 three times.
    assert game.bomb_signs == (SINGLES, SINGLES, SINGLES)

    # --- The order (l.589): "сдатчиком опять стал первый игрок" (C deals again); the largest
    # gora, C's 154, orders: a pool to 24 (instead of the agreed 20) until 23:00.
    assert game.dealer == C and awaiting_order(game) and game_orderer(game) == C
    game = order_game(game, C, 24, AT_2300)
    assert game.order == GameOrder(C, 24, AT_2300)
    assert table_rules(game).pool_target == 24

    # 10 (dealer C; A H1, B H2, C H3) A "бомба", B joins ("бомба"), C looks and passes: a
    # single bomb (the deal before was no bomb of the pool), 2 a trick: 3-5-2 → A 6, B 10, C 4.
    # Signs only to A and B: "Посмотревший в карты и сказавший “пас” этого значка не ставит".
    game, scored = deal(game, 10)
    assert (scored.dealer, scored.bomb, scored.bombers) == (C, 1, 0b011)
    assert game.sheet.gora == (130, 152, 158)
    assert game.bomb_signs == ((*SINGLES, 1), (*SINGLES, 1), SINGLES)

    # 11 (dealer A; B H1, C H2, A H3) B looks and passes; C, who passed on deal 10, says "бомба"
    # now and A joins: the second bomb in a row is double (4 a trick), and C gets only the
    # double sign ("на первом круге … “пас”, а на втором “бомба”, то он записывает себе за
    # двойную бомбу, не записывая одинарной", l.609). 2-8-0: A 8, B 32 gora; C's zero: 4 to pool.
    game, scored = deal(game, 11)
    assert (scored.dealer, scored.bomb, scored.bombers) == (A, 2, 0b101)
    assert game.sheet.pool == (4, 0, 6) and game.sheet.gora == (138, 184, 158)
    assert game.bomb_signs == ((*SINGLES, 1, 2), (*SINGLES, 1), (*SINGLES, 2))

    # 12 (dealer B; C H1, A H2, B H3) everyone looks and passes: after a played bomb "обычные
    # одинарные распасы" (l.609): Sochi's first raspasy price, 1 a trick. 0-6-4: B 6, C 4; A's
    # zero writes one trick's price, 1, to pool (Sochi). No bomb, so nobody gets a sign.
    game, scored = deal(game, 12)
    assert (scored.dealer, scored.bomb, scored.bombers) == (B, 0, 0)
    assert game.sheet.pool == (5, 0, 6) and game.sheet.gora == (138, 190, 162)
    assert game.raspasy_streak == 1 and game.bomb_streak == 0

    # 13 (dealer C; A H1) A "6♠ втемную" without looking; B and C pass without looking. A takes
    # the talon unseen and declares 6♠, the level he won: both must whist (l.613) and the game
    # is dark. A plays on his first sign, a single: f = 2 (single) × 2 (dark) = 4.
    # 7-2-1: A made: V × f = 2 × 4 = 8 to pool (5 → 13). Whists per trick V × f = 8: B 2 × 8 =
    # 16, C 1 × 8 = 8 on A. The defence took 3 of its 4 (six): C, below his 2, pays (2 − 1) ×
    # V × f = 8 gora ("за подсад и висты пишется по стоимости игры", l.629). A's single is
    # crossed out with the 6 written over it (l.623).
    game, scored = deal(game, 13)
    assert scored.dark and scored.whist.open is False
    assert game.sheet.pool == (13, 0, 6) and game.sheet.gora == (138, 190, 170)
    assert game.sheet.whists == whists({(B, A): 16, (C, A): 8})
    assert game.bomb_signs[A] == (*SINGLES[1:], 1, 2)
    assert game.bomb_signs_crossed[A] == (CrossedSign(1, 13, "6♠"),)

    # 14 (dealer A; B H1, C H2, A H3) B looks and bids a six without talon (the ladder is
    # sequential); C looks and passes; A passes without looking. B declares 7♥ (at least his
    # bid; the talon is put aside). A game without talon is priced as any game (the seed gives
    # no other price). C, the first defender, whists and defends open; A passes. B on his
    # single: f = 2. B takes 7, C 2, A 1 (D = 3 ≥ the norm 2): B V × f = 4 × 2 = 8 to pool
    # (0 → 8); the lone whister writes D × V × f = 3 × 8 = 24 on B; the passer nothing (made).
    # B's single crossed out.
    game, scored = deal(game, 14)
    assert scored.no_talon and not scored.dark
    assert game.sheet.pool == (13, 8, 6) and game.sheet.gora == (138, 190, 170)
    assert game.sheet.whists == whists({(B, A): 16, (C, A): 8, (C, B): 24})
    assert game.bomb_signs[B] == (*SINGLES[1:], 1)
    assert game.bomb_signs_crossed[B] == (CrossedSign(1, 14, "7♥"),)

    # 15 (dealer B; C H1) C "мизер втемную"; A and B pass without looking. C takes the talon
    # unseen; the dark misère is played closed (l.619). Made: 20, on C's single ×2 = 40 points.
    # C's pool 6 → 24 takes 18; 22 help the largest pool not closed: A's 13 → 24 takes 11 (C
    # writes 10 × 11 = 110 whists on A), then B's 8 → 19 takes 11 (110 whists on B).
    game, scored = deal(game, 15)
    assert scored.dark and scored.contract is not None and scored.contract.is_misere
    assert game.sheet.pool == (24, 19, 24) and game.sheet.gora == (138, 190, 170)
    assert game.sheet.whists == whists({(B, A): 16, (C, A): 8 + 110, (C, B): 24 + 110})
    assert game.bomb_signs[C] == (*SINGLES[1:], 2)
    assert game.bomb_signs_crossed[C] == (CrossedSign(1, 15, "misère"),)
    assert game.dark_misere_played == 1 << C
    assert not game.finished

    # 16 (dealer C; A H1) A looks and bids 6♠; B and C look and pass. A takes the talon and
    # declares 7♦; B and C whist. A plays on his double (his single is crossed): f = 4. He
    # takes 6, one down (U = 1), B 2, C 2. A gora U × V × f = 1 × 4 × 4 = 16 (138 → 154); each
    # whister (tricks + U) × V × f = 3 × 16 = 48 on A: B→A 16 + 48 = 64, C→A 118 + 48 = 166.
    # Failed: the double stays ("Если в результате игры игрок подсел, то бомба остается").
    game, scored = deal(game, 16)
    assert game.sheet.gora == (154, 190, 170)
    assert game.sheet.whists == whists({(B, A): 64, (C, A): 166, (C, B): 134})
    assert game.bomb_signs[A] == (*SINGLES[1:], 1, 2) and len(game.bomb_signs_crossed[A]) == 1

    # 17 (dealer A; B H1) B looks, 6♠; C and A look and pass; B declares 6♥; C (first
    # defender) passes, A half-whists, C does not return the whist (passes again): no play
    # (§1.6 4). B on his double: f = 4. B writes V × f = 8: 19 → 24 takes 5 and every pool is
    # closed, so the 3 left come off his own gora (190 → 187). The half-whister writes half
    # the norm, 2 tricks × V × f = 2 × 2 × 4 = 16 on B. A half-whist counts as made: B's
    # double is crossed out. The pools are closed, the game goes on (played until time, l.633).
    game, scored = deal(game, 17)
    assert scored.result is not None and scored.result.kind is Kind.HALF_WHIST
    assert game.sheet.pool == (24, 24, 24) and game.sheet.gora == (154, 187, 170)
    assert game.sheet.whists[A][B] == 16
    assert game.bomb_signs_crossed[B][-1] == CrossedSign(2, 17, "6♥")
    assert not game.finished

    # 18 (dealer B; C H1) TV-26 (l.629): "играющий на двойной бомбе пику втемную при
    # назначении семерной получает 4х2х4=32 очка". C "6♠ втемную"; A and B pass without
    # looking; C takes the talon unseen and declares 7♠, one level above his bid: whisting is
    # as usual (l.613) and the game stays dark. On his double: f = 4 × 2 = 8, V × f = 32. A
    # (first defender) whists, B passes; A defends open. C takes 7, A and B 3: A writes D × V
    # × f = 3 × 4 × 8 = 96 on C. Every pool is closed: the 32 come off C's gora (170 → 138).
    # C's double crossed out.
    game, scored = deal(game, 18)
    assert scored.dark
    assert game.sheet.gora == (154, 187, 138) and game.sheet.whists[A][C] == 96
    assert game.bomb_signs_crossed[C][-1] == CrossedSign(2, 18, "7♠")
    assert not game.finished

    # 19 (dealer C; A H1) A says "бомба"; B looks and beats it with a seven ("Объявленная бомба
    # перебивается семерной", l.607); C looks and passes. "Когда бомбу перебили … семерной, ее
    # не записывают" (l.609): A gets no sign. It is past 23:00: time is called as B takes the
    # talon (the service calls it when a seat acts after the ordered end time); the deal is
    # played to its end and ends the game. B declares 7♠, C and A pass: given, made. B on his
    # triple: f = 8, V × f = 32, off his gora (187 → 155) as every pool is closed; B's triple
    # crossed out.
    game, scored = deal(game, 19)
    assert scored.result is not None and scored.result.kind is Kind.PASSED_OUT
    assert scored.bombers == 0
    assert game.finished and game.time_called
    assert game.bomb_signs == (
        (*SINGLES[1:], 1, 2),
        (*SINGLES[3:], 1),
        (*SINGLES[2:], 2),
    )
    assert game.bomb_signs_crossed == (
        (CrossedSign(1, 13, "6♠"),),
        (CrossedSign(1, 14, "7♥"), CrossedSign(2, 17, "6♥"), CrossedSign(3, 19, "7♠")),
        (CrossedSign(1, 15, "misère"), CrossedSign(2, 18, "7♠")),
    )

    # The end: pools 24/24/24, gora 154/155/138; whists A→B 16, A→C 96, B→A 64, C→A 166,
    # C→B 134. Time: every pool is closed, so nothing is missing to add to gora (§1.11 early
    # stop); no robber (not a Classic default).
    assert game.sheet == END and game_final_sheet(game) == END
    assert settle_game(game) == SETTLEMENT


END = ScoreSheet(
    (24, 24, 24),
    (154, 155, 138),
    whists({(A, B): 16, (A, C): 96, (B, A): 64, (C, A): 166, (C, B): 134}),
)
SETTLEMENT = (Fraction(-168), Fraction(-146), Fraction(314))
"""Mean gora 447 / 3 = 149. A 10 × (149 − 154) + (16 + 96) − (64 + 166) = −168;
B 10 × (149 − 155) + 64 − (16 + 134) = −146; C 10 × (149 − 138) + (166 + 134) − 96 = 314."""


def created(rules: RuleSet, first_dealer: int) -> Game:
    """A new game aggregate as the service creates it (cards from ``SEED``)."""
    game = Game._create(
        Game.Created,
        id=uuid.uuid4(),
        seat=-1,
        request_id="create",
        players=["a", "b", "c"],
        rules=rules.to_dict(),
        league="",
        seed_commitment=seed_commitment(SEED),
        token_hashes=["", "", ""],
        first_dealer=first_dealer,
    )
    game.deal_first(SEED, "create")
    return game


def test_the_classic_pulya_as_recorded_events_is_replayed_audited_and_exported() -> None:
    """The same nineteen deals through the game aggregate (other cards: the service's seed;
    the decisions and the tricks are the same, so is every number): ``GameOrdered`` after the
    nine bombs, the decisions as their own events (``BombDeclared``, ``BombJoined``,
    ``CardsLooked``, ``DarkBidCalled``, ``NoTalonBidCalled``), ``TimeCalled`` recorded by the
    service's ``time_up`` before the decision that found 23:00 passed, and the game finished
    after deal 19 with the hand-computed sheet and settlement. The events replay to the same
    state, the audit verifies them, and the hand record of the game verifies."""
    game = created(CLASSIC, C)
    n = 0
    for number in range(1, 20):
        if awaiting_order(game.state):
            assert number == 10 and game_orderer(game.state) == C
            game.order(C, 24, AT_2300, "order", SEED)
        moves, tricks = POOL[number] if number in POOL else ([], INITIAL[number - 1])
        assert game.state.deal_number == number
        for move in moves:
            state = game.state.deal
            assert state is not None
            n += 1
            game.act(actor(state), step(state, move), f"r{n}", SEED, (number, move) == TIME_UP)
        if tricks is not None:
            state = game.state.deal
            assert state is not None
            n += 1
            game.act(actor(state), Claim(tricks), f"r{n}", SEED)
            while (state := game.state.deal) is not None and state.phase is Phase.CLAIM:
                n += 1
                game.act(actor(state), ACCEPT, f"r{n}", SEED)
    assert game.finished and game.state.time_called
    assert game.state.sheet == END
    assert game.settlement == settlement_to_strings(SETTLEMENT)

    events = game.collect_events()
    names = [event_name(e) for e in events]
    for name in ("BombDeclared", "BombJoined", "CardsLooked", "DarkBidCalled", "NoTalonBidCalled"):
        assert name in names, name
    assert names.count("GameOrdered") == names.count("TimeCalled") == 1
    assert names[-2:] == ["DealScored", "GameFinished"]
    replayed: Any = None
    for event in events:
        replayed = event.mutate(replayed)
    assert isinstance(replayed, Game) and replayed.state == game.state
    report = verify(str(game.id), events)
    assert report.verified, report.summary
    rec = record_from_events(events)
    assert rec["order"] == {"seat": C, "pool": 24, "ends_at": AT_2300}
    assert rec["stopped"] == "time" and rec["complete"]
    checked = verify_record(rec)
    assert checked.consistent, checked.message
