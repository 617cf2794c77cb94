"""TV-26 and the Classic examples of seed S000 ("КЛАССИКА", lines 563-661 of
seeds/000_*.txt) as named tests (issue 12). The tests here run under ``rule_set("classic")``
itself, through the auction and the game driver; the index below says where every other
example is tested.

Each entry: the example, then the file and the test(s); "(here)" = this file.

TV-26 (RULES.md §2.2)
* bomb trick values 2/4/8/16/32 — test_classic_scoring.py:
    test_tv26_bomb_trick_values
* dark six 4, seven 8; penalties and whists doubled — test_classic_scoring.py:
    test_tv26_dark_game_doubles, test_tv26_dark_game_penalties_and_whists_doubled
* dark misère 20 made, 20 a trick — test_classic_scoring.py:
    test_tv26_dark_misere_twenty; under ``classic``: test_classic_pulya.py, deal 15
* double bomb + dark spade declared seven = 4 × 2 × 4 = 32 — test_classic_scoring.py:
    test_tv26_double_bomb_dark_seven_is_32; under ``classic``: test_classic_pulya.py, deal 18
* robber 200 — test_classic_start.py:
    test_tv26_robber_not_having_played_a_dark_misere_writes_200_to_gora
* nine bombs after three rounds — test_classic_start.py:
    test_tv26_three_pre_pool_bomb_rounds_make_every_player_a_bomber_nine_times;
  test_classic_scoring.py: test_tv26_three_rounds_of_bombs_give_nine_signs_in_order;
  under ``classic``: test_classic_pulya.py, deals 1-9
* "to 50 until 23:00" — test_classic_start.py: test_tv26_order_to_50_until_2300;
  test_game_order_events.py:
    test_tv26_order_to_50_until_2300_is_an_event_replayed_audited_and_exported

S000 "КЛАССИКА", by line
* l.579 bomb prices, a zero writes the bomb's price to pool — test_classic_scoring.py:
    test_tv26_bomb_zero_writes_the_bomb_price_to_pool
  ("в том числе сидящий на прикупе": four players, out of scope)
* l.581 the initial bombs are played whatever anyone would declare (here):
    test_s000_l581_the_initial_bombs_are_played_without_an_auction
* l.583, l.585 the two variants of the initial bombs — test_classic_start.py:
    test_s000_initial_bombs_variant_1_the_same_dealer_deals_single_double_triple,
    test_s000_initial_bombs_variant_2_a_round_of_singles_then_doubles_then_triples
* l.587 initial raspasy rounds — test_classic_start.py:
    test_s000_initial_raspasy_rounds_single_then_double
* l.589 the largest gora orders — test_classic_start.py:
    test_s000_the_largest_gora_orders_ties_to_the_first_hand, test_tv26_order_to_50_until_2300
* l.593, l.599 the signs in the order played, later ones appended — test_classic_scoring.py:
    test_signs_are_recorded_in_the_order_the_bombs_were_played
* l.607 the bomb: only while nobody declared a game, beaten by a seven or a dark game, joined,
  the bomber leaves the auction — test_classic_auction.py:
    test_classic_bomb_only_while_nobody_has_declared_a_game, test_classic_bomb_beaten_by_seven,
    test_classic_bomb_beaten_by_any_dark_game, test_classic_the_bomber_leaves_the_auction
* l.609 the sign only to the bombers — test_classic_auction.py:
    test_classic_bomb_declared_and_joined_makes_a_raspasy_on_the_bomb
* l.609 every trick the same price, bomber or not (here):
    test_s000_l609_every_trick_of_a_bomb_costs_the_same_declared_or_passed
* l.609 pass, then bomb on the next round → only the double sign — test_classic_auction.py:
    test_classic_pass_then_bomb_in_round_two_gets_only_the_double_sign;
  under ``classic``: test_classic_pulya.py, deal 11
* l.609 a beaten bomb is not recorded (here):
    test_s000_l609_a_bomb_beaten_by_a_seven_is_not_recorded; test_classic_pulya.py, deal 19
* l.609 after a declared game the next deals and the bomb is single again (here):
    test_s000_l609_after_a_declared_game_the_next_deals_and_the_bomb_is_single_again
* l.609 after a played bomb all passes are a single raspasy — test_classic_auction.py:
    test_classic_after_a_bomb_all_passes_are_an_ordinary_single_raspasy;
  under ``classic``: test_classic_pulya.py, deal 12
* l.613 dark bids (who may, what beats them, the talon unseen, the switch to misère, the same
  level → both whist) — test_classic_auction.py:
    test_classic_dark_spade_beaten_by_an_ordinary_seven_or_clubs_dark,
    test_classic_dark_spade_may_be_said_after_passes_sixes_or_bombs,
    test_dark_game_takes_the_talon_unseen_by_the_others,
    test_dark_declarer_may_look_and_switch_to_misere_before_taking_the_talon,
    test_dark_game_declared_at_its_level_both_must_whist
* l.613 a dark auction makes a dark game, a light one a light game (here):
    test_s000_l613_a_dark_auction_makes_a_dark_game_a_light_one_a_light_game
* l.615 dark ×2 — test_classic_scoring.py: test_tv26_dark_game_doubles
* l.619 dark misère — test_classic_auction.py:
    test_dark_misere_is_taken_unseen_and_played_closed,
    test_classic_dark_misere_beaten_only_by_dark_nine_or_light_ten
* l.623, l.627 a six and a misère after three bomb rounds: "6" and "М" over the first two
  signs (here):
    test_s000_l623_a_six_and_a_misere_after_three_bomb_rounds_cross_the_first_two_signs
* l.629 signs in strict order (single, triple, single); failed → the sign stays; ×4, ×8, ×16;
  dark on a sign multiplies; penalties and whists by the game's value; all crossed → the
  ordinary value — test_classic_scoring.py:
    test_tv26_signs_are_played_in_order_single_triple_single,
    test_tv26_failed_game_leaves_the_sign, test_tv26_sign_multipliers,
    test_tv26_failed_game_on_a_sign_penalty_and_whists_multiplied
* l.633 played by time, not to the closing of the pools — test_classic_pulya.py, deals 17-19
* l.637 the Classic ending variant — test_classic_ending.py
* l.639 bomb beaten by a 7, a double by an 8 … — test_classic_auction.py:
    test_classic_bomb_beaten_by_rising_level_option
* l.641, l.655 the four-player dealer's bomb and extended rights — out of scope (3 players)
* l.643 "раз втемную" beaten by "два" — test_classic_auction.py:
    test_classic_dark_bids_on_the_ladder_option
* l.645 half-responsible until a pool closes — test_classic_whisting.py:
    test_classic_half_responsible_until_a_pool_closes_then_responsible
* l.647 games and misère without talon — test_classic_auction.py:
    test_classic_no_talon_bid_beats_its_level_and_at_seven_only_seven_without_talon,
    test_classic_misere_without_talon_beaten_by_nine_without_talon_or_ten_with_talon,
    test_classic_ordinary_misere_beaten_by_a_nine
* l.649 the old hierarchy — test_classic_whisting.py:
    test_classic_old_hierarchy_spades_cheapest_no_trump_dearest
* l.651 "Хулиганка": the bird scores as a single sign — test_classic_scoring.py:
    test_a_bird_on_an_ordinary_raspasy_is_a_single_sign (no auction gives a bird yet:
    docs/SYSTEMS.md §7)
* l.653 the simplified variant (raspasy rounds first, half-responsible until a pool closes) —
  test_classic_start.py, test_classic_whisting.py (its birds: as l.651)
* l.657 the robber — test_classic_start.py:
    test_tv26_robber_not_having_played_a_dark_misere_writes_200_to_gora
* l.659 complicated whisting — test_classic_whisting.py: test_complicated_*
* l.661 the simplified start — test_classic_start.py:
    test_s000_simplified_start_agreed_gora_for_everyone
"""

