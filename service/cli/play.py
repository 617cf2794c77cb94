"""``pref play``: a person plays a whole game in the terminal against bots, through the server.

The game is created through the gRPC API; the person keeps their own seat token and bots play
the other seats (two to four: ``rules.players``, RULES.md §3.6) in this process, each from its
own seat's view (as ``service.cli.botplay``). ``service.cli.playsession`` runs the table; the
screens are ``service.cli.playdraw`` and ``service.cli.playresult``, the person's input
``service.cli.playinput``.

Every seat token is saved locally with mode 0600 (``service.cli.playstore``), so a person who
quits comes back with ``pref play --resume GAME``: the bots need the tokens to play on, and
without them the game would wait for ever. The same tokens let the person flag a deal after the
game (``--resume`` of a finished game shows its sheet and takes ``flag N why``).
"""

from __future__ import annotations

import dataclasses
import getpass
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

import grpc
from rich.console import Console
from rich.text import Text

from domain.rules import InvalidAction, RuleSet
from domain.rules.seats import seat_name
from service.cli import playstore
from service.cli.botplay import Creator, game_rules
from service.cli.common import client_for
from service.cli.playinput import describe_rpc_error, parse_choice
from service.cli.playsession import PlaySession, Reader
from service.cli.rules import rules_from_args
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb

DEFAULT_SERVER = "127.0.0.1:50051"


def _names_for(player: str, count: int, seat: int) -> list[str]:
    bots = [f"bot-{seat_name(s)}" for s in range(count)]
    players = [player if s == seat else bots[s] for s in range(count)]
    if player in bots:
        players = [player if s == seat else f"{bots[s]}-bot" for s in range(count)]
    return players


def play_game(
    client: GameClient,
    *,
    seat: int = 0,
    player: str = "you",
    pool: int = 0,
    rules: RuleSet | None = None,
    read: Reader,
    console: Console,
    bot_delay: float = 0.4,
    sleep: Callable[[float], None] = time.sleep,
    clear: bool = False,
    time_deals: int = 0,
    clock: Callable[[], float] = time.time,
    confirm: bool = False,
    server: str = "",
) -> int:
    """Create a game on the server and play it: 0 when it is over, 1 if the person quit.
    ``rules`` (default: the server's default rule set, with ``pool`` as its pool target if
    given) are the table's conventions. A game played until time (Classic) ends at its
    ordered end time, or with ``time_deals`` after that many deals of the ordered pool (this
    client, the game's creator, calls time). With ``server`` (its address) the seat tokens are
    saved (``service.cli.playstore``) for ``pref play --resume``."""
    if rules is None and pool:
        rules = RuleSet(pool_target=pool)
    count = 3 if rules is None else rules.players
    if not 0 <= seat < count:
        raise InvalidAction(f"--seat {seat}: the seats are 0 to {count - 1}", "--seat")
    players = _names_for(player, count, seat)
    creator = Creator(uuid.uuid4().hex, secrets.token_hex(16))
    created = client.create_game(
        players, rules, request_id=creator.request_id, creator_secret=creator.secret
    )
    name = created.game.name
    pool_target = created.game.rules.pool_target or pool
    saved = ""
    if server:
        record = playstore.SavedGame(
            server=server,
            game=name,
            seat=seat,
            tokens=list(created.seat_tokens),
            names=players,
            pool_target=pool_target,
            time_deals=time_deals,
            creator={"request_id": creator.request_id, "secret": creator.secret},
        )
        saved = str(playstore.save(record))
    session = PlaySession(
        client,
        name,
        list(created.seat_tokens),
        seat,
        console,
        read,
        names=players,
        pool_target=pool_target,
        bot_delay=bot_delay,
        sleep=sleep,
        clear=clear,
        rules=game_rules(created.game),
        creator=creator,
        time_deals=time_deals,
        clock=clock,
        confirm=confirm,
        saved=saved,
    )
    session.head = created.game.version
    return _play(session)


