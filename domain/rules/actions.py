"""Actions: every decision a player can make, as small immutable values with notation.

``str(action)`` prints the form people say at the table (``6♠``, ``here``, ``pass``,
``discard 7♣ 8♦``, ``declare 7♥``, ``whist``, ``half-whist``, ``open``, ``10♠``,
``claim 2-1-0``); ``parse_action`` reads it back (ASCII forms too).

Why over 400 lines: one small value class per decision of every system, with its notation, and
the one parser that reads them all back: the notation's one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.rules.bids import LADDER, Bid
from domain.rules.cards import CARDS, Card, parse_cards
from domain.rules.errors import InvalidAction


@dataclass(frozen=True, slots=True)
class Call:
    """An auction call that names a rung of the ladder: a bid, or misère."""

    bid: Bid

    def __str__(self) -> str:
        return str(self.bid)


@dataclass(frozen=True, slots=True)
class Here:
    """ "Here": an earlier hand holds the later hand's current bid (§1.3)."""

    def __str__(self) -> str:
        return "here"


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass, in the auction or when whisting."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Look:
    """Classic (RULES.md §3.5): a player who has not looked at his cards looks at them now
    (before that he may only pass dark, declare a bomb or bid dark)."""

    def __str__(self) -> str:
        return "look"


@dataclass(frozen=True, slots=True)
class Bomb:
    """Classic "бомба" / "пас втемную": a pass without looking while nobody has declared a
    game (RULES.md §3.5, S000 "Бомба"); the first declares the bomb, the others join it."""

    def __str__(self) -> str:
        return "bomb"


@dataclass(frozen=True, slots=True)
class DarkCall:
    """Classic: a bid (or misère) made without looking, "пика втемную" (S000): the auction
    won on it is a dark game, its talon taken unseen by the others."""

    bid: Bid

    def __str__(self) -> str:
        return f"{self.bid} dark"


@dataclass(frozen=True, slots=True)
class NoTalonCall:
    """A game (or misère) without talon (RULES.md §3.1 "Games without talon"): the talon is
    put aside; it beats the ordinary bids of its level (Classic)."""

    bid: Bid

    def __str__(self) -> str:
        return f"{self.bid} without talon"


@dataclass(frozen=True, slots=True)
class TakeTalon:
    """The declarer turns the talon face up and takes it (§1.4)."""

    def __str__(self) -> str:
        return "take talon"


def _card_pair(cards: tuple[Card, ...], what: str) -> tuple[Card, Card]:
    """Two different cards, sorted (a discard, a gift "с вареником")."""
    if len(cards) != 2:
        raise InvalidAction(f"a {what} is exactly two cards")
    a, b = cards
    if a == b:
        raise InvalidAction(f"a {what} is two different cards")
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True, slots=True)
class Discard:
    """The declarer's secret discard of two cards (§1.4). Cards are kept sorted."""

    cards: tuple[Card, Card]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", _card_pair(self.cards, "discard"))

    @property
    def mask(self) -> int:
        return (1 << self.cards[0]) | (1 << self.cards[1])

    def __str__(self) -> str:
        return f"discard {self.cards[0]} {self.cards[1]}"


@dataclass(frozen=True, slots=True)
class Declare:
    """The final contract, not below the winning bid (§1.4)."""

    contract: Bid

    def __str__(self) -> str:
        return f"declare {self.contract}"


@dataclass(frozen=True, slots=True)
class Concede:
    """ "Without three": the talon taker refuses to play instead of declaring (RULES.md §3.1,
    S000 conv.); he is written the agreed undertricks and nobody whists."""

    def __str__(self) -> str:
        return "concede"


@dataclass(frozen=True, slots=True)
class ClaimUnderbid:
    """A whister's claim that the declarer underbid, "перезаклад" (RULES.md §3.1, TV-25)."""

    def __str__(self) -> str:
        return "underbid"


@dataclass(frozen=True, slots=True)
class DeclarePreferans:
    """ "Preferans": the talon taker's unbeatable twelve cards end the game (RULES.md §3.1)."""

    def __str__(self) -> str:
        return "preferans"


