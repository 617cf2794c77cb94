"""``pref play``'s options for people signed in with a JWT: playing one's seat of a game
(``service.cli.online``) and the lobby (``service.cli.lobby``). Kept apart from those modules so
that building the parser imports neither gRPC nor the terminal table."""

from __future__ import annotations

import argparse

from service.cli.identity import DEV_KEY_HELP, TOKEN_ENV

ON_TIMEOUT = ("default_move", "forfeit")


def add_online_options(play: argparse.ArgumentParser) -> None:
    """``pref play``'s options for a person signed in with a JWT."""
    play.add_argument(
        "--token", help=f"your JWT (default: ${TOKEN_ENV}); the server must trust its issuer"
    )
    play.add_argument(
        "--as",
        dest="as_player",
        metavar="NAME",
        help="sign in as NAME with a token of the development issuer (as `pref token NAME`; "
        "NOT FOR PRODUCTION: for a local `pref serve --dev-auth`)",
    )
    play.add_argument("--store", help="with --as: the store whose development key to use")
    play.add_argument("--dev-issuer-key", help=DEV_KEY_HELP)
    play.add_argument(
        "--game", help="play your seat of this game (games/<id>), signed in with your JWT"
    )


def add_lobby_options(play: argparse.ArgumentParser) -> None:
    """``pref play``'s lobby: list, open or join a table, then play its game."""
    lobby = play.add_argument_group(
        "tables (the lobby; with a JWT: --token, $PREF_TOKEN or --as NAME)"
    )
    lobby.add_argument("--list", action="store_true", help="list the open public tables")
    lobby.add_argument(
        "--create-table",
        action="store_true",
        help="open a table with --system/--option/--pool/--players and the options below, sit "
        "at seat 0, wait for the others, then play",
    )
    lobby.add_argument("--join", metavar="TABLE", help="take a free seat at a public table")
    lobby.add_argument(
        "--invite", metavar="LINK", help="take the seat of an invitation (TABLE#CODE)"
    )
    lobby.add_argument(
        "--private", action="store_true", help="with --create-table: not listed; invitations"
    )
    lobby.add_argument(
        "--fill-bots",
        action="store_true",
        help="with --create-table: the server's bots take the empty seats at once",
    )
    lobby.add_argument("--move-seconds", type=int, default=0, help="seconds per decision")
    lobby.add_argument("--bank-seconds", type=int, default=0, help="each seat's bank, seconds")
    lobby.add_argument(
        "--increment-seconds", type=int, default=0, help="seconds added after each decision"
    )
    lobby.add_argument(
        "--on-timeout",
        choices=ON_TIMEOUT,
        default="default_move",
        help="a seat out of time gets the default move (default) or forfeits",
    )
    lobby.add_argument(
        "--stake", type=int, default=0, help="virtual coins per whist (default 0: no stakes)"
    )
    lobby.add_argument("--league", default="", help="the table's league tag (default: none)")
