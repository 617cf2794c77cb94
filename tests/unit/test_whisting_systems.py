"""Whisting systems as rule options (issue 11; RULES.md §3.2, §5.1 C-1 … C-4; seeds S000
"Варианты правил при вистовании", S003 "ВИДЫ ВИСТОВАНИЯ", S004 "Ленинградка").

Two axes (S000, S003): liability (full / half, joint norm / individual obligations) and sharing
(greedy / gentleman), on prices that are separate from the pool values (C-1, C-2)."""

from __future__ import annotations

import pytest

from domain.rules import (
    DEFAULT,
    DealScore,
    InvalidAction,
    Kind,
    Obligations,
    RuleSet,
    ShortfallPayer,
    WhistLiability,
    WhistSharing,
    score_result,
)
from tests.unit.rules_helpers import A, B, C, result, whists

NONE = (0, 0, 0)


def _by_level(*prices: int) -> dict[int, int]:
    return dict(zip((6, 7, 8, 9, 10), prices, strict=True))


LENINGRAD_S004 = RuleSet(
    whist_prices=_by_level(4, 8, 12, 16, 20),
    undertrick_prices=_by_level(4, 8, 12, 16, 20),
    misere_trick_penalty=20,
    whist_liability=WhistLiability.HALF,
    whist_sharing=WhistSharing.GENTLEMAN,
    gentleman_split_penalties=True,
    whist_pass_half_whist=True,
)
"""The whisting part of Leningrad by S004 (TV-36, TV-37; C-1, C-2, C-3)."""

ROSTOV = RuleSet(
    consolation_prices=_by_level(10, 10, 10, 10, 10),
    whist_liability=WhistLiability.HALF,
    whist_sharing=WhistSharing.GENTLEMAN,
)
"""The whisting part of Rostov by S000: half-responsible gentleman, consolation 10 (§3.5)."""


# --- prices (C-1, C-2, A-25) ---------------------------------------------------------------


def test_default_prices_are_the_pool_values() -> None:
    """C-1: in the default profile (and Sochi) the whists-per-trick price is the pool value."""
    for level in (6, 7, 8, 9, 10):
        assert DEFAULT.whist_price(level) == DEFAULT.value(level)
        assert DEFAULT.consolation_price(level) == DEFAULT.value(level)
        assert DEFAULT.undertrick_price(level) == DEFAULT.value(level)
        assert DEFAULT.shortfall_price(level) == DEFAULT.value(level)


@pytest.mark.parametrize(
    ("level", "pool", "per_trick", "undertrick", "shortfall"),
    [(6, 2, 4, 4, 2), (7, 4, 8, 8, 4), (8, 6, 12, 12, 6), (9, 8, 16, 16, 8), (10, 10, 20, 20, 10)],
)
def test_tv37_leningrad_score_table(
    level: int, pool: int, per_trick: int, undertrick: int, shortfall: int
) -> None:
    """TV-37 (RULES.md §2.4, S004 "Ленинградка / Запись в пульку и в гору"; C-1, A-12): made →
    pool; whists per defence trick; declarer's gora per undertrick; whister's shortfall gora
    (half the whists-per-trick price)."""
    rules = LENINGRAD_S004
    made = score_result(rules, result(Kind.GAME, A, f"{level}♠", (level, 10 - level, 0), (B, C)))
    assert made.pool == (pool, 0, 0)
    assert made.whists[B][A] == (10 - level) * per_trick and made.gora[A] == 0
    down = score_result(
        rules, result(Kind.GAME, A, f"{level}♠", (level - 1, 11 - level, 0), (B, C))
    )
    assert down.gora[A] == undertrick
    # One trick short of the joint norm: the whister who answers for it pays (§1.6 item 1).
    norm = rules.norm(level)
    if level == 6:
        tricks = (7, 2, 1)
    elif level == 7:
        tricks = (9, 1, 0)
    else:
        tricks = (10, 0, 0)
    assert 10 - tricks[A] == norm - 1
    short = score_result(rules, result(Kind.GAME, A, f"{level}♠", tricks, (B, C)))
    assert short.gora == (0, 0, shortfall)


def test_tv37_leningrad_misere_row() -> None:
    """TV-37 misère row: 10 to pool when made, 20 gora per trick (A-08), no whists."""
    made = score_result(LENINGRAD_S004, result(Kind.MISERE, A, "misère", (0, 5, 5)))
    failed = score_result(LENINGRAD_S004, result(Kind.MISERE, A, "misère", (2, 4, 4)))
    assert made == DealScore((10, 0, 0), NONE, whists({}))
    assert failed == DealScore(NONE, (40, 0, 0), whists({}))


