"""Raspasy conventions of RULES.md §3.3 (issue 11): progressions, exits and what a series is,
the dealer after raspasy, round limit and Любимовка, the closed talon, Rostov "on whists".

Seeds: S000 "Запись в пулю" (prices), "Варианты правил при розыгрыше" (progressions, dealer,
exits, Любимовка, talon), "Варианты правил при записи" (amnesty), "СОЧИНКА", "РОСТОВКА";
S003 "ПРАВИЛА ДЛЯ РАСПАСОВ"; S004 option list and Leningrad characteristics.
"""

from __future__ import annotations

import pytest

from domain.handrecord import parse_record, record_from_deal, render_text, to_json, verify_record
from domain.rules import (
    DEFAULT,
    Action,
    DealResult,
    DealState,
    GameState,
    InvalidAction,
    Kind,
    Phase,
    PlayCard,
    RuleSet,
    Shuffle,
    actor,
    apply,
    deal_cards,
    finish_deal,
    legal_actions,
    new_deal,
    new_game,
    parse_action,
    score_result,
    seat_view,
    start_deal,
)
from domain.rules.raspasy import dealer_after, streak_after
from domain.rules.ruleset import (
    RASPASY_PRICE_CEILING,
    Progression,
    RaspasyDealer,
    RaspasyScoring,
    RaspasyTalon,
)
from tests.unit.rules_helpers import (
    A,
    B,
    C,
    act,
    assert_illegal,
    play_out,
    result,
    sample,
    whists,
)

NONE = (0, 0, 0)
ARITH = Progression.ARITHMETIC
GEOM = Progression.GEOMETRIC


def prices(rules: RuleSet, count: int = 6) -> list[int]:
    """The trick price of the 1st … ``count``-th raspasy of a series."""
    return [rules.raspasy_price(n) for n in range(1, count + 1)]


def raspasy_result(tricks: tuple[int, int, int]) -> DealResult:
    return result(Kind.RASPASY, -1, None, tricks)


# --- 1. progressions (S000 conventions; S004 option list) --------------------------------


def test_progression_none_is_the_default_flat_price() -> None:
    """S001 §10 / RULES.md §1.0: always 1 per trick, no progression."""
    assert prices(DEFAULT) == [1] * 6
    assert DEFAULT.raspasy_progression is Progression.TABLE


def test_sochi_arithmetic_1_2_3_stops_after_the_triple() -> None:
    """S000 СОЧИНКА: arithmetic 1-2-3; S000 conventions: growth usually stops after the triple."""
    sochi = RuleSet(raspasy_progression=ARITH, raspasy_progression_limit=2)
    assert prices(sochi) == [1, 2, 3, 3, 3, 3]
    assert prices(RuleSet(raspasy_trick_prices=(1, 2, 3))) == prices(sochi)  # the table form
    unlimited = RuleSet(raspasy_progression=ARITH)
    assert prices(unlimited) == [1, 2, 3, 4, 5, 6]


def test_sochi_rare_variants_1_2_4_and_1_2_2() -> None:
    """S000 СОЧИНКА: "реже – 1-2-4 или 1-2-2"."""
    assert prices(RuleSet(raspasy_trick_prices=(1, 2, 4)), 4) == [1, 2, 4, 4]
    doubling_twice = RuleSet(raspasy_progression=GEOM, raspasy_progression_step=2)
    assert prices(doubling_twice.with_options(raspasy_progression_limit=2), 4) == [1, 2, 4, 4]
    one_raise = RuleSet(raspasy_progression=ARITH, raspasy_progression_limit=1)
    assert prices(one_raise, 4) == [1, 2, 2, 2]  # S004: "stops after the first raise"


def test_leningrad_prices_2_4_6_s004_and_3_6_9_12_s000() -> None:
    """S004 Ленинградка: 2 per trick, 2-4-6; S000 ленинградская роспись: 3/6/9 (rarely 12)."""
    s004 = RuleSet(
        raspasy_trick_prices=(2,),
        raspasy_progression=ARITH,
        raspasy_progression_step=2,
        raspasy_progression_limit=2,
    )
    assert prices(s004, 4) == [2, 4, 6, 6]
    s000 = RuleSet(raspasy_trick_prices=(3,), raspasy_progression=ARITH, raspasy_progression_step=3)
    assert prices(s000.with_options(raspasy_progression_limit=2), 4) == [3, 6, 9, 9]
    assert prices(s000.with_options(raspasy_progression_limit=3), 5) == [3, 6, 9, 12, 12]


