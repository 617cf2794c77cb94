"""Whole bot games at tables of four and five (RULES.md §3.6): every deal has three hands (the
dealer sits on the talon; with five the player who dealt before him sits out as well). Bots in
every seat, each deciding from its own seat's view, must only ever choose a legal action, and
every game must end with its pools closed and a settlement summing to zero.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import pytest

from domain.bots import Bot
from domain.rules import DEFAULT, WHIST, Action, Kind, Phase, RuleSet, SeatView, play_game
from domain.rules.seats import DUMMY, hand_seats
from domain.rules.systems import RULE_SETS

STYLES = ("cautious", "normal", "bold")


def seed(players: int, tag: int | str) -> bytes:
    return hashlib.sha256(f"test-bots-tables/{players}/{tag}".encode()).digest()


def checked(bot: Bot, asked: Counter[str]) -> Callable[[SeatView], Action]:
    """A policy that fails the test if the bot's own decision is not legal; it counts the
    decisions of seats with and without a hand."""

    def policy(view: SeatView) -> Action:
        action = bot.decide(view)
        assert action in view.legal, (view.seat, view.phase, action, view.legal)
        held = view.seat in hand_seats(view.dealer, len(view.hands))
        asked["hand" if held else "sitter"] += 1
        return action

    return policy


def table(players: int, pool: int = 10) -> RuleSet:
    return DEFAULT.with_options(players=players, pool_target=pool)


@pytest.mark.parametrize("players", [4, 5])
@pytest.mark.parametrize("number", range(12))
def test_bot_games_at_four_and_five_finish_legally_and_settle_to_zero(
    players: int, number: int
) -> None:
    """§3.6: whole games, bots of every style, each seat dealing in turn from a varied first
    dealer; no illegal action, every pool closed, the settlement sums to zero."""
    rules = table(players)
    asked: Counter[str] = Counter()
    bots = [checked(Bot(STYLES[(s + number) % 3]), asked) for s in range(players)]
    record = play_game(seed(players, number), bots, rules, first_dealer=number % players)
    assert record.finished, len(record.deals)
    assert record.sheet.all_closed(rules)
    assert sum(record.settlement, Fraction(0)) == 0
    assert len(record.settlement) == players
    assert asked["hand"] > 0
    dealers = Counter(d.dealer for d in record.deals)
    assert set(dealers) == set(range(players)) or len(record.deals) < players


@pytest.mark.parametrize("players", [4, 5])
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_bot_games_of_every_system_at_four_and_five_finish_legally(name: str, players: int) -> None:
    """Every named system (docs/SYSTEMS.md) at a larger table: Classic's looks, bombs, dark
    and no-talon calls and its order included; a game played until time has time called after
    a few deals of the ordered pool."""
    rules = RULE_SETS[name].with_options(players=players, pool_target=10)
    asked: Counter[str] = Counter()
    bots = [checked(Bot(STYLES[s % 3]), asked) for s in range(players)]
    record = play_game(seed(players, name), bots, rules, time_after=12)
    assert record.finished, (name, len(record.deals))
    assert sum(record.settlement, Fraction(0)) == 0
    assert asked["hand"] > 0


@pytest.mark.parametrize("players", [4, 5])
def test_over_many_deals_at_four_and_five_the_bots_play_games_and_raspasy(players: int) -> None:
    """The bots at a larger table still bid and make contracts: over a few games there are
    played games and raspasy, and no sitter ever holds a card or takes a trick in a game."""
    kinds: Counter[Kind] = Counter()
    made = played = 0
    for number in range(4):
        rules = table(players, pool=20)
        asked: Counter[str] = Counter()
        bots = [checked(Bot(), asked) for _ in range(players)]
        record = play_game(seed(players, 100 + number), bots, rules, max_deals=60)
        for deal in record.deals:
            final = deal.final
            result = final.result
            assert result is not None
            kinds[result.kind] += 1
            held = hand_seats(deal.dealer, players)
            for s in range(players):
                if s not in held:
                    assert final.dealt[s] == 0
                    if result.kind is Kind.GAME:
                        assert result.tricks[s] == 0
            if result.kind is Kind.GAME and result.contract is not None:
                played += 1
                made += result.tricks[result.declarer] >= result.contract.level
    assert kinds[Kind.GAME] and kinds[Kind.RASPASY]
    assert made >= played * 0.6, (made, played)


RIGHTS = {
    "sitter_return_whist": True,
    "misere_partner": True,
    "talon_whists": "tricks",
    "talon_return": "two",
}
"""The dealer's rights by agreement (§3.6, ``domain.rules.sitters``): the returned whist, the
misère partner, talon whists, the returned talon."""


@pytest.mark.parametrize(
    ("players", "name", "extra"),
    [
        (4, "default", {}),
        (5, "default", {}),
        (4, "sochi", {}),
        (4, "classic", {"dealer_joins_bomb": True}),
    ],
)
def test_bots_play_with_the_dealers_rights_and_the_sitters_answer_legally(
    players: int, name: str, extra: dict[str, object]
) -> None:
    """§3.6: with the dealer's rights agreed, the seats without a hand are asked (a whist to
    return, a misère to share, under Classic a bomb to join) and always answer legally."""
    options: dict[str, object] = {**RIGHTS, "players": players, "pool_target": 10, **extra}
    rules = RULE_SETS[name].with_options(**options)
    asked: Counter[str] = Counter()
    for number in range(3):
        bots = [checked(Bot(STYLES[s % 3]), asked) for s in range(players)]
        record = play_game(seed(players, f"rights/{name}/{number}"), bots, rules, time_after=12)
        assert record.finished
        assert sum(record.settlement, Fraction(0)) == 0
    assert asked["hand"] > 0 and asked["sitter"] > 0, asked


def test_a_bot_on_the_talon_plays_the_passers_hands_after_returning_the_whist() -> None:
    """§3.6, the returned whist (TV-24, TV-30): a dealer who returns the whist plays both
    passers' open hands. The bots never return it themselves, so here the dealer's seat is made
    to whist whenever it may; the bot in that seat then plays the two hands, legally, to the end
    of every such deal."""
    rules = DEFAULT.with_options(players=4, pool_target=10, sitter_return_whist=True)
    asked: Counter[str] = Counter()
    bot = Bot()

    def policy(view: SeatView) -> Action:
        sitter = view.seat not in hand_seats(view.dealer, len(view.hands))
        if sitter and view.phase is Phase.WHISTING and WHIST in view.legal:
            asked["returned"] += 1
            return WHIST
        action = bot.decide(view)
        assert action in view.legal, (view.seat, view.phase, action, view.legal)
        if sitter and view.phase is Phase.PLAY:
            asked["sitter plays"] += 1
        return action

    for number in range(4):
        record = play_game(seed(4, f"returned/{number}"), [policy] * 4, rules)
        assert record.finished
        assert sum(record.settlement, Fraction(0)) == 0
    assert asked["returned"] > 0
    # Nobody claims: the dealer plays both passers' ten cards in every such deal.
    assert asked["sitter plays"] == 20 * asked["returned"]


# --- two players ("гусарик", RULES.md §3.6 row "2") ---------------------------------------

DUO_VARIANTS: dict[str, dict[str, object]] = {
    "plain": {},
    "varenik-retract": {"duo_all_pass": "varenik", "duo_retract_pass": True},
    "own-cards-dummy-h2": {"duo_whist_own_cards": True, "duo_dummy_hand": 2},
    "redeal": {"duo_all_pass": "redeal"},
}


def duo_policy(bot: Bot, asked: Counter[str]) -> Callable[[SeatView], Action]:
    """A policy failing the test on an illegal decision; it counts the two-player decisions
    (by action type) and the cards played for the dummy by the seat controlling it."""

    def policy(view: SeatView) -> Action:
        assert view.seat in (0, 1), view.seat  # the dummy is no seat and never decides
        action = bot.decide(view)
        assert action in view.legal, (view.seat, view.phase, action, view.legal)
        asked[type(action).__name__] += 1
        if view.phase is Phase.PLAY and view.to_act == DUMMY:
            asked["dummy card"] += 1
        return action

    return policy


@pytest.mark.parametrize("variant", sorted(DUO_VARIANTS))
@pytest.mark.parametrize("number", range(4))
def test_rules_3_6_two_player_bot_games_finish_legally_and_settle_to_zero(
    variant: str, number: int
) -> None:
    """§3.6: whole two-player games of bots of every style: the whister (or the misère
    declarer's opponent) plays the dummy's open hand, raspasy has two-card tricks, and the
    options' decisions are taken from ``view.legal``; every pool closes and the two seats'
    settlement (the indivisible gora, §3.4) sums to zero."""
    rules = RuleSet.from_dict({"players": 2, "pool_target": 10, **DUO_VARIANTS[variant]})
    asked: Counter[str] = Counter()
    bots = [duo_policy(Bot(STYLES[(s + number) % 3]), asked) for s in range(2)]
    record = play_game(seed(2, f"{variant}/{number}"), bots, rules, first_dealer=number % 2)
    assert record.finished, len(record.deals)
    assert record.sheet.all_closed(rules)
    assert len(record.settlement) == 2 and sum(record.settlement, Fraction(0)) == 0
    for deal in record.deals:
        final = deal.final
        assert len(final.dealt) == 3 and final.result is not None
        if final.result.kind is Kind.RASPASY:  # two-card tricks: the dummy holds all ten
            assert final.result.tricks[DUMMY] == 0
            assert final.play.hands[DUMMY] == final.dealt[DUMMY]


def test_rules_3_6_two_player_bots_take_every_kind_of_decision() -> None:
    """Across a few games per variant the bots play the dummy's cards, give and discard "с
    вареником", retract a pass and declare, so the games above exercise those paths."""
    asked: Counter[str] = Counter()
    for variant, options in sorted(DUO_VARIANTS.items()):
        rules = RuleSet.from_dict({"players": 2, "pool_target": 10, **options})
        for number in range(4):
            bots = [duo_policy(Bot(STYLES[(s + number) % 3]), asked) for s in range(2)]
            play_game(seed(2, f"{variant}/{number}"), bots, rules, first_dealer=number % 2)
    assert asked["dummy card"] and asked["GiveCards"] and asked["RetractPass"]
    assert asked["Whist"] and asked["Discard"] > asked["TakeTalon"]  # the dealer's discards
