"""``pref play`` in the lobby (``TableService``): list the open public tables, open a table,
join one or take an invitation's seat, wait until every seat is taken, then play the seat by
JWT (``service.cli.online``) against the people who joined and the server's bots.

* ``--list``: the open public tables (``ListTables``, every page), no credential needed.
* ``--create-table``: the table's conventions (``--system``, ``--option``, ``--pool``,
  ``--players``), clock (``--move-seconds``, ``--bank-seconds``, ``--increment-seconds``,
  ``--on-timeout``), ``--stake``, ``--league``, ``--private`` (then one invitation link per empty
  seat is printed), ``--fill-bots`` (the server's bots take the empty seats at once).
* ``--join TABLE`` / ``--invite TABLE#CODE``: a free seat, or the invitation's.

While the table waits, ``GetTable`` is read every ``POLL_SECONDS`` and each change of its seats
is printed; Ctrl-C there leaves the table (``LeaveTable``) before quitting.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from domain.rules.errors import InvalidAction
from domain.rules.seats import seat_name
from service.api.mapping import rules_to_proto
from service.cli.online import held_actions, jwt_of, play_seat
from service.cli.playsession import Reader
from service.cli.rules import rules_from_args
from service.client import GameClient
from service.client.tables import TableClient
from service.gen.preferans.v1 import game_pb2 as pb
from service.gen.preferans.v1 import table_pb2 as tpb

POLL_SECONDS = 0.5
INVITE_MARK = "#"
STATE_WORDS = {
    tpb.TABLE_STATE_OPEN: "open",
    tpb.TABLE_STATE_STARTED: "started",
    tpb.TABLE_STATE_CLOSED: "closed",
}


def invitation_link(table: str, code: str) -> str:
    """What an invited player passes to ``--invite``: ``tables/<id>#<code>``."""
    return f"{table}{INVITE_MARK}{code}"


def parse_invitation(link: str) -> tuple[str, str]:
    """``tables/<id>#<code>`` → (table, code); the server checks both."""
    table, mark, code = link.strip().partition(INVITE_MARK)
    if not mark or not table or not code:
        raise InvalidAction("--invite takes the link TABLE#CODE its creator printed", "--invite")
    return table, code


def time_control_from_args(args: argparse.Namespace) -> pb.TimeControl | None:
    """The table's clock (``None``: no clock); the server checks the ranges."""
    if not (args.move_seconds or args.bank_seconds or args.increment_seconds):
        return None
    forfeit = args.on_timeout == "forfeit"
    return pb.TimeControl(
        move_seconds=args.move_seconds,
        bank_seconds=args.bank_seconds,
        increment_seconds=args.increment_seconds,
        on_timeout=pb.TIMEOUT_ACTION_FORFEIT if forfeit else pb.TIMEOUT_ACTION_DEFAULT_MOVE,
    )


def clock_words(table: tpb.Table) -> str:
    """``60 s a move, bank 300 s +5 s, forfeit``; ``—`` without a clock."""
    if not table.HasField("time_control"):
        return "—"
    control = table.time_control
    parts = []
    if control.move_seconds:
        parts.append(f"{control.move_seconds} s a move")
    if control.bank_seconds:
        parts.append(f"bank {control.bank_seconds} s")
    if control.increment_seconds:
        parts.append(f"+{control.increment_seconds} s")
    if control.on_timeout == pb.TIMEOUT_ACTION_FORFEIT:
        parts.append("forfeit")
    return ", ".join(parts) or "—"


def seats_words(table: tpb.Table) -> str:
    """Who sits where: ``A ann · B — · C bot``."""
    return " · ".join(
        f"{seat_name(seat)} {player or '—'}" for seat, player in enumerate(table.player_ids)
    )


