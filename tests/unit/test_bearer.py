"""One reading of ``authorization: Bearer <token>`` for the seat tokens, the audit API and the
quotas (``service.api.auth.bearer_token``): they must agree on which credential a call carries."""

from __future__ import annotations

from typing import Any

import pytest

from service.api.auth import bearer_token
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