def test_geometric_unlimited_powers_of_two_like_classic_bombs() -> None:
    """S000 КЛАССИКА (TV-26): 2/4/8/16/32 … per trick; unlimited stops only at the ceiling."""
    bombs = RuleSet(raspasy_trick_prices=(2,), raspasy_progression=GEOM, raspasy_progression_step=2)
    assert prices(bombs, 5) == [2, 4, 8, 16, 32]
    assert bombs.raspasy_price(10) == 1000 == RASPASY_PRICE_CEILING  # 2**10 = 1024 capped
    assert bombs.raspasy_price(500) == RASPASY_PRICE_CEILING


def test_progression_prices_score_the_raspasy_of_the_series() -> None:
    """S000 "Запись": each trick costs the raspasy's price; streak 1 = the double raspasy."""
    sochi = RuleSet(raspasy_progression=ARITH, raspasy_progression_limit=2)
    res = raspasy_result((4, 6, 0))
    assert [score_result(sochi, res, s).gora for s in (0, 1, 2, 5)] == [
        (4, 6, 0),
        (8, 12, 0),
        (12, 18, 0),
        (12, 18, 0),
    ]
    assert score_result(sochi, res, 1).pool == (0, 0, 1)  # the default flat zero bonus


def test_zero_bonus_priced_writes_the_current_trick_price_to_pool() -> None:
    """S000 "Запись": a zero writes one trick's price to pool: single 1, double 2, etc."""
    sochi = RuleSet(
        raspasy_progression=ARITH, raspasy_progression_limit=2, raspasy_zero_bonus_priced=True
    )
    res = raspasy_result((4, 6, 0))
    assert [score_result(sochi, res, s).pool for s in (0, 1, 2, 3)] == [
        (0, 0, 1),
        (0, 0, 2),
        (0, 0, 3),
        (0, 0, 3),
    ]


def test_progression_refusals_name_the_conflict() -> None:
    with pytest.raises(InvalidAction, match="apply only to an arithmetic or geometric") as err:
        RuleSet(raspasy_progression_step=2)
    assert err.value.field == "rules.raspasy_progression"
    with pytest.raises(InvalidAction, match="apply only to an arithmetic or geometric"):
        RuleSet(raspasy_progression_limit=2)
    with pytest.raises(InvalidAction, match="grows from one base price") as err:
        RuleSet(raspasy_progression=ARITH, raspasy_trick_prices=(1, 2))
    assert err.value.field == "rules.raspasy_trick_prices"
    with pytest.raises(InvalidAction, match="step of at least 2") as err:
        RuleSet(raspasy_progression=GEOM)
    assert err.value.field == "rules.raspasy_progression_step"
    with pytest.raises(InvalidAction, match="cannot be negative"):
        RuleSet(raspasy_progression=ARITH, raspasy_progression_limit=-1)
    with pytest.raises(InvalidAction, match="rule option raspasy_progression"):
        RuleSet.from_dict({"raspasy_progression": "harmonic"})


def test_old_recorded_rule_sets_still_decode_with_the_tuple_prices() -> None:
    """A rule set recorded before issue 11 (no new keys) decodes to the same behaviour."""
    old = {
        k: v
        for k, v in RuleSet(raspasy_trick_prices=(1, 2, 3)).to_dict().items()
        if not k.startswith("raspasy_")
        or k in ("raspasy_trick_prices", "raspasy_zero_bonus", "raspasy_exit_levels")
        or k == "raspasy_amnesty"
    }
    decoded = RuleSet.from_dict(old)
    assert prices(decoded, 4) == [1, 2, 3, 3]
    assert decoded.raspasy_dealer is RaspasyDealer.SLIDING
    new = RuleSet(
        raspasy_trick_prices=(2,),
        raspasy_progression=ARITH,
        raspasy_progression_step=2,
        raspasy_progression_limit=2,
        raspasy_dealer=RaspasyDealer.STAYS,
        raspasy_talon=RaspasyTalon.CLOSED,
        raspasy_scoring=RaspasyScoring.WHISTS_FEWEST,
    )
    data = new.to_dict()
    assert (data["raspasy_progression"], data["raspasy_dealer"]) == ("arithmetic", "stays")
    assert RuleSet.from_dict(data) == new


