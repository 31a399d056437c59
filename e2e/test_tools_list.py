"""`tools/list` is the contract with agents: names, parameters and annotations exactly as the SPEC table says.

The table below is the snapshot; change it only together with SPEC.md. The output keys are derived from the
services' result TypedDicts (sgtools/contracts/): they list every field a result always or sometimes has.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from e2e.conftest import stdio_client

pytestmark = pytest.mark.anyio

SIGNAL = {"suppressed", "inTests", "skippedInTests", "generated", "skippedGenerated"}  # docs/signal.md
# name: (required inputs, optional inputs, (readOnly, destructive, idempotent, openWorld), output keys)
SNAPSHOT: dict[str, tuple[set[str], set[str], tuple[bool, bool, bool, bool], set[str]]] = {
    "initialize_ast_grep": (set(), set(), (False, False, True, False),
                            {"success", "message", "created", "existing"}),
    "scan_code": (set(), {"code", "files", "language", "path", "paths", "rule_ids", "offset", "profile",
                          "min_severity", "max_results"},
                  (True, False, True, False),
                  {"success", "issues", "rules", "counts", "truncated", "ruleErrors", "rulesRun", "noRuleRan", "notes",
                   "analysis", "nextOffset", "filesChecked", "profile", *SIGNAL}),
    "add_or_update_rule": ({"rule_id", "rule_yaml"}, {"valid_examples", "invalid_examples", "force"},
                           (False, True, True, False), {"success", "message", "path", "created", "testPath",
                                                        "testResult", "analysis", "warnings", "unproven"}),
    "remove_rule": ({"rule_id"}, set(), (False, True, True, False), {"success", "message", "removed"}),
    "list_rules": (set(), {"language", "rule_id"}, (True, False, True, False), {"rules", "ruleErrors", "rule"}),
    "test_rule": ({"rule_yaml"}, {"code", "language", "valid_examples", "invalid_examples"},
                  (True, False, True, False), {"success", "errors", "matches", "examples", "hints", "warnings",
                                               "analysis"}),
    "suggest_rule": ({"language", "invalid_examples"}, {"valid_examples", "path", "message", "severity", "rule_id",
                                                          "fix_examples", "max_candidates", "request",
                                                          "draft_rule"},
                     (True, False, True, False), {"success", "candidates", "explanation", "warnings", "proof"}),
    "dump_syntax_tree": ({"code", "language"}, {"format"}, (True, False, True, False),
                         {"tree", "language", "format", "hints"}),
    "find_code": ({"pattern", "language"}, {"paths", "max_results", "rewrite", "apply"}, (False, True, False, False),
                  {"matches", "truncated", "hints", "diff", "changes", "applied", "skipped", "changedFiles"}),
    "apply_fixes": (set(), {"paths", "rule_ids", "apply", "include_unsafe"}, (False, True, False, False),
                    {"diff", "changedFiles", "fixesApplied", "applied", "fixes", "skipped", "ruleErrors"}),
    "search_community_rules": ({"query"}, {"language", "tags", "limit", "source"}, (True, False, True, True),
                               {"success", "results", "matches", "warnings"}),
    "get_community_rule_details": ({"rule_id"}, set(), (True, False, True, True),
                                   {"success", "details", "rule", "warnings"}),
    "import_community_rule": ({"rule_id"}, {"overwrite", "globs"}, (False, True, True, True),
                              {"success", "message", "path", "testPath", "source", "sha256", "license",
                               "migrationNotes", "testResult", "warnings", "analysis"}),
    "server_info": (set(), set(), (True, False, True, True),
                    {"version", "astGrepVersion", "root", "config", "ruleCount", "ruleErrors", "languages",
                     "communitySources", "readOnly", "python", "astGrepBinary", "customLanguages", "problems",
                     "defaultExcludes", "ruleAnalysis", "engine", "unprovenRules", "notes"}),
}
# Every capability of the 17 tools before issue 31, and the call that reaches it now, with a key its answer has.
CAPABILITIES: dict[str, tuple[str, dict[str, Any], str]] = {
    "set up a project": ("initialize_ast_grep", {}, "created"),
    "check a snippet": ("scan_code", {"code": "eval(x)\n", "language": "python"}, "issues"),
    "check a pending change's files": ("scan_code", {"files": [{"path": "a.py", "code": "eval(x)\n"}]}, "issues"),
    "scan files on disk, paged (was scan_path)": ("scan_code", {"paths": ["src"], "offset": 0}, "nextOffset"),
    "save a rule with tests": ("add_or_update_rule", {"rule_id": "no-eval", "rule_yaml": "id: no-eval\nlanguage: "
                               "python\nrule:\n  pattern: eval($X)\n", "invalid_examples": ["eval(1)"]}, "path"),
    "time each rule (was scan_path profile)": ("scan_code", {"profile": True}, "profile"),
    "list rules": ("list_rules", {"language": "python"}, "rules"),
    "explain a rule (was explain_rule)": ("list_rules", {"rule_id": "no-eval"}, "rule"),
    "test a draft rule": ("test_rule", {"rule_yaml": "id: t\nlanguage: python\nrule:\n  pattern: f($X)\n",
                                        "code": "f(1)"}, "matches"),
    "suggest a rule": ("suggest_rule", {"language": "python", "invalid_examples": ["eval(a)"]}, "candidates"),
    "show a syntax tree": ("dump_syntax_tree", {"code": "f(1)", "language": "python"}, "tree"),
    "find code by pattern": ("find_code", {"pattern": "eval($X)", "language": "python"}, "matches"),
    "rewrite code by pattern (was rewrite_code)": ("find_code", {"pattern": "eval($X)", "rewrite": "ev($X)",
                                                                 "language": "python"}, "diff"),
    "apply rule fixes": ("apply_fixes", {}, "diff"),
    "search community rules": ("search_community_rules", {"query": "eval"}, "matches"),
    "read a community rule": ("get_community_rule_details", {"rule_id": ""}, "rule"),
    "import a community rule": ("import_community_rule", {"rule_id": ""}, "path"),
    "server state": ("server_info", {}, "engine"),
    "remove a rule": ("remove_rule", {"rule_id": "no-eval"}, "removed"),
}
# Issue 31: what every session start costs a host, in bytes of compact JSON.
MAX_TOOL_SURFACE = 9 * 1024  # names, descriptions and input schemas
MAX_TOOLS_LIST = 20 * 1024  # the whole tools/list result
WRITE_ONLY = {"initialize_ast_grep", "add_or_update_rule", "remove_rule", "import_community_rule"}
PLAIN_TYPES = {"string", "integer", "boolean", "array", "object", "number"}


def _check_plain(schema: dict[str, Any], where: str) -> None:
    """Input schemas use plain JSON types: no anyOf/oneOf/$ref that some agent frameworks cannot read."""
    assert not {"anyOf", "oneOf", "allOf", "$ref", "$defs"} & set(schema), where
    assert schema.get("type") in PLAIN_TYPES, where
    for name, prop in schema.get("properties", {}).items():
        _check_plain(prop, f"{where}.{name}")
        assert prop.get("description") or where.count(".") > 0, f"{where}.{name} has no description"
    if "items" in schema:
        _check_plain(schema["items"], f"{where}[]")


@pytest.mark.slow
async def test_tools_list_matches_the_spec_table(root: Path, server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env) as client:
        tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == list(SNAPSHOT)
    for tool in tools:
        required, optional, hints, outputs = SNAPSHOT[tool.name]
        schema = tool.input_schema
        assert schema["type"] == "object" and schema.get("additionalProperties") is False
        assert set(schema.get("required", [])) == required, tool.name
        assert set(schema["properties"]) == required | optional, tool.name
        _check_plain(schema, tool.name)
        ann = tool.annotations
        assert ann is not None and ann.title is None, tool.name  # the tool's own title says it once
        assert (ann.read_only_hint, ann.destructive_hint, ann.idempotent_hint, ann.open_world_hint) == hints, \
            tool.name
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert set(tool.output_schema["properties"]) == outputs, tool.name
        assert set(tool.output_schema.get("required", [])) <= outputs
        assert tool.description and len(tool.description) > 40, tool.name  # short, but a sentence
        assert tool.title


@pytest.mark.slow
async def test_tools_list_fits_its_budget(root: Path, server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env) as client:
        tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True)
                 for t in (await client.list_tools()).tools]
    whole = len(json.dumps({"tools": tools}, separators=(",", ":")))
    surface = sum(len(json.dumps({k: t.get(k) for k in ("name", "description", "inputSchema")},
                                 separators=(",", ":"))) for t in tools)
    assert surface <= MAX_TOOL_SURFACE, surface
    assert whole <= MAX_TOOLS_LIST, whole


@pytest.mark.slow
async def test_every_capability_is_reachable(root: Path, server_env: dict[str, str]) -> None:
    """Fewer tools, nothing lost: each capability of the 17 tools answers through the 14, on a real project."""
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = eval(y)\n", encoding="utf-8")
    assert {tool for tool, _, _ in CAPABILITIES.values()} == set(SNAPSHOT)
    async with stdio_client(root, server_env) as client:
        community = ""
        for what, (tool, args, key) in CAPABILITIES.items():
            if args.get("rule_id") == "":
                args = {"rule_id": community}
            result = await client.call_tool(tool, args)
            body = result.content[0].text if result.content and hasattr(result.content[0], "text") else ""
            assert not result.is_error, (what, body)
            data = result.structured_content
            assert isinstance(data, dict) and key in data, (what, sorted(data or {}))
            if tool == "search_community_rules":
                community = next(m["id"] for m in data["matches"] if "eval" in m["id"])


@pytest.mark.slow
async def test_read_only_tools_list(root: Path, server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env, "--read-only") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == set(SNAPSHOT) - WRITE_ONLY
    for name, tool in tools.items():
        ann = tool.annotations
        assert ann is not None and ann.read_only_hint is True and ann.destructive_hint is False, name


@pytest.mark.slow
def test_tools_list_needs_neither_the_binary_nor_the_community_index(root: Path,
                                                                      server_env: dict[str, str]) -> None:
    """Fast start: listing tools locates no ast-grep and imports no service (so no index is loaded)."""
    script = f"""
