"""League statistics: ``pref stats``, ``pref stats export``, ``pref simulate``."""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:
    from rich.table import Table

    from service.app.application import PreferansApplication
from service.cli.common import open_app
from service.cli.rules import rules_from_args


def _stats_app(args: argparse.Namespace) -> PreferansApplication:
    """The application, with the stats projection caught up first (unless ``--no-catch-up``)."""
    from projections import standard_runners

    app = open_app(args.store)
    if not args.no_catch_up:
        for runner in standard_runners(app, app.db, ("stats",)).values():
            runner.catch_up()
    return app


def cmd_stats(args: argparse.Namespace) -> int:
    """League statistics in the terminal: leaderboards, one player, or a head-to-head."""
    from rich.table import Table

    from projections import stats_queries as q

    console = Console()
    app = _stats_app(args)
    try:
        names = q.leagues(app.db) if args.league is None else [args.league]
        if args.player and args.against:
            pair = q.head_to_head(app.db, names[0] if names else "", args.player, args.against)
            keys = ("games", "a_settlement", "b_settlement", "a_ahead", "b_ahead", "equal")
            table = Table(*keys, title=f"{args.player} (a) vs {args.against} (b)")
            if pair is not None:
                table.add_row(*(str(pair[key]) for key in keys))
            console.print(table)
            return 0
        if args.deals:
            for league in names:
                for table in deals_tables(q.deals(app.db, league), league, args.player):
                    console.print(table)
            return 0
        if args.player:
            for league in names:
                stats = q.player_stats(app.db, league, args.player)
                if stats is not None:
                    for table in player_tables(stats, f"{args.player} in {league!r}"):
                        console.print(table)
            return 0
        columns = ("player_id", "rating", "games", "deals", "settlement_total")
        for league in names:
            totals = q.league_totals(app.db, league) or {}
            table = Table(
                *columns,
                "per game",
                "contracts",
                "skill",
                title=f"league {league!r}",
                caption=(
                    f"{totals.get('games', 0)} games, {totals.get('deals', 0)} deals, "
                    f"{totals.get('players', 0)} players; skill: μ ± σ (μ−3σ); "
                    "*: re-rated after a ruling"
                ),
            )
            for row in q.leaderboard(app.db, league, args.order_by, limit=args.limit):
                made, failed = row["contracts_made"], row["contracts_failed"]
                cells = [str(row[c]) for c in columns]
                cells[1] = f"{row['rating']:.1f}{'*' if row['rating_rulings'] else ''}"
                games = row["games"]
                average = float(Fraction(row["settlement_total"]) / games) if games else 0.0
                table.add_row(
                    *cells,
                    f"{average:.1f}",
                    f"{made} made / {failed} failed",
                    skill_text(row["skill"]),
                )
            console.print(table)
    finally:
        app.close()
    return 0


def skill_text(skill: dict[str, float]) -> str:
    """The skill rating as ``pref stats`` shows it: ``27.9 ± 8.2 (3.3)``."""
    return f"{skill['mu']:.1f} ± {skill['sigma']:.1f} ({skill['conservative']:.1f})"


BY_CONTRACT = ("by_level", "made_by_level", "failed_by_level")
BY_STRAIN = ("by_strain", "made_by_strain", "failed_by_strain")


def player_tables(stats: dict[str, Any], title: str) -> list[Table]:
    """One player's statistics: every number by its export name (rates as percentages), then
    his contracts declared, made and failed by level and by strain."""
    from rich.table import Table

    from projections.stats_queries import flatten

    table = Table("statistic", "value", title=title)
    contracts = stats["contracts"]
    shown = {
        **stats,
        "contracts": {
            k: v for k, v in contracts.items() if not k.endswith(("by_level", "by_strain"))
        },
    }
    for key, value in flatten(shown).items():
        if key.endswith("_rate"):
            text = f"{100 * value:.1f}%"
        elif isinstance(value, float):
            text = f"{value:.1f}"
        else:
            text = str(value)
        table.add_row(key, text)
    tables = [table]
    for label, keys in (("level", BY_CONTRACT), ("strain", BY_STRAIN)):
        split = Table(label, "declared", "made", "failed", title=f"contracts by {label}")
        for name in contracts[keys[0]]:
            split.add_row(name, *(str(contracts[key][name]) for key in keys))
        tables.append(split)
    return tables


