"""The named systems of the seeds, for three players, as data (issue 11; RULES.md §3.5).

Each system is the default profile (``DEFAULT``, seed S001) with the options the seeds give
that system; every value cites its source here and in docs/SYSTEMS.md, which also lists the
decisions where the seeds disagree or are silent (next to RULES.md §5). A table that plays a
system with its own conventions names the system and overrides options (``CreateGame``'s
``options_json``, ``pref … --system NAME --option NAME=JSON``).

Nothing in the rules core tests a system's name: the name only finds the values below.
"""

from __future__ import annotations

from domain.rules.errors import InvalidAction
from domain.rules.recording import Birds, Ending, GoraEnding, InitialRounds
from domain.rules.ruleset import (
    DEFAULT,
    HelpTie,
    Progression,
    RaspasyDealer,
    RaspasyScoring,
    RaspasyTalon,
    RuleSet,
)
from domain.rules.whist_options import WhistLiability, WhistSharing

LENINGRAD_PRICES = {6: 4, 7: 8, 8: 12, 9: 16, 10: 20}
"""S004 "Ленинградка / Запись в пульку и в гору" (TV-37): whists per defence trick and the
declarer's gora per undertrick, twice the pool values 2/4/6/8/10 ("doubled records")."""

SOCHI = DEFAULT.with_options(
    name="sochi",
    # Auction: "if the earlier hand does not use 'here', the second player may" (S000 main
    # text, A-06), the source of the Sochi chapter.
    here_passes_to_later=True,
    # Raspasy: "обычно по одному очку", arithmetic 1-2-3, growth stops after the triple
    # (S000 СОЧИНКА and conventions); a zero writes one trick's price to pool (S000).
    raspasy_progression=Progression.ARITHMETIC,
    raspasy_progression_step=1,
    raspasy_progression_limit=2,
    raspasy_zero_bonus_priced=True,
    # Help: a failing whister is not helped (S000 general, A-16); tie → to the left of the
    # helper (S000 Sochi summary, §5.1 C-7) = the default clockwise rule.
    help_failed_whister=False,
)
"""Sochi (Сочинка): greedy responsible whist, consolation for both defenders at the game's
value, the passer keeps only consolation — exactly the default's whisting (RULES.md §3.5
impl-note) — with raspasy 1-2-3 and the S000 help eligibility."""

LENINGRAD = DEFAULT.with_options(
    name="leningrad",
    # Misère: the declarer shows his twelve cards, closes them and discards (S004).
    misere_shows_twelve=True,
    # Prices (S004, TV-37; A-09: S000's list 3/6/9/8/12 is not taken, see docs/SYSTEMS.md).
    whist_prices=LENINGRAD_PRICES,
    undertrick_prices=LENINGRAD_PRICES,
    misere_trick_penalty=20,  # A-08, TV-37
    # Half-responsible gentleman whist: shortfall gora = half the whist price (C-1), all
    # whists and the penalties split in half with the passer on the declarer's failure (S004,
    # C-3, TV-36); whist–pass–half-whist (S000 "обычно характерна для джентльменского виста").
    whist_liability=WhistLiability.HALF,
    whist_sharing=WhistSharing.GENTLEMAN,
    gentleman_split_penalties=True,
    whist_pass_half_whist=True,
    # Raspasy: 2 per trick, 2-4-6 (S004), a zero writes one trick's price to pool (S004),
    # hard exit mandatory: 6/7/7 (S004 "обязателен жесткий выход"; A-13).
    raspasy_trick_prices=(2,),
    raspasy_progression=Progression.ARITHMETIC,
    raspasy_progression_step=2,
    raspasy_progression_limit=2,
    raspasy_zero_bonus_priced=True,
    raspasy_exit_levels=(6, 6, 7),
    # Ending by the sum of pools with the doubled difference (S004, TV-38, §5.1 C-5), "pool
    # to 50" as in S004's example.
    ending=Ending.POOL_SUM,
    pool_target=50,
)
"""Leningrad (Ленинградка, "Питер") as S004 defines it: "the game against the declarer"."""

