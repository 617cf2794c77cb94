"""Trick play, raspasy play and claims (RULES.md §1.5, §1.8, §1.9 and the claims of §6).

Follow the led suit; if void, trump if you can; otherwise any card. No trumps in NT, misère
and raspasy. In raspasy the two talon cards set the suits of tricks 1 and 2 (they never win),
and the first hand leads tricks 1 to 3; with a closed talon (``RuleSet.raspasy_talon``, §3.3;
always with two players, §3.6) the first hand leads trick 1 and the winners lead after. With two
players a raspasy trick has two cards (the dummy takes no part) and the declarer's opponent plays
the dummy in a game (``controller``). A claim proposes how the remaining
tricks fall; when every other player accepts, the deal ends so; a rejected claim may not be
repeated by the same player in the same trick.
"""

from __future__ import annotations

from itertools import product

from domain.rules import sitters, underbid
from domain.rules.actions import (
    ACCEPT,
    PLAYS,
    REJECT,
    AcceptClaim,
    Action,
    Claim,
    PlayCard,
    RejectClaim,
)
from domain.rules.cards import CARDS, SUIT_MASKS, Suit, card_list
from domain.rules.errors import IllegalAction
from domain.rules.seats import DUMMY, HANDS, first_hand, hand_seats
from domain.rules.state import (
    ClaimState,
    DealResult,
    DealState,
    Kind,
    Phase,
    PlayState,
    Trick,
    with_play,
)

TRICKS = 10
_new = tuple.__new__  # builds a NamedTuple without its keyword-parsing constructor


def trump_of(state: DealState) -> int:
    """The trump suit as an int, or -1 (NT, misère, raspasy)."""
    contract = state.contract
    if contract is None or contract.strain is None or contract.strain == 4:
        return -1
    return int(contract.strain)


def led_suit(state: DealState) -> int:
    """The suit that must be followed in the trick in progress, or -1 if the lead is free."""
    play = state.play
    n = len(play.history)
    if state.declarer < 0 and n < 2 and state.rules.raspasy_talon_leads:
        # Raspasy tricks 1 and 2: the talon card sets the suit for every hand (§1.9).
        return state.talon[n] >> 3
    if play.trick:
        return play.trick[0][1] >> 3
    return -1


def legal_mask(state: DealState) -> int:
    """The cards the hand on turn may play, as a mask."""
    hand = state.play.hands[state.to_act]
    led = led_suit(state)
    if led < 0:
        return hand
    follow = hand & SUIT_MASKS[led]
    if follow:
        return follow
    trump = trump_of(state)
    if trump >= 0:
        ruff = hand & SUIT_MASKS[trump]
        if ruff:
            return ruff
    return hand


def controller(state: DealState, seat: int) -> int:
    """Who decides for ``seat``'s hand: the sole open whister plays his partner's cards too
    (not on a whisted misère, S000 Classic: each defender plays his own cards as on any
    misère)."""
    w = state.whist
    if seat >= state.rules.players:  # two players: the dummy is played by its defender (§3.6)
        return state.next_player(state.declarer)
    if w.open and len(w.whisters) == 1 and seat != state.declarer and seat != w.whisters[0]:
        contract = state.contract
        if contract is None or not contract.is_misere:
            return w.whisters[0]
    return seat


def remaining(state: DealState) -> int:
    return TRICKS - len(state.play.history)


def _splits(left: int, players: int) -> tuple[Claim, ...]:
    return tuple(
        Claim(split) for split in product(range(left + 1), repeat=players) if sum(split) == left
    )


_CLAIMS: dict[tuple[int, int, int], tuple[Claim, ...]] = {
    (left, 3, 0): _splits(left, 3) for left in range(TRICKS + 1)
}
_DUO_RASPASY_CLAIMS: dict[int, tuple[Claim, ...]] = {
    left: tuple(c for c in _splits(left, 3) if c.tricks[DUMMY] == 0) for left in range(TRICKS + 1)
}
"""Two players' raspasy: the dummy takes no part, so it gets no share of a claim (§3.6)."""


def _seated_splits(left: int, players: int, dealer: int) -> tuple[Claim, ...]:
    """The splits among the three hands, as claims over every seat (a sitter gets none: the
    talon cards take only raspasy tricks 1 and 2, before any claim can be settled)."""
    seats = hand_seats(dealer, players)
    out = []
    for split in _splits(left, HANDS):
        tricks = [0] * players
        for seat, share in zip(seats, split.tricks, strict=True):
            tricks[seat] = share
        out.append(Claim(tuple(tricks)))
    return tuple(out)


