"""The JSON Schema of a rule set's options: every option, its JSON type and its range.

This is the contract for ``RuleSet.to_dict()`` and for the options a client sends
(``RuleSet.options_json`` in the API): a JSON object whose keys are options of ``RuleSet`` and
nothing else. The ranges are generous bounds that keep every game finite and every number small
(the pool target bounds a game's length); the semantic checks that relate options to each other
stay in ``RuleSet`` itself. Pure data: the service validates with the ``jsonschema`` library.
"""

from __future__ import annotations

from typing import Any

from domain.rules.duo_options import DuoAllPass
from domain.rules.recording import (
    Birds,
    Ending,
    GoraEnding,
    InitialRounds,
    Leftover,
    SettlementMethod,
)
from domain.rules.ruleset import (
    LEVELS,
    SUPPORTED_PLAYERS,
    Bidding,
    HelpTie,
    PreferansEffect,
    PreferansHand,
    Progression,
    RaspasyDealer,
    RaspasyScoring,
    RaspasyTalon,
    TalonReturn,
    TalonWhists,
    Underbid,
)
from domain.rules.whist_options import Obligations, ShortfallPayer, WhistLiability, WhistSharing

MAX_POOL_TARGET = 200
"""The largest pool target (a game of pool 200 lasts some hundreds of deals)."""
MAX_PRICE = 1000
"""The largest price, value, penalty or rate of any option."""
MAX_DEALS = 1000
"""The most deals of a game ending by deals."""
MAX_RACES = 20
"""The most races of a game of races (the seeds name 5 and 7)."""
MAX_SEQUENCE = 10
"""The most entries of a list option (raspasy prices and exit levels)."""

MAX_DARK_MULTIPLIER = 8
"""The largest multiplier of a dark game (the seeds know only 2)."""

_LEVEL_NAMES = [str(level) for level in LEVELS]


