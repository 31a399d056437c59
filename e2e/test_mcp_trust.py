"""Over MCP, no tool loads a project's untrusted native parser library; `--trust-custom-languages` opts in."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.conftest import stdio_client
from tests.test_trust import CONFIG, RULE, build_library, needs_cc

pytestmark = [pytest.mark.anyio, needs_cc]

CALLS = [
    ("server_info", {}), ("list_rules", {}), ("list_rules", {"rule_id": "no-x"}),
    ("scan_code", {"code": "x\n", "language": "marker"}), ("scan_code", {"code": "x\n", "path": "b.mk"}),
    ("scan_code", {}), ("test_rule", {"rule_yaml": RULE, "code": "x\n"}),
    ("dump_syntax_tree", {"code": "x", "language": "marker"}), ("find_code", {"pattern": "x", "language": "marker"}),
]


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for d in ("rules", "rule-tests", "lib"):
        (root / d).mkdir(parents=True)
    (root / "sgconfig.yml").write_text(CONFIG)
    (root / "rules" / "no-x.yml").write_text(RULE)
    (root / "a.mk").write_text("x\n")
    build_library(root / "lib" / "marker.so")
    return root


@pytest.mark.slow
async def test_no_tool_loads_an_untrusted_library(tmp_path: Path, server_env: dict[str, str]) -> None:
    root = project(tmp_path)
    marker = tmp_path / "loaded.txt"
    env = {**server_env, "SGTOOLS_TEST_MARKER": str(marker)}
    async with stdio_client(root, env) as client:
        for name, args in CALLS:
            result = await client.call_tool(name, args)
            assert "Invalid arguments" not in str(result.content), (name, result.content)
            assert not marker.exists(), f"{name} loaded the untrusted library"
        info = (await client.call_tool("server_info", {})).structured_content or {}
    langs = info.get("customLanguages") or []
    assert [(s["language"], s["state"], s["loaded"]) for s in langs] == [("marker", "untrusted", False)]


@pytest.mark.slow
async def test_the_server_flag_trusts_and_loads(tmp_path: Path, server_env: dict[str, str]) -> None:
    root = project(tmp_path)
    marker = tmp_path / "loaded.txt"
    env = {**server_env, "SGTOOLS_TEST_MARKER": str(marker)}
    async with stdio_client(root, env, "--trust-custom-languages") as client:
        await client.call_tool("scan_code", {})
    assert marker.exists(), "--trust-custom-languages lets the scan load the library"