def claim_options(state: DealState) -> tuple[Action, ...]:
    """Every split of the remaining tricks among the hands, if the actor may still claim in
    this trick."""
    if (state.claim_tries >> controller(state, state.to_act)) & 1:
        return ()
    players = state.players
    if players == 2:  # the two seats and the dummy (position 2); on raspasy it takes none
        left = remaining(state)
        return _DUO_RASPASY_CLAIMS[left] if state.declarer < 0 else _CLAIMS[left, HANDS, 0]
    if players > HANDS and state.declarer < 0 and len(state.play.history) < 2:
        return ()  # the talon cards may still take tricks for the dealer (§3.3, TV-28)
    key = (remaining(state), players, 0 if players == HANDS else state.dealer)
    if key not in _CLAIMS:
        _CLAIMS[key] = _seated_splits(*key)
    return _CLAIMS[key]


def legal(state: DealState) -> tuple[Action, ...]:
    mask = legal_mask(state)
    plays: list[Action] = []
    while mask:
        low = mask & -mask
        plays.append(PLAYS[low.bit_length() - 1])
        mask ^= low
    return (*plays, *claim_options(state))


def apply(state: DealState, action: Action) -> DealState:
    if type(action) is PlayCard:
        return play_card(state, action.card)
    if isinstance(action, Claim):
        return make_claim(state, action)
    raise IllegalAction("play a card or make a claim", legal(state))


def _illegal_card_message(state: DealState, card: int) -> str:
    hand = state.play.hands[state.to_act]
    if not (hand >> card) & 1:
        return f"you do not hold {CARDS[card]}; you may play {card_list(legal_mask(state))}"
    led = led_suit(state)
    held = hand & SUIT_MASKS[led]
    if held:
        return f"you must follow {Suit(led).symbol}: you hold {card_list(held)}"
    trump = trump_of(state)
    return (
        f"you must trump with {Suit(trump).symbol}: you hold {card_list(hand & SUIT_MASKS[trump])}"
    )


def play_card(state: DealState, card: int) -> DealState:
    play = state.play
    seat = state.to_act
    hands = play.hands
    hand = hands[seat]
    trick = play.trick
    history = play.history
    suit = card >> 3
    if not (hand >> card) & 1:
        raise IllegalAction(_illegal_card_message(state, card), legal(state))
    if state.declarer < 0 and len(history) < 2 and state.rules.raspasy_talon_leads:
        led = state.talon[len(history)] >> 3
    elif trick:
        led = trick[0][1] >> 3
    else:
        led = suit
    if suit != led and hand & SUIT_MASKS[led]:
        raise IllegalAction(_illegal_card_message(state, card), legal(state))
    if suit != led:
        trump = trump_of(state)
        if trump >= 0 and suit != trump and hand & SUIT_MASKS[trump]:
            raise IllegalAction(_illegal_card_message(state, card), legal(state))
    new_hands = (*hands[:seat], hand & ~(1 << card), *hands[seat + 1 :])
    trick = (*trick, (seat, card))
    open_hands = state.open_hands
    if not history and len(trick) == 1 and state.whist.open and state.declarer >= 0:
        # Misère led by the declarer: the defence opens after that lead (§1.8); with two
        # players the whister of a trick game keeps his own hand (only the dummy lies open).
        contract = state.contract
        if state.rules.players == 2 and contract is not None and not contract.is_misere:
            open_hands |= 1 << DUMMY
        else:
            open_hands |= state.active & ~(1 << state.declarer)
    if len(trick) < (HANDS if state.declarer >= 0 or state.rules.players != 2 else 2):
        new_play = _new(PlayState, (new_hands, trick, play.leader, play.tricks, history))
        return with_play(state, new_play, state.next_hand(seat), open_hands)
    winner = trick_winner(state, trick)
    tricks = play.tricks
    tricks = (*tricks[:winner], tricks[winner] + 1, *tricks[winner + 1 :])
    history = (*history, _new(Trick, (play.leader, trick, winner)))
    if state.declarer < 0 and len(history) < 3 and state.rules.raspasy_talon_leads:
        leader = first_hand(state.dealer, state.players)
    else:
        leader = winner
    new_play = _new(PlayState, (new_hands, (), leader, tricks, history))
    state = with_play(state, new_play, leader, open_hands)
    if len(history) == TRICKS:
        return finish(state, _played_kind(state))
    return state


def trick_winner(state: DealState, trick: tuple[tuple[int, int], ...]) -> int:
    """Highest trump, else the highest card of the led (or, in raspasy, the set) suit."""
    trump = trump_of(state)
    n = len(state.play.history)
    best_seat, best_key = trick[0][0], -1
    if state.declarer < 0 and n < 2 and state.rules.raspasy_talon_leads:
        led = state.talon[n] >> 3
        if state.players > HANDS:
            # With four or five players the talon card is the dealer's lead and takes the
            # trick for him unless a hand beats it (§3.3 "Talon open, 4p", TV-28).
            best_seat, best_key = state.dealer, state.talon[n]
    else:
        led = trick[0][1] >> 3
    for seat, card in trick:
        suit = card >> 3
        if suit == trump:
            key = 100 + card
        elif suit == led:
            key = card
        else:
            continue
        if key > best_key:
            best_seat, best_key = seat, key
    return best_seat