# --- 2. exits and what a series ("streak") is ----------------------------------------------


@pytest.mark.parametrize(
    ("levels", "floors"),
    [
        ((6,), ["6♠", "6♠", "6♠", "6♠"]),  # simple 6-6-6 (S000, default)
        ((6, 6, 7), ["6♠", "6♠", "7♠", "7♠"]),  # hard 6-7-7: from 7 after the double (S000)
        ((6, 6, 7, 8), ["6♠", "6♠", "7♠", "8♠"]),  # toughened 6-7-8 (S000, S004)
        ((6, 7), ["6♠", "7♠", "7♠", "7♠"]),  # S003 hard exit: from 7 after ANY raspasy
    ],
    ids=["simple-6-6-6", "hard-6-7-7", "toughened-6-7-8", "s003-hard-after-any"],
)
def test_exit_levels_after_single_double_triple_raspasy(
    levels: tuple[int, ...], floors: list[str]
) -> None:
    """S000 "виды выхода из распасов", S004 option list (6/6/6, 6/7/7, 6/7/8), S003 (A-13).
    The streak before a deal counts the raspasy already played: streak 2 = after the double."""
    rules = RuleSet(raspasy_exit_levels=levels)
    got = []
    for streak in range(4):
        raises = [a for a in legal_actions(sample(rules=rules, streak=streak)) if "♠" in str(a)]
        got.append(str(raises[0]))
    assert got == floors


def test_hard_exit_refuses_a_six_after_the_double() -> None:
    rules = RuleSet(raspasy_exit_levels=(6, 6, 7))
    assert_illegal(sample(rules=rules, streak=2), "6♠", "you cannot bid 6♠", "next bid is 7♠")


def made_game() -> DealResult:
    return result(Kind.GAME, A, "7♠", (7, 2, 1), (B,), (C,))


def failed_game() -> DealResult:
    return result(Kind.GAME, A, "7♠", (5, 4, 1), (B,), (C,))


def made_misere() -> DealResult:
    return result(Kind.MISERE, A, "misère", (0, 5, 5))


def failed_misere() -> DealResult:
    return result(Kind.MISERE, A, "misère", (2, 4, 4))


def test_default_series_any_contract_ends_it() -> None:
    """S001 §10 / §1.9: raspasy count in a row; any other deal starts again."""
    assert streak_after(DEFAULT, 0, raspasy_result((4, 3, 3))) == 1
    assert streak_after(DEFAULT, 2, raspasy_result((0, 5, 5))) == 3  # a zero does not end it
    for res in (made_game(), failed_game(), made_misere(), failed_misere()):
        assert streak_after(DEFAULT, 2, res) == 0
    passed = result(Kind.PASSED_OUT, A, "6♠", (0, 0, 0), (), (B, C))
    assert streak_after(DEFAULT, 2, passed) == 0


def test_exit_by_failure_not_allowed_keeps_the_series() -> None:
    """S000: "выход подсадом из распасовки не допускается": a failed contract leaves the series
    standing, the next all-pass is the next raspasy in order; a made one ends it."""
    rules = RuleSet(raspasy_failure_ends_series=False, raspasy_trick_prices=(1, 2, 3))
    assert streak_after(rules, 1, failed_game()) == 1
    assert streak_after(rules, 1, failed_misere()) == 1
    assert streak_after(rules, 1, made_game()) == 0
    assert streak_after(rules, 1, made_misere()) == 0
    # "Without three" writes the declarer undertricks (RULES.md §3.1): a failure too.
    conceded = result(Kind.CONCEDED, A, "6♠", (0, 0, 0), (), (B, C))
    assert streak_after(rules, 1, conceded) == 1
    # Raspasy, failed 7♠, raspasy: the second raspasy is the double (2 per trick).
    streak = streak_after(rules, 0, raspasy_result((4, 3, 3)))
    streak = streak_after(rules, streak, failed_game())
    assert score_result(rules, raspasy_result((4, 3, 3)), streak).gora == (8, 6, 6)


