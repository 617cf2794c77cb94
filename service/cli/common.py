"""Helpers the ``pref`` commands share: seeds, opening the store, clients, game ids, options."""

from __future__ import annotations

import argparse
import hashlib
import os
import secrets
import uuid
from typing import TYPE_CHECKING, Any

from domain.rules.seats import DUMMY, hand_seats, positions, seat_name

if TYPE_CHECKING:
    from service.app.application import PreferansApplication


def position_name(position: int, players: int) -> str:
    """A seat's label, or with two players "Dummy" for the dummy's position ``DUMMY`` of a
    deal's per-position data (RULES.md §3.6)."""
    return "Dummy" if players == 2 and position == DUMMY else seat_name(position)


def position_names(players: int) -> list[str]:
    """The labels of a deal's positions: the seats, and with two players the dummy."""
    return [position_name(p, players) for p in range(positions(players))]


def position(dealer: int, seat: int, players: int, dummy_hand: int = 1) -> str:
    """A seat's part in the deal (RULES.md §3.6): ``H1`` … ``H3`` (``H3 dealer`` with three
    players); with four or five the dealer holds no hand and "sits on the talon", and with five
    the seat to his right (who dealt before him) sits out too; with two the dummy's position
    (``DUMMY``) is ``H1`` or ``H2 dummy`` (``dummy_hand``)."""
    held = hand_seats(dealer, players, dummy_hand)
    if players == 2 and seat == DUMMY:
        return f"H{held.index(seat) + 1} dummy"
    if seat not in held:
        return "dealer, on the talon" if seat == dealer else "sits out"
    return f"H{held.index(seat) + 1}" + (" dealer" if seat == dealer else "")


def seed_from(text: str | None) -> bytes:
    """A game seed: SHA-256 of the given text (reproducible), or 32 fresh random bytes."""
    if text is None:
        return secrets.token_bytes(32)
    return hashlib.sha256(text.encode()).digest()


def open_app(store: str | None) -> PreferansApplication:
    from service.app.application import PreferansApplication
    from service.app.config import store_config

    return PreferansApplication(store_config(store).env)


def client_for(args: argparse.Namespace) -> Any:
    """The API client of ``pref bots``/``pref play`` (TLS with ``--tls-ca`` and friends)."""
    from service.client import GameClient

    return GameClient(args.server, tls_ca=args.tls_ca, tls_cert=args.tls_cert, tls_key=args.tls_key)


def game_id_arg(text: str) -> uuid.UUID:
    """A game id given as a UUID or as ``games/<uuid>`` (the form the CLI prints)."""
    try:
        return uuid.UUID(text.removeprefix("games/"))
    except ValueError:
        # argparse (``type=game_id_arg``) prints it as a usage error and exits 2.
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r} is not a game id (a UUID, or games/<uuid>)"
        ) from None


def tls_client_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tls-ca",
        default=os.environ.get("PREF_TLS_CA"),
        help="connect with TLS, trusting this CA (PEM; default: $PREF_TLS_CA)",
    )
    parser.add_argument(
        "--tls-cert",
        default=os.environ.get("PREF_TLS_CLIENT_CERT"),
        help="mTLS: this client's certificate (PEM; default: $PREF_TLS_CLIENT_CERT)",
    )
    parser.add_argument(
        "--tls-key",
        default=os.environ.get("PREF_TLS_CLIENT_KEY"),
        help="mTLS: this client's private key (PEM; default: $PREF_TLS_CLIENT_KEY)",
    )


def metrics_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        help="serve Prometheus metrics at http://HOST:PORT/metrics (default: not served)",
    )
    parser.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        help="address of the metrics listener (default: 127.0.0.1, this machine only)",
    )
