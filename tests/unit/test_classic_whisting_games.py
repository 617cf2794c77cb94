"""Bot games under Classic's whisting options (issue 12; S000 "Вариант с усложненным
вистованием", "полуответственный вист … пока хотя бы у одного из игроков не будет закрыта
пуля"): whole games played by the bots through the game aggregate replay through the audit
from their events alone, and whole games of the pure driver re-verify as hand records.

Games are drawn with fresh seeds until one has a whisted misère (the new whisting phase):
random play cannot be told to produce one."""

from __future__ import annotations

import secrets

from domain.audit import verify
from domain.bots import make_bot
from domain.handrecord import parse_record, record_from_game, to_json, verify_record
from domain.model import Game
from domain.model.decisions import event_name
from domain.rules import (
    Action,
    Kind,
    Phase,
    Policy,
    SeatView,
    actor,
    play_game,
    seat_view,
)
from domain.rules.actions import WHIST
from domain.rules.whist_options import WhistLiability
from tests.unit.game_helpers import created_game
from tests.unit.test_classic_whisting import COMPLICATED

RULES = COMPLICATED.with_options(
    whist_liability=WhistLiability.HALF_UNTIL_CLOSED,
    strain_price_steps=(0, 2, 4, 6, 8),
    pool_target=6,
)
"""Every whisting option of this branch on (short pools: a pool closes within a game)."""

MAX_GAMES = 1500
"""A whisted misère comes about once in a dozen bot games; this bound is never reached."""


def _misere_whister(bot: Policy) -> Policy:
    """The bot, but whisting every misère it may. Sensible bots pass a misère unless they see
    the declarer's cards exposed (``domain.bots.auction.misere_catchable``; a made misère costs
    each whister 10 in gora, notes/cbots.md), so these tests of the whisting phase need a
    defender who whists anyway."""

    def decide(view: SeatView) -> Action:
        contract = view.contract
        whisting = view.phase is Phase.WHISTING and contract is not None
        if whisting and contract is not None and contract.is_misere and WHIST in view.legal:
            return WHIST
        return bot(view)

    return decide


def _bot_game(seed: bytes) -> Game:
    game = created_game(RULES, seed[0] % 3, seed)
    game.deal_next(seed, "create")
    bots = [_misere_whister(make_bot()) for _ in range(3)]
    step = 0
    while not game.finished:
        deal = game.state.deal
        assert deal is not None
        seat = actor(deal)
        game.act(seat, bots[seat](seat_view(deal, seat)), f"r{step}", seed)
        step += 1
    return game


def _whisted_misere(game: Game) -> bool:
    """Whether some deal of the game had a misère declared and then a whist on it."""
    contract = None
    for event in game.pending_events:
        name = event_name(event)
        if name == "ContractDeclared":
            contract = getattr(event, "contract", None)
        elif name == "WhistCalled" and contract == "misère":
            return True
        elif name == "DealScored":
            contract = None
    return False


def test_classic_whisting_bot_games_replay_through_the_audit() -> None:
    """Bot games with complicated whisting, half-responsible until a pool closes and the old
    hierarchy verify from their events (decisions, scores and sheet entries recomputed by the
    audit), until one with a whisted misère has been verified."""
    for _ in range(MAX_GAMES):
        game = _bot_game(secrets.token_bytes(32))
        report = verify(str(game.id), game.pending_events)
        assert report.discrepancy is None, report.discrepancy
        assert report.finished and report.settlement == game.settlement
        if _whisted_misere(game):
            return
    raise AssertionError(f"no whisted misère in {MAX_GAMES} bot games")


def test_classic_whisting_bot_games_reverify_as_hand_records() -> None:
    """The pure driver's games under the same options export hand records that re-verify,
    until one holds a whisted misère; its whisters' entries are the misère's."""
    bots = [_misere_whister(make_bot()) for _ in range(3)]
    for _ in range(MAX_GAMES):
        record = play_game(secrets.token_bytes(32), bots, RULES)
        assert record.finished and sum(record.settlement) == 0
        verdict = verify_record(parse_record(to_json(record_from_game(record))))
        assert verdict.consistent, verdict.message
        for deal in record.deals:
            res = deal.final.result
            if res is not None and res.kind is Kind.MISERE and res.whisters:
                taken = res.tricks[res.declarer]
                for w in res.whisters:
                    assert deal.score.whists[w][res.declarer] == 10 * taken
                    assert deal.score.gora[w] in ((0,) if taken else (5, 10))
                return
    raise AssertionError(f"no whisted misère in {MAX_GAMES} bot games")
