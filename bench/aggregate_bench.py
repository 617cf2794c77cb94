"""Commands through the ``Game`` aggregate alone, no store: the time inside ``Game.act`` per
command (the rules core's validation plus recording the event), random legal non-claim actions
chosen outside the timed call. Absolute figures on one core; compare two trees in the same run
(e.g. with ``PYTHONPATH`` pointing at each).

Run: ``.venv/bin/python bench/aggregate_bench.py [--commands N]``.
"""

from __future__ import annotations

import argparse
import random
import time
import uuid

from domain.model import Game
from domain.rules import DEFAULT, actor, legal_actions
from domain.rules.actions import Claim

SEED = b"\x07" * 32


def new_game(number: int) -> Game:
    game = Game._create(
        Game.Created,
        id=uuid.uuid4(),
        seat=-1,
        request_id="create",
        players=["ann", "bob", "cid"],
        rules=DEFAULT.to_dict(),
        league="",
        seed_commitment="",
        token_hashes=["", "", ""],
        first_dealer=number % 3,
    )
    game.deal_next(SEED, "create")
    game.collect_events()
    return game


def seconds_per_command(commands: int) -> float:
    rng = random.Random(1)
    spent = 0.0
    number = 0
    game = new_game(number)
    for _ in range(commands):
        if game.finished or game.state.deal_number > 8:
            number += 1
            game = new_game(number)
        deal = game.state.deal
        assert deal is not None
        action = rng.choice([a for a in legal_actions(deal) if not isinstance(a, Claim)])
        seat = actor(deal)
        started = time.perf_counter()
        game.act(seat, action, f"r{game.version}", SEED)
        spent += time.perf_counter() - started
        game.collect_events()
    return spent / commands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=20_000, help="commands per round")
    args = parser.parse_args()
    seconds_per_command(2_000)  # warm-up
    rounds = [seconds_per_command(args.commands) for _ in range(3)]
    listed = ", ".join(f"{r * 1e6:.1f}" for r in rounds)
    print(f"Game.act: {min(rounds) * 1e6:.1f} µs/command (best of 3; all {listed})")


if __name__ == "__main__":
    main()
