"""Fixtures of the store integration tests: every test runs once on a fresh SQLite file and once
on a fresh schema of a real PostgreSQL server (never mocked).

PostgreSQL is expected at ``postgresql://postgres@127.0.0.1:5432/test`` (trust auth); set
``PREF_TEST_POSTGRES`` to point elsewhere. If it cannot be reached, the PostgreSQL half of the
suite FAILS (CI starts the server; a skipped half would hide a broken store).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from service.app.application import PreferansApplication
from service.app.config import postgres_store, sqlite_store
from tests.integration.helpers import AppFactory

POSTGRES_URL = os.environ.get("PREF_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def _admin_connection() -> psycopg.Connection[tuple[object, ...]]:
    try:
        return psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL is not reachable at {POSTGRES_URL} ({exc}). The integration tests need "
            "a real server: start one (CI does) or set PREF_TEST_POSTGRES to its URL.",
            pytrace=False,
        )


@pytest.fixture(params=["sqlite", "postgres"])
def store_env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The ``eventsourcing`` environment of a fresh, empty store."""
    if request.param == "sqlite":
        yield sqlite_store(str(tmp_path / "events.sqlite")).env
        return
    schema = f"t_{uuid.uuid4().hex[:10]}"
    with _admin_connection() as admin:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield postgres_store(f"{POSTGRES_URL}?schema={schema}").env
    finally:
        with _admin_connection() as admin:
            admin.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
            )


@pytest.fixture
def open_app(store_env: dict[str, str]) -> Iterator[AppFactory]:
    """A factory of application objects on the test's store ("replicas", or a restarted
    process); all of them are closed at teardown."""
    opened: list[PreferansApplication] = []

    def factory(cls: type[PreferansApplication] = PreferansApplication) -> PreferansApplication:
        application = cls(store_env)
        opened.append(application)
        return application

    yield factory
    for application in reversed(opened):
        application.close()


@pytest.fixture
def app(open_app: AppFactory) -> PreferansApplication:
    return open_app()
