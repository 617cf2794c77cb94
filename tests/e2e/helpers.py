"""Helpers of the end-to-end tests: unpacking rich error details, reading streams with a
timeout, and naming every card a message shows."""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from domain.rules import CARDS, Card, Rank, Suit, cards_of, visible_mask
from service.gen.preferans.v1 import game_pb2 as pb

PLAYERS = ["ann", "bob", "cid"]
CARD_TEXTS = frozenset(str(card) for card in CARDS)
STREAM_TIMEOUT = 20.0


@dataclass
class Refusal:
    """A refused call: its status code, message and unpacked ``google.rpc`` details."""

    code: grpc.StatusCode
    message: str
    status: status_pb2.Status
    bad_request: error_details_pb2.BadRequest | None
    error_info: error_details_pb2.ErrorInfo | None
    retry_info: error_details_pb2.RetryInfo | None
    resource_info: error_details_pb2.ResourceInfo | None

    @property
    def fields(self) -> list[str]:
        assert self.bad_request is not None, "no google.rpc.BadRequest in the details"
        return [v.field for v in self.bad_request.field_violations]


def refusal(error: grpc.RpcError) -> Refusal:
    """The status of a failed call, with its rich details (``grpc-status-details-bin``)."""
    assert isinstance(error, grpc.Call)
    status = rpc_status.from_call(error)
    assert status is not None, f"no rich status on {error.code()}: {error.details()}"
    assert status.code == error.code().value[0]
    assert status.message == error.details()
    found: dict[str, Any] = {}
    kinds: dict[str, type[Message]] = {
        "bad_request": error_details_pb2.BadRequest,
        "error_info": error_details_pb2.ErrorInfo,
        "retry_info": error_details_pb2.RetryInfo,
        "resource_info": error_details_pb2.ResourceInfo,
    }
    for detail in status.details:
        for key, kind in kinds.items():
            if detail.Is(kind.DESCRIPTOR):
                message = kind()
                detail.Unpack(message)
                found[key] = message
    return Refusal(
        error.code(),
        error.details() or "",
        status,
        found.get("bad_request"),
        found.get("error_info"),
        found.get("retry_info"),
        found.get("resource_info"),
    )


def refused(call: Any, *args: Any, **kwargs: Any) -> Refusal:
    """Make the call, which must fail, and return how."""
    try:
        call(*args, **kwargs)
    except grpc.RpcError as error:
        return refusal(error)
    raise AssertionError(f"{call} was accepted; a refusal was expected")


