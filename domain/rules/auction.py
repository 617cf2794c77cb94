"""The auction (RULES.md §1.3, §3.1, decisions A-04, A-05, A-06, A-18 of §6).

Legal calls for the seat on turn: ``pass``; the next rung above the highest bid (6♠ if none,
9♠ above misère, or 10♠ under ``misere_beaten_by_ten``); ``here`` if the seat sits earlier
than the holder of the highest bid (under ``here_passes_to_later``: the seat holding the
"here" priority over him, which passes to the later hand when the earlier one raises instead
of saying "here"); ``misère`` as the seat's first call while misère outranks the highest bid
(never over another misère: the earlier hand's stands). A misère caller who has been overbid
may only pass. Two passes with a bid standing end the auction; three passes start raspasy.

Classic (issue 12, RULES.md §3.5, §3.1 "Games without talon"; S000 "КЛАССИКА"). A bid is made
in one of three *tiers*: ``LIGHT`` (ordinary), ``NO_TALON`` (a game without talon) or
``DARK`` (made without looking). Bids rank by (level, tier, strain): a game without talon
beats the ordinary bids of its level, a dark bid beats both, and an ordinary bid of the next
level beats them all ("пика втемную перебивается обычной семерной или «трефа втемную»"; "на
уровне 7 … только заявкой 7 без прикупа"). Misère: the ordinary one above the eights (or the
nines, S004), misère without talon between the ordinary nines and the nines without talon,
dark misère between those and the dark nines; an ordinary ten beats both ("мизер втемную …
только девятерной втемную или десятерной в светлую"; "мизер без прикупа — девятерной без
прикупа или десятерной с прикупом"). Under ``dark_bids_on_ladder`` dark bids rank as ordinary.

A seat that has not looked (``DealState.unseen``) may only look, bid dark, or pass dark: while
nobody has declared a game and ``bombs`` is on, that pass is a bomb (the first declares it,
later ones join it; bombers leave the auction); otherwise an ordinary pass without looking.
While a bomb stands, ordinary bids and bids without talon start at the seven (or at 6 +
the bomb's level under ``bomb_beaten_by_rising_level``). If nobody declares a game, the deal
is raspasy on the bomb: ``DealState.bomb`` is its level (one more than the bombs in a row
before the deal) and ``DealState.bombers`` those who declared it. An auction won on a dark bid
is a dark game (``DealState.dark``); one won without talon a game without talon
(``DealState.no_talon``): the talon is put aside (shown unless ``no_talon_shown`` is off) and
the declarer goes straight to his contract. Everybody but a dark declarer has looked when
the auction ends (they must play or whist); the dark declarer looks when he takes the talon,
which the others do not see. Before taking it he may look and switch to an ordinary misère
(S000), then taking the talon in the open.

Why over 400 lines: the auction is one state machine, and every system's variations of it (here,
misère limits, bombs, dark and no-talon calls, tiers) change the same legal-call function, so
they are kept beside it rather than spread over files.
"""

from __future__ import annotations

import functools

from domain.rules import sitters
from domain.rules.actions import (
    ACCEPT,
    BOMB,
    CALLS,
    DARK_CALLS,
    HERE,
    LOOK,
    NO_TALON_CALLS,
    PASS,
    TAKE_TALON,
    Action,
    Bomb,
    Call,
    DarkCall,
    Here,
    Look,
    NoTalonCall,
    Pass,
)
from domain.rules.bids import LADDER, MISERE_INDEX, Bid, Strain
from domain.rules.errors import IllegalAction
from domain.rules.ruleset import Bidding, RuleSet
from domain.rules.seats import HANDS, first_hand
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


LIGHT, NO_TALON, DARK = 0, 1, 2
"""The tiers of a bid (``AuctionState.tier``)."""
_ABOVE_ALL = 9
"""The tier rank of the ordinary misère: above every tier of its level."""


