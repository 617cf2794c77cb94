"""``RuleSet``: the conventions of a table, as data (RULES.md §1.0 and §6).

A rule set is chosen when a game is created and recorded in its first event. The default
profile (seed S001, RULES.md §1) is ``DEFAULT``; every alternative named in §6 is a field here.
Tables of prices and norms live in this module and nowhere else.

The named systems (Sochi, Leningrad, Rostov) are ``RuleSet`` values in ``domain.rules.systems``;
where a system's arithmetic differs beyond data, it is a new entry in one of the strategy
registries (for example ``domain.rules.scoring.DEFENCE_SCORERS``) named by a field here; see
docs/RULES-ENGINE.md and docs/SYSTEMS.md.

Why over 400 lines: every option of every system (RULES.md §3.1–§3.4) is a field here with its
docstring, the one list of what a table can agree on (the JSON Schema mirrors it); the checks of
the whisting, raspasy and recording options live beside their rules (``whist_options``,
``raspasy.check_options``, ``recording``), and only their dispatch and the small cross-group
checks are here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from domain.rules.bids import Bid
from domain.rules.duo_options import DuoAllPass, check_duo
from domain.rules.errors import InvalidAction
from domain.rules.recording import (
    Birds,
    Ending,
    GoraEnding,
    InitialRounds,
    Leftover,
    SettlementMethod,
)
from domain.rules.whist_options import (
    Obligations,
    ShortfallPayer,
    WhistLiability,
    WhistSharing,
    check_whisting,
)


class Bidding(StrEnum):
    """How far a raise may go (A-04)."""

    SEQUENTIAL = "sequential"
    """Exactly one step, NT included: 6♥ → 6NT → 7♠ (the default)."""
    NT_SKIP = "nt-skip"
    """One step, but NT steps may be skipped: 6♥ → 7♠ is allowed."""
    JUMP = "jump"
    """Any higher ordinary bid."""


class Underbid(StrEnum):
    """The underbid penalty, "перезаклад" (RULES.md §3.1, TV-25; S000 conv.)."""

    NONE = "none"
    """Not played (the default)."""
    TWO = "two"
    """A proved underbid voids the game; the declarer writes 2 to his gora (S000)."""
    GAME_VALUE = "game-value"
    """As ``two``, but the declarer writes the contract's value (S000: "sometimes")."""


class PreferansHand(StrEnum):
    """Which hands may declare "preferans" after taking the talon (RULES.md §3.1, TV-40)."""

    NONE = "none"
    """Not played (the default; S000: "the players must agree whether it is played")."""
    ACE_KING_QUEEN = "ace-king-queen"
    """S004 glossary, S000 "some companies": A-K-Q in all four suits, with the talon."""
    ALL_TRICKS = "all-tricks"
    """S000: twelve cards that take every trick in no trump against any layout and any lead."""


class PreferansEffect(StrEnum):
    """What a declared "preferans" writes (RULES.md §3.1, TV-40)."""

    HUNDRED_ON_EACH = "hundred-on-each"
    """S004: every pool closed, his gora written off, ``preferans_whists`` on each other."""
    HELP_WHISTS = "help-whists"
    """S000: his gora written off; he closes every pool, the others' "receiving the
    corresponding whists": help whists (``help_whists_per_point``) for each point he gives."""


class TalonWhists(StrEnum):
    """What the dealer on the talon writes for a "good talon sold" (four or five players,
    RULES.md §3.1 "Talon whists (4p dealer)", TV-20, TV-29)."""

    NONE = "none"
    """Nothing (the default; S000: "по предварительной договоренности")."""
    TRICKS = "tricks"
    """An ace or a marriage (K+Q of a suit) is one trick, A+K of a suit two, two aces three,
    written at the declared game's whists per trick whatever its result (S000, S003)."""
    ACE_ONLY = "ace-only"
    """Only aces count, one trick whatever their number (S000: "пишут висты только за туза в
    прикупе – одна взятка по стоимости игры")."""


class TalonReturn(StrEnum):
    """Whether the auction's winner may leave the talon shown to him, and what it costs
    (four or five players, RULES.md §3.1 "Talon refused (4p)", §5.1 C-8)."""

    NONE = "none"
    """He must take it (the default)."""
    GAME_VALUE = "game-value"
    """He may; the declared game's value goes to gora (S000: "по стоимости объявленной игры в
    гору")."""
    TWO = "two"
    """He may; 2 go to gora (S000: "или просто – 2 в гору")."""


class HelpTie(StrEnum):
    """Whom a closed pool helps when two unclosed pools are equal (A-16, A-20)."""

    CLOCKWISE = "clockwise"
    """The next player clockwise from the helper (the default)."""
    SMALLER_GORA = "smaller-gora"
    """The one with the smaller gora; if equal, the next clockwise from the helper."""


class Progression(StrEnum):
    """How the raspasy trick price grows along a series (RULES.md §3.3, S000 conventions)."""

    TABLE = "table"
    """``raspasy_trick_prices`` lists the prices of the 1st, 2nd, … raspasy; the last repeats
    (the default ``(1,)`` is no progression)."""
    ARITHMETIC = "arithmetic"
    """Each raspasy of a series costs ``raspasy_progression_step`` more per trick (1-2-3)."""
    GEOMETRIC = "geometric"
    """Each raspasy of a series costs ``raspasy_progression_step`` times more (1-2-4-8)."""


class RaspasyDealer(StrEnum):
    """Who deals after raspasy (RULES.md §3.3 "Dealer after raspasy"; S000, S003)."""

    SLIDING = "sliding"
    """The deal passes to the left after every deal (the default, S001 §10)."""
    STAYS = "stays"
    """Non-sliding: the dealer deals again after raspasy, at most ``raspasy_dealer_limit``
    deals in a row (S000 conventions, S003)."""
    STAYS_UNTIL_MISERE_MADE = "stays-until-misere-made"
    """S000 "сдатчик не меняется, если не сыгран мизер": the dealer also stays after a misère
    that failed ("не сыгран" = not made, as in "игра сыграна"), at most the limit in a row."""
    NEVER_PASSES = "never-passes"
    """The deal does not pass however many raspasy follow (S000), with no limit."""


