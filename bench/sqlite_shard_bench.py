"""Which SQLite layout relieves the writer lock: shards as tables in one file, or as files?

Writers are separate processes (as several ``pref serve`` processes would be), each inserting
rows one per transaction (``BEGIN`` … ``COMMIT``, WAL mode, the library's defaults) of the
average stored event's size into a table with an autoincrement id and UNIQUE (stream,
version), like the event store. Three layouts at the same number of writers:

- ``one table``: every writer appends to one table of one file (one shard);
- ``tables, one file``: writer i appends to its own table in the same file;
- ``files``: writer i appends to its own table in its own file (what ``--shards`` does).

Run: ``.venv/bin/python bench/sqlite_shard_bench.py [--writers 2] [--seconds 4] [--repeat 3]``.
Reports inserts/s summed over the writers, and how many inserts waited for the lock
(``database is locked`` retries). Every file is in a temporary directory removed at the end.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sqlite3
import tempfile
import time
import uuid
from pathlib import Path

ROW_BYTES = 232
LAYOUTS = ("one table", "tables, one file", "files")


def _writer(
    path: str, table: str, seconds: float, out: multiprocessing.Queue[tuple[int, int]]
) -> None:
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    stream = uuid.uuid4().hex
    state = os.urandom(ROW_BYTES)
    done = waited = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        while True:
            try:
                conn.execute("BEGIN")
                conn.execute(
                    f"INSERT INTO {table} (stream, version, topic, state) VALUES (?, ?, ?, ?)",
                    (stream, done + 1, "bench:Event", state),
                )
                conn.execute("COMMIT")
                break
            except sqlite3.OperationalError:  # locked past the timeout: count it and retry
                waited += 1
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
        done += 1
    conn.close()
    out.put((done, waited))


def _create(path: str, table: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {table} (id INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT "
        "NOT NULL, version INTEGER NOT NULL, topic TEXT NOT NULL, state BLOB NOT NULL, "
        "UNIQUE (stream, version))"
    )
    conn.close()


def run(layout: str, writers: int, seconds: float, directory: Path) -> tuple[float, int]:
    targets = []
    for i in range(writers):
        if layout == "one table":
            targets.append((str(directory / "one.sqlite"), "events"))
        elif layout == "tables, one file":
            targets.append((str(directory / "tables.sqlite"), f"events_{i}"))
        else:
            targets.append((str(directory / f"file{i}.sqlite"), "events"))
    for path, table in set(targets):
        _create(path, table)
    context = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue[tuple[int, int]] = context.Queue()
    processes = [context.Process(target=_writer, args=(p, t, seconds, out)) for p, t in targets]
    for process in processes:
        process.start()
    results = [out.get(timeout=seconds + 60) for _ in processes]
    for process in processes:
        process.join()
    return sum(r[0] for r in results) / seconds, sum(r[1] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    load = os.getloadavg()
    print(
        f"sqlite_shard_bench: {args.writers} writer processes, {args.seconds:g} s a run, "
        f"{os.cpu_count()} cores, load average {load[0]:.1f}, sqlite {sqlite3.sqlite_version}"
    )
    for attempt in range(1, args.repeat + 1):
        for layout in LAYOUTS:
            with tempfile.TemporaryDirectory(prefix="sqlite_shard_bench_") as tmp:
                rate, waited = run(layout, args.writers, args.seconds, Path(tmp))
            print(f"  round {attempt}  {layout:17} {rate:8.0f} inserts/s  lock retries {waited}")


if __name__ == "__main__":
    main()
