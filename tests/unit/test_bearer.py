"""One reading of ``authorization: Bearer <token>`` for the seat tokens, the audit API and the
quotas (``service.api.auth.bearer_token``): they must agree on which credential a call carries."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from service.api.auth import _CALLER, Caller, bearer_token
from service.api.errors import PermissionDenied, Unauthenticated
from service.api.quotas import CallerIdentity

SECRET = "auditor-secret-for-bearer"


@pytest.mark.parametrize(
    ("metadata", "token"),
    [
        ((), None),
        (None, None),
        ((("x-other", "Bearer a"),), None),
        ((("authorization", "Bearer abc"),), "abc"),
        ((("authorization", "bearer  abc "),), "abc"),
        ((("authorization", b"Bearer abc"),), "abc"),
        ((("authorization", "Basic abc"),), ""),
        ((("authorization", "abc"),), ""),
        ((("authorization", "Bearer first"), ("authorization", "Bearer second")), "first"),
    ],
)
def test_bearer_token_reads_the_first_authorization_header(metadata: Any, token: Any) -> None:
    assert bearer_token(metadata) == token


class _Context:
    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self._metadata = metadata

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return "ipv4:127.0.0.1:5555"


def test_the_quota_caller_is_the_credential_the_servicers_see() -> None:
    """A second ``authorization`` header is never read by the servicers, so it must not name
    the caller for the quotas either (it would borrow the auditor's budget)."""
    identify = CallerIdentity(app=None, auditor_token=SECRET)  # type: ignore[arg-type]
    auditor = ("authorization", f"Bearer auditor:{SECRET}")
    assert identify(_Context((auditor,)), seats=False) == "auditor"  # type: ignore[arg-type]
    hidden = _Context((("authorization", "Bearer not-a-token"), auditor))
    assert identify(hidden, seats=False) == "peer 127.0.0.1"  # type: ignore[arg-type]


# -- a player's JWT (issue 14): the caller it makes ----------------------------------------

GAME = uuid.UUID("00000000-0000-4000-8000-000000000001")


def test_a_player_sits_where_its_id_is_among_the_current_players() -> None:
    caller = Caller(player_id="bob")
    assert caller.seat_at(GAME, ["ann", "bob", "cid"]) == 1
    with pytest.raises(PermissionDenied, match="you do not sit at this game"):
        caller.seat_at(GAME, ["ann", "dan", "cid"])
    assert caller.player() == "bob"


def test_a_seat_token_keeps_its_seat_and_names_no_player() -> None:
    caller = Caller(GAME, 2)
    assert caller.seat_at(GAME, ["ann", "bob", "cid"]) == 2
    with pytest.raises(Unauthenticated, match="a seat token names a seat, not a player"):
        caller.player()


def test_without_a_player_the_lobby_says_what_to_send() -> None:
    with pytest.raises(Unauthenticated, match="needs a player's token"):
        Caller().player()
    with pytest.raises(Unauthenticated, match="the token has expired"):
        Caller(problem="the token has expired").player()


def test_the_quotas_count_a_player_by_its_id() -> None:
    identify = CallerIdentity(app=None, auditor_token=SECRET)  # type: ignore[arg-type]
    context = _Context((("authorization", "Bearer a.b.c"),))
    token = _CALLER.set(Caller(player_id="ann"))
    try:
        assert identify(context, seats=False) == "player ann"  # type: ignore[arg-type]
        assert identify(context) == "player ann"  # type: ignore[arg-type]
    finally:
        _CALLER.reset(token)
