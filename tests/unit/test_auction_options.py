"""Auction and contract options for three players (issue 11; RULES.md §3.1, §5 A-06, A-22;
seeds S000 «Торговля» and «Конвенции», S004)."""

from __future__ import annotations

import pytest

from domain.rules import DEFAULT, RuleSet, legal_actions, parse_action
from domain.rules.ruleset import Bidding
from domain.rules.state import Phase
from tests.unit.rules_helpers import A, B, act, assert_illegal, sample


def calls(*texts: str) -> tuple[object, ...]:
    return tuple(parse_action(t) for t in texts)


# --- "here" by the later hand (S000 main text) -----------------------------------

LATER = RuleSet(here_passes_to_later=True)


def test_a06_later_hand_may_say_here_once_the_earlier_raised_instead() -> None:
    """S000 «Торговля»: "if the player who may say 'here' did not use it, the second may"."""
    state = act(sample(rules=LATER), "6♠", "6♣", "pass")
    assert legal_actions(state) == calls("pass", "here", "6♦")
    state = act(state, "6♦")  # A raises where he could have said "here"
    assert legal_actions(state) == calls("pass", "here", "6♥")
    state = act(state, "here")  # B now holds A's 6♦
    assert (state.auction.holder, state.to_act) == (B, A)
    assert legal_actions(state) == calls("pass", "6♥")
    assert_illegal(state, "here", "only the hand with the priority may say 'here'")
    state = act(state, "6♥", "here", "pass")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "6♥")


def test_a06_priority_returns_when_the_later_hand_also_raises() -> None:
    state = act(sample(rules=LATER), "6♠", "6♣", "pass", "6♦", "6♥")
    # B raised where he could have said "here": the priority is A's again.
    assert legal_actions(state) == calls("pass", "here", "6NT")


def test_a06_default_the_later_hand_never_says_here() -> None:
    """S000 «Конвенции» and S001: only the earlier hand, "even if the first did not use it"."""
    state = act(sample(), "6♠", "6♣", "pass", "6♦")
    assert legal_actions(state) == calls("pass", "6♥")
    assert_illegal(state, "here", "only an earlier hand may say 'here'", "the next bid is 6♥")


def test_a06_here_stays_optional_in_sequential_bidding() -> None:
    """S000 «Конвенции»: with sequential bidding one may "not say 'here'": the earlier hand
    may always raise by one step instead (no priority passes by default)."""
    state = act(sample(), "6♠", "6♣", "pass")
    assert calls("here", "6♦") == legal_actions(state)[1:]
    state = act(state, "6♦", "pass")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, A, "6♦")


# --- misère beaten by the 10-level (S004) and two misères (S000, A-22) ------------------

BY_TEN = RuleSet(misere_beaten_by_ten=True)


def test_s004_misere_beaten_only_by_a_ten() -> None:
    """S004: "by agreement misère is beaten only by the ten": 10♠ is the next rung."""
    state = act(sample(rules=BY_TEN), "misère")
    assert legal_actions(state) == calls("pass", "10♠")
    assert_illegal(state, "9♠", "you cannot bid 9♠", "the next bid is 10♠ or pass")
    state = act(state, "10♠")
    assert legal_actions(state) == calls("pass", "10♣")
    state = act(state, "pass", "pass")  # C passes; A's beaten misère may only pass
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "10♠")


def test_s004_misere_above_the_nines_as_a_first_call() -> None:
    """With jump bids a first call may meet a nine: misère still beats it under S004."""
    rules = RuleSet(misere_beaten_by_ten=True, bidding=Bidding.JUMP)
    state = act(sample(rules=rules), "9♥")
    assert parse_action("misère") in legal_actions(state)
    state = act(state, "misère")
    assert legal_actions(state)[:2] == calls("pass", "10♠")
    assert "9NT" not in [str(a) for a in legal_actions(state)]
    default = act(sample(rules=RuleSet(bidding=Bidding.JUMP)), "9♥")
    assert parse_action("misère") not in legal_actions(default)
    assert_illegal(default, "misère", "misère no longer beats the highest bid")


def test_s004_ten_over_misere_with_the_auction_stopping() -> None:
    rules = RuleSet(misere_beaten_by_ten=True, misere_beaten_stops_auction=True)
    state = act(sample(rules=rules), "misère", "10♠")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "10♠")


def test_default_misere_beaten_by_a_nine() -> None:
    state = act(sample(), "misère")
    assert legal_actions(state) == calls("pass", "9♠")


@pytest.mark.parametrize("rules", [DEFAULT, BY_TEN], ids=["by-nine", "by-ten"])
def test_two_misères_the_earlier_hand_has_priority(rules: RuleSet) -> None:
    """S000 «Торговля» (example lost, A-22): of two misères the earlier hand's stands. Misère
    is a first call and first calls go in hand order, so a second misère always comes from a
    later hand and is refused; a "misère here" does not exist."""
    state = act(sample(rules=rules), "misère")
    assert parse_action("misère") not in legal_actions(state)
    assert_illegal(state, "misère", "the earlier hand's misère has priority")
    state = act(sample(rules=rules), "pass", "misère")
    assert_illegal(state, "misère", "the earlier hand's misère has priority")
    state = act(state, "pass")
    assert (state.phase, state.declarer, str(state.bid)) == (Phase.TALON, B, "misère")