@dataclass(frozen=True, slots=True)
class Whist:
    """Whist: take on the defence (§1.6); after a half-whist, the return whist."""

    def __str__(self) -> str:
        return "whist"


@dataclass(frozen=True, slots=True)
class HalfWhist:
    """Half-whist against a 6 or 7 after the first defender passed (§1.6 item 4)."""

    def __str__(self) -> str:
        return "half-whist"


@dataclass(frozen=True, slots=True)
class OwnWhist:
    """S004 "свой вист": after both defenders passed on a 6 or 7, a defender offers to write
    for his own tricks (half the norm) without play, if the declarer allows (RULES.md §3.2)."""

    def __str__(self) -> str:
        return "own whist"


@dataclass(frozen=True, slots=True)
class AnswerOwnWhist:
    """The declarer's answer to an own whist: allow (no play, the defender writes his own
    tricks) or refuse (the game is given as after two passes)."""

    allow: bool

    def __str__(self) -> str:
        return "allow" if self.allow else "refuse"


@dataclass(frozen=True, slots=True)
class ChooseDefence:
    """The sole whister's choice: open (both defending hands face up) or closed (§1.6)."""

    open: bool

    def __str__(self) -> str:
        return "open" if self.open else "closed"


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play one card to the current trick."""

    card: Card

    def __str__(self) -> str:
        return str(self.card)


@dataclass(frozen=True, slots=True)
class Claim:
    """Propose how the remaining tricks fall: ``tricks[seat]`` more tricks to each seat."""

    tricks: tuple[int, ...]

    def __post_init__(self) -> None:
        if any(t < 0 for t in self.tricks):
            raise InvalidAction("a claim cannot give a negative number of tricks")

    def __str__(self) -> str:
        return "claim " + "-".join(str(t) for t in self.tricks)


@dataclass(frozen=True, slots=True)
class WriteOff:
    """The declarer of an unwhisted contract chooses where its points go (S000 conventions,
    RULES.md §3.4, option ``unwhisted_write_off``): off his own gora, or to the pool."""

    off: bool

    def __str__(self) -> str:
        return "write off" if self.off else "to pool"


@dataclass(frozen=True, slots=True)
class RetractPass:
    """Two players (``duo_retract_pass``): after both passed, the first passer takes his pass
    back and declares a game without bidding (RULES.md §3.6, S000)."""

    def __str__(self) -> str:
        return "retract pass"


@dataclass(frozen=True, slots=True)
class OwnCardsWhist:
    """Two players (``duo_whist_own_cards``): whist on one's own cards only, answering for two
    tricks of one's own on a six and one on a seven or higher (RULES.md §3.6, S000)."""

    def __str__(self) -> str:
        return "whist own cards"


@dataclass(frozen=True, slots=True)
class GiveCards:
    """Two players "с вареником" (``duo_all_pass``): the first hand, holding the talon, gives
    his opponent two cards of his twelve (RULES.md §3.6, S000). Cards are kept sorted."""

    cards: tuple[Card, Card]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", _card_pair(self.cards, "gift"))

    @property
    def mask(self) -> int:
        return (1 << self.cards[0]) | (1 << self.cards[1])

    def __str__(self) -> str:
        return f"give {self.cards[0]} {self.cards[1]}"


@dataclass(frozen=True, slots=True)
class ViewHand:
    """Four or five players (RULES.md §3.2 "Two passes (4p)", TV-24, TV-30): after both
    defenders passed, the dealer on the talon looks at one passer's cards before he decides
    whether to return the whist (S003: "посмотрев карты одного из игроков")."""

    seat: int

    def __str__(self) -> str:
        return f"view {self.seat}"


@dataclass(frozen=True, slots=True)
class ReturnTalon:
    """Four or five players (RULES.md §3.1 "Talon refused (4p)", §5.1 C-8): the auction's
    winner does not take the talon shown to him and plays on his own ten cards; the agreed
    penalty goes to gora (S000: "если игрок не берет (за ненадобностью) предложенный ему
    прикуп")."""

    def __str__(self) -> str:
        return "return talon"


