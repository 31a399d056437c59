"""The MCP resources: the project's sgconfig.yml, each project rule's YAML, and the rule-writing guide."""

from __future__ import annotations

import importlib.resources
import logging
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from mcp_types import Resource as MCPResource

from sgtools.core.errors import SgToolsError
from sgtools.project.config import load_config
from sgtools.server.guard import escape_surrogates
from sgtools.server.spec import App

log = logging.getLogger("sgtools.server.resources")

GUIDE_FILE = "rule_writing_guide.md"
CONFIG_URI = "sgtools://project/sgconfig.yml"
RULE_URI = "sgtools://rules/{rule_id}"
GUIDE_URI = "sgtools://guide/writing-rules"


async def _read_in_thread(read: Callable[[], str]) -> str:
    """A resource read off the event loop. Our errors become JSON-RPC errors whose message starts with the SPEC
    code: a caller's mistake (no project yet, an unknown rule id) is invalid params (-32602, as the SDK answers an
    unknown resource), only a fault of ours is an internal error (-32603)."""
    try:
        return await anyio.to_thread.run_sync(read)
    except SgToolsError as exc:
        code = INTERNAL_ERROR if exc.code == "engine-failed" else INVALID_PARAMS
        raise MCPError(code=code, message=exc.render(), data={"code": exc.code}) from None


def guide_text() -> str:
    """The guide, and the drafting guidance suggest_rule's `draft_rule` is written by (one text, drafted.py)."""
    from sgtools.workflows.suggest.drafted import SYSTEM

    guide = importlib.resources.files("sgtools.server").joinpath(GUIDE_FILE).read_text(encoding="utf-8")
    return f"{guide.rstrip()}\n\n## Drafting a rule for suggest_rule (`draft_rule`)\n\n{SYSTEM}"


def add_resources(server: MCPServer[Any], app: App) -> None:
    @server.resource(CONFIG_URI, name="sgconfig.yml", title="The project's ast-grep config",
                     description="The workspace's sgconfig.yml: rule, util and test directories.",
                     mime_type="application/yaml")
    async def config_file() -> str:
        def read() -> str:
            return load_config(app.ws).path.read_text(encoding="utf-8")
        return await _read_in_thread(read)

    @server.resource(RULE_URI, name="rule", title="A project rule",
                     description="One project rule's YAML, by id (list_rules shows the ids).",
                     mime_type="application/yaml")
    async def rule_file(rule_id: str) -> str:
        def read() -> str:
            from sgtools.rules.listing import explain_rule

            return str(explain_rule(app.ws, app.engine, rule_id)["yaml"])
        return await _read_in_thread(read)

    @server.resource(GUIDE_URI, name="rule-writing-guide", title="How to write ast-grep rules",
                     description="For agents: drafting, testing and saving an ast-grep rule, and the usual traps.",
                     mime_type="text/markdown")
    def guide() -> str:
        return guide_text()


async def rule_resources(app: App) -> list[MCPResource]:
    """One resource per current project rule; none when the project has no config or ast-grep is missing."""
    from sgtools.rules.listing import list_rules

    try:
        data = escape_surrogates(await anyio.to_thread.run_sync(lambda: list_rules(app.ws, app.engine)))
    except SgToolsError as exc:  # no project yet, no binary...: the static resources are still useful
        log.info("rules not listed as resources: %s", exc.render())
        return []
    return [MCPResource(uri=RULE_URI.format(rule_id=r["id"]), name=str(r["id"]), title=f"Rule {r['id']}",
                        description=f"{r.get('language')}, {r.get('severity')}: {r.get('message') or ''}".strip(),
                        mime_type="application/yaml")
            for r in data.get("rules", [])]
