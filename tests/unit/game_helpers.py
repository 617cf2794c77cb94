"""A game aggregate for unit tests, created in memory without an application or a store."""

from __future__ import annotations

import uuid

from domain.model import Game
from domain.rules import DEFAULT, RuleSet, seed_commitment


def created_game(
    rules: RuleSet = DEFAULT,
    first_dealer: int = 0,
    seed: bytes | None = None,
    stake_per_whist: int = 0,
) -> Game:
    """A new game of players a, b, c (d, e at a larger table; its ``GameCreated`` only); with
    ``seed``, the creation records the seed's commitment (so the audit can check the deals
    dealt from it); ``stake_per_whist``, the game's stake."""
    return Game._create(
        Game.Created,
        id=uuid.uuid4(),
        seat=-1,
        request_id="create",
        players=["a", "b", "c", "d", "e"][: rules.players],
        rules=rules.to_dict(),
        league="",
        seed_commitment="" if seed is None else seed_commitment(seed),
        token_hashes=[""] * rules.players,
        first_dealer=first_dealer,
        stake_per_whist=stake_per_whist,
    )
