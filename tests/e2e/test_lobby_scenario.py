"""The scenario of issue 14 ("Tests that must exist and pass") end to end, over real gRPC, on
SQLite and on PostgreSQL, against one server with the development issuer (``--dev-auth``) and
its keeper on a clock the test can move forward:

1. three players, each with their own JWT of the development issuer, find a public table in the
   lobby (``ListTables``), join it, and play a whole pulya (a short pool); in that game one of
   them lets his clock run out and gets the automatic move (``TimeExpired``, then the seat's
   default move, checked by the audit), and a spectator without credential watches the whole
   game and never receives a card hidden from some seat at that moment;
2. in a second game, from a private table joined with invitations, one player resigns: his
   account is closed by the early-leave rule (RULES.md §3.4, TV-27: his missing pool points
   go to his gora), computed here from the sheet as it stood when he resigned, and the
   settlement after the pool is the one the rules give that sheet;
3. 20 players, each with their own JWT, race for the last seat of a table: exactly one gets it;
4. the old client (the frozen stubs of ``tests/e2e/old_client``) still plays a whole game there.

Every person acts only with their own JWT (``authorization: Bearer <jwt>`` in both services).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import grpc
import pytest

from domain.bots import make_bot
from domain.model.terms import bot_player_id
from service.app import devissuer
from service.app.application import PreferansApplication
from service.app.audit import verify_game
from service.app.config import StoreConfig
from service.cli.viewstate import view_from_proto
from service.client import GameClient, SeatClient
from service.client.tables import TableClient
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import table_pb2 as tpb
from tests.e2e.conftest import REPO, UNTHROTTLED, ServerFactory, ServerThread, with_dev_auth
from tests.e2e.helpers import StreamReader, message_cards, public_by_version, refused

pytestmark = pytest.mark.slow

WAIT = 60.0
"""Seconds any wait of the scenario may take before it fails."""


class KeeperClock:
    """The keeper's clock: the real one, moved forward by the test to let a seat's time run
    out without waiting for it."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@dataclass
class Person:
    """A player with their own JWT and nothing else."""

    name: str
    token: str
    client: GameClient
    lobby: TableClient = field(init=False)
    game: SeatClient | None = None
    seat: int = -1

    def __post_init__(self) -> None:
        self.lobby = TableClient(self.client, self.token)

    def sit(self, game: str, seat: int) -> None:
        self.game = self.client.seat(game, self.token)  # the JWT, not a seat token
        self.seat = seat


@dataclass
class Scenario:
    server: ServerThread
    store: StoreConfig
    clock: KeeperClock
    issuer: devissuer.DevIssuer
    client: GameClient

    def person(self, name: str) -> Person:
        return Person(name, self.issuer.mint(name), self.client)


@pytest.fixture
def scenario(store: StoreConfig, start_server: ServerFactory, tmp_path: Path) -> Iterator[Scenario]:
    key = tmp_path / "dev-issuer.pem"
    clock = KeeperClock()
    server = start_server(with_dev_auth(store, key), limits=UNTHROTTLED, keeper_clock=clock)
    client = GameClient(server.address)
    try:
        issuer = devissuer.load({devissuer.DEV_KEY_FILE_ENV: str(key)})
        yield Scenario(server, store, clock, issuer, client)
    finally:
        client.close()


def until(what: str, probe: Callable[[], object]) -> object:
    """``probe()`` until it is truthy (at most ``WAIT`` seconds)."""
    deadline = time.monotonic() + WAIT
    while not (found := probe()):
        assert time.monotonic() < deadline, f"waited in vain for {what}"
        time.sleep(0.05)
    return found


def find_in_lobby(person: Person, table: str) -> tpb.Table:
    """The table as the person finds it in the lobby (ListTables, page by page)."""

    def look() -> tpb.Table | None:
        token = ""
        while True:
            page = person.lobby.list_tables(free_seat_only=True, page_size=2, page_token=token)
            for listed in page.tables:
                if listed.name == table:
                    return listed
            token = page.next_page_token
            if not token:
                return None

    found = until(f"{table} in {person.name}'s ListTables", look)
    assert isinstance(found, tpb.Table)
    return found


