"""The bots under Classic (issue 12: "bots … must bid dark and call bombs sensibly"; S000
"КЛАССИКА": "Бомба", "Игры на взятие втемную", games without talon, the order of the game).

A bot that has not looked decides a bomb or a dark six from the public part of its view only
(the calls, the level a bomb would have, the sheet and the bomb signs): the named cases below
check that it does so in suitable situations and not in unsuitable ones (heuristic:
domain/bots/classic.py, notes/cbots.md). The statistics test plays whole Classic games of bots
from fixed seeds and checks that bombs, dark games and games without talon all occur, and that
those games verify through their hand records and, played through the ``Game`` aggregate,
through the audit of their events.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from domain.audit import verify
from domain.bots import make_bot, order_choice
from domain.bots.classic import BEHIND, SIX_DARK, deficit, no_talon_call
from domain.handrecord import record_from_events, record_from_game, validate, verify_record
from domain.rules import (
    Action,
    Bid,
    DealRecord,
    Phase,
    ScoreSheet,
    actor,
    awaiting_order,
    game_orderer,
    play_game,
    seat_view,
    with_game,
)
from domain.rules.actions import BOMB, LOOK, PASS, TAKE_TALON, WHIST, Bomb, Call, NoTalonCall
from domain.rules.bids import MISERE, Strain
from domain.rules.state import DealState
from domain.rules.systems import rule_set
from domain.rules.view import SeatView
from tests.unit.game_helpers import created_game
from tests.unit.rules_helpers import SAMPLE, A, B, C, act, deal
from tests.unit.rules_helpers import cards as cards_of

CLASSIC = rule_set("classic")
BOT = make_bot()


def classic_deal(*, streak: int = 0, bomb_streak: int = 0) -> DealState:
    """The SAMPLE deal under Classic, dealt by C: A is the first hand, nobody has looked."""
    state = deal(*SAMPLE, rules=CLASSIC, streak=streak)
    return state.with_(bomb_streak=bomb_streak)


def sheet(gora: tuple[int, int, int], pool: tuple[int, int, int] = (10, 10, 10)) -> ScoreSheet:
    """A sheet with ``gora`` (by default half of every pool of 20 written: not early)."""
    return ScoreSheet.empty()._replace(pool=pool, gora=gora)


def view_of(
    state: DealState,
    seat: int,
    table: ScoreSheet | None = None,
    signs: tuple[tuple[int, ...], ...] = (),
) -> SeatView:
    """``seat``'s view with the public game context a game gives (pool length 20)."""
    view = seat_view(state, seat)
    if table is None:
        return view
    return view._replace(sheet=table, bomb_signs=signs, pool_target=20)


FAR_BEHIND_A = sheet(gora=(40, 10, 10))
"""A has 30 points more gora than B and C: 300 whists behind."""
EVEN = sheet(gora=(10, 10, 10))
FAR_AHEAD_A = sheet(gora=(0, 30, 30))


# --- bombs -----------------------------------------------------------------------------------


def test_bot_far_behind_declares_a_single_bomb_without_looking() -> None:
    """S000 "Бомба": a gamble taken blind; the bot takes it when far behind on the sheet."""
    view = view_of(classic_deal(), A, FAR_BEHIND_A)
    assert view.hand == 0 and view.bomb_call == 1  # it sees no card: only the sheet
    assert deficit(view) >= BEHIND
    assert BOT(view) == BOMB


def test_bot_even_or_ahead_or_without_a_sheet_does_not_declare_a_bomb() -> None:
    for table in (EVEN, FAR_AHEAD_A, None):
        assert BOT(view_of(classic_deal(), A, table)) == LOOK


def test_bot_never_declares_a_triple_bomb() -> None:
    """A triple bomb costs 8 a trick and gives a ×8 sign: too dear a gamble, however far
    behind (S000: double and triple bombs come on the following rounds)."""
    state = classic_deal(bomb_streak=2)
    view = view_of(state, A, sheet(gora=(200, 0, 0), pool=(10, 10, 10)))
    assert view.bomb_call == 3 and BOMB in view.legal
    assert BOT(view) == LOOK


def test_bot_declares_a_double_bomb_only_twice_as_far_behind() -> None:
    state = classic_deal(bomb_streak=1)
    assert BOT(view_of(state, A, FAR_BEHIND_A)) == LOOK  # 300 behind < 2 × 200
    assert BOT(view_of(state, A, sheet(gora=(60, 10, 10)))) == BOMB  # 500 behind


