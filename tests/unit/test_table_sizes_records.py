"""Hand records, the audit, the referee's tools and the rating at tables of four and five
(issue 13; RULES.md §3.6 player counts, §1.13): every deal has three hands, the dealer "sits on
the talon" with four players, and with five the player who dealt before him sits out too.

A golden 4-seat deal (a raspasy whose open talon cards win both first tricks for the dealer,
RULES.md §3.6 "raspasy talon cards belong to him", TV-28), and whole 4- and 5-seat games played
through the ``Game`` aggregate: the audit verifies their events, their hand records round-trip
through JSON, validate against the schema and verify, and their settlements sum to zero.
"""

from __future__ import annotations

import hashlib
import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from domain.audit import verify
from domain.handrecord import (
    parse_record,
    record_from_deal,
    record_from_events,
    record_from_game,
    render_text,
    to_json,
    validate,
    verify_record,
)
from domain.rating import K_FACTOR, rate_game
from domain.rules import (
    Action,
    DealtCards,
    SeatView,
    actor,
    mask_of,
    new_deal,
    parse_action,
    parse_cards,
    play_game,
    seat_view,
)
from domain.rules.actions import Claim
from domain.rules.seats import hand_seats, seat_name
from domain.rules.systems import rule_set
from service.cli.referee import _adjustment
from service.cli.render import render_game
from service.cli.replay import frames
from tests.unit.game_helpers import created_game
from tests.unit.test_handrecord import _tamper

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

RULES4 = rule_set("default").with_options(players=4)

# Dealer D sits on the talon; A, B, C (H1, H2, H3) all pass: raspasy on an open talon. The
# talon's J♦ and Q♠ are D's leads and beat what A, B and C follow with, so D takes tricks 1
# and 2; A (H1) leads the third (RULES.md §1.13).
HANDS4 = (
    "9♠ K♠ A♠ 7♣ 8♣ K♣ 9♦ J♥ Q♥ A♥",
    "8♠ 10♠ 9♣ 10♣ A♣ 7♦ 8♦ Q♦ A♦ K♥",
    "7♠ J♠ J♣ Q♣ 10♦ K♦ 7♥ 8♥ 9♥ 10♥",
    "",
)
TALON4 = "J♦ Q♠"
DEALER4 = 3
DECISIONS4 = (
    "A pass, B pass, C pass, A 9♦, B 7♦, C 10♦, A 9♠, B 8♠, C 7♠, A K♠, B 10♠, C J♠, A A♠, "
    "B 9♣, C J♣, A 7♣, B 10♣, C Q♣, C K♦, A 8♣, B 8♦, C 7♥, A J♥, B K♥, B A♣, C 8♥, A K♣, "
    "B Q♦, C 9♥, A Q♥, B A♦, C 10♥, A A♥"
)
SEATS = {"A": 0, "B": 1, "C": 2, "D": 3, "E": 4}


def golden_record_4() -> dict[str, Any]:
    hands = tuple(mask_of(parse_cards(h)) for h in HANDS4)
    a, b = parse_cards(TALON4)
    start = new_deal(DealtCards(hands, (a, b)), DEALER4, RULES4)
    actions: list[tuple[int, Action]] = []
    for i, step in enumerate(DECISIONS4.split(", ")):
        who, text = step.split(" ", 1)
        actions.append((SEATS[who], parse_action(text, cards_first=i >= 3)))
    return record_from_deal(start, actions, players=("ann", "bob", "cid", "dan"), game_id="g4")


def test_a_four_seat_deal_matches_its_golden_text_and_json() -> None:
    rec = golden_record_4()
    assert render_text(rec) == (GOLDEN / "handrecord_deal_4seats.txt").read_text(encoding="utf-8")
    assert to_json(rec) == (GOLDEN / "handrecord_deal_4seats.json").read_text(encoding="utf-8")


def test_the_four_seat_golden_deal_seats_the_dealer_on_the_talon_and_verifies() -> None:
    """RULES.md §3.6: four players, the dealer holds no hand; §1.13: the raspasy talon cards
    are his and can win tricks (TV-28), written like anybody's (talon_tricks_penalised)."""
    rec = parse_record((GOLDEN / "handrecord_deal_4seats.json").read_text(encoding="utf-8"))
    assert rec == golden_record_4()
    deal = rec["deals"][0]
    assert deal["hand_seats"] == [0, 1, 2] and deal["sitters"] == [3]
    assert deal["hands"][3] == "" and len(deal["hands"]) == 4
    assert [t["winner"] for t in deal["tricks"][:2]] == [3, 3]
    assert all(c["seat"] != 3 for t in deal["tricks"] for c in t["cards"])
    assert deal["tricks"][2]["leader"] == 0  # H1 leads the third trick
    assert deal["result"]["tricks"] == [2, 4, 2, 2]
    assert deal["score"]["gora"] == [2, 4, 2, 2]
    assert "Sitting   D (dealer): no hand this deal" in render_text(rec)
    assert "won by D with the talon's J♦" in render_text(rec)
    verdict = verify_record(rec)
    assert verdict.consistent, verdict.message
    assert (verdict.deals, verdict.actions) == (1, 33)