def tables_table(tables: Sequence[tpb.Table]) -> Table:
    """The lobby as a terminal table: one row per table."""
    out = Table(title=f"Open tables ({len(tables)})", title_justify="left")
    # The name whole, to be copied into --join.
    out.add_column("table", no_wrap=True, min_width=max((len(t.name) for t in tables), default=5))
    for column in ("system", "pool", "seats", "clock", "stake", "league", "creator"):
        out.add_column(column)
    for table in tables:
        out.add_row(
            table.name,
            table.rules.name,
            str(table.rules.pool_target or "—"),
            seats_words(table),
            clock_words(table),
            str(table.stake_per_whist or "—"),
            table.league or "—",
            table.creator,
        )
    return out


def open_tables(lobby: TableClient) -> list[tpb.Table]:
    """Every open public table, page after page."""
    tables: list[tpb.Table] = []
    token = ""
    while True:
        page = lobby.list_tables(page_size=100, page_token=token)
        tables += page.tables
        token = page.next_page_token
        if not token:
            return tables


def wait_for_start(
    lobby: TableClient,
    table: tpb.Table,
    console: Console,
    sleep: Callable[[float], None] = time.sleep,
) -> tpb.Table:
    """Until the table starts (or is closed): its seats printed at each change."""
    shown = ""
    while table.state == tpb.TABLE_STATE_OPEN:
        seats = seats_words(table)
        if seats != shown:
            console.print(Text(f"Waiting at {table.name}: {seats}", "dim"))
            shown = seats
        try:
            sleep(POLL_SECONDS)
        except KeyboardInterrupt:
            lobby.leave_table(table.name)
            console.print(f"You left {table.name}.")
            raise
        table = lobby.get_table(table.name)
    return table


def _open(lobby: TableClient, args: argparse.Namespace, console: Console) -> tpb.Table:
    """Open the table and sit at seat 0 (at a private table with an invitation of one's own:
    every seat of a private table is taken with a code)."""
    created = lobby.create_table(
        rules_to_proto(rules_from_args(args)),
        public=not args.private,
        league=args.league,
        time_control=time_control_from_args(args),
        stake_per_whist=args.stake,
        take_seat=not args.private,
    )
    table = created.table
    seat = created.seat
    if args.private:
        own = lobby.create_invitation(table.name, seat=0)
        joined = lobby.join_table(table.name, own.invitation_code)
        table, seat = joined.table, joined.seat
    console.print(f"You opened {table.name} and sit at seat {seat_name(seat)}.")
    if args.fill_bots:
        return lobby.fill_with_bots(table.name).table
    if args.private:
        for _ in range(sum(1 for player in table.player_ids if not player)):
            invited = lobby.create_invitation(table.name)
            link = invitation_link(table.name, invited.invitation_code)
            line = f"Invite seat {seat_name(invited.seat)}: pref play --invite '{link}'"
            console.print(line, soft_wrap=True)  # never broken: it is copied
            table = invited.table
    else:
        console.print(f"Others join with: pref play --join {table.name}", soft_wrap=True)
    return table


def run_lobby(
    args: argparse.Namespace,
    client: GameClient,
    console: Console,
    *,
    read: Reader | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int | None:
    """``pref play`` with a lobby option (``None`` when none was given)."""
    if not (args.list or args.create_table or args.join or args.invite):
        return None
    if args.list:
        console.print(tables_table(open_tables(TableClient(client))))
        return 0
    token = jwt_of(args)
    if token is None:
        console.print(Text("The lobby needs your JWT: --token, $PREF_TOKEN or --as NAME", "red"))
        return 2
    lobby = TableClient(client, token)
    if args.create_table:
        table = _open(lobby, args, console)
    else:
        name, code = parse_invitation(args.invite) if args.invite else (args.join, "")
        joined = lobby.join_table(name, code)
        table = joined.table
        console.print(f"You sit at seat {seat_name(joined.seat)} of {table.name}.")
    table = wait_for_start(lobby, table, console, sleep)
    if table.state != tpb.TABLE_STATE_STARTED:
        console.print(f"{table.name} is {STATE_WORDS.get(table.state, '?')}: no game.")
        return 1
    console.print(f"Every seat is taken: {seats_words(table)}. The game {table.game} starts.")
    return play_seat(
        client,
        table.game,
        token,
        read=read or console.input,
        console=console,
        clear=console.is_terminal,
        confirm=held_actions(args, console),
    )