class StreamReader:
    """Reads a server stream in a background thread so that every read has a timeout."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self._queue: queue.Queue[tuple[str, Any, float]] = queue.Queue()
        self.received_at: dict[int, float] = {}
        """When (``time.monotonic()``) each event version arrived."""
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            for message in self.stream:
                now = time.monotonic()
                if isinstance(message, pb.WatchGameBatchesResponse):
                    for update in message.updates:
                        if not update.HasField("heartbeat"):
                            self.received_at.setdefault(update.version, now)
                elif not message.HasField("heartbeat"):
                    self.received_at.setdefault(message.version, now)
                self._queue.put(("message", message, now))
        except grpc.RpcError as error:
            self._queue.put(("error", error, time.monotonic()))
        else:
            self._queue.put(("end", None, time.monotonic()))

    def next(self, timeout: float = STREAM_TIMEOUT) -> pb.WatchGameResponse:
        try:
            kind, value, _ = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no stream message within {timeout}s") from None
        if kind == "error":
            raise value
        if kind == "end":
            raise AssertionError("the stream ended")
        assert isinstance(value, pb.WatchGameResponse)
        return value

    def next_batch(self, timeout: float = STREAM_TIMEOUT) -> pb.WatchGameBatchesResponse:
        """The next message of a ``WatchGameBatches`` stream."""
        try:
            kind, value, _ = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no stream message within {timeout}s") from None
        if kind == "error":
            raise value
        if kind == "end":
            raise AssertionError("the stream ended")
        assert isinstance(value, pb.WatchGameBatchesResponse)
        return value

    def events_until(
        self, version: int, timeout: float = STREAM_TIMEOUT
    ) -> Iterator[pb.WatchGameResponse]:
        """Messages (heartbeats skipped) until the one with ``version``."""
        while True:
            message = self.next(timeout)
            if message.HasField("heartbeat"):
                continue
            yield message
            if message.version >= version:
                return

    def close(self) -> None:
        self.stream.cancel()
        self._thread.join(timeout=10)
        assert not self._thread.is_alive()


# ----------------------------------------------------------------------------------------
# the cards a message shows


def _action_cards(action: pb.Action) -> set[str]:
    kind = action.WhichOneof("kind")
    cards = _values([action.card_value] if action.HasField("card_value") else [])
    if kind == "play_card":
        return cards | {str(Card.parse(action.play_card))}
    if kind == "discard":
        discard = action.discard
        return cards | {str(Card.parse(c)) for c in discard.cards} | _values(discard.card_values)
    if kind == "give_cards":  # two players "с вареником"
        gift = action.give_cards
        return cards | {str(Card.parse(c)) for c in gift.cards} | _values(gift.card_values)
    return cards


def _values(values: Iterable[pb.Card]) -> set[str]:
    """The cards named by structured twins (``preferans.v1.Card``; face down: none)."""
    out = set()
    for value in values:
        if value.rank == pb.RANK_UNSPECIFIED and value.suit == pb.SUIT_UNSPECIFIED:
            continue
        out.add(str(Card.of(Rank(value.rank - pb.RANK_SEVEN), Suit(value.suit - 1))))
    return out


def _hand_cards(hand: pb.SeatCards) -> set[str]:
    return _checked(hand.cards) | _values(hand.card_values)


def _checked(texts: Iterable[str]) -> set[str]:
    out = set()
    for text in texts:
        if text == "":  # a face-down talon card
            continue
        assert text in CARD_TEXTS, f"{text!r} is not a card in notation"
        out.add(text)
    return out


def _trick_cards(trick: pb.Trick) -> set[str]:
    return _checked(p.card for p in trick.cards) | _values(p.card_value for p in trick.cards)


def view_cards(view: pb.SeatView) -> set[str]:
    """Every card of the current deal a seat view names (calls and contracts are bids, not
    cards). ``previous_deal`` shows every card of a deal that is over, which is public: it is
    checked to be an earlier deal, and left out."""
    if view.HasField("previous_deal"):
        previous = view.previous_deal
        over = view.phase == pb.PHASE_SCORED and not view.hand
        assert previous.deal_number < view.deal_number or (
            over and previous.deal_number == view.deal_number
        ), f"previous_deal {previous.deal_number} during deal {view.deal_number}"
    cards = _checked(view.hand) | _checked(view.talon) | _checked(view.discard)
    cards |= _values(view.hand_values) | _values(view.talon_values)
    cards |= _values(view.discard_values) | _values(view.shown_card_values)
    for action in view.legal:
        cards |= _action_cards(action)
    for hand in view.visible_hands:
        cards |= _hand_cards(hand)
    cards |= _checked(p.card for p in view.current_trick)
    cards |= _values(p.card_value for p in view.current_trick)
    cards |= _trick_cards(view.last_trick)
    for trick in view.played_tricks:
        cards |= _trick_cards(trick)
    if view.phase in (pb.PHASE_PLAY, pb.PHASE_DISCARD):
        # A card to play ("10♥") or a discard ("discard 7♣ 8♦"); elsewhere "7♠" is a bid.
        for text in view.legal_actions:
            cards |= {word for word in text.split() if word in CARD_TEXTS}
    return cards


def message_cards(message: pb.WatchGameResponse) -> set[str]:
    """Every card a stream message names."""
    cards = _checked(message.talon) | _values(message.talon_values)
    for hand in message.revealed:
        cards |= _hand_cards(hand)
    if message.HasField("action"):
        cards |= _action_cards(message.action.action)
    if message.HasField("deal_scored"):
        scored = message.deal_scored
        for hand in scored.dealt_hands:
            cards |= _hand_cards(hand)
        cards |= _checked(scored.talon) | _checked(scored.discard)
        cards |= _values(scored.talon_values) | _values(scored.discard_values)
    return cards


def mask_texts(mask: int) -> set[str]:
    return {str(card) for card in cards_of(mask)}


def public_by_version(events: Iterable[Any]) -> list[frozenset[str]]:
    """``public[version]``: the cards every seat may see right after that event of a game's
    ``events`` (all of them between deals and after the game): what a spectator may see."""
    everything = frozenset(CARD_TEXTS)
    public: list[frozenset[str]] = [frozenset()]
    game: Any = None
    for event in events:
        game = event.mutate(game)
        deal = game.state.deal
        seen = everything
        if deal is not None:
            for seat in range(game.rule_set.players):
                seen = seen & frozenset(mask_texts(visible_mask(deal, seat)))
        public.append(seen)
    return public


def refused_stream(stream: Any) -> grpc.RpcError:
    """The error that ends a stream refused before its first message (the stream closed)."""
    reader = StreamReader(stream)
    try:
        reader.next()
    except grpc.RpcError as error:
        return error
    finally:
        reader.close()
    raise AssertionError("the stream was accepted; a refusal was expected")


class TcpProxy:
    """A TCP proxy to the database server: ``cut()`` takes the store down for whoever connects
    through it (every connection is dropped and new ones are refused), ``restore()`` brings it
    back on the same port."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self._listener: socket.socket | None = None
        self._sockets: set[socket.socket] = set()
        self._guard = threading.Lock()
        self._threads: list[threading.Thread] = []
        self.restore()

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        with self._guard:
            self._listener = listener
        thread = threading.Thread(target=self._accept, args=(listener,), daemon=True)
        thread.start()
        self._threads.append(thread)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._guard:
                if listener is not self._listener:  # cut meanwhile
                    client.close()
                    upstream.close()
                    return
                self._sockets.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                pump = threading.Thread(target=self._pump, args=(a, b), daemon=True)
                pump.start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self._guard:
            listener, self._listener = self._listener, None
            sockets, self._sockets = self._sockets, set()
        if listener is not None:
            listener.close()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        self.cut()
        for thread in self._threads:
            thread.join(timeout=5)
