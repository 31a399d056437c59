"""docs/SPEC.md documents every tool's JSON as the tools really return it: each tool is called for real over MCP,
and every key of its result (and of the items of its lists) must be named in that tool's row of the SPEC table,
as must every input the tool takes. A new field without documentation fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from e2e.conftest import NO_EVAL_RULE, ok, stdio_client

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.slow]

SPEC = Path(__file__).resolve().parent.parent / "docs" / "SPEC.md"
PY_RULE = "id: no-print\nlanguage: python\nseverity: warning\nmessage: no print\nrule: {pattern: print($A)}\n" \
          "fix: log($A)\n"


def spec_rows() -> dict[str, tuple[str, str]]:
    """tool -> (inputs cell, result cell) from the MCP tools table."""
    section = SPEC.read_text(encoding="utf-8").split("## MCP tools", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"`(\w+)`", cells[0]) if len(cells) >= 3 else None
        if m:
            rows[m.group(1)] = (cells[1], " | ".join(cells[2:]))
    return rows


def keys_of(data: Any, prefix: str = "") -> set[str]:
    """Top-level keys, and the keys of the objects in top-level lists and objects (one level down)."""
    out: set[str] = set()
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        out.add(prefix + key)
        if not prefix:
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, dict) and key not in ("counts", "suppressed", "metaVariables", "rules"):
                    out |= {f"{key}.{k}" for k in item}
    return out


def diagnostic_section() -> str:
    return SPEC.read_text(encoding="utf-8").split("## Diagnostic", 1)[1].split("\n## ", 1)[0]


def documented(cell: str, key: str) -> bool:
    """`key` is named in the cell; the items of a list the cell calls `(Diagnostic)` are checked against the
    Diagnostic section instead."""
    parent, _, name = key.rpartition(".")
    if parent and (f"`{parent}[]` (Diagnostic)" in cell or f"`{parent}[]` (Finding" in cell):
        cell = diagnostic_section()
    return re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", cell) is not None


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("initialize_ast_grep", {}),
    ("add_or_update_rule", {"rule_id": "no-eval", "rule_yaml": NO_EVAL_RULE, "invalid_examples": ["eval(x)"],
                            "valid_examples": ["JSON.parse(x)"]}),
    ("add_or_update_rule", {"rule_id": "no-print", "rule_yaml": PY_RULE, "invalid_examples": ["print(1)"]}),
    ("scan_code", {"code": "const a = eval(b);\n", "language": "javascript"}),
    ("scan_code", {}),
    ("list_rules", {}),
    ("list_rules", {"rule_id": "no-eval"}),
    ("test_rule", {"rule_yaml": NO_EVAL_RULE, "code": "eval(x)", "invalid_examples": ["eval(y)"]}),
    ("suggest_rule", {"language": "python", "invalid_examples": ["print(x)"], "valid_examples": ["log(x)"]}),
    ("dump_syntax_tree", {"code": "eval(x)", "language": "javascript"}),
    ("find_code", {"pattern": "eval($X)", "language": "javascript"}),
    ("find_code", {"pattern": "eval($X)", "rewrite": "JSON.parse($X)", "language": "javascript"}),
    ("apply_fixes", {}),
    ("search_community_rules", {"query": "unchecked error", "language": "go"}),
    ("get_community_rule_details", {"rule_id": "bare-except-python"}),
    ("import_community_rule", {"rule_id": "bare-except-python"}),
    ("server_info", {}),
    ("remove_rule", {"rule_id": "no-print"}),
]


async def test_every_tool_result_is_documented(root: Path, server_env: dict[str, str]) -> None:
    (root / "app.js").write_text("const a = eval(b);\n")
    (root / "app.py").write_text("print(1)\ntry:\n    x()\nexcept:\n    pass\n")
    rows = spec_rows()
    missing: dict[str, list[str]] = {}
    async with stdio_client(root, server_env) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == set(rows), f"SPEC rows vs tools: {set(tools) ^ set(rows)}"
        called = set()
        for name, args in CALLS:
            data = await ok(client, name, args)
            called.add(name)
            inputs, result = rows[name]
            lost = sorted(k for k in keys_of(data) if not documented(result, k))
            lost += sorted(f"input {p}" for p in tools[name].input_schema.get("properties", {})
                           if not documented(inputs, p))
            if lost:
                missing.setdefault(name, []).extend(lost)
    assert called == set(tools), f"not called: {set(tools) - called}"
    assert not missing, f"undocumented in docs/SPEC.md: {missing}"
