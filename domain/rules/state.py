"""The state of one deal: an immutable value made of small immutable parts.

Only the part that an action changes is rebuilt, so the hot path of a card play allocates a
new ``PlayState`` and a new ``DealState`` and nothing else. Phases are explicit (§1.14).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from domain.rules.actions import Action
from domain.rules.bids import Bid
from domain.rules.ruleset import RuleSet
from domain.rules.seats import DUMMY, hand_mask, hand_seats, next_hand, positions


class Phase(StrEnum):
    """Where a deal is; each phase has its own legal actions."""

    BIDDING = "bidding"
    TALON = "talon"
    DISCARD = "discard"
    CONTRACT = "contract"
    WHISTING = "whisting"
    DEFENCE = "defence"
    """The sole whister (or the misère defence, A-24) chooses open or closed."""
    PLAY = "play"
    CLAIM = "claim"
    """A claim is on the table; the other players accept or reject it in turn."""
    WRITE_OFF = "write-off"
    """Both defenders passed and the rules allow it (``unwhisted_write_off``): the declarer
    chooses to write the contract's points off his gora or to the pool (S000 conv., §3.4)."""
    REVIEW = "review"
    """The play is over and every hand lies open; the whisters may prove an underbid
    (RULES.md §3.1, ``RuleSet.underbid_penalty``)."""
    SCORED = "scored"


class Kind(StrEnum):
    """How a deal was settled."""

    GAME = "game"
    """A trick contract played out (or settled by a claim)."""
    MISERE = "misere"
    RASPASY = "raspasy"
    PASSED_OUT = "passed-out"
    """Both defenders passed: the contract is given without play (§1.6 item 3)."""
    HALF_WHIST = "half-whist"
    """Half-whist stood: no play (§1.6 item 4)."""
    UNDERBID = "underbid"
    """The whisters proved an underbid: the game is void and dealt again (RULES.md §3.1,
    TV-25; ``RuleSet.underbid_penalty``)."""
    PREFERANS = "preferans"
    """The talon taker declared "preferans": the game ends (RULES.md §3.1, TV-40)."""
    CONCEDED = "conceded"
    """The talon taker went "without three" (or four) instead of declaring: no play, no
    whists (RULES.md §3.1, S000 conv.; ``RuleSet.concede_undertricks``)."""
    REDEAL = "redeal"
    """Two players both passed and deal again without play (``duo_all_pass`` "redeal",
    RULES.md §3.6): nothing is written."""


class AuctionState(NamedTuple):
    calls: tuple[tuple[int, Action], ...]
    """Every call in order, with its seat."""
    high: int
    """Ladder index of the highest bid, -1 before the first bid."""
    holder: int
    """Seat holding the highest bid, -1 before the first bid."""
    passed: int
    """Mask of seats (bit ``1 << seat``) that have passed."""
    called: int
    """Mask of seats that have made any call."""
    misere_seat: int
    """Seat that called misère (-1 if none); once beaten he may only pass (§1.3)."""
    turned: int = 0
    """Pairs of seats whose "here" priority has passed from the earlier to the later hand
    (bit ``1 << (low_seat * players + high_seat)``; only under ``here_passes_to_later``, A-06)."""
    tier: int = 0
    """How the highest bid was made: ``LIGHT`` (0), ``NO_TALON`` (1) or ``DARK`` (2) (Classic,
    ``domain.rules.auction``); it ranks the bid with its level."""
    bombers: int = 0
    """Mask of seats that declared or joined a bomb in this auction (Classic, S000 "Бомба")."""


class Trick(NamedTuple):
    leader: int
    cards: tuple[tuple[int, int], ...]
    """(seat, card) in the order played."""
    winner: int


class PlayState(NamedTuple):
    hands: tuple[int, ...]
    """Current holdings of each seat, as masks."""
    trick: tuple[tuple[int, int], ...]
    """(seat, card) of the trick in progress."""
    leader: int
    tricks: tuple[int, ...]
    """Tricks taken so far by each seat."""
    history: tuple[Trick, ...]