def _tampered(path: list[Any], value: Any) -> str:
    return _tamper(path, value, golden_record_4())


def test_a_four_seat_record_that_seats_the_hands_otherwise_is_refused() -> None:
    """RULES.md §3.6: the dealer sits on the talon; a record that gives him a hand, or names
    other hand seats, does not verify."""
    assert _tampered(["deals", 0, "sitters"], []) == (
        "deal 1: the record gives the seats without a hand as none; with 4 players and D "
        "dealing they are D"
    )
    assert _tampered(["deals", 0, "hand_seats"], [3, 0, 1]) == (
        "deal 1: the record gives the hands H1, H2, H3 as D, A, B; with 4 players and D "
        "dealing they are A, B, C"
    )
    message = _tampered(["deals", 0, "hands", 3], "7♠")
    assert message == "deal 1: D holds no hand this deal, but the record deals him 7♠"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["players"], ["a", "b", "c"], "players: expected at least 4 items"),
        (["deals", 0, "hands"], ["", "", ""], "deals[0].hands: expected at least 4 items"),
        (
            ["deals", 0, "sheet_before", "whists", 0],
            [0, 0, 0, 0, 0],
            "deals[0].sheet_before.whists[0]: expected at most 4 items",
        ),
        (["deals", 0, "auction", 0, "seat"], 4, "deals[0].auction[0].seat: 4 is above 3"),
    ],
)  # fmt: skip
def test_a_four_seat_record_is_read_with_four_seats(
    path: list[Any], value: Any, message: str
) -> None:
    """The table's size is the rule set's ``players``: every per-seat list has four entries
    and no seat is above 3."""
    rec = golden_record_4()
    target: Any = rec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ValueError) as info:
        parse_record(json.dumps(rec))
    assert str(info.value) == message


def _random_policy(rng: random.Random) -> Any:
    """Any legal action but a claim (the auction, misère, whisting and raspasy all happen)."""

    def policy(view: SeatView) -> Action:
        choices = [a for a in view.legal if not isinstance(a, Claim)]
        return rng.choice(choices or list(view.legal))

    return policy


def _played_game(players: int, seed: bytes, first_dealer: int) -> Any:
    """A whole game of ``players`` through the ``Game`` aggregate, random decisions."""
    rules = rule_set("default").with_options(players=players, pool_target=6)
    game = created_game(rules, first_dealer, seed)
    game.deal_first(seed, "create")
    policy = _random_policy(random.Random(seed))
    step = 0
    while not game.finished and game.state.deal_number <= 60:
        step += 1
        deal = game.state.deal
        assert deal is not None
        seat = actor(deal)
        game.act(seat, policy(seat_view(deal, seat)), f"r{step}", seed)
    assert game.finished
    return game


@pytest.mark.parametrize(("players", "n"), [(4, 0), (4, 1), (5, 0), (5, 1)])
def test_four_and_five_seat_games_audit_and_export(players: int, n: int) -> None:
    """A 4- or 5-seat game's log passes the audit (RULES.md §3.6); its hand record validates
    against the schema, round-trips through JSON and verifies; every deal seats the hands as
    §3.6 does; the settlement sums to zero (§1.11)."""
    seed = hashlib.sha256(f"table-{players}/{n}".encode()).digest()
    game = _played_game(players, seed, n % players)
    events = game.collect_events()
    report = verify(str(game.id), events)
    assert report.verified, report.summary
    assert report.settlement is not None and len(report.settlement) == players
    assert sum(Fraction(v) for v in report.settlement) == 0
    rec = record_from_events(events, str(game.id))
    assert validate(rec) is rec
    back = parse_record(to_json(rec))
    assert back == rec
    verdict = verify_record(back)
    assert verdict.consistent, verdict.message
    assert rec["complete"] and rec["settlement"] == report.settlement
    for deal in rec["deals"]:
        dealer = deal["dealer"]
        assert deal["hand_seats"] == list(hand_seats(dealer, players))
        expected_sitters = {dealer} if players == 4 else {dealer, (dealer - 1) % players}
        assert set(deal["sitters"]) == expected_sitters
        assert set(deal["hand_seats"]) | set(deal["sitters"]) == set(range(players))
        assert all(deal["hands"][s] == "" for s in deal["sitters"])
        assert all(len(deal["hands"][s].split()) == 10 for s in deal["hand_seats"])
        assert len(deal["score"]["pool"]) == players
        assert all(len(row) == players for row in deal["entry"]["whists"])
        played = {c["seat"] for t in deal["tricks"] for c in t["cards"]}
        assert played <= set(deal["hand_seats"])
    text = render_text(rec)
    assert text.count("[Seat ") == players
    assert text.count("Sitting   ") == len(rec["deals"])