def _integer(minimum: int, maximum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def _table(maximum: int, *, complete: bool) -> dict[str, Any]:
    """An object from levels ("6" … "10") to integers 0 … ``maximum``."""
    schema: dict[str, Any] = {
        "type": "object",
        "propertyNames": {"enum": _LEVEL_NAMES},
        "additionalProperties": _integer(0, maximum),
    }
    if complete:
        schema["required"] = _LEVEL_NAMES
    return schema


def _levels(*, min_items: int, unique: bool) -> dict[str, Any]:
    return {
        "type": "array",
        "items": _integer(LEVELS[0], LEVELS[-1]),
        "minItems": min_items,
        "maxItems": MAX_SEQUENCE,
        "uniqueItems": unique,
    }


def options_schema(whist_kinds: list[str]) -> dict[str, Any]:
    """The schema (draft 2020-12); ``whist_kinds`` are the keys of the defence scorers."""
    boolean = {"type": "boolean"}
    price = _integer(0, MAX_PRICE)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Preferans rule set options",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,31}$"},
            "players": {"enum": list(SUPPORTED_PLAYERS)},
            "pool_target": _integer(1, MAX_POOL_TARGET),
            "contract_values": _table(MAX_PRICE, complete=True),
            "defence_norms": _table(max(LEVELS), complete=True),
            "misere_value": price,
            "misere_trick_penalty": price,
            "raspasy_trick_prices": {
                "type": "array",
                "items": price,
                "minItems": 1,
                "maxItems": MAX_SEQUENCE,
            },
            "raspasy_zero_bonus": price,
            "raspasy_exit_levels": _levels(min_items=1, unique=False),
            "raspasy_amnesty": boolean,
            # raspasy (issue 11, RULES.md §3.3)
            "raspasy_progression": {"enum": [p.value for p in Progression]},
            "raspasy_progression_step": _integer(1, MAX_PRICE),
            "raspasy_progression_limit": _integer(0, MAX_SEQUENCE),
            "raspasy_zero_bonus_priced": boolean,
            "raspasy_failure_ends_series": boolean,
            "raspasy_misere_ends_series": boolean,
            "raspasy_zero_ends_series": boolean,
            "raspasy_round_limit": _integer(0, MAX_SEQUENCE),
            "raspasy_compulsory_rounds": _integer(0, MAX_SEQUENCE),
            "raspasy_dealer": {"enum": [d.value for d in RaspasyDealer]},
            "raspasy_dealer_limit": _integer(1, MAX_SEQUENCE),
            "raspasy_talon": {"enum": [t.value for t in RaspasyTalon]},
            "raspasy_scoring": {"enum": [s.value for s in RaspasyScoring]},
            "help_whists_per_point": price,
            "settlement_whists_per_gora": price,
            "bidding": {"enum": [b.value for b in Bidding]},
            "here_between_two_only": boolean,
            "misere_beaten_stops_auction": boolean,
            "here_passes_to_later": boolean,
            "misere_beaten_by_ten": boolean,
            "concede_undertricks": {"enum": [0, 3, 4]},
            "concede_any_level": boolean,
            "underbid_penalty": {"enum": [u.value for u in Underbid]},
            "misere_shows_twelve": boolean,
            "preferans": {"enum": [p.value for p in PreferansHand]},
            "preferans_whists": price,
            "preferans_effect": {"enum": [e.value for e in PreferansEffect]},
            "preferans_takes_whists": boolean,
            # Classic auction (issue 12, RULES.md §3.5, §3.1)
            "bombs": boolean,
            "bomb_level_limit": _integer(0, MAX_SEQUENCE),
            "bomb_beaten_by_rising_level": boolean,
            "dark_bids": boolean,
            "dark_bids_on_ladder": boolean,
            "dark_misere": boolean,
            "no_talon_levels": _levels(min_items=0, unique=True),
            "no_talon_misere": boolean,
            "no_talon_shown": boolean,
            "whist_kind": {"enum": whist_kinds},
            "whister_shares": _table(max(LEVELS), complete=False),
            "second_whister_shares": _table(max(LEVELS), complete=False),
            "penalty_capped": boolean,
            "half_whist_levels": _levels(min_items=0, unique=True),
            "half_whist_tricks": _table(max(LEVELS), complete=False),
            "whist_pass_half_whist": boolean,
            "return_whist_passer_keeps_consolation": boolean,
            "consolation": boolean,
            "ten_whisted": boolean,
            "misere_defence_choice": boolean,
            "misere_whisted": boolean,
            "strain_price_steps": {
                "type": "array",
                "items": price,
                "minItems": 0,
                "maxItems": 5,
            },
            # Whisting systems (issue 11, RULES.md §3.2, §5.1 C-1 … C-4)
            "whist_prices": _table(MAX_PRICE, complete=False),
            "consolation_prices": _table(MAX_PRICE, complete=False),
            "undertrick_prices": _table(MAX_PRICE, complete=False),
            "whist_liability": {"enum": [v.value for v in WhistLiability]},
            "shortfall_payer": {"enum": [v.value for v in ShortfallPayer]},
            "whist_obligations": {"enum": [v.value for v in Obligations]},
            "failing_whister_writes_whists": boolean,
            "whist_sharing": {"enum": [v.value for v in WhistSharing]},
            "greedy_passer_consolation": boolean,
            "gentleman_split_always": boolean,
            "gentleman_split_penalties": boolean,
            "stalingrad": boolean,
            "pass_pass_whist_levels": _levels(min_items=0, unique=True),
            "own_whist_levels": _levels(min_items=0, unique=True),
            "ten_checked": boolean,
            "open_after_first_lead": boolean,
            "help_tie": {"enum": [h.value for h in HelpTie]},
            # Recording, settlement and ending (issue 11, RULES.md §3.4)
            "help_failed_whister": boolean,
            "raspasy_zero_helps": boolean,
            "leftover": {"enum": [x.value for x in Leftover]},
            "settlement_method": {"enum": [x.value for x in SettlementMethod]},
            "settlement_integer": boolean,
            "ending": {"enum": [x.value for x in Ending]},
            "ending_deals": _integer(0, MAX_DEALS),
            "ending_by_time": boolean,
            "races": _integer(0, MAX_RACES),
            "race_prize_whists": price,
            "unwhisted_write_off": boolean,
            # Classic scoring (issue 12, RULES.md §3.5 "Classic", TV-26)
            "bomb_trick_price": _integer(1, MAX_PRICE),
            "dark_multiplier": _integer(1, MAX_DARK_MULTIPLIER),
            "dark_misere_value": price,
            "dark_misere_trick_penalty": price,
            # The start and the end of a Classic game (issue 12, RULES.md §3.4, §3.5)
            "initial_rounds": {"enum": [x.value for x in InitialRounds]},
            "initial_levels": _integer(0, MAX_SEQUENCE),
            "initial_gora": price,
            "order_game": boolean,
            "play_until_time": boolean,
            "classic_ending": boolean,
            "robber_gora": price,
            # The simplified Classic variants (S000 «Хулиганка», simplified Classic)
            "birds": {"enum": [x.value for x in Birds]},
            "gora_ending": {"enum": [x.value for x in GoraEnding]},
            "robber": boolean,
            "talon_tricks_penalised": boolean,
            "talon_sitter_zero_bonus": boolean,
            "sitter_consolation": boolean,
            "talon_whists": {"enum": [x.value for x in TalonWhists]},
            "talon_whist_values": {"type": "array", "items": price, "maxItems": 3},
            "talon_misere_seven_whists": price,
            "sitter_return_whist": boolean,
            "talon_return": {"enum": [x.value for x in TalonReturn]},
            "talon_return_refuser_gora": boolean,
            "misere_partner": boolean,
            "help_sitter": boolean,
            "talon_last_pair": boolean,
            "dealer_bomb_sign": boolean,
            "dealer_joins_bomb": boolean,
            "duo_dummy_hand": {"enum": [1, 2]},
            "duo_retract_pass": boolean,
            "duo_whist_own_cards": boolean,
            "duo_all_pass": {"enum": [x.value for x in DuoAllPass]},
            "duo_indivisible_gora": boolean,
        },
    }
