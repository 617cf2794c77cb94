"""Group a py-spy profile of the game server by the part of the service each sample is in.

Run: ``.venv/bin/python bench/profile_parts.py /tmp/prof.txt`` on the raw (folded) output of
``bench/grpc_bench.py … --profile-server /tmp/prof.txt --profile-format raw`` (py-spy
``record --gil``). Each sample goes to the first part whose marker appears in its stack, read
from the innermost frame outwards; start-up (imports, the parser) is left out. A sample whose
innermost Python frame is ``Handle._run`` is time in C under the event loop (the grpc.aio
Cython server, protobuf, C task steps), which py-spy cannot see into. docs/PERFORMANCE.md
quotes the table this prints.
"""

from __future__ import annotations

import argparse
from collections import Counter

STARTUP = ("_find_and_load", "build_parser")
GRPC_C = "grpc C (Cython server, protobuf, C task steps)"
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("JSON encoding of event state", ("JSONEncoder", "json/encoder", "json/decoder", "ranscoder")),
    ("psycopg (SQL round trips)", ("psycopg/",)),
    ("eventsourcing recorder and mapper", ("eventsourcing/",)),
    ("group-commit thread hand-off", ("groupcommit.py",)),
    ("domain (Game.act, hash chain, rules core)", ("domain/model", "domain/rules/")),
    ("seat views (seat_view + proto mapping)", ("seat_view", "mapping.py")),
    ("auth (token HMAC, revocations)", ("auth.py", "keys.py", "keystore.py", "hmac.py")),
    ("logging interceptor", ("logs.py", "structlog")),
    ("quota interceptor", ("quotas.py",)),
    ("malformed-request interceptor", ("malformed.py",)),
    ("application command path", ("service/app/",)),
    ("servicer code", ("game_servicer.py",)),
    (
        "thread-pool hops",
        (
            "concurrent/futures",
            "threading.py",
            "run_in_executor",
            "call_soon_threadsafe",
            "_write_to_self",
            "_read_from_self",
            "queue.py",
        ),
    ),
    ("asyncio loop", ("selectors.py", "asyncio/")),
    ("grpc.aio Python", ("grpc/aio", "grpc/_")),
)


def part_of(frames: list[str]) -> str | None:
    """The part a sample's stack is in (``None``: start-up, left out)."""
    if any(marker in frame for frame in frames for marker in STARTUP):
        return None
    if frames and frames[-1].startswith("Handle._run"):
        return GRPC_C
    for frame in reversed(frames):
        for name, markers in PARTS:
            if any(marker in frame for marker in markers):
                return name
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("profile", help="py-spy raw (folded) output")
    args = parser.parse_args()
    parts: Counter[str] = Counter()
    with open(args.profile, encoding="utf-8") as lines:
        for line in lines:
            stack, _, count = line.rstrip().rpartition(" ")
            if not stack:
                continue
            part = part_of(stack.split(";")[1:])
            if part is not None:
                parts[part] += int(count)
    total = sum(parts.values())
    print(f"steady-state samples: {total}")
    for name, samples in parts.most_common():
        print(f"{100 * samples / max(total, 1):5.1f} %  {name}")


if __name__ == "__main__":
    main()
