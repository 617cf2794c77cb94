"""The page-token codec and bounded pages (``service.api.pagetoken``): any text a client sends is
either a token this server issued for this method and query, or ``BadInput`` on page_token."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.api.errors import BadInput
from service.api.pagetoken import (
    MAC_BYTES,
    MAX_TOKEN_LENGTH,
    PageTokens,
    fill_page,
    keyset_rows,
    page_size,
)

TOKENS = PageTokens(b"k" * 32)
QUERY = ("league", "rating", True)


def _refused(token: str, kind: str = "leaderboard", query: tuple[object, ...] = QUERY) -> str:
    with pytest.raises(BadInput) as raised:
        TOKENS.decode(token, kind, query)  # type: ignore[arg-type]
    assert raised.value.field == "page_token"
    return raised.value.message


@given(st.text(max_size=3000))
def test_any_text_is_a_token_of_ours_or_bad_input(text: str) -> None:
    if not text:
        assert TOKENS.decode(text, "leaderboard", QUERY) is None
        return
    _refused(text)


@given(st.binary(max_size=2000))
def test_any_base64_bytes_are_refused_without_a_valid_mac(data: bytes) -> None:
    if data:
        _refused(base64.urlsafe_b64encode(data).decode())


@given(
    st.lists(
        st.one_of(
            st.text(max_size=50),
            st.integers(),
            st.floats(allow_nan=False, allow_infinity=False),
            st.booleans(),
        )
    )
)
def test_positions_round_trip(position: list[object]) -> None:
    token = TOKENS.encode("leaderboard", QUERY, position)  # type: ignore[arg-type]
    assert TOKENS.decode(token, "leaderboard", QUERY) == position


def test_a_token_is_bound_to_its_method_query_and_key() -> None:
    token = TOKENS.encode("leaderboard", QUERY, [1500.5, "ann", 3])
    assert "another query" in _refused(token, query=("league", "rating", False))
    assert "another query" in _refused(token, query=("other", "rating", True))
    assert "not one this server issued" in _refused(token, kind="games")
    with pytest.raises(BadInput):
        PageTokens(b"x" * 32).decode(token, "leaderboard", QUERY)
    # Derived keys agree between replicas, and differ from the secret they come from.
    secret = b"s" * 32
    assert PageTokens.derived_from(secret).decode(
        PageTokens.derived_from(secret).encode("games", (), [1]), "games", ()
    ) == [1]
    with pytest.raises(BadInput):
        PageTokens(secret).decode(
            PageTokens.derived_from(secret).encode("games", (), [1]), "games", ()
        )


def test_hostile_tokens_are_refused_before_any_parsing() -> None:
    nested = b"[" * 200_000 + b"]" * 200_000
    for token in (
        base64.urlsafe_b64encode(nested).decode(),
        base64.urlsafe_b64encode(b"offset:" + b"9" * 10_000).decode(),
        "A" * (MAX_TOKEN_LENGTH + 1),
        base64.urlsafe_b64encode(b"\0" * MAC_BYTES + json.dumps({"p": [1]}).encode()).decode(),
    ):
        _refused(token)
    assert len(TOKENS.encode("leaderboard", QUERY, [1.0, "é" * 256, 10**6])) <= MAX_TOKEN_LENGTH
    assert not TOKENS.fits("leaderboard", QUERY, [1.0, "x" * 5000, 1])
    assert not TOKENS.fits("leaderboard", QUERY, [float("inf"), "ann", 1])


def test_page_sizes_have_a_default_and_a_maximum() -> None:
    assert page_size(0, 50, 500) == 50
    assert page_size(500, 50, 500) == 500
    for bad in (-1, 501, 2**31 - 1):
        with pytest.raises(BadInput) as raised:
            page_size(bad, 50, 500)
        assert raised.value.field == "page_size"


def test_a_page_stops_at_its_size_or_its_byte_budget() -> None:
    rows = [("r", n) for n in range(10)]
    page = fill_page(iter(rows), 4, lambda r: r, lambda m: 10, budget=1000)
    assert page.messages == rows[:4] and page.last == rows[3] and page.more
    page = fill_page(iter(rows), 100, lambda r: r, lambda m: 92, budget=300)
    assert page.messages == rows[:3] and page.more  # 3 x (92 + 8) bytes
    page = fill_page(iter(rows), 100, lambda r: r, lambda m: 10, budget=1000)
    assert page.messages == rows and not page.more


def test_rows_too_big_or_unlistable_are_skipped_unless_sent_alone() -> None:
    sizes = {0: 10, 1: 5000, 2: 10, 3: 10}
    rows = list(range(4))
    page = fill_page(iter(rows), 10, lambda r: r, lambda m: sizes[m], budget=1000)
    assert page.messages == [0, 2, 3] and not page.more
    page = fill_page(iter(rows), 10, lambda r: r, lambda m: 1, listable=lambda r: r != 2)
    assert page.messages == [0, 1, 3]
    first = fill_page(
        iter(rows), 10, lambda r: r, lambda m: sizes[m], budget=1000, oversized_alone=True
    )
    assert first.messages == [0] and first.last == 0 and first.more
    alone = fill_page(
        iter(rows[1:]), 10, lambda r: r, lambda m: sizes[m], budget=1000, oversized_alone=True
    )
    assert alone.messages == [1] and alone.last == 1 and alone.more


def test_keyset_rows_read_in_batches_after_the_last_key() -> None:
    data = list(range(200))
    calls: list[tuple[int | None, int]] = []

    def fetch(after: int | None, limit: int) -> list[int]:
        calls.append((after, limit))
        start = 0 if after is None else after + 1
        return data[start : start + limit]

    assert list(keyset_rows(fetch, lambda r: r, None)) == data
    assert [after for after, _ in calls] == [None, 63, 127, 191]
    calls.clear()
    reader = keyset_rows(fetch, lambda r: r, 9)
    assert next(reader) == 10 and len(calls) == 1
