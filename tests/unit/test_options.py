"""Every ``RuleSet`` option of RULES.md §6 works (A-01 … A-24), plus pool length, raspasy
prices and exit levels, and the rule set's serialised form."""

from __future__ import annotations

import pytest

from domain.rules import (
    CLOSED,
    DEFAULT,
    HALF_WHIST,
    OPEN,
    WHIST,
    Bidding,
    DealScore,
    HelpTie,
    InvalidAction,
    Kind,
    Phase,
    RuleSet,
    ScoreSheet,
    Shuffle,
    finish_deal,
    legal_actions,
    new_game,
    parse_action,
    record,
    rule_set,
    score_deal,
    score_result,
    start_deal,
)
from tests.unit.rules_helpers import (
    A,
    B,
    C,
    act,
    assert_illegal,
    claim_rest,
    play_out,
    result,
    sample,
    whists,
    won_by_a,
)

NONE = (0, 0, 0)


def calls(*texts: str) -> tuple[object, ...]:
    return tuple(parse_action(t) for t in texts)


def test_a01_penalty_capped_at_joint_shortfall() -> None:
    rules = RuleSet(penalty_capped=True)
    three_nil = result(Kind.GAME, A, "6♠", (7, 3, 0), (B, C))
    one_one = result(Kind.GAME, A, "6♠", (8, 1, 1), (B, C))
    assert score_result(DEFAULT, three_nil).gora == (0, 0, 4)
    assert score_result(rules, three_nil).gora == (0, 0, 2)
    assert score_result(rules, one_one).gora == (0, 2, 2)


def test_a02_passer_keeps_consolation_on_return_whist() -> None:
    res = result(Kind.GAME, A, "7♠", (5, 4, 1), (B,), (C,), half_whister=C, returned=True)
    rules = RuleSet(return_whist_passer_keeps_consolation=True)
    assert score_result(rules, res).whists == whists({(B, A): 28, (C, A): 8})
    assert score_result(DEFAULT, res).whists == whists({(B, A): 36})


def test_a03_whist_pass_half_whist() -> None:
    rules = RuleSet(whist_pass_half_whist=True)
    state = act(won_by_a("declare 6♠", rules=rules), "whist", "pass")
    assert (state.phase, state.to_act, legal_actions(state)) == (
        Phase.WHISTING,
        B,
        (WHIST, HALF_WHIST),
    )
    assert_illegal(state, "pass", "you may say whist, half-whist")
    ended = act(state, "half-whist", "pass")
    assert ended.result is not None
    assert (ended.result.kind, ended.result.half_whister) == (Kind.HALF_WHIST, B)
    assert score_deal(ended) == DealScore((2, 0, 0), NONE, whists({(B, A): 4}))
    defended = act(state, "whist")
    assert (defended.phase, defended.whist.whisters) == (Phase.DEFENCE, (B,))


def test_a03_option_does_not_apply_to_eights() -> None:
    rules = RuleSet(whist_pass_half_whist=True)
    state = act(won_by_a("declare 8♠", rules=rules), "whist", "pass")
    assert (state.phase, legal_actions(state)) == (Phase.DEFENCE, (OPEN, CLOSED))


def test_a03_original_passer_may_then_whist() -> None:
    """RULES.md §3.2 'Whist – Pass – Half-whist': after the whister's half-whist the original
    passer may say whist (he then defends alone) or pass (the half-whist stands)."""
    rules = RuleSet(whist_pass_half_whist=True)
    state = act(won_by_a("declare 6♠", rules=rules), "whist", "pass", "half-whist")
    assert (state.phase, state.to_act) == (Phase.WHISTING, C)
    taken = act(state, "whist")
    assert (taken.phase, taken.to_act, taken.whist.whisters) == (Phase.DEFENCE, C, (C,))
    stands = act(state, "pass")
    assert stands.phase is Phase.SCORED
    assert stands.result is not None and stands.result.kind is Kind.HALF_WHIST


def test_a04_nt_skip_allows_skipping_no_trump_only() -> None:
    rules = RuleSet(bidding=Bidding.NT_SKIP)
    state = act(sample(rules=rules), "6♠", "6♣", "6♦", "6♥")
    assert legal_actions(state) == calls("pass", "6NT", "7♠")
    assert_illegal(state, "7♣", "you cannot bid 7♣", "a bid of 6NT, 7♠")
    assert act(state, "7♠").auction.high == 5
    assert legal_actions(act(sample(rules=rules), "6♠")) == calls("pass", "misère", "6♣")


