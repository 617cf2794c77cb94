"""``pref play`` as one person among others: signed in with a JWT, the person plays their own
seat of a game where they sit, against people in other terminals or the server's bots.

The credential is a JWT (``--token``, ``$PREF_TOKEN``, or for local use ``--as NAME``, minted
with the development issuer's key as ``pref token NAME`` does); the server finds the seat from
the game's players (``JoinGame``). ``PlaySession`` (``service.cli.play``) runs the table in its
``remote`` mode: nobody else's decision is made here; while another seat decides, one line says
who and how long their clock has. The move prompt also takes ``resign`` (after a confirmation:
the server's bot takes the seat and the leaver is settled by the early-leave rule), ``adjourn``
and ``resume`` (docs/CLOCKS.md).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf.duration_pb2 import Duration
from rich.console import Console
from rich.text import Text

from domain.rules.seats import seat_name
from service.cli.botplay import game_rules
from service.cli.identity import TOKEN_ENV
from service.cli.playinput import describe_rpc_error
from service.cli.playsession import PlaySession, Reader
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb

COMMANDS = ("resign", "adjourn", "resume")


def _minutes(milliseconds: float) -> str:
    seconds = max(0, int(milliseconds // 1000))
    return f"{seconds // 60}:{seconds % 60:02d}"


def _ms(duration: Duration) -> int:
    return int(duration.ToMilliseconds())


def clock_text(clock: pb.GameClock, me: int, now: float) -> Text:
    """Each seat's time: its bank, and for the seat whose clock runs the time left until the
    deadline (``now``: seconds since the epoch): ``clock: you 0:30   B 1:15 to move (running)``."""
    out = Text("clock: ")
    for seat, bank in enumerate(clock.remaining):
        if seat:
            out.append("   ")
        label = "you" if seat == me else seat_name(seat)
        left = _ms(bank)
        running = seat == clock.seat and clock.HasField("deadline")
        if running:
            left = clock.deadline.ToMilliseconds() - int(now * 1000)
        style = "bold red" if running and left < 10_000 else ("bold" if running else "")
        out.append(f"{label} {_minutes(left)}", style=style)
        if running:
            out.append(" to move (running)")
    return out


class OnlineSession(PlaySession):
    """One person's seat of a game the others play elsewhere."""

    move_prompt = "Your move (or resign, adjourn)> "

    def __post_init__(self) -> None:
        super().__post_init__()
        self.waiting_for: tuple[int, int] = (-1, -1)
        self.resigned = False

    def _clock_line(self, view: pb.SeatView) -> None:
        if view.HasField("clock"):
            self.console.print(clock_text(view.clock, self.seat, self.clock()))
        if view.adjourned:
            self.console.print(Text("The game is adjourned: type resume to play on.", "yellow"))

    def _waiting(self, view: pb.SeatView) -> None:
        if self.waiting_for == (view.deal_number, view.actor):
            return
        self.waiting_for = (view.deal_number, view.actor)
        who = self.names[view.actor] if view.actor < len(self.names) else ""
        self.console.print(Text(f"Waiting for {seat_name(view.actor)} {who}…", "dim"))
        self._clock_line(view)

    def _person_moves(self, me: SeatClient, view: pb.SeatView) -> bool:
        self.waiting_for = (-1, -1)
        self._clock_line(view)
        return super()._person_moves(me, view)

    def _command(self, me: SeatClient, view: pb.SeatView, line: str) -> bool | None:
        word = line.strip().lower()
        if word not in COMMANDS:
            return None
        try:
            if word == "resign":
                sure = self._ask("Resign this game? [y/N]> ")
                if sure is None or sure.strip().lower() not in ("y", "yes"):
                    return True
                me.resign()
                self.resigned = True
                self.console.print(
                    "You resigned: the server's bot plays your seat on; your missing pool "
                    "points go to your gora (RULES.md §3.4)."
                )
                return False
            answer: Any = me.adjourn() if word == "adjourn" else me.resume()
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            self.console.print(Text(f"Refused by the server — {describe_rpc_error(exc)}", "red"))
            return True
        self.head = max(self.head, answer.version)
        if word == "adjourn":
            done = "the game is adjourned" if answer.adjourned else "waiting for the others"
        else:
            done = "play resumes" if not answer.adjourned else "waiting for the others"
        self.console.print(f"You agreed to {word}: {done}.")
        return True


def play_seat(
    client: GameClient,
    name: str,
    token: str,
    *,
    read: Reader,
    console: Console,
    clock: Callable[[], float] = time.time,
    clear: bool = False,
    confirm: bool = False,
) -> int:
    """Play the seat ``token`` (a JWT, or a seat token) holds at game ``name`` until the game
    is over or the person resigns (0), quits (1) or the server refuses (2). With ``confirm``
    each typed action is held until Enter (``u`` takes it back; the clock runs meanwhile)."""
    name = name if name.startswith("games/") else f"games/{name}"
    me = client.seat(name, token)
    try:
        joined = me.join()
    except grpc.RpcError as exc:
        console.print(Text(f"Cannot play at {name}: {describe_rpc_error(exc)}", "red"))
        return 2
    game = joined.game
    session = OnlineSession(
        client,
        name,
        [token],
        joined.seat,
        console,
        read,
        names=[p.player_id for p in game.players],
        pool_target=game.rules.pool_target,
        clear=clear,
        rules=game_rules(game),
        clock=clock,
        remote=True,
        confirm=confirm,
    )
    console.print(
        f"You sit at seat {seat_name(joined.seat)} of {name} as {joined.player.player_id}."
    )
    stream = me.watch_updates(from_version=0)
    try:
        finished = session.run(stream)
    except grpc.RpcError as exc:
        if session.resigned:
            return 0
        console.print(Text(f"The server ended the game for you: {describe_rpc_error(exc)}", "red"))
        return 2
    finally:
        stream.cancel()
    if session.resigned:
        return 0
    if not finished:
        console.print(f"You left the game {name}; it goes on (your clock runs). Bye!")
        return 1
    return 0


def jwt_of(args: argparse.Namespace) -> str | None:
    """The person's JWT: ``--token``, ``$PREF_TOKEN``, or ``--as NAME`` minted with the
    development issuer's key (``pref token NAME``; for local play against ``--dev-auth``)."""
    if getattr(args, "token", None):
        return str(args.token)
    if getattr(args, "as_player", None):
        from service.cli.identity import mint_dev_token

        return mint_dev_token(args, args.as_player)
    return os.environ.get(TOKEN_ENV) or None


def run_online(args: argparse.Namespace, client: GameClient, console: Console) -> int | None:
    """``pref play`` with ``--game``: ``None`` when no such option was given."""
    if not args.game:
        return None
    token = jwt_of(args)
    if token is None:
        console.print(Text(f"--game needs your JWT: --token, ${TOKEN_ENV} or --as NAME", "red"))
        return 2
    return play_seat(
        client,
        args.game,
        token,
        read=console.input,
        console=console,
        clear=console.is_terminal,
        confirm=held_actions(args, console),
    )


def held_actions(args: argparse.Namespace, console: Console) -> bool:
    """Whether typed actions are held until Enter: for a person at a terminal, unless
    ``--no-confirm``."""
    return console.is_terminal and not getattr(args, "no_confirm", False)
