"""The headline story of rule analysis over a real MCP stdio session: the bare `fmt.Println($$$ARGS)` draft for
Go is refused with a verified repair; saving that repair makes scan_code flag `fmt.Println("x")`."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.conftest import fails, ok, stdio_client

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.slow]

DRAFT = """\
id: no-println
language: go
severity: warning
message: Use the structured logger instead of fmt.Println
rule:
  pattern: fmt.Println($$$ARGS)
"""
GO_CODE = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("x")\n}\n'


def _repair(body: str) -> str:
    marker = "Verified repair (save this instead):\n"
    assert marker in body, body
    return body.split(marker, 1)[1].split("\nSave the repair", 1)[0]


async def test_bare_println_refused_with_a_verified_repair_that_then_fires(root: Path,
                                                                           server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env) as client:
        await ok(client, "initialize_ast_grep")
        body = await fails(client, "add_or_update_rule", {"rule_id": "no-println", "rule_yaml": DRAFT},
                           "rule-invalid")
        assert "type_conversion_expression" in body and "call_expression" in body
        assert not (root / "rules" / "no-println.yml").exists()
        # Before: the draft (forced) is saved with a warning, and scan_code finds nothing: the silent failure.
        forced = await ok(client, "add_or_update_rule", {"rule_id": "no-println", "rule_yaml": DRAFT, "force": True})
        assert any("never fire" in w for w in forced["warnings"])
        assert [f["code"] for f in forced["analysis"]] == ["pattern-never-matches"]
        before = await ok(client, "scan_code", {"code": GO_CODE, "language": "go"})
        assert before["issues"] == []
        # After: the repair from the refusal, saved as is, fires on the code.
        repair = _repair(body)
        saved = await ok(client, "add_or_update_rule", {"rule_id": "no-println", "rule_yaml": repair,
                                                         "invalid_examples": [GO_CODE]})
        assert saved["analysis"] == []
        after = await ok(client, "scan_code", {"code": GO_CODE, "language": "go"})
        assert [i["ruleId"] for i in after["issues"]] == ["no-println"]
        assert after["issues"][0]["line"] == 6