@dataclass(frozen=True, slots=True)
class InviteDealer:
    """Four or five players (RULES.md §3.1 "Inviting the dealer to misère"): the misère winner
    invites the dealer, who looks at his cards and accepts or rejects sharing the misère's win
    or loss equally (S000: "Игрок имеет право приглашать сдатчика на мизер")."""

    def __str__(self) -> str:
        return "invite"


@dataclass(frozen=True, slots=True)
class AcceptClaim:
    def __str__(self) -> str:
        return "accept"


@dataclass(frozen=True, slots=True)
class RejectClaim:
    def __str__(self) -> str:
        return "reject"


Action = (
    Call
    | Look
    | Bomb
    | DarkCall
    | NoTalonCall
    | Here
    | Pass
    | TakeTalon
    | Discard
    | Declare
    | Concede
    | ClaimUnderbid
    | DeclarePreferans
    | Whist
    | HalfWhist
    | OwnWhist
    | AnswerOwnWhist
    | ChooseDefence
    | PlayCard
    | Claim
    | AcceptClaim
    | RejectClaim
    | WriteOff
    | ViewHand
    | ReturnTalon
    | InviteDealer
    | RetractPass
    | OwnCardsWhist
    | GiveCards
)

HERE = Here()
LOOK = Look()
BOMB = Bomb()
PASS = Pass()
TAKE_TALON = TakeTalon()
CONCEDE = Concede()
UNDERBID = ClaimUnderbid()
PREFERANS = DeclarePreferans()
WHIST = Whist()
HALF_WHIST = HalfWhist()
OWN_WHIST = OwnWhist()
ALLOW = AnswerOwnWhist(True)
REFUSE = AnswerOwnWhist(False)
OPEN = ChooseDefence(True)
CLOSED = ChooseDefence(False)
ACCEPT = AcceptClaim()
REJECT = RejectClaim()
WRITE_OFF = WriteOff(True)
TO_POOL = WriteOff(False)
RETURN_TALON = ReturnTalon()
INVITE_DEALER = InviteDealer()
VIEW_HANDS: tuple[ViewHand, ...] = tuple(ViewHand(seat) for seat in range(5))
RETRACT_PASS = RetractPass()
OWN_CARDS_WHIST = OwnCardsWhist()
CALLS: tuple[Call, ...] = tuple(Call(bid) for bid in LADDER)
DARK_CALLS: tuple[DarkCall, ...] = tuple(DarkCall(bid) for bid in LADDER)
NO_TALON_CALLS: tuple[NoTalonCall, ...] = tuple(NoTalonCall(bid) for bid in LADDER)
DECLARES: tuple[Declare, ...] = tuple(Declare(bid) for bid in LADDER)
PLAYS: tuple[PlayCard, ...] = tuple(PlayCard(card) for card in CARDS)
DISCARDS: dict[tuple[int, int], Discard] = {
    (a, b): Discard((CARDS[a], CARDS[b])) for a in range(32) for b in range(a + 1, 32)
}
GIFTS: dict[tuple[int, int], GiveCards] = {
    (a, b): GiveCards((CARDS[a], CARDS[b])) for a in range(32) for b in range(a + 1, 32)
}
"""Preallocated actions, so the hot paths allocate nothing."""

