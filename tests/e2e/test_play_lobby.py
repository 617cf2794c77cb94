"""``pref play`` in the lobby (service/cli/lobby.py), over a real server with the development
issuer: ``--list`` shows the open public tables; ``--create-table`` opens one (``--fill-bots``:
the server's bots take the empty seats, ``--private``: invitation links are printed) and waits
for the others; ``--join TABLE`` and ``--invite TABLE#CODE`` take a seat; then each person plays
their own seat by JWT, people in separate "terminals" (threads with their own input and output)
playing one game together."""

from __future__ import annotations

import io
import re
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

from domain.rules.errors import InvalidAction
from service.app import devissuer
from service.cli import build_parser, main
from service.cli.lobby import parse_invitation, run_lobby, wait_for_start
from service.client import GameClient
from service.client.tables import TableClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import ServerThread, dev_token

WAIT = 60.0


class Terminal:
    """One person's ``pref play`` with their own input (always the first legal action) and
    output, run in a thread of its own."""

    def __init__(self, server: ServerThread, key: Path, name: str, *argv: str) -> None:
        self.args = build_parser().parse_args(
            ["play", "--server", server.address, "--as", name, "--dev-issuer-key", str(key), *argv]
        )
        self.console = Console(file=io.StringIO(), width=120, color_system=None)
        self.code: int | None = None
        self.client = GameClient(server.address)
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.code = run_lobby(self.args, self.client, self.console, read=lambda _: "1")
        finally:
            self.client.close()

    def start(self) -> Terminal:
        self.thread.start()
        return self

    def output(self) -> str:
        text = self.console.file.getvalue()  # type: ignore[attr-defined]
        assert isinstance(text, str)
        return text

    def wait_for(self, pattern: str) -> list[str]:
        deadline = time.monotonic() + WAIT
        while not (found := re.findall(pattern, self.output())):
            assert time.monotonic() < deadline, f"no {pattern!r} in {self.output()[-2000:]}"
            time.sleep(0.05)
        return found

    def finish(self) -> str:
        self.thread.join(10 * WAIT)
        assert not self.thread.is_alive(), "pref play did not end"
        assert self.code == 0, self.output()[-3000:]
        return self.output()


def test_pref_play_lists_the_open_public_tables(
    dev_server: ServerThread, dev_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = GameClient(dev_server.address)
    bob = TableClient(client, dev_token(dev_key, "bob"))
    control = pb.TimeControl(move_seconds=60, bank_seconds=300)
    table = bob.create_table(pb.RuleSet(name="default", pool_target=10), time_control=control)
    hidden = bob.create_table(public=False, take_seat=False).table
    client.close()
    deadline = time.monotonic() + WAIT
    while True:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("COLUMNS", "200")
            assert main(["play", "--server", dev_server.address, "--list"]) == 0
        out = capsys.readouterr().out
        if table.table.name in out or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert table.table.name in out and hidden.name not in out
    assert "60 s a move, bank 300 s" in out and "A bob · B — · C —" in out


def test_a_person_opens_a_table_for_bots_and_plays_it(
    dev_server: ServerThread, dev_key: Path
) -> None:
    argv = ["--create-table", "--pool", "1", "--fill-bots", "--move-seconds", "600"]
    ann = Terminal(dev_server, dev_key, "ann", *argv)
    out = ann.start().finish()
    assert "You opened tables/" in out and "Every seat is taken: A ann · B bot:seat1" in out
    assert "clock: you" in out and "Game over" in out


def test_three_people_meet_at_a_public_table_from_three_terminals(
    dev_server: ServerThread, dev_key: Path
) -> None:
    bob = Terminal(dev_server, dev_key, "bob", "--create-table", "--pool", "1").start()
    (table,) = bob.wait_for(r"pref play --join (tables/\S+)")
    cid = Terminal(dev_server, dev_key, "cid", "--join", table).start()
    cid.wait_for("You sit at seat B")
    ann = Terminal(dev_server, dev_key, "ann", "--join", table).start()
    for person in (bob, cid, ann):
        out = person.finish()
        assert "Every seat is taken: A bob · B cid · C ann" in out
        assert "Game over" in out and "Settlement:" in out


def test_invited_people_join_a_private_table(dev_server: ServerThread, dev_key: Path) -> None:
    ann = Terminal(dev_server, dev_key, "ann", "--create-table", "--private", "--pool", "1").start()
    links = ann.wait_for(r"pref play --invite '([^']+)'")
    assert len(links) == 2
    guests = [
        Terminal(dev_server, dev_key, name, "--invite", link).start()
        for name, link in zip(("bob", "cid"), links, strict=True)
    ]
    for person in (ann, *guests):
        assert "Game over" in person.finish()


def test_an_invitation_link_names_the_table_and_the_code() -> None:
    assert parse_invitation("tables/abc#CODE") == ("tables/abc", "CODE")
    for bad in ("tables/abc", "#CODE", "tables/abc#"):
        with pytest.raises(InvalidAction):
            parse_invitation(bad)


def test_the_lobby_needs_a_jwt(
    dev_server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PREF_TOKEN", raising=False)
        assert main(["play", "--server", dev_server.address, "--join", "tables/x"]) == 2
    assert "needs your JWT" in capsys.readouterr().out


def test_ctrl_c_while_waiting_leaves_the_table(dev_client: GameClient, dev_key: Path) -> None:
    issuer = devissuer.load({devissuer.DEV_KEY_FILE_ENV: str(dev_key)})
    bob = TableClient(dev_client, issuer.mint("bob"))
    ann = TableClient(dev_client, issuer.mint("ann"))
    table = bob.create_table().table
    joined = ann.join_table(table.name).table
    assert list(joined.player_ids) == ["bob", "ann", ""]

    def interrupted(_seconds: float) -> None:
        raise KeyboardInterrupt

    out = Console(file=io.StringIO(), width=120, color_system=None)
    with pytest.raises(KeyboardInterrupt):
        wait_for_start(ann, joined, out, sleep=interrupted)
    assert list(ann.get_table(table.name).player_ids) == ["bob", "", ""]
    assert f"You left {table.name}." in out.file.getvalue()  # type: ignore[attr-defined]