def test_a04_jump_bids_allow_any_higher_bid() -> None:
    rules = RuleSet(bidding=Bidding.JUMP)
    state = act(sample(rules=rules), "6♥")
    legal = legal_actions(state)
    assert legal[:3] == calls("pass", "misère", "6NT") and legal[-1] == parse_action("10NT")
    assert len(legal) == 2 + 21  # pass, misère and the 21 ordinary bids above 6♥
    assert_illegal(state, "6♥", "you cannot bid 6♥")
    state = act(state, "8NT")
    assert parse_action("misère") in legal_actions(state)  # misère above all eights
    state = act(state, "misère")
    assert legal_actions(state)[:2] == calls("pass", "9♠")


def test_a05_here_only_between_two_bidders() -> None:
    rules = RuleSet(here_between_two_only=True)
    three = act(sample(rules=rules), "6♠", "6♣", "6♦")
    assert legal_actions(three) == calls("pass", "6♥")
    assert_illegal(three, "here", "the next bid is 6♥ or pass")
    two = act(sample(rules=rules), "6♠", "6♣", "pass")
    assert legal_actions(two) == calls("pass", "here", "6♦")


def test_a08_misere_trick_penalty_twenty() -> None:
    rules = RuleSet(misere_trick_penalty=20)
    res = result(Kind.MISERE, A, "misère", (2, 4, 4))
    assert score_result(rules, res) == DealScore(NONE, (40, 0, 0), whists({}))
    clean = result(Kind.MISERE, A, "misère", (0, 4, 6))
    assert score_result(rules, clean).pool == (10, 0, 0)


def test_a17_ten_not_whisted_is_played_out_unchecked_by_defenders() -> None:
    rules = RuleSet(ten_whisted=False)
    state = won_by_a("declare 10♥", rules=rules)
    assert (state.phase, state.to_act, state.whist.calls, state.open_hands) == (
        Phase.PLAY,
        A,
        (),
        0,
    )
    made = claim_rest(state, (10, 0, 0))
    assert made.result is not None and made.result.whisters == ()
    assert score_deal(made) == DealScore((10, 0, 0), NONE, whists({}))
    failed = claim_rest(state, (9, 1, 0))
    assert score_deal(failed).gora == (10, 0, 0)
    assert won_by_a("declare 9♥", rules=rules).phase is Phase.WHISTING


def test_a18_nine_over_misere_stops_the_auction() -> None:
    rules = RuleSet(misere_beaten_stops_auction=True)
    state = act(sample(rules=rules), "misère", "9♠")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "9♠")
    assert act(sample(), "misère", "9♠").phase is Phase.BIDDING


def test_a19_raspasy_amnesty_subtracts_common_minimum() -> None:
    rules = RuleSet(raspasy_amnesty=True)
    reduced = score_result(rules, result(Kind.RASPASY, -1, None, (4, 3, 3)))
    assert reduced == DealScore(NONE, (1, 0, 0), whists({}))  # the reduced 0 is no true zero
    zero = score_result(rules, result(Kind.RASPASY, -1, None, (0, 5, 5)))
    assert zero == DealScore((1, 0, 0), (0, 5, 5), whists({}))


def test_a20_help_tie_smaller_gora_first() -> None:
    rules = RuleSet(help_tie=HelpTie.SMALLER_GORA)
    score = DealScore((2, 0, 0), NONE, whists({}))
    sheet = ScoreSheet((20, 15, 15), (0, 8, 3), whists({}))
    assert record(sheet, score, rules, (A, B, C))[1].helps[0].recipient == C
    assert record(sheet, score, DEFAULT, (A, B, C))[1].helps[0].recipient == B
    equal = ScoreSheet((20, 15, 15), (0, 3, 3), whists({}))
    assert record(equal, score, rules, (A, B, C))[1].helps[0].recipient == B


def test_a24_misere_defence_may_choose_closed() -> None:
    rules = RuleSet(misere_defence_choice=True)
    base = act(sample(rules=rules), "pass", "misère", "pass", "take talon", "discard 7s 8s")
    state = act(base, "declare misère")
    assert (state.phase, state.to_act, legal_actions(state)) == (Phase.DEFENCE, C, (OPEN, CLOSED))
    closed = act(state, "closed", "play Ah", "play 9h")
    assert (closed.open_hands, closed.whist.open) == (0, False)
    opened = act(state, "open")
    assert opened.open_hands == (1 << A) | (1 << C)


