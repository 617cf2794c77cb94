"""gRPC health of the read models: one health service name per projection,
``preferans.v1.projections.<name>`` (``games``, ``stats``, ``ledger``:
``projections.PROJECTION_NAMES``).

Each is SERVING while its projection keeps up and NOT_SERVING while its runner fails (an event
it cannot apply, or the store failing); the whole server ("") stays SERVING, since commands and
the event log are unaffected. Only a server that runs the projection worker reports them.
"""

from __future__ import annotations

import asyncio
import contextlib

from grpc_health.v1 import health, health_pb2

from projections.worker import ProjectionStatus, ProjectionWorker

PROJECTION_HEALTH_PREFIX = "preferans.v1.projections."


def projection_health_name(projection: str) -> str:
    """The health service name of a projection's read model."""
    return PROJECTION_HEALTH_PREFIX + projection


async def report_projection_health(
    worker: ProjectionWorker, servicer: health.aio.HealthServicer
) -> None:
    """Set each read model's health now, and again whenever the worker's status changes."""
    loop = asyncio.get_running_loop()
    for name, status in worker.statuses().items():
        await servicer.set(projection_health_name(name), _health(status))

    def listener(status: ProjectionStatus) -> None:
        # Called from the worker's thread (or from here, by ``watch``): hand over to the loop.
        if loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop stopped meanwhile (shutting down)
            asyncio.run_coroutine_threadsafe(
                servicer.set(projection_health_name(status.name), _health(status)), loop
            )

    worker.watch(listener)


def _health(status: ProjectionStatus) -> int:
    if status.serving:
        return health_pb2.HealthCheckResponse.SERVING
    return health_pb2.HealthCheckResponse.NOT_SERVING
