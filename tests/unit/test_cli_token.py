"""``pref token`` (issue 14, "Player identity"): a development issuer's JWT for a name, printed
alone so a script can capture it; ``--jwks`` prints the issuer's public keys; the key file is
created owner-only and shared with ``pref serve --dev-auth`` (the same options find it)."""

from __future__ import annotations

import json
from pathlib import Path

import jwt
import pytest

from service.app import devissuer
from service.app.identity import JwtVerifier, StaticKeys, TrustedIssuer
from service.cli import build_parser, main


def _token(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["token", *argv]) == 0
    out = capsys.readouterr().out
    assert out.endswith("\n") and out.count("\n") == 1  # the token alone, on one line
    return out.strip()


def test_pref_token_prints_a_token_the_dev_issuer_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "dev.pem"
    token = _token(capsys, "ann", "--dev-issuer-key", str(key))
    assert token.count(".") == 2
    assert key.stat().st_mode & 0o777 == 0o600
    env = {devissuer.DEV_KEY_FILE_ENV: str(key)}
    verifier = JwtVerifier((devissuer.load(env).trusted(),), dev=True)
    assert verifier.verify(token) == "ann"
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == devissuer.DEFAULT_TTL
    assert claims["aud"] == devissuer.AUDIENCE and claims["iss"] == devissuer.ISSUER


def test_ttl_and_audience(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = str(tmp_path / "dev.pem")
    token = _token(capsys, "bob", "--ttl", "60", "--audience", "elsewhere", "--dev-issuer-key", key)
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == 60 and claims["aud"] == "elsewhere"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["token", "bob", "--ttl", "0"])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["token", "bob", "--ttl", str(devissuer.MAX_TTL + 1)])


def test_the_key_beside_a_sqlite_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "events.sqlite"
    _token(capsys, "ann", "--store", str(store))
    assert (tmp_path / "events.sqlite.dev-issuer.pem").exists()


def test_pref_token_jwks_prints_the_public_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = str(tmp_path / "dev.pem")
    token = _token(capsys, "ann", "--dev-issuer-key", key)
    assert main(["token", "--jwks", "--dev-issuer-key", key]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [k["kty"] for k in document["keys"]] == ["OKP"]
    assert "d" not in document["keys"][0]  # no private part
    trusted = TrustedIssuer(devissuer.ISSUER, devissuer.AUDIENCE, StaticKeys(document))
    assert JwtVerifier((trusted,)).verify(token) == "ann"


@pytest.mark.parametrize("name", [" ann", "a" * 65, "ann\u202e"])
def test_a_name_that_is_no_player_id_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert main(["token", name, "--dev-issuer-key", str(tmp_path / "dev.pem")]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "pref: name " in captured.err


def test_the_dev_issuer_is_marked_not_for_production() -> None:
    parser = build_parser()
    serve = next(
        action.choices["serve"]
        for action in parser._actions
        if hasattr(action, "choices") and isinstance(action.choices, dict)
    )
    assert "NOT FOR PRODUCTION" in serve.format_help().replace("\n", " ")