def test_a24_closed_misere_stays_closed_after_first_hand_lead() -> None:
    rules = RuleSet(misere_defence_choice=True)
    state = act(sample(rules=rules), "misère", "pass", "pass", "take talon", "discard Qs Tc")
    state = act(state, "declare misère", "closed", "play 7d")
    assert state.open_hands == 0


def test_pool_target_closes_pools_at_the_agreed_length() -> None:
    rules = RuleSet(pool_target=10)
    score = DealScore((6, 0, 0), NONE, whists({}))
    sheet, _ = record(ScoreSheet((8, 10, 10), NONE, whists({})), score, rules, (A, B, C))
    assert sheet.pool == (10, 10, 10) and sheet.all_closed(rules)
    assert not sheet.all_closed(DEFAULT)
    assert sheet.gora == (0, 4, 4)  # 4 left after closing: own gora 0, excess to each other


def test_raspasy_trick_prices_progression() -> None:
    rules = RuleSet(raspasy_trick_prices=(1, 2, 3))
    res = result(Kind.RASPASY, -1, None, (4, 6, 0))
    assert [score_result(rules, res, s).gora for s in (0, 1, 2, 7)] == [
        (4, 6, 0),
        (8, 12, 0),
        (12, 18, 0),
        (12, 18, 0),
    ]
    assert score_result(rules, res, 2).pool == (0, 0, 1)
    second = play_out(act(sample(rules=rules, streak=1), "pass", "pass", "pass"))
    assert second.result is not None
    assert score_deal(second).gora == tuple(2 * t for t in second.result.tricks)


def test_raspasy_exit_levels_raise_the_auction_floor() -> None:
    rules = RuleSet(raspasy_exit_levels=(6, 7, 8))
    assert legal_actions(sample(rules=rules)) == calls("pass", "misère", "6♠")
    after_one = sample(rules=rules, streak=1)
    assert legal_actions(after_one) == calls("pass", "misère", "7♠")
    assert_illegal(after_one, "6♠", "you cannot bid 6♠", "the next bid is 7♠")
    assert legal_actions(sample(rules=rules, streak=5)) == calls("pass", "misère", "8♠")
    assert legal_actions(sample(streak=3)) == calls("pass", "misère", "6♠")


def test_raspasy_streak_in_a_game_raises_the_next_floor() -> None:
    rules = RuleSet(raspasy_exit_levels=(6, 7))
    game = start_deal(new_game(rules, A), Shuffle(tuple(range(32)), 4))
    assert game.deal is not None
    game = game._replace(deal=play_out(act(game.deal, "pass", "pass", "pass")))
    game, _, _ = finish_deal(game)
    game = start_deal(game, Shuffle(tuple(range(32)), 4))
    assert game.deal is not None and game.deal.raspasy_streak == 1
    assert legal_actions(game.deal) == calls("pass", "misère", "7♠")


def test_rule_set_round_trips_through_dict() -> None:
    rules = RuleSet(
        pool_target=25,
        bidding=Bidding.NT_SKIP,
        help_tie=HelpTie.SMALLER_GORA,
        raspasy_trick_prices=(1, 2),
        raspasy_exit_levels=(6, 7),
        penalty_capped=True,
        half_whist_levels=frozenset({6}),
    )
    data = rules.to_dict()
    assert (data["bidding"], data["help_tie"], data["raspasy_trick_prices"]) == (
        "nt-skip",
        "smaller-gora",
        [1, 2],
    )
    assert data["contract_values"] == {"6": 2, "7": 4, "8": 6, "9": 8, "10": 10}
    assert RuleSet.from_dict(data) == rules
    assert RuleSet.from_dict(DEFAULT.to_dict()) == DEFAULT
    assert RuleSet.from_dict({}) == DEFAULT


def test_rule_set_unknown_or_bad_options_rejected() -> None:
    with pytest.raises(InvalidAction, match="unknown rule options: colour, tea_break"):
        RuleSet.from_dict({"tea_break": True, "colour": 1})
    with pytest.raises(InvalidAction, match="rule option bidding"):
        RuleSet.from_dict({"bidding": "leaping"})
    with pytest.raises(InvalidAction, match="3, 4 or 5 players"):
        RuleSet(players=6)
    with pytest.raises(InvalidAction, match="unknown whist kind 'greedy'"):
        RuleSet(whist_kind="greedy")
    with pytest.raises(InvalidAction, match="exit levels must be 6 to 10"):
        RuleSet(raspasy_exit_levels=(5,))
    assert rule_set("default") == DEFAULT
    assert rule_set("sochi").name == "sochi"
    with pytest.raises(InvalidAction, match="unknown rule set 'moscow-nights'"):
        rule_set("moscow-nights")