def _play(session: PlaySession) -> int:
    """Run the session from the game's first event; 0 when the game is over, 1 on quitting."""
    stream = session.seats[session.seat].watch_updates(from_version=0)
    try:
        finished = session.run(stream)
    finally:
        cancel = getattr(stream, "cancel", None)
        if cancel is not None:
            cancel()
    game_id = session.name.removeprefix("games/")
    if not finished:
        session.console.print(f"You left the game {session.name}: it waits for you.")
        if session.saved:
            session.console.print(
                f"Resume it with: pref play --resume {game_id}\n"
                f"(the seat tokens are saved in {session.saved}, readable by you only)"
            )
        return 1
    if session.saved:
        session._between_deals("Enter: leave; flag N why disputes a deal> ")
    return 0


def resume_game(
    client: GameClient,
    saved: playstore.SavedGame,
    *,
    read: Reader,
    console: Console,
    bot_delay: float = 0.4,
    clear: bool = False,
    confirm: bool = False,
) -> int:
    """Sit down again at a game ``pref play`` started (``--resume``): the bots play on with the
    saved tokens; a finished game shows its final sheet (and deals may still be flagged).
    Tokens that no longer work (expired: ``PREF_TOKEN_MAX_AGE``) are renewed with the saved
    creator credential (a retried ``CreateGame`` returns fresh ones) and saved again."""
    game = client.get_game(saved.game)
    saved = _renewed(client, saved, game, console)
    session = PlaySession(
        client,
        saved.game,
        saved.tokens,
        saved.seat,
        console,
        read,
        names=saved.names,
        pool_target=saved.pool_target or game.rules.pool_target,
        bot_delay=bot_delay,
        clear=clear,
        rules=game_rules(game),
        creator=saved.creator_credential(),
        time_deals=saved.time_deals,
        confirm=confirm,
        saved=str(playstore.path_of(saved.game)),
        replayed_to=game.version,
    )
    session.head = game.version
    return _play(session)


def _renewed(
    client: GameClient, saved: playstore.SavedGame, game: pb.Game, console: Console
) -> playstore.SavedGame:
    """``saved``, with fresh seat tokens if its own are refused and it holds the creator's
    credential (the game's creation retried: the same players, rules, request id, secret)."""
    creator = saved.creator_credential()
    try:
        client.seat(saved.game, saved.tokens[saved.seat]).view()
        return saved
    except grpc.RpcError as exc:
        refused = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
        if exc.code() not in refused or creator is None:
            raise
    created = client.create_game(
        saved.names,
        game_rules(game),
        request_id=creator.request_id,
        creator_secret=creator.secret,
    )
    renewed = dataclasses.replace(saved, tokens=list(created.seat_tokens))
    path = playstore.save(renewed)
    console.print(f"The saved seat tokens were refused: renewed, and saved in {path}.")
    return renewed


def run(args: Any) -> int:
    """``pref play``: the command-line entry point."""
    from service.cli.online import held_actions, run_online

    console = Console()
    player = args.name or _default_name()
    confirm = held_actions(args, console)
    resume = getattr(args, "resume", None)
    saved = None
    if resume:
        try:
            saved = playstore.load(resume)
        except playstore.SavedGameError as exc:
            console.print(Text(str(exc), "red"))
            return 2
        if args.server == DEFAULT_SERVER:
            args.server = saved.server
    client = client_for(args)
    try:
        if saved is not None:
            return resume_game(
                client,
                saved,
                read=console.input,
                console=console,
                bot_delay=args.bot_delay,
                clear=console.is_terminal,
                confirm=confirm,
            )
        online = run_online(args, client, console)
        if online is None:
            from service.cli.lobby import run_lobby

            online = run_lobby(args, client, console)
        if online is not None:
            return online
        return play_game(
            client,
            seat=args.seat,
            player=player,
            rules=rules_from_args(args),
            read=console.input,
            console=console,
            bot_delay=args.bot_delay,
            clear=console.is_terminal,
            time_deals=args.deals,
            confirm=confirm,
            server=args.server,
        )
    except grpc.RpcError as exc:
        console.print(Text(f"The server at {args.server} failed: {describe_rpc_error(exc)}", "red"))
        return 2
    except KeyboardInterrupt:
        console.print("Interrupted. Bye!")
        return 130
    finally:
        client.close()


def _default_name() -> str:
    try:
        return getpass.getuser() or "player"
    except (KeyError, OSError):
        return "player"


__all__ = ["PlaySession", "Reader", "parse_choice", "play_game", "resume_game", "run"]
