"""``pref stats export`` never turns a league name into a path (issue 9, item 12), on both
stores: leagues named ``../x``, ``/abs``, ``a/b``, ``default`` and the untagged league all land
in the same fixed files, told apart by their ``league`` column; settlements are numbers (with
the exact fraction beside them); empty exports still have their headers. The files are read
back with pyarrow and the csv module."""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from domain.rules import RuleSet
from projections import standard_runners
from projections import stats_queries as q
from projections.stats_export import TABLES, columns, export_stats
from service.app.application import PreferansApplication
from service.app.simulate import simulate
from service.cli import main as pref
from tests.integration.helpers import store_argument

HOSTILE = ["../x", "/abs", "a/b", "default", "", "..", "x\\y"]


def _read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as source:
        reader = csv.DictReader(source)
        return list(reader.fieldnames or []), list(reader)


def test_league_names_never_become_paths(
    app: PreferansApplication, store_env: dict[str, str], tmp_path: Path
) -> None:
    rules = RuleSet(pool_target=2)
    for number, league in enumerate(HOSTILE):
        simulate(app, 1, league, ["ann", "bob", "cid"], rules, seed=f"s{number}")
    out = tmp_path / "deep" / "out"
    store = store_argument(store_env)
    assert pref(["stats", "export", "--store", store, "--out", str(out)]) == 0
    everything = sorted(
        p.relative_to(tmp_path).as_posix()
        for p in tmp_path.rglob("*")
        if not p.name.startswith("events.sqlite")  # the test's SQLite store
    )
    expected = [f"deep/out/{t}.{ext}" for t in TABLES for ext in ("csv", "parquet")]
    assert everything == sorted(["deep", "deep/out", "deep/out/manifest.json", *expected])
    assert not Path("/abs-players.csv").exists()

    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert sorted(manifest["leagues"]) == sorted(HOSTILE)
    players = pq.read_table(out / "players.parquet")
    assert sorted(set(players.column("league").to_pylist())) == sorted(HOSTILE)
    assert manifest["tables"]["players"]["rows"] == players.num_rows == 3 * len(HOSTILE)
    # The untagged league and "default" are different leagues, each with its own rows.
    untagged = [r for r in players.to_pylist() if r["league"] == ""]
    named = [r for r in players.to_pylist() if r["league"] == "default"]
    assert len(untagged) == len(named) == 3
    # Settlements are numbers (an average can be taken), and exact as text beside them.
    assert str(players.schema.field("settlement_total").type) == "double"
    for row in players.to_pylist():
        assert row["settlement_total"] == float(Fraction(row["settlement_total_exact"]))
    per_league = [r for r in players.to_pylist() if r["league"] == "../x"]
    assert sum(Fraction(r["settlement_total_exact"]) for r in per_league) == 0
    assert pc.mean(players.column("settlement_total")).as_py() == pytest.approx(0.0, abs=1e-9)
    for table in TABLES:
        header, rows = _read_csv(out / f"{table}.csv")
        assert header == list(columns(table))
        parquet = pq.read_table(out / f"{table}.parquet")
        assert parquet.column_names == header and parquet.num_rows == len(rows)

    # One league only: the same fixed names, only its rows.
    only = tmp_path / "only"
    assert pref(["stats", "export", "--store", store, "--league", "a/b", "--out", str(only)]) == 0
    assert {r["league"] for r in _read_csv(only / "results.csv")[1]} == {"a/b"}


def test_an_empty_export_has_headers(app: PreferansApplication, tmp_path: Path) -> None:
    for runner in standard_runners(app, app.db, ("stats",)).values():
        runner.catch_up()
    assert q.leagues(app.db) == []
    written = export_stats(app.db, tmp_path, ["no such league"])
    assert len(written) == 2 * len(TABLES) + 1
    for table in TABLES:
        header, rows = _read_csv(tmp_path / f"{table}.csv")
        assert header == list(columns(table)) and rows == []
        parquet = pq.read_table(tmp_path / f"{table}.parquet")
        assert parquet.column_names == header and parquet.num_rows == 0
    with pytest.raises(ValueError, match="csv and parquet"):
        export_stats(app.db, tmp_path, None, ["xlsx"])
