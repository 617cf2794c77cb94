"""One person at one seat of a game on the server, in the terminal (``pref play``).

The person's seat watches the game's events (``WatchGameBatches``, flattened); whenever the
stream has caught up with the last command, the table is redrawn in place (the terminal cleared,
one 80×24 screen drawn: ``service.cli.playdraw``) and whoever is on turn decides: the person, or
a bot of this process playing another seat from that seat's own view (``remote``: nobody else's
decision is made here).

At the prompt the person types an action (``service.cli.playinput.parse_choice``) or a command:
``?``/``help``, ``sheet``, ``flag N why`` (``FlagDeal`` with the seat's token), ``u``/``undo``,
or ``q``. With ``confirm`` a typed action is held and shown, and sent only on Enter: until then
``u`` takes it back. Nothing can be taken back once sent: the rules have no take-back
(docs/CLIENTS.md "pref play").

Why over 400 lines: one seat's session is one loop (the stream, the redraw, the prompt, the bots
of this process and the held action) over one state; the drawing and the input parsing are their
own modules.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from rich.console import Console, RenderableType
from rich.text import Text

from domain.bots import make_bot
from domain.rules import Action, InvalidAction, RuleSet
from domain.rules.robber import parse_obligations
from domain.rules.start import initial_deals
from service.app.application import ORDER_MINUTES
from service.cli.botplay import Creator, order_choice
from service.cli.playdraw import render_help, render_order_prompt, render_sheet, render_view
from service.cli.playinput import (
    QUIT_WORDS,
    Command,
    describe_action,
    describe_rpc_error,
    parse_choice,
    parse_command,
    whole_number,
)
from service.cli.playresult import render_deal_result, render_final
from service.cli.playtext import order_text
from service.cli.viewstate import sheet_from_proto, view_from_proto
from service.client import GameClient, SeatClient
from service.gen.preferans.v1 import game_pb2 as pb

REFUSED = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT)

Reader = Callable[[str], str]


@dataclass
class PlaySession:
    """One person at one seat, bots at the others, one game on the server."""

    client: GameClient
    name: str
    tokens: Sequence[str]
    seat: int
    console: Console
    read: Reader
    names: Sequence[str] = ("", "", "")
    pool_target: int = 0
    bot_delay: float = 0.4
    sleep: Callable[[float], None] = time.sleep
    clear: bool = False
    rules: RuleSet | None = None
    """The table's rules (Classic: to order the game and to know its initial deals)."""
    creator: Creator | None = None
    """The creator's credential: with ``time_deals`` the person's client calls time."""
    time_deals: int = 0
    """A game played until time: time is called after this many deals of the ordered pool
    (0: play until the ordered end time, when the server calls it)."""
    clock: Callable[[], float] = time.time
    remote: bool = False
    """The other seats are not played here (people elsewhere, the server's bots): ``tokens``
    holds only the person's credential (a seat token or a JWT), the move prompt also takes the
    commands of ``service.cli.online`` and the clock is shown."""
    confirm: bool = False
    """Hold each typed action until Enter confirms it (``u`` takes it back before that)."""
    saved: str = ""
    """Where the seat tokens are saved (shown on the help screen), if they are."""
    replayed_to: int = 0
    """Resuming: the events up to this version happened before; their deal results are not
    shown again."""

    def __post_init__(self) -> None:
        if self.remote:
            tokens = [self.tokens[0]] * (self.seat + 1)
            self.seats: list[SeatClient] = [self.client.seat(self.name, t) for t in tokens]
        else:
            self.seats = [self.client.seat(self.name, t) for t in self.tokens]
        self.bots = [make_bot() for _ in self.seats]
        self.head = 0
        self.dealer = -1
        self.log: deque[str] = deque(maxlen=6)
        self.time_called = False
        self.screen: RenderableType | None = None

    # -- output --

    def _show(self, renderable: RenderableType) -> None:
        """Draw a screen in place of the last one (the terminal is cleared first)."""
        self.screen = renderable
        if self.clear:
            self.console.clear()
        self.console.print(renderable)

    def _say(self, text: str, style: str = "red") -> None:
        self.console.print(Text(text, style=style))

    def _ask(self, prompt: str) -> str | None:
        """A line from the person, or ``None`` if the input is closed or interrupted."""
        try:
            return self.read(prompt)
        except (EOFError, KeyboardInterrupt):
            return None

    def _aside(self, renderable: RenderableType) -> bool:
        """Show a screen (help, the sheet) until Enter, then the last screen again; ``False``
        if the input closed."""
        back = self.screen
        self._show(renderable)
        answer = self._ask("Enter: back> ")
        if back is not None:
            self._show(back)
        return answer is not None

    def _table_command(self, me: SeatClient, command: Command) -> bool:
        """``help``, ``sheet`` or ``flag``; ``False`` if the input closed."""
        if command.kind == "help":
            return self._aside(render_help(self.name, self.saved))
        if command.kind == "sheet":
            sheet = self.client.scoresheet(self.name, min_version=self.head)
            return self._aside(render_sheet(sheet, list(self.names), self.pool_target))
        if command.kind == "flag":
            self._flag(me, command)
        return True

    def _flag(self, me: SeatClient, command: Command) -> None:
        """Dispute a scored deal (``FlagDeal`` with this seat's token): a referee rules."""
        if command.error:
            self._say(command.error)
            return
        try:
            response = me.flag_deal(command.deal, command.reason)
        except grpc.RpcError as exc:
            if exc.code() not in (*REFUSED, grpc.StatusCode.PERMISSION_DENIED):
                raise
            self._say(f"Refused by the server — {describe_rpc_error(exc)}")
            return
        self.head = max(self.head, response.version)
        self._say(f"Deal {command.deal} is flagged: a referee will rule on it.", "green")

    # -- the game --

    def run(self, stream: Iterator[Any]) -> bool:
        """Play until the game is over (True) or the person quits (False)."""
        me = self.seats[self.seat]
        for message in stream:
            kind = message.WhichOneof("event")
            if kind == "heartbeat" or kind is None:
                continue
            if kind == "deal_dealt":
                self.dealer = message.deal_dealt.dealer
                self.log.clear()
            elif kind == "action":
                self.log.append(describe_action(message.action))
            elif kind == "game_ordered":
                self.log.append(order_text(message.game_ordered))
            elif kind == "time_called":
                self.time_called = True
                last = message.time_called.deal_number
                self.log.append(f"time is called: deal {last} is the last")
            elif kind == "deal_scored":
                if message.version > self.replayed_to and not self._deal_over(
                    message.deal_scored, message.version
                ):
                    return False
            elif kind == "game_finished":
                self._game_over(message.game_finished, message.version)
                return True
            elif kind == "game_aborted":
                seat = message.game_aborted.seat
                self.console.print(f"{self.names[seat]} aborted the game: nothing is settled")
                return True
            if message.version < self.head:
                continue  # more events of the last command are on their way
            view = me.view(min_version=self.head)
            if view.actor < 0:
                continue
            if self.remote and view.actor != self.seat:
                self._waiting(view)
                continue
            if view.orderer >= 0:
                if not self._order(view):
                    return False
                continue
            if self._time_is_up(view):
                self._call_time()
                continue
            self._draw(view)
            if view.actor == self.seat:
                if not self._person_moves(me, view):
                    return False
            else:
                self._bot_moves(view.actor)
        return False

    def _draw(self, view: pb.SeatView, pending: str = "") -> None:
        sheet = self.client.scoresheet(self.name, min_version=self.head)
        self._show(
            render_view(
                view,
                sheet,
                names=self.names,
                pool_target=self.pool_target,
                log=list(self.log),
                pending=pending,
            )
        )

    def _waiting(self, view: pb.SeatView) -> None:
        """Another seat decides (remote play): ``service.cli.online`` says so."""

    def _command(self, me: SeatClient, view: pb.SeatView, line: str) -> bool | None:
        """A command of the move prompt besides an action (``service.cli.online``): ``True``
        when done and play goes on, ``False`` to leave, ``None`` if the line is no command."""
        return None

    def _time_is_up(self, view: pb.SeatView) -> bool:
        """Whether this client calls time now (``time_deals`` pool deals have been dealt)."""
        rules = self.rules
        return (
            rules is not None
            and rules.play_until_time
            and self.creator is not None
            and self.time_deals > 0
            and not self.time_called
            and view.HasField("order")
            and view.deal_number - initial_deals(rules) >= self.time_deals
        )

    def _call_time(self) -> None:
        """The creator calls time (``CallTime``): the deal in progress is the last."""
        assert self.creator is not None
        self.time_called = True
        called = self.client.call_time(self.name, self.creator.request_id, self.creator.secret)
        self.head = max(self.head, called.version)

    def _order(self, view: pb.SeatView) -> bool:
        """The game waits for its order (Classic): the orderer's bot orders, or the person is
        asked for the pool length and, in a game played until time, how long to play."""
        rules = self.rules or RuleSet(pool_target=self.pool_target or 20)
        context = sheet_from_proto(view.sheet)
        pool, ends_at = order_choice(rules, self.clock(), sheet=context, seat=view.orderer)
        seat = self.seats[view.orderer]
        if view.orderer != self.seat:
            self.sleep(self.bot_delay)
            self.head = max(self.head, seat.order_game(pool, ends_at).version)
            return True
        sheet = self.client.scoresheet(self.name, min_version=self.head)
        self._show(render_order_prompt(sheet, names=self.names, timed=rules.ending_by_time))
        while True:
            chosen = self._ask_number(f"Pool length [{pool}]> ", pool)
            if chosen is None:
                return False
            ends = 0
            if rules.ending_by_time:
                prompt = f"Play for how many minutes [{ORDER_MINUTES}]> "
                minutes = self._ask_number(prompt, ORDER_MINUTES)
                if minutes is None:
                    return False
                ends = int(self.clock()) + minutes * 60
            obligations: dict[str, int] = {}
            if rules.robber:
                asked = self._ask_obligations()
                if asked is None:
                    return False
                obligations = asked
            try:
                response = seat.order_game(chosen, ends, obligations=obligations)
            except grpc.RpcError as exc:
                if exc.code() not in REFUSED:
                    raise
                self._say(f"Refused by the server — {describe_rpc_error(exc)}")
                continue
            self.head = max(self.head, response.version)
            self.pool_target = chosen
            return True

    def _ask_obligations(self) -> dict[str, int] | None:
        """The robber's obligatory games from the person (S000 "Разбойник"), e.g. "misere 1,
        ten 1, nine 2, eight 3" (Enter: none); ``None`` to quit. The server checks the counts."""
        while True:
            line = self._ask("Obligatory games, e.g. 'misere 1, ten 1, nine 2, eight 3' [none]> ")
            if line is None or line.strip().lower() in QUIT_WORDS:
                return None
            try:
                return parse_obligations(line)
            except InvalidAction as exc:
                self._say(str(exc))

    def _ask_number(self, prompt: str, default: int) -> int | None:
        """A whole number from the person (Enter: ``default``); ``None`` to quit."""
        while True:
            line = self._ask(prompt)
            if line is None or line.strip().lower() in QUIT_WORDS:
                return None
            text = line.strip()
            if not text:
                return default
            number = whole_number(text)
            if number is not None:
                return number
            self._say("type a whole number (Enter: the default; q quits)")

    def _bot_moves(self, seat: int) -> None:
        self.sleep(self.bot_delay)
        client = self.seats[seat]
        view = client.view(min_version=self.head)
        action = self.bots[seat](view_from_proto(view))
        self.head = max(self.head, client.act(action).version)

    move_prompt = "Your move> "

    def _person_moves(self, me: SeatClient, view: pb.SeatView) -> bool:
        """The person decides: an action (held until Enter with ``confirm``), or a command."""
        in_play = view.phase == pb.PHASE_PLAY
        pending: Action | None = None
        while True:
            line = self._ask(self.move_prompt if pending is None else "Enter sends it> ")
            if line is None:
                return False
            command = self._command(me, view, line)
            if command is not None:
                return command
            table = parse_command(line)
            if table is not None and table.kind == "undo":
                if pending is None:
                    self._say(
                        "Nothing is held: what you sent stands (the rules have no take-back)."
                    )
                else:
                    pending = None
                    self._draw(view)
                continue
            if table is not None:
                if not self._table_command(me, table):
                    return False
                continue
            if pending is not None and not line.strip():
                action, pending = pending, None
            else:
                choice = parse_choice(line, list(view.legal_actions), in_play=in_play)
                if choice.quit:
                    return False
                if choice.action is None:
                    self._say(choice.error)
                    continue
                if self.confirm:
                    pending = choice.action
                    self._draw(view, pending=str(pending))
                    continue
                action = choice.action
            try:
                response = me.act(action)
            except grpc.RpcError as exc:
                if exc.code() not in REFUSED:
                    raise
                self._say(f"Refused by the server — {describe_rpc_error(exc)}")
                if self.remote and me.view().actor != self.seat:
                    return True  # too late: out of time, the server moved for the seat
                continue
            self.head = max(self.head, response.version)
            return True

    def _deal_over(self, event: pb.DealScoredEvent, version: int) -> bool:
        sheet = self.client.scoresheet(self.name, min_version=version)
        self._show(
            render_deal_result(
                event,
                self.names,
                dealer=self.dealer,
                dummy_hand=self.rules.duo_dummy_hand if self.rules else 1,
                sheet=sheet,
                pool_target=self.pool_target,
                log=list(self.log),
            )
        )
        if sheet.settlement or self.remote:
            return True  # over, or played on by the others (a prompt would hold the clock)
        return self._between_deals()

    def _between_deals(
        self, prompt: str = "Enter: next deal; flag N why; ? help; q quits> "
    ) -> bool:
        """Enter goes on; a table command (flag, help, sheet) is done first; q leaves."""
        me = self.seats[self.seat]
        while True:
            line = self._ask(prompt)
            if line is None or line.strip().lower() in QUIT_WORDS:
                return False
            command = parse_command(line)
            if command is None:
                return True
            if not self._table_command(me, command):
                return False

    def _game_over(self, event: pb.GameFinishedEvent, version: int) -> None:
        sheet = self.client.scoresheet(self.name, min_version=version)
        self._show(
            render_final(
                sheet,
                self.names,
                settlement=list(event.settlement),
                pool_target=self.pool_target,
                seed_hex=event.seed_hex,
            )
        )