def test_misere_does_not_break_raspasy() -> None:
    """S000: "мизер не перебивает распасы": only a trick game ends the series."""
    rules = RuleSet(raspasy_misere_ends_series=False)
    assert streak_after(rules, 2, made_misere()) == 2
    assert streak_after(rules, 2, failed_misere()) == 2
    assert streak_after(rules, 2, made_game()) == 0
    assert streak_after(rules, 2, failed_game()) == 0  # failure still ends it (default)


def test_exit_by_a_zero() -> None:
    """S000: "выход из распасов при отсутствии взятки": a raspasy where someone took no trick
    ends the series (prices and exit level start again)."""
    rules = RuleSet(raspasy_zero_ends_series=True)
    assert streak_after(rules, 1, raspasy_result((0, 4, 6))) == 0
    assert streak_after(rules, 1, raspasy_result((1, 4, 5))) == 2


def test_round_limit_ends_the_series_after_the_last_round() -> None:
    """S000: "распасы прерываются после розыгрыша последнего определенного круга"."""
    rules = RuleSet(raspasy_round_limit=3)
    streak = 0
    seen = []
    for _ in range(5):
        streak = streak_after(rules, streak, raspasy_result((4, 3, 3)))
        seen.append(streak)
    assert seen == [1, 2, 0, 1, 2]


# --- 3. dealer after raspasy ---------------------------------------------------------------


def dealers(rules: RuleSet, results: list[DealResult], dealer: int = C) -> list[int]:
    """The dealer of each deal when the deals end with ``results`` in turn."""
    run, out = 0, [dealer]
    for res in results:
        dealer, run = dealer_after(rules, dealer, run, res)
        out.append(dealer)
    return out


RASPASY = raspasy_result((4, 3, 3))


def test_sliding_deal_passes_after_every_raspasy() -> None:
    """S001 §10 (default), S003 "скользящая сдача"."""
    assert dealers(DEFAULT, [RASPASY] * 4) == [C, A, B, C, A]


def test_non_sliding_deal_stays_at_most_three_deals() -> None:
    """S000 conventions, S003: after raspasy the dealer stays, but deals at most 3 in a row."""
    rules = RuleSet(raspasy_dealer=RaspasyDealer.STAYS)
    assert dealers(rules, [RASPASY] * 5) == [C, C, C, A, A, A]
    assert dealers(rules, [RASPASY, made_game(), RASPASY]) == [C, C, A, A]
    assert dealers(rules, [RASPASY, failed_misere()]) == [C, C, A]
    two = rules.with_options(raspasy_dealer_limit=2)
    assert dealers(two, [RASPASY] * 3) == [C, C, A, A]


def test_dealer_stays_until_the_misere_is_made() -> None:
    """S000: "сдатчик не меняется, если не сыгран мизер" — read as a misère that was not made
    (S000 uses "игра сыграна" for a made game); also after all-pass; at most 3 in a row."""
    rules = RuleSet(raspasy_dealer=RaspasyDealer.STAYS_UNTIL_MISERE_MADE)
    assert dealers(rules, [failed_misere(), RASPASY, RASPASY]) == [C, C, C, A]
    assert dealers(rules, [made_misere()]) == [C, A]
    assert dealers(rules, [failed_game()]) == [C, A]


def test_dealer_never_passes_during_raspasy() -> None:
    """S000: "при распасах сдача может не переходить, сколько бы кругов они не длились"."""
    rules = RuleSet(raspasy_dealer=RaspasyDealer.NEVER_PASSES)
    assert dealers(rules, [RASPASY] * 6 + [made_game()]) == [C] * 7 + [A]


