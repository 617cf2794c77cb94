"""``pref play`` at a table of four or five (RULES.md §3.6): every seat is drawn with its label,
the dealer without a hand "sits on the talon" (and with five the seat to his right sits out),
the sheet has a whists column for every seat, and a deal's result lists every seat's entries.
The views are built by hand in the API's shape (``SeatView``, ``Scoresheet``,
``DealScoredEvent``): the renderer draws only what the messages hold."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console, RenderableType

from domain.bots import make_bot
from domain.rules import DEFAULT, play_game
from domain.rules.seats import hand_seats
from service.cli.common import position
from service.cli.playdraw import render_view
from service.cli.playresult import render_deal_result, render_final
from service.cli.playtext import scoresheet_table, seat_count
from service.cli.referee import _adjustment
from service.cli.render import render_game
from service.cli.viewstate import view_from_proto
from service.gen.preferans.v1 import game_pb2 as pb

NAMES = ["ann", "bob", "cid", "dan", "eve"]


def text_of(renderable: RenderableType, width: int = 200) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(renderable)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


def sheet_of(players: int) -> pb.Scoresheet:
    """Totals where seat ``s`` wrote ``10 * s + t`` whists on seat ``t`` (0 on itself)."""
    return pb.Scoresheet(
        totals=[
            pb.ScoresheetRow(
                seat=s,
                pool=s,
                gora=2 * s,
                whists=[0 if t == s else 10 * s + t for t in range(players)],
            )
            for s in range(players)
        ]
    )


def bidding_view(players: int, seat: int, dealer: int) -> pb.SeatView:
    """The first call of a deal at a table of ``players``: H1 (the dealer's left) to bid."""
    h1 = (dealer + 1) % players
    return pb.SeatView(
        name="games/x",
        seat=seat,
        deal_number=1,
        dealer=dealer,
        phase=pb.PHASE_BIDDING,
        to_act=h1,
        actor=h1,
        hand=["7♠", "A♥"] if seat in {(dealer + h) % players for h in (1, 2, 3)} else [],
        talon=["", ""],
        declarer=-1,
        tricks=[0] * players,
        legal_actions=["pass", "6♠"] if seat == h1 else [],
    )


@pytest.mark.parametrize(
    ("players", "dealer", "expected"),
    [
        (3, 2, ["H1", "H2", "H3 dealer"]),
        (4, 3, ["H1", "H2", "H3", "dealer, on the talon"]),
        (4, 0, ["dealer, on the talon", "H1", "H2", "H3"]),
        (5, 4, ["H1", "H2", "H3", "sits out", "dealer, on the talon"]),
        (5, 1, ["sits out", "dealer, on the talon", "H1", "H2", "H3"]),
    ],
)
def test_positions_at_three_four_and_five_seats(
    players: int, dealer: int, expected: list[str]
) -> None:
    """§3.6: three hands a deal; with 4 the dealer sits on the talon, with 5 the player who
    dealt before him (the seat to his right) sits out too."""
    assert [position(dealer, s, players) for s in range(players)] == expected


@pytest.mark.parametrize("players", [4, 5])
def test_the_table_shows_every_seat_and_the_dealer_on_the_talon(players: int) -> None:
    """§3.6: every seat's row with its label A…E; the dealer holds no hand."""
    dealer = 0
    view = bidding_view(players, seat=1, dealer=dealer)
    assert seat_count(view) == players
    text = text_of(render_view(view, sheet_of(players), names=NAMES[:players]))
    for s in range(players):
        assert "ABCDE"[s] in text and NAMES[s] in text
        # The seat's pool and gora from the sheet (the whists are on the sheet screen).
        assert re.search(rf"{'ABCDE'[s]} (\(you\) )?{NAMES[s]} .* 0 +{s} +{2 * s} ", text), text
    assert "dealer, on the talon" in text
    assert "no hand" in text
    assert text.count("10 hidden") == 2  # the two other hands
    assert ("sits out" in text) is (players == 5)


@pytest.mark.parametrize("players", [4, 5])
def test_a_sitter_sees_that_he_holds_no_hand(players: int) -> None:
    view = bidding_view(players, seat=0, dealer=0)
    text = text_of(render_view(view, names=NAMES[:players]))
    assert "none this deal: you dealer, on the talon" in text
    assert text.count("10 hidden") == 3
    assert "Your move" not in text


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_sheet_has_a_whists_column_for_every_other_player(players: int) -> None:
    """RULES.md "Score-sheet areas": whists are written per opponent, so each row holds the
    whists on every other seat and its own cell stays blank."""
    text = text_of(scoresheet_table(sheet_of(players), NAMES[:players]))
    header = next(line for line in text.splitlines() if "on A" in line and "seat" in line)
    assert header.count("on ") == players
    for s in range(players):
        row = next(line for line in text.splitlines() if f"{'ABCDE'[s]} {NAMES[s]}" in line)
        cells = row.split("│")[4 : 4 + players]
        for t in range(players):
            assert cells[t].strip() == ("" if t == s else str(10 * s + t)), (s, t, row)


def test_a_deal_result_at_five_lists_every_seat() -> None:
    event = pb.DealScoredEvent(
        deal_number=4,
        kind="game",
        declarer=2,
        contract="6♠",
        tricks=[0, 0, 6, 2, 2],
        entries=[
            pb.ScoresheetRow(seat=s, pool=2 if s == 2 else 0, whists=[0, 0, 4 if s > 2 else 0])
            for s in range(5)
        ],
        dealt_hands=[pb.SeatCards(seat=s, cards=["7♠"]) for s in (2, 3, 4)],
        talon=["8♠", "9♠"],
    )
    text = text_of(render_deal_result(event, NAMES, dealer=1))
    assert "D on C +4" in text and "E on C +4" in text and "C 6♠ made" in text
    assert "C H1" in text and "D H2" in text and "E H3" in text
    assert "tricks: A 0  B 0  C 6  D 2  E 2" in text


def test_the_final_settlement_names_all_four_players() -> None:
    sheet = sheet_of(4)
    text = text_of(render_final(sheet, NAMES[:4], settlement=["3", "-1", "-1", "-1"]))
    assert "A ann +3" in text and "D dan -1" in text


def test_a_four_seat_view_back_into_the_core_has_a_hand_slot_per_seat() -> None:
    """A bot through the API needs the view's hands by seat: four slots, the sitter's empty."""
    view = view_from_proto(bidding_view(4, seat=2, dealer=0))
    assert len(view.hands) == 4
    assert view.hands[0] is None and view.hands[2] is not None


@pytest.mark.parametrize("players", [4, 5])
def test_pref_demo_draws_the_dealer_on_the_talon_and_every_seat(players: int) -> None:
    """``pref demo`` at a larger table (§3.6): each deal lists the three hands H1 first, its
    dealer marked as on the talon, and the sheet has a row and a whists column per seat."""
    rules = DEFAULT.with_options(players=players)
    bots = [make_bot() for _ in range(players)]
    record = play_game(b"demo-seats/" * 4, bots, rules, max_deals=players)
    console = Console(file=io.StringIO(), width=200, color_system=None, force_terminal=False)
    render_game(console, record)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert text.count("(on the talon)") == players
    for s in range(players):
        assert f"whists on {'ABCDE'[s]}" in text
    first = record.deals[0]
    row = text.split("│ 2 │")[0].split("│ 1 │")[1]
    for s in range(players):
        listed = s in hand_seats(first.dealer, players)
        assert (f"{'ABCDE'[s]}:" in row) is listed, (s, row)


def test_a_ruling_at_four_seats_reads_a_row_of_three_whists_per_seat() -> None:
    """``pref rule --whists``: each seat's row gives the whists it writes on the other seats
    clockwise from it (S000 "Порядок записи": whists per opponent), three at a table of four."""
    change = _adjustment(None, "1,2,3;4,5,6;7,8,9;10,11,12")
    assert change == {
        "gora": [0, 0, 0, 0],
        "whists": [[0, 1, 2, 3], [6, 0, 4, 5], [8, 9, 0, 7], [10, 11, 12, 0]],
    }
    assert _adjustment("0,2,-2", "1,0;0,0;0,0") == {
        "gora": [0, 2, -2],
        "whists": [[0, 1, 0], [0, 0, 0], [0, 0, 0]],
    }
    with pytest.raises(ValueError, match="3 other seats"):
        _adjustment(None, "1,2;3,4;5,6;7,8")
    # Two players (RULES.md §3.6): a row of one whist each; one row is no table.
    assert _adjustment(None, "1;2") == {"gora": [0, 0], "whists": [[0, 1], [2, 0]]}
    with pytest.raises(ValueError, match="a row per seat"):
        _adjustment(None, "1")  # one row: no table of one (two rows are a table of two)
