"""``pref serve`` tunes Python's cyclic garbage collector once it has started
(``service.api.server.tune_collector``, docs/PERFORMANCE.md "Garbage collection"): the start-up
heap (modules, descriptors, the rule tables: ~110,000 objects) is frozen out of every later
collection, and young collections run every 20,000 allocations instead of 700. Measured under
the Connect benchmark: full collections paused the event loop 30–135 ms each and all
collections took 3–4 % of the server's CPU; after, 0.7 %."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from typing import Any

import pytest

import service.connect.server as connect_server
from service.api.server import COLLECTOR_THRESHOLDS, tune_collector


@pytest.fixture
def restore_collector() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


def test_tune_collector_freezes_the_heap_and_raises_the_young_threshold(
    restore_collector: None,
) -> None:
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    kept = [object() for _ in range(10)]  # something alive to freeze
    tune_collector()
    assert gc.get_freeze_count() > len(kept)
    assert gc.get_threshold() == COLLECTOR_THRESHOLDS
    assert COLLECTOR_THRESHOLDS[0] > 700 and COLLECTOR_THRESHOLDS[2] <= 10  # full ones still run


def test_serve_tunes_the_collector_after_the_servers_start(
    restore_collector: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []

    class Servers:
        async def stop(self, grace: float) -> None:
            order.append("stop")

    async def create_server(*args: Any, **kwargs: Any) -> Servers:
        order.append("create")
        asyncio.get_running_loop().call_soon(
            lambda: asyncio.get_running_loop().call_soon(_interrupt)
        )
        return Servers()

    def _interrupt() -> None:
        import os
        import signal

        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(connect_server, "create_server", create_server)
    monkeypatch.setattr(connect_server, "tune_collector", lambda: order.append("tune"))
    asyncio.run(connect_server.serve(None, "127.0.0.1:0"))  # type: ignore[arg-type]
    assert order == ["create", "tune", "stop"]
