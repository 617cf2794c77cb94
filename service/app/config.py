"""Store configuration: an embedded SQLite file by default, PostgreSQL by configuration.

Precedence: an explicit ``--store`` value (a ``postgresql://`` URL, a ``sqlite:///path`` URL or a
plain file path), then ``PREF_STORE`` in the environment, then ``POSTGRES_DBNAME`` (with the other
``POSTGRES_*`` variables of the ``eventsourcing`` library), else the SQLite file
``preferans.sqlite`` in the working directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlparse

DEFAULT_SQLITE = "preferans.sqlite"
_POSTGRES_KEYS = (
    "POSTGRES_DBNAME",
    "POSTGRES_HOST",
    "POSTGRES_PORT",
    "POSTGRES_USER",
    "POSTGRES_PASSWORD",
    "POSTGRES_SCHEMA",
    "POSTGRES_POOL_SIZE",
    "POSTGRES_MAX_OVERFLOW",
    "POSTGRES_CONNECT_TIMEOUT",
    "POSTGRES_LOCK_TIMEOUT",
)
# Not passed through: POSTGRES_ENABLE_DB_FUNCTIONS. The library's insert function takes no
# table lock, so notification ids can become visible out of order and a reader tailing the log
# (the projection runners) could skip events for good.


_SCHEMA = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


class ConfigError(ValueError):
    """The store configuration cannot be understood."""


def check_schema(name: str) -> str:
    """A PostgreSQL schema name: a plain identifier (letters, digits, ``_``; 1-63)."""
    if not _SCHEMA.fullmatch(name):
        raise ConfigError(
            f"invalid PostgreSQL schema name {name[:64]!r}: use 1-63 letters, digits or '_', "
            "not starting with a digit"
        )
    return name


def ensure_schema(env: Mapping[str, str]) -> None:
    """Create the configured PostgreSQL schema if it does not exist (nothing for SQLite or
    without a schema); a clear ``ConfigError`` if the store cannot be reached or refuses."""
    schema = env.get("POSTGRES_SCHEMA")
    if not schema or not env.get("PERSISTENCE_MODULE", "").endswith("postgres"):
        return
    import psycopg
    from psycopg import sql

    check_schema(schema)
    try:
        with psycopg.connect(
            dbname=env["POSTGRES_DBNAME"],
            host=env.get("POSTGRES_HOST", "127.0.0.1"),
            port=int(env.get("POSTGRES_PORT", "5432")),
            user=env.get("POSTGRES_USER", "postgres"),
            password=env.get("POSTGRES_PASSWORD") or None,
            connect_timeout=int(env.get("POSTGRES_CONNECT_TIMEOUT", "5")),
            autocommit=True,
        ) as conn:
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
    except psycopg.errors.InsufficientPrivilege:
        raise ConfigError(
            f"schema {schema!r} does not exist and this user may not create it: "
            f"ask an administrator to run CREATE SCHEMA {schema}"
        ) from None
    except psycopg.OperationalError as exc:
        reason = (str(exc).strip().splitlines() or ["connection failed"])[-1]
        raise ConfigError(
            f"cannot reach PostgreSQL at {env.get('POSTGRES_HOST', '127.0.0.1')}:"
            f"{env.get('POSTGRES_PORT', '5432')}: {reason[:200]}"
        ) from None


@dataclass(frozen=True)
class StoreConfig:
    env: dict[str, str]
    """The ``eventsourcing`` environment (PERSISTENCE_MODULE, SQLITE_DBNAME, POSTGRES_*)."""

    @property
    def flavor(self) -> str:
        return "postgres" if self.env["PERSISTENCE_MODULE"].endswith("postgres") else "sqlite"

    def describe(self) -> str:
        """Where the store is, without secrets."""
        if self.flavor == "sqlite":
            return f"sqlite:{self.env['SQLITE_DBNAME']}"
        schema = self.env.get("POSTGRES_SCHEMA")
        where = (
            f"postgresql://{self.env.get('POSTGRES_USER', '')}@{self.env.get('POSTGRES_HOST', '')}"
            f":{self.env.get('POSTGRES_PORT', '5432')}/{self.env['POSTGRES_DBNAME']}"
        )
        return where + (f" (schema {schema})" if schema else "")


def sqlite_store(path: str) -> StoreConfig:
    return StoreConfig({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path})


def postgres_store(url: str) -> StoreConfig:
    """``postgresql://user:password@host:port/dbname?schema=name``."""
    parsed = urlparse(url)
    if parsed.scheme not in ("postgresql", "postgres"):
        raise ConfigError(f"not a PostgreSQL URL: {url!r}")
    dbname = parsed.path.lstrip("/")
    if not dbname:
        raise ConfigError("a PostgreSQL URL must name the database: postgresql://host/dbname")
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": unquote(dbname),
        "POSTGRES_HOST": parsed.hostname or "127.0.0.1",
        "POSTGRES_PORT": str(parsed.port or 5432),
        "POSTGRES_USER": unquote(parsed.username or "postgres"),
        # Fail fast when the store is down: a refused call should not wait for long.
        "POSTGRES_CONNECT_TIMEOUT": "2",
    }
    env["POSTGRES_PASSWORD"] = unquote(parsed.password or "")
    query = parse_qs(parsed.query)
    if "schema" in query:
        env["POSTGRES_SCHEMA"] = check_schema(query["schema"][0])
    return StoreConfig(env)


def store_config(store: str | None = None, environ: Mapping[str, str] | None = None) -> StoreConfig:
    """The store to use, from an explicit value or the environment (see the module docstring)."""
    environ = os.environ if environ is None else environ
    value = store or environ.get("PREF_STORE")
    if value:
        if value.startswith(("postgresql:", "postgres:")):
            return postgres_store(value)
        if value.startswith("sqlite:"):
            path = value.removeprefix("sqlite:").removeprefix("//")
            return sqlite_store(path or DEFAULT_SQLITE)
        return sqlite_store(value)
    if environ.get("POSTGRES_DBNAME"):
        env = {"PERSISTENCE_MODULE": "eventsourcing.postgres"}
        env.update({k: environ[k] for k in _POSTGRES_KEYS if environ.get(k)})
        env.setdefault("POSTGRES_HOST", "127.0.0.1")
        env.setdefault("POSTGRES_PORT", "5432")
        env.setdefault("POSTGRES_USER", "postgres")
        env.setdefault("POSTGRES_PASSWORD", "")
        env.setdefault("POSTGRES_CONNECT_TIMEOUT", "2")
        return StoreConfig(env)
    return sqlite_store(DEFAULT_SQLITE)


def refuse_in_memory(env: Mapping[str, str]) -> None:
    """Read models, the keyring and each thread need one shared store: an in-memory one
    (the library's default, or SQLite ``:memory:``) would give each thread its own."""
    module = env.get("PERSISTENCE_MODULE", "")
    name = env.get("SQLITE_DBNAME", "")
    if (
        not module
        or module.endswith("popo")
        or (module.endswith("sqlite") and (not name or ":memory:" in name or "mode=memory" in name))
    ):
        raise ConfigError(
            "PreferansApplication needs a persistent store: pass service.app.config.store_config()"
            ".env (a SQLite file or PostgreSQL); in-memory stores are not shared between "
            "threads, so read models would never see the games"
        )
