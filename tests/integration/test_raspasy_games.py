"""Raspasy conventions (RULES.md §3.3, issue 11) through the event store on SQLite: whole
games played by seat views, then the audit replays the events and verifies them, and the hand
record (every deal alone too) re-verifies — the non-sliding dealer, Любимовка's deals without an
auction, the closed talon and Rostov's whists included."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.rules import PASS, Action, Kind, Phase, Policy, RuleSet, SeatView
from domain.rules.ruleset import Progression, RaspasyDealer, RaspasyScoring, RaspasyTalon
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.config import sqlite_store
from service.app.handrecord import export_game_record, game_record, import_record
from tests.integration.helpers import create, play, random_policy

OPTIONS = {
    "sochi-progression": RuleSet(
        raspasy_progression=Progression.ARITHMETIC,
        raspasy_progression_limit=2,
        raspasy_zero_bonus_priced=True,
        raspasy_failure_ends_series=False,
    ),
    "non-sliding-hard-exit": RuleSet(
        raspasy_dealer=RaspasyDealer.STAYS, raspasy_exit_levels=(6, 6, 7)
    ),
    "lyubimovka": RuleSet(raspasy_compulsory_rounds=2, raspasy_round_limit=3),
    "rostov": RuleSet(
        raspasy_trick_prices=(5,),
        raspasy_scoring=RaspasyScoring.WHISTS_FEWEST,
        raspasy_talon=RaspasyTalon.CLOSED,
    ),
}

SLOW = {"lyubimovka", "rostov"}
"""Whole games that can run 10–30 s on the shared machine (long raspasy series)."""


def passing_policy(rng: random.Random) -> Policy:
    """Bots and random players that pass often in the auction, so raspasy come in series."""
    other = random_policy(rng, bot_share=0.3)

    def policy(view: SeatView) -> Action:
        if view.phase is Phase.BIDDING and PASS in view.legal and rng.random() < 0.75:
            return PASS
        return other(view)

    return policy


@pytest.fixture
def sqlite_app(tmp_path: Path) -> Iterator[PreferansApplication]:
    app = PreferansApplication(sqlite_store(str(tmp_path / "events.sqlite")).env)
    yield app
    app.close()


def _seen(name: str, deals: list[dict[str, Any]]) -> bool:
    """Whether the game shows what the convention is about (a raspasy, and for Любимовка a
    deal without auction, for the non-sliding deal a dealer dealing again)."""
    if not any(d["result"]["kind"] == Kind.RASPASY.value for d in deals):
        return False
    if name == "lyubimovka":
        return any(d["raspasy_streak"] in (1, 2) and d["auction"] == [] for d in deals)
    if name == "non-sliding-hard-exit":
        return any(d["dealer_run"] > 0 for d in deals)
    return True


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else [])
        for name in sorted(OPTIONS)
    ],
)
def test_a_raspasy_convention_game_is_audited_and_its_record_verifies(
    sqlite_app: PreferansApplication, name: str
) -> None:
    """Games (each with a fresh random seed) until one shows the convention at work — at most
    three; every game is audited and its hand record verified, deal by deal."""
    rules = OPTIONS[name].with_options(pool_target=4)
    rng = random.Random(name)
    seen = False
    for _ in range(3):
        game_id = create(sqlite_app, rules).game_id
        play(sqlite_app, game_id, passing_policy(rng))
        game = sqlite_app.get_game(game_id)
        assert game.finished and game.rule_set == rules
        report = verify_game(sqlite_app, game_id)
        assert report.verified, report.summary
        rec, verdict = import_record(export_game_record(sqlite_app, game_id, None, "json"))
        assert verdict.consistent, verdict.message
        for deal in rec["deals"]:  # each deal alone verifies (its streak and dealer run)
            one = export_game_record(sqlite_app, game_id, deal["number"], "json")
            _, alone = import_record(one)
            assert alone.consistent, alone.message
        assert game_record(sqlite_app, game_id)["deals"] == rec["deals"]
        if _seen(name, rec["deals"]):
            seen = True
            break
    assert seen, f"three games without the {name} convention at work"
