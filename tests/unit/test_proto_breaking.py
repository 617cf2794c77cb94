"""``scripts/buf-breaking`` catches a breaking change of the public contract.

The script checks a copy of ``proto/`` against the released baseline image
(``proto/baseline/v1.binpb``) with buf's FILE rules; it gets buf from the npm registry as
``scripts/buf-lint`` does, so these tests need npm (skipped without it). Today's contract
passes; copies broken on purpose (a field deleted, a field's type changed, a field renumbered)
fail and name what broke.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAME = Path("preferans/v1/game.proto")

pytestmark = pytest.mark.skipif(
    shutil.which("npm") is None, reason="buf comes from the npm registry: npm is needed"
)


def _copy(tmp_path: Path) -> Path:
    """A copy of today's ``proto/`` (without the baseline) to break."""
    copy = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", copy, ignore=shutil.ignore_patterns("baseline"))
    return copy


def _breaking(proto: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROOT / "scripts" / "buf-breaking"), str(proto)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _edit(proto: Path, pattern: str, replacement: str) -> None:
    path = proto / GAME
    text, count = re.subn(pattern, replacement, path.read_text(), flags=re.MULTILINE)
    assert count == 1, f"{pattern!r} matched {count} times"
    path.write_text(text)


def test_todays_contract_is_compatible_with_the_released_one(tmp_path: Path) -> None:
    done = _breaking(_copy(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("pattern", "replacement", "reported"),
    [
        (r"^  int32 orderer = 15;$", "  reserved 15;", 'field "15" with name "orderer"'),
        (
            r"^  int32 deal_number = 6;$",
            "  string deal_number = 6;",
            'name "deal_number" on message "Game" changed type',
        ),
        (
            r"^  repeated string seat_tokens = 2;$",
            "  repeated string seat_tokens = 7;",
            'field "2" with name "seat_tokens"',
        ),
    ],
    ids=["field-deleted", "type-changed", "renumbered"],
)
def test_a_breaking_change_fails(
    tmp_path: Path, pattern: str, replacement: str, reported: str
) -> None:
    proto = _copy(tmp_path)
    _edit(proto, pattern, replacement)
    done = _breaking(proto)
    assert done.returncode != 0
    assert reported in done.stdout + done.stderr
