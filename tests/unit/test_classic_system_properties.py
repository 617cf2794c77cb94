"""The issue 12 properties under ``rule_set("classic")`` itself — the named system with its
initial bomb rounds, the order of the game, play until time — not only under its options one by
one (those are tests/unit/test_classic_auction_properties.py and test_classic_properties.py):

* cards are conserved at every step of every deal (RULES.md §1.1, §1.2, §1.4);
* a player who has not looked never sees a card of his own, and nobody but the declarer sees a
  dark game's talon before the deal is over (RULES.md §3.5 "Classic");
* every listed action applies and every other action tried is refused (sampled steps);
* the sign ledger keeps every sign a bomb gave: owed or crossed out, in order (TV-26);
* the sheet is the sum of the deals' entries and the settlement sums to zero (§1.11);
* every bot game, and every game of bots with random Classic calls, played through the game
  aggregate (with its ``GameOrdered`` and the ``TimeCalled`` the service records), is verified
  by the audit from its events alone and by its exported hand record.

Games are drawn with fresh seeds until every Classic path has occurred (a bomb and a double
bomb in the pool, a dark game, a dark misère, a game without talon, looking, a game made and
one failed on a sign).
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import Callable
from fractions import Fraction

import pytest

from domain.audit import verify
from domain.bots import make_bot
from domain.handrecord import record_from_events, validate, verify_record
from domain.model import Game
from domain.rules import (
    Action,
    DealState,
    GameState,
    Kind,
    Phase,
    PlayCard,
    ScoreSheet,
    actor,
    apply,
    legal_actions,
    seat_view,
    shuffle_from_seed,
)
from domain.rules.actions import Bomb, Claim, DarkCall, Look, NoTalonCall
from domain.rules.bombs import made, multiplied
from domain.rules.dealing import seed_commitment
from domain.rules.game import (
    awaiting_order,
    call_time,
    finish_deal,
    game_final_sheet,
    game_orderer,
    new_game,
    order_game,
    settle_game,
    start_deal,
    table_rules,
)
from domain.rules.start import initial_deals
from domain.rules.systems import rule_set
from tests.unit.test_classic_auction_properties import check_dark_views
from tests.unit.test_properties import check_cards, check_legality

CLASSIC = rule_set("classic")
INITIAL = initial_deals(CLASSIC)
AT_2300 = 1_796_166_000
"""An ordered end time (2026-12-01 23:00 UTC); the rules core never compares it with a clock."""


def pick(rng: random.Random, legal: tuple[Action, ...]) -> Action:
    """A random legal action: Classic calls often in the auction, cards more often than claims
    in the play (so deals are played, not only claimed)."""
    bombs = [a for a in legal if isinstance(a, Bomb)]
    if bombs and rng.random() < 0.6:
        return bombs[0]
    classic = [a for a in legal if isinstance(a, DarkCall | NoTalonCall)]
    if classic and rng.random() < 0.4:
        return rng.choice(classic)
    passes = [a for a in legal if str(a) == "pass"]
    if passes and rng.random() < 0.3:
        return passes[0]
    cards = [a for a in legal if isinstance(a, PlayCard)]
    if cards and rng.random() < 0.95:
        return rng.choice(cards)
    return rng.choice(legal)


def features(state: DealState, number: int, sign: int) -> set[str]:
    """What a scored deal of the pool showed."""
    out: set[str] = set()
    result = state.result
    assert result is not None
    if state.bomb and number > INITIAL:
        out.add("bomb" if state.bomb == 1 else "double bomb")
    if state.dark and state.contract is not None:
        out.add("dark misère" if state.contract.is_misere else "dark game")
    if state.no_talon:
        out.add("no talon")
    if any(isinstance(a, Look) for _, a in state.auction.calls):
        out.add("look")
    if sign:
        out.add("made on a sign" if made(result) else "failed on a sign")
    return out


def walk_game(rng: random.Random, legality: float = 0.0) -> tuple[GameState, set[str]]:
    """A whole Classic game of random decisions, every step checked; the order is made when
    it is due, and time is called in a random step of a random deal of the pool. Returns the
    finished game and the paths it took."""
    seed = secrets.token_bytes(32)
    game = new_game(CLASSIC, rng.randrange(3))
    time_deal = INITIAL + rng.randint(1, 12)
    given: list[list[int]] = [[], [], []]
    pool, gora = [0, 0, 0], [0, 0, 0]
    whists = [[0] * 3 for _ in range(3)]
    seen: set[str] = set()
    while not game.finished:
        if awaiting_order(game):
            assert game.deal_number == INITIAL and game.order is None
            game = order_game(game, game_orderer(game), rng.randint(4, 40), AT_2300)
        game = start_deal(game, shuffle_from_seed(seed, game.deal_number + 1))
        state = game.deal
        assert state is not None
        if game.deal_number <= INITIAL:
            assert state.bomb >= 1 and state.bombers == 0b111 and state.phase is Phase.PLAY
        call_at = rng.randrange(12) if game.deal_number == time_deal else -1
        step = 0
        while True:
            check_cards(state)
            check_dark_views(state)
            if legality and rng.random() < legality:
                check_legality(state, rng)
            if state.phase is Phase.SCORED:
                break
            if step == call_at:
                game = call_time(game._replace(deal=state))
                seen.add("time called during a deal")
            state = apply(state, pick(rng, legal_actions(state)), actor(state))
            step += 1
        if call_at >= 0 and not game.time_called:  # the deal ended before that step
            game = call_time(game._replace(deal=state))
        result = state.result
        assert result is not None
        owed = game.bomb_signs[result.declarer] if game.bomb_signs and result.declarer >= 0 else ()
        sign = owed[0] if owed and multiplied(result.kind) else 0
        game, _, entry = finish_deal(game._replace(deal=state))
        seen |= features(state, game.deal_number, sign)
        # The ledger: a played bomb gives its sign to its bombers; a game made on a sign
        # crosses it out; nothing else touches it.
        if result.kind is Kind.RASPASY:
            for seat in range(3):
                if state.bombers >> seat & 1:
                    given[seat].append(max(state.bomb, 1))
        for seat in range(3):
            owes = game.bomb_signs[seat] if game.bomb_signs else ()
            done = game.bomb_signs_crossed[seat] if game.bomb_signs_crossed else ()
            assert [c.level for c in done] + list(owes) == given[seat]
        target = table_rules(game).pool_target
        for seat in range(3):
            # A pool never passes the target, but one written in the initial rounds (zeros on
            # bombs, pool 20 until the order) may stand above a shorter ordered pool; it then
            # takes nothing more.
            assert entry.pool[seat] == 0 or pool[seat] + entry.pool[seat] <= target
            pool[seat] += entry.pool[seat]
            gora[seat] += entry.gora[seat]
            for other in range(3):
                whists[seat][other] += entry.whists[seat][other]
        assert all(p >= 0 for p in pool)
    assert game.time_called and game.deal_number == time_deal
    assert game.sheet == ScoreSheet(tuple(pool), tuple(gora), tuple(tuple(r) for r in whists))
    settlement = settle_game(game)
    assert sum(settlement) == 0 and all(isinstance(x, Fraction) for x in settlement)
    final = game_final_sheet(game)
    target = table_rules(game).pool_target
    for seat in range(3):  # the early stop: the points missing to the pool go to gora
        missing = max(0, target - game.sheet.pool[seat])
        assert final.gora[seat] == game.sheet.gora[seat] + missing
    return game, seen


def test_random_classic_games_keep_the_invariants() -> None:
    """Cards, views, legality (sampled), the sign ledger and the settlement, game after game."""
    rng = random.Random()
    for _ in range(8):
        walk_game(rng, legality=0.05)


def test_the_checks_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A view that shows an unseen player his own cards, and a ledger that forgets the bombs'
    signs, are both caught by ``walk_game``."""
    from domain.rules import game as game_module
    from tests.unit import test_classic_auction_properties as views

    rng = random.Random(5)
    with monkeypatch.context() as patch:
        patch.setattr(views, "visible_mask", lambda state, seat: state.dealt[seat])
        with pytest.raises(AssertionError, match="sees its own cards"):
            walk_game(rng)
    with monkeypatch.context() as patch:
        patch.setattr(game_module, "signs_after", lambda signs, crossed, *_, **__: (signs, crossed))
        with pytest.raises(AssertionError):
            walk_game(rng)


