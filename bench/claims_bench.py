"""Cost of a bot's answer to a claim (``domain.bots.claims``): the declarer of bot deals claims
every remaining trick at each of his leads from 2 to 9 tricks left, and the seat asked answers.
The baseline, in the same run, is one bot card decision (``Bot`` on the same seat's view in
play), the work a bot does at every turn.

Run: ``.venv/bin/python bench/claims_bench.py`` (options: ``--deals``). Prints, per number of
tricks left: the checks, how many were accepted and how many were rejected only for want of
nodes (accepted with ten times ``NODE_LIMIT``), the median and largest time, and the median's
ratio to a card decision.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from collections import defaultdict

from domain.bots import claims as claims_module
from domain.bots import make_bot
from domain.rules import (
    Claim,
    Phase,
    actor,
    apply,
    deal_cards,
    legal_actions,
    new_deal,
    seat_view,
    shuffle_from_seed,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=60)
    args = parser.parse_args()
    bot = make_bot()
    times: dict[int, list[float]] = defaultdict(list)
    accepted: dict[int, int] = defaultdict(int)
    exhausted: dict[int, int] = defaultdict(int)
    decisions: list[float] = []

    for number in range(args.deals):
        seed = hashlib.sha256(f"claims-bench/{number}".encode()).digest()
        shuffle = shuffle_from_seed(seed, 1)
        state = new_deal(deal_cards(shuffle.order, number % 3, shuffle.talon_pair), number % 3)
        while state.phase is not Phase.SCORED:
            seat = actor(state)
            view = seat_view(state, seat)
            if state.phase is Phase.PLAY:
                start = time.perf_counter()
                action = bot(view)
                decisions.append(time.perf_counter() - start)
            else:
                action = bot(view)
            if (
                state.phase is Phase.PLAY
                and state.declarer >= 0
                and seat == state.declarer
                and not state.play.trick
                and state.contract is not None
                and not state.contract.is_misere
            ):
                left = 10 - len(state.play.history)
                rest = tuple(left if s == seat else 0 for s in range(3))
                if Claim(rest) in legal_actions(state) and left >= 2:
                    claimed = apply(state, Claim(rest), seat)
                    answer = seat_view(claimed, actor(claimed))
                    start = time.perf_counter()
                    ok = claims_module.claim_guaranteed(answer)
                    times[left].append(time.perf_counter() - start)
                    # Rejected only for want of nodes: ten times the bound proves it.
                    ran_out = not ok and claims_module.claim_guaranteed(
                        answer, limit=10 * claims_module.NODE_LIMIT
                    )
                    accepted[left] += ok
                    exhausted[left] += ran_out
            state = apply(state, action, seat)

    decision = statistics.median(decisions)
    print(f"bot card decision: median {decision * 1e3:.3f} ms over {len(decisions)}")
    print("left  checks  accepted  out-of-nodes  median ms  max ms  median / decision")
    for left in sorted(times):
        spent = times[left]
        median = statistics.median(spent)
        print(
            f"{left:>4}  {len(spent):>6}  {accepted[left]:>8}  {exhausted[left]:>12}  "
            f"{median * 1e3:>9.2f}  {max(spent) * 1e3:>6.1f}  {median / decision:>17.1f}"
        )


if __name__ == "__main__":
    main()
