"""Every tool over the protocol with valid input and with bad input: bad input is an `isError` result with a
SPEC code (never a crash or a protocol error), and the server keeps answering."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from e2e.conftest import EVAL_CODE, NO_EVAL_RULE, fails, ok, stdio_client
from sgtools.project import config as project
from sgtools.project.workspace import Workspace

pytestmark = pytest.mark.anyio

ALERT_RULE = """\
id: no-alert
language: javascript
severity: warning
message: alert() blocks the page
rule:
  pattern: alert($$$ARGS)
"""
HUGE = "x" * (3 * 1024 * 1024)

VALID: dict[str, dict[str, Any]] = {
    "initialize_ast_grep": {},
    "scan_code": {"code": EVAL_CODE, "language": "javascript"},
    "scan_code:paths": {"paths": ["src"]},
    "add_or_update_rule": {"rule_id": "no-alert", "rule_yaml": ALERT_RULE, "invalid_examples": ["alert(1)"],
                           "valid_examples": ["confirm(1)"]},
    "remove_rule": {"rule_id": "no-eval"},
    "list_rules": {},
    "list_rules:one": {"rule_id": "no-eval"},
    "test_rule": {"rule_yaml": ALERT_RULE, "code": "alert('hi')\n", "invalid_examples": ["alert(2)"]},
    "suggest_rule": {"language": "javascript", "invalid_examples": ["eval(a)", "eval(b + c)"],
                     "valid_examples": ["JSON.parse(a)"]},
    "dump_syntax_tree": {"code": "eval(x)", "language": "javascript"},
    "find_code": {"pattern": "eval($X)", "language": "javascript"},
    "find_code:rewrite": {"pattern": "eval($X)", "rewrite": "JSON.parse($X)", "language": "javascript"},
    "apply_fixes": {},
    "search_community_rules": {"query": "eval"},
    "get_community_rule_details": {},  # rule_id filled in from a search
    "import_community_rule": {},  # rule_id filled in from a search
    "server_info": {},
}

# (arguments, the code the error must carry or None for "any SPEC code")
BAD: dict[str, list[tuple[Any, str | tuple[str, ...] | None]]] = {
    "initialize_ast_grep": [({"force": True}, "bad-input")],
    "scan_code": [({"code": "x", "paths": ["src"]}, "bad-input"), ({"code": 42}, "bad-input"),
                  ({"code": "x", "language": "cobol"}, "bad-input"),
                  ({"code": "x", "language": "python", "max_results": 0}, "bad-input"),
                  ({"code": "x", "language": "python", "min_severity": "fatal"}, "bad-input"),
                  ({"code": HUGE, "language": "python"}, "too-large"),
                  ({"code": "x", "path": "../outside.py"}, "outside-workspace")],
    "scan_code:paths": [({"paths": ["../.."]}, "outside-workspace"), ({"offset": -1}, "bad-input"),
                  ({"paths": [3]}, "bad-input")],
    "add_or_update_rule": [({"rule_id": "bad id!", "rule_yaml": ALERT_RULE}, "bad-input"),
                           ({"rule_id": "no-alert"}, "bad-input"),
                           ({"rule_id": "no-alert", "rule_yaml": "id: no-alert\nlanguage: javascript\nrule:\n"
                                                                 "  patern: alert($X)\n"}, "rule-invalid"),
                           ({"rule_id": "no-alert", "rule_yaml": ALERT_RULE, "invalid_examples": ["confirm(1)"]},
                            "rule-invalid")],
    "remove_rule": [({"rule_id": "no-such-rule"}, "not-found"), ({"rule_id": "../etc"}, "bad-input")],
    "list_rules": [({"language": 3}, "bad-input"), ({"lang": "python"}, "bad-input")],
    "list_rules:one": [({"rule_id": "no-such-rule"}, "not-found"),
                       ({"rule_id": "no-eval", "language": "python"}, "bad-input")],
    "test_rule": [({}, "bad-input"), ({"rule_yaml": ["not", "text"]}, "bad-input")],
    "suggest_rule": [({"language": "python", "invalid_examples": []}, "bad-input"),
                     ({"language": "klingon", "invalid_examples": ["x"]}, "bad-input"),
                     ({"language": "python", "invalid_examples": ["x"], "max_candidates": 0}, "bad-input"),
                     ({"language": "python", "invalid_examples": ["x"], "fix_examples": [{"before": "x"}]},
                      "bad-input")],
    "dump_syntax_tree": [({"code": "x", "language": "klingon"}, "bad-input"),
                         ({"code": "x", "language": "python", "format": "xml"}, "bad-input")],
    "find_code": [({"pattern": "eval($X)"}, "bad-input"),
                  ({"pattern": "eval($X)", "language": "javascript", "paths": ["/etc"]}, "outside-workspace")],
    "find_code:rewrite": [({"pattern": "eval($X)", "language": "javascript", "apply": True}, "bad-input"),
                          ({"pattern": "eval($X)", "rewrite": "y", "language": "javascript", "apply": "maybe"},
                           "bad-input")],
    "apply_fixes": [({"rule_ids": {"a": 1}}, "bad-input"), ({"paths": ["../../x"]}, "outside-workspace")],
    "search_community_rules": [({}, "bad-input"), ({"query": "eval", "limit": 0}, "bad-input")],
    "get_community_rule_details": [({"rule_id": "no-such-community-rule"}, "not-found"), ({}, "bad-input")],
    "import_community_rule": [({"rule_id": "no-such-community-rule"}, "not-found"),
                              ({"rule_id": "x", "overwrite": "perhaps"}, "bad-input")],
    "server_info": [({"verbose": True}, "bad-input")],
}


def _prepare(root: Path) -> None:
    project.initialize(Workspace(root))
    (root / "rules" / "no-eval.yml").write_text(NO_EVAL_RULE)
    (root / "src").mkdir()
    (root / "src" / "app.js").write_text(EVAL_CODE)


def test_every_tool_is_covered() -> None:
    assert set(VALID) == set(BAD) == set(SERVICE) and len({t.split(":")[0] for t in VALID}) == 14
    for module in set(SERVICE.values()):  # a renamed service module fails here, it does not skip anything
        importlib.import_module(module)


SERVICE = {"scan_code": "sgtools.scan.snippet", "scan_code:paths": "sgtools.scan.paths",
           "add_or_update_rule": "sgtools.rules.store", "remove_rule": "sgtools.rules.store",
           "list_rules": "sgtools.rules.listing", "list_rules:one": "sgtools.rules.listing",
           "test_rule": "sgtools.workflows.rule_testing", "suggest_rule": "sgtools.workflows.suggest.service",
           "dump_syntax_tree": "sgtools.rules.syntax",
           "find_code": "sgtools.edit.structural",
           "find_code:rewrite": "sgtools.edit.structural", "apply_fixes": "sgtools.workflows.apply_fixes",
           "search_community_rules": "sgtools.community.service",
           "get_community_rule_details": "sgtools.community.service",
           "import_community_rule": "sgtools.community.service", "server_info": "sgtools.workflows.doctor",
           "initialize_ast_grep": "sgtools.project.config"}


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(VALID))
async def test_tool_with_valid_then_bad_input(mode: str, root: Path, server_env: dict[str, str]) -> None:
    tool = mode.split(":")[0]  # a tool with modes is tried in each: scan_code:paths, list_rules:one, ...
    _prepare(root)
    async with stdio_client(root, server_env) as client:
        args = dict(VALID[mode])
        if tool in ("get_community_rule_details", "import_community_rule"):
            found = await ok(client, "search_community_rules", {"query": "eval"})
            assert found["matches"], "the bundled community index should have an eval rule"
            args["rule_id"] = found["matches"][0]["id"]
        await ok(client, tool, args)
        for bad_args, code in BAD[mode]:
            before = _tree(root)
            await fails(client, tool, bad_args, code)
            assert _tree(root) == before, f"{tool} {bad_args!r} changed files although it failed"
            # The server is still up and answering.
            info = await ok(client, "server_info")
            assert info["root"] == str(root.resolve())


@pytest.mark.slow
async def test_arguments_that_agents_often_send_are_accepted(root: Path, server_env: dict[str, str]) -> None:
    """Nulls for omitted options, a JSON-encoded list, a plain string for a list, numbers as strings."""
    _prepare(root)
    async with stdio_client(root, server_env) as client:
        data = await ok(client, "scan_code", {"code": EVAL_CODE, "language": "javascript", "path": None,
                                              "max_results": "5"})
        assert [d["ruleId"] for d in data["issues"]] == ["no-eval"]
        for paths in ('["src"]', "src"):
            data = await ok(client, "scan_code", {"paths": paths, "rule_ids": None})
            assert [d["file"] for d in data["issues"]] == ["src/app.js"]


@pytest.mark.slow
async def test_unknown_tool_is_an_error_not_a_crash(root: Path, server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env) as client:
        body = await fails(client, "no_such_tool", {}, "bad-input")
        assert "scan_code" in body
        assert (await ok(client, "server_info"))["readOnly"] is False


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
