"""Property checks of the raspasy conventions (RULES.md §3.3, issue 11): random deals and whole
random games under each option keep every invariant of ``test_properties`` — 32 cards
conserved, exactly the listed actions accepted, settlement summing to zero, pools never past
the target — plus the rules of a series and of the dealer, checked here from the seeds' words
rather than from ``domain.rules.raspasy``."""

from __future__ import annotations

import random

import pytest

from domain.rules import (
    GameRecord,
    Kind,
    Phase,
    RuleSet,
    actor,
    apply,
    deal_cards,
    legal_actions,
    new_deal,
    play_game,
    seat_view,
    shuffle_from_seed,
)
from domain.rules.ruleset import Progression, RaspasyDealer, RaspasyScoring, RaspasyTalon
from tests.unit.test_properties import (
    check_cards,
    check_game,
    check_legality,
    check_turn,
    choose,
    random_policy,
)

OPTIONS = {
    "sochi-1-2-3": RuleSet(
        raspasy_progression=Progression.ARITHMETIC,
        raspasy_progression_limit=2,
        raspasy_zero_bonus_priced=True,
    ),
    "leningrad-2-4-6-hard": RuleSet(
        raspasy_trick_prices=(2,),
        raspasy_progression=Progression.ARITHMETIC,
        raspasy_progression_step=2,
        raspasy_progression_limit=2,
        raspasy_exit_levels=(6, 6, 7),
    ),
    "geometric-unlimited": RuleSet(
        raspasy_progression=Progression.GEOMETRIC, raspasy_progression_step=2
    ),
    "s003-hard-any-toughened": RuleSet(raspasy_exit_levels=(6, 7, 8)),
    "no-exit-by-failure-misere-keeps": RuleSet(
        raspasy_failure_ends_series=False,
        raspasy_misere_ends_series=False,
        raspasy_exit_levels=(6, 6, 7),
    ),
    "exit-by-zero": RuleSet(raspasy_zero_ends_series=True, raspasy_trick_prices=(1, 2, 3)),
    "non-sliding": RuleSet(raspasy_dealer=RaspasyDealer.STAYS),
    "stays-until-misere-made": RuleSet(raspasy_dealer=RaspasyDealer.STAYS_UNTIL_MISERE_MADE),
    "never-passes": RuleSet(raspasy_dealer=RaspasyDealer.NEVER_PASSES),
    "lyubimovka-limit-3": RuleSet(raspasy_compulsory_rounds=2, raspasy_round_limit=3),
    "closed-talon": RuleSet(raspasy_talon=RaspasyTalon.CLOSED),
    "rostov-fewest": RuleSet(
        raspasy_trick_prices=(5,),
        raspasy_scoring=RaspasyScoring.WHISTS_FEWEST,
        raspasy_talon=RaspasyTalon.CLOSED,
    ),
    "rostov-amnesty": RuleSet(
        raspasy_trick_prices=(5,),
        raspasy_scoring=RaspasyScoring.WHISTS_FEWEST,
        raspasy_amnesty=True,
    ),
    "rostov-pairwise": RuleSet(
        raspasy_trick_prices=(5,), raspasy_scoring=RaspasyScoring.WHISTS_PAIRWISE
    ),
}


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_random_deals_under_each_raspasy_option_keep_every_invariant(name: str) -> None:
    """Every step of 20 random deals (streaks 0–3): cards conserved, turn order, exactly the
    listed actions accepted, rejected ones change nothing; the closed talon is never shown
    before the deal is scored."""
    rules = OPTIONS[name]
    rng = random.Random(name)
    for number in range(1, 21):
        shuffle = shuffle_from_seed(b"raspasy-props-" + name.encode(), number)
        dealer = number % 3
        state = new_deal(
            deal_cards(shuffle.order, dealer, shuffle.talon_pair),
            dealer,
            rules,
            rng.randrange(4),
        )
        for _ in range(200):
            check_cards(state)
            check_turn(state)
            if number <= 3:
                check_legality(state, rng)  # the expensive check, on a few deals
            closed = rules.raspasy_talon is RaspasyTalon.CLOSED
            if closed and state.raspasy and state.phase is not Phase.SCORED:
                assert all(seat_view(state, s).talon == (None, None) for s in range(3))
            if state.phase is Phase.SCORED:
                break
            state = apply(state, choose(rng, legal_actions(state)), actor(state))
        assert state.phase is Phase.SCORED and state.result is not None
        if state.result.kind is Kind.RASPASY:
            assert sum(state.result.tricks) == 10


def _check_series_and_dealer(name: str, rules: RuleSet, record: GameRecord) -> None:
    run = 0
    streak = 0
    for before, after in zip(record.deals, record.deals[1:], strict=False):
        res = before.final.result
        assert res is not None
        assert before.final.raspasy_streak == streak
        if rules.raspasy_compulsory(streak):
            assert before.final.auction.calls == () and res.kind is Kind.RASPASY
        # The dealer moves only one seat to the left, or stays where a convention allows.
        if after.dealer == before.dealer:
            run += 1
            assert res.kind is Kind.RASPASY or (
                rules.raspasy_dealer is RaspasyDealer.STAYS_UNTIL_MISERE_MADE
                and res.kind is Kind.MISERE
                and res.tricks[res.declarer] > 0
            ), f"{name}: the dealer stayed after {res.kind}"
            assert rules.raspasy_dealer is not RaspasyDealer.SLIDING
            if rules.raspasy_dealer is not RaspasyDealer.NEVER_PASSES:
                assert run < rules.raspasy_dealer_limit, f"{name}: {run + 1} deals in a row"
        else:
            assert after.dealer == (before.dealer + 1) % 3
            run = 0
        assert after.final.dealer_run == run
        streak = after.final.raspasy_streak


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_whole_random_games_under_each_raspasy_option_settle_to_zero(name: str) -> None:
    """Whole games (pool 6, random players who pass often): the settlement sums to zero, pools
    never pass the target, the sheet is the sum of the deals, the dealer and the series follow
    the convention."""
    rules = OPTIONS[name].with_options(pool_target=6)
    for i in range(4):
        seed = f"raspasy-game-{name}-{i}".encode().ljust(16, b".")
        record = play_game(seed, random_policy(random.Random(i)), rules, i % 3, max_deals=120)
        check_game(record, rules, i % 3, sliding=rules.raspasy_dealer is RaspasyDealer.SLIDING)
        _check_series_and_dealer(name, rules, record)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_bots_finish_whole_games_under_each_raspasy_option(name: str) -> None:
    """The bots keep working under every raspasy convention: a whole game (pool 10) ends with
    every pool closed and every invariant of ``check_game``."""
    from domain.bots import make_bot

    rules = OPTIONS[name].with_options(pool_target=10)
    bots = [make_bot(), make_bot(), make_bot()]
    record = play_game(f"bots-{name}".encode().ljust(16, b"."), bots, rules, 0, max_deals=300)
    assert record.finished
    check_game(record, rules, 0, sliding=rules.raspasy_dealer is RaspasyDealer.SLIDING)
    _check_series_and_dealer(name, rules, record)
