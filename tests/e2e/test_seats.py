"""Tables of two, four and five seats over real gRPC, on both stores (RULES.md §3.6, §1.13; issue
13). With two players the dummy is position 2 of the per-position deal data (its tricks, its
open hand in ``visible_hands``, its cards in tricks), shown only once the rules open it.

Every seat has its own token and stream; the game is played with random legal actions as each
seat's view offers them, and no response or streamed message ever shows a seat a card it may not
see at that moment (``domain.rules.view.visible_mask`` decides, as in ``test_hidden``). Besides,
independently of the rules core's view: a seat that sits the deal out (the four-seat dealer "on
the talon"; with five, also the one who dealt before) is dealt no cards and is shown no card
while the auction runs, and every other seat sees exactly its own ten cards then.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import grpc
import pytest

from domain.rules import CARDS, DEFAULT, visible_mask
from domain.rules.duo_options import DuoAllPass
from domain.rules.seats import sitters
from service.app.application import PreferansApplication
from service.app.config import StoreConfig
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import audit_pb2 as apb
from service.gen.preferans.v1 import audit_pb2_grpc
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerFactory, ServerThread
from tests.e2e.helpers import (
    StreamReader,
    mask_texts,
    message_cards,
    refused,
    view_cards,
)

NAMES = ["ann", "bob", "cid", "dan", "eve"]
AUDITOR_SECRET = "s3cret-for-four-seat-rulings"
ALL_CARDS = frozenset(str(card) for card in CARDS)
MAX_LOOKS = 3000
"""Views checked per game before it is cut short (about 600 commands)."""
MAX_GAMES = 8
"""Games played at most to see the deal pass round the table."""


def allowed_by_version(
    app: PreferansApplication, game_id: uuid.UUID, seats: int
) -> list[list[frozenset[str]]]:
    """``allowed[version][seat]``: the cards the seat may see right after that event."""
    allowed: list[list[frozenset[str]]] = [[frozenset()] * seats]
    game: Any = None
    for event in app.game_events(game_id):
        game = event.mutate(game)
        assert game.version == event.originator_version == len(allowed)
        deal = game.state.deal
        if deal is None:  # between deals and after the game: everything, for review
            allowed.append([ALL_CARDS] * seats)
        else:
            allowed.append([frozenset(mask_texts(visible_mask(deal, s))) for s in range(seats)])
    return allowed


def check_auction_view(view: pb.SeatView, players: int) -> None:
    """While the auction runs nothing is open: a seat out of the deal sees no card at all, a
    seat in it sees its own ten cards and nothing else (RULES.md §3.6)."""
    out = sitters(view.dealer, players)
    shown = view_cards(view)
    if view.seat in out:
        assert not view.hand and not shown, f"seat {view.seat} sits out but was shown {shown}"
    else:
        assert len(view.hand) == 10 and shown == set(view.hand)
    assert not view.visible_hands


def check_dealt_message(message: pb.WatchGameResponse, seat: int, players: int) -> None:
    """A deal's message shows a seat its own hand only, and one out of the deal no cards."""
    dealer = message.deal_dealt.dealer
    cards = {s.seat: list(s.cards) for s in message.revealed}
    if seat in sitters(dealer, players):  # not even an empty hand of his own
        assert not cards, f"seat {seat} sits out of deal {message.deal_dealt.deal_number}"
    else:
        assert list(cards) == [seat] and len(cards[seat]) == 10
    assert not message.talon


@dataclass
class Tally:
    """What the games looked at (so that the checks are not vacuous)."""

    deals: int = 0
    auction_views: int = 0
    sat_out: int = 0
    dummy_positions: int = 0
    """Two players: views whose per-position tricks had the dummy's third entry."""
    dummy_shown: int = 0
    """Two players: views showing the dummy's open hand (``visible_hands`` seat 2)."""


