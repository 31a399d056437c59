"""The published JSON schemas of the tools: inputs in plain JSON types (caps from `Settings`), and outputs."""

from __future__ import annotations

from typing import Any

from sgtools.core.settings import Settings
from sgtools.rules.ruleset import SEVERITIES


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
              "issues": DIAGNOSTICS, "counts": COUNTS, "truncated": {"type": "boolean"}, "ruleErrors": RULE_ERRORS,
              "notes": {"type": "array", "items": {"type": "string"},
                        "description": "what the caller should know, e.g. that the bundled rules were used"}}


def input_schemas(s: Settings) -> dict[str, dict[str, Any]]:
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
            "force": _bool("save even when the analysis proves the rule can never fire (default false: refused "
                           "with [rule-invalid], the cause and a verified repair)"),
        }, ("rule_id", "rule_yaml"), closed=True),
        "remove_rule": _obj({"rule_id": rule_id}, ("rule_id",), closed=True),
        "list_rules": _obj({"language": language}, closed=True),
        "explain_rule": _obj({"rule_id": rule_id}, ("rule_id",), closed=True),
        "test_rule": _obj({
            "rule_yaml": rule_yaml, "code": _str("optional code to run the rule on", s.max_code_bytes),
            "language": language, "valid_examples": valid, "invalid_examples": invalid,
        }, ("rule_yaml",), closed=True),
        "suggest_rule": _obj({
            "language": language,
            "invalid_examples": {**_str_list("code the rule MUST flag (at least one; the more varied, the more "
                                             "general the rule)", s.max_examples, s.max_arg_bytes), "minItems": 1},
            "valid_examples": _str_list("code the rule must NOT flag (near misses make the rule precise)",
                                        s.max_examples, s.max_arg_bytes),
            "path": _str("virtual file path of the examples, e.g. src/app.tsx (picks tsx over typescript)", 4096),
            "message": _str("the rule's message (default: derived from the pattern)", short),
            "severity": {"type": "string", "enum": list(SEVERITIES), "description": "default warning"},
            "rule_id": rule_id,
            "fix_examples": {"type": "array", "maxItems": s.max_examples,
                             "description": "before/after pairs: a `fix` template is inferred and verified",
                             "items": _obj({"before": _str("code before the fix", s.max_arg_bytes),
                                            "after": _str("the same code fixed", s.max_arg_bytes)},
                                           ("before", "after"), closed=True)},
            "max_candidates": _int("at most this many rules (default 3)", 1, s.suggest_max_candidates),
        }, ("language", "invalid_examples"), closed=True),
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
        "apply_fixes": _obj({"paths": paths, "rule_ids": rule_ids, "apply": apply, "include_unsafe": {
            "type": "boolean", "default": False,
            "description": "also apply verified fixes whose rule declares them unsafe (they may change behaviour)"}},
            closed=True),
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


# Rule analysis findings (sgtools.rules.analysis): docs/rule-analysis.md.
ANALYSIS: dict[str, Any] = {"type": "array", "items": {
    "type": "object", "required": ["code", "severity", "path", "message"],
    "properties": {"code": {"type": "string"}, "severity": {"type": "string", "enum": ["error", "warning", "info"]},
                   "path": {"type": "string"}, "message": {"type": "string"},
                   "repair": {"type": "string", "description": "a full corrected rule YAML, verified"}}}}

OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "initialize_ast_grep": _obj({"success": {"type": "boolean"}, "message": {"type": "string"},
                                 "created": STR_LIST, "existing": STR_LIST},
                                ("success", "message", "created", "existing")),
    "scan_code": _obj(SCAN_PROPS, ("success", "issues", "counts", "truncated", "ruleErrors")),
    "scan_path": _obj({**SCAN_PROPS, "nextOffset": {"type": ["integer", "null"]},
                       "filesChecked": {"type": "integer", "description": "files ast-grep scanned"}},
                      ("success", "issues", "counts", "truncated", "nextOffset", "ruleErrors")),
    "add_or_update_rule": _obj({"success": {"type": "boolean"}, "message": {"type": "string"},
                                "path": {"type": "string"}, "created": {"type": "boolean"},
                                "testPath": NULLABLE_STR, "testResult": {"type": ["object", "null"]},
                                "analysis": ANALYSIS},
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
    "suggest_rule": _obj({"success": {"type": "boolean"}, "candidates": {"type": "array", "items": _obj({
        "yaml": {"type": "string"}, "rule_id": {"type": "string"}, "why": {"type": "string"},
        "checked": _obj({"invalid": STR_LIST, "valid": STR_LIST}, ("invalid", "valid"))},
        ("yaml", "rule_id", "why", "checked"))}, "explanation": {"type": "string"}}, ("success", "candidates")),
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

