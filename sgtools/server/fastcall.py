"""`tools/call` of our own tools on a stdio connection, answered beside the SDK's dispatch.

Why: the SDK's way through a call (its message model parsed from the line, three memory streams and a relay task,
a dispatcher task, a per-request connection, session and context, the middleware chain, the tool manager, the
result model dumped, sieved through the protocol surface, wrapped in a response model and dumped again) cost the
event loop 1.84 ms of CPU per clean TypeScript `scan_code` call, 2/3 of its 2.75 ms (load 12; docs/performance.md).
Here a call goes from the line our transport already parsed (server/guard.py) to the same tool function the SDK's
handler calls (server/app.py `tool_calls`), and its answer is the same bytes the SDK writes (e2e/test_mcp_fastcall.py
compares both ways on the MCP end-to-end story and on requests the fast path must leave to the SDK).

What stays the SDK's, so that a client sees the same protocol:
- the connection's era, decided by its first request (always the SDK's); on a handshake connection, the
  handshake itself: calls are taken only once the SDK answered its one `initialize` (it commits the negotiated
  version and opens its gate before it answers: `heard`), at that version, and a second `initialize` leaves the
  whole connection to the SDK;
- a request's envelope and params, checked by the SDK's own functions (`classify_inbound_request`,
  `validate_client_request`); any request they refuse, any method but `tools/call`, an unknown tool name, an
  unexpected params key or an envelope on a handshake connection goes to the SDK, which answers it as always (and
  a result of another shape than run_tool's is sieved by the SDK's own function, `_answer`);
- a server whose `tools/call` handler, middleware or cache hints differ from what build_server makes (an SDK
  extension wrapping tool calls, say) has no fast path at all (`for_server`).
What is the same here: the request id echoed verbatim, `notifications/cancelled` ends the call and it is never
answered (the SDK's "interrupt" mode; the notification still reaches the SDK), several calls run at once, each
under run_tool's deadline, and a call still running at the end of stdin ends (its processes with it: run_tool's
call ends with its scope, engine/lifecycle.py) and is answered "Connection closed" (-32000), as the SDK's
dispatcher answers its own.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import anyio.abc
import pydantic_core
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateBoundary
from mcp.server.runner import modern_error_data
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request
from mcp_types import (
    CONNECTION_CLOSED,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    TextContent,
)
from mcp_types import methods as _methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

log = logging.getLogger("sgtools.server.fastcall")

ToolCall = Callable[[object], Awaitable[CallToolResult]]
Write = Callable[[str], Awaitable[None]]
_PARAMS = frozenset({"name", "arguments", "_meta"})
_SHUTDOWN_WRITE_S = 1.0  # the SDK's bound on its "Connection closed" answer at the end of the input


class FastCalls:
    """Takes the `tools/call` requests it can answer (`offer`) and runs them in `tg`; `write` sends one line."""

    def __init__(self, tools: Mapping[str, ToolCall], stamp: dict[str, Any], write: Write,
                 tg: anyio.abc.TaskGroup) -> None:
        self._tools = tools
        self._stamp = stamp
        self._write = write
        self._tg = tg
        self._in_flight: dict[Any, anyio.CancelScope] = {}  # by coerced request id
        self.modern: bool | None = None  # the connection's era, once its first request went to the SDK
        self._init_id: Any = None  # the handshake's `initialize`, while its answer is awaited
        self._handshake: str | None = None  # the version the SDK negotiated, once it answered `initialize`
        self._handshake_off = False  # a second `initialize`: the SDK's alone from then on
        self._closing = False
        self.taken = 0  # calls answered here (server_info does not show it; tests read it)

    def offer(self, msg: dict[str, Any]) -> bool:
        """Whether this message (a checked JSON-RPC object) was taken; False: hand it to the SDK."""
        method = msg.get("method")
        if method is None:
            return False
        if "id" not in msg:
            if method == "notifications/cancelled":
                self._cancel(msg.get("params"))
            return False
        params = msg.get("params")
        opening = self.modern is None
        if opening:  # the opening request decides the era, in the SDK (serve_dual_era_loop)
            self.modern = method != "initialize" and _enveloped(params)
        if method == "initialize":
            self._initialize(msg["id"])
            return False
        if opening or method != "tools/call":
            return False
        taken = self._route(params)
        if taken is None:
            return False
        tool, version, raw = taken
        self._tg.start_soon(self._run, msg["id"], tool, raw, version)
        self.taken += 1
        return True

    def _initialize(self, rid: Any) -> None:
        """A handshake connection is served here once the SDK accepted its one `initialize` (`heard`); a second
        one leaves the whole connection to the SDK (it may negotiate another version)."""
        if self.modern is False and self._init_id is None and self._handshake is None and not self._handshake_off:
            self._init_id = rid
        else:
            self._handshake_off = True
            self._handshake = None

    def heard(self, text: str) -> None:
        """A line the SDK writes: the answer to `initialize` opens the handshake connection's gate (the SDK
        commits the negotiated version before it answers) and says its version."""
        if self._init_id is None:
            return
        try:
            reply = json.loads(text)
        except ValueError:
            return
        if not isinstance(reply, dict) or reply.get("id") != self._init_id:
            return
        self._init_id = None
        result = reply.get("result")
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if version in HANDSHAKE_PROTOCOL_VERSIONS and not self._handshake_off:
            self._handshake = version

    def _route(self, params: Any) -> tuple[ToolCall, str, object] | None:
        """The tool, protocol version and raw arguments of a call the SDK would hand to our handler unchanged;
        else None."""
        if not isinstance(params, dict) or not params.keys() <= _PARAMS:
            return None
        name = params.get("name")
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return None
        if self.modern:
            route = classify_inbound_request({"method": "tools/call", "params": params})
            if isinstance(route, InboundLadderRejection):
                return None
            version = route.protocol_version
        elif self._handshake is not None and not _enveloped(params):  # an envelope: the SDK refuses it here
            version = self._handshake
        else:  # before the handshake: the SDK's gate refuses it
            return None
        try:
            _methods.validate_client_request("tools/call", version, params)
        except Exception:  # refused (or unknown to this SDK): the SDK answers it as it always does
            return None
        return tool, version, params.get("arguments") or {}  # as raw_arguments reads them

    def _cancel(self, params: Any) -> None:
        rid = params.get("requestId") if isinstance(params, dict) else None
        if not isinstance(rid, (str, int)) or isinstance(rid, bool):
            return
        scope = self._in_flight.get(coerce_request_id(rid))
        if scope is not None:
            scope.cancel()

    def shutdown(self) -> None:
        """The end of stdin: every call still running ends and is answered "Connection closed" (-32000), the
        answer the SDK's dispatcher gives its own calls then (when its writer is still open: not always)."""
        self._closing = True
        for scope in list(self._in_flight.values()):
            scope.cancel()

    async def _run(self, rid: str | int, tool: ToolCall, raw: object, version: str) -> None:
        key = coerce_request_id(rid)
        scope = self._in_flight[key] = anyio.CancelScope()
        with scope:  # cancelled by the peer: never answered
            try:
                result = await tool(raw)
                line = self._answer(rid, result, version)
            except Exception as exc:  # not run_tool's (it answers every failure): our own shaping
                line = _error_line(rid, modern_error_data(exc))
            finally:
                if self._in_flight.get(key) is scope:
                    del self._in_flight[key]
            await self._write(line)
        if scope.cancelled_caught and self._closing:
            with anyio.move_on_after(_SHUTDOWN_WRITE_S, shield=True):
                await self._write(_error_line(rid, ErrorData(code=CONNECTION_CLOSED, message="Connection closed")))

    def _answer(self, rid: str | int, result: CallToolResult, version: str) -> str:
        """The response line the SDK writes for `result`: its model dump (aliases, no None), sieved by the protocol
        surface of `version`, and on a 2026-era connection `resultType` and the `serverInfo` stamp added, in that
        order. A 2026-era result of our usual shape (text blocks, no annotations or `_meta`) is built directly;
        any other goes through the SDK's own sieve."""
        if version not in MODERN_PROTOCOL_VERSIONS:
            dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            body = _methods.serialize_server_result("tools/call", version, dumped)
        elif result.meta is None and all(type(c) is TextContent and c.annotations is None and c.meta is None
                                         for c in result.content):
            body = {"content": [{"text": c.text, "type": "text"} for c in result.content
                                if isinstance(c, TextContent)],
                    "isError": result.is_error, "resultType": "complete"}
            if result.structured_content is not None:
                body["structuredContent"] = result.structured_content
            body["_meta"] = {SERVER_INFO_META_KEY: self._stamp}
        else:
            dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            body = _methods.serialize_server_result("tools/call", version, dumped)
            body.setdefault("resultType", "complete")
            meta = body.get("_meta")
            if meta is None:
                body["_meta"] = {SERVER_INFO_META_KEY: self._stamp}
            elif isinstance(meta, dict) and meta.get(SERVER_INFO_META_KEY) is None:
                body["_meta"] = {**meta, SERVER_INFO_META_KEY: self._stamp}
        return pydantic_core.to_json({"jsonrpc": "2.0", "id": rid, "result": body}).decode() + "\n"