_WORDS: dict[str, Action] = {
    "here": HERE,
    "look": LOOK,
    "смотрю": LOOK,
    "bomb": BOMB,
    "бомба": BOMB,
    "dark pass": BOMB,
    "пас втемную": BOMB,
    "тут": HERE,
    "здесь": HERE,
    "pass": PASS,
    "пас": PASS,
    "take": TAKE_TALON,
    "take talon": TAKE_TALON,
    "talon": TAKE_TALON,
    "concede": CONCEDE,
    "without three": CONCEDE,
    "without four": CONCEDE,
    "без трех": CONCEDE,
    "без трёх": CONCEDE,
    "без четырех": CONCEDE,
    "без четырёх": CONCEDE,
    "underbid": UNDERBID,
    "перезаклад": UNDERBID,
    "preferans": PREFERANS,
    "преферанс": PREFERANS,
    "whist": WHIST,
    "вист": WHIST,
    "half-whist": HALF_WHIST,
    "half whist": HALF_WHIST,
    "halfwhist": HALF_WHIST,
    "own whist": OWN_WHIST,
    "own-whist": OWN_WHIST,
    "свой вист": OWN_WHIST,
    "allow": ALLOW,
    "refuse": REFUSE,
    "open": OPEN,
    "closed": CLOSED,
    "accept": ACCEPT,
    "reject": REJECT,
    "write off": WRITE_OFF,
    "write-off": WRITE_OFF,
    "to pool": TO_POOL,
    "return talon": RETURN_TALON,
    "invite": INVITE_DEALER,
    "invite dealer": INVITE_DEALER,
    "retract pass": RETRACT_PASS,
    "retract": RETRACT_PASS,
    "unpass": RETRACT_PASS,
    "whist own cards": OWN_CARDS_WHIST,
    "whist on own cards": OWN_CARDS_WHIST,
    "вист на своих": OWN_CARDS_WHIST,
}


_DARK_WORDS = (" dark", " втемную")
_NO_TALON_WORDS = (" without talon", " no talon", " без прикупа")


def parse_action(text: str, *, cards_first: bool = False) -> Action:
    """Read an action from its notation; raise ``InvalidAction`` with a hint if it is none.

    ``7♥`` is both a bid and a card: it reads as the bid unless ``cards_first`` (pass it during
    trick play) or unless written ``play 7♥``.
    """
    raw = " ".join(text.strip().split())
    low = raw.lower()
    if cards_first:
        try:
            return PLAYS[Card.parse(raw)]
        except InvalidAction:
            pass
    if low in _WORDS:
        return _WORDS[low]
    head, _, rest = low.partition(" ")
    if head == "discard":
        cards = parse_cards(rest)
        if len(cards) != 2:
            raise InvalidAction("a discard is exactly two cards, like 'discard 7♣ 8♦'")
        return Discard((cards[0], cards[1]))
    if head == "give":
        cards = parse_cards(rest)
        if len(cards) != 2:
            raise InvalidAction("a gift is exactly two cards, like 'give 7♣ 8♦'")
        return GiveCards((cards[0], cards[1]))
    if head == "declare":
        return DECLARES[Bid.parse(rest).index]
    if head == "play":
        return PLAYS[Card.parse(rest)]
    if head == "view" and rest.isdigit() and int(rest) < len(VIEW_HANDS):
        return VIEW_HANDS[int(rest)]
    if head == "claim":
        try:
            tricks = tuple(int(part) for part in rest.replace(",", "-").split("-"))
        except ValueError:
            raise InvalidAction(
                "a claim gives each seat's remaining tricks: 'claim 3-0-0'"
            ) from None
        return Claim(tricks)
    for suffixes, table in ((_DARK_WORDS, DARK_CALLS), (_NO_TALON_WORDS, NO_TALON_CALLS)):
        for suffix in suffixes:
            if low.endswith(suffix):
                return table[Bid.parse(raw[: -len(suffix)]).index]
    try:
        return CALLS[Bid.parse(raw).index]
    except InvalidAction:
        pass
    try:
        return PLAYS[Card.parse(raw)]
    except InvalidAction:
        raise InvalidAction(
            f"{text!r} is not an action: try a bid (6♠, misère), here, pass, take talon, "
            "6♠ dark, 7♠ without talon, look, bomb, discard 7♣ 8♦, declare 7♥, concede, "
            "underbid, preferans, whist, half-whist, own whist, allow, refuse, open, closed, "
            "a card (10♠), claim 3-0-0, accept, reject, write off, to pool, return talon, "
            "invite, view 1, retract pass, whist own cards or give 7♣ 8♦"
        ) from None