def test_dealer_limit_refused_without_a_staying_dealer() -> None:
    with pytest.raises(InvalidAction, match="raspasy_dealer_limit applies only") as err:
        RuleSet(raspasy_dealer_limit=4)
    assert err.value.field == "rules.raspasy_dealer_limit"
    with pytest.raises(InvalidAction, match="at least 1"):
        RuleSet(raspasy_dealer=RaspasyDealer.STAYS, raspasy_dealer_limit=0)


def raspasy_round(game: GameState) -> GameState:
    """Deal a fixed shuffle, all pass (or compulsory), play out, record."""
    game = start_deal(game, Shuffle(tuple(range(32)), 4))
    assert game.deal is not None
    deal = game.deal
    if deal.phase is Phase.BIDDING:
        deal = act(deal, "pass", "pass", "pass")
    game, _, _ = finish_deal(game._replace(deal=play_out(deal)))
    return game


def test_non_sliding_deal_through_the_game_driver() -> None:
    """The pure game state carries the dealer's run; the deal records it too."""
    game = new_game(RuleSet(raspasy_dealer=RaspasyDealer.STAYS), A)
    seen = []
    for _ in range(4):
        seen.append((game.dealer, game.dealer_run, game.raspasy_streak))
        game = raspasy_round(game)
    assert seen == [(A, 0, 0), (A, 1, 1), (A, 2, 2), (B, 0, 3)]


# --- 4. round limit and Любимовка ----------------------------------------------------------


def test_lyubimovka_second_and_third_raspasy_without_auction() -> None:
    """S000 "Любимовка": after the first raspasy the 2nd and 3rd rounds are compulsory, without
    the right to name a game; the deal starts in play, led by the first hand."""
    rules = RuleSet(raspasy_compulsory_rounds=2)
    assert sample(rules=rules).phase is Phase.BIDDING
    for streak in (1, 2):
        state = sample(rules=rules, streak=streak)
        assert (state.phase, state.to_act, state.auction.calls) == (Phase.PLAY, A, ())
        assert state.compulsory_raspasy and state.raspasy
        assert all(isinstance(a, PlayCard) for a in legal_actions(state)[:1])
        assert seat_view(state, B).phase is Phase.PLAY
    assert sample(rules=rules, streak=3).phase is Phase.BIDDING
    assert not sample(streak=1).compulsory_raspasy


def test_lyubimovka_through_the_game_driver_prices_follow_the_series() -> None:
    rules = RuleSet(raspasy_compulsory_rounds=2, raspasy_trick_prices=(1, 2, 3))
    game = new_game(rules, A)
    phases = []
    for _ in range(3):
        nxt = start_deal(game, Shuffle(tuple(range(32)), 4))
        assert nxt.deal is not None
        phases.append(nxt.deal.phase)
        game = raspasy_round(game)
    assert phases == [Phase.BIDDING, Phase.PLAY, Phase.PLAY]
    assert game.raspasy_streak == 3


def test_lyubimovka_refusals() -> None:
    with pytest.raises(InvalidAction, match="cannot be cut short") as err:
        RuleSet(raspasy_compulsory_rounds=2, raspasy_zero_ends_series=True)
    assert err.value.field == "rules.raspasy_compulsory_rounds"
    with pytest.raises(InvalidAction, match="limit must exceed the compulsory") as err:
        RuleSet(raspasy_compulsory_rounds=2, raspasy_round_limit=2)
    assert err.value.field == "rules.raspasy_round_limit"
    RuleSet(raspasy_compulsory_rounds=2, raspasy_round_limit=3)  # after the triple: bidding


# --- 5. the talon on raspasy ---------------------------------------------------------------


def test_open_talon_first_hand_makes_the_first_three_leads() -> None:
    """S001 §10 (default) = S003 "он делает первые три хода независимо от того, кто получил
    взятку" = S000 conv. "для каждой карты прикупа и еще одном заходе": one rule."""
    state = act(sample(), "pass", "pass", "pass")
    assert legal_actions(state)[:1] == (parse_action("play 7d"),)  # ♦ from J♦
    state = act(state, "play 7d", "play Ad", "play Kd")  # B wins trick 1
    assert state.play.history[0].winner == B
    assert state.to_act == A  # ... yet A leads trick 2 (♥ from 8♥)
    state = act(state, "play 7h", "play 9h", "play Th")  # C wins trick 2
    assert state.play.history[1].winner == C and state.to_act == A  # A leads trick 3 too
    state = act(state, "play Qs", "play Ks", "play As")  # C wins trick 3
    assert state.to_act == C  # from trick 4 the winner leads


