"""Settings of the whole test session.

The server's keys never live in the database, and PostgreSQL must be given one: the session
sets ``PREF_KEYS`` (a fixed test key) for every application, server and ``pref`` subprocess,
on both stores. Tests of the key sources themselves (tests/integration/test_secrets.py)
remove it where they need to.

Every ``pref serve`` a test starts listens for browsers on a free port (``PREF_CONNECT_PORT``
0), not on the default 8080: tests run servers side by side.
"""

from __future__ import annotations

import os

TEST_KEYS = "test0:" + "dGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXk="


def pytest_configure() -> None:
    os.environ.setdefault("PREF_KEYS", TEST_KEYS)
    os.environ.setdefault("PREF_CONNECT_PORT", "0")
