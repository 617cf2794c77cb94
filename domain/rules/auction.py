"""The auction (RULES.md §1.3, §3.1, decisions A-04, A-05, A-06, A-18 of §6).

Legal calls for the seat on turn: ``pass``; the next rung above the highest bid (6♠ if none,
9♠ above misère, or 10♠ under ``misere_beaten_by_ten``); ``here`` if the seat sits earlier
than the holder of the highest bid (under ``here_passes_to_later``: the seat holding the
"here" priority over him, which passes to the later hand when the earlier one raises instead
of saying "here"); ``misère`` as the seat's first call while misère outranks the highest bid
(never over another misère: the earlier hand's stands). A misère caller who has been overbid
may only pass. Two passes with a bid standing end the auction; three passes start raspasy.
"""

from __future__ import annotations

from domain.rules.actions import CALLS, HERE, PASS, TAKE_TALON, Action, Call, Here, Pass
from domain.rules.bids import LADDER, MISERE_INDEX, Bid, Strain
from domain.rules.errors import IllegalAction
from domain.rules.ruleset import Bidding, RuleSet
from domain.rules.seats import first_hand, next_seat
from domain.rules.state import AuctionState, DealState, Phase, PlayState

_TOP = len(LADDER) - 1
_FLOORS = {level: Bid.ordinary(level, Strain.SPADES).index for level in range(6, 11)}
"""The ladder index of the lowest bid at each level (the auction's floor after raspasy)."""


def _next_rung(index: int) -> int:
    """The next ordinary rung above ``index`` (misère is never a raise)."""
    nxt = index + 1
    return nxt + 1 if nxt == MISERE_INDEX else nxt


_NINE = Bid.ordinary(9, Strain.SPADES).index
_TEN = Bid.ordinary(10, Strain.SPADES).index


def misere_ceiling(rules: RuleSet) -> int:
    """The ladder index of the lowest bid that beats misère: 9♠, or 10♠ under S004's
    ``misere_beaten_by_ten`` (misère then ranks between 9NT and 10♠)."""
    return _TEN if rules.misere_beaten_by_ten else _NINE


def raises(state: DealState) -> list[int]:
    """Ladder indices of the ordinary bids the seat on turn may raise to."""
    rules = state.rules
    high = state.auction.high
    floor = _FLOORS[rules.min_level(state.raspasy_streak)]
    if high == MISERE_INDEX:
        floor = max(floor, misere_ceiling(rules))
    if rules.bidding is Bidding.JUMP:
        start = max(floor, high + 1)
        return [i for i in range(start, _TOP + 1) if i != MISERE_INDEX]
    nxt = floor if high < 0 else max(floor, _next_rung(high))
    if nxt > _TOP:
        return []
    out = [nxt]
    if rules.bidding is Bidding.NT_SKIP and LADDER[nxt].strain is Strain.NO_TRUMP:
        after = _next_rung(nxt)
        if after <= _TOP:
            out.append(after)
    return out


def _active(auction: AuctionState, players: int) -> int:
    return players - auction.passed.bit_count()


def _pair_bit(a: int, b: int, players: int) -> int:
    """The bit of the pair of seats ``a``, ``b`` in ``AuctionState.turned``."""
    return 1 << (min(a, b) * players + max(a, b))


def _has_priority(state: DealState, seat: int, other: int) -> bool:
    """Whether ``seat`` may hold ``other``'s bid with "here": the earlier hand, unless the
    priority has passed to the later one (A-06 option ``here_passes_to_later``)."""
    players = state.players
    earlier = (seat - state.dealer - 1) % players < (other - state.dealer - 1) % players
    if state.auction.turned & _pair_bit(seat, other, players):
        return not earlier
    return earlier


def _may_say_here(state: DealState) -> bool:
    auction = state.auction
    return (
        auction.high >= 0
        and auction.high != MISERE_INDEX
        and _has_priority(state, state.to_act, auction.holder)
        and (not state.rules.here_between_two_only or _active(auction, state.players) == 2)
    )


def legal(state: DealState) -> tuple[Action, ...]:
    seat = state.to_act
    auction = state.auction
    if seat == auction.misere_seat:
        return (PASS,)
    out: list[Action] = [PASS]
    if _may_say_here(state):
        out.append(HERE)
    if not (auction.called >> seat) & 1 and _misere_beats(state, auction.high):
        out.append(CALLS[MISERE_INDEX])
    out.extend(CALLS[i] for i in raises(state))
    return tuple(out)