class WhistState(NamedTuple):
    calls: tuple[tuple[int, Action], ...]
    whisters: tuple[int, ...]
    """Seats defending with responsibility, in the order they said "whist"."""
    half_whister: int
    """Seat that said half-whist (-1 if none)."""
    returned: bool
    """The first defender came back with a whist after the half-whist."""
    open: bool | None
    """Open or closed defence, once chosen (``None`` before, or with two whisters: closed)."""
    own_cards: bool = False
    """Two players (``duo_whist_own_cards``): the whister whists on his own cards only."""


class ClaimState(NamedTuple):
    claimant: int
    tricks: tuple[int, ...]
    accepted: int
    """Mask of seats that accepted so far."""
    resume: int
    """The seat to act when play resumes after a rejection."""


class DealResult(NamedTuple):
    kind: Kind
    declarer: int
    """Declarer seat, -1 on raspasy."""
    contract: Bid | None
    tricks: tuple[int, ...]
    """Tricks of each seat (zeros when there was no play)."""
    whisters: tuple[int, ...]
    """Responsible defenders in the order they whisted."""
    passers: tuple[int, ...]
    """Defenders who passed (and half-whister, if half-whist stood)."""
    half_whister: int
    returned: bool
    claimed: bool
    """True if the last tricks were settled by an accepted claim."""
    written_off: bool = False
    """An unwhisted contract whose points the declarer wrote off his gora (§3.4)."""
    active: int = 0
    """Mask of the seats that held a hand (0: every seat, as with three players; §3.6)."""
    talon_seat: int = -1
    """The dealer who sat on the talon (four or five players, §3.6): the raspasy talon tricks
    are his; -1 with three players."""
    talon_count: int = 0
    """What the talon sold to the declarer is worth to the dealer (``RuleSet.talon_whists``):
    tricks of a trick contract (TV-20, TV-29), sevens of a misère's talon; 0 none."""
    talon_returned: bool = False
    """The declarer left the talon (``RuleSet.talon_return``)."""
    partner: int = -1
    """The dealer sharing the misère's win or loss (``RuleSet.misere_partner``), -1 if none."""
    own_cards: bool = False
    """Two players: the whister whisted on his own cards (``duo_whist_own_cards``): he answers
    for his own tricks (2 on a six, 1 higher) and the dummy's tricks are nobody's."""


class Review(NamedTuple):
    """The underbid review after the play (RULES.md §3.1, ``domain.rules.underbid``)."""

    result: DealResult
    """The result of the play, which stands unless an underbid is proved."""
    proven: bool
    """Whether the open cards prove the underbid (decided once, when the review opens)."""


