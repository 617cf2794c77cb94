"""Property tests of the rules core (STYLE.md §9): random seeds, random dealers, random legal
actions, and the invariants that must hold at every step and for every whole game.

* 32 cards are conserved at every step, with no duplicates (RULES.md §1.1, §1.2, §1.4).
* A played deal has exactly 10 tricks, claims included; a deal without play has none (§1.12).
* ``apply`` accepts exactly the actions ``legal_actions`` lists; anything else is rejected with
  ``IllegalAction``/``InvalidAction`` and changes nothing (DESIGN.md "Security model").
* Only the actor has legal actions; a wrong ``seat=`` gets ``NotYourTurn``.
* Whole games (``play_game``): the settlement sums to exactly zero, the sheet is the sum of the
  deals' entries, whists written are the deal's whists plus help whists, pools never pass the
  target, gora is never negative, the game ends exactly when every pool is closed, the dealer
  rotates by one each deal, and an early stop also settles to zero (§1.10, §1.11).

The domain may not draw random numbers; the tests do, from seeds hypothesis chooses.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rules import (
    ACCEPT,
    CARDS,
    CLOSED,
    DEFAULT,
    HALF_WHIST,
    HERE,
    LADDER,
    OPEN,
    PASS,
    REJECT,
    TAKE_TALON,
    WHIST,
    AcceptClaim,
    Action,
    Call,
    Claim,
    DealState,
    Declare,
    Discard,
    GameOver,
    GameRecord,
    IllegalAction,
    InvalidAction,
    Kind,
    NotYourTurn,
    Phase,
    PlayCard,
    Policy,
    RuleSet,
    ScoreSheet,
    SeatView,
    actor,
    apply,
    deal_cards,
    early_stop,
    first_hand,
    legal_actions,
    new_deal,
    play_game,
    seat_view,
    settle,
    shuffle_from_seed,
)
from domain.rules.actions import CONCEDE, PREFERANS, UNDERBID

OPTION_KINDS = {Kind.CONCEDED, Kind.UNDERBID, Kind.PREFERANS, Kind.REDEAL}
"""Kinds of deal only a rule option allows (reached in test_auction_properties.py; the
two-player redeal in test_two_players.py)."""
FULL = (1 << 32) - 1
PLAYERS = 3
SEEDS = st.binary(min_size=16, max_size=32)
DEALERS = st.integers(min_value=0, max_value=PLAYERS - 1)
RNG_SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
DEAL_NUMBERS = st.integers(min_value=1, max_value=10_000)

# Every action of the game that is not a discard or a claim (those are sampled: 496 and 286).
FIXED_UNIVERSE: tuple[Action, ...] = (
    *(PlayCard(card) for card in CARDS),
    *(Call(bid) for bid in LADDER),
    *(Declare(bid) for bid in LADDER),
    HERE,
    PASS,
    TAKE_TALON,
    WHIST,
    HALF_WHIST,
    OPEN,
    CLOSED,
    ACCEPT,
    REJECT,
)
ALL_DISCARDS: tuple[Discard, ...] = tuple(
    Discard((CARDS[a], CARDS[b])) for a, b in combinations(range(32), 2)
)
ALL_CLAIMS: tuple[Claim, ...] = tuple(
    Claim((a, b, n - a - b)) for n in range(11) for a in range(n + 1) for b in range(n + 1 - a)
)


# --- a random player -------------------------------------------------------------------------


def choose(rng: random.Random, legal: Sequence[Action]) -> Action:
    """A random legal action, weighted so that every path of a deal is reached often: passes in
    the auction, low contracts (half-whist exists only on 6 and 7), rare claims."""
    assert legal, "the actor always has a legal action"
    if PASS in legal and any(isinstance(a, Call) for a in legal) and rng.random() < 0.4:
        return PASS
    declares = [a for a in legal if isinstance(a, Declare)]
    if declares and rng.random() < 0.6:
        return declares[0]
    claims = [a for a in legal if isinstance(a, Claim)]
    if claims:
        cards = [a for a in legal if not isinstance(a, Claim)]
        if not cards or rng.random() < 0.04:
            return rng.choice(claims)
        return rng.choice(cards)
    if ACCEPT in legal:
        return ACCEPT if rng.random() < 0.6 else REJECT
    return rng.choice(list(legal))


def random_policy(rng: random.Random) -> tuple[Policy, Policy, Policy]:
    """Three seats sharing one generator: deterministic, since the driver asks in a fixed order."""

    def policy(view: SeatView) -> Action:
        return choose(rng, view.legal)

    return (policy, policy, policy)


# --- invariants of one state -----------------------------------------------------------------


def played_mask(state: DealState) -> int:
    mask = 0
    count = 0
    for trick in state.play.history:
        assert len(trick.cards) == PLAYERS
        for _, card in trick.cards:
            mask |= 1 << card
            count += 1
    for _, card in state.play.trick:
        mask |= 1 << card
        count += 1
    assert mask.bit_count() == count, "a card was played twice"
    return mask


def talon_taken(state: DealState) -> bool:
    return state.declarer >= 0 and state.phase not in (Phase.BIDDING, Phase.TALON)


def check_cards(state: DealState) -> None:
    """Hands + talon (until taken) + discard + played cards are the 32 cards, each once."""
    parts = [*state.play.hands, state.discard, played_mask(state)]
    talon = (1 << state.talon[0]) | (1 << state.talon[1])
    if not talon_taken(state):
        parts.append(talon)
    seen = 0
    for part in parts:
        assert not seen & part, f"card(s) {part & seen:#x} in two places in {state.phase}"
        seen |= part
    assert seen == FULL, f"cards missing: {FULL & ~seen:#x} in {state.phase}"
    # Each seat holds only cards dealt to it (and the declarer the talon).
    for seat, hand in enumerate(state.play.hands):
        own = state.dealt[seat] | (talon if seat == state.declarer and talon_taken(state) else 0)
        assert hand & ~own == 0, f"seat {seat} holds a card that was not his"
    # The dealt hands never change.
    assert sum(h.bit_count() for h in state.dealt) == 30
    # Trick counts follow the history while the cards are being played.
    if state.phase in (Phase.PLAY, Phase.CLAIM):
        assert sum(state.play.tricks) == len(state.play.history)
        assert len(state.play.trick) < PLAYERS
        sizes = [h.bit_count() for h in state.play.hands]
        assert sum(sizes) == 30 - 3 * len(state.play.history) - len(state.play.trick)


def check_turn(state: DealState) -> None:
    """Only the actor has legal actions, and a wrong ``seat=`` is ``NotYourTurn``."""
    legal = legal_actions(state)
    who = actor(state)
    if state.phase is Phase.SCORED:
        assert legal == () and who == -1
        for seat in range(PLAYERS):
            assert seat_view(state, seat).legal == ()
        return
    assert legal, f"no legal action in {state.phase}"
    assert 0 <= who < PLAYERS
    for seat in range(PLAYERS):
        view_legal = seat_view(state, seat).legal
        assert bool(view_legal) == (seat == who)
        if seat == who:
            assert view_legal == legal
            continue
        with pytest.raises(NotYourTurn) as info:
            apply(state, legal[0], seat)
        assert info.value.to_act == who


PHASE_FAMILIES: dict[Phase, tuple[Action, ...]] = {
    Phase.BIDDING: (*(Call(bid) for bid in LADDER), HERE, PASS),
    Phase.TALON: (TAKE_TALON,),
    Phase.DISCARD: (*ALL_DISCARDS, PREFERANS),
    Phase.CONTRACT: (*(Declare(bid) for bid in LADDER), CONCEDE),
    Phase.WHISTING: (WHIST, PASS, HALF_WHIST),
    Phase.DEFENCE: (OPEN, CLOSED),
    Phase.PLAY: tuple(PlayCard(card) for card in CARDS),
    Phase.CLAIM: (ACCEPT, REJECT),
    Phase.REVIEW: (UNDERBID, PASS),
    Phase.SCORED: (),
}
"""The actions of the kind each phase expects: all tried at every step; others are sampled."""


def check_legality(state: DealState, rng: random.Random) -> None:
    """Every listed action applies (the same with or without ``seat=``); every other action
    tried is rejected with a rules error and leaves the state as it was."""
    before = copy.deepcopy(state)
    legal = legal_actions(state)
    allowed = set(legal)
    assert len(allowed) == len(legal), "duplicate legal actions"
    plain = [a for a in legal if not isinstance(a, Claim)]
    claims = [a for a in legal if isinstance(a, Claim)]
    for action in (*plain, *rng.sample(claims, min(4, len(claims)))):
        after = apply(state, action)
        assert apply(state, action, actor(state)) == after
        check_cards(after)
    candidates = [
        *PHASE_FAMILIES[state.phase],
        *rng.sample(FIXED_UNIVERSE, 10),
        *rng.sample(ALL_DISCARDS, 3),
        *rng.sample(ALL_CLAIMS, 4),
        Claim((10,)),
        Claim((0, 0, 0, 0)),
    ]
    for action in candidates:
        if action in allowed:
            continue
        try:
            apply(state, action)
        except (IllegalAction, InvalidAction):
            pass
        else:
            raise AssertionError(f"{action} was accepted in {state.phase} but is not legal")
    for action in rng.sample(candidates, 5):
        if action in allowed or state.phase is Phase.SCORED:
            continue
        with pytest.raises((IllegalAction, InvalidAction)):
            apply(state, action, actor(state))
    assert state == before, "a rejected action changed the state"
    if state.phase is Phase.SCORED:
        with pytest.raises(GameOver):
            apply(state, PlayCard(CARDS[0]))


# --- one random deal -------------------------------------------------------------------------


class Walk(NamedTuple):
    states: tuple[DealState, ...]
    """Every state from the deal to the scored state."""
    actions: tuple[tuple[int, Action], ...]


def deal_from(seed: bytes, number: int, dealer: int) -> DealState:
    shuffle = shuffle_from_seed(seed, number)
    return new_deal(deal_cards(shuffle.order, dealer, shuffle.talon_pair), dealer)


def walk(state: DealState, rng: random.Random) -> Walk:
    states = [state]
    actions: list[tuple[int, Action]] = []
    for _ in range(500):
        if state.phase is Phase.SCORED:
            return Walk(tuple(states), tuple(actions))
        seat = actor(state)
        action = choose(rng, legal_actions(state))
        state = apply(state, action, seat)
        states.append(state)
        actions.append((seat, action))
    raise AssertionError("a deal did not end within 500 actions")


def check_result(walked: Walk) -> None:
    final = walked.states[-1]
    result = final.result
    assert final.phase is Phase.SCORED and result is not None
    claims_accepted = sum(
        1
        for (_, a), (_, b) in zip(walked.actions, walked.actions[1:], strict=False)
        if isinstance(a, AcceptClaim) and isinstance(b, AcceptClaim)
    )
    if result.kind in (Kind.GAME, Kind.MISERE, Kind.RASPASY):
        assert sum(result.tricks) == 10
        history = final.play.history
        assert result.claimed == (len(history) < 10 or bool(final.play.trick))
        assert result.claimed == (claims_accepted > 0)
        if not result.claimed:
            assert all(h == 0 for h in final.play.hands)
            assert Counter(t.winner for t in history) == Counter(
                {s: n for s, n in enumerate(result.tricks) if n}
            )
        else:
            # An accepted claim ends the deal at a trick boundary or mid-trick; the tricks
            # already taken are kept.
            winners = Counter(t.winner for t in history)
            assert all(result.tricks[s] >= winners[s] for s in range(PLAYERS))
    else:
        assert result.kind in (Kind.PASSED_OUT, Kind.HALF_WHIST)
        assert sum(result.tricks) == 0
        assert final.play.history == () and final.play.trick == ()
    if result.kind is Kind.RASPASY:
        assert final.declarer == -1 and result.contract is None
        assert [a for _, a in walked.actions[:3]] == [PASS, PASS, PASS]
    else:
        assert final.declarer >= 0
        assert (final.declarer, TAKE_TALON) in walked.actions
        assert final.discard.bit_count() == 2


class Features(NamedTuple):
    kind: Kind
    misere_first_hand: bool
    open_defence: bool
    claim_accepted: bool
    claim_rejected: bool
    returned: bool


def check_deal(seed: bytes, number: int, dealer: int, rng_seed: int) -> Features:
    """Walk one random deal, checking every invariant at every step."""
    rng = random.Random(rng_seed)
    walked = walk(deal_from(seed, number, dealer), rng)
    for state in walked.states:
        check_cards(state)
        check_turn(state)
        check_legality(state, rng)
    check_result(walked)
    final = walked.states[-1]
    assert final.result is not None
    said = [a for _, a in walked.actions]
    return Features(
        kind=final.result.kind,
        misere_first_hand=final.result.kind is Kind.MISERE and final.declarer == first_hand(dealer),
        open_defence=OPEN in said,
        claim_accepted=final.result.claimed,
        claim_rejected=REJECT in said,
        returned=final.result.returned,
    )


@settings(max_examples=120, deadline=None)
@given(seed=SEEDS, number=DEAL_NUMBERS, dealer=DEALERS, rng_seed=RNG_SEEDS)
def test_random_deals_keep_every_invariant(
    seed: bytes, number: int, dealer: int, rng_seed: int
) -> None:
    check_deal(seed, number, dealer, rng_seed)


def test_random_deals_reach_every_path() -> None:
    """The random player reaches every kind of deal, so the property above covers them all."""
    seen: set[str] = set()
    for i in range(140):
        f = check_deal(i.to_bytes(16, "big"), 1 + i % 7, i % PLAYERS, i)
        seen.add(f.kind.value)
        seen.update(
            name
            for name, hit in (
                ("misère by the first hand", f.misere_first_hand),
                ("open defence", f.open_defence),
                ("claim accepted", f.claim_accepted),
                ("claim rejected", f.claim_rejected),
                ("return whist", f.returned),
            )
            if hit
        )
    assert seen == {
        *(k.value for k in Kind if k not in OPTION_KINDS),
        "misère by the first hand",
        "open defence",
        "claim accepted",
        "claim rejected",
        "return whist",
    }


# --- whole games -----------------------------------------------------------------------------


def check_game(
    record: GameRecord, rules: RuleSet, first_dealer: int, *, sliding: bool = True
) -> None:
    """Every invariant of a whole game; ``sliding=False`` leaves the dealer's order to the
    caller (a non-sliding deal after raspasy, RULES.md §3.3)."""
    target = rules.pool_target
    pool = [0] * PLAYERS
    gora = [0] * PLAYERS
    whists = [[0] * PLAYERS for _ in range(PLAYERS)]
    dealer = first_dealer
    for i, deal in enumerate(record.deals):
        assert deal.number == i + 1
        if sliding:
            assert deal.dealer == dealer, "the deal passes to the left (a void game is dealt again)"
        assert deal.final.dealer == deal.dealer
        # The deal was dealt from the game seed and this deal's number.
        shuffle = shuffle_from_seed(record.seed, deal.number)
        dealt = deal_cards(shuffle.order, deal.dealer, shuffle.talon_pair)
        assert deal.final.dealt == dealt.hands and deal.final.talon == dealt.talon
        check_cards(deal.final)
        result = deal.final.result
        assert result is not None
        played = result.kind in (Kind.GAME, Kind.MISERE, Kind.RASPASY, Kind.UNDERBID)
        assert sum(result.tricks) == (10 if played else 0)
        if result.kind is not Kind.UNDERBID:
            dealer = (dealer + 1) % PLAYERS
        # Whists written this deal: the deal's own whists plus 10 per point of help.
        for writer in range(PLAYERS):
            for target_seat in range(PLAYERS):
                helped = sum(
                    h.points
                    for h in deal.entry.helps
                    if h.helper == writer and h.recipient == target_seat
                )
                assert (
                    deal.entry.whists[writer][target_seat]
                    == deal.score.whists[writer][target_seat] + helped * rules.help_whists_per_point
                )
            assert deal.entry.whists[writer][writer] == 0, "nobody writes whists on himself"
        # Pool points are placed, never invented: own pool, help, or gora leftovers.
        assert sum(deal.entry.pool) <= sum(deal.score.pool)
        assert all(p >= 0 for p in deal.entry.pool)
        for h in deal.entry.helps:
            assert h.points > 0 and h.helper != h.recipient
            assert pool[h.helper] + deal.entry.pool[h.helper] >= target, "only a closed pool helps"
        for seat in range(PLAYERS):
            pool[seat] += deal.entry.pool[seat]
            gora[seat] += deal.entry.gora[seat]
            for other in range(PLAYERS):
                whists[seat][other] += deal.entry.whists[seat][other]
        assert all(0 <= p <= target for p in pool), f"a pool passed {target}: {pool}"
        assert all(g >= 0 for g in gora), f"negative gora: {gora}"
        closed = all(p == target for p in pool)
        assert closed == (i == len(record.deals) - 1 and record.finished), (
            "the game ends exactly when every pool is closed"
        )
    sheet = ScoreSheet(tuple(pool), tuple(gora), tuple(tuple(row) for row in whists))
    assert record.sheet == sheet, "the sheet is the sum of the deals' entries"
    # The settlement, computed here from §1.11 (with the early-stop gora if the game stopped).
    if not record.finished:
        gora = [g + target - p for g, p in zip(gora, pool, strict=True)]
        assert early_stop(record.sheet, rules).gora == tuple(gora)
    avg = Fraction(sum(gora), PLAYERS)
    expected = tuple(
        10 * (avg - gora[i]) + sum(whists[i]) - sum(whists[j][i] for j in range(PLAYERS))
        for i in range(PLAYERS)
    )
    assert record.settlement == expected
    assert all(isinstance(x, Fraction) for x in record.settlement)
    assert sum(record.settlement) == 0


@settings(max_examples=40, deadline=None)
@given(
    seed=SEEDS,
    first_dealer=DEALERS,
    rng_seed=RNG_SEEDS,
    target=st.sampled_from([20, 20, 10, 6, 1]),
)
def test_whole_games_settle_to_zero(
    seed: bytes, first_dealer: int, rng_seed: int, target: int
) -> None:
    rules = DEFAULT.with_options(pool_target=target)
    policies = random_policy(random.Random(rng_seed))
    record = play_game(seed, policies, rules, first_dealer, max_deals=400)
    check_game(record, rules, first_dealer)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, first_dealer=DEALERS, rng_seed=RNG_SEEDS, max_deals=st.integers(1, 5))
def test_early_stop_settles_to_zero(
    seed: bytes, first_dealer: int, rng_seed: int, max_deals: int
) -> None:
    policies = random_policy(random.Random(rng_seed))
    record = play_game(seed, policies, DEFAULT, first_dealer, max_deals)
    # 60 pool points cannot be placed in five deals (at most 10 a deal): always an early stop.
    assert not record.finished and len(record.deals) == max_deals
    check_game(record, DEFAULT, first_dealer)
    assert record.settlement == settle(early_stop(record.sheet, DEFAULT), DEFAULT)


def test_whole_games_finish_and_stop() -> None:
    """With the default target the random player finishes games; a cap stops them early."""
    finished = stopped = 0
    for i in range(12):
        seed = bytes([i]) * 16
        record = play_game(seed, random_policy(random.Random(i)), max_deals=40)
        check_game(record, DEFAULT, 0)
        finished += record.finished
        stopped += not record.finished
    assert finished and stopped


def test_settlement_check_can_fail() -> None:
    """The game check is not vacuous: a record with one whist too many fails it."""
    record = play_game(b"\x07" * 16, random_policy(random.Random(7)), max_deals=3)
    check_game(record, DEFAULT, 0)
    bad_whists = ((0, 1, 0), *record.sheet.whists[1:])
    bad = record._replace(
        sheet=record.sheet._replace(
            whists=tuple(
                tuple(a + b for a, b in zip(r, s, strict=True))
                for r, s in zip(record.sheet.whists, bad_whists, strict=True)
            )
        )
    )
    with pytest.raises(AssertionError):
        check_game(bad, DEFAULT, 0)


def test_invariant_checks_can_fail() -> None:
    """The card check catches a duplicated card and a lost card."""
    state = deal_from(b"\x01" * 16, 1, 0)
    check_cards(state)
    hands = state.play.hands
    stolen = hands[1] & -hands[1]
    duplicated = state._replace(play=state.play._replace(hands=(hands[0] | stolen, *hands[1:])))
    with pytest.raises(AssertionError):
        check_cards(duplicated)
    lost = state._replace(play=state.play._replace(hands=(hands[0] & (hands[0] - 1), *hands[1:])))
    with pytest.raises(AssertionError):
        check_cards(lost)
