"""The MCP adapter: every SPEC tool as an MCP tool over the services, plus resources and prompts.

This module only translates. It validates arguments against the published input schema, calls one service in a
worker thread under a deadline, and turns the service's dict into structured content plus a short text; an
`SgToolsError` becomes an `isError` result whose text starts with the SPEC code. Services are imported inside the
calls, so `tools/list` is answered without locating ast-grep or loading the community index.
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
import jsonschema
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from mcp_types import Resource as MCPResource
from mcp_types import Tool as MCPTool

from sgtools import __version__
from sgtools.core.errors import BadInput, EngineFailed, ReadOnly, SgToolsError, Timeout, TooLarge
from sgtools.core.settings import Settings, get_settings
from sgtools.engine.process import Engine
from sgtools.present.text import plural
from sgtools.project import config as project
from sgtools.project.workspace import Workspace

log = logging.getLogger("sgtools.server.app")

SERVER_NAME = "context-sherpa"
GUIDE_FILE = "rule_writing_guide.md"
CONFIG_URI = "sgtools://project/sgconfig.yml"
RULE_URI = "sgtools://rules/{rule_id}"
GUIDE_URI = "sgtools://guide/writing-rules"
SEVERITIES = ("error", "warning", "info", "hint")
# How many findings the short text names before it says "and N more"; the full list is in structured content.
TEXT_ITEMS = 20

INSTRUCTIONS = """\
context-sherpa checks code against the project's own ast-grep rules and lets you write new rules.
Typical flow: call server_info to see the root and rule health. If it reports no sgconfig.yml, call
initialize_ast_grep once. Check code you just wrote with scan_code (a snippet) or scan_path (files on disk).
To turn feedback into a rule: dump_syntax_tree to see node kinds, test_rule until it matches exactly what
it should, then add_or_update_rule with valid and invalid examples. Community rules: search_community_rules,
get_community_rule_details, import_community_rule. Every error starts with a code in brackets, e.g.
[config-missing], and says what to do next. Read the guide resource sgtools://guide/writing-rules before
writing your first rule."""


@dataclass(frozen=True)
class App:
    """What every call needs: the workspace, the engine handle, the limits and the mode."""

    ws: Workspace
    engine: Engine
    settings: Settings
    read_only: bool = False


Call = Callable[[App, dict[str, Any]], dict[str, Any]]
Render = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    call: Call
    render: Render
    read_only: bool = True  # never writes
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False
    write_only: bool = False  # does nothing but write: hidden in read-only mode
    writes_when_applied: bool = False  # writes only when called with apply=true

    def annotations(self, read_only_mode: bool) -> ToolAnnotations:
        # In read-only mode an apply=true call is refused, so such a tool truly only reads.
        reads_only = self.read_only or (read_only_mode and self.writes_when_applied)
        return ToolAnnotations(
            title=self.title,
            read_only_hint=reads_only,
            destructive_hint=False if reads_only else self.destructive,
            idempotent_hint=True if reads_only else self.idempotent,
            open_world_hint=self.open_world,
        )


# ---- schemas ----------------------------------------------------------------------------------------------


def _obj(properties: dict[str, Any], required: tuple[str, ...] = (), *, closed: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


def _str(description: str, max_length: int, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, "maxLength": max_length, **extra}


def _str_list(description: str, max_items: int, max_length: int) -> dict[str, Any]:
    return {"type": "array", "description": description, "items": {"type": "string", "maxLength": max_length},
            "maxItems": max_items}


def _int(description: str, minimum: int, maximum: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "description": description, "minimum": minimum}
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def _bool(description: str, default: bool = False) -> dict[str, Any]:
    return {"type": "boolean", "description": description, "default": default}


NULLABLE_STR = {"type": ["string", "null"]}
STR_LIST = {"type": "array", "items": {"type": "string"}}
RULE_ERRORS = {"type": "array", "description": "rule files that could not be loaded; the other rules still ran",
               "items": {"type": "object"}}
COUNTS = _obj({s: {"type": "integer"} for s in SEVERITIES}, SEVERITIES)
POSITION = {k: {"type": "integer"} for k in ("line", "column", "endLine", "endColumn")}
DIAGNOSTIC = _obj(
    {
        "ruleId": {"type": "string"}, "severity": {"type": "string", "enum": list(SEVERITIES)},
        "message": {"type": "string"}, "note": NULLABLE_STR, "url": NULLABLE_STR, "file": NULLABLE_STR,
        **POSITION, "byteStart": {"type": "integer"}, "byteEnd": {"type": "integer"}, "text": {"type": "string"},
        "labels": {"type": "array", "items": {"type": "object"}},
        "fixits": {"type": "array", "items": _obj({
            "title": {"type": "string"}, "kind": {"type": "string", "enum": ["fix", "suppress"]},
            "confidence": {"type": "number"}, "verified": {"type": "boolean"},
            "edits": {"type": "array", "items": {"type": "object"}},
        })},
    },
    ("ruleId", "severity", "message", "file", "line", "column", "endLine", "endColumn"),
)
DIAGNOSTICS = {"type": "array", "items": DIAGNOSTIC}
SCAN_PROPS = {"success": {"type": "boolean", "description": "true when no issue was found"},
              "issues": DIAGNOSTICS, "counts": COUNTS, "truncated": {"type": "boolean"}, "ruleErrors": RULE_ERRORS}


def _input_schemas(s: Settings) -> dict[str, dict[str, Any]]:
    """Input schemas in plain JSON types; the caps come from `Settings` so operators can tune them."""
    short = s.max_rule_bytes
    code = _str("the source code to check", s.max_code_bytes)
    language = _str("language name as ast-grep spells it (python, javascript, typescript, go, rust, ...)", 64)
    rule_id = _str("rule id: letters, digits, '.', '_' or '-', starting with a letter or digit", 128,
                   pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    rule_yaml = _str("one ast-grep rule as YAML (id, language, rule, and optionally message, severity, fix, note)",
                     s.max_rule_bytes)
    paths = _str_list("files or directories relative to the workspace root (default: the whole workspace)",
                      s.hard_max_results, 4096)
    rule_ids = _str_list("only run these rule ids (default: all rules)", s.hard_max_results, 128)
    valid = _str_list("code snippets the rule must NOT match (each is one test case)", s.max_examples,
                      s.max_code_bytes)
    invalid = _str_list("code snippets the rule MUST match (each is one test case)", s.max_examples,
                        s.max_code_bytes)
    min_severity = {"type": "string", "enum": list(SEVERITIES),
                    "description": "report only findings at or above this severity"}
    max_results = _int(f"at most this many findings (default {s.default_max_results})", 1, s.hard_max_results)
    apply = _bool("write the changes to disk; false (the default) only returns the diff")
    return {
        "initialize_ast_grep": _obj({}, closed=True),
        "scan_code": _obj({
            "code": code,
            "language": _str(language["description"] + "; may be left out when `path` has a known extension", 64),
            "path": _str("virtual path of the snippet in the workspace, e.g. src/app.py: picks the language and "
                         "the rules whose files/ignores globs apply", 4096),
            "min_severity": min_severity, "max_results": max_results,
        }, ("code",), closed=True),
        "scan_path": _obj({
            "paths": paths, "min_severity": min_severity, "rule_ids": rule_ids, "max_results": max_results,
            "offset": _int("skip this many findings (use the nextOffset of the previous page)", 0),
        }, closed=True),
        "add_or_update_rule": _obj({
            "rule_id": rule_id, "rule_yaml": rule_yaml, "valid_examples": valid, "invalid_examples": invalid,
        }, ("rule_id", "rule_yaml"), closed=True),
        "remove_rule": _obj({"rule_id": rule_id}, ("rule_id",), closed=True),
        "list_rules": _obj({"language": language}, closed=True),
        "explain_rule": _obj({"rule_id": rule_id}, ("rule_id",), closed=True),
        "test_rule": _obj({
            "rule_yaml": rule_yaml, "code": _str("optional code to run the rule on", s.max_code_bytes),
            "language": language, "valid_examples": valid, "invalid_examples": invalid,
        }, ("rule_yaml",), closed=True),
        "dump_syntax_tree": _obj({
            "code": _str("the code (or pattern) to parse", s.max_arg_bytes), "language": language,
            "format": {"type": "string", "enum": ["cst", "ast", "pattern"], "default": "cst",
                       "description": "cst: every node incl. punctuation; ast: named nodes only; pattern: how "
                                      "ast-grep reads `code` as a pattern"},
        }, ("code", "language"), closed=True),
        "find_code": _obj({
            "pattern": _str("an ast-grep pattern, e.g. `console.log($$$ARGS)`", s.max_arg_bytes), "language": language,
            "paths": paths, "max_results": max_results,
        }, ("pattern", "language"), closed=True),
        "rewrite_code": _obj({
            "pattern": _str("an ast-grep pattern with metavariables, e.g. `$A == None`", s.max_arg_bytes),
            "rewrite": _str("the replacement, using the pattern's metavariables, e.g. `$A is None`", s.max_arg_bytes),
            "language": language, "paths": paths, "apply": apply,
        }, ("pattern", "rewrite", "language"), closed=True),
        "apply_fixes": _obj({"paths": paths, "rule_ids": rule_ids, "apply": apply}, closed=True),
        "search_community_rules": _obj({
            "query": _str("words describing the problem, e.g. `unchecked error` or `eval`", short),
            "language": language,
            "tags": _str("comma-separated tags that must all be present, e.g. `security,cwe-95`", short),
            "limit": _int("at most this many results", 1, s.hard_max_results),
        }, ("query",), closed=True),
        "get_community_rule_details": _obj({"rule_id": rule_id}, ("rule_id",), closed=True),
        "import_community_rule": _obj({
            "rule_id": rule_id,
            "overwrite": _bool("replace a project rule with the same id (default false: refuse with [conflict])"),
        }, ("rule_id",), closed=True),
        "server_info": _obj({}, closed=True),
    }


OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "initialize_ast_grep": _obj({"success": {"type": "boolean"}, "message": {"type": "string"},
                                 "created": STR_LIST, "existing": STR_LIST},
                                ("success", "message", "created", "existing")),
    "scan_code": _obj(SCAN_PROPS, ("success", "issues", "counts", "truncated", "ruleErrors")),
    "scan_path": _obj({**SCAN_PROPS, "nextOffset": {"type": ["integer", "null"]}},
                      ("success", "issues", "counts", "truncated", "nextOffset", "ruleErrors")),
    "add_or_update_rule": _obj({"success": {"type": "boolean"}, "message": {"type": "string"},
                                "path": {"type": "string"}, "created": {"type": "boolean"},
                                "testPath": NULLABLE_STR, "testResult": {"type": ["object", "null"]}},
                               ("success", "message", "path", "created")),
    "remove_rule": _obj({"success": {"type": "boolean"}, "message": {"type": "string"}, "removed": STR_LIST},
                        ("success", "message", "removed")),
    "list_rules": _obj({"rules": {"type": "array", "items": _obj({
        "id": {"type": "string"}, "language": {"type": "string"}, "severity": {"type": "string"},
        "message": {"type": ["string", "null"]}, "path": {"type": "string"}, "hasFix": {"type": "boolean"},
        "hasTests": {"type": "boolean"}}, ("id", "language", "severity", "path", "hasFix", "hasTests"))},
        "ruleErrors": RULE_ERRORS}, ("rules", "ruleErrors")),
    "explain_rule": _obj({
        "id": {"type": "string"}, "language": {"type": "string"}, "severity": {"type": "string"},
        "message": NULLABLE_STR, "note": NULLABLE_STR, "url": NULLABLE_STR, "fix": {},
        "yaml": {"type": "string"}, "path": {"type": "string"},
        "examples": _obj({"valid": STR_LIST, "invalid": STR_LIST}), "source": {}},
        ("id", "language", "severity", "yaml", "path", "examples")),
    "test_rule": _obj({"success": {"type": "boolean"}, "errors": {"type": "array"}, "matches": DIAGNOSTICS,
                       "examples": _obj({"passed": {"type": "integer"}, "failed": {"type": "array"}})},
                      ("success", "errors", "matches", "examples")),
    "dump_syntax_tree": _obj({"tree": {"type": "string"}}, ("tree",)),
    "find_code": _obj({"matches": {"type": "array", "items": _obj(
        {"file": NULLABLE_STR, **POSITION, "text": {"type": "string"}, "metaVariables": {"type": "object"}},
        ("file", "line", "column", "endLine", "endColumn", "text"))},
        "truncated": {"type": "boolean"}}, ("matches", "truncated")),
    "rewrite_code": _obj({"diff": {"type": "string"}, "changes": {"type": "array"}, "applied": {"type": "boolean"}},
                         ("diff", "changes", "applied")),
    "apply_fixes": _obj({"diff": {"type": "string"}, "changedFiles": STR_LIST, "fixesApplied": {"type": "integer"},
                         "applied": {"type": "boolean"}}, ("diff", "changedFiles", "fixesApplied", "applied")),
    "search_community_rules": _obj({"success": {"type": "boolean"}, "results": {"type": "string"},
                                    "matches": {"type": "array", "items": _obj({
                                        "id": {"type": "string"}, "score": {"type": "number"},
                                        "language": {"type": "string"}, "source": {}}, ("id",))}},
                                   ("success", "results", "matches")),
    "get_community_rule_details": _obj({"success": {"type": "boolean"}, "details": {"type": "string"},
                                        "rule": _obj({"id": {"type": "string"}, "yaml": {"type": "string"}},
                                                     ("id", "yaml"))}, ("success", "details", "rule")),
    "import_community_rule": _obj({"success": {"type": "boolean"}, "message": {"type": "string"},
                                   "path": {"type": "string"}, "testPath": NULLABLE_STR},
                                  ("success", "message", "path", "testPath")),
    "server_info": _obj({"version": {"type": "string"}, "astGrepVersion": NULLABLE_STR, "root": {"type": "string"},
                         "config": NULLABLE_STR, "ruleCount": {"type": "integer"}, "ruleErrors": RULE_ERRORS,
                         "languages": STR_LIST, "communitySources": {"type": "array"},
                         "readOnly": {"type": "boolean"}},
                        ("version", "astGrepVersion", "root", "config", "ruleCount", "ruleErrors", "languages",
                         "communitySources", "readOnly")),
}


# ---- service calls ----------------------------------------------------------------------------------------


def _service(module: str) -> Any:
    """Import a service on first use: keeps start-up fast and names a service missing from this build."""
    try:
        return importlib.import_module(f"sgtools.{module}")
    except ModuleNotFoundError as exc:
        log.warning("service sgtools.%s cannot be imported: %s", module, exc)
        raise EngineFailed(
            f"The {module} service is not available in this build of context-sherpa ({exc}). "
            "Reinstall or upgrade context-sherpa; the other tools still work."
        ) from None


def _with_ws(module: str, function: str) -> Call:
    def call(app: App, args: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = getattr(_service(module), function)(app.ws, app.engine, **args)
        return result
    return call


def _pure(module: str, function: str) -> Call:
    def call(app: App, args: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = getattr(_service(module), function)(**args)
        return result
    return call


def _initialize(app: App, args: dict[str, Any]) -> dict[str, Any]:
    done = project.initialize(app.ws)
    return {"success": True, "message": done.message, "created": done.created, "existing": done.existing}


def _community_sources() -> list[dict[str, Any]] | None:
    try:
        service = importlib.import_module("sgtools.community.service")
    except ModuleNotFoundError:
        return None
    sources: list[dict[str, Any]] = service.community_sources()
    return sources


def _server_info(app: App, args: dict[str, Any]) -> dict[str, Any]:
    info = _service("project.doctor")
    try:
        sources = _community_sources()
    except SgToolsError as exc:
        sources = [{"error": exc.render()}]
    result: dict[str, Any] = info.server_info(app.ws, app.engine, read_only=app.read_only,
                                              community_sources=sources)
    return result


# ---- short text renderings --------------------------------------------------------------------------------


def _more(items: list[Any], shown: int) -> list[str]:
    rest = len(items) - shown
    return [f"... and {rest} more (see the structured result)"] if rest > 0 else []


def _rule_errors_text(data: Mapping[str, Any]) -> list[str]:
    errors = data.get("ruleErrors") or []
    if not errors:
        return []
    lines = [f"{plural(len(errors), 'rule file')} could not be loaded (the other rules ran):"]
    for err in errors[:TEXT_ITEMS]:
        where = err.get("path") or err.get("ruleId") or "?"
        lines.append(f"  {where}: {err.get('message', err)}")
    return lines


def _diagnostic_line(d: Mapping[str, Any]) -> str:
    where = f"{d.get('file') or '<snippet>'}:{d.get('line')}:{d.get('column')}"
    fixes = [f for f in d.get("fixits") or [] if f.get("kind") == "fix"]
    fix_note = ""
    if fixes:
        state = "verified" if fixes[0].get("verified") else "unverified"
        fix_note = f" [fix: {state}] {fixes[0].get('title', '')}"
    return f"{where}: {d.get('severity')}[{d.get('ruleId')}] {d.get('message')}{fix_note}".rstrip()


def _render_scan(data: dict[str, Any]) -> str:
    issues = data.get("issues") or []
    counts = data.get("counts") or {}
    if not issues:
        head = "No issues found."
    else:
        parts = [f"{counts.get(s, 0)} {s}" for s in SEVERITIES if counts.get(s)]
        head = f"{plural(len(issues), 'issue')} ({', '.join(parts)})."
    lines = [head, *(_diagnostic_line(d) for d in issues[:TEXT_ITEMS]), *_more(issues, TEXT_ITEMS)]
    if data.get("truncated"):
        nxt = data.get("nextOffset")
        lines.append("More findings exist" + (f": call again with offset={nxt}." if nxt is not None else
                                               ": raise max_results or narrow the input."))
    return "\n".join([*lines, *_rule_errors_text(data)])


def _render_message(data: dict[str, Any]) -> str:
    lines = [str(data.get("message", "Done."))]
    for key, label in (("path", "rule file"), ("testPath", "test file")):
        if data.get(key):
            lines.append(f"{label}: {data[key]}")
    test = data.get("testResult")
    if isinstance(test, dict) and "success" in test:
        lines.append("examples: " + ("all passed" if test["success"] else "some failed (see testResult)"))
    if data.get("removed"):
        lines.append("removed: " + ", ".join(data["removed"]))
    return "\n".join(lines)


def _render_rules(data: dict[str, Any]) -> str:
    rules = data.get("rules") or []
    lines = [f"{plural(len(rules), 'rule')}."]
    for r in rules[: TEXT_ITEMS * 5]:
        flags = "".join((" fix" if r.get("hasFix") else "", " tests" if r.get("hasTests") else ""))
        lines.append(f"  {r.get('id')} ({r.get('language')}, {r.get('severity')}{flags}): {r.get('message') or ''}")
    return "\n".join([*lines, *_more(rules, TEXT_ITEMS * 5), *_rule_errors_text(data)])


def _render_explain(data: dict[str, Any]) -> str:
    head = f"{data.get('id')} ({data.get('language')}, {data.get('severity')}): {data.get('message') or ''}"
    return "\n".join([head, f"file: {data.get('path')}", "", str(data.get("yaml", ""))])


def _render_test(data: dict[str, Any]) -> str:
    matches = data.get("matches") or []
    examples = data.get("examples") or {}
    failed = examples.get("failed") or []
    lines = ["Rule OK." if data.get("success") else "Rule has problems."]
    for err in (data.get("errors") or [])[:TEXT_ITEMS]:
        lines.append(f"error: {err.get('message', err) if isinstance(err, dict) else err}")
    lines.append(f"{plural(len(matches), 'match')} in `code`.")
    lines.extend(_diagnostic_line(d) for d in matches[:TEXT_ITEMS])
    lines.append(f"examples: {examples.get('passed', 0)} passed, {len(failed)} failed")
    for f in failed[:TEXT_ITEMS]:
        reason = f.get("reason") if isinstance(f, dict) else None
        lines.append(f"  failed: {reason or json.dumps(f, ensure_ascii=False)[:300]}")
    for key in ("hints", "warnings"):
        lines.extend(f"{key[:-1]}: {item}" for item in (data.get(key) or [])[:TEXT_ITEMS])
    return "\n".join(lines)


def _render_tree(data: dict[str, Any]) -> str:
    return str(data.get("tree", ""))


def _render_find(data: dict[str, Any]) -> str:
    matches = data.get("matches") or []
    lines = [f"{plural(len(matches), 'match')}" + (" (truncated)." if data.get("truncated") else ".")]
    for m in matches[:TEXT_ITEMS]:
        first = str(m.get("text", "")).splitlines()[0] if m.get("text") else ""
        lines.append(f"{m.get('file')}:{m.get('line')}:{m.get('column')}: {first[:200]}")
    return "\n".join([*lines, *_more(matches, TEXT_ITEMS)])


def _render_diff(data: dict[str, Any]) -> str:
    changed = data.get("changedFiles")
    if changed is None:
        changed = sorted({str(c.get("file")) for c in data.get("changes") or [] if isinstance(c, dict)})
    if not data.get("diff"):
        return "Nothing to change."
    verb = "Applied" if data.get("applied") else "Would change (dry run; call again with apply=true to write)"
    return f"{verb}: {', '.join(changed)}\n\n{data['diff']}"


def _render_search(data: dict[str, Any]) -> str:
    return str(data.get("results") or "No community rule matched. Try other words or drop the language filter.")


def _render_details(data: dict[str, Any]) -> str:
    return str(data.get("details", ""))


def _render_info(data: dict[str, Any]) -> str:
    lines = [
        f"context-sherpa {data.get('version')} on ast-grep {data.get('astGrepVersion') or '(not found)'}",
        f"root: {data.get('root')}",
        f"config: {data.get('config') or 'none (call initialize_ast_grep)'}",
        f"rules: {data.get('ruleCount', 0)}" + (" (read-only mode)" if data.get("readOnly") else ""),
    ]
    lines.extend(f"problem: {p}" for p in data.get("problems") or [])
    return "\n".join([*lines, *_rule_errors_text(data)])


def _render_init(data: dict[str, Any]) -> str:
    return str(data.get("message", ""))


# ---- the tool table ---------------------------------------------------------------------------------------

_AFTER_ERROR = "On an error, the text starts with a [code] and says what to do next."

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "initialize_ast_grep", "Initialize ast-grep project",
        "Create the project's ast-grep setup in the workspace root: sgconfig.yml, rules/, utils/ and rule-tests/. "
        "Call it once when another tool answers [config-missing]. Safe to repeat: existing files are never "
        "overwritten, missing directories are added. Returns what was created and what already existed.",
        _initialize, _render_init, read_only=False, idempotent=True, write_only=True),
    ToolSpec(
        "scan_code", "Scan a code snippet",
        "Check a snippet of code (for example code you are about to write) against the project's rules, "
        "without touching disk. Give `language`, or a virtual `path` such as src/app.py (it also selects the "
        "rules whose files/ignores globs apply). Returns `issues` (Diagnostics with 1-based positions, and "
        "fix-its: `verified` means the fix was applied and re-scanned), `counts` by severity and `ruleErrors` "
        "for broken rule files. Findings are data, not errors: `success` is false when anything was found. "
        "Apply a verified fix-it's edits, then scan again. " + _AFTER_ERROR,
        _with_ws("scan.scanner", "scan_code"), _render_scan),
    ToolSpec(
        "scan_path", "Scan files",
        "Scan files or directories in the workspace (default: all of it) with the project's rules. Paths are "
        "relative to the root. Filter with `rule_ids` and `min_severity`; page with `max_results` and "
        "`offset` (`nextOffset` is the next page, null at the end). Returns the same Diagnostics as scan_code. "
        "To fix what it finds, call apply_fixes (dry run first). " + _AFTER_ERROR,
        _with_ws("scan.scanner", "scan_path"), _render_scan),
    ToolSpec(
        "add_or_update_rule", "Add or update a rule",
        "Save an ast-grep rule as rules/<rule_id>.yml (replacing a rule with that id). The YAML is checked by "
        "ast-grep first; with `invalid_examples` (code the rule must match) and `valid_examples` (code it must "
        "not match) a test file rule-tests/<rule_id>-test.yml is written and run, and a failing example refuses "
        "the whole change. Nothing is written when a check fails. Draft with test_rule first. Needs an "
        "initialized project ([config-missing]: call initialize_ast_grep). " + _AFTER_ERROR,
        _with_ws("rules.store", "add_or_update_rule"), _render_message,
        read_only=False, destructive=True, idempotent=True, write_only=True),
    ToolSpec(
        "remove_rule", "Remove a rule",
        "Delete rules/<rule_id>.yml and its test file. Returns the removed paths; [not-found] if no such rule "
        "(list_rules shows the ids). " + _AFTER_ERROR,
        _with_ws("rules.store", "remove_rule"), _render_message,
        read_only=False, destructive=True, idempotent=True, write_only=True),
    ToolSpec(
        "list_rules", "List rules",
        "List the project's rules (optionally for one `language`): id, language, severity, message, file, "
        "whether it has a fix and tests. Broken rule files are listed in `ruleErrors`. Use explain_rule for one "
        "rule's YAML. " + _AFTER_ERROR,
        _with_ws("rules.store", "list_rules"), _render_rules),
    ToolSpec(
        "explain_rule", "Explain a rule",
        "Everything about one project rule: message, note, url, fix, the YAML, its file and its test examples. "
        "Use it before editing a rule with add_or_update_rule. " + _AFTER_ERROR,
        _with_ws("rules.store", "explain_rule"), _render_explain),
    ToolSpec(
        "test_rule", "Test a draft rule",
        "Try a draft rule without saving anything: ast-grep checks the YAML (`errors` say what is wrong and "
        "where), runs it on `code` (the `matches`), and checks `invalid_examples` (must match) and "
        "`valid_examples` (must not match). Iterate until `success` is true, then save it with "
        "add_or_update_rule using the same examples. dump_syntax_tree shows the node kinds to match. "
        + _AFTER_ERROR,
        _with_ws("rules.testing", "test_rule"), _render_test),
    ToolSpec(
        "dump_syntax_tree", "Show the syntax tree",
        "Parse code with ast-grep's tree-sitter grammar and return the tree as text: `cst` (every node), `ast` "
        "(named nodes) or `pattern` (how ast-grep reads the code as a pattern). Use it to find node kinds "
        "(`kind:` rules) and to see why a pattern does or does not match. " + _AFTER_ERROR,
        _with_ws("rules.syntax", "dump_syntax_tree"), _render_tree),
    ToolSpec(
        "find_code", "Find code by pattern",
        "Search the workspace with an ast-grep pattern (structural, not text: `$X` matches one node, `$$$X` "
        "any number). Returns matches with 1-based positions, text and captured metavariables. Good for "
        "checking a pattern against real code before writing a rule. " + _AFTER_ERROR,
        _with_ws("edit.structural", "find_code"), _render_find),
    ToolSpec(
        "rewrite_code", "Rewrite code by pattern",
        "Structural search and replace: every match of `pattern` becomes `rewrite` (metavariables carry over). "
        "By default a dry run that returns a unified `diff` and the `changes`; with apply=true the files are "
        "written atomically (all or nothing). Review the diff before applying. " + _AFTER_ERROR,
        _with_ws("edit.structural", "rewrite_code"), _render_diff,
        read_only=False, destructive=True, idempotent=False, writes_when_applied=True),
    ToolSpec(
        "apply_fixes", "Apply rule fixes",
        "Apply the `fix` of the project's rules to files (optionally only some `paths` / `rule_ids`). By default "
        "a dry run returning the unified `diff`; with apply=true the files are written atomically. Only fixes "
        "that verify (re-scan is clean and the code still parses) are applied. Scan again afterwards. "
        + _AFTER_ERROR,
        _with_ws("fixits.apply", "apply_fixes"), _render_diff,
        read_only=False, destructive=True, idempotent=False, writes_when_applied=True),
    ToolSpec(
        "search_community_rules", "Search community rules",
        "Search the community rule catalogues (the bundled one and any configured remote sources) by words, "
        "optionally filtered by `language` and comma-separated `tags`. Returns ranked `matches` and a readable "
        "`results` text. Next: get_community_rule_details to read one, import_community_rule to add it. "
        + _AFTER_ERROR,
        _pure("community.service", "search_community_rules"), _render_search, open_world=True),
    ToolSpec(
        "get_community_rule_details", "Show a community rule",
        "The full community rule: YAML, description, tags, test examples, license, source and digest. Read it "
        "before importing. " + _AFTER_ERROR,
        _pure("community.service", "get_community_rule_details"), _render_details, open_world=True),
    ToolSpec(
        "import_community_rule", "Import a community rule",
        "Copy a community rule (after checking its digest) into rules/<rule_id>.yml with its tests, adapted to "
        "the installed ast-grep. Refuses with [conflict] if the project already has that id unless "
        "overwrite=true. Needs an initialized project. scan_code / scan_path use it right away. "
        + _AFTER_ERROR,
        _with_ws("community.service", "import_community_rule"), _render_message,
        read_only=False, destructive=True, idempotent=True, open_world=True, write_only=True),
    ToolSpec(
        "server_info", "Server info",
        "Versions of context-sherpa and ast-grep, the workspace root, the config file, the rule count, broken "
        "rule files, supported languages, community sources (remote ones configured by the user are checked, "
        "so it may reach the network), and whether the server is read-only. Call it first to see what state "
        "the project is in; `problems` lists what is broken and how to fix it.",
        _server_info, _render_info, open_world=True),
)


# ---- argument handling ------------------------------------------------------------------------------------


def _coerce(schema: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """Forgive what agents commonly send: nulls for omitted options, JSON- or plain strings for lists,
    numbers and booleans as strings, a list for the comma-separated `tags`."""
    props: Mapping[str, Any] = schema.get("properties", {})
    out: dict[str, Any] = {}
    for key, value in args.items():
        if value is None:
            continue
        kind = props.get(key, {}).get("type")
        if kind == "array" and isinstance(value, str):
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            value = parsed if isinstance(parsed, list) else [value]
        elif kind == "integer" and (
            (isinstance(value, str) and value.strip().lstrip("-").isdigit())
            or (isinstance(value, float) and value.is_integer())
        ):
            value = int(value)
        elif kind == "boolean" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
            value = value.strip().lower() == "true"
        elif kind == "string" and key == "tags" and isinstance(value, list) and all(isinstance(v, str) for v in value):
            value = ",".join(value)
        out[key] = value
    return out


def _validate(spec: ToolSpec, schema: dict[str, Any], raw: object,
              validator: jsonschema.protocols.Validator | None = None) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise BadInput(f"The arguments of {spec.name} must be a JSON object. " + _usage(schema))
    args = _coerce(schema, raw)
    checker = validator or jsonschema.Draft202012Validator(schema)
    errors = sorted(checker.iter_errors(args), key=lambda e: list(e.path))
    if not errors:
        return args
    too_large = [e for e in errors if e.validator in ("maxLength", "maxItems")]
    if too_large:
        e = too_large[0]
        what = "characters" if e.validator == "maxLength" else "items"
        raise TooLarge(f"`{_where(e)}` has more than {e.validator_value} {what}. Send less per call "
                       "(split the input), or raise the limit with the matching SGTOOLS_* setting.")
    problems = "; ".join(_describe(e) for e in errors[:5])
    raise BadInput(f"Invalid arguments for {spec.name}: {problems}. " + _usage(schema))


def _where(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.path) or "arguments"


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        unknown = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return "unknown parameter" + ("s " if len(unknown) > 1 else " ") + ", ".join(f"`{u}`" for u in unknown)
    message = str(error.message)
    if error.validator == "required":
        return message
    shown = message if len(message) <= 200 else message[:200] + "..."
    return f"`{_where(error)}`: {shown}"


def _usage(schema: Mapping[str, Any]) -> str:
    required = set(schema.get("required", []))
    params = [f"{name}{'' if name in required else '?'} ({prop.get('type')})"
              for name, prop in schema.get("properties", {}).items()]
    return "Parameters: " + (", ".join(params) if params else "none") + "."


def _raw_arguments(ctx: Context[Any, Any]) -> object:
    params = ctx.request_context.params or {}
    return params.get("arguments") or {}


# ---- output caps ------------------------------------------------------------------------------------------


def _cap(value: Any, limit: int, cut: list[int]) -> Any:
    if isinstance(value, str) and len(value) > limit:
        cut.append(len(value))
        return value[:limit] + f"\n... [cut: {len(value) - limit} more characters]"
    if isinstance(value, dict):
        return {k: _cap(v, limit, cut) for k, v in value.items()}
    if isinstance(value, list):
        return [_cap(v, limit, cut) for v in value]
    return value


def _cap_text(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... [text cut at {limit} characters; the structured result has the details]"


# ---- running a call ---------------------------------------------------------------------------------------


def _error_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _refuse_in_read_only(app: App, spec: ToolSpec, args: Mapping[str, Any]) -> None:
    if not app.read_only:
        return
    if spec.write_only:
        raise ReadOnly(f"{spec.name} writes to the project, and this server runs with --read-only. "
                       "Ask the user to restart it without --read-only, or use the read-only tools.")
    if spec.writes_when_applied and args.get("apply"):
        raise ReadOnly(f"{spec.name} with apply=true writes files, and this server runs with --read-only. "
                       "Call it with apply=false to get the diff and show it to the user instead.")


async def run_tool(app: App, spec: ToolSpec, schema: dict[str, Any], raw: object,
                   validator: jsonschema.protocols.Validator | None = None) -> CallToolResult:
    """Validate, refuse writes in read-only mode, run the service off the event loop under a deadline.
    `validator` is the one built for `schema` when the tool was made, so a call does not build it again."""
    try:
        args = _validate(spec, schema, raw, validator)
        _refuse_in_read_only(app, spec, args)
        limit = app.settings.tool_timeout
        try:
            with anyio.fail_after(limit):
                # abandon_on_cancel: a cancelled or timed-out call returns at once; the engine's own deadline
                # stops ast-grep, and writes are atomic, so an abandoned worker cannot leave a half-written file.
                data = await anyio.to_thread.run_sync(functools.partial(spec.call, app, args), abandon_on_cancel=True)
        except TimeoutError:
            raise Timeout(
                f"{spec.name} did not finish within {limit:g} s. Narrow the input (fewer paths, a smaller snippet, "
                "fewer rules) or raise SGTOOLS_TOOL_TIMEOUT. A write that was under way may still complete: "
                "check with list_rules / scan before retrying."
            ) from None
    except SgToolsError as exc:
        log.info("tool %s refused: %s", spec.name, exc.render()[:500])
        return _error_result(exc.render())
    except Exception as exc:
        log.exception("tool %s failed unexpectedly", spec.name)
        short = str(exc).splitlines()[0][:200] if str(exc) else ""
        return _error_result(f"[engine-failed] {spec.name} failed unexpectedly ({type(exc).__name__}"
                             f"{': ' + short if short else ''}). The details are in the server log; retry, "
                             "and report it if it persists.")
    cap = app.settings.tool_max_output_chars
    cut: list[int] = []
    structured = _cap(data, cap, cut)
    if cut:
        structured["outputTruncated"] = True
    text = _cap_text(spec.render(data), cap)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


# ---- the server -------------------------------------------------------------------------------------------


class SgToolsServer(MCPServer[Any]):
    """MCPServer that leaves write-only tools out of `tools/list` in read-only mode (calls get [read-only]) and
    lists each current project rule as a resource."""

    def __init__(self, *args: Any, hidden_tools: frozenset[str] = frozenset(), app: App | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hidden_tools = hidden_tools
        self.app = app

    async def list_tools(self) -> list[MCPTool]:
        return [t for t in await super().list_tools() if t.name not in self.hidden_tools]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        if name not in tool_specs():
            log.info("unknown tool %r called", name[:200])
            return _error_result(BadInput(
                f"There is no tool named {name[:200]!r}. The tools are: {', '.join(tool_specs())}."
            ).render())
        return await super().call_tool(name, arguments, context)

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        if self.app is None:
            return listed
        app = self.app
        try:
            data = await anyio.to_thread.run_sync(lambda: _service("rules.store").list_rules(app.ws, app.engine))
        except SgToolsError as exc:  # no project yet, no binary...: the static resources are still useful
            log.info("rules not listed as resources: %s", exc.render())
            return listed
        return [*listed, *(
            MCPResource(uri=RULE_URI.format(rule_id=r["id"]), name=str(r["id"]), title=f"Rule {r['id']}",
                        description=f"{r.get('language')}, {r.get('severity')}: {r.get('message') or ''}".strip(),
                        mime_type="application/yaml")
            for r in data.get("rules", []))]


def _make_tool(app: App, spec: ToolSpec, schema: dict[str, Any]) -> Tool:
    validator = jsonschema.Draft202012Validator(schema)

    async def handler(ctx: Context[Any, Any]) -> CallToolResult:
        return await run_tool(app, spec, schema, _raw_arguments(ctx), validator)

    handler.__name__ = spec.name
    base = Tool.from_function(handler, name=spec.name, title=spec.title, description=spec.description,
                              annotations=spec.annotations(app.read_only), structured_output=False)
    # The published schemas are ours (plain JSON types); the SDK's argument model is empty and ignores them.
    metadata = FuncMetadata(arg_model=base.fn_metadata.arg_model, output_schema=OUTPUT_SCHEMAS[spec.name])
    return base.model_copy(update={"parameters": schema, "fn_metadata": metadata})


def tool_specs() -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in TOOLS}


def build_server(root: str | None = None, *, read_only: bool = False, settings: Settings | None = None,
                 engine: Engine | None = None) -> SgToolsServer:
    """The whole MCP surface for one workspace. Cheap: nothing here runs ast-grep or reads the index."""
    app = App(ws=Workspace(root), engine=engine or Engine(), settings=settings or get_settings(),
              read_only=read_only)
    schemas = _input_schemas(app.settings)
    tools = [_make_tool(app, spec, schemas[spec.name]) for spec in TOOLS]
    hidden = frozenset(spec.name for spec in TOOLS if read_only and spec.write_only)
    server = SgToolsServer(SERVER_NAME, title="context-sherpa (ast-grep rules for agents)", version=__version__,
                           instructions=INSTRUCTIONS, tools=tools, hidden_tools=hidden, app=app)
    _add_resources(server, app)
    _add_prompts(server)
    return server


# ---- resources and prompts --------------------------------------------------------------------------------


async def _read_in_thread(read: Callable[[], str]) -> str:
    """A resource read off the event loop; our errors become resource errors that start with the SPEC code."""
    try:
        return await anyio.to_thread.run_sync(read)
    except SgToolsError as exc:
        raise ResourceError(exc.render()) from None


def guide_text() -> str:
    return importlib.resources.files("sgtools.server").joinpath(GUIDE_FILE).read_text(encoding="utf-8")


def _add_resources(server: SgToolsServer, app: App) -> None:
    @server.resource(CONFIG_URI, name="sgconfig.yml", title="The project's ast-grep config",
                     description="The workspace's sgconfig.yml: rule, util and test directories.",
                     mime_type="application/yaml")
    async def config_file() -> str:
        def read() -> str:
            return project.load(app.ws).path.read_text(encoding="utf-8")
        return await _read_in_thread(read)

    @server.resource(RULE_URI, name="rule", title="A project rule",
                     description="One project rule's YAML, by id (list_rules shows the ids).",
                     mime_type="application/yaml")
    async def rule_file(rule_id: str) -> str:
        def read() -> str:
            data = _service("rules.store").explain_rule(app.ws, app.engine, rule_id)
            return str(data["yaml"])
        return await _read_in_thread(read)

    @server.resource(GUIDE_URI, name="rule-writing-guide", title="How to write ast-grep rules",
                     description="For agents: drafting, testing and saving an ast-grep rule, and the usual traps.",
                     mime_type="text/markdown")
    def guide() -> str:
        return guide_text()


def _add_prompts(server: SgToolsServer) -> None:
    @server.prompt(name="rule_from_feedback", title="Turn this feedback into a rule",
                   description="Turn review feedback (a mistake that should never come back) into a tested rule.")
    def rule_from_feedback(feedback: str, language: str = "", example: str = "") -> str:
        lang = f" The code is {language}." if language else ""
        sample = f"\n\nAn example of the code the feedback is about:\n```\n{example}\n```" if example else ""
        return (
            f"Turn this feedback into an ast-grep rule for this project.{lang}\n\nFeedback: {feedback}{sample}\n\n"
            "Steps:\n"
            "1. Read the resource sgtools://guide/writing-rules if you have not yet.\n"
            "2. Write one or more snippets that SHOULD be flagged and some that should NOT.\n"
            "3. Call dump_syntax_tree on a flagged snippet to see node kinds; draft the rule YAML with a clear "
            "`message`, a `severity`, a `note` explaining the fix, and a `fix` if the change is mechanical.\n"
            "4. Call test_rule with the draft, `invalid_examples` (must match) and `valid_examples` (must not); "
            "iterate until success is true.\n"
            "5. Save it with add_or_update_rule (same examples). If it answers [config-missing], call "
            "initialize_ast_grep first.\n"
            "6. Call scan_path to see where the rule fires in the existing code and report what you found."
        )

    @server.prompt(name="review_code", title="Review this code against the project's rules",
                   description="Check code against the project's rules and explain each finding and its fix.")
    def review_code(code: str = "", path: str = "", language: str = "") -> str:
        if code:
            target = f"this code{f' (virtual path {path})' if path else ''}:\n```{language}\n{code}\n```"
            how = "Call scan_code with it" + (f" and language={language}" if language else "") + \
                (f" and path={path}" if path else "") + "."
        else:
            target = f"the files at `{path}`" if path else "the whole workspace"
            how = "Call scan_path" + (f" with paths=[{path!r}]" if path else "") + "."
        return (
            f"Review {target}\n\n{how} For each issue, quote the rule id and message, say why it matters "
            "(explain_rule has the rule's note and url) and propose the change; prefer fix-its marked verified. "
            "If there are findings with fixes, offer apply_fixes (dry run first, show the diff). Mention any "
            "ruleErrors: they mean some rules did not run. If the scan answers [config-missing], the project "
            "has no rules yet: say so, and offer to create rules from the review."
        )
