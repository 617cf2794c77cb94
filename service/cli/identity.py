"""Player identity on the command line: ``pref serve``'s issuer options and ``pref token``.

``pref token NAME`` mints a JWT of the development issuer (``service.app.devissuer``) for the
player NAME and prints only the token, so a script can capture it; ``pref token --jwks`` prints
the issuer's public key set. Both find the key as ``pref serve --dev-auth`` does (same
``--store`` and ``--dev-issuer-key``), creating it owner-only when missing.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING

from service.app.devissuer import AUDIENCE, DEFAULT_TTL, DEV_AUTH_ENV, DEV_KEY_FILE_ENV, MAX_TTL
from service.app.identity import AUDIENCE_ENV, ISSUER_ENV, JWKS_URL_ENV

if TYPE_CHECKING:
    from service.app import devissuer

TOKEN_ENV = "PREF_TOKEN"
"""Where ``pref play`` finds the person's JWT when ``--token`` is not given."""
DEV_AUTH_HELP = (
    "NOT FOR PRODUCTION: also trust the local development issuer, whose tokens anyone who can "
    f"read its key file mints for any name (`pref token NAME`; default: ${DEV_AUTH_ENV})"
)
DEV_KEY_HELP = (
    f"the development issuer's Ed25519 key (PEM; default: ${DEV_KEY_FILE_ENV}, or for SQLite "
    "<store>.dev-issuer.pem; created owner-only when missing)"
)


def add_identity_options(serve: argparse.ArgumentParser) -> None:
    """``pref serve``'s options for JWT callers (docs/SECURITY.md, "Player identity")."""
    serve.add_argument(
        "--oidc-issuer", help=f"trust JWTs of this OpenID Connect issuer (its iss; ${ISSUER_ENV})"
    )
    serve.add_argument(
        "--oidc-audience", help=f"the audience its tokens must name (aud; ${AUDIENCE_ENV})"
    )
    serve.add_argument(
        "--oidc-jwks-url",
        help=f"the issuer's JWKS document (https, or http on loopback; ${JWKS_URL_ENV})",
    )
    serve.add_argument("--dev-auth", action="store_true", help=DEV_AUTH_HELP)
    serve.add_argument("--dev-issuer-key", help=DEV_KEY_HELP)


def identity_env(args: argparse.Namespace) -> dict[str, str]:
    """The environment the identity options of ``pref serve``/``pref token`` set."""
    env = {}
    for option, name in (
        ("oidc_issuer", ISSUER_ENV),
        ("oidc_audience", AUDIENCE_ENV),
        ("oidc_jwks_url", JWKS_URL_ENV),
        ("dev_issuer_key", DEV_KEY_FILE_ENV),
    ):
        value = getattr(args, option, None)
        if value:
            env[name] = value
    if getattr(args, "dev_auth", False):
        env[DEV_AUTH_ENV] = "1"
    return env


def ttl_arg(text: str) -> int:
    """``--ttl``: seconds from 1 to ``MAX_TTL``."""
    if not text.strip().isdigit() or not 1 <= int(text) <= MAX_TTL:
        raise argparse.ArgumentTypeError(f"--ttl must be a whole number of seconds, 1 to {MAX_TTL}")
    return int(text)


def _dev_issuer(args: argparse.Namespace) -> devissuer.DevIssuer:
    """The development issuer ``pref serve --dev-auth`` with the same options uses."""
    from service.app import devissuer
    from service.app.config import store_config

    env = {**os.environ, **store_config(args.store).env, **identity_env(args)}
    return devissuer.load(env)


def mint_dev_token(args: argparse.Namespace, name: str) -> str:
    """A development issuer's token for ``name`` (``pref play --as NAME``)."""
    return _dev_issuer(args).mint(name)


def cmd_token(args: argparse.Namespace) -> int:
    """Print a development issuer's token for NAME (or its JWKS with ``--jwks``)."""
    from service.app.config import ConfigError

    issuer = _dev_issuer(args)
    if args.jwks:
        print(json.dumps(issuer.jwks(), indent=2))
        return 0
    if args.name is None:
        raise ConfigError("pref token: give the player's NAME (or --jwks)")
    print(issuer.mint(args.name, args.ttl, args.audience))
    return 0


def add_token_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], store_help: str
) -> None:
    """The ``pref token`` command."""
    token = sub.add_parser(
        "token",
        help="mint a development issuer's JWT for a player (NOT FOR PRODUCTION; pref serve "
        "--dev-auth accepts it)",
    )
    token.add_argument("name", nargs="?", help="the player id the token proves (its sub)")
    token.add_argument(
        "--ttl", type=ttl_arg, default=DEFAULT_TTL, help=f"seconds valid (default {DEFAULT_TTL})"
    )
    token.add_argument(
        "--audience",
        default=AUDIENCE,
        help=f"the token's aud (default: {AUDIENCE}, what the server expects)",
    )
    token.add_argument("--jwks", action="store_true", help="print the public key set instead")
    token.add_argument("--store", help=store_help)
    token.add_argument("--dev-issuer-key", help=DEV_KEY_HELP)
    token.set_defaults(func=cmd_token)
