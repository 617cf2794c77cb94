"""Game affinity on the client side: every command of one game goes to one server process.

Any server accepts any game (the store's optimistic concurrency keeps two writers of one game
correct); affinity only makes each game's commands meet the one process whose memory holds it,
so no command is judged on a stale copy, retried, or answered ``Conflict``. Clients that go
through a router (Envoy's ``ring_hash`` on the ``x-game-id`` header, k8s/router.yaml) send
``GAME_ID_HEADER``; clients that reach the processes directly pick one with ``pick``, rendezvous
(highest random weight) hashing: stable, and when a process is added or removed only the games
of that process move.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

GAME_ID_HEADER = "x-game-id"
"""The metadata key a router hashes on: the game's id (the part of ``games/<id>`` after the
slash)."""


def game_key(name: str) -> str:
    """The routing key of a game name (``games/<id>`` or a bare id)."""
    return name.removeprefix("games/")


def pick(name: str, targets: Sequence[str]) -> str:
    """The target that serves game ``name``: the highest hash of (target, game id)."""
    if not targets:
        raise ValueError("no targets to route to")
    key = game_key(name).encode()

    def weight(target: str) -> bytes:
        return hashlib.blake2b(target.encode() + b"\0" + key, digest_size=8).digest()

    return max(targets, key=weight)


def affinity_metadata(name: str) -> tuple[tuple[str, str], ...]:
    """The metadata that lets a router send this game's calls to one process."""
    return ((GAME_ID_HEADER, game_key(name)),)
