"""``pref play`` (service/cli/play.py): the pure table renderer, the input parser and one game
played through a real gRPC server with scripted input."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from domain.rules import (
    PASS,
    Bid,
    Call,
    Card,
    Declare,
    Discard,
    InitialRounds,
    PlayCard,
    RuleSet,
    parse_action,
)
from domain.rules.start import initial_deals
from domain.rules.systems import CLASSIC
from service.api.mapping import seat_view_to_proto
from service.api.server import Server, create_server
from service.app.application import PreferansApplication
from service.app.config import sqlite_store
from service.cli import main, playstore
from service.cli.play import PlaySession, parse_choice, play_game, resume_game
from service.cli.playdraw import render_view
from service.cli.playinput import parse_command
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb

SUITS = "♠♣♦♥"
RANK = r"(?:10|[7-9JQKA])"
GROUPED = re.compile(rf"([{SUITS}])((?: {RANK})+)")
SINGLE = re.compile(rf"(?<![0-9])({RANK})([{SUITS}])")


def text_of(renderable: RenderableType, width: int = 160) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(renderable)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


def cards_shown(text: str) -> set[Card]:
    """Every card the text shows, grouped by suit (``♠ A K 9``) or alone (``10♥``)."""
    shown = {Card.parse(rank + suit) for rank, suit in SINGLE.findall(text)}
    for suit, ranks in GROUPED.findall(text):
        shown |= {Card.parse(rank + suit) for rank in ranks.split()}
    return shown


@pytest.fixture(scope="module")
def dealt_views(tmp_path_factory: pytest.TempPathFactory) -> list[pb.SeatView]:
    """The three seats' views of a real first deal (from the application, as the server sends)."""
    store = sqlite_store(str(tmp_path_factory.mktemp("views") / "events.sqlite"))
    app = PreferansApplication(store.env)
    try:
        created = app.create_game(["ann", "bob", "cid"], "render-test")
        game = app.get_game(created.game_id)
        return [seat_view_to_proto(game, seat) for seat in range(3)]
    finally:
        app.close()


# --- the renderer -------------------------------------------------------------------------


def test_render_shows_own_hand_and_hides_the_others(dealt_views: list[pb.SeatView]) -> None:
    for view in dealt_views:
        own = {Card.parse(c) for c in view.hand}
        assert len(own) == 10
        text = text_of(render_view(view, names=["ann", "bob", "cid"]))
        assert cards_shown(text) == own, text
        for other in dealt_views:
            if other.seat != view.seat:
                assert not cards_shown(text) & {Card.parse(c) for c in other.hand}
        assert "10 hidden" in text
        assert "ann" in text and "bob" in text and "cid" in text


def test_render_numbers_the_legal_actions_only_on_your_turn(
    dealt_views: list[pb.SeatView],
) -> None:
    on_turn = next(v for v in dealt_views if v.actor == v.seat)
    text = text_of(render_view(on_turn))
    assert on_turn.legal_actions[0] == "pass"
    for number, action in enumerate(on_turn.legal_actions, start=1):
        assert f"{number}.{action}" in text
    assert "Your move" in text and "q quits" in text
    waiting = next(v for v in dealt_views if v.actor != v.seat)
    assert "Your move" not in text_of(render_view(waiting))


