"""Referees and auditors: ``pref flag``, ``rule``, ``audit``, ``export``, ``import``, ``replay``."""

from __future__ import annotations

import argparse
import sys
import uuid
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:
    from service.app.application import PreferansApplication
from domain.rules.ruleset import SUPPORTED_PLAYERS
from service.cli.common import open_app


def _dispute(args: argparse.Namespace, record: Any) -> int:
    """Run a flag or a ruling against the store; print the outcome (exit 1 if refused)."""
    from domain.rules.errors import RulesError
    from service.app.application import ServiceError

    err = Console(stderr=True)
    game_id = args.game
    app = open_app(args.store)
    try:
        result = record(app, game_id)
    except (RulesError, ServiceError) as exc:
        err.print(f"[red]refused: {getattr(exc, 'message', exc)}[/red]")
        return 1
    finally:
        app.close()
    replayed = " (already recorded: the first answer)" if result.replayed else ""
    Console().print(f"recorded at version {result.version}{replayed}")
    return 0


def cmd_flag(args: argparse.Namespace) -> int:
    """A seat flags a scored deal, with its seat token (as a client would through FlagDeal)."""

    def record(app: PreferansApplication, game_id: Any) -> Any:
        seat = app.seat_of_token(game_id, args.token)
        if seat is None:
            raise ValueError("the seat token is not one of this game's")
        return app.flag_deal(
            game_id, seat, args.deal, args.reason, args.request_id or uuid.uuid4().hex
        )

    try:
        return _dispute(args, record)
    except ValueError as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 1


def cmd_rule(args: argparse.Namespace) -> int:
    """An auditor's ruling on a scored deal, recorded by an operator with access to the store.

    ``--gora 0,2,-2`` and ``--whists 'w01,w02;w10,w12;w20,w21'`` give the adjustments (whists
    written by each seat on the others, clockwise: two a row at three seats, three at four);
    neither means "no change"."""

    try:
        adjustment = _adjustment(args.gora, args.whists)
    except ValueError as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 2

    def record(app: PreferansApplication, game_id: Any) -> Any:
        return app.record_ruling(
            game_id,
            args.deal,
            args.reason,
            adjustment,
            args.request_id or uuid.uuid4().hex,
            auditor=args.auditor,
        )

    return _dispute(args, record)


def _adjustment(gora: str | None, whists: str | None) -> dict[str, Any] | None:
    """The ruling's deltas: ``--gora`` one value per seat, ``--whists`` one row per seat, each
    the whists its seat writes on the other seats clockwise from it (one at a table of two, two
    at three, four at five). The number of seats is the rows' (else the gora's); the game
    checks it."""
    if gora is None and whists is None:
        return None
    gora_row = [int(v) for v in gora.split(",")] if gora else []
    rows = whists.split(";") if whists else []
    if rows and len(rows) not in SUPPORTED_PLAYERS:
        seats = ", ".join(map(str, SUPPORTED_PLAYERS))
        raise ValueError(f"--whists needs a row per seat ({seats} rows) separated by ';'")
    n = len(rows) or len(gora_row)
    matrix = [[0] * n for _ in range(n)]
    for writer, row in enumerate(rows):
        values = [int(v) for v in row.split(",")]
        if len(values) != n - 1:
            raise ValueError(f"each --whists row gives the whists on the {n - 1} other seats")
        others = [(writer + k) % n for k in range(1, n)]
        for target, value in zip(others, values, strict=True):
            matrix[writer][target] = value
    return {"gora": gora_row or [0] * n, "whists": matrix}


def cmd_audit(args: argparse.Namespace) -> int:
    """Re-check a stored game from its events alone (docs/AUDIT.md): exit 0 when verified, 1 on
    a discrepancy, 2 when the game cannot be read (no such game, no store, an unreadable event)."""
    from eventsourcing.persistence import PersistenceError

    from domain.audit import UNREADABLE
    from service.app.application import ServiceError
    from service.app.audit import verify_game

    game_id = args.game
    try:
        app = open_app(args.store)
    except PersistenceError as exc:
        Console(stderr=True).print(f"[red]the store cannot be used: {exc}[/red]")
        return 2
    try:
        report = verify_game(app, game_id)
    except ServiceError as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 2
    finally:
        app.close()
    console = Console()
    console.print(f"game {game_id}")
    if report.verified:
        console.print(f"[green]{report.summary}[/green]")
    else:
        console.print(f"[red]{report.summary}[/red]")
    console.print(f"chain head {report.chain_head}")
    if report.discrepancy is not None and report.discrepancy.kind == UNREADABLE:
        return 2  # the game cannot be read (docs/AUDIT.md)
    return 0 if report.verified else 1


def cmd_export(args: argparse.Namespace) -> int:
    """Write a game (or one deal of it) as a hand record, JSON or text (docs/HANDRECORD.md)."""
    from pathlib import Path

    from service.app.application import ServiceError
    from service.app.handrecord import export_game_record

    app = open_app(args.store)
    try:
        tags = {"event": args.event, "site": args.site, "round": args.round}
        text = export_game_record(app, args.game, args.deal, args.format, tags)
    except (ValueError, ServiceError) as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 1
    finally:
        app.close()
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Read a JSON hand record, replay it through the rules and report the first discrepancy."""
    from pathlib import Path

    from domain.handrecord import HandRecordError
    from service.app.handrecord import import_record

    console = Console(soft_wrap=True)
    try:
        _rec, verdict = import_record(Path(args.file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        console.print(f"[red]cannot read {args.file}: {exc}[/red]")
        return 2
    except HandRecordError as exc:
        console.print(f"[red]{args.file}: {exc}[/red]")
        return 2
    if verdict.consistent:
        console.print(
            f"consistent: {verdict.deals} deals, {verdict.actions} decisions replayed, "
            "every decision legal, every score as the rules give it"
        )
        return 0
    console.print(f"[red]discrepancy:[/red] {verdict.message}")
    return 1


def cmd_replay(args: argparse.Namespace) -> int:
    """A stored game as it was, decision by decision (every hand open, for a referee)."""
    from service.app.application import ServiceError
    from service.app.handrecord import game_record
    from service.cli.replay import run_replay

    app = open_app(args.store)
    try:
        rec = game_record(app, args.game, args.deal)
    except (ValueError, ServiceError) as exc:
        Console(stderr=True).print(f"[red]{exc}[/red]")
        return 1
    finally:
        app.close()
    return run_replay(rec, Console(), step=args.step)
