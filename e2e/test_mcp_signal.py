"""Issue 21 over a real MCP session: scan_code and scan_path (bundled rules, no sgconfig.yml) mark test code with
`inTest`, lower a secret rule to info there, and count a finding another linter's comment already silenced."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.conftest import ok, stdio_client

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.slow]

SECRET = 'password = "hunter2secret"\n'


async def test_in_tests_and_suppressed_reach_the_agent(root: Path, server_env: dict[str, str]) -> None:
    (root / "tests").mkdir()
    (root / "tests" / "test_login.py").write_text(SECRET)
    (root / "app.py").write_text(SECRET + "value = eval(text)  # noqa: S307\n")
    async with stdio_client(root, server_env) as client:
        as_test = await ok(client, "scan_code", {"code": SECRET, "path": "tests/test_login.py"})
        whole = await ok(client, "scan_code", {})
    (finding,) = [d for d in as_test["issues"] if d["ruleId"] == "hardcoded-password-python"]
    assert finding["inTest"] is True and finding["severity"] == "info"
    assert as_test["inTests"] == {"hardcoded-password-python": 1}
    marks = sorted((d["file"], d.get("inTest", False), d["severity"]) for d in whole["issues"]
                   if d["ruleId"] == "hardcoded-password-python")
    assert marks[0][:2] == ("app.py", False) and marks[0][2] != "info"
    assert marks[1] == ("tests/test_login.py", True, "info")
    assert whole["suppressed"] == {"no-eval-python": 1}
    assert "no-eval-python" not in {d["ruleId"] for d in whole["issues"]}