def seat_three(host: Person, guests: list[Person], table: tpb.Table, codes: list[str]) -> str:
    """The guests join (with the invitation codes, if any); the game starts: its name."""
    last: tpb.JoinTableResponse | None = None
    for guest, code in zip(guests, codes or [""] * len(guests), strict=True):
        last = guest.lobby.join_table(table.name, invitation_code=code)
        assert last.seat_token  # only this player's credential comes back
        guest.sit(last.table.game, last.seat)
    assert last is not None and last.table.state == tpb.TABLE_STATE_STARTED
    assert list(last.table.player_ids) == [p.name for p in (host, *guests)]
    host.sit(last.table.game, 0)
    return last.table.game


def play(
    client: GameClient,
    game: str,
    people: list[Person],
    *,
    stop: Callable[[pb.Game], bool] = lambda g: g.status == pb.GAME_STATUS_FINISHED,
    skip: Callable[[Person, pb.SeatView], bool] = lambda person, view: False,
) -> pb.Game:
    """The people play their seats (a bot's policy on each one's own view, with its own JWT);
    the server's bots play theirs. ``skip(person, view)`` may take a person's turn instead."""
    bots = {p.name: make_bot() for p in people}
    version = 0
    deadline = time.monotonic() + 10 * WAIT
    while True:
        assert time.monotonic() < deadline, "the game did not end"
        state = client.get_game(game)
        if stop(state):
            return state
        version = max(version, state.version)
        assert people[0].game is not None
        first = people[0].game.view(min_version=version)
        person = next((p for p in people if p.seat == first.actor), None)
        if person is None or person.game is None:  # a bot's turn, or between deals
            time.sleep(0.02)
            continue
        view = first if person is people[0] else person.game.view(min_version=version)
        if view.actor != person.seat or not view.legal_actions:
            continue
        if not skip(person, view):
            version = person.game.act(bots[person.name](view_from_proto(view))).version


def test_three_players_with_jwts_meet_in_the_lobby_and_play_a_pulya_with_a_time_out(
    scenario: Scenario, open_app: Callable[[StoreConfig], PreferansApplication]
) -> None:
    ann, bob, cid = (scenario.person(n) for n in ("ann", "bob", "cid"))
    opened = ann.lobby.create_table(
        pb.RuleSet(name="default", pool_target=2),
        time_control=pb.TimeControl(move_seconds=600),
    )
    assert opened.seat == 0 and opened.table.state == tpb.TABLE_STATE_OPEN
    for guest in (bob, cid):
        listed = find_in_lobby(guest, opened.table.name)
        assert listed.creator == "ann" and listed.time_control.move_seconds == 600
    game = seat_three(ann, [bob, cid], opened.table, [])
    spectator = StreamReader(scenario.client.spectate(game))  # no credential at all

    timed_out: list[int] = []

    def let_time_run_out(person: Person, view: pb.SeatView) -> bool:
        if timed_out or person is not cid:
            return False
        state = scenario.client.get_game(game)
        assert state.clock.seat == cid.seat and state.clock.HasField("deadline")
        # The keeper's clock jumps past cid's deadline; the keeper records the time-out.
        scenario.clock.ahead = state.clock.deadline.ToMilliseconds() / 1000 - time.time() + 0.5
        until("the time-out", lambda: scenario.client.get_game(game).version >= state.version + 2)
        scenario.clock.ahead = 0.0
        timed_out.append(state.version)
        return True

    final = play(scenario.client, game, [ann, bob, cid], skip=let_time_run_out)
    assert timed_out, "cid never had a turn to let run out"
    sheet = scenario.client.scoresheet(game, min_version=final.version)
    assert len(sheet.settlement) == 3 and sum(Fraction(v) for v in sheet.settlement) == 0

    # The spectator watched the whole game: every version, never a hidden card.
    seen = list(spectator.events_until(final.version))
    spectator.close()
    assert [m.version for m in seen] == list(range(1, final.version + 1))
    app = open_app(scenario.store)
    game_id = uuid.UUID(game.removeprefix("games/"))
    public = public_by_version(app.game_events(game_id))
    for message in seen:
        leaked = message_cards(message) - public[message.version]
        assert not leaked, f"the spectator saw {leaked} at version {message.version}"
    # The time-out: TimeExpired for cid's seat, then his default move, checked by the audit.
    expired = [m for m in seen if m.HasField("time_expired")]
    assert [m.time_expired.seat for m in expired] == [cid.seat]
    move = seen[expired[0].version]  # the message after it (versions start at 1)
    assert move.HasField("action") and move.action.actor == cid.seat
    assert move.time == expired[0].time
    assert verify_game(app, game_id).verified