def test_a_dark_players_view_never_shows_his_own_cards_before_he_looks_under_classic() -> None:
    """The issue's property under the named system: games drawn (fresh seeds) until every
    Classic path occurred, each step's views checked by ``walk_game``."""
    wanted = {
        "bomb",
        "double bomb",
        "dark game",
        "dark misère",
        "no talon",
        "look",
        "made on a sign",
        "failed on a sign",
        "time called during a deal",
    }
    seen: set[str] = set()
    rng = random.Random()
    for _ in range(200):
        seen |= walk_game(rng)[1]
        if seen >= wanted:
            break
    assert seen >= wanted, wanted - seen


# --- whole games through the aggregate, the audit and the hand record ----------------------


Decide = Callable[[DealState, int], Action]


def bots() -> Decide:
    bot = make_bot()
    return lambda deal, seat: bot(seat_view(deal, seat))


def bots_with_classic_calls(rng: random.Random) -> Decide:
    """Bots for the play and whisting; in the auction and at the talon often a random call
    (bots themselves always look and bid in the light); no claims."""
    bot = make_bot()

    def decide(deal: DealState, seat: int) -> Action:
        view = seat_view(deal, seat)
        if deal.phase in (Phase.BIDDING, Phase.TALON) and rng.random() < 0.6:
            return pick(rng, tuple(a for a in view.legal if not isinstance(a, Claim)))
        return bot(view)

    return decide


