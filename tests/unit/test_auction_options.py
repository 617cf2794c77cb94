"""Auction and contract options for three players (issue 11; RULES.md §3.1, §5 A-06, A-22;
seeds S000 «Торговля» and «Конвенции», S004)."""

from __future__ import annotations

from domain.rules import RuleSet, legal_actions, parse_action
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