def test_render_open_hands_trick_contract_and_scoresheet() -> None:
    view = pb.SeatView(
        name="games/x",
        seat=1,
        deal_number=3,
        dealer=2,
        phase=pb.PHASE_PLAY,
        to_act=0,
        actor=1,
        hand=["7♠", "A♥"],
        visible_hands=[pb.SeatCards(seat=0, cards=["K♦", "10♣"])],
        talon=["J♦", "9♦"],
        auction=[pb.Call(seat=0, call="pass"), pb.Call(seat=1, call="pass")],
        declarer=2,
        winning_bid="6♠",
        contract="6♣",
        whist_calls=[pb.Call(seat=0, call="pass"), pb.Call(seat=1, call="whist")],
        whisters=[1],
        open_defence=True,
        current_trick=[pb.PlayedCard(seat=2, card="Q♣")],
        last_trick=pb.Trick(
            leader=2, winner=2, cards=[pb.PlayedCard(seat=s, card=c) for s, c in ((2, "A♣"),)]
        ),
        tricks=[0, 1, 7],
        tricks_played=8,
        legal_actions=["10♣"],
    )
    sheet = pb.Scoresheet(
        totals=[pb.ScoresheetRow(seat=s, pool=s, gora=10 * s, whists=[0, 4, 0]) for s in range(3)]
    )
    text = text_of(render_view(view, sheet, pool_target=20))
    assert cards_shown(text) == {Card.parse(c) for c in ("7♠", "A♥", "K♦", "10♣", "J♦", "9♦")} | {
        Card.parse("Q♣"),
        Card.parse("A♣"),
    }
    assert "open ↓" in text and "A's hand — you play it" in text
    assert "C plays 6♣" in text and "defence: open" in text
    assert "pool to 20" in text
    # Each seat's row shows its pool and gora (the whists are on the ``sheet`` screen).
    assert re.search(r"C bot +H3 dealer decl\. .* 7 +2 +20 ", text), text
    assert "1.10♣" in text


# --- input --------------------------------------------------------------------------------


def test_parse_choice_numbers_pick_from_the_legal_actions() -> None:
    legal = ["pass", "misère", "6♠"]
    assert parse_choice("1", legal).action == PASS
    assert parse_choice(" 3 ", legal).action == parse_action("6♠")
    assert parse_choice("0", legal).error == "choose a number from 1 to 3"
    assert parse_choice("4", legal).error == "choose a number from 1 to 3"
    assert parse_choice("1", []).error


def test_parse_choice_reads_notation_and_ascii() -> None:
    assert parse_choice("6♠", []).action == parse_action("6♠")
    assert parse_choice("6s", []).action == parse_action("6♠")
    assert parse_choice("7NT", []).action == parse_action("7NT")
    assert isinstance(parse_choice("misere", []).action, Call)
    assert parse_choice("Pass", []).action == PASS
    # During play a card is a card; in the auction "10♥" is the bid.
    assert parse_choice("10♥", [], in_play=True).action == PlayCard(Card.parse("10♥"))
    assert parse_choice("Th", [], in_play=True).action == PlayCard(Card.parse("10♥"))
    assert isinstance(parse_choice("10♥", []).action, Call)
    discard = Discard((Card.parse("7♣"), Card.parse("8♦")))
    assert parse_choice("discard 7c 8d", []).action == discard
    assert parse_choice("7♣ 8♦", ["discard 7♣ 8♦"]).action == discard
    # While naming the contract a bare bid means "declare".
    assert parse_choice("7c", ["declare 6♠", "declare 7♣"]).action == Declare(Bid.parse("7♣"))


def test_parse_choice_quit_and_errors() -> None:
    assert parse_choice("q", ["pass"]).quit
    assert parse_choice("QUIT", ["pass"]).quit
    empty = parse_choice("   ", ["pass"])
    assert empty.action is None and empty.error
    nonsense = parse_choice("bananas", ["pass"])
    assert nonsense.action is None and "not an action" in nonsense.error


@pytest.mark.parametrize("text", ["²", "٣", "9" * 5000, "9" * 40])
def test_parse_choice_refuses_digits_int_cannot_read_or_a_huge_number(text: str) -> None:
    # str.isdigit() is true of a superscript two and of 4,301 digits and more, but int() raises
    # on them (the reviewer's rev-a item 2): the person gets an error and the prompt again.
    choice = parse_choice(text, ["pass", "6♠"])
    assert choice.action is None and choice.error and not choice.quit


@pytest.mark.parametrize("text", ["flag ² wrong count", "flag 99999999999 why", "flag 0 why"])
def test_flag_refuses_a_deal_number_that_is_not_a_deal(text: str) -> None:
    command = parse_command(text)
    assert command is not None and command.error


