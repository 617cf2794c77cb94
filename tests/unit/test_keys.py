"""The keyring (service/app/keys.py): parsing, sources, token checks that never raise."""

from __future__ import annotations

import base64
import hashlib
import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.app.keys import KeyConfigError, Keyring, load_keyring, parse_keys
from service.app.validation import invitation_code

A = "a:" + base64.b64encode(b"a" * 32).decode()
B = "b:" + base64.b64encode(b"b" * 32).decode()
RING = Keyring(parse_keys(f"{A},{B}", "test"))
GAME = uuid.UUID("12345678-1234-4234-8234-123456789abc")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "no keys"),
        ("a.b:" + base64.b64encode(b"k" * 32).decode(), "key id"),
        ("a:not base64!", "not valid base64"),
        ("a:" + base64.b64encode(b"short").decode(), "shorter than 32 bytes"),
        (f"{A}\n{A}", "appears twice"),
        ("just-a-key", "kid:<base64 key>"),
    ],
)
def test_malformed_keys_are_one_line_errors(text: str, problem: str) -> None:
    with pytest.raises(KeyConfigError, match=problem) as caught:
        parse_keys(text, "PREF_KEYS")
    assert "\n" not in str(caught.value)


def test_key_file_with_comments_and_precedence(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_text(f"# current first, then old ones\n{B}  # rotated in\n\n{A}\n")
    ring = load_keyring({"PREF_KEY_FILE": str(path)})
    assert [kid for kid, _ in ring.keys] == ["b", "a"]
    assert load_keyring({"PREF_KEYS": A, "PREF_KEY_FILE": str(path)}).current[0] == "a"
    with pytest.raises(KeyConfigError, match="cannot read the key file"):
        load_keyring({"PREF_KEY_FILE": str(tmp_path / "missing")})
    with pytest.raises(KeyConfigError, match="PREF_TOKEN_MAX_AGE"):
        load_keyring({"PREF_KEYS": A, "PREF_TOKEN_MAX_AGE": "soon"})


def test_tokens_name_their_key_and_expire() -> None:
    token = RING.mint(GAME, 1, issued_ms=1_000_000)
    game, kid, seat, issued, _ = token.split(".")
    assert (game, kid, seat, issued) == (str(GAME), "a", "1", "1000000")
    claims = RING.check(token, now=1_000)
    assert not isinstance(claims, str) and (claims.seat, claims.key_id) == (1, "a")
    assert "expired" in str(RING.check(token, now=1_000 + 24 * 3600 + 1))
    assert not isinstance(Keyring(RING.keys, token_max_age=0).check(token, now=1e12), str)
    # Verified by an older key after rotation; refused once that key is gone.
    rotated = Keyring(parse_keys(f"c:{base64.b64encode(b'c' * 32).decode()},{A}", "t"))
    assert not isinstance(rotated.check(token, now=1_000), str)
    assert rotated.check(token, now=1_000) == claims
    assert Keyring(parse_keys(B, "t")).check(token, now=1_000) == "the seat token is not valid"


@pytest.mark.parametrize(
    "token",
    [
        "",
        "x",
        f"{GAME}",
        f"{GAME}.a.³.1.mac",
        f"{GAME}.a.1.²³.mac",
        f"{GAME}.a.1.{'9' * 200}.mac",
        f"{GAME}.a.7.1.mac",
        f"{GAME}.zz.1.1.mac",
        f"{GAME}." + "0" * 64,
        f"{GAME}.a.1.1.mac.extra",
        f"{GAME}.a.1.1.mäc",
        f"{GAME}.ä",
        "a" * 10_000,
    ],
)
def test_malformed_tokens_are_refused_without_raising(token: str) -> None:
    assert isinstance(RING.check(token), str)
    legacy = Keyring(parse_keys("legacy:" + base64.b64encode(b"l" * 32).decode(), "t"))
    assert isinstance(legacy.check(token), str)


@given(st.text(max_size=300))
def test_any_text_is_refused_without_raising(token: str) -> None:
    assert isinstance(RING.check(token), str)


def test_a_remembered_token_still_expires_and_a_forged_one_is_still_refused() -> None:
    """A keyring remembers the tokens whose MAC it verified (issue 10: no HMAC per call), but
    only the exact token: its expiry is checked on every call, and a token with another MAC,
    seat or issue time is verified afresh."""
    ring = Keyring(RING.keys, token_max_age=60)
    token = ring.mint(GAME, 2, issued_ms=1_000_000)
    for _ in range(3):
        assert not isinstance(ring.check(token, now=1_001), str)
    assert "expired" in str(ring.check(token, now=1_061))
    game, kid, seat, issued, mac = token.split(".")
    forged = [
        ".".join((game, kid, "1", issued, mac)),
        ".".join((game, kid, seat, "1000001", mac)),
        ".".join((game, kid, seat, issued, mac[:-1] + ("A" if mac[-1] != "A" else "B"))),
    ]
    for other in forged:
        assert ring.check(other, now=1_001) == "the seat token is not valid"
    seed = ring.seed(GAME)
    commitment = hashlib.sha256(seed).hexdigest()
    assert ring.seed_for(GAME, commitment) == seed == ring.seed_for(GAME, commitment)
    assert ring.seed_for(GAME, "0" * 64) is None


def test_the_lobbys_secrets_derive_from_the_current_key() -> None:
    table = RING.table_id("ann", "t1")
    assert table == RING.table_id("ann", "t1") != RING.table_id("bob", "t1")
    other = Keyring(tuple(reversed(RING.keys)))
    assert other.table_id("ann", "t1") != table  # unguessable without the key
    assert len(RING.table_game_secret(table)) == 64
    code = RING.invitation_code(table, "ann", "i")
    assert (
        code == RING.invitation_code(table, "ann", "i") != RING.invitation_code(table, "ann", "j")
    )
    assert invitation_code(code) == code