from __future__ import annotations

import re
from pathlib import Path

from domain.rules import Call, Kind, Phase, RuleSet, ScoreSheet, legal_actions
from domain.rules.actions import BOMB, LOOK
from domain.rules.bombs import CrossedSign
from domain.rules.game import GameState, new_game, order_game, start_deal
from domain.rules.ruleset import RaspasyDealer
from tests.unit.rules_helpers import SAMPLE, A, B, C, act, deal, whists
from tests.unit.test_classic_pulya import AT_2300, CLASSIC, SHUFFLE, SINGLES, TAKE, scripted

LIGHT_SIX = ["look", "6♠", "look", "pass", "look", "pass", *TAKE, "declare 6♠"]
"""H1 looks and bids 6♠, the others look and pass; H1 takes the talon and declares 6♠."""


def ordered(rules: RuleSet = CLASSIC, pool: int = 50) -> GameState:
    """The nine initial bombs of ``rules`` (C deals first), each taken 4-3-3, and the order:
    A's gora is the largest, 4 × (2 + 4 + 8) × 3 = 168 (B and C 3 × 14 × 3 = 126); he orders
    ``pool`` until 23:00. C deals deal 10, A is its first hand."""
    game = new_game(rules, first_dealer=C)
    for _ in range(9):
        game, _ = scripted(game, [], (4, 3, 3))
    assert game.sheet == ScoreSheet((0, 0, 0), (168, 126, 126), whists({}))
    return order_game(game, A, pool, AT_2300)