def test_tv36_leningrad_gentleman_split_fourteen_and_fourteen() -> None:
    """TV-36 (RULES.md §2.4, S004 "Пример записи при джентльменском висте"; C-2): 6♣, one
    whister and a passer, defence 5 (one down): (5·4 + 1·4 + 1·4) / 2 = 14 each; the
    declarer writes 4 to gora (S004 Leningrad table)."""
    score = score_result(LENINGRAD_S004, result(Kind.GAME, A, "6♣", (5, 4, 1), (B,), (C,)))
    assert score == DealScore(NONE, (4, 0, 0), whists({(B, A): 14, (C, A): 14}))


def test_c2_rostov_consolation_ten_per_undertrick_on_top_of_trick_whists() -> None:
    """RULES.md §3.5 Rostov (S000): consolation 10 whists per undertrick for both defenders,
    on top of the trick whists. 7♠ two down, whisters 3 and 2: 3·4 + 20 and 2·4 + 20."""
    score = score_result(ROSTOV, result(Kind.GAME, A, "7♠", (5, 3, 2), (B, C)))
    assert score == DealScore(NONE, (8, 0, 0), whists({(B, A): 32, (C, A): 28}))


def test_a25_rostov_consolation_fifteen_as_option() -> None:
    """A-25 (S000): 15 per undertrick in three-player Rostov, as an option."""
    rules = ROSTOV.with_options(consolation_prices=_by_level(15, 15, 15, 15, 15))
    score = score_result(rules, result(Kind.GAME, A, "6♠", (5, 3, 2), (B, C)))
    assert score.whists[B][A] == 3 * 2 + 15 and score.whists[C][A] == 2 * 2 + 15


def test_half_whist_writes_half_the_norm_at_the_whists_per_trick_price() -> None:
    """§1.6 item 4 with C-1: the half-whister writes norm/2 tricks at the whists price:
    4 on a Sochi six, 8 on a Leningrad six (decision: the half-whist is a defence price)."""
    half = result(Kind.HALF_WHIST, A, "6♠", NONE, (), (B, C), half_whister=C)
    assert score_result(DEFAULT, half).whists[C][A] == 4
    assert score_result(LENINGRAD_S004, half).whists[C][A] == 8


# --- liability (C-1, TV-23, TV-31, TV-32, TV-35, A-07) -------------------------------------


def test_c1_half_responsible_pays_half_the_whists_price() -> None:
    """C-1 (S000, S003, S004): half-responsible whist on Sochi prices: a lone whister one trick
    short on a six pays 1 (not 2); on a nine with no trick 4 (not 8)."""
    rules = DEFAULT.with_options(whist_liability=WhistLiability.HALF)
    six = score_result(rules, result(Kind.GAME, A, "6♠", (7, 3, 0), (B,), (C,)))
    nine = score_result(rules, result(Kind.GAME, A, "9♠", (10, 0, 0), (B,), (C,)))
    assert six.gora == (0, 1, 0) and nine.gora == (0, 4, 0)
    assert score_result(DEFAULT, result(Kind.GAME, A, "9♠", (10, 0, 0), (B,), (C,))).gora == (
        0,
        8,
        0,
    )


@pytest.mark.parametrize(
    ("contract", "tricks", "gora"),
    [
        ("6♦", (7, 2, 1), (0, 0, 2)),
        ("6♦", (8, 2, 0), (0, 0, 4)),
        ("7♦", (7, 2, 1), NONE),
        ("7♦", (8, 2, 0), NONE),
    ],
)
def test_tv31_responsible_whist_examples(
    contract: str, tricks: tuple[int, int, int], gora: tuple[int, int, int]
) -> None:
    """TV-31 (RULES.md §2.3, S003 "Ответственный вист"): six, B 2 C 1 → C pays one trick;
    B 2 C 0 → C pays two; the same on a seven → nobody."""
    score = score_result(DEFAULT, result(Kind.GAME, A, contract, tricks, (B, C)))
    assert score.gora == gora


def test_tv31_a07_nine_one_and_none_only_individual_obligations_make_c_pay() -> None:
    """TV-31 / A-07 (S003): nine, first whister B 1, second C 0: the joint norm (1) is met, so
    responsible whist charges nobody; only greedy whist with individual obligations makes C
    pay (quota 1 on a nine, TV-32), which is what S003 prints."""
    nine = result(Kind.GAME, A, "9♦", (9, 1, 0), (B, C))
    assert score_result(DEFAULT, nine).gora == NONE
    greedy = DEFAULT.with_options(whist_obligations=Obligations.TWO_WHISTERS)
    assert score_result(greedy, nine).gora == (0, 0, 8)