def test_bot_owing_more_bomb_signs_than_the_others_declares_no_bomb() -> None:
    """Each sign multiplies one of his later games (TV-26); more than the others is enough."""
    signs = ((1, 2, 3), (1,), (1,))
    assert BOT(view_of(classic_deal(), A, FAR_BEHIND_A, signs)) == LOOK
    assert BOT(view_of(classic_deal(), A, FAR_BEHIND_A, ((1,), (1,), (1,)))) == BOMB


def test_bot_joins_a_standing_bomb_with_a_dark_pass() -> None:
    """S000: the others may join the first bomber ("также сказав «бомба» или «пас втемную»")."""
    state = act(classic_deal(), "bomb")
    view = view_of(state, B)
    assert view.bombers == 1 << A
    assert BOT(view) == BOMB
    assert BOT(view_of(state, B, EVEN)) == BOMB


def test_bot_does_not_join_a_triple_bomb_nor_when_far_ahead() -> None:
    triple = act(classic_deal(bomb_streak=2), "bomb")
    assert BOT(view_of(triple, B)) != BOMB
    single = act(classic_deal(), "bomb")
    far_ahead_b = sheet(gora=(30, 0, 30))
    assert BOT(view_of(single, B, far_ahead_b)) == LOOK


def test_bots_joining_a_bomb_play_the_bomb_raspasy() -> None:
    """A declares, B and C join: nobody is left to bid, the deal is a bomb raspasy."""
    state = act(classic_deal(), "bomb")
    while state.phase is Phase.BIDDING:
        state = act(state, BOT(seat_view(state, actor(state))))
    assert state.bomb == 1 and state.bombers == 0b111


# --- dark bids -------------------------------------------------------------------------------


def test_bot_first_hand_early_and_behind_bids_a_dark_six() -> None:
    """S000 "Игры на взятие втемную": the cheapest blind gamble, first hand, early in the pool
    (nothing much written), for a player behind after the initial bomb rounds."""
    no_bombs = CLASSIC.with_options(bombs=False)
    state = deal(*SAMPLE, rules=no_bombs)
    early = sheet(gora=(40, 10, 10), pool=(4, 0, 0))
    assert BOT(view_of(state, A, early)) == SIX_DARK


def test_bot_bids_no_dark_six_late_in_the_pool_nor_in_second_hand_nor_when_even() -> None:
    no_bombs = CLASSIC.with_options(bombs=False)
    state = deal(*SAMPLE, rules=no_bombs)
    assert BOT(view_of(state, A, FAR_BEHIND_A)) == LOOK  # pools half written: late
    assert BOT(view_of(state, A, sheet(gora=(10, 10, 10), pool=(0, 0, 0)))) == LOOK
    assert BOT(view_of(state, A)) == LOOK
    second = act(state, "look", "6♠")
    assert BOT(view_of(second, B, sheet(gora=(10, 40, 10), pool=(0, 0, 0)))) == LOOK


def test_bot_preempts_a_triple_bomb_with_a_dark_six_unless_behind() -> None:
    """Any dark game beats a bomb (S000); a seat not behind caps a triple bomb's swing so."""
    state = act(classic_deal(bomb_streak=2), "bomb")
    assert BOT(view_of(state, B, EVEN)) == SIX_DARK
    assert BOT(view_of(state, B, sheet(gora=(10, 40, 10)))) == LOOK
    single = act(classic_deal(), "bomb")
    assert BOT(view_of(single, B, FAR_AHEAD_A)) != SIX_DARK


DARK_MISERE_HAND = (
    "7s 8s 9s 7c 8c 9c 7d 8d 7h 8h",
    "As Ks Qs Js Ac Kc Qc Ad Kd Qd",
    "Ts Tc Jc Jd Td 9d Ah Kh Qh Jh",
    "Th 9h",
)


def test_dark_declarer_looks_then_switches_to_misere_with_a_misere_hand() -> None:
    """S000: the dark bidder may look and declare misère before taking the talon."""
    state = deal(*DARK_MISERE_HAND, rules=CLASSIC.with_options(bombs=False))
    state = act(state, "6♠ dark", "pass", "pass")
    assert state.phase is Phase.TALON and state.dark
    assert BOT(seat_view(state, A)) == LOOK
    looked = act(state, "look")
    assert BOT(seat_view(looked, A)) == Call(MISERE)


def test_dark_declarer_with_a_trick_hand_takes_the_talon_and_declares() -> None:
    state = act(classic_deal(), "6♠ dark", "pass", "pass", "look")
    assert BOT(seat_view(state, A)) == TAKE_TALON
    state = act(state, "take talon")
    while state.phase in (Phase.DISCARD, Phase.CONTRACT):
        state = act(state, BOT(seat_view(state, actor(state))))
    assert state.dark and state.contract is not None and state.contract.level >= 6