def _rank(beaten_by_ten: bool, dark_on_ladder: bool, index: int, tier: int) -> tuple[int, ...]:
    if index == MISERE_INDEX:
        if tier == LIGHT:
            return (9 if beaten_by_ten else 8, _ABOVE_ALL, 0)
        return (9, tier, -1)
    bid = LADDER[index]
    if tier == DARK and dark_on_ladder:
        tier = LIGHT
    return (bid.level, tier, int(bid.strain))  # type: ignore[arg-type]


_RANKS = {
    (ten, ladder): tuple(
        tuple(_rank(ten, ladder, index, tier) for index in range(len(LADDER)))
        for tier in (LIGHT, NO_TALON, DARK)
    )
    for ten in (False, True)
    for ladder in (False, True)
}
"""``rank`` for every bid and tier under the two options it depends on, computed once: the
auction compares ranks for every rung at every call (``tier_raises``)."""


def ranks(rules: RuleSet, tier: int) -> tuple[tuple[int, ...], ...]:
    """The rank of every ladder index in ``tier`` (``rank``)."""
    return _RANKS[rules.misere_beaten_by_ten, rules.dark_bids_on_ladder][tier]


def rank(rules: RuleSet, index: int, tier: int) -> tuple[int, ...]:
    """The order of the bid ``index`` made in ``tier`` (see the module docstring)."""
    return ranks(rules, tier)[index]


def _high_rank(state: DealState) -> tuple[int, ...]:
    auction = state.auction
    if auction.high < 0:
        return (0, 0, 0)
    return rank(state.rules, auction.high, auction.tier)


def _bomb_floor(state: DealState) -> int:
    """The lowest level of an ordinary bid (or one without talon) while a bomb stands."""
    if not state.auction.bombers or state.auction.high >= 0:
        return 6
    if state.rules.bomb_beaten_by_rising_level:
        return min(10, 6 + state.rules.bomb_level(state.bomb_streak))
    return 7


def tier_raises(state: DealState, tier: int) -> list[int]:
    """Ladder indices of the trick bids of ``tier`` the seat on turn may make: above the
    highest bid by rank, from the exit level (and, but for dark bids, the bomb floor), by
    the ``bidding`` convention (sequential: the lowest; NT-skip: also the next after an NT;
    jump: any)."""
    rules = state.rules
    floor = rules.min_level(state.raspasy_streak)
    if tier != DARK:
        floor = max(floor, _bomb_floor(state))
    levels = rules.no_talon_levels if tier == NO_TALON else None
    return list(
        _raises_above(
            _high_rank(state),
            tier,
            floor,
            levels,
            rules.bidding,
            rules.misere_beaten_by_ten,
            rules.dark_bids_on_ladder,
        )
    )


@functools.lru_cache(maxsize=4096)
def _raises_above(
    above: tuple[int, ...],
    tier: int,
    floor: int,
    levels: frozenset[int] | None,
    bidding: Bidding,
    beaten_by_ten: bool,
    dark_on_ladder: bool,
) -> tuple[int, ...]:
    """``tier_raises`` from what it depends on (few combinations: kept, as the auction asks
    for every tier at every call). ``levels`` ``None``: every level from ``floor``."""
    order = _RANKS[beaten_by_ten, dark_on_ladder][tier]
    out = [
        i
        for i in range(_FLOORS[floor], _TOP + 1)
        if i != MISERE_INDEX
        and order[i] > above
        and (LADDER[i].level in levels if levels is not None else True)
    ]
    if bidding is Bidding.JUMP or not out:
        return tuple(out)
    if bidding is Bidding.NT_SKIP and LADDER[out[0]].strain is Strain.NO_TRUMP:
        return tuple(out[:2])
    return tuple(out[:1])


def raises(state: DealState) -> list[int]:
    """Ladder indices of the ordinary bids the seat on turn may raise to."""
    if state.auction.tier != LIGHT or state.auction.bombers:
        return tier_raises(state, LIGHT)
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


def _active(auction: AuctionState) -> int:
    """Hands still bidding (the sitters of a 4- or 5-player deal never bid, §3.6)."""
    return HANDS - auction.passed.bit_count()


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
        and auction.tier == LIGHT
        and _has_priority(state, state.to_act, auction.holder)
        and (not state.rules.here_between_two_only or _active(auction) == 2)
    )


