"""The server's limits as configuration (defaults, environment, flags), who a caller is, the
token bucket's arithmetic on an explicit clock, and the defaults of ``pref serve``."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

import grpc
import pytest
import structlog.testing

from service.api.errors import ResourceExhausted
from service.api.limits import Limits, limits_from
from service.api.quotas import Budget, TokenBucket, peer_subject
from service.api.server import _listen
from service.api.tls import TlsConfigError, is_loopback, server_tls
from service.cli import build_parser


def test_limits_come_from_defaults_then_environment_then_flags() -> None:
    assert limits_from({}, {}) == Limits()
    env = {"PREF_CREATES_PER_MINUTE": "5", "PREF_OPEN_GAMES": "7"}
    limits = limits_from(env, {"open_games": 3, "call_burst": None})
    assert limits.creates_per_minute == 5.0 and limits.open_games == 3
    assert limits.call_burst == Limits().call_burst


@pytest.mark.parametrize(
    ("env", "flags", "message"),
    [
        ({"PREF_OPEN_GAMES": "many"}, {}, "PREF_OPEN_GAMES='many' is not a number"),
        ({}, {"calls_per_second": -1.0}, "calls-per-second must be a number >= 0"),
        ({}, {"max_receive_bytes": 0}, "max-receive-bytes must be a number >= 1"),
        ({}, {"creates_per_minute": float("nan")}, "creates-per-minute must be a number"),
    ],
)
def test_bad_limits_are_refused(env: dict[str, str], flags: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        limits_from(env, flags)


@pytest.mark.parametrize(
    ("peer", "subject"),
    [
        ("ipv4:203.0.113.7:50000", "peer 203.0.113.7"),
        ("ipv6:[2001:db8:1:2:3:4:5:6]:443", "peer 2001:db8:1:2::/64"),
        ("ipv6:[2001:db8:1:2:ffff::9]:1", "peer 2001:db8:1:2::/64"),
        ("ipv6:[::ffff:198.51.100.4]:7", "peer 198.51.100.4"),
        ("unix:/tmp/socket", "peer unix"),
        ("ipv4:garbage:1", "peer unknown"),
        ("", "peer unknown"),
    ],
)
def test_peer_subject(peer: str, subject: str) -> None:
    assert peer_subject(peer) == subject


def test_token_bucket_refills_at_its_rate() -> None:
    bucket = TokenBucket(rate=2.0, capacity=2.0, tokens=2.0, stamp=0.0)
    assert bucket.take(0.0) == 0.0 and bucket.take(0.0) == 0.0
    assert bucket.take(0.0) == pytest.approx(0.5)
    assert bucket.take(0.5) == 0.0  # one token back after half a second
    assert bucket.take(100.0) == 0.0  # never more than the capacity
    assert bucket.take(100.0) == 0.0
    assert bucket.take(100.0) > 0


def test_budget_memory_is_bounded_and_idle_callers_are_forgotten() -> None:
    now = [0.0]
    budget = Budget("calls", rate=1.0, burst=1, max_callers=3, clock=lambda: now[0])
    for n in range(10):
        budget.charge(f"peer 10.0.0.{n}")
    assert len(budget.buckets) == 3
    with pytest.raises(ResourceExhausted) as caught:
        budget.charge("peer 10.0.0.9")
    assert caught.value.retry_after == pytest.approx(1.0)
    now[0] = 10.0  # idle past a full refill: the entry expires, nothing is lost
    budget.buckets.expire()
    assert len(budget.buckets) == 0
    budget.charge("peer 10.0.0.9")


def test_serve_binds_loopback_unless_asked() -> None:
    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and not args.reuse_port
    assert build_parser().parse_args(["serve", "--host", "0.0.0.0"]).host == "0.0.0.0"
    assert is_loopback("127.0.0.1") and is_loopback("[::1]") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("[::]") and not is_loopback("10.1.2.3")


def test_tls_settings_from_the_environment() -> None:
    env = {"PREF_TLS_CERT": "/s/tls.crt", "PREF_TLS_KEY": "/s/tls.key"}
    tls = server_tls(None, None, None, env)
    assert tls is not None and tls.cert_file == "/s/tls.crt" and tls.client_ca_file is None
    assert server_tls(None, None, None, {}) is None
    with pytest.raises(TlsConfigError):
        server_tls(None, "/s/tls.key", None, {})


@pytest.mark.parametrize(("host", "warned"), [("0.0.0.0", True), ("127.0.0.1", False)])
def test_plaintext_on_a_non_loopback_address_is_warned_about(host: str, warned: bool) -> None:
    async def bind() -> list[MutableMapping[str, Any]]:
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        with structlog.testing.capture_logs() as logs:
            assert _listen(server, f"{host}:0", None) > 0
        await server.stop(0)
        return logs

    logs = asyncio.run(bind())
    assert any("without TLS" in entry["event"] for entry in logs) == warned
