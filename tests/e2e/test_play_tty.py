"""``pref play`` in a pseudo-terminal of 80×24 (issue 16): a person plays a whole deal against
two bots through a real server, with the help screen, a held action taken back, quitting and
``--resume``, a claim the bots accept, and a flag.

The terminal is ``pexpect`` (a real pty of 24 rows and 80 columns); what it shows is rebuilt by
``pyte``, a terminal emulator, so the assertions read the screen a person would see. A screen
"fits" when its first line is still the top line at the prompt: anything longer would have
scrolled it away.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path

import pexpect
import pyte

from service.app.config import StoreConfig
from tests.e2e.conftest import ServerFactory

PREF = str(Path(sys.executable).with_name("pref"))
ROWS, COLUMNS = 24, 80
MOVE = "Your move> "
HELD = "Enter sends it> "
NEXT = "Enter: next deal; flag N why; ? help; q quits> "
OVER = "Enter: leave; flag N why disputes a deal> "
BACK = "Enter: back> "
ROW = re.compile(
    r"^[▶ ] ([ABC]) (?:\(you\) )?\S+ +(\S.*?) +\S+(?: \S+)* +(\d+) +(-?\d+) +(-?\d+) +"
    r"(?:yours ↓|open ↓|\d+ hidden|no hand|face down)$"
)


class Terminal:
    """``pref play`` in an 80×24 pty, its screen kept by a terminal emulator."""

    def __init__(self, args: list[str], home: Path) -> None:
        env = dict(os.environ, PREF_HOME=str(home), TERM="xterm-256color")
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.Stream(self.screen)
        self.child = pexpect.spawn(
            PREF,
            ["play", *args],
            env=env,
            dimensions=(ROWS, COLUMNS),
            encoding="utf-8",
            timeout=90,
        )

    def expect(self, *patterns: str) -> int:
        index: int = self.child.expect_exact(list(patterns))
        self.stream.feed(self.child.before + self.child.after)
        return index

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def lines(self) -> list[str]:
        return [row.rstrip() for row in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def top(self) -> str:
        return self.lines()[0]

    def finish(self) -> tuple[int, str]:
        """Wait for the end; the exit status and the last screen."""
        self.child.expect(pexpect.EOF)
        self.stream.feed(self.child.before)
        self.child.close()
        status: int = self.child.exitstatus
        return status, self.text()


def _fits(term: Terminal, first: str) -> None:
    assert term.top().startswith(first), term.text()


def _concession(term: Terminal) -> str | None:
    """A claim the bots must accept, if the screen shows a trick contract in play with the
    person (A) the declarer on turn and one whister: every trick left to the whister. It costs
    neither bot anything, so each accepts without a search (``domain.bots.claims``): the
    whister gets all, the passer is not scored on his tricks, and the declarer takes at least
    none. (A defender's claim never is: it may give away his partner's tricks.)"""
    text = term.text()
    if "or claim the rest" not in text or "contract: " not in text or "misère" in text:
        return None
    if "raspasy" in text or "bomb" in text:
        return None
    rows = [m for m in (ROW.match(line) for line in term.lines()) if m]
    if len(rows) != 3:
        return None
    declarer = next((m.group(1) for m in rows if "decl." in m.group(2)), None)
    whisters = [m.group(1) for m in rows if "whist" in m.group(2)]
    if declarer != "A" or len(whisters) != 1:
        return None
    left = 10 - sum(int(m.group(3)) for m in rows)
    split = [0, 0, 0]
    split["ABC".index(whisters[0])] = left
    return "claim " + "-".join(map(str, split))


def test_pref_play_in_80x24_a_whole_deal_with_help_undo_resume_and_a_claim(
    sqlite_only: StoreConfig, start_server: ServerFactory, tmp_path: Path
) -> None:
    server = start_server(sqlite_only)
    # A long pool: the game must not end before a deal offers the claim (with pool 10 one run
    # closed every pool first; the deals are the server's own shuffles).
    args = ["--server", server.address, "--pool", "40", "--bot-delay", "0", "--name", "ann"]
    term = Terminal(args, tmp_path)
    term.expect(MOVE)
    _fits(term, "Deal 1 ")
    assert "Your move:" in term.text() and "? help" in term.text()

    # The help screen, then back to the table.
    term.send("?")
    term.expect(BACK)
    _fits(term, "Playing")
    assert "held, not sent" in term.text() and "pref play --resume" in term.text()
    term.send("")
    term.expect(MOVE)
    _fits(term, "Deal 1 ")

    # A typed action is held; u takes it back before anything is sent.
    term.send("1")
    term.expect(HELD)
    assert "Held, not sent: " in term.text()
    term.send("u")
    term.expect(MOVE)
    assert "Held, not sent" not in term.text()

    # Quit in the middle of deal 1: the game waits, its tokens saved for this user only.
    term.send("q")
    code, screen = term.finish()
    assert code == 1
    flat = " ".join(screen.split())
    found = re.search(r"pref play --resume ([0-9a-f-]{36})", flat)
    assert found, screen
    game = found.group(1)
    saved = tmp_path / "games" / f"{game}.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700

    # Resume (the saved server address is used) and play deal 1 to its end and on until a
    # claim; the deal with the claim ends at once and is flagged.
    term = Terminal(["--resume", game, "--bot-delay", "0"], tmp_path)
    claimed = False
    deals_over = 0
    while True:
        index = term.expect(MOVE, NEXT, OVER)
        assert index != 2, "the game ended before a deal offered a claim: " + term.text()
        if index == 1:
            deals_over += 1
            _fits(term, "Deal ")
            assert re.match(r"Deal \d+ is over: ", term.top()), term.text()
            if claimed:
                break
            term.send("")
            continue
        _fits(term, "Deal ")
        claim = None if claimed else _concession(term)
        bid = None if claimed else re.search(r"\b(\d+)\.6♠", term.text())
        move = claim or (bid.group(1) if bid else "1")  # bid 6♠ when offered: declare
        term.send(move)
        term.expect(HELD)
        assert f"Held, not sent: {claim or ''}" in term.text()
        term.send("")
        claimed = claim is not None
        assert deals_over < 16, "no deal offered a claim"
    text = term.text()
    assert text.count("accepts the claim") == 2, text
    assert deals_over >= 1  # deal 1, begun before quitting, was played to its end
    number = int(re.match(r"Deal (\d+)", term.top()).group(1))  # type: ignore[union-attr]
    assert f"flag {number} <why>" in text

    # Flag the deal just played, then leave.
    term.send(f"flag {number} the claim was too quick")
    term.expect(NEXT)
    assert f"Deal {number} is flagged" in term.text()
    term.send("q")
    code, _screen = term.finish()
    assert code == 1
