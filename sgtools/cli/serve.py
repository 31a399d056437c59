"""`sgtools serve`: the MCP server on stdio (default) or streamable HTTP.

The server module (and with it `mcp`, about 0.6 s to import) is imported only here, inside `run`, so every other
command starts fast. Logs go to stderr: on stdio, stdout carries nothing but protocol messages.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

from sgtools.cli.common import add_root
from sgtools.cli.exit_codes import EXIT_OK
from sgtools.core.errors import BadInput

LOG_LEVEL_ENV = "SGTOOLS_LOG_LEVEL"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser(
        "serve", help="run the MCP server (stdio by default; --transport http serves /mcp on 127.0.0.1)")
    add_root(p, discover=False)
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="default: stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    p.add_argument("--read-only", action="store_true",
                   help="hide the tools that write and refuse apply=true: the server can only read the project")
    p.add_argument("--token", help="HTTP: require `Authorization: Bearer TOKEN` (default: $SGTOOLS_HTTP_TOKEN)")
    p.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="HTTP: also accept requests from this browser Origin (repeatable; localhost is always "
                        "accepted; also $SGTOOLS_HTTP_ALLOWED_ORIGINS, comma-separated)")
    p.add_argument("--trust-custom-languages", action="store_true",
                   help="trust the native parser libraries this project's sgconfig.yml names (as `sgtools trust` "
                        "does); without it they are not loaded until trusted")
    p.add_argument("--log-level", type=str.upper, choices=LOG_LEVELS,
                   help=f"stderr log level (default: ${LOG_LEVEL_ENV} or WARNING)")
    p.set_defaults(func=run)


def log_level(args: argparse.Namespace) -> str:
    level = (args.log_level or os.environ.get(LOG_LEVEL_ENV) or "WARNING").strip().upper()
    if level not in LOG_LEVELS:
        raise BadInput(f"{LOG_LEVEL_ENV}={level!r} is not a log level. Use one of {', '.join(LOG_LEVELS)}.")
    return level


def _trust_project(root: str | None) -> None:
    from sgtools.engine import trust
    from sgtools.project.config import load_config
    from sgtools.project.workspace import Workspace

    for s in trust.trust(load_config(Workspace(root)).path):
        logging.getLogger(__name__).warning("parser library for %s: %s (%s)", s["language"], s["path"], s["state"])


def run(args: argparse.Namespace) -> int:
    level = log_level(args)
    # Configured before the SDK is imported, so its own basicConfig call is a no-op and nothing logs to stdout.
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.trust_custom_languages:
        _trust_project(getattr(args, "root", None))
    from sgtools.server import app as server

    srv = server.build_server(getattr(args, "root", None), read_only=args.read_only)
    _freeze_start_up()
    try:
        _serve(srv, args, level)
    finally:
        # stdin closed, Ctrl-C, an error: every ast-grep still running ends now, before the interpreter waits for
        # the worker threads that wait for them (SIGTERM and SIGKILL: their parent-death signal, engine/lifecycle.py)
        from sgtools.engine import lifecycle

        lifecycle.kill_all()
    return EXIT_OK


def _freeze_start_up() -> None:
    """Everything the start-up made (the SDK, pydantic's models and schemas, ~95,000 objects) lives as long as the
    server: out of the cycle collector's reach (`gc.freeze`), a full collection walks only what calls made since.
    Measured from a raw client (B1's TypeScript findings snippet, 420 calls, 2-core VM at load 9-12): one full
    collection among them took 0.42-0.55 s, a pause in some call; frozen, none, and the 40-odd younger ones
    0.01-0.05 s in all."""
    import gc

    gc.freeze()


def http_token(flag: str | None, env: str | None, env_name: str) -> str | None:
    """The bearer token: --token, else the environment; None when neither is given. An empty one is refused: it
    is an unset variable (`--token "$TOKEN"`), and the server would start with no authentication at all."""
    for value, where in ((flag, "--token"), (None if flag is not None else env, env_name)):
        if value is None:
            continue
        if not value.strip():
            raise BadInput(f"{where} is empty (an unset variable?), so the HTTP server would accept anyone. "
                           f"Pass the token itself, or leave {where} out to serve without one on 127.0.0.1.")
        return value
    return None


def _serve(srv: Any, args: argparse.Namespace, level: str) -> None:
    if args.transport == "stdio":
        from sgtools.server import wire

        wire.serve_stdio(srv)  # srv.run("stdio"), with every incoming message checked (answered if malformed)
        return
    from sgtools.server import http as server_http

    token = http_token(args.token, os.environ.get(server_http.TOKEN_ENV), server_http.TOKEN_ENV)
    origins = [*args.allow_origin, *server_http.allowed_origins_from_env()]
    server_http.serve_http(srv, host=args.host, port=args.port, token=token, allowed_origins=origins,
                           log_level=level)