class RaspasyTalon(StrEnum):
    """What the talon does on raspasy with three players (RULES.md §3.3)."""

    OPEN = "open"
    """Its cards set the suits of tricks 1 and 2; the first hand leads tricks 1–3 (the
    default; S003's "first three leads regardless of the winners" is the same rule)."""
    CLOSED = "closed"
    """Not opened (Rostov): the first hand leads, then each trick's winner; the talon stays
    hidden until the deal is scored."""


class RaspasyScoring(StrEnum):
    """How raspasy tricks are written (RULES.md §3.3 "Rostov scoring", A-22)."""

    GORA = "gora"
    """Each trick costs its taker the trick price in gora (the default)."""
    WHISTS_FEWEST = "whists-fewest"
    """Rostov "on whists": the player(s) with the fewest tricks write the trick price in
    whists on each partner for every trick that partner took (with ``raspasy_amnesty``: for
    every trick more than the fewest)."""
    WHISTS_PAIRWISE = "whists-pairwise"
    """Every player writes the trick price in whists on each player who took more tricks,
    per trick of the difference."""


DEFAULT_RACE_PRIZE = 100
"""TV-39: the prize of a race in whists."""

LEVELS = (6, 7, 8, 9, 10)
"""The contract levels, the keys of the price and norm tables."""

RASPASY_PRICE_CEILING = 1000
"""[impl-note] An "unlimited" progression stops at this trick price (the schema's largest
price), so a long series of raspasy cannot write numbers beyond 32-bit sheet fields."""
_MAX_DOUBLINGS = 10
"""2**10 already exceeds the ceiling: larger powers are never computed."""

_TABLES = (
    "contract_values",
    "defence_norms",
    "whister_shares",
    "second_whister_shares",
    "half_whist_tricks",
    "whist_prices",
    "consolation_prices",
    "undertrick_prices",
)
"""The fields that are tables by level (read-only mappings, written as JSON objects)."""


SUPPORTED_PLAYERS = (2, 3, 4, 5)
"""The table sizes the rules core plays (§3.6)."""


