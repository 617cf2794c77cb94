"""The committed code in ``service/gen`` is what ``scripts/gen-proto`` makes of ``proto/`` today.

The test runs the script itself (one place for the generator's flags and the import rewrite)
into a temporary directory, with this interpreter's ``grpc_tools.protoc`` and mypy-protobuf
plugins, and compares every file byte for byte. The generators are pinned in pyproject's dev
extras, so the output depends only on ``proto/``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "service" / "gen"


def _generate(repo: Path, out: Path) -> None:
    """Run ``repo/scripts/gen-proto`` into ``out`` with the interpreter running the tests."""
    env = dict(os.environ, PYTHON=sys.executable)
    result = subprocess.run(
        [str(repo / "scripts" / "gen-proto"), str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"scripts/gen-proto failed:\n{result.stderr}"


def _files(directory: Path) -> dict[str, bytes]:
    """Every generated file under ``directory`` by relative path (bytecode caches left out)."""
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def _differences(expected: dict[str, bytes], actual: dict[str, bytes]) -> list[str]:
    """Relative paths that are missing, extra or different in ``actual``."""
    return sorted(
        name for name in expected.keys() | actual.keys() if expected.get(name) != actual.get(name)
    )


def test_committed_generated_code_matches_the_proto(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    _generate(ROOT, out)
    stale = _differences(_files(out), _files(GEN))
    assert not stale, (
        f"service/gen is out of date with proto/ ({', '.join(stale)}): "
        "run ./scripts/gen-proto and commit the result"
    )


def test_an_edited_proto_without_regeneration_is_caught(tmp_path: Path) -> None:
    """The comparison above can fail: a field added to a copy of proto/ changes the output."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "proto", repo / "proto")
    shutil.copytree(ROOT / "scripts", repo / "scripts")
    game = repo / "proto" / "preferans" / "v1" / "game.proto"
    game.write_text(
        game.read_text(encoding="utf-8") + "\n// A probe.\nmessage StaleProbe {\n}\n",
        encoding="utf-8",
    )
    out = tmp_path / "gen"
    _generate(repo, out)
    stale = _differences(_files(out), _files(GEN))
    assert "preferans/v1/game_pb2.py" in stale
    assert "preferans/v1/game_pb2.pyi" in stale


def test_the_protobuf_runtime_floor_covers_the_generated_code() -> None:
    """Generated modules refuse to import on a protobuf runtime older than the one they were
    generated for, so pyproject must not allow one."""
    versions = {
        Version(match.group(1))
        for path in GEN.rglob("*_pb2.py")
        if (match := re.search(r"^# Protobuf Python Version: (\S+)$", path.read_text(), re.M))
    }
    assert versions, "no generated module names its protobuf version"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (protobuf,) = (
        Requirement(text)
        for text in project["dependencies"]
        if Requirement(text).name == "protobuf"
    )
    floors = [Version(s.version) for s in protobuf.specifier if s.operator in (">=", "==")]
    assert floors and min(floors) >= max(versions), (
        f"pyproject allows protobuf {protobuf.specifier}, but service/gen needs >= {max(versions)}"
    )
