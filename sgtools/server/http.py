"""The MCP server over streamable HTTP at `/mcp`: loopback by default, an optional bearer token, and Host/Origin
checks so that a web page cannot reach the server through DNS rebinding.

The token check wraps the whole ASGI app, so no request reaches the MCP session without it; the Host/Origin
checks are the SDK's own transport security, configured here instead of relying on its host-based default.
"""

from __future__ import annotations

import errno
import hmac
import logging
import os
import socket
from collections.abc import Sequence
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from sgtools.core.errors import BadInput
from sgtools.core.settings import get_settings
from sgtools.server.guard import JsonRpcGuard

log = logging.getLogger("sgtools.server.http")

MCP_PATH = "/mcp"
TOKEN_ENV = "SGTOOLS_HTTP_TOKEN"
ORIGINS_ENV = "SGTOOLS_HTTP_ALLOWED_ORIGINS"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
ALL_INTERFACES = ("0.0.0.0", "::")


def _hostname(netloc: str) -> str:
    """`[::1]:8765` -> `::1`, `localhost:8765` -> `localhost` (lower case)."""
    netloc = netloc.strip().lower()
    if netloc.startswith("["):
        return netloc[1:].split("]", 1)[0]
    return netloc.rsplit(":", 1)[0] if netloc.count(":") == 1 else netloc


def _origin(text: str) -> str:
    """An Origin as compared: configured and received ones must be normalised alike to match."""
    return text.strip().rstrip("/").lower()


class OriginGuard:
    """Refuse requests whose Host or Origin header is not this server's, the defence against DNS rebinding.

    A browser page on another site that resolves its own name to 127.0.0.1 sends its own name as Host and its
    own origin as Origin; both are refused. Clients that are not browsers send no Origin and a loopback Host.
    """

    def __init__(self, app: ASGIApp, host: str, allowed_origins: Sequence[str] = ()) -> None:
        self.app = app
        # Bound to every interface, clients may use any name that reaches the machine: only Origin is checked.
        self.any_host = host in ALL_INTERFACES
        self.hosts = {*LOOPBACK_HOSTS, host.strip("[]").lower()}
        self.origins = {_origin(o) for o in allowed_origins if o.strip()}

    def origin_ok(self, origin: str | None) -> bool:
        if not origin:
            return True
        origin = _origin(origin)
        if origin in self.origins:
            return True
        scheme, sep, rest = origin.partition("://")
        return bool(sep) and scheme in ("http", "https") and "/" not in rest and _hostname(rest) in LOOPBACK_HOSTS

    def host_ok(self, host: str | None) -> bool:
        return self.any_host or (bool(host) and _hostname(host or "") in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if not self.host_ok(headers.get("host")):
            log.warning("refused a request with Host %r", headers.get("host"))
            await PlainTextResponse("Invalid Host header", status_code=421)(scope, receive, send)
            return
        if not self.origin_ok(headers.get("origin")):
            log.warning("refused a request with Origin %r", headers.get("origin"))
            await PlainTextResponse(
                "Invalid Origin header: only localhost origins may call this server (add more with "
                f"--allow-origin or {ORIGINS_ENV})", status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class BearerTokenMiddleware:
    """Refuse every HTTP request without `Authorization: Bearer <token>` (constant-time comparison)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = Headers(scope=scope).get("authorization", "")
        scheme, _, credential = header.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(credential.strip().encode("utf-8"), self._token):
            await self.app(scope, receive, send)
            return
        log.warning("refused an HTTP request without a valid bearer token from %s", scope.get("client"))
        response = JSONResponse(
            {"error": "unauthorized",
             "message": "[bad-input] This server needs `Authorization: Bearer <token>` (the token it was started "
                        f"with, --token or {TOKEN_ENV})."},
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer realm="context-sherpa"'},
        )
        await response(scope, receive, send)


def allowed_origins_from_env() -> list[str]:
    return [o.strip() for o in os.environ.get(ORIGINS_ENV, "").split(",") if o.strip()]


def build_app(server: MCPServer[Any], *, host: str = "127.0.0.1", token: str | None = None,
              allowed_origins: Sequence[str] = ()) -> ASGIApp:
    """The ASGI app: token check outermost, then Host/Origin, then the SDK's streamable HTTP endpoint."""
    # Our OriginGuard covers every path; the SDK's check would only repeat it for /mcp.
    sdk_security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app: ASGIApp = server.streamable_http_app(streamable_http_path=MCP_PATH, transport_security=sdk_security,
                                              host=host)
    app = JsonRpcGuard(app, max_body=get_settings().max_message_bytes)
    app = OriginGuard(app, host, allowed_origins)
    return BearerTokenMiddleware(app, token) if token else app


def serve_http(server: MCPServer[Any], *, host: str, port: int, token: str | None,
               allowed_origins: Sequence[str] = (), log_level: str = "WARNING") -> None:
    if host not in LOOPBACK_HOSTS and not token:
        raise BadInput(
            f"Serving on {host} would let other machines edit this project without a password. Pass --token "
            f"(or set {TOKEN_ENV}), or keep the default --host 127.0.0.1."
        )
    if not 0 <= port <= 65535:
        raise BadInput(f"Port {port} is not a TCP port. Pass --port between 1 and 65535 (default 8765).")
    import uvicorn

    app = build_app(server, host=host, token=token, allowed_origins=allowed_origins)
    sock = bind(host, port)  # before the banner: a busy port is one [bad-input] line, not a uvicorn traceback
    shown = f"[{host}]" if ":" in host else host
    log.warning("context-sherpa MCP server on http://%s:%d%s%s", shown, sock.getsockname()[1], MCP_PATH,
                " (bearer token required)" if token else "")
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level.lower(), lifespan="on",
                            access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound as uvicorn would bind it (SO_REUSEADDR), or `[bad-input]` naming the cause."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        why = "is already in use" if exc.errno == errno.EADDRINUSE else f"cannot be bound ({exc.strerror or exc})"
        raise BadInput(f"Port {port} on {host} {why}. Pass another --port, or stop the program that uses it.") \
            from None
    sock.set_inheritable(True)
    return sock
