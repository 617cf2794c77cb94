"""What the person types at ``pref play``'s prompt: an action (``parse_choice``), or one of the
table's own commands (``parse_command``: help, the scoresheet, undo, flag, quit); and the
server's answers and events in words (``describe_rpc_error``, ``describe_action``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import grpc
from grpc_status import rpc_status

from domain.rules import Action, Call, Declare, InvalidAction, parse_action, parse_cards
from domain.rules.seats import seat_name
from service.gen.preferans.v1 import game_pb2 as pb

QUIT_WORDS = frozenset({"q", "quit", "exit"})
HINT = "A number, or the action (ASCII too: 6s, 7nt, Th, misere); ? help; q quits."
HELP_WORDS = frozenset({"?", "h", "help"})
UNDO_WORDS = frozenset({"u", "undo"})
SHEET_WORDS = frozenset({"sheet", "s"})


@dataclass(frozen=True)
class Command:
    """One of the table's own commands (not an action for the server): ``help``, ``sheet``,
    ``undo`` or ``flag`` (with the deal's number and the reason); ``error`` if malformed."""

    kind: str
    deal: int = 0
    reason: str = ""
    error: str = ""


NUMBER_DIGITS = 9
"""The most digits a number typed at a prompt may have: every such number fits the int32
fields it is sent in (a deal's number, a pool length, minutes)."""


def whole_number(text: str) -> int | None:
    """``text`` as a whole number, or ``None``: ASCII digits only (``str.isdigit`` is also true
    of "²", which ``int`` refuses) and at most ``NUMBER_DIGITS`` of them (``int`` refuses 4,301
    digits and more; an int32 field refuses more than ten)."""
    if text.isascii() and text.isdigit() and len(text) <= NUMBER_DIGITS:
        return int(text)
    return None


def parse_command(text: str) -> Command | None:
    """The person's line as a table command (``?``/``help``, ``sheet``, ``u``/``undo``,
    ``flag N why``), or ``None`` when it is not one (an action, a quit, nonsense)."""
    raw = " ".join(text.strip().split())
    word, _, rest = raw.partition(" ")
    word = word.lower()
    if raw.lower() in HELP_WORDS:
        return Command("help")
    if raw.lower() in SHEET_WORDS:
        return Command("sheet")
    if raw.lower() in UNDO_WORDS:
        return Command("undo")
    if word != "flag":
        return None
    number, _, reason = rest.partition(" ")
    deal = whole_number(number)
    if deal is None or deal < 1 or not reason.strip():
        return Command("flag", error="flag needs the deal's number and why: flag 3 wrong count")
    return Command("flag", deal=deal, reason=reason.strip())


@dataclass(frozen=True)
class Choice:
    """What the person typed: an action, a wish to quit, or why it was not understood."""

    action: Action | None = None
    quit: bool = False
    error: str = ""


def parse_choice(text: str, legal: Sequence[str], *, in_play: bool = False) -> Choice:
    """The person's line → a choice. A number picks from ``legal`` (1-based); anything else is
    read as notation (ASCII too). Whether the action is legal is for the server to say."""
    raw = " ".join(text.strip().split())
    if not raw:
        return Choice(error="type a number from the list or an action (q quits)")
    if raw.lower() in QUIT_WORDS:
        return Choice(quit=True)
    if raw.isdigit():  # any digits, "²" too: a number, never notation
        number = whole_number(raw)
        if not legal:
            return Choice(error="it is not your turn")
        if number is None or not 1 <= number <= len(legal):
            return Choice(error=f"choose a number from 1 to {len(legal)}")
        return Choice(action=parse_action(legal[number - 1], cards_first=in_play))
    try:
        action = parse_action(raw, cards_first=in_play)
    except InvalidAction as exc:
        # Two bare cards while discarding mean the discard.
        if any(a.startswith("discard") for a in legal):
            try:
                if len(parse_cards(raw)) == 2:
                    return Choice(action=parse_action(f"discard {raw}"))
            except InvalidAction:
                pass
        return Choice(error=exc.message)
    if isinstance(action, Call) and any(a.startswith("declare ") for a in legal):
        return Choice(action=Declare(action.bid))  # a bare bid names the contract
    return Choice(action=action)


def describe_rpc_error(exc: grpc.RpcError) -> str:
    """The server's refusal in words: its message, plus the legal actions or the bad field."""
    code = exc.code() if hasattr(exc, "code") else None
    message = exc.details() if hasattr(exc, "details") else str(exc)
    extras: list[str] = []
    try:
        status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    except (ValueError, AttributeError):
        status = None
    if status is not None:
        from google.rpc import error_details_pb2

        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                if info.metadata.get("allowed"):
                    extras.append(f"allowed: {info.metadata['allowed']}")
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                extras += [f"{v.field}: {v.description}" for v in bad.field_violations]
    name = code.name if code is not None else "ERROR"
    text = f"{name}: {message}"
    extras = [e for e in extras if e.split(": ", 1)[-1] != message]
    return text + ("\n" + "\n".join(extras) if extras else "")


def describe_action(event: pb.ActionEvent) -> str:
    """One line of the move log: ``B: 6♠``, ``C plays K♠``, ``A: discard (hidden)``."""
    action = event.action
    kind = action.WhichOneof("kind")
    who = seat_name(event.seat)
    if event.actor != event.seat:
        who += f" (by {seat_name(event.actor)})"
    if kind == "play_card":
        return f"{who} plays {action.play_card}"
    if kind == "bid":
        return f"{who}: {action.bid}"
    if kind == "declare":
        return f"{who} declares {action.declare}"
    if kind == "discard":
        cards = " ".join(action.discard.cards) or "two cards (hidden)"
        return f"{who} discards {cards}"
    if kind == "choose_defence":
        return f"{who}: {'open' if action.choose_defence.open else 'closed'} defence"
    if kind == "write_off":
        return f"{who}: {'writes it off his gora' if action.write_off.off else 'to pool'}"
    if kind == "own_whist_answer":
        return f"{who}: {'allows' if action.own_whist_answer.allow else 'refuses'} the own whist"
    if kind == "claim":
        return f"{who} claims {'-'.join(str(t) for t in action.claim.tricks)}"
    if kind == "dark_bid":
        return f"{who}: {action.dark_bid} dark"
    if kind == "no_talon_bid":
        return f"{who}: {action.no_talon_bid} without talon"
    words = {
        "pass": "pass",
        "here": "here",
        "take_talon": "takes the talon",
        "whist": "whist",
        "half_whist": "half-whist",
        "own_whist": "own whist",
        "accept_claim": "accepts the claim",
        "reject_claim": "rejects the claim",
        "look": "looks at his cards",
        "bomb": "bomb (pass dark)",
    }
    return f"{who}: {words.get(kind or '', kind or '?')}"
