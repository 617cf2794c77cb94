"""``pref keys``: create a key file, move the legacy key out of the database, revoke tokens."""

from __future__ import annotations

import argparse
from pathlib import Path

from service.app.keys import LEGACY_KID, KeyConfigError, new_key_line, parse_keys, write_key_file
from service.cli.common import game_id_arg


def cmd_new(args: argparse.Namespace) -> int:
    """Write a new key file (0600) with one fresh key."""
    try:
        write_key_file(Path(args.out), [new_key_line(args.kid)])
    except FileExistsError:
        raise KeyConfigError(f"{args.out} exists: it is never replaced") from None
    print(f"wrote a new key to {args.out} (owner-only); rotate by putting a new line first")
    return 0


def cmd_migrate_legacy(args: argparse.Namespace) -> int:
    """Move the key an earlier version kept in the database into a key file, then delete it
    from the database. The file gets a fresh current key first and the old key as
    ``legacy`` (verification only: its games' seeds, its tokens)."""
    from projections.db import Database
    from service.app.config import store_config
    from service.app.keystore import drop_legacy_key, legacy_key

    db = Database(store_config(args.store).env)
    try:
        key = legacy_key(db)
        if key is None:
            print("no legacy key in the database: nothing to do")
            return 0
        import base64

        out = Path(args.out)
        legacy_line = f"{LEGACY_KID}:{base64.b64encode(key).decode()}"
        if out.exists():
            text = out.read_text()
            if LEGACY_KID not in {kid for kid, _ in parse_keys(text, str(out))}:
                with out.open("a") as keyfile:
                    keyfile.write(legacy_line + "\n")
        else:
            write_key_file(out, [new_key_line(), legacy_line])
        drop_legacy_key(db)
    finally:
        db.close()
    print(f"moved the legacy key to {out} and deleted it from the database")
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    """Refuse every seat token issued so far for a game's seats."""
    from service.app.application import PreferansApplication
    from service.app.config import store_config

    game_id = args.game
    app = PreferansApplication(store_config(args.store).env)
    try:
        if args.seat is None:  # every seat of the game
            seats = list(range(app.get_game(game_id).rule_set.players))
        else:
            seats = [args.seat]
        app.revoke_tokens(game_id, seats)
    finally:
        app.close()
    print(f"revoked the tokens of seat(s) {', '.join(map(str, seats))} of game {game_id}")
    return 0


def add_keys_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], store_help: str
) -> None:
    """The ``pref keys`` subcommands."""
    keys = sub.add_parser("keys", help="server keys and seat tokens")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    new = keys_sub.add_parser("new", help="write a new key file (owner-only)")
    new.add_argument("--out", required=True, help="the key file to create (never replaced)")
    new.add_argument("--kid", default=None, help="the key id (default: k<unix time>)")
    new.set_defaults(func=cmd_new)
    legacy = keys_sub.add_parser(
        "migrate-legacy", help="move the key an earlier version kept in the database to a file"
    )
    legacy.add_argument("--store", help=store_help)
    legacy.add_argument(
        "--out", required=True, help="the key file to create, or to add the legacy key to"
    )
    legacy.set_defaults(func=cmd_migrate_legacy)
    revoke = keys_sub.add_parser("revoke", help="refuse the seat tokens issued so far")
    revoke.add_argument("game", type=game_id_arg, help="the game id (a UUID, or games/<uuid>)")
    revoke.add_argument(
        "--seat", type=int, choices=range(5), help="one seat, 0 to 4 (default: all)"
    )
    revoke.add_argument("--store", help=store_help)
    revoke.set_defaults(func=cmd_revoke)