LENINGRAD_S000_PRICES = {6: 6, 7: 12, 8: 18, 9: 16, 10: 24}
"""S000's Leningrad list (6 = 3, 7 = 6, 8 = 9, 9 = 8 (sic, A-09), 10 = 12) doubled for whists
and undertricks, as S004's records double theirs (docs/SYSTEMS.md W-13)."""

LENINGRAD_S000 = LENINGRAD.with_options(
    name="leningrad-s000",
    # S000 "ленинградская роспись": 3/6/9/8/12, misère 15, raspasy 3/6/9 ("rarely 12").
    contract_values={6: 3, 7: 6, 8: 9, 9: 8, 10: 12},
    misere_value=15,
    whist_prices=LENINGRAD_S000_PRICES,
    undertrick_prices=LENINGRAD_S000_PRICES,
    raspasy_trick_prices=(3,),
    raspasy_progression_step=3,
    # Halved, 3/6/9/8/12 is odd: the gora stays the whister's, as S000 says of gentleman
    # whist ("в гору за подсад пишет только вистующий", C-3).
    gentleman_split_penalties=False,
)
"""Leningrad with S000's price list (A-09): the second of the two seed tables, as a variant."""

ROSTOV = DEFAULT.with_options(
    name="rostov",
    here_passes_to_later=True,  # S000 main text, as Sochi
    # Half-responsible gentleman whist (S000, S004); gora only for the whister (S000, C-3);
    # consolation 10 whists per undertrick for both defenders (S000; 15 is A-25's option).
    whist_liability=WhistLiability.HALF,
    whist_sharing=WhistSharing.GENTLEMAN,
    whist_pass_half_whist=True,
    consolation_prices=dict.fromkeys((6, 7, 8, 9, 10), 10),
    # Raspasy "on whists": the fewest tricks wins and writes 5 whists per trick on the
    # partners (S000 РОСТОВКА, S004); the talon is never opened (S000 conventions, S004).
    raspasy_trick_prices=(5,),
    raspasy_talon=RaspasyTalon.CLOSED,
    raspasy_scoring=RaspasyScoring.WHISTS_FEWEST,
    # Help (the Rostov chapter is silent, so S000's general recording chapter): a failing
    # whister is not helped, a tie goes to the smaller gora.
    help_failed_whister=False,
    help_tie=HelpTie.SMALLER_GORA,
)
"""Rostov / Moscow pool (Ростовка, московская пулька): "for raspasy masters"."""

CLASSIC = SOCHI.with_options(
    name="classic",
    # "Классика весьма похожа на сочинку … порядок записи и подсчет результата аналогичны
    # сочинке" (S000 КЛАССИКА): Sochi's whisting, prices and recording, plus what follows.
    # Bombs (raspasy declared dark), dark bids and dark misère, and games and misère without
    # talon at every level (S000 "Бомба", "Игры на взятие втемную", "Мизер втемную", "игры
    # без прикупа … на каждом уровне"; TV-26).
    bombs=True,
    dark_bids=True,
    dark_misere=True,
    no_talon_levels=frozenset({6, 7, 8, 9, 10}),
    no_talon_misere=True,
    # The start: three rounds of bombs, the same dealer dealing the single, the double and the
    # triple (S000 "Первый вариант"; "играть три круга бомб … каждый получил по 9 бомб"), then
    # the largest gora orders the game: its pool length and end time ("до 50 очков в пулю до
    # 23 часов"), and play goes on after the pools close until that time ("Игра ведется не до
    # закрытия пули, а по времени").
    initial_rounds=InitialRounds.BOMBS_BY_DEALER,
    initial_levels=3,
    order_game=True,
    ending_by_time=True,
    play_until_time=True,
)
"""Classic (Классика): Sochi with bombs, dark games and games without talon, started by bomb
rounds and played until the ordered time (S000 КЛАССИКА, RULES.md §3.5; the variants of
"Варианты правил для классики" are options, docs/SYSTEMS.md)."""

