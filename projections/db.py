"""A small database handle for read models, the same on SQLite and PostgreSQL.

The event store itself is the ``eventsourcing`` library's recorder; read models (projections)
and the server's secrets table use this handle so that one SQL text serves both stores: write
``?`` placeholders, and the PostgreSQL flavour turns them into ``%s``.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import psycopg


class Cursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    @property
    def rowcount(self) -> int: ...
    @property
    def description(self) -> Any: ...


def execute_all(c: Cursor, statements: Sequence[str]) -> None:
    """Run statements without parameters (DDL), in order: on PostgreSQL in one round trip
    (one simple-protocol query), elsewhere one by one."""
    script = getattr(c, "execute_script", None)
    if script is not None:
        script(statements)
        return
    for statement in statements:
        c.execute(statement)


def pipelined(c: Cursor) -> contextlib.AbstractContextManager[Any]:
    """A block whose statements PostgreSQL receives without waiting for each one's answer
    (psycopg's pipeline mode: one round trip for all, errors raised at the block's end; no
    ``COPY`` inside, and no result read before the end); elsewhere a plain block."""
    pipeline = getattr(c, "pipeline", None)
    return pipeline() if pipeline is not None else contextlib.nullcontext()


def copy_rows(c: Cursor, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Insert rows into ``table``: on PostgreSQL by ``COPY`` (one stream, several times faster
    than ``executemany``'s statement per row), elsewhere by ``executemany``."""
    if not rows:
        return
    copy = getattr(c, "copy_rows", None)
    if copy is not None:
        copy(table, columns, rows)
        return
    c.executemany(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
        rows,
    )


class _PgCursor:
    """Adapts a psycopg cursor to ``?`` placeholders."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._cursor.execute(sql.replace("?", "%s"), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        return self._cursor.executemany(sql.replace("?", "%s"), rows)

    def pipeline(self) -> contextlib.AbstractContextManager[Any]:
        return self._cursor.connection.pipeline()  # type: ignore[no-any-return]

    def copy_rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        with self._cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def execute_script(self, statements: Sequence[str]) -> None:
        """Parameterless statements in one query (psycopg sends a query without parameters
        by the simple protocol, which takes several statements)."""
        if statements:
            self._cursor.execute("; ".join(statements))

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall())

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)

    @property
    def description(self) -> Any:
        """The columns of the last query's result (DB-API: their names come first)."""
        return self._cursor.description


class _RenamingCursor:
    """Sends a cursor's statements to other tables: each listed name (a whole word) is replaced
    by its shadow name (``games`` -> ``games__rebuild``, never ``stats_games``)."""

    def __init__(self, cursor: Cursor, names: Mapping[str, str]) -> None:
        self._cursor = cursor
        self._names = dict(names)
        self._pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")

    def _rename(self, sql: str) -> str:
        return self._pattern.sub(lambda m: self._names[m.group(1)], sql)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._cursor.execute(self._rename(sql), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        return self._cursor.executemany(self._rename(sql), rows)

    def pipeline(self) -> contextlib.AbstractContextManager[Any]:
        return pipelined(self._cursor)

    def copy_rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        copy_rows(self._cursor, self._rename(table), columns, rows)

    def execute_script(self, statements: Sequence[str]) -> None:
        execute_all(self._cursor, [self._rename(statement) for statement in statements])

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall())

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)

    @property
    def description(self) -> Any:
        """The columns of the last query's result (DB-API: their names come first)."""
        return self._cursor.description


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for PostgreSQL advisory locks, derived from a name."""
    digest = hashlib.sha256(f"preferans.projection:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def is_transient(exc: BaseException) -> bool:
    """Whether an error says the store is unavailable or busy (worth retrying as it is), as
    opposed to an event or a row the read model cannot take (retrying cannot help)."""
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return True  # lost connections, pool timeouts, deadlocks, serialisation failures
    if isinstance(exc, sqlite3.OperationalError):
        return "locked" in str(exc) or "busy" in str(exc)
    return isinstance(exc, TimeoutError | ConnectionError)


class Database:
    """Connections to the store's database, for read models: ``with db.transaction() as c``."""

    def __init__(self, env: Mapping[str, str]) -> None:
        module = env.get("PERSISTENCE_MODULE", "eventsourcing.sqlite")
        self.flavor = "postgres" if module.endswith("postgres") else "sqlite"
        self._local = threading.local()
        """This thread's SQLite connection, and its table renaming (during a rebuild)."""
        self._pool: Any = None
        self._schema = ""
        if self.flavor == "sqlite":
            self._path = env.get("SQLITE_DBNAME", ":memory:")
        else:
            from psycopg_pool import ConnectionPool

            schema = env.get("POSTGRES_SCHEMA", "")
            self._schema = schema
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
    def renaming(self, names: Mapping[str, str]) -> Iterator[None]:
        """Within the block, this thread's statements go to other tables (``names``: table or
        index name -> the name to use instead); other threads are not affected."""
        before = getattr(self._local, "names", None)
        self._local.names = dict(names)
        try:
            yield
        finally:
            self._local.names = before

    def _wrap(self, cursor: Cursor) -> Cursor:
        names = getattr(self._local, "names", None)
        return _RenamingCursor(cursor, names) if names else cursor

    def lock(self, c: Cursor, name: str) -> None:
        """Take the transaction-scoped lock of ``name``: one transaction at a time holds it
        (PostgreSQL: an advisory lock; SQLite: every write transaction is exclusive already)."""
        if self.flavor == "postgres":
            # Advisory locks are per database: the schema keeps deployments sharing one apart.
            c.execute("SELECT pg_advisory_xact_lock(?)", (lock_key(f"{self._schema}.{name}"),))

    @contextmanager
    def transaction(self) -> Iterator[Cursor]:
        """One transaction: committed if the block ends normally, rolled back if it raises."""
        if self.flavor == "sqlite":
            conn = self._sqlite()
            cursor = conn.cursor()
            cursor.execute("BEGIN IMMEDIATE")
            try:
                yield self._wrap(cursor)
            except BaseException:
                conn.rollback()
                raise
            else:
                conn.commit()
            finally:
                cursor.close()
            return
        with self._pool.connection() as pg, pg.transaction(), pg.cursor() as cursor:
            yield self._wrap(_PgCursor(cursor))

    @contextmanager
    def reading(self) -> Iterator[Cursor]:
        """A read-only snapshot for queries."""
        if self.flavor == "sqlite":
            cursor = self._sqlite().cursor()
            try:
                yield self._wrap(cursor)
            finally:
                cursor.close()
            return
        with self._pool.connection() as pg, pg.cursor() as cursor:
            yield self._wrap(_PgCursor(cursor))

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        if self._pool is not None:
            self._pool.close()
            self._pool = None