def test_closed_talon_first_hand_leads_then_the_winners() -> None:
    """S000 conventions / S004 (Rostov: "прикуп никогда не открывается"), S003 second variant:
    the talon takes no part; the first hand leads, then whoever took the trick."""
    rules = RuleSet(raspasy_talon=RaspasyTalon.CLOSED)
    state = act(sample(rules=rules), "pass", "pass", "pass")
    assert len([a for a in legal_actions(state) if isinstance(a, PlayCard)]) == 10  # free lead
    state = act(state, "play Qs", "play Ks", "play As")  # C wins trick 1
    assert state.to_act == C  # the winner leads trick 2
    state = act(state, "play Td")
    assert [a for a in legal_actions(state) if isinstance(a, PlayCard)] == [
        parse_action("play 7d")
    ]  # A follows the led ♦, not a talon suit


def test_closed_talon_stays_hidden_until_the_deal_is_scored() -> None:
    """RULES.md §3.0: nobody sees the talon; closed on raspasy it is shown only at the end."""
    rules = RuleSet(raspasy_talon=RaspasyTalon.CLOSED)
    state = act(sample(rules=rules), "pass", "pass", "pass")
    state = act(state, "play Qs", "play Ks", "play As", "play Td", "play 7d", "play Qd")
    for seat in (A, B, C):
        assert seat_view(state, seat).talon == (None, None)
    opened = act(sample(), "pass", "pass", "pass", "play 7d", "play Ad", "play Kd")
    assert seat_view(opened, B).talon[0] is not None  # the open talon shows its cards
    done = play_out(state)
    assert seat_view(done, A).talon == done.talon


# --- 6. Rostov raspasy "on whists" (A-22: three readings) ----------------------------------


def rostov(**options: object) -> RuleSet:
    return RuleSet(
        raspasy_trick_prices=(5,),
        raspasy_scoring=RaspasyScoring.WHISTS_FEWEST,
        **options,  # type: ignore[arg-type]
    )


def test_rostov_fewest_writes_per_trick_the_partners_took() -> None:
    """Reading 1 (default for rostov): S000 РОСТОВКА "по пять вистов за каждую взятку.
    Выигрывает тот, кто взял меньше всех", S004 "взявший наименьшее количество взяток
    записывает вистов на партнеров". Tricks 2-3-5 at 5: A writes 3×5 = 15 on B and
    5×5 = 25 on C; nobody writes gora."""
    score = score_result(rostov(), raspasy_result((2, 3, 5)))
    assert score.whists == whists({(A, B): 15, (A, C): 25})
    assert (score.gora, score.pool) == (NONE, NONE)


def test_rostov_reading_2_amnesty_writes_the_difference_from_the_fewest() -> None:
    """Reading 2: with S000's amnesty ("в ростовке за взятки на распасах пишут висты … сокращение
    записи на одинаковое для всех количество взяток") the fewest's 2 tricks come off:
    A writes (3-2)×5 = 5 on B and (5-2)×5 = 15 on C."""
    score = score_result(rostov(raspasy_amnesty=True), raspasy_result((2, 3, 5)))
    assert score.whists == whists({(A, B): 5, (A, C): 15})


def test_rostov_reading_3_pairwise_differences() -> None:
    """Reading 3: everyone writes on each player with more tricks, per trick of difference:
    A on B (3-2)×5 = 5, A on C (5-2)×5 = 15, B on C (5-3)×5 = 10."""
    rules = rostov().with_options(raspasy_scoring=RaspasyScoring.WHISTS_PAIRWISE)
    score = score_result(rules, raspasy_result((2, 3, 5)))
    assert score.whists == whists({(A, B): 5, (A, C): 15, (B, C): 10})
    with pytest.raises(InvalidAction, match="changes nothing") as err:
        rules.with_options(raspasy_amnesty=True)
    assert err.value.field == "rules.raspasy_amnesty"


