"""docs/SYSTEMS.md and docs/EVENTS.md against the code (issue 12 asks for Classic "everywhere
the other systems are"): every rule option has its row, the count of options is right, every
named system has its column, and every decision event is documented."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from domain.model.decisions import DECISIONS
from domain.rules.ruleset import RuleSet
from domain.rules.systems import RULE_SETS

DOCS = Path(__file__).resolve().parents[2] / "docs"
SYSTEMS = (DOCS / "SYSTEMS.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = SYSTEMS.index(f"\n## {title}")
    end = SYSTEMS.find("\n## ", start + 1)
    return SYSTEMS[start:end]


def test_every_rule_option_has_its_row_and_the_count_is_right() -> None:
    fields = [f.name for f in dataclasses.fields(RuleSet)]
    options = section("3. Every option")
    rows = set(re.findall(r"^\| `([a-z_]+)`", options, flags=re.MULTILINE))
    assert set(fields) - rows == set()
    assert rows - set(fields) == set()
    assert f"({len(fields)} fields)" in options and f"All {len(fields)} fields" in options


def test_every_named_system_has_its_column() -> None:
    header = next(
        line for line in section("2. The systems side by side").splitlines() if line.startswith("|")
    )
    columns = [c.strip() for c in header.strip("|").split("|")][1:]
    assert columns == list(RULE_SETS)


def test_every_decision_event_is_documented() -> None:
    events = (DOCS / "EVENTS.md").read_text(encoding="utf-8")
    missing = [row.name for row in DECISIONS if f"`{row.name}`" not in events]
    assert missing == []
    for name in ("GameOrdered", "TimeCalled"):
        assert f"`{name}`" in events and f"`{name}`" in SYSTEMS