def legal(state: DealState) -> tuple[Action, ...]:
    seat = state.to_act
    auction = state.auction
    if sitters.is_sitter(state, seat):
        return _DEALER_BOMB  # the dealer on the talon joins the bomb or not (S000 l.655)
    if seat == auction.misere_seat or _overbid_misere(state, seat):
        return (PASS,)
    if (state.unseen >> seat) & 1:
        return _unseen_legal(state)
    out: list[Action] = [PASS]
    if _may_say_here(state):
        out.append(HERE)
    first_call = not (auction.called >> seat) & 1
    if first_call and _misere_beats(state, auction.high):
        out.append(CALLS[MISERE_INDEX])
    out.extend(CALLS[i] for i in raises(state))
    rules = state.rules
    if first_call and rules.no_talon_misere and _tier_misere_beats(state, NO_TALON):
        out.append(NO_TALON_CALLS[MISERE_INDEX])
    if rules.no_talon_levels:
        out.extend(NO_TALON_CALLS[i] for i in tier_raises(state, NO_TALON))
    return tuple(out)


def _overbid_misere(state: DealState, seat: int) -> bool:
    """Whether ``seat`` called a misère that a misère of another tier has beaten (only with
    dark misère or misère without talon): he may only pass, as after any overbid misère."""
    rules = state.rules
    if not (rules.dark_misere or rules.no_talon_misere):
        return False
    return any(
        s == seat and isinstance(a, Call | DarkCall | NoTalonCall) and a.bid.is_misere
        for s, a in state.auction.calls
    )


def _unseen_legal(state: DealState) -> tuple[Action, ...]:
    """A seat that has not looked: look, pass dark (a bomb while nobody declared a game), or
    bid dark."""
    rules = state.rules
    auction = state.auction
    out: list[Action] = [LOOK, BOMB if _may_bomb(state) else PASS]
    first_call = not (auction.called >> state.to_act) & 1
    if first_call and rules.dark_misere and _tier_misere_beats(state, DARK):
        out.append(DARK_CALLS[MISERE_INDEX])
    if rules.dark_bids:
        out.extend(DARK_CALLS[i] for i in tier_raises(state, DARK))
    return tuple(out)


def _may_bomb(state: DealState) -> bool:
    """S000: a bomb is the pass of a player who has not looked, "при условии, что до него
    никто не объявил игры"."""
    return state.rules.bombs and state.auction.high < 0


def _misere_beats(state: DealState, high: int) -> bool:
    """Whether misère outranks the highest bid ``high`` (never another misère: two misères
    cannot both stand, the earlier hand's has priority, RULES.md §3.1)."""
    if state.auction.tier != LIGHT:
        return _tier_misere_beats(state, LIGHT)
    return high < MISERE_INDEX or (high != MISERE_INDEX and high < misere_ceiling(state.rules))


def _tier_misere_beats(state: DealState, tier: int) -> bool:
    """Whether a misère of ``tier`` outranks the highest bid (never a misère of the same tier:
    the earlier hand's stands; a misère without talon or dark does beat an ordinary one,
    S000: "Мизер без прикупа … старше девятерной")."""
    auction = state.auction
    if auction.high == MISERE_INDEX and auction.tier == tier:
        return False
    return rank(state.rules, MISERE_INDEX, tier) > _high_rank(state)


def describe(state: DealState) -> str:
    """What the seat on turn may say, in words: "the next bid is 7♠, here or pass"."""
    allowed = legal(state)
    bids = [
        str(a)
        for a in allowed
        if isinstance(a, Call | DarkCall | NoTalonCall) and not a.bid.is_misere
    ]
    parts = []
    if LOOK in allowed:
        parts.append("look")
    if BOMB in allowed:
        parts.append("bomb")
    if bids:
        parts.append(("the next bid is " if len(bids) == 1 else "a bid of ") + ", ".join(bids))
    if HERE in allowed:
        parts.append(f"'here' ({LADDER[state.auction.high]})")
    if CALLS[MISERE_INDEX] in allowed:
        parts.append("misère")
    if DARK_CALLS[MISERE_INDEX] in allowed:
        parts.append("misère dark")
    if NO_TALON_CALLS[MISERE_INDEX] in allowed:
        parts.append("misère without talon")
    if PASS in allowed:
        parts.append("pass")
    return " or ".join([", ".join(parts[:-1]), parts[-1]]) if len(parts) > 1 else parts[0]


