"""The web table's own unit tests (clients/web/test: the replay's fold of a seat's stream and the
scoresheet's running totals), run with Node's test runner through ``npm test``.

Needs Node.js and the page's packages (``npm ci`` in clients/web, which ``.ci/run`` does before
the tests); skipped without them unless ``PREF_REQUIRE_BROWSER=1`` (set by ``.ci/run``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"


def test_web_table_unit_tests_pass() -> None:
    npm = shutil.which("npm")
    ready = npm is not None and (WEB / "node_modules" / ".bin" / "esbuild").exists()
    if not ready:
        why = "npm or clients/web/node_modules is missing (npm ci in clients/web)"
        if os.environ.get("PREF_REQUIRE_BROWSER") == "1":
            pytest.fail(why)
        pytest.skip(why)
    assert npm is not None
    run = subprocess.run(
        [npm, "test", "--silent"],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "# fail 0" in run.stdout
