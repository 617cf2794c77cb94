"""The rules for client strings (``service.app.validation``): NFC, refused characters, limits, and
refusals that never echo the input."""

from __future__ import annotations

import unicodedata

import pytest

from domain.rules.errors import InvalidAction
from service.app import validation

DECOMPOSED = "Ame\u0301lie"
COMPOSED = "Am\u00e9lie"

REFUSED_CHARACTERS = {
    "NUL": "\x00",
    "bell (Cc)": "\x07",
    "newline (Cc)": "\n",
    "tab (Cc)": "\t",
    "DEL (Cc)": "\x7f",
    "C1 control (Cc)": "\x85",
    "bidi override RLO (Cf)": "\u202e",
    "bidi embedding LRE (Cf)": "\u202a",
    "bidi isolate RLI (Cf)": "\u2067",
    "pop directional isolate (Cf)": "\u2069",
    "zero-width space (Cf)": "\u200b",
    "zero-width joiner (Cf)": "\u200d",
    "byte order mark (Cf)": "\ufeff",
    "soft hyphen (Cf)": "\u00ad",
    "tag character (Cf)": "\U000e0041",
    "lone surrogate (Cs)": "\udc80",
    "private use (Co)": "\ue000",
    "unassigned (Cn)": "\U0010fffe",
    "line separator (Zl)": "\u2028",
    "paragraph separator (Zp)": "\u2029",
    "no-break space (Zs)": "\u00a0",
    "ideographic space (Zs)": "\u3000",
}


def refusal(check: object, value: str, *args: object) -> InvalidAction:
    assert callable(check)
    with pytest.raises(InvalidAction) as caught:
        check(value, *args)
    return caught.value


@pytest.mark.parametrize("bad", REFUSED_CHARACTERS.values(), ids=REFUSED_CHARACTERS.keys())
@pytest.mark.parametrize(
    ("check", "field"),
    [
        (validation.player_id, "player_id"),
        (validation.league, "league"),
        (validation.request_id, "request_id"),
        (validation.reason, "reason"),
        (validation.game_name, "name"),
    ],
)
def test_refused_characters_anywhere(check: object, field: str, bad: str) -> None:
    error = refusal(check, f"ab{bad}cd")
    assert error.field == field
    assert f"U+{ord(bad):04X}" in error.message
    assert "position 3" in error.message


def test_nfc_makes_the_two_spellings_of_one_name_equal() -> None:
    assert DECOMPOSED != COMPOSED
    assert validation.player_id(DECOMPOSED) == COMPOSED
    assert validation.player_id(COMPOSED) == COMPOSED
    assert validation.league(DECOMPOSED) == COMPOSED
    assert validation.request_id(DECOMPOSED) == COMPOSED
    assert validation.reason(f"ask {DECOMPOSED}") == f"ask {COMPOSED}"


def test_ordinary_text_is_accepted_as_it_is() -> None:
    for text in ["ann", "Анна К", "李小龍", "o'Brien-2", "player_7", "🂡 ace", "x" * 64]:
        assert validation.player_id(text) == text
    assert validation.league("") == ""
    assert validation.reason("the declarer's count was wrong: 6 tricks, not 7") is not None
    assert validation.game_name("games/0b6a2b4e-8f8f-4e0b-9d0e-1c2d3e4f5a6b").startswith("games/")


@pytest.mark.parametrize(
    ("check", "limit"),
    [
        (validation.player_id, validation.MAX_PLAYER_ID),
        (validation.league, validation.MAX_LEAGUE),
        (validation.request_id, validation.MAX_REQUEST_ID),
        (validation.reason, validation.MAX_REASON),
        (validation.game_name, validation.MAX_GAME_NAME),
        (validation.rule_set_name, validation.MAX_RULE_SET_NAME),
        (validation.action_text, validation.MAX_ACTION_TEXT),
        (validation.label, validation.MAX_LABEL),
    ],
)
def test_limits(check: object, limit: int) -> None:
    assert callable(check)
    assert check("a" * limit) == "a" * limit
    error = refusal(check, "a" * (limit + 1))
    assert f"at most {limit} characters" in error.message
    assert str(limit + 1) in error.message


def test_the_limit_counts_characters_after_normalisation() -> None:
    # 64 letters each with a combining accent: 128 code points, 64 once composed.
    assert validation.player_id(DECOMPOSED[2:4] * 64) == "\u00e9" * 64


def test_a_huge_input_is_refused_without_being_normalised_or_echoed() -> None:
    huge = "Z" * 1_300_000
    error = refusal(validation.player_id, huge)
    assert "1300000" in error.message
    assert len(error.message) < 200
    assert "ZZZZ" not in error.message


@pytest.mark.parametrize(
    "check", [validation.player_id, validation.league, validation.request_id, validation.label]
)
@pytest.mark.parametrize("value", [" ann", "ann ", "  "])
def test_identifiers_have_no_surrounding_whitespace(check: object, value: str) -> None:
    error = refusal(check, value)
    assert "space" in error.message


@pytest.mark.parametrize(
    "check", [validation.player_id, validation.request_id, validation.reason, validation.label]
)
def test_required_values(check: object) -> None:
    assert "required" in refusal(check, "").message


def test_reasons_are_free_text_but_not_blank() -> None:
    assert validation.reason(" padded reason ") == " padded reason "
    assert "blank" in refusal(validation.reason, "   ").message


def test_the_field_is_named_as_the_caller_says() -> None:
    assert refusal(validation.player_id, "a\x00", "players[2].player_id").field == (
        "players[2].player_id"
    )


def test_messages_never_echo_the_input() -> None:
    secret = "SECRET-MARKER"
    for check, value in [
        (validation.player_id, f"{secret}\x00"),
        (validation.league, f"{secret}\u202e"),
        (validation.request_id, f" {secret}"),
        (validation.game_name, f"games/{secret}\x00"),
    ]:
        assert secret not in refusal(check, value).message


def test_every_limit_is_in_the_one_table() -> None:
    assert validation.LIMITS["player_id"] == validation.MAX_PLAYER_ID == 64
    assert validation.LIMITS["league"] == validation.MAX_LEAGUE == 64
    assert validation.LIMITS["request_id"] == validation.MAX_REQUEST_ID == 128
    assert validation.LIMITS["reason"] == validation.MAX_REASON == 500
    assert set(validation.LIMITS) >= {"game_name", "rule_set_name", "action_text", "label"}


def test_bounded_for_logs() -> None:
    assert validation.bounded("short") == "short"
    long = "x" * 100_000
    cut = validation.bounded(long)
    assert len(cut) < 260
    assert cut.startswith("x" * 200)
    assert "100000" in cut  # the marker says how long it was
    assert validation.bounded("a\x00b\u202ec") == "a\\x00b\\u202ec"


def test_all_refused_characters_are_really_not_printable() -> None:
    # The documented rule is Python's str.isprintable after NFC: check the table agrees.
    for char in REFUSED_CHARACTERS.values():
        assert not unicodedata.normalize("NFC", char).isprintable()


def test_invitation_codes_are_43_base64url_characters() -> None:
    code = "Ab-_" + "x" * 39
    assert validation.invitation_code(code) == code
    assert validation.invitation_code("") == ""
    for bad in ("short", code + "x", "é" + code[1:], code[:-1] + "=", code[:-1] + "\u202e"):
        with pytest.raises(InvalidAction) as refused:
            validation.invitation_code(bad)
        assert refused.value.field == "invitation_code"