def test_rostov_tie_for_fewest_and_zero() -> None:
    """Two with the fewest both win and write on the third; a true zero also earns the zero
    bonus to pool (S000 "Запись", not overridden in РОСТОВКА)."""
    tie = score_result(rostov(), raspasy_result((2, 2, 6)))
    assert tie.whists == whists({(A, C): 30, (B, C): 30})
    zero = score_result(rostov(), raspasy_result((0, 4, 6)))
    assert zero.whists == whists({(A, B): 20, (A, C): 30})
    assert zero.pool == (1, 0, 0)


def test_rostov_whist_price_follows_the_progression() -> None:
    rules = rostov(raspasy_progression=ARITH, raspasy_progression_step=5)
    score = score_result(rules, raspasy_result((2, 3, 5)), 1)  # the double: 10 per trick
    assert score.whists == whists({(A, B): 30, (A, C): 50})


# --- hand records ---------------------------------------------------------------------------


def played(state: DealState) -> tuple[DealState, list[tuple[int, Action]]]:
    """Play out with the lowest legal card, keeping the (seat, action) log."""
    log: list[tuple[int, Action]] = []
    while state.phase is Phase.PLAY:
        card = next(a for a in legal_actions(state) if isinstance(a, PlayCard))
        log.append((actor(state), card))
        state = apply(state, card, actor(state))
    return state, log


def test_hand_record_of_a_compulsory_raspasy_and_a_dealer_run() -> None:
    """A Любимовка deal (no auction) dealt by a dealer on his 2nd deal in a row: the record
    carries the streak and the run, its text says so, and it verifies on its own."""
    rules = RuleSet(raspasy_compulsory_rounds=2, raspasy_dealer=RaspasyDealer.STAYS)
    shuffle = Shuffle(tuple(range(32)), 4)
    start = new_deal(deal_cards(shuffle.order, C, shuffle.talon_pair), C, rules, 1, 1)
    final, log = played(start)
    assert final.result is not None and final.result.kind is Kind.RASPASY
    rec = record_from_deal(start, log, number=2)
    deal = rec["deals"][0]
    assert (deal["raspasy_streak"], deal["dealer_run"], deal["auction"]) == (1, 1, [])
    text = render_text(rec)
    assert "Auction   none: a compulsory raspasy (RULES.md §3.3)" in text
    assert "Dealer    dealt 1 deal(s) in a row before this one" in text
    verdict = verify_record(parse_record(to_json(rec)))
    assert verdict.consistent, verdict.message
    # The same actions after an ordinary start (bidding) are not a legal deal.
    forged = dict(deal, raspasy_streak=0)
    bad = verify_record(parse_record(to_json(dict(rec, deals=[forged]))))
    assert not bad.consistent and "is not legal" in bad.message


def test_api_options_json_accepts_and_refuses_raspasy_options() -> None:
    """The options a client sends (``RuleSet.options_json``) are checked by the JSON Schema
    before any rule set is made: each refusal names the option."""
    from service.app.rule_options import check_options

    options = {
        "raspasy_progression": "arithmetic",
        "raspasy_progression_limit": 2,
        "raspasy_dealer": "stays",
        "raspasy_talon": "closed",
        "raspasy_scoring": "whists-fewest",
        "raspasy_compulsory_rounds": 2,
        "raspasy_round_limit": 3,
    }
    check_options(options)
    assert RuleSet.from_dict(options).raspasy_talon is RaspasyTalon.CLOSED
    for bad, name in (
        ({"raspasy_dealer": "sometimes"}, "raspasy_dealer"),
        ({"raspasy_dealer_limit": 0}, "raspasy_dealer_limit"),
        ({"raspasy_progression_step": 0}, "raspasy_progression_step"),
        ({"raspasy_scoring": "whists"}, "raspasy_scoring"),
    ):
        with pytest.raises(InvalidAction) as err:
            check_options(bad)
        assert err.value.field == f"rules.options_json.{name}"
