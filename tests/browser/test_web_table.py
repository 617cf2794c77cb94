"""The web table in a real browser (issue 15 item 3).

A real ``pref serve`` (development issuer, auditor credential, the Connect port serving the
built page of ``clients/web/dist``) and Debian's chromium driven by playwright-core
(``tests/browser/play.mjs``, Node.js): sign in, create a three-seat table filled with two bots,
play the whole first deal by clicking the page's legal actions, drop the live stream (alone, and
with the browser offline) and see the page reconnect by itself, step the replay viewer forward
and back, and open a league's leaderboard. Then, from the game's unredacted event log read with
the auditor credential, no DOM snapshot and no Connect message the page received named a card
its seat could not see at that moment (``tests/browser/hidden.py``).

Screenshots go to ``artifacts/screenshots/<store>/`` (gitignored; CI keeps the folder).

Skipped when chromium (``/usr/bin/chromium``, or ``$PREF_CHROMIUM``) or Node.js/npm is missing,
unless ``PREF_REQUIRE_BROWSER=1`` (``.ci/run`` sets it): then that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from service.gen.preferans.v1 import audit_pb2 as apb
from service.gen.preferans.v1 import audit_pb2_grpc, game_pb2, game_pb2_grpc
from tests.browser.hidden import check_dom, check_network, response_messages, truth_from_log
from tests.e2e.conftest import ServeProcess, free_port, postgres_schema

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
WEB = REPO / "clients" / "web"
SCREENSHOTS = REPO / "artifacts" / "screenshots"
CHROMIUM = os.environ.get("PREF_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("PREF_REQUIRE_BROWSER") == "1"
SECRET = "browser-test-auditor-secret"
AUDITOR = (("authorization", f"Bearer auditor:{SECRET}"),)
PLAYER = "browser-ann"
LEAGUE = "browser-league"
LEAGUE_PLAYERS = ["lea", "leo", "lin"]
NODE_TIMEOUT = 420.0


def need(condition: object, why: str) -> None:
    if condition:
        return
    if REQUIRED:
        pytest.fail(f"{why} (PREF_REQUIRE_BROWSER=1 asks for the browser test)")
    pytest.skip(why)


def npm(*args: str, cwd: Path) -> None:
    done = subprocess.run(
        ["npm", *args, "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"npm {' '.join(args)} in {cwd}: {done.stdout}{done.stderr}"


@pytest.fixture(scope="module")
def node() -> str:
    """Node.js, with playwright-core installed and the web table built (both once)."""
    need(os.access(CHROMIUM, os.X_OK), f"no chromium at {CHROMIUM} (apt-get install chromium)")
    node = shutil.which("node")
    need(node and shutil.which("npm"), "Node.js and npm are missing")
    assert node is not None
    need((WEB / "package.json").is_file(), "clients/web is missing")
    if not (HERE / "node_modules" / "playwright-core").is_dir():
        npm("ci", cwd=HERE)
    if not (WEB / "dist" / "index.html").is_file():
        npm("ci", cwd=WEB)
        npm("run", "build", cwd=WEB)
    return node


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "browser.sqlite")
    else:
        with postgres_schema() as url:
            yield url


def seed_league(store: str) -> None:
    """One finished game of a league, for the leaderboard to show (bots, one deal)."""
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("pref")),
            "simulate",
            "--store",
            store,
            "--games",
            "1",
            "--deals",
            "1",
            "--league",
            LEAGUE,
            "--player-ids",
            ",".join(LEAGUE_PLAYERS),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def scoresheet(address: str, game_id: str) -> game_pb2.Scoresheet:
    """The game's scoresheet now, over native gRPC."""
    with grpc.insecure_channel(address) as channel:
        games: Any = game_pb2_grpc.GameServiceStub(channel)
        answer = games.GetScoresheet(game_pb2.GetScoresheetRequest(name=f"games/{game_id}"))
    sheet: game_pb2.Scoresheet = answer.scoresheet
    return sheet


