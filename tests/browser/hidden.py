"""The hidden-card check of the real-browser test: what the page held (DOM snapshots) and what it
received (Connect responses and stream messages, captured in the browser's network layer) must
never name a card of the current deal that its seat may not see at that moment.

The truth comes from outside the page: the game's full, unredacted event log, read after the
deal with the auditor credential (``AuditService.GetEventLog``). Its entries are turned back into
the game's domain events and replayed; after each event, ``domain.rules.visible_mask`` (the
rules' statement of what a seat may see: its own hand, cards played, the talon once turned up,
hands laid open, everything once the deal is over) gives the cards the seat may see then.

Card strings repeat from deal to deal ("7♠" is in some hand of every deal), so every observation
is placed at a version: a DOM snapshot at the page's ``version`` element (``data-version``), or on
the replay viewer at ``replay-position``; a stream message at its own ``version``; a seat view at
``SeatView.version``. The previous deal a page or a view shows once it is over is public: the
``deal-result`` element (checked to name a deal scored by then) and ``SeatView.previous_deal``
(``tests.e2e.helpers.view_cards``).
"""

from __future__ import annotations

import base64
import datetime
import json
import struct
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from domain.model.game import Game
from domain.rules import CARDS, visible_mask
from service.gen.preferans.v1 import audit_pb2, game_pb2, ledger_pb2, stats_pb2, table_pb2
from tests.e2e.helpers import mask_texts, message_cards, view_cards

ALL_CARDS = frozenset(str(card) for card in CARDS)
GAME_ROUTE = "#/game/"
REPLAY_ROUTE = "#/replay/"


def _event_classes() -> dict[str, type]:
    found: dict[str, type] = {}
    pending: list[type] = [Game.Event]
    while pending:
        cls = pending.pop()
        sub: type
        for sub in cls.__subclasses__():
            pending.append(sub)
            topic = getattr(sub, "TOPIC", "")
            if topic and topic != Game.Event.TOPIC:
                found[topic] = sub
    return found


@dataclass(frozen=True)
class Truth:
    """What the seat may see after each event of the game, from its unredacted log."""

    seat: int
    allowed: list[frozenset[str]]
    """``allowed[version]``: the cards the seat may see right after that event (0: none)."""
    deal_of: list[int]
    """``deal_of[version]``: the number of the deal in play after that event (0 before any)."""
    scored_at: dict[int, int]
    """Deal number → the version of its DealScored."""
    hands: dict[int, list[str]]
    """Deal number → each seat's hand as dealt (notation, space-separated)."""

    @property
    def last(self) -> int:
        return len(self.allowed) - 1

    def hidden_at(self, version: int) -> frozenset[str]:
        """Cards of the deal at ``version`` that the seat may not see then."""
        return ALL_CARDS - self.allowed[version]


def truth_from_log(
    game_id: uuid.UUID, entries: Sequence[audit_pb2.EventLogEntry], player: str
) -> Truth:
    """Replay the audit log's entries (every field of every event) with the domain's rules."""
    classes = _event_classes()
    allowed: list[frozenset[str]] = [frozenset()]
    deal_of = [0]
    scored_at: dict[int, int] = {}
    hands: dict[int, list[str]] = {}
    seat = -1
    game: Any = None
    for entry in entries:
        assert not entry.decode_error, f"event {entry.version}: {entry.decode_error}"
        assert entry.version == len(allowed), f"the log jumps to version {entry.version}"
        fields = json.loads(entry.fields_json)
        event = classes[entry.topic](
            originator_id=game_id,
            originator_version=entry.version,
            timestamp=datetime.datetime.fromisoformat(entry.timestamp),
            **fields,
        )
        game = event.mutate(game)
        name = entry.topic.rsplit(".", 1)[-1]
        if name == "GameCreated":
            assert player in fields["players"], f"{player} does not sit at {fields['players']}"
            seat = fields["players"].index(player)
        elif name == "DealDealt":
            hands[fields["number"]] = list(fields["hands"])
        elif name == "DealScored":
            scored_at[fields["number"]] = entry.version
        deal = game.state.deal
        deal_of.append(max(hands, default=0))
        if deal is None:  # between deals and after the game: everything, for review
            allowed.append(ALL_CARDS)
        else:
            allowed.append(frozenset(mask_texts(visible_mask(deal, seat))))
    assert seat >= 0, "no GameCreated in the log"
    return Truth(seat, allowed, deal_of, scored_at, hands)