def apply(state: DealState, action: Action) -> DealState:
    if action not in legal(state):
        raise IllegalAction(_why(state, action) + f"; {describe(state)}", legal(state))
    seat = state.to_act
    a = state.auction
    calls = (*a.calls, (seat, action))
    if sitters.is_sitter(state, seat):
        bombers = a.bombers | (1 << seat if isinstance(action, Bomb) else 0)
        return _raspasy(state, a._replace(calls=calls, bombers=bombers))
    if isinstance(action, Look):
        return state.with_(auction=a._replace(calls=calls), unseen=state.unseen & ~(1 << seat))
    called = a.called | (1 << seat)
    high, holder, passed, misere_seat = a.high, a.holder, a.passed, a.misere_seat
    turned, tier, bombers = a.turned, a.tier, a.bombers
    if isinstance(action, Pass):
        passed |= 1 << seat
    elif isinstance(action, Bomb):
        passed |= 1 << seat
        bombers |= 1 << seat
    elif isinstance(action, Here):
        holder = seat
    else:
        assert isinstance(action, Call | DarkCall | NoTalonCall)
        if (
            state.rules.here_passes_to_later
            and isinstance(action, Call)
            and not action.bid.is_misere
            and _may_say_here(state)
        ):
            # A-06 (S000): he raised where he could have said "here"; the opponent may now.
            turned ^= _pair_bit(seat, holder, state.players)
        beats_misere = high == MISERE_INDEX
        high, holder = action.bid.index, seat
        tier = (
            DARK
            if isinstance(action, DarkCall)
            else NO_TALON
            if isinstance(action, NoTalonCall)
            else LIGHT
        )
        if action.bid.is_misere:
            misere_seat = seat
        elif beats_misere and state.rules.misere_beaten_stops_auction:
            passed = state.active & ~(1 << seat)
    auction = AuctionState(calls, high, holder, passed, called, misere_seat, turned, tier, bombers)
    if passed.bit_count() == HANDS:
        if auction.bombers and state.rules.dealer_joins_bomb and state.players > HANDS:
            # Extended dealer rights (S000 l.655): the dealer declares "on the last hand".
            return state.with_(auction=auction, to_act=state.dealer)
        return _start_raspasy(state, auction)
    if passed.bit_count() == HANDS - 1 and high >= 0:
        return _won(state, auction)
    nxt = state.next_hand(seat)
    while (passed >> nxt) & 1:
        nxt = state.next_hand(nxt)
    return state.with_(auction=auction, to_act=nxt)


def _start_raspasy(state: DealState, auction: AuctionState) -> DealState:
    """Three passes: raspasy, led by the first hand (§1.9); on a bomb if anybody declared
    one (Classic: one level above the bombs in a row before this deal). With four or five
    players the dealer on the talon gets the bomb's sign too under ``dealer_bomb_sign``
    (S000 l.641). With two players what two passes lead to is ``duo.all_passed`` (§3.6)."""
    if state.rules.players == 2:
        from domain.rules import duo  # duo builds on this module

        return duo.all_passed(state, auction)
    if auction.bombers and state.rules.dealer_bomb_sign and state.players > HANDS:
        auction = auction._replace(bombers=auction.bombers | 1 << state.dealer)
    return _raspasy(state, auction)


