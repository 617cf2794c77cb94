"""Game affinity (docs/SCALING.md): the client-side pick is stable and moves only the games of
a removed process; the Python client sends the header the router hashes on; the k8s router
and ConfigMap agree with the code."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from service.app.shards import parse_shards
from service.client import SeatClient
from service.client.routing import GAME_ID_HEADER, affinity_metadata, pick

K8S = Path(__file__).resolve().parents[2] / "k8s"
TARGETS = ["10.0.0.1:50051", "10.0.0.2:50051", "10.0.0.3:50051"]


def _games(n: int) -> list[str]:
    return [f"games/{uuid.uuid5(uuid.NAMESPACE_OID, str(i))}" for i in range(n)]


def test_pick_is_pinned_and_ignores_the_games_prefix() -> None:
    name = f"games/{uuid.UUID(int=7)}"
    assert pick(name, TARGETS) == pick(str(uuid.UUID(int=7)), TARGETS) == "10.0.0.3:50051"
    assert pick(name, list(reversed(TARGETS))) == "10.0.0.3:50051"  # order does not matter


def test_removing_a_process_moves_only_its_games() -> None:
    games = _games(600)
    before = {g: pick(g, TARGETS) for g in games}
    counts = {t: sum(1 for v in before.values() if v == t) for t in TARGETS}
    assert all(150 <= c <= 250 for c in counts.values()), counts
    after = {g: pick(g, TARGETS[:2]) for g in games}
    moved = [g for g in games if before[g] != after[g]]
    assert moved and all(before[g] == TARGETS[2] for g in moved)


def test_pick_needs_a_target() -> None:
    with pytest.raises(ValueError, match="no targets"):
        pick("games/x", [])


def test_seat_calls_carry_the_game_id_for_the_router() -> None:
    game = uuid.uuid4()
    seat = SeatClient(client=None, name=f"games/{game}", token="t")  # type: ignore[arg-type]
    assert (GAME_ID_HEADER, str(game)) in seat.metadata
    assert affinity_metadata(f"games/{game}") == ((GAME_ID_HEADER, str(game)),)


def test_the_k8s_router_hashes_on_the_clients_header() -> None:
    router = (K8S / "router.yaml").read_text()
    assert re.search(r"lb_policy:\s*RING_HASH", router)
    assert re.findall(r"header_name:\s*(\S+)\}", router) == [GAME_ID_HEADER]
    # TLS to the pods checks their certificate (CA and name), not just any certificate.
    upstream = router[router.index("UpstreamTlsContext") :]
    assert "trusted_ca: {filename: /etc/preferans/tls/ca.crt}" in upstream
    assert "exact: preferans.preferans.svc.cluster.local" in upstream
    assert "router.yaml" in (K8S / "kustomization.yaml").read_text()


def test_the_k8s_shard_count_is_valid() -> None:
    config = (K8S / "migrate-job.yaml").read_text()
    (value,) = re.findall(r'PREF_SHARDS:\s*"([^"]*)"', config)
    assert parse_shards(value) is not None


def test_the_k8s_servers_expose_the_browser_port_they_serve() -> None:
    """The pods' `pref serve` arguments parse, their --connect-port is a declared container
    port named `connect`, and the Service exposes it (issue 15: browsers reach the pods)."""
    from service.cli import build_parser

    server = (K8S / "server.yaml").read_text()
    args_block = server[server.index("          args:\n") : server.index("          ports:\n")]
    argv = re.findall(r"^\s+- (\S+)$", args_block, flags=re.MULTILINE)
    parsed = build_parser().parse_args(argv)
    assert parsed.connect_port == 8080 and not parsed.no_connect
    assert f"{{name: connect, containerPort: {parsed.connect_port}}}" in server
    assert "{name: connect, port: 8080, targetPort: connect}" in server
    assert "EXPOSE 50051 8080" in (K8S / "Dockerfile").read_text()