def test_tv35_six_spades_overmade_defence_three() -> None:
    """TV-35 (RULES.md §2.4, S004 Wikipedia part): 6♠, declarer 7, defence 3. One whister:
    "without one", 2 gora (half-responsible: 1). Two whisters 2–1: the 1-trick whister 2."""
    lone = result(Kind.GAME, A, "6♠", (7, 3, 0), (B,), (C,))
    pair = result(Kind.GAME, A, "6♠", (7, 2, 1), (B, C))
    half = DEFAULT.with_options(whist_liability=WhistLiability.HALF)
    assert score_result(DEFAULT, lone).gora == (0, 2, 0)
    assert score_result(half, lone).gora == (0, 1, 0)
    assert score_result(DEFAULT, pair).gora == (0, 0, 2)
    assert score_result(half, pair).gora == (0, 0, 1)


def test_second_whist_responsible_variant_both_pay_on_high_levels() -> None:
    """RULES.md §3.2 "Second whist responsible" (S000, S003): on 8/9 the second whister pays
    (the default); the variant makes both whisters pay the missing trick."""
    nine = result(Kind.GAME, A, "9♥", (10, 0, 0), (B, C))
    assert score_result(DEFAULT, nine).gora == (0, 0, 8)
    both = DEFAULT.with_options(shortfall_payer=ShortfallPayer.BOTH)
    assert score_result(both, nine).gora == (0, 8, 8)
    made_by_defence = result(Kind.GAME, A, "8♥", (9, 1, 0), (B, C))
    assert score_result(both, made_by_defence).gora == NONE


def test_tv23_tv32_greedy_individual_obligations_three_players() -> None:
    """TV-23 (S000 conventions, adapted to three players) and TV-32 (S003 "Жлобский вист"):
    A declares 6♣ and takes 5; B whists and takes 0, C whists and takes 5. A: 2 gora;
    B: 2 whists (consolation) and 4 gora (his 2 not taken) although the joint norm is met;
    C: 12 whists."""
    rules = DEFAULT.with_options(whist_obligations=Obligations.TWO_WHISTERS)
    score = score_result(rules, result(Kind.GAME, A, "6♣", (5, 0, 5), (B, C)))
    assert score == DealScore(NONE, (2, 4, 0), whists({(B, A): 2, (C, A): 12}))
    assert score_result(DEFAULT, result(Kind.GAME, A, "6♣", (5, 0, 5), (B, C))).gora == (2, 0, 0)


def test_tv32_lone_whister_individual_quota_on_own_cards() -> None:
    """RULES.md §3.2 greedy with individual obligations (S000 conv.): a lone whister must take
    his quota on his own cards (7 → 1); the passer's tricks belong to nobody. 7♠, declarer 6,
    whister B 0, passer C 4: B counts 0 tricks, pays 4 gora, writes only his consolation 4;
    C writes his consolation 4. Sub-variant (two whisters only): B counts both hands."""
    deal = result(Kind.GAME, A, "7♠", (6, 0, 4), (B,), (C,))
    strict = DEFAULT.with_options(whist_obligations=Obligations.ALL)
    assert score_result(strict, deal) == DealScore(NONE, (4, 4, 0), whists({(B, A): 4, (C, A): 4}))
    sub = DEFAULT.with_options(whist_obligations=Obligations.TWO_WHISTERS)
    assert score_result(sub, deal) == DealScore(NONE, (4, 0, 0), whists({(B, A): 20, (C, A): 4}))


def test_failing_whister_writes_no_whists_for_his_tricks() -> None:
    """RULES.md §3.2 (S000 conv.): a whister below his obligation writes no whists for his
    tricks (his consolation stays). 6♠, declarer 4; B 1 trick (quota 2), C 5."""
    rules = DEFAULT.with_options(
        whist_obligations=Obligations.TWO_WHISTERS, failing_whister_writes_whists=False
    )
    score = score_result(rules, result(Kind.GAME, A, "6♠", (4, 1, 5), (B, C)))
    assert score == DealScore(NONE, (4, 2, 0), whists({(B, A): 4, (C, A): 14}))
    writes = DEFAULT.with_options(whist_obligations=Obligations.TWO_WHISTERS)
    assert score_result(writes, result(Kind.GAME, A, "6♠", (4, 1, 5), (B, C))).whists[B][A] == 6