def _raspasy(state: DealState, auction: AuctionState) -> DealState:
    h1 = first_hand(state.dealer, state.players)
    play = PlayState(state.play.hands, (), h1, state.play.tricks, ())
    out = state.with_(auction=auction, phase=Phase.PLAY, to_act=h1, play=play)
    if state.unseen or auction.bombers:
        bomb = state.rules.bomb_level(state.bomb_streak) if auction.bombers else 0
        out = out.with_(unseen=0, bomb=bomb, bombers=auction.bombers)
    return out


def _won(state: DealState, auction: AuctionState) -> DealState:
    """The auction is won: the talon phase; a game without talon goes to its contract with the
    talon put aside. Everybody but a dark declarer has now looked."""
    holder = auction.holder
    out = state.with_(
        auction=auction,
        phase=Phase.TALON,
        to_act=holder,
        declarer=holder,
        bid=LADDER[auction.high],
    )
    if auction.tier == LIGHT and not state.unseen:
        return out
    out = out.with_(
        unseen=state.unseen & (1 << holder) if auction.tier == DARK else 0,
        dark=auction.tier == DARK,
        no_talon=auction.tier == NO_TALON,
    )
    if auction.tier != NO_TALON:
        return out
    talon = (1 << state.talon[0]) | (1 << state.talon[1])
    return out.with_(phase=Phase.CONTRACT, discard=talon, talon_open=state.rules.no_talon_shown)


# --- the talon of a dark game ------------------------------------------------------------


def talon_options(state: DealState) -> tuple[Action, ...]:
    """Take the talon; a dark declarer who has not looked may look first; having looked, the
    declarer of a dark trick game may switch to an ordinary misère (S000)."""
    if not state.dark:
        extra = sitters.talon_options(state)
        if not extra:
            return TALON_ACTIONS
        return extra if extra[0] == ACCEPT else (*TALON_ACTIONS, *extra)
    if (state.unseen >> state.declarer) & 1:
        return (TAKE_TALON, LOOK)
    assert state.bid is not None
    if not state.bid.is_misere:
        return (TAKE_TALON, CALLS[MISERE_INDEX])
    return TALON_ACTIONS


def talon_apply(state: DealState, action: Action) -> DealState:
    """The talon phase: ``whisting.take_talon``, with the dark game's talon unseen by the
    others, or the dark declarer's look, or his switch to misère."""
    from domain.rules.whisting import take_talon

    if not state.dark:
        extra = sitters.talon_options(state)
        if action in extra:
            return sitters.talon_act(state, action)
        if extra and extra[0] == ACCEPT:
            raise IllegalAction("accept or reject the invitation to the misère", extra)
        return take_talon(state, action)
    allowed = talon_options(state)
    if action not in allowed:
        what = "look at your cards" if LOOK in allowed else "switch to misère"
        raise IllegalAction(f"the declarer must first take the talon (or {what})", allowed)
    if isinstance(action, Look):
        return state.with_(unseen=state.unseen & ~(1 << state.declarer))
    if isinstance(action, Call):
        # S000: "прикуп берется в открытую и играется обычный мизер – взятый в светлую".
        return state.with_(bid=action.bid, dark=False)
    taken = take_talon(state, action)
    return taken.with_(talon_open=False, unseen=state.unseen & ~(1 << state.declarer))


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
    if isinstance(action, Look | Bomb | DarkCall | NoTalonCall):
        if isinstance(action, Bomb):
            if not state.rules.bombs:
                return "bombs are not played here"
            if not (state.unseen >> state.to_act) & 1:
                return "only a player who has not looked at his cards may declare a bomb"
            return "a bomb is declared only while nobody has declared a game"
        if isinstance(action, Look):
            return "you have already looked at your cards"
        if isinstance(action, DarkCall):
            if (state.unseen >> state.to_act) & 1 or not (
                state.rules.dark_bids or state.rules.dark_misere
            ):
                return f"you cannot bid {action} now"
            return "only a player who has not looked may bid dark"
        return f"you cannot bid {action} now"
    if (state.unseen >> state.to_act) & 1 and isinstance(action, Call | Here):
        return "look at your cards first, or pass or bid dark"
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
_DEALER_BOMB: tuple[Action, ...] = (BOMB, PASS)