import sys, anyio
from mcp import Client
from sgtools.server.app import build_server

async def main():
    server = build_server({str(root)!r})
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    services = sorted(m for m in sys.modules if m.startswith(("sgtools.community.service", "sgtools.community.search",
                      "sgtools.community.sources", "sgtools.scan.snippet", "sgtools.scan.paths", "sgtools.rules.store",
                      "sgtools.rules.listing", "sgtools.rules.validate",
                      "sgtools.workflows.apply_fixes")))
    print(len(tools), services)

anyio.run(main)
"""
    env = {**server_env, "SGTOOLS_AST_GREP": "/nonexistent/ast-grep"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split(maxsplit=1) == ["14", "[]\n"] or proc.stdout.strip() == "14 []", proc.stdout


@pytest.mark.slow
async def test_without_the_binary_tools_answer_engine_failed(root: Path, server_env: dict[str, str]) -> None:
    env = {**server_env, "SGTOOLS_AST_GREP": "/nonexistent/ast-grep"}
    async with stdio_client(root, env) as client:
        assert len((await client.list_tools()).tools) == 14
        result = await client.call_tool("dump_syntax_tree", {"code": "x", "language": "python"})
        assert result.is_error
        body = result.content[0].text if result.content and hasattr(result.content[0], "text") else ""
        assert body.startswith("[engine-failed]"), body
        info = await client.call_tool("server_info", {})
        assert not info.is_error and isinstance(info.structured_content, dict)
        assert info.structured_content["astGrepVersion"] is None
        assert json.dumps(info.structured_content["problems"]).count("engine-failed") == 1