def play_and_check(
    client: GameClient,
    app: PreferansApplication,
    players: int,
    rng: random.Random,
    tally: Tally,
    options: dict[str, object] | None = None,
) -> None:
    """Create a game of ``players`` seats, play it to its end (or ``MAX_LOOKS``) with random
    legal actions, and check every view, answer and streamed message each seat got."""
    rules = DEFAULT.with_options(players=players, pool_target=2, **(options or {}))
    created = client.create_game(NAMES[:players], rules)
    name = created.game.name
    assert created.game.seats == players and len(created.seat_tokens) == players
    assert [p.player_id for p in created.game.players] == NAMES[:players]
    seats = [client.seat(name, token) for token in created.seat_tokens]
    for number, seat_client in enumerate(seats):
        joined = seat_client.join()
        assert (joined.seat, joined.player.player_id, joined.game.seats) == (
            number,
            NAMES[number],
            players,
        )
    streams = [StreamReader(s.watch(from_version=0, heartbeat_seconds=300)) for s in seats]
    streams += [StreamReader(s.watch_updates(0, 300, max_batch_size=3)) for s in seats]
    seen: list[tuple[int, int, set[str], str]] = []
    """(version, seat, cards shown, where)."""
    try:
        version = created.game.version
        while True:
            views = [seat.view(min_version=version) for seat in seats]
            for number, view in enumerate(views):
                assert (view.seat, view.version, view.seats) == (number, version, players)
                seen.append((version, number, view_cards(view), "GetSeatView"))
                if players == 2 and view.phase != pb.PHASE_SCORED:
                    # Per-position deal data: seats 0 and 1, then the dummy (``DUMMY``, 2).
                    assert len(view.tricks) == 3
                    tally.dummy_positions += 1
                    tally.dummy_shown += any(h.seat == 2 for h in view.visible_hands)
                if view.phase == pb.PHASE_BIDDING:
                    check_auction_view(view, players)
                    tally.auction_views += 1
                    tally.sat_out += number in sitters(view.dealer, players)
            actor = views[0].actor
            if actor < 0 or len(seen) > MAX_LOOKS:
                break
            legal = [a for a in views[actor].legal if a.WhichOneof("kind") != "claim"]
            answer = seats[actor].act(rng.choice(legal or list(views[actor].legal)))
            assert answer.version > version and answer.view.seat == actor
            seen.append((answer.view.version, actor, view_cards(answer.view), "response"))
            version = answer.version
        final = client.get_game(name)
        assert final.version == version and final.seats == players
        deadline = time.monotonic() + 10  # the game list (a projection) catches up
        while not [g for g in client.list_games(page_size=500).games if g.name == name]:
            assert time.monotonic() < deadline, f"{name} is not listed"
            time.sleep(0.1)
        listed = [g for g in client.list_games(page_size=500).games if g.name == name]
        assert listed[0].seats == players
        # Over, or long enough (random play seldom closes pools: keep it fast).
        assert final.status == pb.GAME_STATUS_FINISHED or len(seen) > MAX_LOOKS
        for index, stream in enumerate(streams):
            seat = index % players
            messages = list(stream.events_until(version))
            assert [m.version for m in messages] == list(range(1, version + 1))
            assert messages[0].game_created.seats == players
            for message in messages:
                seen.append((message.version, seat, message_cards(message), "WatchGame"))
                if message.HasField("deal_dealt"):
                    check_dealt_message(message, seat, players)
    finally:
        for stream in streams:
            stream.close()
    tally.deals += final.deal_number

    allowed = allowed_by_version(app, uuid.UUID(name.removeprefix("games/")), players)
    assert len(allowed) == version + 1
    for at, seat, cards, where in seen:
        # An event's message may name what the seat could see just before it: the cards a
        # decision moves out of the decider's hand (the two-player gift "с вареником" goes to
        # the other player; the giver's own message still names what he gave).
        before = allowed[at - 1][seat] if at and where == "WatchGame" else frozenset()
        leaked = cards - allowed[at][seat] - before
        assert not leaked, f"{where} at version {at} showed seat {seat} {sorted(leaked)}"
    sheet = client.scoresheet(name, min_version=version)
    assert [row.seat for row in sheet.totals] == list(range(players))
    assert all(len(row.whists) == players for row in sheet.totals)
    if final.status == pb.GAME_STATUS_FINISHED:
        assert len(sheet.settlement) == players
        assert sum(Fraction(v) for v in sheet.settlement) == 0


