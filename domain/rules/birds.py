"""The simplified Classic variants: birds and the end by writing off gora (S000 "Варианты
правил для классики", the paragraphs «Хулиганка» and "вариант упрощенной классики, в котором
сдача не скользящая"; RULES.md §3.5 "Classic").

* A **bird** («птичка») is put on a raspasy: in «Хулиганка» by the player who said pass after
  the two players before him said pass (``Birds.THIRD_PASSER``), in the simplified Classic by
  every player, the dealer included (``Birds.EVERY_RASPASY_PLAYER``). "Игра на птичке
  аналогична игре на одинарной бомбе": a bird is a single-bomb sign in the ledger
  ``GameState.bomb_signs`` — the player's next game is worth double and the bird is crossed
  out when he makes it, left when he fails (``domain.rules.bombs``).
* Nothing records a bird: it follows from the deal (its auction's passes, or being a raspasy),
  so the aggregate, the replay, the audit and hand records all derive it in ``finish_deal``
  (``sign_givers``) from the recorded decisions.
* The simplified Classic "кончается списанием горы или по времени" (``RuleSet.gora_ending``):
  once every pool is closed, the game ends when the gora is written off (``gora_written_off``).
"""

from __future__ import annotations

from domain.rules.actions import Look, Pass
from domain.rules.recording import Birds, GoraEnding
from domain.rules.ruleset import RuleSet
from domain.rules.scoresheet import ScoreSheet
from domain.rules.state import DealState, Kind

PASSES_BEFORE = 2
""""после того, как двое игроков до него объявили “пас”": the bird is the third pass in a row."""


def third_passer(calls: tuple[tuple[int, object], ...]) -> int:
    """The seat whose pass is the third in a row in the auction's ``calls`` (looking at one's
    cards is no call and does not break the row), or -1 if no three passes follow each other.
    With three players that is the last hand of an auction everybody passed."""
    row = 0
    for seat, action in calls:
        if isinstance(action, Look):
            continue
        if not isinstance(action, Pass):
            row = 0
            continue
        row += 1
        if row == PASSES_BEFORE + 1:
            return seat
    return -1


def birds(deal: DealState) -> int:
    """The mask of the seats that put a bird after ``deal`` (scored) by its rules: only a
    raspasy (that is not a bomb) gives birds — under ``third-passer`` to the third passer in a
    row of its auction, under ``every-raspasy-player`` to every seat (the dealer included; the
    initial raspasy rounds too)."""
    rule = deal.rules.birds
    result = deal.result
    if rule is Birds.NONE or result is None or result.kind is not Kind.RASPASY or deal.bomb:
        return 0
    if rule is Birds.EVERY_RASPASY_PLAYER:
        # "в том числе и сдатчик" (S000 l.653): with four or five, the dealer on the talon
        # (``seats``: with two players not the dummy).
        return deal.seats | 1 << deal.dealer
    seat = third_passer(deal.auction.calls)
    return 0 if seat < 0 else 1 << seat


def sign_givers(deal: DealState) -> int:
    """The seats that get a sign from ``deal``: the bombers of a played bomb and the birds
    (at level ``max(deal.bomb, 1)``, ``bombs.add_signs``)."""
    return deal.bombers | birds(deal)


def gora_written_off(sheet: ScoreSheet, rules: RuleSet) -> bool:
    """Whether the game ends by writing off gora (``rules.gora_ending``): every pool is closed
    and every player's gora (``all``) or some player's (``first``) is at zero or below."""
    if rules.gora_ending is GoraEnding.NONE or not sheet.all_closed(rules):
        return False
    cleared = [g <= 0 for g in sheet.gora]
    return all(cleared) if rules.gora_ending is GoraEnding.ALL else any(cleared)