# ----------------------------------------------------------------------------------------
# the DOM


@dataclass(frozen=True)
class Violation:
    where: str
    version: int
    cards: frozenset[str]
    detail: str

    def __str__(self) -> str:
        return f"{self.where} at version {self.version}: {sorted(self.cards)} ({self.detail})"


def _int(text: Any) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def check_dom(snapshots: Iterable[dict[str, Any]], truth: Truth) -> tuple[list[Violation], int]:
    """Every card a DOM snapshot names (``data-card`` anywhere, card names in its text) against
    what the seat may see at the snapshot's version; the violations, and how many cards were
    checked.

    The page's ``version`` is the last version its stream delivered, and the cards it draws come
    from the seat view it asks for after that: the view may lag the stream (drawn a moment after
    the version moved on) or lead it (an event the view already holds, which the stream has not
    delivered yet). So a table snapshot's cards are checked against what the seat could see at
    some version from the previous table snapshot's to the next one's. Within a deal that is what
    it may see at the later of them (it only ever sees more); a window that spans a deal's end
    allows that whole deal, which is public then."""
    violations: list[Violation] = []
    checked = 0
    snapshots = list(snapshots)
    table_versions = [
        _int(s.get("version")) if (s.get("route") or "").startswith(GAME_ROUTE) else None
        for s in snapshots
    ]
    for index, snap in enumerate(snapshots):
        route = snap.get("route") or ""
        version = _int(snap.get("replay" if route.startswith(REPLAY_ROUTE) else "version"))
        since = until = version
        if route.startswith(GAME_ROUTE) and version is not None:
            before = [v for v in table_versions[:index] if v is not None]
            after = [v for v in table_versions[index + 1 :] if v is not None]
            if before and before[-1] <= version:
                since = before[-1]
            if after and version <= after[0] <= truth.last:
                until = after[0]
        named = [(c["card"], c["regions"], "data-card") for c in snap["cards"]]
        named += [(t["card"], t["regions"], f"text {t['text']!r}") for t in snap["text"]]
        if not named:
            continue
        what = "replay" if route.startswith(REPLAY_ROUTE) else f"page {route!r}"
        where = f"{what} snapshot ({snap['why']})"
        cards = frozenset(c for c, _, _ in named)
        if not route.startswith((GAME_ROUTE, REPLAY_ROUTE)):
            violations.append(Violation(where, -1, cards, "cards off the table"))
            continue
        if version is None or since is None or until is None or not 0 <= version <= truth.last:
            violations.append(Violation(where, -1, cards, f"no known version: {version}"))
            continue
        allowed = frozenset().union(*truth.allowed[since : until + 1])
        if route.startswith(REPLAY_ROUTE) and truth.deal_of[version] in truth.scored_at:
            allowed = ALL_CARDS  # the replay of a deal over by now: every card of it is public
        result = _int(snap.get("deal"))
        for card, regions, how in named:
            checked += 1
            if card not in ALL_CARDS:
                detail = f"not a card ({how})"
                violations.append(Violation(where, version, frozenset({card}), detail))
            elif "deal-result" in regions:
                # The result of a deal over by this version: all of it public.
                over = truth.scored_at.get(result or 0)
                if over is None or over > version:
                    detail = f"deal-result of deal {result}, not scored by then ({how})"
                    violations.append(Violation(where, version, frozenset({card}), detail))
            elif card not in allowed:
                detail = f"in {'/'.join(regions) or 'the page'} ({how})"
                if (since, until) != (version, version):
                    detail += f", allowed at no version from {since} to {until}"
                violations.append(Violation(where, version, frozenset({card}), detail))
    return violations, checked


# ----------------------------------------------------------------------------------------
# the network

_MODULES = (game_pb2, table_pb2, stats_pb2, audit_pb2, ledger_pb2)


