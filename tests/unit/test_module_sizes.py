"""The house rule of STYLE.md (issue 10, item 6): no module over ~400 lines without the reason
written at its top. A module of more than 420 lines (generated code aside) says "over 400
lines" in its docstring, and why."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "projections", "service")
LIMIT = 420


def test_every_long_module_says_why_at_its_top() -> None:
    silent = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "gen" in path.relative_to(ROOT).parts:
                continue
            text = path.read_text(encoding="utf-8")
            if text.count("\n") <= LIMIT:
                continue
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "over 400 lines" not in doc.lower():
                silent.append(f"{path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    assert not silent, "long modules without a reason at their top: " + ", ".join(silent)
