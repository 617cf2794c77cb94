"""``requirements.lock`` (made by ``scripts/lock``) agrees with pyproject.toml, and the container
image installs from it.

The lock pins every runtime dependency and the build backend with sha256 hashes; the image
installs it with ``--require-hashes``, so a dependency added to pyproject but not locked would
make the build fail (or, worse, be missing at run time). Run ``./scripts/lock`` after changing
pyproject's dependencies.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements.lock"
DOCKERFILE = ROOT / "k8s" / "Dockerfile"

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")
_HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


def parse_lock(text: str) -> dict[str, tuple[Version, int]]:
    """Each locked package (canonical name) → its pinned version and how many hashes it has."""
    entries: dict[str, tuple[Version, int]] = {}
    current: str | None = None
    for line in text.splitlines():
        pin = _PIN.match(line)
        if pin:
            current = canonicalize_name(pin.group(1))
            entries[current] = (Version(pin.group(2)), 0)
        elif current is not None and _HASH.search(line):
            version, hashes = entries[current]
            entries[current] = (version, hashes + 1)
        elif line and not line.startswith((" ", "#")):
            raise ValueError(f"requirements.lock: not a pinned requirement: {line!r}")
    return entries


def unlocked(requirements: list[str], lock: dict[str, tuple[Version, int]]) -> list[str]:
    """The requirements the lock does not satisfy (missing, or pinned outside the range)."""
    missing = []
    for text in requirements:
        requirement = Requirement(text)
        pinned = lock.get(canonicalize_name(requirement.name))
        if pinned is None or not requirement.specifier.contains(pinned[0], prereleases=True):
            missing.append(text)
    return missing


def _pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _runtime_and_build_requirements() -> list[str]:
    data = _pyproject()
    project = data["project"]
    build = data["build-system"]
    assert isinstance(project, dict) and isinstance(build, dict)
    return [*project["dependencies"], *build["requires"]]


def test_every_dependency_of_pyproject_is_pinned_in_the_lock() -> None:
    lock = parse_lock(LOCK.read_text(encoding="utf-8"))
    missing = unlocked(_runtime_and_build_requirements(), lock)
    assert not missing, (
        f"requirements.lock does not satisfy {missing}: run ./scripts/lock and commit the result"
    )


def test_every_locked_package_has_a_hash() -> None:
    """``pip install --require-hashes`` refuses a lock with an unhashed entry."""
    lock = parse_lock(LOCK.read_text(encoding="utf-8"))
    assert lock
    assert [name for name, (_, hashes) in lock.items() if hashes == 0] == []


def test_the_check_catches_an_unlocked_or_out_of_range_dependency() -> None:
    lock = parse_lock(
        "grpcio==1.85.3 \\\n    --hash=sha256:" + "0" * 64 + "\n    # via x\n"
        "protobuf==5.29.0 \\\n    --hash=sha256:" + "1" * 64 + "\n"
    )
    assert unlocked(["grpcio>=1.85,<2", "protobuf>=6.31,<8", "rich>=13"], lock) == [
        "protobuf>=6.31,<8",
        "rich>=13",
    ]


def test_the_image_installs_the_lock_as_an_unprivileged_user_writing_only_to_data() -> None:
    """The Dockerfile (no daemon in CI to build it): a pinned base, the hashed lock, user
    10001, and a data directory that user owns as the working directory."""
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert re.search(r"python:3\.11\.\d+-slim-\w+@sha256:[0-9a-f]{64}", text), (
        "pin the base image by full version tag and digest"
    )
    assert "--require-hashes" in text and "requirements.lock" in text
    assert "USER 10001:10001" in text
    assert "--owner=10001 --group=10001" in text and "/data" in text
    runtime = text.rsplit("\nFROM ", 1)[1]
    assert "WORKDIR /data" in runtime and 'VOLUME ["/data"]' in runtime