def response_type(path: str) -> type[Message]:
    """The response message of a Connect route ``/preferans.v1.<Service>/<Method>``."""
    _, full_service, method = path.split("/")
    service = full_service.rsplit(".", 1)[-1]
    for module in _MODULES:
        if service in module.DESCRIPTOR.services_by_name:
            output = module.DESCRIPTOR.services_by_name[service].methods_by_name[method].output_type
            return message_factory.GetMessageClass(output)
    raise KeyError(f"no service {full_service}")


def envelopes(body: bytes) -> Iterator[tuple[int, bytes]]:
    """The enveloped messages of a Connect (or gRPC-Web) stream: flags and payload. A stream cut
    off in the middle of a message (a dropped connection) ends at the last whole one."""
    at = 0
    while at + 5 <= len(body):
        flags, size = struct.unpack(">BI", body[at : at + 5])
        if at + 5 + size > len(body):
            return
        yield flags, body[at + 5 : at + 5 + size]
        at += 5 + size


def _decode(payload: bytes, kind: type[Message], content_type: str) -> Message:
    message = kind()
    if "proto" in content_type and "json" not in content_type:
        message.ParseFromString(payload)
    else:
        json_format.Parse(payload.decode("utf-8"), message)
    return message


def response_messages(capture: dict[str, Any]) -> list[Message]:
    """The messages of one captured Connect response (none for an error, or no body)."""
    if capture.get("body") is None or capture.get("status") != 200:
        return []
    body = base64.b64decode(capture["body"])
    kind = response_type(capture["method"])
    content_type = capture.get("contentType") or ""
    if capture.get("streaming"):
        out = []
        for flags, payload in envelopes(body):
            if flags & 0x02 or flags & 0x80:  # end of stream / trailers, no message
                continue
            out.append(_decode(payload, kind, content_type))
        return out
    return [_decode(body, kind, content_type)]


def _cards_placed(message: Message) -> Iterator[tuple[int, set[str], str]]:
    """(version, cards, what) for every part of a message that names cards of a game."""
    if isinstance(message, game_pb2.WatchGameResponse):
        yield message.version, message_cards(message), "WatchGame message"
        return
    if isinstance(message, game_pb2.SeatView):
        yield message.version, view_cards(message), "SeatView"
        return
    for field, value in message.ListFields():
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in _items(value):
                yield from _cards_placed(item)


def _items(value: Any) -> list[Any]:
    """A field's value as a list (a map's entries are no cards: none)."""
    if isinstance(value, Message):
        return [value]
    if hasattr(value, "keys"):
        return []
    return list(value) if not isinstance(value, str | bytes) else [value]


_CARD_FIELDS = {"card", "cards", "hand", "talon", "discard", "shown_cards", "revealed"}


def _unplaced_cards(message: Message) -> set[str]:
    """Card names anywhere in a message but its WatchGame messages and seat views (which are
    placed by their version)."""
    if isinstance(message, game_pb2.WatchGameResponse | game_pb2.SeatView):
        return set()
    found: set[str] = set()
    for field, value in message.ListFields():
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in _items(value):
                found |= _unplaced_cards(item)
        elif field.type == FieldDescriptor.TYPE_STRING and field.name in _CARD_FIELDS:
            words = (word for item in _items(value) for word in str(item).split())
            found |= {word for word in words if word in ALL_CARDS}
    return found


def check_network(
    captures: Iterable[dict[str, Any]], truth: Truth
) -> tuple[list[Violation], int, int]:
    """Every captured Connect response and stream message against what the seat may see at the
    version it carries; the violations, the messages decoded and the cards checked."""
    violations: list[Violation] = []
    messages = 0
    checked = 0
    for capture in captures:
        where = f"{capture['method']} response"
        for message in response_messages(capture):
            messages += 1
            for version, cards, what in _cards_placed(message):
                checked += len(cards)
                if not 0 <= version <= truth.last:
                    if cards:
                        detail = f"{what} of an unknown version"
                        violations.append(Violation(where, version, frozenset(cards), detail))
                    continue
                leak = frozenset(cards) - truth.allowed[version]
                if leak:
                    violations.append(Violation(where, version, leak, what))
            unplaced = _unplaced_cards(message)
            if unplaced:
                checked += len(unplaced)
                detail = "cards outside any seat view or stream message"
                violations.append(Violation(where, -1, frozenset(unplaced), detail))
    return violations, messages, checked