# --- no talon --------------------------------------------------------------------------------

STRONG_SPADES = (
    "As Ks Qs Js Ts 9s Ah Kh Ac Ad",
    "8s 7s Qh Jh Th 9h Kc Qc Jc Tc",
    "9c 8c 7c Kd Qd Jd Td 9d 8d 7d",
    "8h 7h",
)


def test_bot_bids_without_talon_when_that_is_the_cheapest_call_its_hand_makes() -> None:
    """Games without talon beat the ordinary bids of their level (S000 Classic): with a hand
    that makes six without the talon, 6♠ without talon over 6NT rather than 7♠."""
    state = deal(*STRONG_SPADES, rules=CLASSIC)
    view = seat_view(act(state, "look"), A)
    six_nt = Call(Bid.ordinary(6, Strain.NO_TRUMP))
    choice = Call(Bid.ordinary(7, Strain.SPADES))
    without = NoTalonCall(Bid.ordinary(6, Strain.SPADES))
    view = view._replace(auction=((C, six_nt),), legal=(PASS, choice, without))
    assert no_talon_call(view, 1.15, choice) == without


def test_bot_prefers_the_ordinary_call_when_it_is_cheaper_or_the_hand_is_weak() -> None:
    state = deal(*STRONG_SPADES, rules=CLASSIC)
    view = seat_view(act(state, "look"), A)
    six = Call(Bid.ordinary(6, Strain.SPADES))
    assert view.legal == (PASS, Call(MISERE), six, NoTalonCall(MISERE), NoTalonCall(six.bid))
    assert BOT(view) == six
    weak = seat_view(act(classic_deal(), "look", "6♠", "look"), B)  # B: not six without talon
    choice = Call(Bid.ordinary(7, Strain.SPADES))
    weak = weak._replace(legal=(PASS, choice, NoTalonCall(Bid.ordinary(6, Strain.SPADES))))
    assert no_talon_call(weak, 1.15, PASS) == PASS


def test_bot_calls_misere_without_talon_only_with_a_clean_misere_hand() -> None:
    clean = "7s 8s 9s 7c 8c 9c 7d 8d 7h 8h"
    state = deal(clean, DARK_MISERE_HAND[1], DARK_MISERE_HAND[2], "Th 9h", rules=CLASSIC)
    assert BOT(seat_view(act(state, "look"), A)) == NoTalonCall(MISERE)
    with_ace = "7s 8s 9s 7c 8c 9c 7d 8d 7h Ah"
    third = "Ts Tc Jc Jd Td 9d 8h Kh Qh Jh"
    state = deal(with_ace, DARK_MISERE_HAND[1], third, "Th 9h", rules=CLASSIC)
    assert BOT(seat_view(act(state, "look"), A)) != NoTalonCall(MISERE)


# --- ordering the game -----------------------------------------------------------------------


def test_bot_orders_the_tables_agreed_pool_length() -> None:
    """S000: the largest gora orders the game; a bot names the agreed pool length."""
    assert order_choice(CLASSIC) == CLASSIC.pool_target
    assert order_choice(CLASSIC.with_options(pool_target=50), sheet(gora=(9, 0, 0)), 0) == 50


def test_bots_in_play_game_see_the_sheet_and_the_bomb_signs() -> None:
    seen: list[SeatView] = []

    def spy(view: SeatView) -> Action:
        seen.append(view)
        return BOT(view)

    play_game(b"\x07" * 32, [spy, spy, spy], CLASSIC, max_deals=11)
    late = [v for v in seen if v.bomb_signs]
    assert late and all(v.sheet is not None and v.pool_target == 20 for v in late)


# --- statistics over whole games -------------------------------------------------------------

SEEDS = [hashlib.sha256(f"classic-bots/{n}".encode()).digest() for n in range(6)]
"""Fixed seeds: six Classic games of 40 deals (9 initial bomb deals, then the pool)."""


def features(deals: Sequence[DealRecord]) -> dict[str, int]:
    counts = {"bomb declared": 0, "bomb joined": 0, "dark game": 0, "no talon": 0}
    for d in deals:
        final = d.final
        bombs = sum(isinstance(a, Bomb) for _, a in d.actions)
        if final.bomb and bombs:
            counts["bomb declared"] += 1
            counts["bomb joined"] += bombs > 1
        if final.dark:
            counts["dark game"] += 1
        if final.no_talon and final.bid is not None:
            counts["no talon"] += 1
    return counts


