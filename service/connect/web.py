"""The browser-facing ASGI application: Connect routes, the web table, the dev sign-in, CORS.

- ``/preferans.v1.<Service>/<Method>``: the generated Connect applications of the five
  services (Connect protocol, JSON or binary, and gRPC-Web), all answered by ``Bridge``.
- ``/dev/token`` (only with ``--dev-auth``): ``POST {"name": "..."}`` → ``{"token": JWT}`` of
  the development issuer; same-origin (or non-browser) callers only; 404 otherwise.
- everything else: the built web table (``clients/web/dist``) by starlette's ``StaticFiles``,
  which looks a path up only inside its root (no traversal); without a build, ``/`` says how
  to make one.

Origins: a request whose ``Origin`` is neither this server's own nor one of the configured
``cors_origins`` is refused with 403 before anything runs (preflights too), so a page of
another site can make nothing happen here, not even a call whose answer it could not read.
On a loopback listener, and on any listener with ``--dev-auth``, a ``Host`` that is not one of
the allowed host names (loopback names, the ``--cors-origin`` hosts, ``--public-host``) is
refused too (DNS rebinding). Every response carries ``SECURITY_HEADERS`` (no framing, no
sniffing, no referrer, a content security policy of this origin only).
Allowed cross-origin requests get CORS headers (starlette's ``CORSMiddleware``), exposing the
Connect and gRPC-Web status headers that clients read.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import structlog
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.staticfiles import StaticFiles

from domain.rules.errors import InvalidAction
from service.app import validation
from service.app.devissuer import DevIssuer

log = structlog.get_logger(__name__)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CONNECT_PREFIX = "/preferans.v1."
DEV_TOKEN_PATH = "/dev/token"
MAX_TOKEN_REQUEST = 1024
"""Largest ``/dev/token`` body, in bytes (a name is at most 64 characters)."""
ALLOWED_HEADERS = (
    "Content-Type",
    "Connect-Protocol-Version",
    "Connect-Timeout-Ms",
    "Connect-Accept-Encoding",
    "Connect-Content-Encoding",
    "Grpc-Timeout",
    "X-Grpc-Web",
    "X-User-Agent",
    "Authorization",
    "X-Request-Id",
)
"""What connect-es and grpc-web clients send (connect-es "CORS" docs), and our metadata."""
EXPOSED_HEADERS = (
    "Grpc-Status",
    "Grpc-Message",
    "Grpc-Status-Details-Bin",
    "Connect-Content-Encoding",
    "Connect-Accept-Encoding",
    "Content-Encoding",
)
"""What clients must read from a response (connect-es "CORS" docs)."""

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The web table loads its script, style and calls from this origin only; ``data:`` images
are its empty favicon; no page may frame it (clickjacking)."""
SECURITY_HEADERS = (
    ("x-frame-options", "DENY"),
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
)