@pytest.mark.parametrize("bad", ["²", "9" * 5000, "flag ² why", "flag 99999999999 why"])
def test_pref_play_says_what_is_wrong_and_asks_again(server_port: int, bad: str) -> None:
    """Input that once raised ValueError at the prompt (a traceback, the game left waiting)
    gets a message and the prompt again; q then leaves as usual."""
    answers = iter([bad, "q"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers, "q")

    buffer = io.StringIO()
    console = Console(file=buffer, width=80, color_system=None, force_terminal=False)
    client = GameClient(f"127.0.0.1:{server_port}")
    try:
        code = play_game(
            client, seat=0, player="ann", pool=2, read=read, console=console, bot_delay=0
        )
    finally:
        client.close()
    assert code == 1 and len(prompts) >= 2
    assert "Traceback" not in buffer.getvalue()


# --- a whole game through a real server ---------------------------------------------------


@pytest.fixture
def server_port(tmp_path: Path) -> Iterator[int]:
    """A real gRPC server on a free port, its own asyncio loop in a background thread."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, Server] = {}

    def run() -> None:
        asyncio.set_event_loop(loop)
        store = sqlite_store(str(tmp_path / "events.sqlite"))
        holder["server"] = loop.run_until_complete(create_server(store, "127.0.0.1:0"))
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30), "the server did not start"
    server = holder["server"]
    try:
        yield server.port
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(grace=0.5), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


class _NoSeats:
    """A client whose seats are never called (the stream alone decides)."""

    def seat(self, name: str, token: str) -> None:
        return None


def test_an_aborted_game_ends_the_session() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=120, color_system=None, force_terminal=False)
    session = PlaySession(
        client=_NoSeats(),  # type: ignore[arg-type]
        name="games/x",
        tokens=["t0", "t1", "t2"],
        seat=0,
        console=console,
        read=lambda prompt: "",
        names=("ann", "bob", "cid"),
    )
    aborted = pb.WatchGameResponse(version=3, game_aborted=pb.GameAbortedEvent(seat=2))
    assert session.run(iter([aborted]))
    assert "cid aborted the game: nothing is settled" in buffer.getvalue()


def test_a_person_plays_a_whole_game_against_two_bots(server_port: int) -> None:
    answers = iter(["bananas", "10NT"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers, "1")  # then always the first legal action (or Enter)

    buffer = io.StringIO()
    console = Console(file=buffer, width=120, color_system=None, force_terminal=False)
    client = GameClient(f"127.0.0.1:{server_port}")
    try:
        code = play_game(
            client, seat=1, player="ann", pool=2, read=read, console=console, bot_delay=0
        )
    finally:
        client.close()
    out = buffer.getvalue()
    assert code == 0, out[-3000:]
    assert "Game over" in out and "Settlement:" in out
    settlement = re.search(r"Settlement: (.*)", out)
    assert settlement is not None and "B ann" in settlement.group(1)
    # A typo is answered locally; an illegal bid is refused by the server with its reason.
    assert "is not an action" in out
    assert "Refused by the server — FAILED_PRECONDITION" in out
    assert "is over" in out and "To dispute this deal type: flag 1 <why>" in out
    assert "Your move> " in prompts


# --- Classic (issue 12): look, bombs, dark bids, the order, time ---------------------------


def _classic_session(
    port: int, seat: int, rules: RuleSet, answers: dict[str, list[str]], deals: int
) -> tuple[int, str, list[str]]:
    """One Classic game at ``seat`` with scripted input: a prompt starting with a key of
    ``answers`` gets that key's answers in turn (the last one again and again), any other
    prompt the first legal action (or Enter)."""
    prompts: list[str] = []
    queues = {key: list(values) for key, values in answers.items()}

    def read(prompt: str) -> str:
        prompts.append(prompt)
        for key, queue in queues.items():
            if prompt.startswith(key):
                return queue.pop(0) if len(queue) > 1 else queue[0]
        return "1"

    buffer = io.StringIO()
    console = Console(file=buffer, width=120, color_system=None, force_terminal=False)
    client = GameClient(f"127.0.0.1:{port}")
    try:
        code = play_game(
            client,
            seat=seat,
            player="ann",
            rules=rules,
            read=read,
            console=console,
            bot_delay=0,
            time_deals=deals,
        )
    finally:
        client.close()
    return code, buffer.getvalue(), prompts


def test_a_person_plays_classic_bomb_rounds_look_and_dark_calls_to_time(
    server_port: int,
) -> None:
    """S000 КЛАССИКА: the three bomb rounds, then every deal starts face down: the person's
    first legal action is "look", then "bomb" (or a dark pass once a game is declared) and the
    dark bids are offered; after the order the client (the game's creator) calls time after
    ``--deals``."""
    defaults = {"Pool length": [""], "Play for how many minutes": [""]}  # Enter: defaults
    code, out, prompts = _classic_session(server_port, 0, CLASSIC, defaults, deals=1)
    assert code == 0, out[-3000:]
    for level in ("single", "double", "triple"):
        assert f"{level} bomb (A B C)" in out
    assert "face down: you have not looked at your cards" in out
    offered = [line for line in out.splitlines() if "1.look" in line]
    # "bomb" while nobody has declared a game, else a dark pass; and the dark calls.
    assert offered and all(
        ("2.bomb" in line or "2.pass" in line) and " dark" in line for line in offered
    ), offered
    assert "A: looks at his cards" in out
    assert re.search(r"[ABC] ordered: pool to 20, until \d{4}-\d\d-\d\d \d\d:\d\d UTC", out)
    assert "Game over" in out and f"{initial_deals(CLASSIC) + 1} deals played." in out
    assert "bombs" in out  # the scoresheet's column of bomb signs
    assert "Your move> " in prompts


def test_a_person_with_the_largest_gora_orders_the_game(server_port: int) -> None:
    """The simplified start (equal gora, S000 "упрощенный вариант"): the first hand orders;
    draw games until the person sits there (each game's first dealer comes from its fresh
    seed). A word for the pool is refused locally, a pool of 0 by the server (field pool)."""
    rules = CLASSIC.with_options(
        initial_rounds=InitialRounds.GORA, initial_levels=0, initial_gora=10
    )
    answers = {"Pool length": ["bananas", "0", "30"], "Play for how many minutes": ["90"]}
    for _attempt in range(24):
        code, out, prompts = _classic_session(server_port, 1, rules, answers, deals=1)
        assert code == 0, out[-3000:]
        if "Order the game" in out:
            break
    assert "You have the largest gora: order the game" in out
    assert "type a whole number" in out
    assert "Refused by the server — INVALID_ARGUMENT" in out and "pool" in out
    assert "Play for how many minutes [60]> " in prompts
    assert re.search(r"B ordered: pool to 30, until \d{4}-\d\d-\d\d \d\d:\d\d UTC", out)
    assert "Game over" in out and "1 deals played." in out


def test_pref_bots_classic_orders_and_calls_time(
    server_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bots", "--server", f"127.0.0.1:{server_port}", "--system", "classic"]
    assert main([*argv, "--deals", "1"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps the line
    deals = initial_deals(CLASSIC) + 1
    assert re.search(rf"{deals} deals, ordered by seat \d: pool to 20, time called", out), out


def test_a_robber_orders_obligatory_games_at_the_prompt(server_port: int) -> None:
    """S000 "Разбойник" (l.657): under ``robber`` the person who orders is also asked for the
    obligatory games; what cannot be read is refused locally, a count above 5 by the server;
    the order line and the sheet's column show them."""
    rules = CLASSIC.with_options(
        initial_rounds=InitialRounds.GORA, initial_levels=0, initial_gora=10, robber=True
    )
    answers = {
        "Pool length": ["30"],
        "Play for how many minutes": ["90"],
        "Obligatory games": ["bananas", "nine 9", "misere 1, ten 1, nine 2, eight 3"],
    }
    for _attempt in range(24):
        code, out, prompts = _classic_session(server_port, 1, rules, answers, deals=1)
        assert code == 0, out[-3000:]
        if "Order the game" in out:
            break
    flat = " ".join(out.split())  # rich wraps the lines
    assert "write each obligatory game as a contract and a count" in flat
    assert (
        "Refused by the server — INVALID_ARGUMENT: an obligatory game may be imposed 0 to 5" in flat
    )
    assert "each must declare misere ×1, ten ×1, nine ×2, eight ×3" in flat
    assert "robber: owes" in flat
    assert any(p.startswith("Obligatory games") for p in prompts)


# --- two players ("гусарик", RULES.md §3.6; issue 13) -------------------------------------


def test_rules_3_6_a_person_plays_a_whole_two_player_game_against_a_bot(server_port: int) -> None:
    """``pref play --players 2``: two seats (the person and one bot); the dummy is shown as the
    dummy, never as a third player; the sheet and the settlement have two columns."""
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return "1"  # always the first legal action (or Enter)

    buffer = io.StringIO()
    console = Console(file=buffer, width=140, color_system=None, force_terminal=False)
    client = GameClient(f"127.0.0.1:{server_port}")
    try:
        code = play_game(
            client,
            seat=0,
            player="ann",
            rules=RuleSet(players=2, pool_target=2),
            read=read,
            console=console,
            bot_delay=0,
        )
    finally:
        client.close()
    out = buffer.getvalue()
    assert code == 0, out[-3000:]
    assert "Game over" in out and "Settlement:" in out
    settlement = re.search(r"Settlement: (.*)", out)
    assert settlement is not None and "A ann" in settlement.group(1)
    assert "C " not in settlement.group(1)
    assert "Dummy" in out
    assert "Your move> " in prompts


def test_rules_3_6_pref_bots_and_demo_play_two_player_games(
    server_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bots", "--server", f"127.0.0.1:{server_port}", "--players", "2", "--pool", "4"]
    assert main([*argv, "--games", "2"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    # Names and decimals (issue 16): "settlement bot-0-0 +6.67, bot-0-1 -6.67".
    found = re.findall(
        r"settlement bot-\d-0 [+-]\d+(?:\.\d\d)?, bot-\d-1 [+-]\d+(?:\.\d\d)? ", out + " "
    )
    assert len(found) == 2, out
    assert main(["demo", "--players", "2", "--pool", "4", "--seed", "duo"]) == 0
    demo = capsys.readouterr().out
    assert "Dummy:" in demo and "the results sum to 0" in demo
    assert "whists on C" not in demo


def test_a_game_left_with_q_resumes_and_refused_tokens_are_renewed(
    server_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``q`` leaves a game that waits (its tokens saved); ``resume_game`` sits the person down
    again. Saved tokens the server refuses (as expired ones are) are renewed with the saved
    creator credential: the game's creation retried returns fresh tokens (docs/CLIENTS.md)."""
    monkeypatch.setenv("PREF_HOME", str(tmp_path))
    buffer = io.StringIO()
    console = Console(file=buffer, width=120, color_system=None, force_terminal=False)
    address = f"127.0.0.1:{server_port}"
    client = GameClient(address)
    try:
        code = play_game(
            client,
            seat=0,
            player="ann",
            pool=2,
            read=lambda prompt: "q",
            console=console,
            bot_delay=0,
            server=address,
        )
        assert code == 1
        game_id = re.search(r"pref play --resume ([0-9a-f-]{36})", buffer.getvalue())
        assert game_id is not None, buffer.getvalue()
        saved = playstore.load(game_id.group(1))
        assert saved.server == address and saved.names[0] == "ann"
        before = client.get_game(saved.game).version
        broken = dataclasses.replace(saved, tokens=["not-a-token"] * 3)
        playstore.save(broken)

        prompts: list[str] = []

        def read(prompt: str) -> str:
            prompts.append(prompt)
            return "1" if len(prompts) < 4 else "q"  # three decisions, then leave again

        code = resume_game(
            client, playstore.load(game_id.group(1)), read=read, console=console, bot_delay=0
        )
        assert code == 1
        out = buffer.getvalue()
        assert "The saved seat tokens were refused: renewed" in out
        renewed = playstore.load(game_id.group(1))
        assert renewed.tokens != broken.tokens and len(renewed.tokens) == 3
        assert client.get_game(saved.game).version > before  # play went on after the resume
        assert out.count("pref play --resume") == 2
    finally:
        client.close()
