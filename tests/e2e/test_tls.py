"""TLS and mTLS on a real server: certificates made in the test (a throwaway CA, a server
certificate for 127.0.0.1, a client certificate), a few commands played over TLS, and the
refusals: a plaintext client, a client that trusts another CA, an mTLS client without a
certificate."""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from grpc_health.v1 import health_pb2, health_pb2_grpc

from domain.bots import make_bot
from domain.rules import RuleSet
from service.api.tls import ServerTls
from service.app.config import StoreConfig
from service.cli import main
from service.cli.botplay import bot_step
from service.client import GameClient
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.conftest import REPO, ServerFactory, free_port
from tests.e2e.helpers import PLAYERS

BOT = make_bot()
CALL_TIMEOUT = 10.0


@dataclass(frozen=True)
class Pki:
    """PEM files: a CA, a server certificate and key, a client certificate and key."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> Path:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return path


def _write_cert(path: Path, cert: x509.Certificate) -> Path:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[str, ec.EllipticCurvePrivateKey] | None,
    *,
    ca: bool = False,
    server: bool = False,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    issuer_name, issuer_key = issuer if issuer is not None else (subject, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        ).add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    elif not ca:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
    return builder.sign(issuer_key, hashes.SHA256())


def make_pki(directory: Path, ca_name: str = "test CA") -> Pki:
    directory.mkdir(parents=True, exist_ok=True)
    ca_key, server_key, client_key = _key(), _key(), _key()
    ca_cert = _certificate(ca_name, ca_key, None, ca=True)
    issuer = (ca_name, ca_key)
    return Pki(
        ca=_write_cert(directory / "ca.pem", ca_cert),
        server_cert=_write_cert(
            directory / "server.pem", _certificate("server", server_key, issuer, server=True)
        ),
        server_key=_write_key(directory / "server.key", server_key),
        client_cert=_write_cert(
            directory / "client.pem", _certificate("client", client_key, issuer)
        ),
        client_key=_write_key(directory / "client.key", client_key),
    )


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return make_pki(tmp_path / "pki")


def play_a_few(client: GameClient, commands: int = 6) -> int:
    """Create a game and let bots send a few commands; the game's version at the end."""
    created = client.create_game(PLAYERS, RuleSet(pool_target=2))
    name = created.game.name
    seats = [client.seat(name, token) for token in created.seat_tokens]
    version = created.game.version
    for _ in range(commands):
        view = seats[0].view(min_version=version)
        actor_view = view if view.actor == 0 else seats[view.actor].view(version)
        version = bot_step(seats[view.actor], actor_view, BOT)
    assert client.get_game(name).version == version
    return version


def refused_connection(client: GameClient) -> grpc.StatusCode:
    """The status of a call that cannot get through (the handshake fails)."""
    with pytest.raises(grpc.RpcError) as caught:
        client.stub.ListGames(pb.ListGamesRequest(page_size=1), timeout=CALL_TIMEOUT)
    code: grpc.StatusCode = caught.value.code()
    return code


@pytest.fixture
def clients() -> Iterator[list[GameClient]]:
    opened: list[GameClient] = []
    yield opened
    for client in opened:
        client.close()


def test_play_over_tls_and_refuse_plaintext(
    store: StoreConfig,
    start_server: ServerFactory,
    pki: Pki,
    tmp_path: Path,
    clients: list[GameClient],
) -> None:
    tls = ServerTls(str(pki.server_cert), str(pki.server_key))
    server = start_server(store, tls=tls)
    secure = GameClient(server.address, tls_ca=str(pki.ca))
    clients.append(secure)
    assert play_a_few(secure) > 1
    plaintext = GameClient(server.address)
    clients.append(plaintext)
    assert refused_connection(plaintext) == grpc.StatusCode.UNAVAILABLE
    stranger = make_pki(tmp_path / "other", ca_name="another CA")
    wrong_ca = GameClient(server.address, tls_ca=str(stranger.ca))
    clients.append(wrong_ca)
    assert refused_connection(wrong_ca) == grpc.StatusCode.UNAVAILABLE


def test_mtls_refuses_a_client_without_a_certificate(
    sqlite_only: StoreConfig,
    start_server: ServerFactory,
    pki: Pki,
    tmp_path: Path,
    clients: list[GameClient],
) -> None:
    tls = ServerTls(str(pki.server_cert), str(pki.server_key), str(pki.ca))
    server = start_server(sqlite_only, tls=tls)
    no_cert = GameClient(server.address, tls_ca=str(pki.ca))
    clients.append(no_cert)
    assert refused_connection(no_cert) == grpc.StatusCode.UNAVAILABLE
    stranger = make_pki(tmp_path / "other", ca_name="another CA")
    foreign_cert = GameClient(
        server.address,
        tls_ca=str(pki.ca),
        tls_cert=str(stranger.client_cert),
        tls_key=str(stranger.client_key),
    )
    clients.append(foreign_cert)
    assert refused_connection(foreign_cert) == grpc.StatusCode.UNAVAILABLE
    with_cert = GameClient(
        server.address,
        tls_ca=str(pki.ca),
        tls_cert=str(pki.client_cert),
        tls_key=str(pki.client_key),
    )
    clients.append(with_cert)
    assert play_a_few(with_cert) > 1