@pytest.mark.parametrize("players", [2, 4, 5], ids=["two", "four", "five"])
def test_a_table_of_n_seats_plays_and_no_seat_sees_a_card_it_may_not(
    players: int,
    store: StoreConfig,
    server: ServerThread,
    client: GameClient,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    """Games until the deal has passed round the table at least once in all (a game of pool 2
    may end after one deal)."""
    app = open_app(store)
    rng = random.Random(f"seats-{players}")
    tally = Tally()
    for _ in range(MAX_GAMES):
        play_and_check(client, app, players, rng, tally)
        if tally.deals >= players and (players != 2 or tally.dummy_shown):
            break
    assert tally.deals >= players
    if players == 2:  # nobody sits out; the dummy is no seat (RULES.md §3.6)
        assert not tally.sat_out and tally.auction_views and tally.dummy_positions
        assert tally.dummy_shown  # opened by the rules, and then only (checked above)
    else:
        assert tally.sat_out and tally.auction_views > tally.sat_out  # sitters and hands seen


def test_rules_3_6_two_seats_with_every_two_player_option_show_no_seat_a_hidden_card(
    store: StoreConfig,
    server: ServerThread,
    client: GameClient,
    open_app: Callable[[StoreConfig], PreferansApplication],
) -> None:
    """Two players with the retracted pass, "с вареником" (the gift seen by both players only,
    the dealer's discard by him only), the whist on own cards and the dummy at the second hand:
    every view and streamed message is checked as above."""
    options: dict[str, object] = {
        "duo_all_pass": DuoAllPass.VARENIK,
        "duo_retract_pass": True,
        "duo_whist_own_cards": True,
        "duo_dummy_hand": 2,
    }
    app = open_app(store)
    rng = random.Random("seats-2-options")
    tally = Tally()
    for _ in range(MAX_GAMES):
        play_and_check(client, app, 2, rng, tally, options)
        if tally.deals >= 4 and tally.dummy_shown:
            break
    assert tally.deals >= 4 and tally.dummy_shown and not tally.sat_out


def test_seat_numbers_are_checked_against_the_tables_seats(server: ServerThread) -> None:
    """A four-seat game: CreateGame wants four players, seat 3 is a seat and seat 4 is not."""
    client = GameClient(server.address)
    try:
        four = DEFAULT.with_options(players=4)
        wrong = refused(client.create_game, NAMES[:3], four)
        assert wrong.code is grpc.StatusCode.INVALID_ARGUMENT and wrong.fields == ["players"]
        assert "needs exactly 4 players" in wrong.message
        assert refused(client.create_game, NAMES[:4]).fields == ["players"]  # default: three
        secret = "s" * 32
        request_id = uuid.uuid4().hex
        created = client.create_game(NAMES[:4], four, request_id=request_id, creator_secret=secret)
        name = created.game.name
        last: SeatClient = client.seat(name, created.seat_tokens[3])
        assert last.view().seat == 3

        def replace(seat: int) -> pb.ReplacePlayerResponse:
            request = pb.ReplacePlayerRequest(
                name=name,
                seat=seat,
                player=pb.Player(player_id="fay"),
                created_with=request_id,
                creator_secret=secret,
                request_id=uuid.uuid4().hex,
            )
            response: pb.ReplacePlayerResponse = client.stub.ReplacePlayer(request)
            return response

        far = refused(replace, 4)
        assert far.code is grpc.StatusCode.INVALID_ARGUMENT
        assert "seats are 0, 1, 2 and 3" in far.message
        done = replace(3)
        assert client.seat(name, done.seat_token).join().seat == 3
        assert refused(last.view).code is grpc.StatusCode.UNAUTHENTICATED  # the leaver's token
    finally:
        client.close()


def test_an_auditor_rules_on_a_four_seat_deal_with_a_row_per_seat(
    sqlite_only: StoreConfig, start_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AuditService.RecordRuling on a four-seat game: the adjustment has a row per seat (four),
    each with whists on the four seats; three rows are refused and record nothing."""
    monkeypatch.setenv("PREF_AUDITOR_TOKEN", AUDITOR_SECRET)
    server = start_server(sqlite_only)
    client = GameClient(server.address)
    audit = audit_pb2_grpc.AuditServiceStub(client.channel)
    auditor = (("authorization", f"Bearer auditor:{AUDITOR_SECRET}"),)
    rng = random.Random("ruling")
    try:
        created = client.create_game(NAMES[:4], DEFAULT.with_options(players=4))
        name = created.game.name
        seats = [client.seat(name, token) for token in created.seat_tokens]
        version = created.game.version
        while client.get_game(name).deal_number < 2:  # the first deal scored
            view = seats[0].view(min_version=version)
            actor = view.actor
            legal = list(seats[actor].view(min_version=version).legal)
            version = seats[actor].act(rng.choice(legal)).version

        def ruling(gora: list[int], whists: list[list[int]]) -> apb.RecordRulingRequest:
            rows = [
                pb.ScoresheetRow(seat=s, gora=g, whists=w)
                for s, (g, w) in enumerate(zip(gora, whists, strict=True))
            ]
            return apb.RecordRulingRequest(
                name=name,
                deal_number=1,
                reason="a revoke",
                adjustment=rows,
                request_id=uuid.uuid4().hex,
            )

        three = ruling([1, 0, -1], [[0, 2, 0], [0, 0, 0], [0, 0, 0]])
        wrong = refused(audit.RecordRuling, three, metadata=auditor)
        assert wrong.code is grpc.StatusCode.INVALID_ARGUMENT and wrong.fields == ["adjustment"]
        assert client.get_game(name).version == version
        before = client.scoresheet(name, min_version=version).totals
        gora = [0, 2, 0, -2]
        whists = [[0, 0, 0, 3], [0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]]
        ruled = audit.RecordRuling(ruling(gora, whists), metadata=auditor)
        assert ruled.version == version + 1
        after = ruled.scoresheet.totals
        assert [a.gora - b.gora for a, b in zip(after, before, strict=True)] == gora
        assert [
            [x - y for x, y in zip(a.whists, b.whists, strict=True)]
            for a, b in zip(after, before, strict=True)
        ] == whists
    finally:
        client.close()
