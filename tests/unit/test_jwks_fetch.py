"""The JWKS fetch: a page that is not JSON, and verifies that never wait on a fetch."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from service.app.identity import TokenRefused
from tests.unit.test_identity import Clock, Jwks, Signer, remote


class HtmlJwks(Jwks):
    """The issuer's JWKS URL answering 200 with a page that is not JSON (a proxy's error or
    maintenance page, a captive portal)."""

    def __init__(self) -> None:
        super().__init__()
        self.html = False
        outer = self
        previous = self.server.RequestHandlerClass

        class Handler(previous):  # type: ignore[misc,valid-type]
            def do_GET(self) -> None:  # noqa: N802
                if not outer.html:
                    super().do_GET()
                    return
                outer.hits += 1
                body = b"<html><body>502 Bad Gateway</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server.RequestHandlerClass = Handler


@pytest.fixture
def html_jwks() -> Iterator[HtmlJwks]:
    endpoint = HtmlJwks()
    yield endpoint
    endpoint.close()


def test_a_jwks_page_that_is_not_json_keeps_the_last_keys(html_jwks: HtmlJwks) -> None:
    """As for an unreachable issuer (module docstring: 'the keys fetched last stay in use'),
    never an exception other than TokenRefused (which the interceptor would not turn into
    UNAUTHENTICATED: the call fails UNKNOWN)."""
    signer = Signer("k1")
    html_jwks.keys = [signer.jwk]
    clock = Clock()
    verifier, _ = remote(html_jwks, clock)
    assert verifier.verify(signer.token()) == "ann"
    html_jwks.html = True
    clock.now += 301  # the keys' lifespan passed: the next token refetches
    assert verifier.verify(signer.token()) == "ann"


def test_a_first_jwks_page_that_is_not_json_is_a_refusal(html_jwks: HtmlJwks) -> None:
    html_jwks.html = True
    verifier, _ = remote(html_jwks, Clock())
    with pytest.raises(TokenRefused):
        verifier.verify(Signer("k1").token())


class SlowJwks(Jwks):
    """A JWKS endpoint that answers only when ``release`` is set (a slow or unreachable
    issuer: the fetch lasts until the 5 s timeout)."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = False
        self.release = threading.Event()
        self.entered = threading.Event()
        outer = self
        previous = self.server.RequestHandlerClass

        class Handler(previous):  # type: ignore[misc,valid-type]
            def do_GET(self) -> None:  # noqa: N802
                if outer.hold:
                    outer.entered.set()
                    outer.release.wait(10)
                super().do_GET()

        self.server.RequestHandlerClass = Handler


@pytest.fixture
def slow_jwks() -> Iterator[SlowJwks]:
    endpoint = SlowJwks()
    yield endpoint
    endpoint.release.set()
    endpoint.close()


def test_ready_never_says_yes_to_a_verify_that_blocks(slow_jwks: SlowJwks) -> None:
    """``verify_async`` verifies on the event loop when ``ready`` says no I/O is needed. While
    one thread refreshes the keys (the lifespan passed; ``_guard`` held for the whole fetch,
    up to FETCH_TIMEOUT_SECONDS), ``ready`` says yes (a fetch was just tried) but ``verify``
    waits for ``_guard``: the server's event loop, every call on it, stands still."""
    signer = Signer("k1")
    slow_jwks.keys = [signer.jwk]
    clock = Clock()
    verifier, _ = remote(slow_jwks, clock)
    assert verifier.verify(signer.token()) == "ann"
    clock.now += 301  # the keys' lifespan passed
    slow_jwks.hold = True
    token = signer.token()
    assert not verifier.ready(token)  # the first caller refreshes in a thread: right
    refresher = threading.Thread(target=verifier.verify, args=(token,), daemon=True)
    refresher.start()
    assert slow_jwks.entered.wait(5)  # the refresh is under way, holding the guard
    second = signer.token("bob")
    assert verifier.ready(second)  # "no I/O": verify_async runs it on the event loop
    on_loop = threading.Thread(target=verifier.verify, args=(second,), daemon=True)
    on_loop.start()
    on_loop.join(1.0)
    blocked = on_loop.is_alive()
    slow_jwks.release.set()
    refresher.join(5)
    on_loop.join(5)
    assert not blocked, "verify blocked behind the refresh although ready() said it would not"