@dataclass(frozen=True)
class RuleSet:
    """Everything a table agrees on before play. Immutable and hashable; compare with ``==``.

    Tables are read-only mappings (``types.MappingProxyType`` over a private copy), sequences
    tuples and sets frozensets, whatever was passed in: a rule set cannot change once made."""

    name: str = "default"
    players: int = 3
    pool_target: int = 20

    # Prices (§1.7, §1.8, §1.9).
    contract_values: Mapping[int, int] = field(
        default_factory=lambda: {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
    )
    defence_norms: Mapping[int, int] = field(
        default_factory=lambda: {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
    )
    misere_value: int = 10
    misere_trick_penalty: int = 10
    """A-08: gora per trick the misère declarer takes (Leningrad: 20)."""
    raspasy_trick_prices: tuple[int, ...] = (1,)
    """Gora per trick on the 1st, 2nd, … consecutive raspasy; the last price repeats."""
    raspasy_zero_bonus: int = 1
    """Points to pool for a true zero on raspasy."""
    raspasy_exit_levels: tuple[int, ...] = (6,)
    """Lowest level allowed in the auction after 0, 1, … consecutive raspasy (last repeats)."""
    raspasy_amnesty: bool = False
    """A-19: subtract the common minimum of tricks when recording raspasy."""
    # raspasy (issue 11, RULES.md §3.3)
    raspasy_progression: Progression = Progression.TABLE
    """How the trick price grows along a series; ARITHMETIC and GEOMETRIC start from the
    single entry of ``raspasy_trick_prices``."""
    raspasy_progression_step: int = 1
    """The increment (arithmetic) or factor (geometric) per raspasy of a series."""
    raspasy_progression_limit: int = 0
    """The price stops growing after this many raises (0: never; S000 "usually not after the
    triple" = 2; S004 "after the first/second raise" = 1/2)."""
    raspasy_zero_bonus_priced: bool = False
    """A true zero earns the current trick price to pool instead of ``raspasy_zero_bonus``
    (S000: "на одинарных – 1, двойных – 2 и т. д.")."""
    raspasy_failure_ends_series: bool = True
    """A failed contract ends the series (default). False: S000 "exit by failure not
    allowed" — only a made contract ends it."""
    raspasy_misere_ends_series: bool = True
    """A misère ends the series like a trick game (default). False: S000 "misère does not
    break raspasy"."""
    raspasy_zero_ends_series: bool = False
    """S000 "exit by a zero": a raspasy on which somebody took no trick ends the series."""
    raspasy_round_limit: int = 0
    """The series ends after this many raspasy in a row (0: no limit; S000)."""
    raspasy_compulsory_rounds: int = 0
    """Raspasy after the first of a series played without an auction (S000 "Любимовка": 2)."""
    raspasy_dealer: RaspasyDealer = RaspasyDealer.SLIDING
    raspasy_dealer_limit: int = 3
    """Most deals in a row by one dealer under STAYS and STAYS_UNTIL_MISERE_MADE."""
    raspasy_talon: RaspasyTalon = RaspasyTalon.OPEN
    raspasy_scoring: RaspasyScoring = RaspasyScoring.GORA

    help_whists_per_point: int = 10
    settlement_whists_per_gora: int = 10

    # Auction (§1.3).
    bidding: Bidding = Bidding.SEQUENTIAL
    here_between_two_only: bool = False
    """A-05: "here" only when exactly two players are still bidding."""
    misere_beaten_stops_auction: bool = False
    """A-18: a nine over misère ends the auction at once."""

    # Auction and contract variants (issue 11, RULES.md §3.1)
    here_passes_to_later: bool = False
    """A-06, S000 main text: a hand that raises where it could have said "here" gives the
    "here" priority over that opponent to him (default: only the earlier hand, ever)."""
    misere_beaten_by_ten: bool = False
    """S004: misère ranks above the nines and only a ten beats it (default: any nine)."""
    concede_undertricks: int = 0
    """S000 conv. "without three without whists": the talon taker on a six may, instead of
    declaring, refuse to play and be written this many undertricks with no whists (3; "without
    four": 4). 0: not allowed (the default)."""
    concede_any_level: bool = False
    """S000 conv.: "without three" on every trick game, not only on a six."""
    underbid_penalty: Underbid = Underbid.NONE
    """TV-25, S000 conv.: whisters may prove an underbid after the play (``underbid.py``)."""
    preferans: PreferansHand = PreferansHand.NONE
    """TV-40: the talon taker may declare "preferans" with such a hand: the game ends, he
    writes off his gora, every pool is closed, and he writes ``preferans_whists`` on each."""
    preferans_whists: int = 100
    """S004: "writes 100 whists on each" (with ``preferans``)."""
    preferans_effect: PreferansEffect = PreferansEffect.HUNDRED_ON_EACH
    preferans_takes_whists: bool = False
    """S000 "some companies": the preferans declarer also writes on himself (turns into his
    own whists on them) every whist the others had written on him."""
    misere_shows_twelve: bool = False
    """S003 ("dictates his cards by suit") / S004 ("shows all 12 cards, closes them, then
    discards"): after taking the talon on misère the declarer's twelve cards are shown to all;
    the discard stays secret. Default: only the talon is shown."""

    # Classic auction (issue 12, RULES.md §3.5 "Classic", §3.1 "Games without talon"). With
    # any of ``bombs``, ``dark_bids``, ``dark_misere`` on, every seat starts a deal without
    # having looked at his cards (``DealState.unseen``); "look" is then its own decision.
    bombs: bool = False
    """S000 "Бомба": a seat that has not looked may pass dark while nobody has declared a game:
    the first such pass declares a bomb, later ones join it; bombers leave the auction. A bomb
    is beaten by a seven (light or without talon, or misère) or by any dark bid; if no game
    is declared the deal is a raspasy on the bomb (``DealState.bomb``, ``bombers``)."""
    bomb_level_limit: int = 0
    """The highest bomb level when the table limits the bombs (S000: "если игроки не
    ограничивали бомбу, то четверная – по 16 …"; e.g. 3: bombs up to the triple, then triple
    again); 0: no limit."""
    bomb_beaten_by_rising_level: bool = False
    """S000 Classic option: a single bomb is beaten only by a seven, a double only by an
    eight, … (default: a seven beats every bomb)."""
    dark_bids: bool = False
    """S000 "Игры на взятие втемную": a seat that has not looked may bid dark; a dark bid
    beats every ordinary bid of its level and is beaten by an ordinary bid of the next level
    or a higher dark bid; the game won on it is dark (its talon unseen by the others). Before
    taking the talon, the dark declarer may look and switch to an ordinary misère; a dark game
    declared at the level won is whisted by both defenders (closed), one level higher
    normally."""
    dark_bids_on_ladder: bool = False
    """S000 Classic option "раз втемную" beaten by an ordinary "два": dark bids rank with the
    ordinary bids of the same rung (default: above every ordinary bid of their level)."""
    dark_misere: bool = False
    """S000 "Мизер втемную": misère called without looking (first call), taken unseen and
    played closed; beaten only by a dark nine or an ordinary ten."""
    no_talon_levels: frozenset[int] = frozenset()
    """Levels at which a game without talon may be bid (S000 Classic: every level, 6 to 10;
    S000 general ladder: 9 only). It beats the ordinary bids of its level and is beaten by a
    bid without talon above it or by an ordinary bid of a higher level. Empty: none."""
    no_talon_misere: bool = False
    """Misère without talon (first call): above the ordinary nines, beaten by a nine without
    talon or an ordinary ten (S000 Classic; S004 "big misère")."""
    no_talon_shown: bool = True
    """The talon of a game without talon is turned up for all, then put aside (S000); False:
    "some companies" put it aside unseen."""

    # Whisting (§1.6, §1.7).
    whist_kind: str = "responsible"
    """Key into ``scoring.DEFENCE_SCORERS``: how defence whists and penalties are written."""
    whister_shares: Mapping[int, int] = field(default_factory=lambda: {6: 2, 7: 1})
    """Tricks each of two whisters answers for, by level; levels absent here make the
    second whister answer for the shortfall (§1.6: 8–10)."""
    second_whister_shares: Mapping[int, int] = field(default_factory=dict)
    """Tricks the second of two whisters answers for where it differs from ``whister_shares``
    (levels of ``whister_shares`` only). Classic complicated whisting (S000): on a 7 (norm 3)
    the first answers for 1 and the second for 2 — the odd trick is the second whister's, as
    the one trick of an 8 or 9 is in S000's "second whist responsible"."""
    penalty_capped: bool = False
    """A-01: cap a whister's penalty at the joint shortfall."""
    half_whist_levels: frozenset[int] = frozenset({6, 7})
    half_whist_tricks: Mapping[int, int] = field(default_factory=dict)
    """Tricks a half-whist ("уход") writes whists for, by level; a level absent: half the
    defence norm, rounded down (S001 §07: 6 → 2, 7 → 1). Classic complicated whisting (S000):
    6 and 7 "за две", 8 "за одну"."""
    whist_pass_half_whist: bool = False
    """A-03: after whist–pass on a 6 or 7 the first whister may fall back to half-whist."""
    return_whist_passer_keeps_consolation: bool = False
    """A-02: on a return whist the half-whister keeps his own consolation."""
    consolation: bool = True
    ten_whisted: bool = True
    """A-17: a ten is whisted (norm 1); otherwise it is played out unwhisted."""
    misere_defence_choice: bool = False
    """A-24: the misère defence chooses open or closed (default: always open)."""
    misere_whisted: bool = False
    """Classic complicated whisting (S000 "вистовать на ... мизере"): after a misère is
    declared each defender says whist or pass (the play is the same). A whister writes the
    misère's value to gora if it is made (halved under half-responsible whist) and, if the
    declarer takes tricks, the misère's value in whists per trick on him; passers write
    nothing, as on an unwhisted misère."""
    strain_price_steps: tuple[int, ...] = ()
    """The old hierarchy of prices (S000 Classic options: "пики самые дешевые, а без козыря –
    самые дорогие"): five amounts for ♠ ♣ ♦ ♥ NT added to every price of a trick contract of
    that strain (pool value, whists per trick, consolation, the declarer's gora per undertrick;
    a whister's shortfall follows the whist price). Empty: prices do not depend on the strain
    (the "modern unified table", the default). The seed gives no numbers."""

    # Whisting systems (issue 11, RULES.md §3.2, §5.1 C-1 … C-4)
    whist_prices: Mapping[int, int] = field(default_factory=dict)
    """Whists per defence trick by level, the base of every defence price (C-1, C-2);
    empty: the pool values (Sochi, Rostov). Leningrad S004: 4/8/12/16/20 (TV-37)."""
    consolation_prices: Mapping[int, int] = field(default_factory=dict)
    """Whists per undertrick each defender writes as consolation; empty: the whists-per-trick
    price (C-2). Rostov: 10 at every level (S000), 15 as an option (A-25)."""
    undertrick_prices: Mapping[int, int] = field(default_factory=dict)
    """The declarer's gora per undertrick; empty: the pool values. Leningrad S004: 4/8/…/20."""
    whist_liability: WhistLiability = WhistLiability.FULL
    """Full (responsible) or half (half-responsible) price per trick a whister is short (C-1)."""
    shortfall_payer: ShortfallPayer = ShortfallPayer.SECOND
    """On levels without ``whister_shares`` (8–10): the second whister, or both, pay."""
    whist_obligations: Obligations = Obligations.JOINT
    """Joint norm, or greedy whist with individual obligations (TV-23, TV-32); each whister's
    quota is ``whister_shares`` for the level, 1 where it has none."""
    failing_whister_writes_whists: bool = True
    """False: a whister short of his obligation writes no whists for his tricks (S000 conv.)."""
    whist_sharing: WhistSharing = WhistSharing.GREEDY
    """Greedy or gentleman sharing between a lone whister and the passer."""
    greedy_passer_consolation: bool = True
    """Greedy: the passer writes his consolation (S000, Sochi); False: the whister writes it
    for him, the passer nothing (S004's reading, C-4)."""
    gentleman_split_always: bool = False
    """Gentleman: split also when the declarer made his game (S003), not only on failure (A-10)."""
    gentleman_split_penalties: bool = False
    """Gentleman: the lone whister's penalty is split in half with the passer (S004, C-3);
    otherwise the gora is the whister's alone (S000)."""
    stalingrad: bool = False
    """On 6♠ both defenders must whist (S000, S004)."""
    pass_pass_whist_levels: frozenset[int] = frozenset()
    """Levels on which, after two passes, the first defender may reconsider and whist
    (S000 conv., S004: 8 and 9); never a half-whist level."""
    own_whist_levels: frozenset[int] = frozenset()
    """S004 "свой вист" (only on 6 and 7): after both defenders passed, the first, then the
    second, may offer to write for his own tricks without play; the declarer allows (as a
    half-whist) or refuses (the game is given)."""
    ten_checked: bool = False
    """A-17 (S000 main text, S004 option): a ten is not whisted but "checked": a defender who
    says "whist" checks it, all hands are laid open and the defenders play at no risk (both
    count as whisters without obligations); if neither checks, the ten counts as made.
    Needs ``ten_whisted`` false."""
    open_after_first_lead: bool = False
    """Open-defence timing (S000, S004): when the declarer has the first lead, an open
    defence lies down after that lead instead of before it (misère always does, §1.8)."""

    # Pool (§1.10).
    help_tie: HelpTie = HelpTie.CLOCKWISE

    # Recording, settlement and ending (issue 11, RULES.md §3.4)
    help_failed_whister: bool = True
    """A-16: a whister penalised this deal may be helped (S001); S000 general: he may not."""
    raspasy_zero_helps: bool = True
    """S000 conv.: False — a raspasy zero does not help; points beyond his own pool go off his
    own gora and any excess is lost."""
    leftover: Leftover = Leftover.EXCESS_TO_OPPONENTS
    """Points left when no pool can be helped (§1.10; S000 conv.: own gora below zero)."""
    settlement_method: SettlementMethod = SettlementMethod.AVERAGE
    """S000 method 2 (average gora, S001) or method 1 (amnesty and pairwise cancellation)."""
    settlement_integer: bool = False
    """S000: make the settlement whole by ±1 point on one gora, the others compensating
    with ⌊per-gora / n⌋ whists each (TV-21, TV-22). Default: exact fractions (S001)."""
    ending: Ending = Ending.POOLS
    ending_deals: int = 0
    """The number of deals of a game ending by deals (only with ``ending="deals"``)."""
    ending_by_time: bool = False
    """The game is played "until time": the creator may call time (a recorded event); the
    current deal is finished and the game is settled by the early-stop rule (S000 Classic)."""
    races: int = 0
    """Races ("скачки", TV-39): 5 for "5 по 20"; 0 = no races. Each race ends when a pool
    reaches the target; pools restart from zero; the game ends after the last race."""
    unwhisted_write_off: bool = False
    """S000 conv.: when both defenders pass, the declarer may have the contract's points
    written off his gora instead of into the pool (a decision event, ``WriteOff``)."""
    race_prize_whists: int = DEFAULT_RACE_PRIZE
    """TV-39: whists the race winner, and the player with the smallest gora, write on each
    other player (computed separately, C-6)."""

    # Classic scoring (issue 12, RULES.md §3.5 "Classic", TV-26; ``domain.rules.bombs``). Inert
    # unless the auction plays bombs or dark games (``DealState.bomb``, ``DealState.dark``).
    bomb_trick_price: int = 2
    """Gora per trick on a single bomb (a raspasy declared dark); each further bomb level doubles
    it: 2/4/8/16/32 … (S000 "КЛАССИКА", TV-26). A player who takes no trick on a bomb writes the
    bomb's trick price to pool (the 4-player dealer included; only 3 players here)."""
    dark_multiplier: int = 2
    """A dark game's value, undertricks, whists and whister penalties are multiplied by this (S000:
    "ценится вдвойне … Вдвойне также пишутся и ремизы, и висты", TV-26)."""
    dark_misere_value: int = 20
    """Pool points for a made dark misère (S000: "Сыгранный мизер ценится в 20 очков", TV-26)."""
    dark_misere_trick_penalty: int = 20
    """Gora per trick the dark misère declarer takes (S000: "Каждая взятка также 20 очков");
    ten tricks of it (200) is the robber's ("Разбойник") penalty for an unplayed dark misère."""
    # The start and the end of a Classic game (issue 12, RULES.md §3.4, §3.5 "Classic")
    initial_rounds: InitialRounds = InitialRounds.NONE
    """What is played before the pool proper: nothing (the default), compulsory raspasy
    rounds, bomb rounds (S000's two variants), or the simplified start with agreed gora."""
    initial_levels: int = 0
    """Rounds of the initial raspasy or bombs: 3 for single, double and triple (0 without)."""
    initial_gora: int = 0
    """The simplified start: the points in gora every player starts with (0 without)."""
    order_game: bool = False
    """After the initial rounds the player with the largest gora orders the game (a decision
    event, ``GameOrdered``): the pool length, which replaces ``pool_target`` for the rest of
    the game, and, in a game played until time, the end time (S000 "заказывает игру")."""
    play_until_time: bool = False
    """With ``ending_by_time``: closing every pool does not end the game; play goes on until
    time is called (S000: "После закрытия пули игра должна вестись оставшееся … время")."""
    classic_ending: bool = False
    """S000 Classic variant (§3.4 "Classic ending"): win points go all to the pool only when
    one's gora is empty, otherwise half off gora and half to the pool; points beyond a closed
    pool help the largest pool (half as whists), nobody to help → off gora; with no gora when
    every pool is closed, off the smallest gora of another player, writing 10× whists."""
    robber_gora: int = 0
    """S000 Classic "Разбойник" (TV-26): every player must play a dark misère once before the
    game ends; who has not writes this much to gora at the end (S000: "за десять взятых на
    мизере – 200 в гору"). 0: no robber (the default)."""
    # The simplified Classic variants (S000 "Варианты правил для классики": «Хулиганка» and
    # the simplified Classic without sliding deal; ``domain.rules.birds``).
    birds: Birds = Birds.NONE
    """Who puts a "bird" on a raspasy: nobody (the default), the third passer in a row
    («Хулиганка»), or every player of every raspasy (simplified Classic). A bird is a single
    bomb sign (``GameState.bomb_signs``): "Игра на птичке аналогична игре на одинарной бомбе".
    The variants are played without bombs ("упрощенный вид классики, который играется без
    бомб")."""
    gora_ending: GoraEnding = GoraEnding.NONE
    """The game also ends when, every pool being closed, the gora is written off: every
    player's (``all``) or some player's (``first``) (S000 simplified Classic: "Игра кончается
    списанием горы или по времени"). Needs ``play_until_time``."""
    robber: bool = False
    """S000 Classic "Разбойник" with the robber's wider rights: the orderer (``order_game``)
    imposes obligatory games in his order (``GameOrdered.obligations``: per contract kind —
    dark misère, misère, ten … six — how many times every player must take the talon and
    declare it before every pool is closed); each one not declared by then is written to gora
    as going without five (five tricks on misère; a dark misère ten tricks), without whists
    (``domain.rules.robber``). False: an order imposes nothing (the default)."""
    # Four and five players (issue 13, RULES.md §3.6, §1.13): the dealer "sits on the talon".
    talon_tricks_penalised: bool = True
    """Raspasy on an open talon with four or five players: the tricks the talon cards take
    are the dealer's and written to his gora like anybody's (S000 "на общих основаниях");
    False: they cost him nothing (S004's option)."""
    talon_sitter_zero_bonus: bool = True
    """Raspasy on an open talon: the dealer whose talon cards took nothing writes the zero
    bonus like anybody (S000 l.557: "пишет и в гору, и в пулю на общих основаниях"); False:
    nothing (S003: "может списать очки с горы или ничего не писать"). On a closed talon he
    always does (S000 l.463: "пишет одно очко в пулю как за ноль взяток")."""
    sitter_consolation: bool = True
    """Four or five players: the players without a hand write consolation on a failed
    declarer like a passer (S000: "пасовавший и сидящий на прикупе пишут висты … за
    безвзятие"; TV-23; with five the sitter-out too, having the dealer's rights)."""
    talon_whists: TalonWhists = TalonWhists.NONE
    """What the dealer writes on the declarer for the talon he sold (TV-20, TV-29)."""
    talon_whist_values: tuple[int, ...] = ()
    """Fixed whists for a talon worth one, two and three tricks instead of the game's price
    (S000 conv.: 5, 10, 15, or 7, 14, 21, or 10, 20, 30); empty: by the declared game."""
    talon_misere_seven_whists: int = 0
    """Whists the dealer writes on a misère declarer for each seven in the talon (S000:
    "за каждую семерку в прикупе на мизере пишут десять вистов"); 0: nothing on misère."""
    sitter_return_whist: bool = False
    """After both defenders passed the dealer (then, with five, the sitter-out) may look at
    one passer's cards and return the whist alone: he directs both defence hands open, answers
    alone for the norm and writes every whist, the passers' consolation and his own; the
    passers write nothing (S000 conv., S003 "Возвращение вистов"; TV-24, TV-30)."""
    talon_return: TalonReturn = TalonReturn.NONE
    """Whether the auction's winner may leave the talon shown to him (§5.1 C-8)."""
    talon_return_refuser_gora: bool = False
    """The returned talon's penalty goes to the refuser's gora (RULES.md §5.1 C-8); False: to
    the dealer's, as both seeds write it (S000 l.235: "сдатчик пишет … в гору"; S003: "в гору
    также он может записать тогда, когда игрок возвращает ему прикуп")."""
    misere_partner: bool = False
    """The misère winner may invite the dealer, who looks at his cards and, accepting,
    shares the misère's win or loss equally (S000; RULES.md §3.1)."""
    help_sitter: bool = False
    """The dealer on the talon may be helped like anybody (S000 l.225: "в некоторых компаниях
    помогают сидящему на прикупе … на общих основаниях"); False: S000's rule (l.221), "кроме
    сидящего на прикупе" (A-16)."""
    dealer_bomb_sign: bool = False
    """Classic with four or five players: on a bomb (the initial bomb rounds included) the
    dealer on the talon gets its sign too (S000 l.641: "сдатчик при игре вчетвером в случае
    распасовки также получает бомбу"); the default, none (l.593)."""
    dealer_joins_bomb: bool = False
    """Classic "extended dealer rights" (S000 l.655): once the hands have declared a bomb the
    dealer, "on the last hand", may join it: he gets its sign and each of his talon tricks
    costs twice the bomb's price; passing, his tricks cost the bomb's price."""
    talon_last_pair: bool = False
    """Four or five players: the talon is the last two cards of the deck (S004); the default,
    neither the first nor the last pair (S000, A-15)."""
    # Two players (issue 13, RULES.md §3.6 row "2", §3.4; S000 "Игра при двух игроках",
    # "гусарик"): the third hand is a dummy that always passes (``domain.rules.duo``). Each
    # needs players = 2 unless at its default (``duo_options.check_duo``).
    duo_dummy_hand: int = 1
    """The hand the dummy always sits at: 1 (H1, S000 "обычно") or 2 (H2); the dealer is H3."""
    duo_retract_pass: bool = False
    """After both players passed, the first passer may take his pass back and declare a game
    without bidding (S000 "Первый пасующий после паса второго игрока имеет право возвратить
    свой пас и назначить игру без торга")."""
    duo_whist_own_cards: bool = False
    """The whister may not "go for his own" (no half-whist): he whists on two hands as usual,
    whists on his own cards (answering for 2 tricks of his own on a six, 1 on a seven or
    higher; the dummy's tricks are nobody's), or passes (S000's variant)."""
    duo_all_pass: DuoAllPass = DuoAllPass.RASPASY
    """What two passes lead to: raspasy (the dummy takes no part, the talon stays closed),
    a redeal without play, or raspasy "с вареником" (S000)."""
    duo_indivisible_gora: bool = False
    """Settlement by the "indivisible gora": the smaller gora is taken from the larger and the
    difference × 10 is the winner's whists (S000); False: the usual average (halved)."""

    def __post_init__(self) -> None:
        for name in _TABLES:
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        object.__setattr__(self, "raspasy_trick_prices", tuple(self.raspasy_trick_prices))
        object.__setattr__(self, "strain_price_steps", tuple(self.strain_price_steps))
        object.__setattr__(self, "raspasy_exit_levels", tuple(self.raspasy_exit_levels))
        object.__setattr__(self, "half_whist_levels", frozenset(self.half_whist_levels))
        object.__setattr__(self, "pass_pass_whist_levels", frozenset(self.pass_pass_whist_levels))
        object.__setattr__(self, "own_whist_levels", frozenset(self.own_whist_levels))
        object.__setattr__(self, "no_talon_levels", frozenset(self.no_talon_levels))
        object.__setattr__(self, "talon_whist_values", tuple(self.talon_whist_values))
        object.__setattr__(self, "talon_whists", TalonWhists(self.talon_whists))
        object.__setattr__(self, "talon_return", TalonReturn(self.talon_return))
        self._check()

    def _check(self) -> None:
        """The semantic checks (types and ranges are the schema's: ``ruleset_schema``)."""
        if self.players not in SUPPORTED_PLAYERS:
            raise InvalidAction("a table has 2, 3, 4 or 5 players", field="rules.players")
        check_duo(self)
        if self.pool_target <= 0:
            raise InvalidAction("the pool target must be positive", field="rules.pool_target")
        self._check_sitters()
        for name in ("contract_values", "defence_norms"):
            if tuple(sorted(getattr(self, name))) != LEVELS:
                raise InvalidAction(
                    "price and norm tables need levels 6 to 10", field=f"rules.{name}"
                )
        if not set(self.whister_shares) <= set(LEVELS):
            raise InvalidAction(
                "whister shares are given by levels 6 to 10", field="rules.whister_shares"
            )
        if not self.half_whist_levels <= set(LEVELS):
            raise InvalidAction(
                "half-whist levels must be 6 to 10", field="rules.half_whist_levels"
            )
        if not self.raspasy_trick_prices or not self.raspasy_exit_levels:
            raise InvalidAction(
                "raspasy prices and exit levels need at least one entry",
                field="rules.raspasy_trick_prices",
            )
        if any(not 6 <= level <= 10 for level in self.raspasy_exit_levels):
            raise InvalidAction(
                "raspasy exit levels must be 6 to 10", field="rules.raspasy_exit_levels"
            )
        from domain.rules.raspasy import check_options

        self._check_recording()
        self._check_classic_auction()
        check_whisting(self)
        for name in ("bomb_trick_price", "dark_multiplier"):
            if getattr(self, name) < 1:
                raise InvalidAction(f"{name} must be at least 1", field=f"rules.{name}")
        if self.concede_undertricks not in (0, 3, 4):
            raise InvalidAction(
                'a concession is "without three" (3) or "without four" (4), or 0 for none',
                field="rules.concede_undertricks",
            )
        if self.concede_any_level and not self.concede_undertricks:
            raise InvalidAction(
                "concede_any_level needs concede_undertricks (3 or 4): "
                '"without three" is not allowed at all',
                field="rules.concede_any_level",
            )
        if self.preferans is PreferansHand.NONE:
            for name, default in (
                ("preferans_whists", 100),
                ("preferans_effect", PreferansEffect.HUNDRED_ON_EACH),
                ("preferans_takes_whists", False),
            ):
                if getattr(self, name) != default:
                    raise InvalidAction(
                        f"{name} is set but preferans is 'none': no preferans is declared",
                        field=f"rules.{name}",
                    )
        if self.preferans_effect is PreferansEffect.HELP_WHISTS and self.preferans_whists != 100:
            raise InvalidAction(
                "preferans_whists is S004's hundred on each; with preferans_effect "
                "'help-whists' the whists are the help whists of the points given",
                field="rules.preferans_whists",
            )
        from domain.rules.scoring import DEFENCE_SCORERS

        check_options(self)

        if self.whist_kind not in DEFENCE_SCORERS:
            raise InvalidAction(
                f"unknown whist kind {self.whist_kind!r:.40}; known: {', '.join(DEFENCE_SCORERS)}",
                field="rules.whist_kind",
            )

    def _check_classic_auction(self) -> None:
        """The Classic auction options (issue 12): the options of a feature need it."""
        if not self.no_talon_levels <= set(LEVELS):
            raise InvalidAction(
                "levels without talon must be 6 to 10", field="rules.no_talon_levels"
            )
        if self.bomb_level_limit and not self.bombs:
            raise InvalidAction("bomb_level_limit needs bombs", field="rules.bomb_level_limit")
        if self.bomb_beaten_by_rising_level and not self.bombs:
            raise InvalidAction(
                "bomb_beaten_by_rising_level needs bombs", field="rules.bomb_beaten_by_rising_level"
            )
        if self.dark_bids_on_ladder and not self.dark_bids:
            raise InvalidAction(
                "dark_bids_on_ladder needs dark_bids", field="rules.dark_bids_on_ladder"
            )
        if self.birds is not Birds.NONE and self.bombs:
            raise InvalidAction(
                "birds are the simplified Classic's signs, played without bombs (S000: "
                '"упрощенный вид классики, который играется без бомб"): birds need bombs off',
                field="rules.birds",
            )
        if not self.no_talon_shown and not (self.no_talon_levels or self.no_talon_misere):
            raise InvalidAction(
                "no_talon_shown is about games without talon, and none is allowed",
                field="rules.no_talon_shown",
            )

    def bomb_level(self, bomb_streak: int) -> int:
        """The level of a bomb declared after ``bomb_streak`` bomb raspasy in a row."""
        level = bomb_streak + 1
        return min(level, self.bomb_level_limit) if self.bomb_level_limit else level

    @property
    def raspasy_talon_leads(self) -> bool:
        """Whether the talon cards set the first raspasy tricks (``raspasy_talon`` open); with
        two players the talon is never opened on raspasy (S000, §3.6)."""
        return self.raspasy_talon is RaspasyTalon.OPEN and self.players != 2

    @property
    def dark_auction(self) -> bool:
        """Whether seats start a deal without having looked (Classic: bombs or dark bids)."""
        return self.bombs or self.dark_bids or self.dark_misere

    def _check_recording(self) -> None:
        """Recording, settlement and ending (issue 11, RULES.md §3.4)."""
        if (self.ending is Ending.DEALS) != (self.ending_deals > 0):
            raise InvalidAction(
                'ending_deals (a positive number of deals) goes with ending "deals" and only '
                "with it",
                field="rules.ending_deals",
            )
        if self.races:
            if self.ending is not Ending.POOLS:
                raise InvalidAction(
                    "races end by their count; they cannot be combined with ending "
                    f"{self.ending.value!r}",
                    field="rules.races",
                )
            if self.preferans is not PreferansHand.NONE:
                raise InvalidAction(
                    '"preferans" closes every pool and ends the game (TV-40); a game of races '
                    "ends by their count (TV-39): choose one",
                    field="rules.preferans",
                )
        elif self.race_prize_whists != DEFAULT_RACE_PRIZE:
            raise InvalidAction(
                "race_prize_whists is set but races is 0", field="rules.race_prize_whists"
            )
        from domain.rules.start import check_start

        check_start(self)
        if not self.helps() and (
            not self.help_failed_whister or self.help_tie is not HelpTie.CLOCKWISE
        ):
            raise InvalidAction(
                "nobody is helped in a game of races or one ending by the sum of pools: "
                "help_failed_whister and help_tie have no meaning there",
                field="rules.help_failed_whister"
                if not self.help_failed_whister
                else "rules.help_tie",
            )

    def __hash__(self) -> int:
        # Computed once per (immutable) rule set: caches keyed by the rules hash it per call.
        known: int | None = self.__dict__.get("_hash")
        if known is None:
            known = hash(tuple(_hashable(getattr(self, f.name)) for f in dataclasses.fields(self)))
            object.__setattr__(self, "_hash", known)
        return known

    def __reduce__(self) -> tuple[Any, ...]:
        # Copies and pickles go through the JSON-ready form (read-only mappings do not pickle).
        return (RuleSet.from_dict, (self.to_dict(),))

    def value(self, level: int) -> int:
        """Pool value of a made contract of ``level`` tricks."""
        return self.contract_values[level]

    def norm(self, level: int) -> int:
        """Tricks the defence must take together against ``level``."""
        return self.defence_norms[level]

    def raspasy_price(self, streak: int) -> int:
        """The trick price (gora, or whists when scored on whists) of raspasy number
        ``streak`` (1-based) of a series, by ``raspasy_progression``; never above
        ``RASPASY_PRICE_CEILING``."""
        kind = self.raspasy_progression
        if kind is Progression.TABLE:
            return self.raspasy_trick_prices[min(streak, len(self.raspasy_trick_prices)) - 1]
        raises = max(0, streak - 1)
        if self.raspasy_progression_limit:
            raises = min(raises, self.raspasy_progression_limit)
        base, step = self.raspasy_trick_prices[0], self.raspasy_progression_step
        if kind is Progression.ARITHMETIC:
            price = base + step * raises
        else:
            price = base * step ** min(raises, _MAX_DOUBLINGS)
        return min(price, RASPASY_PRICE_CEILING)

    def raspasy_compulsory(self, raspasy_streak: int) -> bool:
        """True when the deal after ``raspasy_streak`` raspasy in a row is played as raspasy
        without an auction (S000 "Любимовка")."""
        return 0 < raspasy_streak <= self.raspasy_compulsory_rounds

    def min_level(self, raspasy_streak: int) -> int:
        """Lowest level allowed in the auction after ``raspasy_streak`` raspasy in a row."""
        return self.raspasy_exit_levels[min(raspasy_streak, len(self.raspasy_exit_levels) - 1)]

    def helps(self) -> bool:
        """Whether a closed pool helps others (not in races, not ending by the sum of pools)."""
        return self.ending is not Ending.POOL_SUM and not self.races

    def whist_price(self, level: int) -> int:
        """Whists per defence trick against ``level`` (C-1, C-2)."""
        table = self.whist_prices or self.contract_values
        return table[level]

    def consolation_price(self, level: int) -> int:
        """Whists per undertrick a defender writes as consolation (C-2, A-25)."""
        if self.consolation_prices:
            return self.consolation_prices[level]
        return self.whist_price(level)

    def undertrick_price(self, level: int) -> int:
        """The declarer's gora per undertrick."""
        table = self.undertrick_prices or self.contract_values
        return table[level]

    def shortfall_price(self, level: int, pool_closed: bool = False) -> int:
        """A whister's gora per trick short of his obligation: full or half (C-1); under
        ``half-until-closed`` half until some pool is closed (``pool_closed``), then full."""
        price = self.whist_price(level)
        return price // 2 if self.half_liability(pool_closed) else price

    def half_liability(self, pool_closed: bool = False) -> bool:
        """Whether a whister's shortfall costs half (half-responsible whist) now: always under
        ``half``, before any pool is closed under ``half-until-closed`` (S000 Classic)."""
        liability = self.whist_liability
        if liability is WhistLiability.HALF_UNTIL_CLOSED:
            return not pool_closed
        return liability is WhistLiability.HALF

    def half_whist_price(self, level: int) -> int:
        """Whists a half-whist ("уход") writes on the declarer (§1.6 item 4, S000 Classic)."""
        tricks = self.half_whist_tricks.get(level, self.norm(level) // 2)
        return tricks * self.whist_price(level)

    def priced_for(self, contract: Bid | None) -> RuleSet:
        """The rule set whose price tables are those of ``contract``'s strain under the old
        hierarchy (``strain_price_steps``); ``self`` when prices do not depend on the strain."""
        if not self.strain_price_steps or contract is None or contract.strain is None:
            return self
        return _priced(self, int(contract.strain))

    def second_whister_share(self, level: int) -> int | None:
        """Tricks the second of two whisters answers for (``None``: he answers for the
        shortfall, §1.6 for 8–10)."""
        return self.second_whister_shares.get(level, self.whister_shares.get(level))

    def whister_quota(self, level: int) -> int:
        """Tricks each whister must take on his own under individual obligations (TV-32)."""
        return self.whister_shares.get(level, 1)

    @property
    def costly_decisions(self) -> bool:
        """Whether a decision may cost far more than a card play: the underbid proof (a
        bounded search of up to ``underbid.NODE_LIMIT`` cards, up to about two seconds) runs
        when a reviewable deal's play ends. A server decides such games off its event loop."""
        return self.underbid_penalty is not Underbid.NONE

    def is_whisted(self, level: int) -> bool:
        """Whether the defenders are asked to whist (or, on a checked ten, to check)."""
        return level < 10 or self.ten_whisted or self.ten_checked

    def is_checked(self, level: int) -> bool:
        """A checked ten (A-17): no obligations, all hands open."""
        return level == 10 and self.ten_checked

    def _check_sitters(self) -> None:
        """The options of the dealer on the talon need a table of four or five (§3.6)."""
        if self.players <= 3:
            for name in _SITTER_OPTIONS:
                if getattr(self, name) != _SITTER_DEFAULTS[name]:
                    raise InvalidAction(
                        f"{name} is an option of the dealer on the talon: it needs four or "
                        "five players",
                        field=f"rules.{name}",
                    )
        if self.talon_whist_values and (
            self.talon_whists is TalonWhists.NONE or len(self.talon_whist_values) != 3
        ):
            raise InvalidAction(
                "fixed talon whists are three values (a talon of one, two and three tricks) "
                "and need talon_whists",
                field="rules.talon_whist_values",
            )
        if self.dealer_joins_bomb and (self.dealer_bomb_sign or not self.bombs):
            raise InvalidAction(
                "the dealer joins a bomb only where bombs are played and he does not get every "
                "bomb's sign anyway (dealer_bomb_sign)",
                field="rules.dealer_joins_bomb",
            )
        if self.dealer_bomb_sign and not (
            self.bombs or self.initial_rounds.value.startswith("bombs")
        ):
            raise InvalidAction(
                "the dealer's bomb sign needs bombs", field="rules.dealer_bomb_sign"
            )
        if self.talon_return_refuser_gora and self.talon_return is TalonReturn.NONE:
            raise InvalidAction(
                "the returned talon's penalty needs talon_return",
                field="rules.talon_return_refuser_gora",
            )

    def with_options(self, **changes: Any) -> RuleSet:
        """A copy with some options changed (validated)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form, recorded in a game's first event."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Enum):
                value = value.value
            elif isinstance(value, Mapping):
                value = {str(k): v for k, v in sorted(value.items())}
            elif isinstance(value, frozenset):
                value = sorted(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Inverse of ``to_dict``; unknown keys are an error, missing keys take defaults."""
        known = {f.name: f for f in dataclasses.fields(cls)}
        unknown = set(data) - set(known)
        if unknown:
            named = ", ".join(f"{name!s:.40}" for name in sorted(unknown, key=str)[:5])
            raise InvalidAction(f"unknown rule options: {named}", field="rules")
        kwargs: dict[str, Any] = {}
        for name, value in data.items():
            kwargs[name] = _decode_field(name, value)
        return cls(**kwargs)


@lru_cache(maxsize=256)
def _priced(rules: RuleSet, strain: int) -> RuleSet:
    """``rules`` with the strain's step added to every price table (``priced_for``)."""
    step = rules.strain_price_steps[strain]
    changes: dict[str, Any] = {"strain_price_steps": ()}
    for name in ("contract_values", "whist_prices", "consolation_prices", "undertrick_prices"):
        table = getattr(rules, name)
        if table:
            changes[name] = {level: price + step for level, price in table.items()}
    return dataclasses.replace(rules, **changes)


_SITTER_OPTIONS = (
    "talon_tricks_penalised",
    "talon_sitter_zero_bonus",
    "sitter_consolation",
    "talon_whists",
    "talon_whist_values",
    "talon_misere_seven_whists",
    "sitter_return_whist",
    "talon_return",
    "talon_return_refuser_gora",
    "misere_partner",
    "help_sitter",
    "talon_last_pair",
    "dealer_bomb_sign",
    "dealer_joins_bomb",
)
"""The options that only a table with a dealer on the talon gives a meaning (§3.6)."""
_SITTER_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(RuleSet) if f.name in _SITTER_OPTIONS
}


def _hashable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted(value.items()))
    return value


def _integer(value: Any) -> int:
    """A JSON integer (not a bool, not a float, not text)."""
    if type(value) is not int:
        raise TypeError(f"{value!r:.40} is not an integer")
    return value


def _level(key: Any) -> int:
    """A table's key: a level, written as text in JSON ("6") or as an integer."""
    level = _LEVEL_KEYS.get(key) if isinstance(key, str) else key
    if type(level) is not int or level not in LEVELS:
        raise ValueError(f"{key!r:.40} is not a level 6 to 10")
    return level


_LEVEL_KEYS = {str(level): level for level in LEVELS}


def _decode_field(name: str, value: Any) -> Any:
    """One recorded option in its Python form, with its JSON type checked (``InvalidAction``)."""
    kind = _KINDS[name]
    try:
        if kind is MappingProxyType:
            if not isinstance(value, Mapping):
                raise TypeError("not an object of levels")
            return {_level(k): _integer(v) for k, v in value.items()}
        if kind in (tuple, frozenset):
            if not isinstance(value, list | tuple | frozenset | set):
                raise TypeError("not a list")
            return kind(_integer(v) for v in value)
        if kind is int:
            return _integer(value)
        if kind in (bool, str):
            if type(value) is not kind:
                raise TypeError(f"not a {'boolean' if kind is bool else 'string'}")
            return value
        return kind(value)  # an enum
    except (TypeError, ValueError) as exc:
        raise InvalidAction(f"rule option {name}: {exc}", field=f"rules.{name}") from None


DEFAULT = RuleSet()
"""The default profile: seed S001 as distilled in RULES.md §1, with the decisions of §6."""

_KINDS: dict[str, type] = {
    f.name: type(getattr(DEFAULT, f.name)) for f in dataclasses.fields(DEFAULT)
}
"""Each option's Python type, as the default profile has it."""
