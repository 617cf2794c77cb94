"""TLS for the gRPC listener and the Python client: certificate files in, credentials out.

The server serves TLS when given a certificate chain and its private key (PEM files); with a
client CA as well it requires every client to present a certificate that CA signed (mTLS).
Each setting is a flag of ``pref serve`` or an environment variable (a k8s Secret mounted as
files): ``PREF_TLS_CERT``, ``PREF_TLS_KEY``, ``PREF_TLS_CLIENT_CA``. Clients (``pref play``,
``pref bots``) trust a CA file (``--tls-ca`` / ``PREF_TLS_CA``) and may present their own
certificate for mTLS (``--tls-cert``/``--tls-key``, or ``PREF_TLS_CLIENT_CERT``/``_KEY``).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc
import structlog

log = structlog.get_logger(__name__)
CERT_ENV = "PREF_TLS_CERT"
KEY_ENV = "PREF_TLS_KEY"
CLIENT_CA_ENV = "PREF_TLS_CLIENT_CA"


class TlsConfigError(ValueError):
    """The TLS settings are incomplete or a file cannot be read."""


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise TlsConfigError(f"cannot read the {what} {path!r}: {exc.strerror}") from None


@dataclass(frozen=True)
class ServerTls:
    """The server's certificate chain and key, and the CA of client certificates (mTLS).

    The files are read at start (a missing one is a ``TlsConfigError``) and again when they
    change: before each new connection's handshake the server compares their modification
    times, so a renewed certificate (cert-manager, a k8s Secret update) is served without a
    restart; a renewal that cannot be read is logged and the previous certificate kept."""

    cert_file: str
    key_file: str
    client_ca_file: str | None = None

    @property
    def files(self) -> tuple[str, ...]:
        return (self.cert_file, self.key_file, *filter(None, (self.client_ca_file,)))

    def configuration(self) -> grpc.ServerCertificateConfiguration:
        cert = _read(self.cert_file, "TLS certificate")
        key = _read(self.key_file, "TLS private key")
        client_ca = _read(self.client_ca_file, "client CA") if self.client_ca_file else None
        return grpc.ssl_server_certificate_configuration([(key, cert)], root_certificates=client_ca)

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.dynamic_ssl_server_credentials(
            self.configuration(),
            # The stubs leave out the None that gRPC documents as "keep the current one".
            _Reloader(self),  # type: ignore[arg-type]
            require_client_authentication=self.client_ca_file is not None,
        )


class _Reloader:
    """The certificate fetcher gRPC calls before each handshake: a new configuration when the
    files changed since the last one read, else ``None`` (keep the current one)."""

    def __init__(self, tls: ServerTls) -> None:
        self.tls = tls
        self.stamp = self._stamp()

    def _stamp(self) -> tuple[int, ...] | None:
        try:
            return tuple(os.stat(path).st_mtime_ns for path in self.tls.files)
        except OSError:
            return None

    def __call__(self) -> grpc.ServerCertificateConfiguration | None:
        stamp = self._stamp()
        if stamp is None or stamp == self.stamp:
            return None
        try:
            configuration = self.tls.configuration()
        except TlsConfigError as exc:
            log.warning("cannot read the renewed TLS files; keeping the old", error=str(exc))
            return None
        self.stamp = stamp
        log.info("TLS certificate reloaded", cert=self.tls.cert_file)
        return configuration


def server_tls(
    cert: str | None,
    key: str | None,
    client_ca: str | None,
    env: Mapping[str, str] | None = None,
) -> ServerTls | None:
    """The server's TLS settings from flags, else the environment; ``None`` for plaintext."""
    env = os.environ if env is None else env
    cert = cert or env.get(CERT_ENV) or None
    key = key or env.get(KEY_ENV) or None
    client_ca = client_ca or env.get(CLIENT_CA_ENV) or None
    if cert is None and key is None:
        if client_ca is not None:
            raise TlsConfigError("--tls-client-ca needs --tls-cert and --tls-key")
        return None
    if cert is None or key is None:
        raise TlsConfigError("TLS needs both --tls-cert and --tls-key")
    return ServerTls(cert, key, client_ca)


def channel(
    target: str,
    *,
    ca: str | None = None,
    cert: str | None = None,
    key: str | None = None,
    tls: bool = False,
) -> grpc.Channel:
    """A channel to ``target``: TLS when a CA or a client certificate is given (or ``tls``),
    plaintext otherwise."""
    if ca is None and cert is None and key is None and not tls:
        return grpc.insecure_channel(target)
    if (cert is None) != (key is None):
        raise TlsConfigError("a client certificate needs both --tls-cert and --tls-key")
    credentials = grpc.ssl_channel_credentials(
        root_certificates=_read(ca, "CA certificate") if ca else None,
        private_key=_read(key, "client private key") if key else None,
        certificate_chain=_read(cert, "client certificate") if cert else None,
    )
    return grpc.secure_channel(target, credentials)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.1``, ``[::1]``)."""
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