def event_log(address: str, game_id: str) -> list[apb.EventLogEntry]:
    """The game's whole event log, unredacted, with the auditor credential."""
    entries: list[apb.EventLogEntry] = []
    with grpc.insecure_channel(address) as channel:
        audit: Any = audit_pb2_grpc.AuditServiceStub(channel)
        token = ""
        while True:
            page = audit.GetEventLog(
                apb.GetEventLogRequest(name=f"games/{game_id}", page_size=1000, page_token=token),
                metadata=AUDITOR,
                timeout=30,
            )
            entries.extend(page.entries)
            token = page.next_page_token
            if not token:
                break
        verdict = audit.VerifyGame(
            apb.VerifyGameRequest(name=f"games/{game_id}"), metadata=AUDITOR, timeout=60
        )
    assert verdict.verdict == apb.AUDIT_VERDICT_VERIFIED, verdict.summary
    return entries


def wait_page(url: str, server: ServeProcess, timeout: float = 30.0) -> None:
    """Until the Connect port serves the page's index."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200 and b"<html" in answer.read().lower():
                    return
        except OSError:
            pass
        assert server.process.poll() is None, f"pref serve exited: {server.output()}"
        assert time.monotonic() < deadline, f"{url} did not serve the page: {server.output()}"
        time.sleep(0.2)


def run_browser(node: str, url: str, out: Path, shots: Path) -> dict[str, Any]:
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    done = subprocess.run(
        [node, str(HERE / "play.mjs")],
        cwd=HERE,
        env={
            **os.environ,
            "PREF_WEB_URL": url,
            "PREF_PLAYER": PLAYER,
            "PREF_LEAGUE": LEAGUE,
            "PREF_BROWSER_OUT": str(out),
            "PREF_SCREENSHOTS": str(shots),
            "PREF_CHROMIUM": CHROMIUM,
        },
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT,
    )
    assert out.is_file(), f"play.mjs wrote nothing: {done.stdout[-4000:]}{done.stderr[-4000:]}"
    result: dict[str, Any] = json.loads(out.read_text())
    assert done.returncode == 0 and result["failure"] is None, (
        f"play.mjs failed ({done.returncode}): {result['failure']}\n"
        f"{done.stdout[-4000:]}{done.stderr[-2000:]}\nscreenshots: {shots}"
    )
    return result


def request_json(capture: dict[str, Any]) -> dict[str, Any]:
    """A captured request's JSON body (a stream's single request message after its 5-byte
    envelope, which the capture holds as text)."""
    body = capture.get("requestBody") or "{}"
    found: dict[str, Any] = json.loads(body[body.index("{") :])
    return found


def steps(result: dict[str, Any], what: str) -> list[dict[str, Any]]:
    return [s for s in result["steps"] if s["what"] == what]


def test_web_table_in_chromium(node: str, store: str, tmp_path: Path) -> None:
    seed_league(store)
    connect_port = free_port()
    server = ServeProcess(
        store,
        tmp_path / "serve.log",
        extra=[
            "--dev-auth",
            "--dev-issuer-key",
            str(tmp_path / "dev-issuer.pem"),
            "--auditor-token",
            SECRET,
            "--connect-port",
            str(connect_port),
        ],
    )
    try:
        server.wait_serving()
        wait_page(f"http://127.0.0.1:{connect_port}/", server)
        kind = "postgres" if store.startswith("postgresql") else "sqlite"
        result = run_browser(
            node,
            f"http://127.0.0.1:{connect_port}/",
            tmp_path / "browser.json",
            SCREENSHOTS / kind,
        )
        entries = event_log(server.address, result["gameId"])
        sheet = scoresheet(server.address, result["gameId"])
    finally:
        server.terminate()
    truth = truth_from_log(uuid.UUID(result["gameId"]), entries, PLAYER)

    # No request of the page failed on the server's side.
    assert not [e for e in result["httpErrors"] if e["status"] >= 500], result["httpErrors"]

    # The whole first deal was played and scored.
    assert 1 in truth.scored_at, "deal 1 was not scored"
    over = steps(result, "deal 1 over")[0]
    assert over["clicks"] > 0 and over["sheetSeats"] >= 3
    # The page drew the scoresheet after it as the server keeps it: each seat's pool, gora and
    # the whists it wrote on each other seat (the game waits for the page's seat in deal 2).
    assert [d.deal_number for d in sheet.deals] == [1]
    drawn = {row["seat"]: row for row in over["sheet"]}
    for row in sheet.totals:
        whists = {str(on): w for on, w in enumerate(row.whists) if on != row.seat}
        want = {"seat": row.seat, "pool": row.pool, "gora": row.gora, "whists": whists}
        assert drawn[row.seat] == want, (drawn, sheet.totals)

    # Reconnects: after a dropped stream (alone, and with the browser offline) the page came
    # back to "live" by itself and the game went on from where it was.
    reconnects = {s["how"]: s for s in steps(result, "reconnect")}
    assert set(reconnects) == {"drop", "offline"}
    assert reconnects["offline"]["leftLive"] and reconnects["offline"]["offlineState"] in (
        "reconnecting",
        "offline",
    )
    assert all(r["after"] >= r["before"] for r in reconnects.values())
    watches = [
        n for n in result["network"] if n["method"].endswith(("/WatchGame", "/WatchGameBatches"))
    ]
    resumed = [request_json(n).get("fromVersion") for n in watches]
    assert len(watches) >= 3 and any(int(v or 0) > 0 for v in resumed[1:]), resumed
    # Each live stream resumed where the one before it stopped: across the drops the page got
    # every event of the deal once, none missed, none twice.
    live = [n for n in watches if n["method"].endswith("/WatchGame")]
    delivered = [
        message.version
        for capture in live
        for message in response_messages(capture)
        if isinstance(message, game_pb2.WatchGameResponse)
        and message.WhichOneof("event") != "heartbeat"
    ]
    first = int(request_json(live[0]).get("fromVersion") or 0)
    assert delivered == list(range(first + 1, first + 1 + len(delivered))), (resumed, delivered)
    assert delivered[-1] >= truth.scored_at[1], delivered

    # The replay viewer stepped forward and back.
    replay = steps(result, "replay")[0]
    forwards, backs = replay["forwards"], replay["backs"]
    assert forwards == sorted(set(forwards)) and forwards[0] > replay["start"]
    assert backs == sorted(set(backs), reverse=True) and backs[0] < forwards[-1]
    assert replay["end"] > backs[-1]

    # The leaderboard showed the league's players.
    board = steps(result, "leaderboard")[0]
    assert board["players"] and set(board["players"]) <= set(LEAGUE_PLAYERS), board

    # No hidden card, in the DOM or on the wire; and the checks saw the seat's cards.
    dom_violations, dom_checked = check_dom(result["dom"], truth)
    net_violations, messages, net_checked = check_network(result["network"], truth)
    problems = [str(v) for v in dom_violations + net_violations]
    assert not problems, "\n".join(problems[:40])
    hand = set(truth.hands[1][truth.seat].split())
    seen_in_dom = {c["card"] for s in result["dom"] for c in s["cards"] if "hand" in c["regions"]}
    assert hand <= seen_in_dom, f"the DOM never showed the seat's hand {sorted(hand)}"
    assert dom_checked >= 10 and messages >= 10 and net_checked >= 10

    # A card planted in a real snapshot is found: the check can fail.
    snapshot = next(s for s in result["dom"] if s["route"].startswith("#/game/") and s["cards"])
    version = int(snapshot["version"])
    other = sorted(truth.hidden_at(version) - hand)[0]
    planted = {**snapshot, "cards": [*snapshot["cards"], {"card": other, "regions": ["hand"]}]}
    assert check_dom([planted], truth)[0], f"a planted {other} went unnoticed"

    shots = sorted(p.name for p in (SCREENSHOTS / kind).glob("*.png"))
    assert {"03-table.png", "07-deal-result.png", "10-leaderboard.png"} <= set(shots), shots