def _misere_beats(state: DealState, high: int) -> bool:
    """Whether misère outranks the highest bid ``high`` (never another misère: two misères
    cannot both stand, the earlier hand's has priority, RULES.md §3.1)."""
    return high < MISERE_INDEX or (high != MISERE_INDEX and high < misere_ceiling(state.rules))


def describe(state: DealState) -> str:
    """What the seat on turn may say, in words: "the next bid is 7♠, here or pass"."""
    allowed = legal(state)
    bids = [str(a) for a in allowed if isinstance(a, Call) and not a.bid.is_misere]
    parts = []
    if bids:
        parts.append(("the next bid is " if len(bids) == 1 else "a bid of ") + ", ".join(bids))
    if HERE in allowed:
        parts.append(f"'here' ({LADDER[state.auction.high]})")
    if CALLS[MISERE_INDEX] in allowed:
        parts.append("misère")
    parts.append("pass")
    return " or ".join([", ".join(parts[:-1]), parts[-1]]) if len(parts) > 1 else parts[0]


def apply(state: DealState, action: Action) -> DealState:
    if action not in legal(state):
        raise IllegalAction(_why(state, action) + f"; {describe(state)}", legal(state))
    seat = state.to_act
    a = state.auction
    calls = (*a.calls, (seat, action))
    called = a.called | (1 << seat)
    high, holder, passed, misere_seat = a.high, a.holder, a.passed, a.misere_seat
    turned = a.turned
    if isinstance(action, Pass):
        passed |= 1 << seat
    elif isinstance(action, Here):
        holder = seat
    else:
        assert isinstance(action, Call)
        if state.rules.here_passes_to_later and not action.bid.is_misere and _may_say_here(state):
            # A-06 (S000): he raised where he could have said "here"; the opponent may now.
            turned ^= _pair_bit(seat, holder, state.players)
        beats_misere = high == MISERE_INDEX
        high, holder = action.bid.index, seat
        if action.bid.is_misere:
            misere_seat = seat
        elif beats_misere and state.rules.misere_beaten_stops_auction:
            passed = _all_but(seat, state.players)
    auction = AuctionState(calls, high, holder, passed, called, misere_seat, turned)
    players = state.players
    if passed.bit_count() == players:
        return _start_raspasy(state, auction)
    if passed.bit_count() == players - 1 and high >= 0:
        return state.with_(
            auction=auction,
            phase=Phase.TALON,
            to_act=holder,
            declarer=holder,
            bid=LADDER[high],
        )
    nxt = next_seat(seat, players)
    while (passed >> nxt) & 1:
        nxt = next_seat(nxt, players)
    return state.with_(auction=auction, to_act=nxt)


def _all_but(seat: int, players: int) -> int:
    return ((1 << players) - 1) & ~(1 << seat)


def _start_raspasy(state: DealState, auction: AuctionState) -> DealState:
    """Three passes: raspasy, led by the first hand (§1.9)."""
    h1 = first_hand(state.dealer, state.players)
    play = PlayState(state.play.hands, (), h1, state.play.tricks, ())
    return state.with_(auction=auction, phase=Phase.PLAY, to_act=h1, play=play)


def _why(state: DealState, action: Action) -> str:
    auction = state.auction
    if state.to_act == auction.misere_seat:
        return "your misère was overbid: you may only pass"
    if isinstance(action, Here):
        if auction.high < 0:
            return "there is no bid to hold with 'here' yet"
        if auction.high == MISERE_INDEX:
            return "misère cannot be held with 'here'"
        if state.rules.here_passes_to_later:
            return (
                "only the hand with the priority may say 'here' "
                "(the earlier hand, until it raises instead)"
            )
        return "only an earlier hand may say 'here'"
    if isinstance(action, Call):
        if action.bid.is_misere:
            if (auction.called >> state.to_act) & 1:
                return "misère must be your first call in the auction"
            if auction.high == MISERE_INDEX:
                return (
                    "misère no longer beats the highest bid: misère is already called, "
                    "and the earlier hand's misère has priority"
                )
            return "misère no longer beats the highest bid"
        return f"you cannot bid {action.bid} now"
    return f"{action} is not an auction call"


TALON_ACTIONS: tuple[Action, ...] = (TAKE_TALON,)
