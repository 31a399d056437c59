"""The MCP adapter's wiring: `build_server` puts the tool table, resources and prompts into one MCP server.

Where things live: `tools.py` the tool table (one typed wrapper per service), `schemas.py` the published
schemas, `arguments.py` argument coercion and validation, `runner.py` one call (deadline, errors, caps),
`resources.py` and `prompts.py`, `http.py` the streamable HTTP transport; the texts are `sgtools.present.results`.
Nothing here runs ast-grep or reads the community index, so `tools/list` is fast.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import jsonschema
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp_types import CallToolResult, InputRequiredResult
from mcp_types import Resource as MCPResource
from mcp_types import Tool as MCPTool
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from sgtools import __version__
from sgtools.core.errors import BadInput
from sgtools.core.settings import Settings, get_settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.server.arguments import raw_arguments
from sgtools.server.fastcall import ToolCall
from sgtools.server.prompts import add_prompts
from sgtools.server.resources import add_resources, rule_resources
from sgtools.server.runner import error_result, run_tool
from sgtools.server.schemas import input_schemas, published, published_output
from sgtools.server.spec import App, ToolSpec
from sgtools.server.tools import TOOLS

log = logging.getLogger("sgtools.server.app")

SERVER_NAME = "context-sherpa"

INSTRUCTIONS = """\
context-sherpa checks code against the project's own ast-grep rules and lets you write new rules.
Typical flow: call server_info to see the root and rule health. If it reports no sgconfig.yml, call
initialize_ast_grep once. Check code you just wrote with scan_code (a snippet, or files on disk
without code).
To turn feedback into a rule: write code that must and must not be flagged, call suggest_rule (verified
rules, best first), review the top one, then add_or_update_rule with the same examples. Community rules:
search_community_rules, get_community_rule_details, import_community_rule. Every error starts with a code in
brackets, e.g. [config-missing], and says what to do next. Read the guide resource sgtools://guide/writing-rules before
writing your first rule."""


class SgToolsServer(MCPServer[Any]):
    """MCPServer that leaves write-only tools out of `tools/list` in read-only mode (calls get [read-only]) and
    lists each current project rule as a resource."""

    def __init__(self, *args: Any, hidden_tools: frozenset[str] = frozenset(), app: App | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hidden_tools = hidden_tools
        self.app = app
        self.tool_calls: dict[str, ToolCall] = {}  # every tool by name (hidden ones too: a call gets [read-only])

    async def list_tools(self) -> list[MCPTool]:
        return [t for t in await super().list_tools() if t.name not in self.hidden_tools]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        if name not in tool_specs():
            log.info("unknown tool %r called", name[:200])
            return error_result(BadInput(
                f"There is no tool named {name[:200]!r}. The tools are: {', '.join(tool_specs())}."
            ).render())
        return await super().call_tool(name, arguments, context)

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        return listed if self.app is None else [*listed, *await rule_resources(self.app)]


class ListToolsCache:
    """Answers a repeated `tools/list` with the wire form the SDK built for the same request before.

    The list never changes while the server runs (read-only mode is fixed at start), but the SDK rebuilds it on
    every call: 17 Tool models made and validated, then dumped, validated against the protocol surface and
    dumped again, about 48 KB of schemas through pydantic each time, several times what a one-tool server pays.
    This middleware (the SDK's own extension point) keeps the result per (protocol version, request params) and
    returns it as is for a request with the very same params, so it would pass the SDK's checks the same way.
    Only where the SDK's gate is open for the connection: a 2026-era one (no handshake) or one that completed
    `initialize`; anything else, and a later page (`cursor`), takes the SDK's path."""

    MAX_ENTRIES = 16  # distinct (version, params) kept; a client varying its _meta per call just misses
    leaves_tool_calls = True  # so the stdio fast path may answer tools/call without it (server/fastcall.py)

    def __init__(self) -> None:
        self._wire: dict[tuple[str, str], dict[str, Any]] = {}

    def _key(self, ctx: ServerRequestContext[Any, Any]) -> tuple[str, str] | None:
        params = ctx.params or {}
        if ctx.method != "tools/list" or ctx.request_id is None or set(params) - {"_meta"}:
            return None
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS and ctx.session.client_params is None:
            return None
        try:
            return ctx.protocol_version, json.dumps(params, sort_keys=True)
        except (TypeError, ValueError):
            return None

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        key = self._key(ctx)
        if key is None:
            return await call_next(ctx)
        hit = self._wire.get(key)
        if hit is not None:
            return dict(hit)  # the SDK copies it again and only encodes it: the cached value is never changed
        result = await call_next(ctx)
        if isinstance(result, dict):
            if len(self._wire) >= self.MAX_ENTRIES:
                self._wire.clear()
            self._wire[key] = dict(result)
        return result


def _tool_call(app: App, spec: ToolSpec, schema: dict[str, Any]) -> ToolCall:
    """One tool's call from its raw arguments: what the SDK's handler runs, and the stdio fast path
    (server/fastcall.py) for the same request."""
    validator = jsonschema.Draft202012Validator(schema)

    async def call(raw: object) -> CallToolResult:
        return await run_tool(app, spec, schema, raw, validator)

    return call


def _make_tool(app: App, spec: ToolSpec, schema: dict[str, Any], call: ToolCall) -> Tool:
    async def handler(ctx: Context[Any, Any]) -> CallToolResult:
        return await call(raw_arguments(ctx))

    handler.__name__ = spec.name
    base = Tool.from_function(handler, name=spec.name, title=spec.title, description=spec.description,
                              annotations=spec.annotations(app.read_only), structured_output=False)
    # The published schemas are ours (plain JSON types); the SDK's argument model is empty and ignores them.
    metadata = FuncMetadata(arg_model=base.fn_metadata.arg_model, output_schema=published_output(spec))
    return base.model_copy(update={"parameters": published(schema), "fn_metadata": metadata})


def tool_specs() -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in TOOLS}


def build_server(root: str | None = None, *, read_only: bool = False, settings: Settings | None = None,
                 engine: Engine | None = None) -> SgToolsServer:
    """The whole MCP surface for one workspace. Cheap: nothing here runs ast-grep or reads the index."""
    settings = settings or get_settings()  # validated once, at start-up; services read it from ws / engine
    engine = engine or Engine(settings=settings)
    engine.enable_warm()  # a server lives long enough for warm ast-grep processes to pay (engine/warm.py)
    app = App(ws=Workspace(root, settings), engine=engine, settings=settings,
              read_only=read_only)
    schemas = input_schemas(app.settings, TOOLS)
    calls = {spec.name: _tool_call(app, spec, schemas[spec.name]) for spec in TOOLS}
    tools = [_make_tool(app, spec, schemas[spec.name], calls[spec.name]) for spec in TOOLS]
    hidden = frozenset(spec.name for spec in TOOLS if read_only and spec.write_only)
    server = SgToolsServer(SERVER_NAME, title="context-sherpa (ast-grep rules for agents)", version=__version__,
                           instructions=INSTRUCTIONS, tools=tools, hidden_tools=hidden, app=app,
                           middleware=[ListToolsCache()])
    server.tool_calls = calls
    add_resources(server, app)
    add_prompts(server)
    return server