DEAL_SHOWN = {
    "deal": "#", "kind": "kind", "declarer": "decl.", "contract": "contract",
    "player_id": "player", "tricks": "tr", "pool": "pool", "gora": "gora",
    "whists_written": "w+", "whists_received": "w-", "help_given": "h+", "help_received": "h-",
}  # fmt: skip
"""The per-deal table's columns shown by ``pref stats --deals``, with their short headers (tr:
tricks; w+ and w-: the whists written and received; h+ and h-: help points given, received)."""


def deals_tables(rows: list[dict[str, Any]], league: str, player: str | None) -> list[Table]:
    """The league's per-deal table, one table per game (one line per deal and seat, or only
    ``player``'s lines), narrow enough for 80 columns."""
    from rich import box
    from rich.table import Table

    tables: dict[str, Table] = {}
    for row in rows:
        if player is not None and row["player_id"] != player:
            continue
        game = str(row["game_id"])
        table = tables.get(game)
        if table is None:
            table = Table(*DEAL_SHOWN.values(), box=box.SIMPLE_HEAD, collapse_padding=True)
            table.title = f"league {league!r}, game {game} ({row['system']})"
            tables[game] = table
        table.add_row(*(str(row[key]) for key in DEAL_SHOWN))
    return list(tables.values())


def cmd_stats_export(args: argparse.Namespace) -> int:
    """Write league statistics to CSV and Parquet files (file names never come from league
    names: see docs/STATS.md, "Export")."""
    from pathlib import Path

    from projections.stats_export import export_stats

    app = _stats_app(args)
    try:
        leagues = None if args.league is None else [args.league]
        for path in export_stats(app.db, Path(args.out), leagues, args.formats):
            Console().print(str(path))
    finally:
        app.close()
    return 0


def export_formats(text: str) -> list[str]:
    """``--formats``: a comma-separated subset of csv and parquet."""
    from projections.stats_export import FORMATS

    chosen = [part.strip() for part in text.split(",") if part.strip()]
    if not chosen or any(part not in FORMATS for part in chosen):
        raise argparse.ArgumentTypeError(f"choose from {', '.join(FORMATS)} (comma-separated)")
    return chosen


def player_ids(text: str) -> list[str]:
    """``--player-ids``: comma-separated player ids (the application checks each)."""
    ids = [part.strip() for part in text.split(",") if part.strip()]
    if not ids:
        raise argparse.ArgumentTypeError("give comma-separated player ids")
    return ids


def seats_or_ids(text: str) -> int | list[str]:
    """``pref simulate --players``: a number of seats (``--players 4``), or, as this option
    meant before tables of four and five, comma-separated player ids (``--players a,b,c``)."""
    return int(text) if text.strip().isdigit() else player_ids(text)


def cmd_simulate(args: argparse.Namespace) -> int:
    """Bots play whole games of a league through the application, with a progress bar."""
    from rich.progress import Progress

    from domain.rules.errors import RulesError
    from projections import standard_runners
    from service.app.simulate import DEFAULT_PLAYERS, simulate

    seats, players = args.players, args.player_ids
    if isinstance(seats, list):  # the ids, as ``--players a,b,c`` gave them before
        if players is not None:
            Console(stderr=True).print("[red]refused: player ids given twice[/red]")
            return 2
        seats, players = None, seats
    args.players = seats  # what ``rules_from_args`` reads
    app = open_app(args.store)
    try:
        rules = rules_from_args(args)
        with Progress(console=Console(stderr=True)) as progress:
            task = progress.add_task(f"league {args.league!r}", total=args.games)
            simulate(
                app,
                args.games,
                args.league,
                players or DEFAULT_PLAYERS,
                rules,
                seed=args.seed,
                on_game=lambda _game: progress.advance(task),
                time_deals=args.deals,
            )
        if not args.no_projections:
            for runner in standard_runners(app, app.db).values():
                runner.catch_up()
    except (ValueError, RulesError) as exc:
        Console(stderr=True).print(f"[red]refused: {getattr(exc, 'message', exc)}[/red]")
        return 2
    finally:
        app.close()
    Console().print(f"{args.games} games played in league {args.league!r}")
    return 0