def test_pref_serve_refuses_half_a_tls_configuration(tmp_path: Path, pki: Pki) -> None:
    pref = Path(sys.executable).with_name("pref")
    command = [str(pref), "serve", "--store", str(tmp_path / "x.sqlite"), "--port", "0"]
    for extra, expected in (
        (["--tls-cert", str(pki.server_cert)], "TLS needs both --tls-cert and --tls-key"),
        (["--tls-client-ca", str(pki.ca)], "--tls-client-ca needs --tls-cert and --tls-key"),
        (
            ["--tls-cert", str(tmp_path / "missing.pem"), "--tls-key", str(pki.server_key)],
            "cannot read the TLS certificate",
        ),
    ):
        done = subprocess.run(command + extra, cwd=REPO, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert f"pref serve: {expected}" in done.stderr
        assert "Traceback" not in done.stderr


def test_plaintext_health_port_serves_health_only(
    sqlite_only: StoreConfig, start_server: ServerFactory, pki: Pki
) -> None:
    health_port = free_port()
    tls = ServerTls(str(pki.server_cert), str(pki.server_key))
    start_server(sqlite_only, tls=tls, health_address=f"127.0.0.1:{health_port}")
    with grpc.insecure_channel(f"127.0.0.1:{health_port}") as channel:
        health: Any = health_pb2_grpc.HealthStub(channel)
        answer = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=CALL_TIMEOUT)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
        games = GameClient("", channel=channel)
        with pytest.raises(grpc.RpcError) as caught:
            games.stub.ListGames(pb.ListGamesRequest(page_size=1), timeout=CALL_TIMEOUT)
        assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_pref_bots_plays_over_mtls(
    sqlite_only: StoreConfig,
    start_server: ServerFactory,
    pki: Pki,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tls = ServerTls(str(pki.server_cert), str(pki.server_key), str(pki.ca))
    server = start_server(sqlite_only, tls=tls)
    command = ["bots", "--server", server.address, "--games", "1", "--pool", "1"]
    command += ["--tls-ca", str(pki.ca), "--tls-cert", str(pki.client_cert)]
    command += ["--tls-key", str(pki.client_key)]
    assert main(command) == 0
    assert "settlement" in capsys.readouterr().out


def test_a_renewed_certificate_is_served_without_a_restart(
    sqlite_only: StoreConfig, start_server: ServerFactory, tmp_path: Path, clients: list[GameClient]
) -> None:
    first = make_pki(tmp_path / "first", ca_name="first CA")
    live = tmp_path / "live"
    live.mkdir()
    cert, key = live / "tls.crt", live / "tls.key"
    cert.write_bytes(first.server_cert.read_bytes())
    key.write_bytes(first.server_key.read_bytes())
    server = start_server(sqlite_only, tls=ServerTls(str(cert), str(key)))
    before = GameClient(server.address, tls_ca=str(first.ca))
    clients.append(before)
    assert before.create_game(PLAYERS).game.name
    renewed = make_pki(tmp_path / "renewed", ca_name="renewed CA")
    cert.write_bytes(renewed.server_cert.read_bytes())
    key.write_bytes(renewed.server_key.read_bytes())
    for path in (cert, key):  # a distinct modification time even on a coarse file system
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**10))
    after = GameClient(server.address, tls_ca=str(renewed.ca))  # a new connection
    clients.append(after)
    assert after.create_game(PLAYERS).game.name
    stale = GameClient(server.address, tls_ca=str(first.ca))
    clients.append(stale)
    assert refused_connection(stale) == grpc.StatusCode.UNAVAILABLE


def test_the_metrics_listener_serves_https_when_the_server_serves_tls(
    tmp_path: Path, pki: Pki
) -> None:
    """Every listener serves TLS once given a certificate: the metrics port too (issue 9,
    item 7); a plaintext request to it gets no metrics."""
    pref = Path(sys.executable).with_name("pref")
    metrics_port = free_port()
    command = [str(pref), "serve", "--store", str(tmp_path / "m.sqlite"), "--host", "127.0.0.1"]
    command += ["--port", str(free_port()), "--metrics-port", str(metrics_port)]
    command += ["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key)]
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    trusted = ssl.create_default_context(cafile=str(pki.ca))
    url = f"https://127.0.0.1:{metrics_port}/metrics"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                with urllib.request.urlopen(url, context=trusted, timeout=5) as answer:
                    body = answer.read().decode()
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, "the metrics listener never answered"
                time.sleep(0.2)
        assert "preferans_projection_position" in body
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5)
    finally:
        process.terminate()
        process.wait(15)
        log.close()