def test_classic_bot_games_bomb_bid_dark_and_without_talon_and_verify() -> None:
    total = dict.fromkeys(("bomb declared", "bomb joined", "dark game", "no talon"), 0)
    for seed in SEEDS:
        game = play_game(seed, [BOT, BOT, BOT], CLASSIC, max_deals=40)
        for key, count in features(game.deals).items():
            total[key] += count
        record = validate(record_from_game(game))
        verdict = verify_record(record)
        assert verdict.consistent, verdict.message
    assert all(total.values()), total


def test_a_classic_bot_game_through_the_aggregate_verifies_through_the_audit() -> None:
    """Bots with the game context play a Classic game through ``Game`` (the bot orders the
    game with ``order_choice``); the audit of its events and its hand record verify."""
    seed = SEEDS[0]
    game = created_game(CLASSIC, 0, seed)
    game.deal_first(seed, "create")
    n = 0
    kinds: set[str] = set()
    while not game.finished and game.state.deal_number <= 30:
        n += 1
        if awaiting_order(game.state):
            seat = game_orderer(game.state)
            game.order(seat, order_choice(CLASSIC, game.state.sheet, seat), 1, f"o{n}", seed)
            continue
        deal_state = game.state.deal
        assert deal_state is not None
        seat = actor(deal_state)
        action = BOT(with_game(seat_view(deal_state, seat), game.state))
        kinds |= {type(action).__name__}
        game.act(seat, action, f"r{n}", seed)
    assert {"Bomb", "Look"} <= kinds, kinds
    events = game.collect_events()
    report = verify(str(game.id), events)
    assert report.verified, report.summary
    verdict = verify_record(validate(record_from_events(events, str(game.id))))
    assert verdict.consistent, verdict.message


def test_views_without_game_context_fall_back_to_looking() -> None:
    """Without the sheet (a bare deal view, e.g. a CLI not yet passing it) the bot never
    declares a bomb or a dark six; it still joins a single bomb."""
    assert BOT(seat_view(classic_deal(), A)) == LOOK
    assert BOT(seat_view(act(classic_deal(), "bomb"), B)) == BOMB
    # A view that does not give the bomb level (0) is read as a single bomb, never as free.
    assert BOT(seat_view(classic_deal(), A)._replace(bomb_call=0)) == LOOK
    unknown = seat_view(act(classic_deal(bomb_streak=2), "bomb"), B)._replace(bomb_call=0)
    assert BOT(unknown) == BOMB


# --- whisting a misère (complicated whisting, notes/whist.md) ---------------------------------


def test_bot_passes_a_whisted_misere_it_cannot_see() -> None:
    """Complicated whisting (S000 l.659): a made misère costs each whister 10 in gora. With the
    declarer's cards hidden, measured over bot deals, whisting lost 53–67 whists whatever the
    whister's own low cards: the bot passes, even holding only low cards."""
    from tests.unit.test_classic_whisting import COMPLICATED, _misere

    state = _misere(COMPLICATED)
    view = seat_view(state, B)
    assert view.legal == (WHIST, PASS) and view.shown is None
    assert BOT(view) == PASS
    low = view._replace(hand=cards_of("7s 8s 9s 7c 8c 9c 7d 8d 9d 7h"))
    assert BOT(low) == PASS


def test_bot_whists_a_misere_whose_shown_cards_stay_exposed() -> None:
    """With the declarer's twelve cards shown (``misere_shows_twelve``) the bot whists when
    they stay exposed after his best discard, and passes a clean misère."""
    from tests.unit.test_classic_whisting import COMPLICATED

    rules = COMPLICATED.with_options(misere_shows_twelve=True)
    exposed = deal(
        "Ks 8s Kc 8c Kd 8d Kh 8h Qs Qc",
        "As 9s 7s Ac 9c 7c Ad 9d 7d Ah",
        "Js Ts Jc Tc Jd Td Qd Jh Th 9h",
        "Qh 7h",
        rules=rules,
    )
    state = act(exposed, "misère", "pass", "pass", "take talon", "discard Qs Qc", "declare misère")
    view = seat_view(state, B)
    assert view.shown is not None and view.legal == (WHIST, PASS)
    assert BOT(view) == WHIST
    clean = act(
        deal(*DARK_MISERE_HAND, rules=rules),
        "misère",
        "pass",
        "pass",
        "take talon",
        "discard Th 9h",
        "declare misère",
    )
    assert BOT(seat_view(clean, B)) == PASS