def test_failing_lone_whister_writes_no_whists() -> None:
    """The same rule for a lone whister short of the joint norm: 6♠, declarer 7, B 3."""
    rules = DEFAULT.with_options(failing_whister_writes_whists=False)
    score = score_result(rules, result(Kind.GAME, A, "6♠", (7, 3, 0), (B,), (C,)))
    assert score == DealScore((2, 0, 0), (0, 2, 0), whists({}))


# --- sharing (C-3, C-4, A-10) --------------------------------------------------------------


def test_c4_greedy_s004_reading_passer_gets_nothing() -> None:
    """C-4: S000 (Sochi) lets the passer keep his consolation (default); S004's greedy has the
    whister write it for him. 7♠ taken 5, whister C 28 + 8, passer B nothing."""
    deal = result(Kind.GAME, A, "7♠", (5, 4, 1), (C,), (B,))
    assert score_result(DEFAULT, deal).whists[B][A] == 8
    rules = DEFAULT.with_options(greedy_passer_consolation=False)
    assert score_result(rules, deal) == DealScore(NONE, (8, 0, 0), whists({(C, A): 36}))


def test_gentleman_sochi_prices_split_on_failure_only() -> None:
    """RULES.md §3.2 gentleman (S000, S004): the split is only when the declarer fails (A-10).
    7♠ taken 5: (5·4 + 8 + 8) / 2 = 18 each; 7♠ made with 7: the whister writes his 12."""
    rules = DEFAULT.with_options(whist_sharing=WhistSharing.GENTLEMAN)
    failed = score_result(rules, result(Kind.GAME, A, "7♠", (5, 4, 1), (C,), (B,)))
    assert failed.whists[C][A] == 18 and failed.whists[B][A] == 18
    made = score_result(rules, result(Kind.GAME, A, "7♠", (7, 2, 1), (C,), (B,)))
    assert made.whists[C][A] == 12 and made.whists[B][A] == 0


def test_a10_gentleman_always_split_s003() -> None:
    """A-10 (S003): with one whister the whists are always split: 7♠ made, defence 3 → 6 each."""
    rules = DEFAULT.with_options(whist_sharing=WhistSharing.GENTLEMAN, gentleman_split_always=True)
    made = score_result(rules, result(Kind.GAME, A, "7♠", (7, 2, 1), (C,), (B,)))
    assert made == DealScore((4, 0, 0), NONE, whists({(C, A): 6, (B, A): 6}))


def test_c3_penalties_split_leningrad_gora_only_whister_rostov() -> None:
    """C-3: S004 (Leningrad) splits penalties in half too; S000 (Rostov) writes gora only for
    the whister. 6♠, declarer 7, lone whister B 3: shortfall 1 trick."""
    deal = result(Kind.GAME, A, "6♠", (7, 3, 0), (B,), (C,))
    assert score_result(LENINGRAD_S004, deal).gora == (0, 1, 1)
    assert score_result(ROSTOV, deal).gora == (0, 1, 0)
    assert score_result(LENINGRAD_S004, deal).whists[B][A] == 12


def test_gentleman_half_whister_after_return_writes_only_consolation() -> None:
    """S000 "Джентльменский вист": a player who went half-whist writes only for the declarer's
    failure — no split after a return whist (A-02 option keeps his consolation)."""
    rules = ROSTOV.with_options(return_whist_passer_keeps_consolation=True)
    deal = result(Kind.GAME, A, "6♠", (5, 4, 1), (B,), (C,), half_whister=C, returned=True)
    score = score_result(rules, deal)
    assert score.whists[B][A] == 5 * 2 + 10 and score.whists[C][A] == 10


# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "field", "words"),
    [
        ({"whist_prices": {6: 4}}, "whist_prices", "levels 6 to 10"),
        (
            {"whist_liability": WhistLiability.HALF, "contract_values": _by_level(3, 6, 9, 8, 12)},
            "whist_liability",
            "odd on level 6",
        ),
        (
            {"whist_sharing": WhistSharing.GENTLEMAN, "whist_prices": _by_level(3, 6, 9, 12, 15)},
            "whist_sharing",
            "odd on level 6",
        ),
        ({"gentleman_split_always": True}, "gentleman_split_always", "gentleman"),
        ({"gentleman_split_penalties": True}, "gentleman_split_penalties", "gentleman"),
        (
            {"whist_sharing": WhistSharing.GENTLEMAN, "greedy_passer_consolation": False},
            "greedy_passer_consolation",
            "greedy reading",
        ),
        (
            {
                "whist_sharing": WhistSharing.GENTLEMAN,
                "whist_liability": WhistLiability.HALF,
                "gentleman_split_penalties": True,
            },
            "gentleman_split_penalties",
            "even penalty",
        ),
        (
            {"whist_obligations": Obligations.TWO_WHISTERS, "penalty_capped": True},
            "penalty_capped",
            "individual obligations",
        ),
        (
            {"whist_obligations": Obligations.ALL, "shortfall_payer": ShortfallPayer.BOTH},
            "shortfall_payer",
            "individual obligations",
        ),
    ],
)
def test_whisting_combinations_that_make_no_sense_are_refused(
    options: dict[str, object], field: str, words: str
) -> None:
    """issue 11: a combination that makes no sense is refused naming the conflict."""
    with pytest.raises(InvalidAction, match=words) as refused:
        DEFAULT.with_options(**options)
    assert refused.value.field == f"rules.{field}"