def test_s000_l581_the_initial_bombs_are_played_without_an_auction() -> None:
    """S000 l.581: "игра начинается проведением бомб (от одинарных до тройных) независимо от
    желания кого-то из игроков объявить результативную игру": under ``classic`` the first nine
    deals are bombs in play at once — nobody may look, bid, bomb or pass; every seat holds his
    cards in view and is a bomber."""
    game = new_game(CLASSIC, first_dealer=C)
    for number in range(1, 10):
        state = start_deal(game, SHUFFLE).deal
        assert state is not None and state.phase is Phase.PLAY
        legal = legal_actions(state)
        assert not any(isinstance(a, Call) for a in legal)
        assert BOMB not in legal and LOOK not in legal
        assert state.unseen == 0 and state.bombers == 0b111
        assert state.bomb == (number - 1) % 3 + 1
        game, _ = scripted(game, [], (4, 3, 3))


def test_s000_l609_every_trick_of_a_bomb_costs_the_same_declared_or_passed() -> None:
    """S000 l.609: "Взятки всех игроков имеют одинаковую стоимость, независимо от того,
    пасовал игрок или объявлял бомбу". Deal 10: A "бомба", B looks and passes, C joins: a
    single bomb, 3-3-4 → 2 a trick for everyone: A 6, B 6 (he passed), C 8; the signs go to A
    and C only."""
    game, state = scripted(ordered(), ["bomb", "look", "pass", "bomb"], (3, 3, 4))
    assert (state.bomb, state.bombers) == (1, 0b101)
    assert game.sheet.gora == (168 + 6, 126 + 6, 126 + 8)
    assert game.bomb_signs == ((*SINGLES, 1), SINGLES, (*SINGLES, 1))


def test_s000_l609_a_bomb_beaten_by_a_seven_is_not_recorded() -> None:
    """S000 l.607/609: "Объявленная бомба перебивается семерной"; "Когда бомбу перебили, к
    примеру, объявлением семерной, ее не записывают". Deal 10: A "бомба", B looks and bids 7♠,
    C looks and passes; B declares 7♠ and both defenders pass: given, on B's single sign: 4 ×
    2 = 8 to his pool. A gets no sign, and the next bomb (deal 11, all three) is a single, not
    a double: the beaten bomb was no bomb round."""
    moves = ["bomb", "look", "7♠", "look", "pass", *TAKE, "declare 7♠", "pass", "pass"]
    game, state = scripted(ordered(), moves, None)
    assert state.result is not None and state.result.kind is Kind.PASSED_OUT
    assert (state.bomb, state.bombers) == (0, 0)
    assert game.sheet.pool == (0, 8, 0)
    assert game.bomb_signs == (SINGLES, SINGLES[1:], SINGLES)
    assert game.bomb_signs_crossed[B] == (CrossedSign(1, 10, "7♠"),)
    assert game.bomb_streak == 0
    game, state = scripted(game, ["bomb", "bomb", "bomb"], (4, 3, 3))
    assert (state.bomb, state.bombers) == (1, 0b111)
    # A single: 2 a trick: A 8, B 6, C 6.
    assert game.sheet.gora == (176, 132, 132)


def test_s000_l609_after_a_declared_game_the_next_deals_and_the_bomb_is_single_again() -> None:
    """S000 l.609: "Двойные и тройные бомбы получаются на следующих кругах …"; "После
    объявленной игры сдатчиком становится следующий, и бомба опять одинарная".

    ``classic`` keeps Sochi's deal, passing after every deal (docs/SYSTEMS.md, decision R-15):
    after a bomb the next player deals and the next bomb is double. A table reading the seed
    as "the dealer stays while bombs are played" adds ``raspasy_dealer="stays"`` (at most 3
    deals in a row): then C deals the single and the double bomb, A declares 6♠ (both pass:
    given, on his single sign: 2 × 2 = 4), the deal passes to A and the bomb is single
    again."""
    game, first = scripted(ordered(), ["bomb"] * 3, (4, 3, 3))
    assert (first.dealer, first.bomb, game.dealer) == (C, 1, A)
    game, second = scripted(game, ["bomb"] * 3, (4, 3, 3))
    assert (second.dealer, second.bomb) == (A, 2)

    staying = ordered(CLASSIC.with_options(raspasy_dealer=RaspasyDealer.STAYS))
    staying, first = scripted(staying, ["bomb"] * 3, (4, 3, 3))
    assert (first.dealer, first.bomb, staying.dealer) == (C, 1, C)
    staying, second = scripted(staying, ["bomb"] * 3, (4, 3, 3))
    assert (second.dealer, second.bomb, staying.dealer) == (C, 2, C)
    staying, played = scripted(staying, [*LIGHT_SIX, "pass", "pass"], None)
    assert played.dealer == C and played.declarer == A
    assert staying.sheet.pool == (4, 0, 0) and staying.dealer == A
    staying, third = scripted(staying, ["bomb"] * 3, (4, 3, 3))
    assert (third.dealer, third.bomb) == (A, 1)


