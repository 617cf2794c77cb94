"""``pref play`` as one person among others (service/cli/online.py): signed in with a JWT of the
development issuer, the person plays their own seat of a game where they sit while the server's
bots (or people in other terminals) play the others; the clock is shown, and resignation and
adjournment are commands of the move prompt."""

from __future__ import annotations

import io
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from domain.model.terms import bot_player_id
from domain.rules import DEFAULT
from service.api.mapping import rules_to_proto
from service.cli import main
from service.cli.online import clock_text, play_seat
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread, dev_token


def create(client: GameClient, control: pb.TimeControl | None = None) -> pb.Game:
    """ann at seat 0; the server's bots at seats 1 and 2."""
    request = pb.CreateGameRequest(
        players=[pb.Player(player_id=p) for p in ("ann", bot_player_id(1), bot_player_id(2))],
        rules=rules_to_proto(DEFAULT.with_options(pool_target=2)),
        request_id=uuid.uuid4().hex,
        creator_secret="s" * 32,
        bot_seats=[1, 2],
        time_control=control,
    )
    response: pb.CreateGameResponse = client.stub.CreateGame(request)
    return response.game


def scripted(answers: list[str]) -> tuple[list[str], Callable[[str], str]]:
    prompts: list[str] = []
    queue = list(answers)

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return queue.pop(0) if queue else "1"

    return prompts, read


def console() -> Console:
    return Console(file=io.StringIO(), width=120, color_system=None, force_terminal=False)


def output(out: Console) -> str:
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


def test_a_person_plays_their_seat_by_jwt_against_the_servers_bots(
    dev_client: GameClient, dev_key: Path
) -> None:
    game = create(dev_client, pb.TimeControl(move_seconds=600))
    prompts, read = scripted(["bananas"])
    out = console()
    code = play_seat(dev_client, game.name, dev_token(dev_key, "ann"), read=read, console=out)
    text = output(out)
    assert code == 0, text[-3000:]
    assert "Game over" in text and "Settlement:" in text
    assert "is not an action" in text
    assert re.search(r"clock: you \d+:\d\d", text), text[-3000:]
    assert "Your move (or resign, adjourn)> " in prompts
    assert dev_client.get_game(game.name).status == pb.GAME_STATUS_FINISHED


def test_a_person_who_resigns_leaves_the_seat_to_the_servers_bot(
    dev_client: GameClient, dev_key: Path
) -> None:
    game = create(dev_client)
    prompts, read = scripted(["resign", "n", "resign", "y"])
    out = console()
    code = play_seat(dev_client, game.name, dev_token(dev_key, "ann"), read=read, console=out)
    text = output(out)
    assert code == 0, text[-3000:]
    assert "You resigned" in text
    assert "Resign this game? [y/N]> " in prompts
    after = dev_client.get_game(game.name)
    assert after.players[0].player_id == bot_player_id(0)


def test_a_jwt_for_a_game_where_the_player_does_not_sit_is_refused_in_words(
    dev_client: GameClient, dev_key: Path
) -> None:
    game = create(dev_client)
    out = console()
    code = play_seat(
        dev_client, game.name, dev_token(dev_key, "dan"), read=lambda _: "q", console=out
    )
    assert code == 2
    assert "PERMISSION_DENIED" in output(out)


def test_the_clock_line_counts_down_to_the_deadline() -> None:
    clock = pb.GameClock(seat=1)
    for bank in (30_000, 45_000, 0):
        clock.remaining.add().FromMilliseconds(bank)
    clock.deadline.FromMilliseconds(1_000_000 + 75_000)
    text = clock_text(clock, me=0, now=1_000.0).plain
    assert text == "clock: you 0:30   B 1:15 to move (running)   C 0:00"


def test_pref_play_mints_a_development_token_with_as(
    dev_server: ServerThread,
    dev_client: GameClient,
    dev_key: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = create(dev_client)
    argv = ["play", "--server", dev_server.address, "--game", game.name, "--as", "ann"]
    argv += ["--dev-issuer-key", str(dev_key)]
    stdin = io.StringIO("resign\ny\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdin", stdin)
        code = main(argv)
    assert code == 0, capsys.readouterr().out[-2000:]
    assert "You resigned" in capsys.readouterr().out


def test_a_person_alone_among_bots_adjourns_and_resumes_at_the_prompt(
    dev_client: GameClient, dev_key: Path
) -> None:
    game = create(dev_client, pb.TimeControl(move_seconds=600))
    _, read = scripted(["adjourn", "resume", "q"])
    out = console()
    code = play_seat(dev_client, game.name, dev_token(dev_key, "ann"), read=read, console=out)
    text = output(out)
    assert code == 1, text[-3000:]  # quit after resuming: the game goes on without her
    # The bots are not asked: her agreement adjourns the game, her request resumes it.
    assert "You agreed to adjourn: the game is adjourned." in text
    assert "The game is adjourned: type resume to play on." in text
    assert "You agreed to resume: play resumes." in text
    assert not dev_client.get_game(game.name).adjourned