HOOLIGAN = CLASSIC.with_options(
    name="hooligan",
    # «Хулиганка» (S000 "Варианты правил для классики"): "упрощенный вид классики, который
    # играется без бомб. Распасы всегда одинарные (например, по одному очку за взятку) при
    # скользящей сдаче" — no bombs, raspasy 1 a trick without progression, the sliding deal
    # (Classic's, the default).
    bombs=False,
    raspasy_progression=Progression.TABLE,
    raspasy_trick_prices=(1,),
    raspasy_progression_step=1,
    raspasy_progression_limit=0,
    # "Игрок, сказавший “пас” после того, как двое игроков до него объявили “пас”, ставит
    # «птичку»; остальные ничего не ставят. Игра на птичке аналогична игре на одинарной бомбе"
    # (decision A-18: the third pass in a row, i.e. the last hand of an all-pass auction).
    birds=Birds.THIRD_PASSER,
    # "В остальном – обычные правила": Classic's dark games, games without talon, the order
    # and play until time. Without bombs the start is Classic's other one, raspasy rounds
    # ("Если же принято решение начинать игру с распасов"): one round, raspasy being always
    # single (decision S-25).
    initial_rounds=InitialRounds.RASPASY,
    initial_levels=1,
)
"""«Хулиганка»: Classic without bombs, single raspasy, and a bird (a single-bomb sign) for the
third passer (S000 "Варианты правил для классики")."""

CLASSIC_SIMPLE = HOOLIGAN.with_options(
    name="classic-simple",
    # "вариант упрощенной классики, в котором сдача не скользящая" (S000): the non-sliding deal
    # of S000's conventions ("после розыгрыша распасов сдатчик не меняется (нескользящая
    # сдача) … не может сдавать более 3-х раз подряд").
    raspasy_dealer=RaspasyDealer.STAYS,
    # "Все игроки при распасах ставят птичку, в том числе и сдатчик" (the initial raspasy
    # rounds too, as Classic's initial bombs give their signs: decision A-19).
    birds=Birds.EVERY_RASPASY_PLAYER,
    # "Перед игрой два круга распасов": two rounds, both single ("Распасы всегда одинарные").
    initial_levels=2,
    # "Игры втемную нет": no dark games nor dark misère (games without talon stay).
    dark_bids=False,
    dark_misere=False,
    # "До закрытия пули вист полуответственный, после закрытия – ответственный".
    whist_liability=WhistLiability.HALF_UNTIL_CLOSED,
    # "Игра кончается списанием горы или по времени" (decision S-26): play goes on after the
    # pools close, the points are written off the gora (Sochi's recording, as Classic's), and
    # the game ends when a player has written off his gora, or at the ordered time.
    gora_ending=GoraEnding.FIRST,
)
"""The simplified Classic without sliding deal: every player birds on raspasy, two initial
raspasy rounds, no dark games, half-responsible whist until a pool closes, the end by writing
off gora or by time (S000 "Варианты правил для классики")."""

CLASSIC_ROBBER = CLASSIC.with_options(
    name="classic-robber",
    # "В варианте с «разбойником», права назначающего игру («разбойника») после трех кругов
    # распасов в начале игры значительно расширены" (S000 КЛАССИКА, "Варианты правил"): three
    # rounds of raspasy (single, double, triple: 1/2/3 a trick by Classic's progression), then
    # the largest gora orders the game and imposes obligatory games ("Каждый должен взять
    # прикуп на объявленные …"; domain.rules.robber).
    initial_rounds=InitialRounds.RASPASY,
    initial_levels=3,
    robber=True,
)
"""Classic with the robber (Разбойник): three raspasy rounds, then the orderer imposes the
obligatory games every player must declare before every pool closes (S000 КЛАССИКА)."""

RULE_SETS: dict[str, RuleSet] = {
    "default": DEFAULT,
    "sochi": SOCHI,
    "leningrad": LENINGRAD,
    "leningrad-s000": LENINGRAD_S000,
    "rostov": ROSTOV,
    "classic": CLASSIC,
    "hooligan": HOOLIGAN,
    "classic-simple": CLASSIC_SIMPLE,
    "classic-robber": CLASSIC_ROBBER,
}
"""Named rule sets a game may be created with (docs/SYSTEMS.md compares them)."""


def rule_set(name: str) -> RuleSet:
    """Look a rule set up by name."""
    try:
        return RULE_SETS[name]
    except KeyError:
        raise InvalidAction(
            f"unknown rule set {name!r:.40}; known: {', '.join(sorted(RULE_SETS))}",
            field="rules.name",
        ) from None
