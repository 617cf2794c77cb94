"""The server's keys and seat tokens (issue 9, item 6), on both stores: no key in the database,
rotation, expiry, revocation, the creator's proof on a retried creation, the legacy key's
migration. Also: an in-memory application is refused (item 14), a missing PostgreSQL schema is
created (item 17), and on SQLite a change by another process is seen at once (item 11)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import sqlite3
import stat
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest

from domain.rules import actor, seat_view, seed_commitment
from service.api.auth import AuthInterceptor
from service.app.application import KeyMissing, PreferansApplication, TokensWithheld
from service.app.config import ConfigError, postgres_store, sqlite_store
from service.app.keys import KeyConfigError
from service.cli import main
from tests.integration.conftest import POSTGRES_URL, _admin_connection
from tests.integration.helpers import BOT, PLAYERS, create, execute_raw

OLD = "old:" + base64.b64encode(b"o" * 32).decode()
NEW = "new:" + base64.b64encode(b"n" * 32).decode()
SECRET = "a-creator-secret-0123456789"


def _rows_of_every_table(env: dict[str, str]) -> str:
    """Every row of every table of the store, as text (to look for a key in it)."""
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        conn = sqlite3.connect(env["SQLITE_DBNAME"])
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        text = repr(tables) + "".join(
            repr(conn.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables
        )
        conn.close()
        return text
    with psycopg.connect(POSTGRES_URL) as pg:
        schema = env["POSTGRES_SCHEMA"]
        tables = [
            r[0]
            for r in pg.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                (schema,),
            )
        ]
        return repr(tables) + "".join(
            repr(pg.execute(f'SELECT * FROM "{schema}"."{t}"').fetchall()) for t in tables
        )


def _with(env: dict[str, str], **extra: str) -> dict[str, str]:
    return {**env, **extra}


def test_no_key_in_the_database(open_app: Any, store_env: dict[str, str]) -> None:
    app = open_app()
    for _ in range(2):
        create(app)
    dump = _rows_of_every_table(store_env)
    assert "preferans_secrets" not in dump
    for _, key in app.keys.keys:
        assert key.hex() not in dump
        assert base64.b64encode(key).decode() not in dump


def test_sqlite_default_key_file_is_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PREF_KEYS", raising=False)
    path = tmp_path / "games.sqlite"
    app = PreferansApplication(sqlite_store(str(path)).env)
    try:
        created = create(app)
    finally:
        app.close()
    key_file = tmp_path / "games.sqlite.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # The next process uses the same key: the tokens stay valid.
    again = PreferansApplication(sqlite_store(str(path)).env)
    try:
        assert again.authenticate(created.game_id, created.tokens[2]) == 2
    finally:
        again.close()


def test_postgres_without_a_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREF_KEYS", raising=False)
    app = PreferansApplication(postgres_store(POSTGRES_URL).env)
    try:
        with pytest.raises(KeyConfigError, match="no server key: set PREF_KEYS or PREF_KEY_FILE"):
            create(app)
    finally:
        app.close()
    # The server refuses to start (its interceptor loads the keys); `pref` prints one line.
    app = PreferansApplication(postgres_store(POSTGRES_URL).env)
    try:
        with pytest.raises(KeyConfigError):
            AuthInterceptor(app)
    finally:
        app.close()


def test_rotation_old_tokens_verify_new_games_use_the_new_key(
    store_env: dict[str, str], open_app: Any
) -> None:
    before = PreferansApplication(_with(store_env, PREF_KEYS=OLD))
    try:
        old_game = create(before, creator_secret=SECRET)
    finally:
        before.close()
    assert old_game.tokens[0].split(".")[1] == "old"

    rotated = open_app_with(store_env, f"{NEW},{OLD}")
    try:
        assert rotated.authenticate(old_game.game_id, old_game.tokens[1]) == 1
        new_game = create(rotated)
        assert {t.split(".")[1] for t in new_game.tokens} == {"new"}
        # The old game's seed still derives (from its recorded commitment): it plays on.
        seed = rotated.keys.seed(old_game.game_id, base64.b64decode(OLD.split(":")[1]))
        assert seed_commitment(seed) == old_game.seed_commitment
        deal = rotated.get_game(old_game.game_id).deal
        assert deal is not None
        seat = actor(deal)
        rotated.act(old_game.game_id, seat, BOT(seat_view(deal, seat)), "after-rotation")
    finally:
        rotated.close()

    retired = open_app_with(store_env, NEW)
    try:
        assert retired.authenticate(old_game.game_id, old_game.tokens[1]) is None
        assert retired.authenticate(new_game.game_id, new_game.tokens[1]) == 1
        deal = retired.get_game(old_game.game_id).deal
        assert deal is not None
        seat = actor(deal)
        with pytest.raises(KeyMissing):
            retired.act(old_game.game_id, seat, BOT(seat_view(deal, seat)), "no-key")
    finally:
        retired.close()


def open_app_with(env: dict[str, str], keys: str) -> PreferansApplication:
    return PreferansApplication(_with(env, PREF_KEYS=keys))


def test_expired_and_revoked_tokens_are_refused(store_env: dict[str, str], open_app: Any) -> None:
    app = PreferansApplication(_with(store_env, PREF_TOKEN_MAX_AGE="60"))
    try:
        created = create(app, creator_secret=SECRET)
        token = created.tokens[1]
        assert app.check_token(token) != "expired"
        assert "expired" in str(app.keys.check(token, now=time.time() + 61))

        app.revoke_tokens(created.game_id, [1])
        assert app.authenticate(created.game_id, token) is None
        assert app.authenticate(created.game_id, created.tokens[0]) == 0
        # Another replica sees the revocation too.
        replica = open_app()
        assert replica.authenticate(created.game_id, token) is None
        # The creator renews the seat's token by retrying with its secret.
        time.sleep(0.002)  # a token issued in the same millisecond as the revocation is refused
        renewed = app.create_game(PLAYERS, "renew", creator_secret=SECRET)
        assert renewed.game_id != created.game_id  # another request id: another game
        again = _retry(app, created.game_id, SECRET)
        assert app.authenticate(created.game_id, again.tokens[1]) == 1
    finally:
        app.close()


def _retry(app: PreferansApplication, game_id: uuid.UUID, secret: str) -> Any:
    first = app.game_events(game_id, limit=1)[0]
    retried = app.create_game(
        first.players, first.request_id, league=first.league, creator_secret=secret
    )
    assert retried.game_id == game_id
    return retried


def test_a_retried_creation_needs_the_creators_secret(open_app: Any) -> None:
    app = open_app()
    request_id = "game-42"
    created = app.create_game(PLAYERS, request_id, creator_secret=SECRET)
    # The id is not the public uuid5 of the request id any more.
    assert created.game_id != uuid.uuid5(
        uuid.UUID("6f1d8a52-0c4b-4b7e-9a59-3d1f0e2a7c11"), request_id
    )
    # Someone else with the public facts and the request id: another game, never these tokens.
    other = app.create_game(PLAYERS, request_id, creator_secret="someone-else-guessing-1")
    assert other.game_id != created.game_id
    assert not set(other.tokens) & set(created.tokens)
    # Without a secret, a retry of a secret-less creation gets no tokens.
    plain = app.create_game(PLAYERS, "plain-1")
    with pytest.raises(TokensWithheld):
        app.create_game(PLAYERS, "plain-1")
    assert len(app.game_events(plain.game_id)) == plain.version
    # The creator gets its game back, with working tokens.
    again = app.create_game(PLAYERS, request_id, creator_secret=SECRET)
    assert again.game_id == created.game_id
    assert app.authenticate(created.game_id, again.tokens[0]) == 0


def test_legacy_key_must_be_migrated_out(
    store_env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    legacy = b"L" * 32
    execute_raw(
        store_env,
        [
            ("CREATE TABLE preferans_secrets (name TEXT PRIMARY KEY, value TEXT)", ()),
            ("INSERT INTO preferans_secrets VALUES (?, ?)", ("server_key", legacy.hex())),
        ],
    )
    with pytest.raises(KeyConfigError, match="pref keys migrate-legacy"):
        PreferansApplication(store_env)
    out = tmp_path / "keys"
    from tests.integration.helpers import store_argument

    assert (
        main(["keys", "migrate-legacy", "--store", store_argument(store_env), "--out", str(out)])
        == 0
    )
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert "preferans_secrets" not in _rows_of_every_table(store_env)
    app = PreferansApplication(_with(store_env, PREF_KEYS="", PREF_KEY_FILE=str(out)))
    try:
        assert app.keys.current[0] != "legacy" and app.keys.key("legacy") == legacy
        # A token of the old format, as the old version minted it, still verifies.
        game = create(app)
        mac = hmac.new(legacy, b"token:2:" + game.game_id.bytes, hashlib.sha256).hexdigest()
        assert app.authenticate(game.game_id, f"{game.game_id}.{mac}") == 2
    finally:
        app.close()


def test_in_memory_application_is_refused() -> None:
    with pytest.raises(ConfigError, match="needs a persistent store"):
        PreferansApplication()
    with pytest.raises(ConfigError, match="needs a persistent store"):
        PreferansApplication(
            {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": ":memory:"}
        )


def test_missing_postgres_schema_is_created() -> None:
    schema = f"fresh_{uuid.uuid4().hex[:10]}"
    try:
        assert main(["migrate", "--store", f"{POSTGRES_URL}?schema={schema}"]) == 0
        with _admin_connection() as admin:
            found = admin.execute(
                "SELECT 1 FROM information_schema.schemata WHERE schema_name = %s", (schema,)
            ).fetchone()
        assert found is not None
    finally:
        with _admin_connection() as admin:
            admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_invalid_schema_name_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="invalid PostgreSQL schema name"):
        postgres_store(f"{POSTGRES_URL}?schema=a;drop")


def test_sqlite_change_by_another_process_is_seen(tmp_path: Path) -> None:
    env = sqlite_store(str(tmp_path / "shared.sqlite")).env
    server = PreferansApplication(env)
    other = PreferansApplication(env)  # e.g. `pref flag` / `pref rule` in another process
    try:
        created = create(server)
        cached = server.get_game(created.game_id)
        deal = cached.deal
        assert deal is not None
        seat = actor(deal)
        landed = other.act(created.game_id, seat, BOT(seat_view(deal, seat)), "elsewhere")
        assert server.get_game(created.game_id).version == landed.version
    finally:
        other.close()
        server.close()


def test_keys_new_writes_an_owner_only_file_and_never_replaces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "keys"
    assert main(["keys", "new", "--out", str(out), "--kid", "k1"]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    before = out.read_text()
    assert main(["keys", "new", "--out", str(out)]) == 2
    assert out.read_text() == before
    assert "never replaced" in capsys.readouterr().err


def test_unreachable_postgres_at_start_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    closed = "postgresql://postgres@127.0.0.1:1/test?schema=nowhere"
    assert main(["migrate", "--store", closed]) == 2
    error = capsys.readouterr().err
    assert (
        error.startswith("pref: cannot reach PostgreSQL at 127.0.0.1:1") and error.count("\n") == 1
    )