class DealState(NamedTuple):
    """One deal, from the dealt cards to the scored result."""

    rules: RuleSet
    dealer: int
    dealt: tuple[int, ...]
    """The hands as dealt (masks), never changed."""
    talon: tuple[int, int]
    """The two talon cards in the order they lie (the first sets raspasy trick 1)."""
    raspasy_streak: int
    """Raspasy deals in a row just before this one (sets the exit level and prices)."""
    phase: Phase
    to_act: int
    """The seat whose hand acts (for a card: whose card it is); -1 when scored."""
    auction: AuctionState
    declarer: int
    bid: Bid | None
    """The winning bid."""
    discard: int
    """The declarer's discard (mask), 0 until made."""
    contract: Bid | None
    whist: WhistState
    play: PlayState
    claim: ClaimState | None
    claim_tries: int
    """Mask of seats that made a rejected claim in the current trick (one try per trick)."""
    open_hands: int
    """Mask of seats whose hands lie face up for everyone."""
    talon_open: bool
    result: DealResult | None
    dealer_run: int
    """Deals in a row the dealer had dealt before this one (non-sliding deal, §3.3)."""
    review: Review | None = None
    """The result of the play while the underbid review is open (``Phase.REVIEW``)."""
    # Classic (issue 12, RULES.md §3.5 "Classic", TV-26). The auction sets them; scoring reads them.
    unseen: int = 0
    """Mask of seats that have not looked at their cards (a dark pass, bomb or dark bid); their
    seat views show no cards of their own until they look."""
    dark: bool = False
    """The contract is a dark game (the talon taken unseen): its values are doubled (TV-26)."""
    no_talon: bool = False
    """The contract is a game (or misère) without talon (§3.1 "Games without talon")."""
    bomb: int = 0
    """On a raspasy: its bomb level (0 an ordinary raspasy, 1 single, 2 double, 3 triple …)."""
    bombers: int = 0
    """On a bomb: the mask of seats that declared it and get its sign (TV-26)."""
    bomb_streak: int = 0
    """Bomb raspasy in a row just before this deal: a bomb declared now is one level higher
    (S000: double and triple bombs come on the following rounds)."""
    # Four and five players (issue 13, RULES.md §3.6; ``domain.rules.sitters``).
    peeks: tuple[tuple[int, int], ...] = ()
    """(viewer, seat): a seat without a hand that has seen another seat's cards (the dealer
    deciding on a returned whist, or invited to a misère)."""
    sitters_asked: int = 0
    """Mask of the sitters who declined to return the whist after two passes."""
    talon_returned: bool = False
    """The declarer left the talon shown to him (``RuleSet.talon_return``)."""
    invited: int = -1
    """The dealer invited to share the misère (``RuleSet.misere_partner``), -1 if none."""
    partner: int = -1
    """The dealer who accepted to share the misère, -1 if none."""

    def with_(self, **changes: Any) -> DealState:
        """``_replace`` without its generic machinery (the rules' hot paths use it)."""
        fields = list(self)
        for name, value in changes.items():
            fields[_INDEX[name]] = value
        return tuple.__new__(DealState, fields)

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def active(self) -> int:
        """Mask of the seats holding a hand this deal (all three with three players; §3.6)."""
        return hand_mask(self.dealer, self.rules.players)

    def next_hand(self, seat: int) -> int:
        """The next seat clockwise holding a hand this deal (the sitters are skipped; with two
        players the dummy is skipped on raspasy, where it takes no part, §3.6)."""
        rules = self.rules
        players = rules.players
        if players == 3:  # every seat holds a hand: the card-play hot path
            return seat + 1 if seat < 2 else 0
        nxt = next_hand(seat, self.dealer, players, rules.duo_dummy_hand)
        if nxt == DUMMY and players == 2 and self.declarer < 0:
            return next_hand(nxt, self.dealer, 2, rules.duo_dummy_hand)
        return nxt

    def next_player(self, seat: int) -> int:
        """The next seat clockwise holding a hand, never the dummy (it answers nothing)."""
        nxt = self.next_hand(seat)
        if nxt == DUMMY and self.rules.players == 2:
            return self.next_hand(nxt)
        return nxt

    @property
    def hand_seats(self) -> tuple[int, int, int]:
        """The seats (with two players: the dummy's position) of H1, H2 and H3."""
        return hand_seats(self.dealer, self.rules.players, self.rules.duo_dummy_hand)

    @property
    def seats(self) -> int:
        """Mask of the seats (players) holding a hand: ``active`` without the dummy."""
        return self.active & ((1 << self.rules.players) - 1)

    @property
    def width(self) -> int:
        """The length of the per-hand tuples (``seats.positions``)."""
        return positions(self.rules.players)

    @property
    def raspasy(self) -> bool:
        """True when this deal is (being) played as raspasy."""
        return self.declarer < 0 and self.phase in (Phase.PLAY, Phase.CLAIM, Phase.SCORED)

    @property
    def compulsory_raspasy(self) -> bool:
        """True when this deal is a raspasy without an auction (S000 "Любимовка", §3.3)."""
        return self.rules.raspasy_compulsory(self.raspasy_streak)

    @property
    def trick_number(self) -> int:
        """0-based number of the trick in progress (10 when all are played)."""
        return len(self.play.history)


_INDEX = {name: i for i, name in enumerate(DealState._fields)}
_TO_ACT = DealState._fields.index("to_act")
_PLAY = DealState._fields.index("play")
_CLAIM_TRIES = DealState._fields.index("claim_tries")
_OPEN_HANDS = DealState._fields.index("open_hands")


def with_play(state: DealState, play: PlayState, to_act: int, open_hands: int) -> DealState:
    """``state._replace(play=…, to_act=…, open_hands=…)`` for the card-play hot path; a new
    trick (empty ``play.trick``) also clears the claim tries."""
    fields = list(state)
    fields[_PLAY] = play
    fields[_TO_ACT] = to_act
    fields[_OPEN_HANDS] = open_hands
    if not play.trick:
        fields[_CLAIM_TRIES] = 0
    return tuple.__new__(DealState, fields)