def test_whisting_options_round_trip_through_the_recorded_form() -> None:
    """Every new option is recorded in the game's first event and read back (schema too)."""
    import jsonschema

    from domain.rules.ruleset_schema import options_schema
    from domain.rules.scoring import DEFENCE_SCORERS

    for rules in (LENINGRAD_S004, ROSTOV):
        data = rules.to_dict()
        jsonschema.validate(data, options_schema(list(DEFENCE_SCORERS)))
        assert RuleSet.from_dict(data) == rules
    assert LENINGRAD_S004.to_dict()["whist_prices"] == {"6": 4, "7": 8, "8": 12, "9": 16, "10": 20}


def test_lone_whister_with_individual_obligations_defends_closed() -> None:
    """RULES.md §3.2 (S000 conv.): with individual obligations a lone whister may not lay the
    hands open; the passer plays dark. Other kinds keep the choice (§1.6 item 2)."""
    from domain.rules import CLOSED, OPEN, Phase, legal_actions
    from tests.unit.rules_helpers import act, assert_illegal, won_by_a

    rules = DEFAULT.with_options(whist_obligations=Obligations.ALL)
    state = act(won_by_a("declare 7♥", rules=rules), "whist", "pass")
    assert state.phase is Phase.DEFENCE and legal_actions(state) == (CLOSED,)
    assert_illegal(state, "open", "defends closed")
    assert act(state, "closed").phase is Phase.PLAY
    default = act(won_by_a("declare 7♥"), "whist", "pass")
    assert legal_actions(default) == (OPEN, CLOSED)


# --- calls: Stalingrad, pass–pass–whist, checked ten, open-defence timing -------------------


def test_stalingrad_both_defenders_must_whist_on_six_spades() -> None:
    """RULES.md §3.2 Stalingrad (S000 conv. "так называемый «Сталинград»", S004 glossary):
    on 6♠ both defenders whist automatically; other contracts and the default are free."""
    from domain.rules import WHIST, Phase, legal_actions
    from tests.unit.rules_helpers import act, assert_illegal, won_by_a

    rules = DEFAULT.with_options(stalingrad=True)
    state = won_by_a("declare 6♠", rules=rules)
    assert legal_actions(state) == (WHIST,)
    assert_illegal(state, "pass", "Stalingrad", "must whist")
    state = act(state, "whist")
    assert legal_actions(state) == (WHIST,)
    assert_illegal(state, "pass", "Stalingrad")
    played = act(state, "whist")
    assert played.phase is Phase.PLAY and played.whist.whisters == (B, C)
    assert len(legal_actions(won_by_a("declare 6♣", rules=rules))) == 2
    assert len(legal_actions(won_by_a("declare 6♠"))) == 2


def test_pass_pass_whist_first_defender_reconsiders_on_eight_and_nine() -> None:
    """RULES.md §3.2 "Пас – Пас – Вист" (S000 conv.; S004: "на 8-й и 9-й играх первый
    вистующий может перезаказать ВИСТ при двух пасах"): after two passes on an 8 the first
    defender B may whist (then defends alone) or pass (the game is given)."""
    from domain.rules import PASS, WHIST, Kind, Phase, actor, legal_actions, score_deal
    from tests.unit.rules_helpers import act, play_out, won_by_a

    rules = DEFAULT.with_options(pass_pass_whist_levels=frozenset({8, 9}))
    state = act(won_by_a("declare 8♠", rules=rules), "pass", "pass")
    assert state.phase is Phase.WHISTING and actor(state) == B
    assert legal_actions(state) == (WHIST, PASS)
    defended = act(state, "whist")
    assert (defended.phase, actor(defended), defended.whist.whisters) == (Phase.DEFENCE, B, (B,))
    done = play_out(act(defended, "closed"))
    assert done.result is not None and done.result.whisters == (B,)
    assert done.result.passers == (C,)
    # Lowest cards played: A takes 3 of 8, five down: B (7 + 5) × 6, C his consolation 5 × 6.
    assert done.result.tricks[A] == 3
    assert score_deal(done).whists[B][A] == 72 and score_deal(done).whists[C][A] == 30
    given = act(state, "pass")
    assert given.result is not None and given.result.kind is Kind.PASSED_OUT
    # Not on other levels, and not by default.
    seven = act(won_by_a("declare 7♠", rules=rules), "pass", "pass")
    assert seven.result is not None and seven.result.kind is Kind.PASSED_OUT
    default = act(won_by_a("declare 8♠"), "pass", "pass")
    assert default.result is not None and default.result.kind is Kind.PASSED_OUT