def make_claim(state: DealState, claim: Claim) -> DealState:
    options = claim_options(state)
    if claim not in options:
        if not options:
            raise IllegalAction("your claim was rejected in this trick; play a card", legal(state))
        raise IllegalAction(
            f"a claim gives each of the three hands a share of the {remaining(state)} remaining "
            "tricks (a seat without a hand none)",
            options,
        )
    claimant = controller(state, state.to_act)
    pending = ClaimState(claimant, claim.tricks, 0, state.to_act)
    return state.with_(phase=Phase.CLAIM, claim=pending, to_act=_answers_after(state, claimant))


def claim_round(state: DealState) -> tuple[int, ...]:
    """The seats that answer a claim, clockwise from H1: the three hands; with four or five
    players a sitter who returned the whist answers for both passers (who have no stake), and
    the dealer sharing a misère answers too."""
    if state.players == 2:  # the two players; the dummy answers nothing (§3.6)
        return tuple(s for s in state.hand_seats if s != DUMMY)
    seats: tuple[int, ...] = hand_seats(state.dealer, state.players)
    if state.players == HANDS:
        return seats
    whisters = state.whist.whisters
    if len(whisters) == 1 and not state.active >> whisters[0] & 1:
        seats = (state.declarer, whisters[0])
    if state.partner >= 0:
        seats = (*seats, state.partner)
    return seats


def _answers_after(state: DealState, seat: int) -> int:
    seats = claim_round(state)
    return seats[(seats.index(seat) + 1) % len(seats)]


def respond(state: DealState, action: Action) -> DealState:
    pending = state.claim
    assert pending is not None
    if isinstance(action, RejectClaim):
        return state.with_(
            phase=Phase.PLAY,
            claim=None,
            to_act=pending.resume,
            claim_tries=state.claim_tries | (1 << pending.claimant),
        )
    if not isinstance(action, AcceptClaim):
        raise IllegalAction("accept or reject the claim first", (ACCEPT, REJECT))
    accepted = pending.accepted | (1 << state.to_act)
    nxt = _answers_after(state, state.to_act)
    if nxt != pending.claimant:
        return state.with_(claim=pending._replace(accepted=accepted), to_act=nxt)
    tricks = tuple(t + c for t, c in zip(state.play.tricks, pending.tricks, strict=True))
    ended = state.with_(claim=None, play=state.play._replace(tricks=tricks))
    return finish(ended, _played_kind(ended), claimed=True)


def _played_kind(state: DealState) -> Kind:
    if state.declarer < 0:
        return Kind.RASPASY
    assert state.contract is not None
    return Kind.MISERE if state.contract.is_misere else Kind.GAME


def finish(state: DealState, kind: Kind, *, claimed: bool = False) -> DealState:
    """End the deal and record its result; everything becomes visible (§1.12 review)."""
    w = state.whist
    if state.declarer >= 0 and kind is not Kind.MISERE:
        d1 = state.next_hand(state.declarer)
        defenders = [d1, state.next_hand(d1)]
        # With two players the dummy is nobody: it neither whists nor passes (§3.6).
        passers = tuple(s for s in defenders if s not in w.whisters and s < state.players)
    else:
        passers = ()
    result = DealResult(
        kind=kind,
        declarer=state.declarer,
        contract=state.contract,
        tricks=state.play.tricks,
        whisters=w.whisters,
        passers=passers,
        half_whister=w.half_whister,
        returned=w.returned,
        claimed=claimed,
        active=state.seats if state.players != HANDS else 0,
        talon_seat=talon_seat(state),
        talon_count=sitters.talon_value(state) if kind in _SOLD else 0,
        talon_returned=state.talon_returned,
        partner=state.partner,
        own_cards=w.own_cards,
    )
    if underbid.reviewable(state, kind):
        return underbid.start_review(state, result)
    return state.with_(phase=Phase.SCORED, to_act=-1, result=result)


_SOLD = frozenset((Kind.GAME, Kind.MISERE, Kind.PASSED_OUT, Kind.HALF_WHIST))
"""The results on which the dealer writes talon whists: a declared contract, "whatever its
result" (S000); not on a concession, an underbid or preferans (decision P-2)."""


def talon_seat(state: DealState) -> int:
    """The dealer sitting on the talon (four or five players, §3.6), else -1."""
    return state.dealer if state.players > HANDS else -1