def play_game_events(decide: Decide, rng: random.Random) -> tuple[Game, set[str]]:
    """A Classic game through the aggregate: the nine bombs, the order by the orderer, then
    the pool until the service finds the end time passed after a random number of deals."""
    seed = secrets.token_bytes(32)
    game = Game._create(
        Game.Created,
        id=uuid.uuid4(),
        seat=-1,
        request_id="create",
        players=["a", "b", "c"],
        rules=CLASSIC.to_dict(),
        league="",
        seed_commitment=seed_commitment(seed),
        token_hashes=["", "", ""],
        first_dealer=rng.randrange(3),
    )
    game.deal_first(seed, "create")
    last = INITIAL + rng.randint(1, 8)
    seen: set[str] = set()
    while not game.finished:
        if awaiting_order(game.state):
            orderer = game_orderer(game.state)
            game.order(orderer, rng.randint(4, 40), AT_2300, "order", seed)
            seen.add("order")
        deal = game.state.deal
        assert deal is not None
        seat = actor(deal)
        time_up = game.state.deal_number >= last
        game.act(seat, decide(deal, seat), f"r{game.version}", seed, time_up=time_up)
        after = game.state.deal
        if after is not None and after.phase is not Phase.BIDDING:
            if after.bomb and game.state.deal_number > INITIAL:
                seen.add("bomb")
            if after.dark:
                seen.add("dark")
    return game, seen


def audited(game: Game) -> None:
    events = game.collect_events()
    report = verify(str(game.id), events)
    assert report.verified, report.summary
    assert report.settlement == game.settlement
    record = validate(record_from_events(events, str(game.id)))
    assert record["order"]["pool"] >= 4 and record["stopped"] == "time"
    verdict = verify_record(record)
    assert verdict.consistent, verdict.message


def test_every_bot_game_under_classic_is_verified_by_the_audit() -> None:
    rng = random.Random()
    for _ in range(5):
        game, seen = play_game_events(bots(), rng)
        assert "order" in seen and game.state.time_called
        audited(game)


def test_games_with_random_classic_calls_are_verified_by_the_audit() -> None:
    """Drawn (fresh seeds) until a bomb of the pool and a dark game were recorded."""
    rng = random.Random()
    seen: set[str] = set()
    for _ in range(30):
        game, paths = play_game_events(bots_with_classic_calls(rng), rng)
        audited(game)
        seen |= paths
        if {"bomb", "dark"} <= seen:
            break
    assert {"bomb", "dark"} <= seen, seen