@pytest.mark.parametrize("players", [4, 5])
def test_driver_games_with_claims_export_and_verify(players: int) -> None:
    """Games of ``play_game`` whose random decisions include claims and their answers: the
    record (claims with a share per seat) validates, round-trips and verifies (§3.6)."""
    rules = rule_set("default").with_options(players=players, pool_target=4)
    rng = random.Random(players)
    game = play_game(
        b"claims%d" % players * 5, [lambda v: rng.choice(list(v.legal))] * players, rules
    )
    assert game.finished
    rec = record_from_game(game)
    assert rec["players"] == [seat_name(s) for s in range(players)]
    claims = [c for deal in rec["deals"] for c in deal["claims"]]
    assert claims and all(len(c["tricks"]) == players for c in claims)
    back = parse_record(to_json(rec))
    assert back == rec
    verdict = verify_record(back)
    assert verdict.consistent, verdict.message
    assert sum(Fraction(v) for v in rec["settlement"]) == 0


def test_a_tampered_four_seat_log_is_caught_by_the_audit() -> None:
    """The audit deals the recorded deck for four seats: a hand moved to the dealer on the
    talon is not what the deck deals."""
    seed = hashlib.sha256(b"table-4/tamper").digest()
    game = _played_game(4, seed, 2)
    events = game.collect_events()
    dealt = next(e for e in events if type(e).__name__ == "DealDealt")
    hands = list(dealt.hands)
    dealer = dealt.dealer
    hands[dealer], hands[(dealer + 1) % 4] = hands[(dealer + 1) % 4], hands[dealer]
    object.__setattr__(dealt, "hands", hands)
    report = verify(str(game.id), events)
    assert not report.verified
    assert report.discrepancy is not None
    assert report.discrepancy.version == dealt.originator_version


def test_replay_frames_show_the_seat_on_the_talon() -> None:
    rec = golden_record_4()
    console = Console(record=True, width=110, color_system=None)
    console.print(next(iter(frames(rec))))
    screen = console.export_text()
    assert "A H1" in screen and "B H2" in screen and "C H3" in screen
    assert "D dealer, on the talon" in screen


def test_the_scoresheet_has_a_column_per_player_and_whists_on_each_other() -> None:
    """The terminal scoresheet of a 5-seat game (driven by ``play_game``): one row per player,
    a whist column on each of the others, results summing to zero."""
    rules = rule_set("default").with_options(players=5, pool_target=4)
    rng = random.Random(5)
    game = play_game(b"five" * 8, [_random_policy(rng)] * 5, rules, first_dealer=0)
    console = Console(record=True, width=200, color_system=None)
    render_game(console, game, show_deals=True)
    screen = console.export_text()
    for name in ("A", "B", "C", "D", "E"):
        assert f"whists on {name}" in screen
    assert "the results sum to 0" in screen
    assert sum(game.settlement) == 0


def test_a_ruling_adjustment_for_four_seats() -> None:
    """``pref rule --gora/--whists`` for a table of as many seats as given: each row of
    ``--whists`` gives the writer's whists on the others clockwise from his left."""
    adjustment = _adjustment("0,2,-2,0", "1,0,0;0,0,3;0,0,0;0,5,0")
    assert adjustment == {
        "gora": [0, 2, -2, 0],
        # A on B 1; B (from his left: C, D, A) on A 3; D (A, B, C) on B 5.
        "whists": [[0, 1, 0, 0], [3, 0, 0, 0], [0, 0, 0, 0], [0, 5, 0, 0]],
    }
    assert _adjustment(None, "1,0;0,0;0,0") == {
        "gora": [0, 0, 0],
        "whists": [[0, 1, 0], [0, 0, 0], [0, 0, 0]],
    }
    with pytest.raises(ValueError, match="a row per seat"):
        _adjustment("0,0,0,0", "1")  # one row: no table of one
    with pytest.raises(ValueError, match="on the 3 other seats"):
        _adjustment("0,0,0,0", "1,0;0,0;0,0;0,0")


def test_a_four_player_game_rates_each_player_against_three_opponents() -> None:
    """docs/STATS.md: a game of n players is n(n-1)/2 pairwise matches, K/(n-1) per pair; four
    players at equal ratings finishing in order gain 16, 16/3, -16/3, -16; the changes sum to
    zero, so ratings only move between the game's players."""
    results = [Fraction(90), Fraction(10), Fraction(-30), Fraction(-70)]
    after = rate_game([1500.0] * 4, results)
    gains = [a - 1500.0 for a in after]
    third = K_FACTOR / 3
    assert gains == pytest.approx([K_FACTOR / 2, third / 2, -third / 2, -K_FACTOR / 2])
    assert sum(gains) == pytest.approx(0.0, abs=1e-9)
    five = rate_game([1500.0, 1600.0, 1400.0, 1550.0, 1450.0], [Fraction(v) for v in range(5)])
    assert sum(five) == pytest.approx(7500.0)


def test_seat_names_cover_five_seats() -> None:
    assert [seat_name(s) for s in range(5)] == ["A", "B", "C", "D", "E"]