def test_a17_checked_ten_all_hands_open_no_obligations() -> None:
    """A-17 (S000 "Десятерная ... не вистуется", "ничем не рискуя (оба игрока считаются
    вистовавшими, но не взявшими на себя каких-либо обязательств)"; S004 "вистуется /
    проверяется"): a defender checks the ten; the declarer shows his cards, every hand lies
    open, both defenders count as whisters without obligations; two passes give the ten."""
    from domain.rules import Kind, Phase, score_deal, seat_view
    from tests.unit.rules_helpers import act, play_out, won_by_a

    rules = DEFAULT.with_options(ten_whisted=False, ten_checked=True)
    checked = act(won_by_a("declare 10♠", rules=rules), "whist")
    assert checked.phase is Phase.PLAY and checked.whist.whisters == (B, C)
    assert checked.open_hands == 0b111
    assert all(h is not None for h in seat_view(checked, B).hands)
    done = play_out(checked)
    assert done.result is not None and done.result.kind is Kind.GAME
    score = score_deal(done)
    assert score.gora[B] == score.gora[C] == 0  # no obligations, whatever the defence took
    late = act(won_by_a("declare 10♠", rules=rules), "pass", "whist")
    assert late.phase is Phase.PLAY and late.open_hands == 0b111
    given = act(won_by_a("declare 10♠", rules=rules), "pass", "pass")
    assert given.result is not None and given.result.kind is Kind.PASSED_OUT
    assert score_deal(given).pool == (10, 0, 0)
    # The older A-17 reading (ten_whisted=False alone): played out unwhisted, closed.
    unwhisted = won_by_a("declare 10♠", rules=DEFAULT.with_options(ten_whisted=False))
    assert unwhisted.phase is Phase.PLAY and unwhisted.open_hands == 0


def test_a17_checked_ten_defence_taking_nothing_pays_nothing() -> None:
    """A-17 scoring: a checked ten made with all ten tricks costs the defenders nothing (a
    whisted ten would make the second whister pay the missing trick)."""
    deal = result(Kind.GAME, A, "10♠", (10, 0, 0), (B, C))
    checked = DEFAULT.with_options(ten_whisted=False, ten_checked=True)
    assert score_result(checked, deal).gora == NONE
    assert score_result(DEFAULT, deal).gora == (0, 0, 10)
    failed = score_result(checked, result(Kind.GAME, A, "10♠", (9, 1, 0), (B, C)))
    assert failed.whists[B][A] == 20 and failed.whists[C][A] == 10


def test_open_defence_after_the_declarers_first_lead() -> None:
    """RULES.md §3.2 open-defence timing (S000 "карты вистующих раскрываются после первого
    хода играющего, если он сидит на первой руке"; S004 "before/after"): the declarer A is on
    first hand; the defence lies down after his lead. Default: before the first lead."""
    from domain.rules import PlayCard, legal_actions
    from tests.unit.rules_helpers import act, won_by_a

    rules = DEFAULT.with_options(open_after_first_lead=True)
    state = act(won_by_a("declare 7♥", rules=rules), "whist", "pass", "open")
    assert state.open_hands == 0
    lead = next(a for a in legal_actions(state) if isinstance(a, PlayCard))
    after = act(state, lead)
    assert after.open_hands == (1 << B) | (1 << C)
    default = act(won_by_a("declare 7♥"), "whist", "pass", "open")
    assert default.open_hands == (1 << B) | (1 << C)


