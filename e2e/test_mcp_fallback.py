"""An MCP server on a project without sgconfig.yml scans with the bundled community rules, as the CLI and the
agent hook do, and says so; a read-only one never points the agent at the tool it hides."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.conftest import ok, stdio_client, text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.slow]

EVAL = "value = eval(user_input)\n"


@pytest.mark.parametrize("read_only", [True, False])
async def test_scans_fall_back_to_the_bundled_rules(root: Path, server_env: dict[str, str], read_only: bool) -> None:
    (root / "app.py").write_text(EVAL)
    extra = ("--read-only",) if read_only else ()
    async with stdio_client(root, server_env, *extra) as client:
        snippet = await client.call_tool("scan_code", {"code": EVAL, "language": "python"})
        path = await client.call_tool("scan_code", {})
    for result in (snippet, path):
        body = text(result)
        assert not result.is_error, body
        data = result.structured_content
        assert data is not None and "no-eval-python" in {d["ruleId"] for d in data["issues"]}
        assert "bundled community rules" in data["notes"][0] and "bundled community rules" in body
        if read_only:
            assert "initialize_ast_grep" not in body and "read-only" in data["notes"][0]
        else:
            assert "call initialize_ast_grep" in data["notes"][0]
    assert not (root / "sgconfig.yml").exists()  # nothing was written


async def test_a_configured_project_uses_its_own_rules(root: Path, server_env: dict[str, str]) -> None:
    async with stdio_client(root, server_env) as client:
        await ok(client, "initialize_ast_grep")
        data = await ok(client, "scan_code", {"code": EVAL, "language": "python"})
    assert data["issues"] == [] and "notes" not in data
