"""A small database handle for read models, the same on SQLite and PostgreSQL.

The event store itself is the ``eventsourcing`` library's recorder; read models (projections)
and the server's secrets table use this handle so that one SQL text serves both stores: write
``?`` placeholders, and the PostgreSQL flavour turns them into ``%s``.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol


class Cursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    @property
    def rowcount(self) -> int: ...


class _PgCursor:
    """Adapts a psycopg cursor to ``?`` placeholders."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._cursor.execute(sql.replace("?", "%s"), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        return self._cursor.executemany(sql.replace("?", "%s"), rows)

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall())

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)


class Database:
    """Connections to the store's database, for read models: ``with db.transaction() as c``."""

    def __init__(self, env: Mapping[str, str]) -> None:
        module = env.get("PERSISTENCE_MODULE", "eventsourcing.sqlite")
        self.flavor = "postgres" if module.endswith("postgres") else "sqlite"
        self._local = threading.local()
        self._pool: Any = None
        if self.flavor == "sqlite":
            self._path = env.get("SQLITE_DBNAME", ":memory:")
        else:
            from psycopg_pool import ConnectionPool

            schema = env.get("POSTGRES_SCHEMA", "")
            kwargs: dict[str, Any] = {
                "dbname": env["POSTGRES_DBNAME"],
                "host": env.get("POSTGRES_HOST", "127.0.0.1"),
                "port": int(env.get("POSTGRES_PORT", "5432")),
                "user": env.get("POSTGRES_USER", "postgres"),
                "connect_timeout": int(env.get("POSTGRES_CONNECT_TIMEOUT", "5")),
            }
            if env.get("POSTGRES_PASSWORD"):
                kwargs["password"] = env["POSTGRES_PASSWORD"]
            # The read pool opens lazily and fails fast when the server is down.
            if schema:
                kwargs["options"] = f"-c search_path={schema}"
            self._pool = ConnectionPool(
                kwargs=kwargs,
                min_size=1,
                max_size=int(env.get("PREF_READ_POOL_SIZE", "8")),
                open=True,
            )

    def _sqlite(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self._path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    @contextmanager
    def transaction(self) -> Iterator[Cursor]:
        """One transaction: committed if the block ends normally, rolled back if it raises."""
        if self.flavor == "sqlite":
            conn = self._sqlite()
            cursor = conn.cursor()
            cursor.execute("BEGIN IMMEDIATE")
            try:
                yield cursor
            except BaseException:
                conn.rollback()
                raise
            else:
                conn.commit()
            finally:
                cursor.close()
            return
        with self._pool.connection() as pg, pg.transaction(), pg.cursor() as cursor:
            yield _PgCursor(cursor)

    @contextmanager
    def reading(self) -> Iterator[Cursor]:
        """A read-only snapshot for queries."""
        if self.flavor == "sqlite":
            cursor = self._sqlite().cursor()
            try:
                yield cursor
            finally:
                cursor.close()
            return
        with self._pool.connection() as pg, pg.cursor() as cursor:
            yield _PgCursor(cursor)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        if self._pool is not None:
            self._pool.close()
            self._pool = None