@pytest.mark.parametrize(
    ("options", "field", "words"),
    [
        ({"ten_checked": True}, "ten_checked", "either whisted"),
        (
            {"ten_checked": True, "ten_whisted": False, "half_whist_levels": frozenset({6, 7, 10})},
            "ten_checked",
            "no half-whist",
        ),
        ({"pass_pass_whist_levels": frozenset({7, 8})}, "pass_pass_whist_levels", "level 7"),
        (
            {"pass_pass_whist_levels": frozenset({10}), "ten_whisted": False},
            "pass_pass_whist_levels",
            "needs ten_whisted",
        ),
    ],
)
def test_call_options_that_make_no_sense_are_refused(
    options: dict[str, object], field: str, words: str
) -> None:
    """issue 11: senseless combinations of the whisting calls are refused naming the conflict."""
    with pytest.raises(InvalidAction, match=words) as refused:
        DEFAULT.with_options(**options)
    assert refused.value.field == f"rules.{field}"


def test_s003_going_for_own_tricks_is_the_half_whist_on_every_level() -> None:
    """RULES.md §3.2 "Going for own tricks" (S003 "уйти за свои взятки"): after the first
    defender passed, the second goes for his own: 6 → two tricks, 7 → one; on higher games the
    declarer plays without whists (game counted made). It needs the first's consent, who may
    return whist instead; the returner then writes all whists (A-02 literal) and the gora.
    S000 calls the same call "за две" / "за свои": it is the half-whist (RULES.md §1.6 item 4)
    on the levels ``half_whist_levels`` lists, here 6 to 10."""
    from domain.rules import HALF_WHIST, PASS, WHIST, Kind, legal_actions, score_deal
    from tests.unit.rules_helpers import act, play_out, won_by_a

    rules = DEFAULT.with_options(half_whist_levels=frozenset({6, 7, 8, 9, 10}))
    for contract, own in (("6♠", 4), ("7♠", 4), ("8♠", 0), ("9♠", 0)):
        offered = act(won_by_a(f"declare {contract}", rules=rules), "pass")
        assert legal_actions(offered) == (WHIST, PASS, HALF_WHIST)
        asked = act(offered, "half-whist")
        assert legal_actions(asked) == (WHIST, PASS)  # the first's consent, or his return
        consented = act(asked, "pass")
        assert consented.result is not None and consented.result.kind is Kind.HALF_WHIST
        score = score_deal(consented)
        assert score.pool[A] == rules.value(int(contract[0])) and score.whists[C][A] == own
    returned = play_out(
        act(won_by_a("declare 8♠", rules=rules), "pass", "half-whist", "whist", "closed")
    )
    assert returned.result is not None and returned.result.returned
    score = score_deal(returned)
    assert score.whists[C][A] == 0  # the goer writes nothing; the returner writes all
    assert (
        score.whists[B][A]
        == (10 - returned.result.tricks[A]) * 6 + 2 * max(0, 8 - returned.result.tricks[A]) * 6
    )
    # Not offered on 8 by default (S001: half-whist only on 6 and 7).
    assert legal_actions(act(won_by_a("declare 8♠"), "pass")) == (WHIST, PASS)


# --- S004 own whist ----------------------------------------------------------------------------


def test_s004_own_whist_offered_after_two_passes_declarer_allows_or_refuses() -> None:
    """RULES.md §3.2 S004 "свой вист" (S004 glossary: "вистующие отказались активно вистовать,
    один из них соглашается на свой вист, если ему разрешит играющий (свой вист возможен
    только на 6-й и 7-й игре)"): after two passes the first defender, then the second, may
    offer it; the declarer allows (no play, the offerer writes his own tricks like a
    half-whist: 2 × 2 on a six) or refuses (the game is given as after two passes)."""
    from domain.rules import ALLOW, OWN_WHIST, PASS, REFUSE, Kind, actor, legal_actions, score_deal
    from tests.unit.rules_helpers import act, assert_illegal, won_by_a

    rules = DEFAULT.with_options(own_whist_levels=frozenset({6, 7}))
    passed = act(won_by_a("declare 6♥", rules=rules), "pass", "pass")
    assert (actor(passed), legal_actions(passed)) == (B, (OWN_WHIST, PASS))
    offered = act(passed, "own whist")
    assert (actor(offered), legal_actions(offered)) == (A, (ALLOW, REFUSE))
    assert_illegal(offered, "whist", "not a whisting call")
    allowed = act(offered, "allow")
    assert allowed.result is not None and allowed.result.kind is Kind.HALF_WHIST
    assert allowed.result.half_whister == B
    assert score_deal(allowed) == DealScore((2, 0, 0), NONE, whists({(B, A): 4}))
    refused = act(offered, "refuse")
    assert refused.result is not None and refused.result.kind is Kind.PASSED_OUT
    assert score_deal(refused) == DealScore((2, 0, 0), NONE, whists({}))
    second = act(passed, "pass")
    assert (actor(second), legal_actions(second)) == (C, (OWN_WHIST, PASS))
    by_c = act(second, "own whist", "allow")
    assert score_deal(by_c).whists[C][A] == 4
    given = act(second, "pass")
    assert given.result is not None and given.result.kind is Kind.PASSED_OUT
    # Not on an 8, and not by default.
    eight = act(won_by_a("declare 8♠", rules=rules), "pass", "pass")
    assert eight.result is not None and eight.result.kind is Kind.PASSED_OUT
    plain = act(won_by_a("declare 6♥"), "pass", "pass")
    assert plain.result is not None and plain.result.kind is Kind.PASSED_OUT