def test_s000_l613_a_dark_auction_makes_a_dark_game_a_light_one_a_light_game() -> None:
    """S000 l.613: "Игрок, объявивший игру втемную, может продолжить торговлю как втемную, не
    заглядывая в свои карты, так и в светлую, посмотрев карты … Если торговля велась втемную,
    то игра считается темной. Если взявший прикуп вел торговлю в светлую, то игра считается
    светлой". A "6♠ dark", B "6♣ dark", C passes; then A either looks and bids an ordinary 7♠
    (it beats 6♣ dark) and wins a light game, or goes on dark with 6♦ and wins a dark game,
    which stays dark though he looks before taking the talon."""
    start = act(deal(*SAMPLE, rules=CLASSIC), "6♠ dark", "6♣ dark", "pass")
    light = act(start, "look", "7♠", "pass")
    assert light.phase is Phase.TALON and light.declarer == A and str(light.bid) == "7♠"
    assert not light.dark and light.unseen == 0
    dark = act(start, "6♦ dark", "pass")
    assert dark.phase is Phase.TALON and dark.declarer == A and str(dark.bid) == "6♦"
    assert dark.dark and dark.unseen == 1 << A
    taken = act(dark, "look", "take talon")
    assert taken.dark and taken.phase is Phase.DISCARD and not taken.talon_open


def test_s000_l623_a_six_and_a_misere_after_three_bomb_rounds_cross_the_first_two_signs() -> None:
    """S000 l.623-627: "если игрок после трех кругов бомб, проводившихся до начала пули, сыграл
    шестерную и мизер, его табличка будет выглядеть следующим образом: … _{6 М}" — a 6 and an
    М written over his first two signs, crossed out; the rest owed in order.

    After ``classic``'s three rounds by the same dealer A owes 1 2 3 1 2 3 1 2 3.
    Deal 10 (dealer C, A first hand): A 6♠, B whists (open), C passes; A takes 6, B 3, C 1: on
    his single (×2) A writes 2 × 2 = 4 to pool; B writes the defence's 4 tricks × 2 × 2 = 16
    whists (the norm 4 is met). Deal 11 (dealer A): B and C look and pass, A misère, made:
    10 × 4 (his double) = 40 to pool: 44 of the ordered 50."""
    game, _ = scripted(ordered(), [*LIGHT_SIX, "whist", "pass", "open"], (6, 3, 1))
    misere = ["look", "pass", "look", "pass", "look", "misère", *TAKE, "declare misère"]
    game, _ = scripted(game, misere, (0, 5, 5))
    assert game.sheet == ScoreSheet((44, 0, 0), (168, 126, 126), whists({(B, A): 16}))
    assert game.bomb_signs == (SINGLES[2:], SINGLES, SINGLES)
    assert game.bomb_signs_crossed == (
        (CrossedSign(1, 10, "6♠"), CrossedSign(2, 11, "misère")),
        (),
        (),
    )


def test_the_index_names_only_tests_that_exist() -> None:
    """Every test the index above names is defined in the file it names (or here)."""
    here = Path(__file__)
    files = {p.name: p.read_text(encoding="utf-8") for p in here.parent.glob("test_*.py")}
    doc = __doc__ or ""
    named = 0
    for entry in doc.split("\n* ")[1:]:
        sources = re.findall(r"\b(test_[a-z0-9_]+\.py)\b", entry) or [here.name]
        if "(here)" in entry:
            sources.append(here.name)
        for name in re.findall(r"\b(test_[a-z0-9_]+)\b(?!\.py)", entry):
            if name.endswith("_"):  # a family: test_complicated_*
                assert any(f"def {name}" in files[f] for f in sources), name
                continue
            named += 1
            assert any(re.search(rf"def {name}\b", files[f]) for f in sources), name
    assert named >= 40