def test_a_player_who_resigns_is_settled_by_the_early_leave_rule(scenario: Scenario) -> None:
    ann, bob, cid = (scenario.person(n) for n in ("ann", "bob", "cid"))
    pool = 4
    opened = ann.lobby.create_table(
        pb.RuleSet(name="default", pool_target=pool), public=False, take_seat=False
    )
    # Every seat of a private table is taken with an invitation, the creator's too.
    codes = [ann.lobby.create_invitation(opened.table.name).invitation_code for _ in range(3)]
    ann.lobby.join_table(opened.table.name, codes.pop(0))
    assert not [t for t in ann.lobby.list_tables().tables if t.name == opened.table.name]
    game = seat_three(ann, [bob, cid], opened.table, codes)

    # Play until a deal has been scored and the next one is under way; then bob resigns.
    played = play(scenario.client, game, [ann, bob, cid], stop=lambda g: g.deal_number >= 2)
    assert played.status == pb.GAME_STATUS_PLAYING
    assert bob.game is not None
    before = scenario.client.scoresheet(game, min_version=played.version)
    row = {r.seat: r for r in before.totals}[bob.seat]
    bob.game.resign()
    after = scenario.client.scoresheet(game, min_version=played.version + 1)
    left = [a for a in after.accounts if a.left]
    assert [(a.player_id, a.seat) for a in left] == [("bob", bob.seat)]
    # RULES.md §3.4 (TV-27): his pool is closed at its length and the points he missed go to
    # his gora; the whists he wrote stay his.
    missing = max(0, pool - row.pool)
    assert (left[0].pool, left[0].gora) == (max(row.pool, pool), row.gora + missing)
    assert refused(bob.game.view).code in (
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
    )
    state = scenario.client.get_game(game)
    assert state.players[bob.seat].player_id == bot_player_id(bob.seat)

    # The server's bot plays his seat on; ann and cid finish the pool.
    final = play(scenario.client, game, [ann, cid])
    sheet = scenario.client.scoresheet(game, min_version=final.version)
    assert len(sheet.settlement) == 4  # ann, bob (left), cid, the bot
    assert sum(Fraction(v) for v in sheet.settlement) == 0
    leaver = next(a for a in sheet.accounts if a.left)
    assert (leaver.pool, leaver.gora) == (left[0].pool, left[0].gora)


def test_twenty_players_race_for_the_last_seat_and_one_gets_it(scenario: Scenario) -> None:
    ann, bob = scenario.person("ann"), scenario.person("bob")
    table = ann.lobby.create_table().table
    bob.lobby.join_table(table.name)
    racers = [scenario.person(f"racer-{n:02d}") for n in range(20)]
    clients = [GameClient(scenario.server.address) for _ in racers]
    start = threading.Barrier(len(racers))

    def race(which: int) -> str:
        lobby = TableClient(clients[which], racers[which].token)
        start.wait()
        try:
            joined = lobby.join_table(table.name)
        except grpc.RpcError as error:
            assert isinstance(error, grpc.Call)
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.details()
            return "refused"
        assert joined.seat == 2
        return racers[which].name

    try:
        with ThreadPoolExecutor(len(racers)) as pool:
            outcomes = list(pool.map(race, range(len(racers))))
    finally:
        for client in clients:
            client.close()
    winners = [o for o in outcomes if o != "refused"]
    assert len(winners) == 1
    started = ann.lobby.get_table(table.name)
    assert started.state == tpb.TABLE_STATE_STARTED
    assert list(started.player_ids) == ["ann", "bob", winners[0]]
    loser = next(r for r in racers if r.name != winners[0])  # the winner joining is his seat
    late = refused(loser.lobby.join_table, table.name)
    assert late.code == grpc.StatusCode.FAILED_PRECONDITION


def test_the_old_client_still_plays_on_the_lobbys_server(scenario: Scenario) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.e2e.old_client.play", scenario.server.address, "lobby"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    game = scenario.client.get_game(summary["name"])
    assert game.status == pb.GAME_STATUS_FINISHED and game.version == summary["version"]