def test_s004_own_whist_options_refused_off_six_and_seven_or_with_pass_pass_whist() -> None:
    """S004: own whist "only on 6 and 7"; after two passes it cannot share a level with
    pass–pass–whist (the first defender's turn would mean two things)."""
    with pytest.raises(InvalidAction, match="only for 6 and 7") as refused:
        DEFAULT.with_options(own_whist_levels=frozenset({8}))
    assert refused.value.field == "rules.own_whist_levels"
    with pytest.raises(InvalidAction, match="not both") as both:
        DEFAULT.with_options(
            own_whist_levels=frozenset({7}),
            pass_pass_whist_levels=frozenset({7}),
            half_whist_levels=frozenset({6}),
        )
    assert both.value.field == "rules.own_whist_levels"


def test_own_whist_actions_notation_and_proto_round_trip() -> None:
    """The new actions have a notation (hand records, CLI) and a proto form (the API)."""
    from domain.rules import ALLOW, OWN_WHIST, REFUSE, parse_action
    from service.api.mapping import action_from_proto, action_to_proto

    for action in (OWN_WHIST, ALLOW, REFUSE):
        assert parse_action(str(action)) == action
        assert action_from_proto(action_to_proto(action)) == action
    assert parse_action("свой вист") == OWN_WHIST


def test_gentleman_whist_pass_half_whist_the_half_whister_writes_only_consolation() -> None:
    """S000 "Джентльменский вист": "Уходивший за полвиста пишет только за безвзятие
    играющего". Whist – pass – half-whist (A-03), then the original passer C whists alone: the
    first defender B, who went half-whist, writes only his consolation; C writes his tricks
    and consolation — no split."""
    rules = ROSTOV.with_options(whist_pass_half_whist=True)
    deal = result(Kind.GAME, A, "6♠", (5, 1, 4), (C,), (B,), half_whister=B)
    score = score_result(rules, deal)
    assert score.whists[B][A] == 10 and score.whists[C][A] == 5 * 2 + 10
    plain = result(Kind.GAME, A, "6♠", (5, 1, 4), (C,), (B,))
    assert score_result(rules, plain).whists[B][A] == (5 * 2 + 20) // 2


def test_a09_s000_leningrad_prices_need_doubled_whists_for_half_responsible_gentleman() -> None:
    """A-09 (S000 "ленинградская роспись" 3/6/9/8/12): with half-responsible gentleman whist
    the whists-per-trick prices are halved and split, so they must be even — doubled like
    S004's records; the halved penalties 3/6/9/8/12 cannot be split (C-3), so the gora stays
    the whister's (as S000 says)."""
    values = _by_level(3, 6, 9, 8, 12)
    doubled = _by_level(6, 12, 18, 16, 24)
    kinds = {"whist_liability": WhistLiability.HALF, "whist_sharing": WhistSharing.GENTLEMAN}
    with pytest.raises(InvalidAction, match="odd on level 6"):
        DEFAULT.with_options(contract_values=values, **kinds)
    rules = DEFAULT.with_options(
        contract_values=values, whist_prices=doubled, undertrick_prices=doubled, **kinds
    )
    assert [rules.shortfall_price(level) for level in (6, 7, 8, 9, 10)] == [3, 6, 9, 8, 12]
    with pytest.raises(InvalidAction, match="even penalty"):
        rules.with_options(gentleman_split_penalties=True)
    # 6♠ one down, lone whister with 5 defence tricks: (5·6 + 6 + 6) / 2 = 21 each; 6 gora.
    score = score_result(rules, result(Kind.GAME, A, "6♠", (5, 4, 1), (B,), (C,)))
    assert score == DealScore(NONE, (6, 0, 0), whists({(B, A): 21, (C, A): 21}))