def _enveloped(params: Any) -> bool:
    """Whether a request carries the 2026 per-request envelope (the SDK's `_has_modern_envelope`)."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, Mapping) and PROTOCOL_VERSION_META_KEY in meta


def _error_line(rid: str | int, error: ErrorData) -> str:
    return JSONRPCError(jsonrpc="2.0", id=rid, error=error).model_dump_json(by_alias=True, exclude_unset=True) + "\n"


def for_server(server: MCPServer[Any], write: Write, tg: anyio.abc.TaskGroup) -> FastCalls | None:
    """The fast path for `server`, or None when its `tools/call` is not the plain one build_server makes (another
    handler, an extension's interceptor, a middleware of another kind, a cache hint), which only the SDK runs."""
    # The SDK's span (no tracer is configured: nothing leaves the process), its requestState seal (it acts only on
    # a `requestState` param, which _route leaves to the SDK, and on input_required results, which no tool of
    # ours returns) and ours that say they leave tool calls alone (app.py ListToolsCache: tools/list only).
    plain = (OpenTelemetryMiddleware, RequestStateBoundary)
    tools: Mapping[str, ToolCall] | None = getattr(server, "tool_calls", None)
    low = server._lowlevel_server
    entry = low.get_request_handler("tools/call")
    handler = getattr(entry, "handler", None)
    if (not tools or getattr(handler, "__func__", None) is not MCPServer._handle_call_tool
            or getattr(handler, "__self__", None) is not server or "tools/call" in low.cache_hints
            or not all(type(m) in plain or getattr(m, "leaves_tool_calls", False) is True
                    for m in low.middleware)):
        return None
    return FastCalls(tools, low.server_info_stamp, write, tg)