def normalise_origin(text: str) -> str:
    """A web origin as browsers send it in ``Origin`` (``scheme://host[:port]``, lower case,
    no trailing ``/``, no default port); ``ValueError`` with the reason if ``text`` is not one."""
    refusal = f"--cors-origin {text!r} is not an origin (http[s]://host[:port])"
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        raise ValueError(refusal) from None
    scheme = parts.scheme.lower()
    extra = parts.path not in ("", "/") or parts.query or parts.fragment or "@" in parts.netloc
    if scheme not in ("http", "https") or not parts.hostname or extra:
        raise ValueError(refusal)
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == {"http": 80, "https": 443}[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def host_name(host: str) -> str:
    """The name in a ``Host`` header or an origin's authority, lower case, without its port
    (IPv6 addresses without brackets)."""
    name = host.strip().lower()
    if name.startswith("["):
        return name[1:].partition("]")[0]
    if name.count(":") == 1:
        return name.partition(":")[0]
    return name


NO_BUILD_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Preferans</title></head>
<body><h1>Preferans</h1>
<p>The web table is not built. Build it with
<code>cd clients/web &amp;&amp; npm ci &amp;&amp; npm run build</code>
(or run <code>./scripts/run</code>, which does), then reload this page.</p>
<p>The API answers here all the same: Connect and gRPC-Web at
<code>/preferans.v1.&lt;Service&gt;/&lt;Method&gt;</code>.</p>
</body></html>
"""


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def own_origin(scope: Scope) -> str | None:
    """This server's origin as the request names it (its scheme and ``Host``)."""
    host = _header(scope, b"host")
    if host is None:
        return None
    return f"{scope.get('scheme', 'http')}://{host}".lower()


def loopback_host(host: str | None) -> bool:
    """Whether a ``Host`` header names this machine by a loopback name or address."""
    if host is None:
        return False
    name = host_name(host)
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class OriginGuard:
    """Refuses (403) requests from a browser page of a foreign origin (see the module); with
    ``hosts`` (on a loopback listener, and whenever ``--dev-auth`` is on) also requests whose
    ``Host`` is neither a loopback name nor one of ``hosts``: a page of another site whose
    name an attacker re-points at this server (DNS rebinding) would otherwise be
    "same-origin" to it, ``--dev-auth`` sign-in included."""

    def __init__(
        self, app: ASGIApp, allowed: Iterable[str], *, hosts: Iterable[str] | None = None
    ) -> None:
        self.app = app
        self.allowed = frozenset(origin.rstrip("/").lower() for origin in allowed)
        self.hosts = None if hosts is None else frozenset(host_name(h) for h in hosts)

    def permits(self, scope: Scope) -> bool:
        if self.hosts is not None:
            host = _header(scope, b"host")
            if not loopback_host(host) and (host is None or host_name(host) not in self.hosts):
                return False
        origin = _header(scope, b"origin")
        if origin is None:  # not a browser's cross-origin request (curl, gRPC clients)
            return True
        origin = origin.rstrip("/").lower()
        return origin == own_origin(scope) or origin in self.allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.permits(scope):
            await self.app(scope, receive, send)
            return
        log.info("request refused", code="FORBIDDEN_ORIGIN", path=str(scope.get("path", "")))
        response = PlainTextResponse("origin not allowed", status_code=403)
        await response(scope, receive, send)


class DevToken:
    """``POST /dev/token``: a development JWT for a player id (``--dev-auth`` only)."""

    def __init__(self, issuer: DevIssuer) -> None:
        self.issuer = issuer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            response = await self.respond(Request(scope, receive))
        except ClientDisconnect:  # the caller left while sending its body: nobody to answer
            return
        await response(scope, receive, send)

    async def respond(self, request: Request) -> Response:
        if request.method != "POST":
            return PlainTextResponse("use POST", status_code=405, headers={"Allow": "POST"})
        origin = request.headers.get("origin")
        if origin is not None and origin.rstrip("/").lower() != own_origin(request.scope):
            return PlainTextResponse("same-origin only", status_code=403)
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return _bad("send Content-Type: application/json", 415)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_TOKEN_REQUEST:
                return _bad(f"the request is larger than {MAX_TOKEN_REQUEST} bytes", 413)
        try:
            document = json.loads(body)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than Python's
            return _bad("the request is not JSON", 400)
        name = document.get("name") if isinstance(document, dict) else None
        if not isinstance(name, str):
            return _bad('send {"name": "<player id>"}', 400)
        try:
            player = validation.person_id(name, "name")
            token = self.issuer.mint(player)
        except InvalidAction as exc:
            return _bad(exc.message, 400)
        log.info("dev token issued", player=player)
        return JSONResponse({"token": token}, headers={"Cache-Control": "no-store"})


def _bad(message: str, status: int) -> Response:
    return JSONResponse({"error": message}, status_code=status)


class WebRoot:
    """The web table's files from ``root``; without a build, ``/`` says how to make one."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = StaticFiles(directory=root, html=True, check_dir=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response: Response | None = None
        if not (self.root / "index.html").is_file():
            if scope.get("path") in ("/", "/index.html"):
                response = HTMLResponse(NO_BUILD_PAGE)
            else:
                response = PlainTextResponse("Not Found", status_code=404)
        if response is not None:
            await response(scope, receive, send)
            return
        try:
            await self.files(scope, receive, send)
        except HTTPException as exc:  # what StaticFiles raises for a missing file
            await PlainTextResponse(exc.detail, status_code=exc.status_code)(scope, receive, send)


class Router:
    """Connect paths to their service's application; ``/dev/token``; the rest to the files."""

    def __init__(
        self,
        services: dict[str, ASGIApp],
        web: ASGIApp,
        dev_token: ASGIApp | None,
    ) -> None:
        self.services = services
        self.web = web
        self.dev_token = dev_token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path: str = scope.get("path", "")
        if path.startswith(CONNECT_PREFIX):
            if scope.get("method") != "POST":
                # Connect's GET form is for methods marked free of side effects, and none of
                # ours is: a GET (which an <img> of any page can send) runs nothing.
                refused = PlainTextResponse("use POST", status_code=405, headers={"Allow": "POST"})
                await refused(scope, receive, send)
                return
            service = path[1:].partition("/")[0]
            app = self.services.get(service)
            if app is None:
                response: Response = PlainTextResponse("Not Found", status_code=404)
                await response(scope, receive, send)
                return
            await app(scope, receive, send)
            return
        if path == DEV_TOKEN_PATH:
            if self.dev_token is None:
                await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)
                return
            await self.dev_token(scope, receive, send)
            return
        if scope.get("method") not in ("GET", "HEAD"):
            await PlainTextResponse("Method Not Allowed", status_code=405)(scope, receive, send)
            return
        await self.web(scope, receive, send)


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every response (the web table's pages and files, the API's
    answers, refusals)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS:
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def browser_app(
    services: dict[str, ASGIApp],
    web_root: Path,
    dev_issuer: DevIssuer | None,
    cors_origins: Sequence[str] = (),
    *,
    loopback: bool = False,
    public_hosts: Sequence[str] = (),
) -> ASGIApp:
    """The whole application: security headers → origin guard → CORS → router. ``Host`` is
    checked (DNS rebinding) when the listener is on a loopback address (``loopback``) or
    ``dev_issuer`` signs players in: allowed are loopback names, ``public_hosts`` and the
    hosts of ``cors_origins`` (normalised by ``normalise_origin``)."""
    origins = [normalise_origin(origin) for origin in cors_origins]
    router = Router(services, WebRoot(web_root), DevToken(dev_issuer) if dev_issuer else None)
    cors = CORSMiddleware(
        router,
        allow_origins=origins,
        allow_methods=["GET", "POST"],
        allow_headers=list(ALLOWED_HEADERS),
        expose_headers=list(EXPOSED_HEADERS),
        max_age=7200,
    )
    hosts = None
    if loopback or dev_issuer is not None:
        hosts = [*public_hosts, *(host_name(o.partition("://")[2]) for o in origins)]
    return SecurityHeaders(OriginGuard(cors, origins, hosts=hosts))
