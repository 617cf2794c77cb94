"""Prometheus metrics of the read models (``prometheus_client``; served by ``pref serve
--metrics-port`` and ``pref projections run --metrics-port``).

- ``preferans_projection_position{projection}``: the last event applied (notification id);
- ``preferans_projection_lag_events{projection}``: events recorded but not applied yet;
- ``preferans_projection_serving{projection}``: 1 while the read model keeps up, 0 while its
  runner fails (the same as its gRPC health);
- ``preferans_projection_failures_total{projection,kind}``: failed attempts, ``kind`` is
  ``transient`` (the store was unavailable or busy; retried) or ``event`` (an event the read
  model cannot take; retried with backoff, but it stays stopped there until fixed);
- ``preferans_projection_rebuilds_total{projection}``: rebuilds swapped in by this process.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, start_http_server

POSITION = Gauge(
    "preferans_projection_position", "Last event applied by the projection", ["projection"]
)
LAG = Gauge(
    "preferans_projection_lag_events", "Events recorded but not yet applied", ["projection"]
)
SERVING = Gauge(
    "preferans_projection_serving",
    "1 while the read model keeps up, 0 while it fails",
    ["projection"],
)
FAILURES = Counter(
    "preferans_projection_failures",
    "Failed attempts to apply events (kind: transient or event)",
    ["projection", "kind"],
)
REBUILDS = Counter("preferans_projection_rebuilds", "Rebuilds swapped in", ["projection"])


def serve_metrics(
    host: str, port: int, *, certfile: str | None = None, keyfile: str | None = None
) -> int:
    """Serve ``/metrics`` in a daemon thread (HTTPS when given a certificate and its key);
    return the bound port (0 picks a free one)."""
    server, _thread = start_http_server(port, addr=host, certfile=certfile, keyfile=keyfile)
    return int(server.server_port)
