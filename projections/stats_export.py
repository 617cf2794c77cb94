"""Exporting the league statistics as CSV and Parquet files (docs/STATS.md, "Export").

File names never come from data: a league tag is client text, so it is a column, not a path.
One file per table and format, whatever the leagues — ``players``, ``head_to_head``,
``results`` and ``deals`` (``.csv``, ``.parquet``) — each row with its ``league`` (``""`` for
the untagged league, so it never collides with a league named ``default``), and
``manifest.json`` listing the leagues, the files and their row counts. Every file has a fixed
set of columns with fixed types, so an empty league (or none) still gives files with their headers.

Settlement values are exact fractions (``"806/3"``): each is exported as a number (float64, for
``avg`` and ``sum`` in DuckDB, pandas, a spreadsheet) and, exactly, as text in a second column
named ``<column>_exact``.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from projections import stats_queries as q
from projections.db import Database
from projections.stats import DEAL_COLUMNS, DEAL_COLUMNS_SQL

FORMATS = ("csv", "parquet")
TABLES = ("players", "head_to_head", "results", "deals")
MANIFEST = "manifest.json"
MANIFEST_VERSION = 2
"""2 (issue 16): snake_case player columns, results with ``game_order`` and ``finished_at``,
the ``deals`` table. 1 had dotted player columns (``contracts.by_level.6``)."""
EXACT_SUFFIX = "_exact"

SETTLEMENT_COLUMNS = frozenset({"settlement_total", "a_settlement", "b_settlement", "settlement"})
"""Columns holding exact fractions as text: exported as float64 plus ``<column>_exact``."""

_HEAD_TO_HEAD: dict[str, type] = {
    "league": str,
    "a": str,
    "b": str,
    "games": int,
    "a_settlement": str,
    "b_settlement": str,
    "a_ahead": int,
    "b_ahead": int,
    "equal": int,
}
_RESULTS: dict[str, type] = {
    "league": str,
    "game_order": int,
    "finished_at": str,
    "game_id": str,
    "seat": int,
    "player_id": str,
    "settlement": str,
    "rating_before": float,
    "rating_after": float,
}


_DEALS: dict[str, type] = {
    name: str if "TEXT" in sql else int
    for name, sql in zip(DEAL_COLUMNS, DEAL_COLUMNS_SQL, strict=True)
}
_DEALS = {"league": str, **{name: kind for name, kind in _DEALS.items() if name != "league"}}
"""The per-deal table's columns (``projections.stats.DEAL_COLUMNS``), ``league`` first."""


def _player_columns() -> dict[str, type]:
    """The players table's columns and types: those of ``player_stats``, flattened."""
    zero: dict[str, Any] = dict.fromkeys(q.PLAYER_COLUMNS, 0)
    zero.update(league="", player_id="", rating=0.0, settlement_den=1)
    return {key: type(value) for key, value in q.flatten(q.player_from_row(zero)).items()}


def columns(table: str) -> dict[str, type]:
    """The exported columns of ``table`` in order, with their Python types."""
    if table not in TABLES:
        raise ValueError(f"no table {table!r}")
    fixed = {"head_to_head": _HEAD_TO_HEAD, "results": _RESULTS, "deals": _DEALS}
    source = _player_columns() if table == "players" else fixed[table]
    out: dict[str, type] = {"league": str}
    for name, kind in source.items():
        if name in SETTLEMENT_COLUMNS:
            out[name] = float
            out[name + EXACT_SUFFIX] = str
        else:
            out[name] = kind
    return out


def _exported(row: dict[str, Any], league: str, wanted: dict[str, type]) -> dict[str, Any]:
    out: dict[str, Any] = {"league": league}
    for name, value in row.items():
        if name == "league":
            continue
        if name in SETTLEMENT_COLUMNS:
            out[name] = float(Fraction(value))
            out[name + EXACT_SUFFIX] = str(value)
        else:
            out[name] = value
    if list(out) != list(wanted):  # pragma: no cover - a query's shape changed
        raise RuntimeError(f"export columns changed: {sorted(set(out) ^ set(wanted))}")
    return out


def export_rows(db: Database, leagues: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Every table's exported rows for ``leagues``, league by league."""
    tables: dict[str, list[dict[str, Any]]] = {table: [] for table in TABLES}
    for league in leagues:
        for table, rows in q.export_tables(db, league).items():
            wanted = columns(table)
            tables[table].extend(_exported(row, league, wanted) for row in rows)
    return tables


def _write_csv(path: Path, names: list[str], rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=names)
        writer.writeheader()
        writer.writerows(rows)


def _write_parquet(path: Path, wanted: dict[str, type], rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {int: pa.int64(), float: pa.float64(), str: pa.string()}
    schema = pa.schema([(name, types[kind]) for name, kind in wanted.items()])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def export_stats(
    db: Database,
    directory: Path,
    leagues: Sequence[str] | None = None,
    formats: Sequence[str] = FORMATS,
) -> list[Path]:
    """Write the tables of ``leagues`` (default: every league) into ``directory`` (created if
    needed) and the manifest; return the paths written, the manifest last."""
    unknown = set(formats) - set(FORMATS)
    if unknown or not formats:
        raise ValueError(f"export formats are {' and '.join(FORMATS)}")
    chosen = q.leagues(db) if leagues is None else list(leagues)
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    manifest: dict[str, Any] = {"version": MANIFEST_VERSION, "leagues": chosen, "tables": {}}
    for table, rows in export_rows(db, chosen).items():
        wanted = columns(table)
        files = []
        if "csv" in formats:
            _write_csv(directory / f"{table}.csv", list(wanted), rows)
            files.append(f"{table}.csv")
        if "parquet" in formats:
            _write_parquet(directory / f"{table}.parquet", wanted, rows)
            files.append(f"{table}.parquet")
        written.extend(directory / name for name in files)
        manifest["tables"][table] = {"rows": len(rows), "files": files, "columns": list(wanted)}
    path = directory / MANIFEST
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(path)
    return written
