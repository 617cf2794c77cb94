"""Going "without three" (RULES.md §3.1; S000 «Конвенции», "Варианты правил при назначении
игры"): the talon taker refuses to play instead of declaring a contract.

"The one who took the talon on a six may refuse to play (go 'without three', in some
companies 'without four'); he is then deemed to have taken three (two) tricks. No whists are
written on him. In some companies 'without three without whists' applies to every game."

Decisions (docs/SYSTEMS.md): the refusal is made in the contract phase, after the discard (it
takes the place of the declaration, which S000 files it under); the contract written is the
winning bid; the deal ends with no whisting and no play; the declarer writes
``concede_undertricks`` × the bid's value to his gora, nobody writes whists, nothing goes to a
pool. Misère cannot be conceded (misère has no undertricks).
"""

from __future__ import annotations

from domain.rules.state import DealState, Kind


def may_concede(state: DealState) -> bool:
    """Whether the declarer (talon taken, cards discarded) may go "without three" now."""
    rules = state.rules
    bid = state.bid
    return (
        rules.concede_undertricks > 0
        and bid is not None
        and not bid.is_misere
        and (bid.level == 6 or rules.concede_any_level)
    )


def why_not(state: DealState) -> str:
    """Why a concession is refused here, in words."""
    rules = state.rules
    if not rules.concede_undertricks:
        return '"without three" is not played at this table'
    if state.bid is not None and state.bid.is_misere:
        return "misère cannot be conceded: you won the talon on misère"
    return '"without three" is allowed only after winning the talon on a six'


def concede(state: DealState) -> DealState:
    """End the deal: the winning bid is the contract, conceded without play."""
    from domain.rules.play import finish

    return finish(state.with_(contract=state.bid), Kind.CONCEDED)
