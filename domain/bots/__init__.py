"""Bot players: deterministic policies ``SeatView -> Action`` that play sensible Preferans.

``make_bot()`` returns a ``Bot``; one in every seat play a whole game with
``domain.rules.play_game(seed, [make_bot() for _ in range(rules.players)], rules)`` (three,
four or five seats: every deal has three hands, RULES.md §3.6). A bot sees only its
seat's view (never a hidden card), uses no randomness, clock or I/O, and always answers with
one of ``view.legal``. Hand evaluation lives in ``evaluate``, the auction and whisting in
``auction``, card play in ``tricks`` (trick contracts) and ``ducking`` (misère, raspasy).
"""

from domain.bots.auction import STYLES, Style
from domain.bots.bot import Bot, make_bot, play_card
from domain.bots.classic import order_choice
from domain.bots.evaluate import (
    all_strains,
    defence_tricks,
    misere_danger,
    strain_tricks,
    suit_tricks,
)

__all__ = [
    "STYLES",
    "Bot",
    "Style",
    "all_strains",
    "defence_tricks",
    "make_bot",
    "misere_danger",
    "order_choice",
    "play_card",
    "strain_tricks",
    "suit_tricks",
]
