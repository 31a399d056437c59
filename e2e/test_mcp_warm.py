"""The warm engine over a real MCP stdio session: scan_code served by a long-lived `ast-grep lsp` (server_info
says so), the same answer as the spawn path, and no ast-grep process left behind (nor a zombie) once the
server exits."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from e2e.conftest import stdio_client

pytestmark = pytest.mark.anyio

RULE = """id: no-eval
language: python
severity: error
message: eval of $X
rule: {pattern: eval($X)}
fix: ast.literal_eval($X)
"""
CODE = "x = eval(a)\nprint('日本😀', eval(b))\r\n"


def _lsp_children(root: Path) -> list[int]:
    """ast-grep lsp processes whose parent is the server serving `root`."""
    servers = {p.name for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline(p).endswith(f"{root}")}
    found = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            ppid = (p / "stat").read_text().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue
        if ppid in servers and " lsp " in f" {_cmdline(p)} ":
            found.append(int(p.name))
    return found


def _cmdline(p: Path) -> str:
    try:
        return (p / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


async def _scan(root: Path, env: dict[str, str], args: dict | None = None) -> tuple[list[dict], dict, list[int]]:
    async with stdio_client(root, env) as client:
        for _ in range(2):
            res = await client.call_tool("scan_code", args or {"code": CODE, "language": "python"})
            assert not res.is_error, res.content
        info = await client.call_tool("server_info", {})
        assert isinstance(info.structured_content, dict) and isinstance(res.structured_content, dict)
        engine = info.structured_content["engine"]
        # a lane replaced during the calls (a deadline missed on a loaded machine) is killed but may take a moment
        # to leave /proc: wait for the count to settle; a process really left behind is still counted
        deadline = time.monotonic() + 5
        while len(pids := _lsp_children(root)) > engine.get("processes", 0) and time.monotonic() < deadline:
            time.sleep(0.05)
        return res.structured_content["issues"], engine, pids


# The warm engine with a hang guard for its deadline (the default 5 s covers starting `ast-grep lsp`, which a loaded
# machine can outlast: the call then goes to the spawn path and "served warm" fails on load alone).
WARM = {"SGTOOLS_WARM_ENGINE": "1", "SGTOOLS_WARM_ENGINE_TIMEOUT": "60"}

@pytest.mark.slow
async def test_scan_code_served_warm_and_nothing_left_after_exit(root: Path, server_env: dict[str, str]) -> None:
    (root / "rules").mkdir()
    (root / "rules" / "no-eval.yml").write_text(RULE)
    (root / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    warm_issues, engine, pids = await _scan(root, {**server_env, **WARM})
    assert engine["mode"] == "warm" and engine["lastCall"] == "warm" and engine["warmCalls"] == 2, engine
    # Every lsp the server reports is its child and vice versa. Since issue 30's fix changes this snippet's fix-it
    # re-scan fits one lane (one process, not two); the lane split has its own tests in tests/test_warm_lanes.py.
    assert engine["processes"] == len(pids) >= 1, (engine, pids)
    deadline = time.monotonic() + 60  # a hang guard: the loop ends as soon as they are gone
    while any(Path(f"/proc/{pid}").exists() for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids), \
        "an ast-grep lsp process outlived the server (or is a zombie)"

    spawn_issues, engine, pids = await _scan(root, {**server_env, "SGTOOLS_WARM_ENGINE": "0"})
    assert engine["mode"] == "spawn" and pids == [] and engine["warmShare"] is None
    assert warm_issues == spawn_issues and len(warm_issues) == 2
    assert all(fx["verified"] for d in warm_issues for fx in d["fixits"])


@pytest.mark.slow
async def test_a_pending_change_is_served_warm_too(root: Path, server_env: dict[str, str]) -> None:
    (root / "rules").mkdir()
    (root / "rules" / "no-eval.yml").write_text(RULE.replace("rule:", "ignores: ['tests/**']\nrule:"))
    (root / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    change = {"files": [{"path": "src/a.py", "code": CODE}, {"path": "src/b.py", "code": "y = eval(c)\n"},
                        {"path": "tests/test_a.py", "code": "eval(d)\n"}]}
    warm_issues, engine, _pids = await _scan(root, {**server_env, **WARM}, change)
    assert engine["lastCall"] == "warm" and engine["warmCalls"] == 2 and engine["processes"] == 2, engine
    assert engine["warmShare"] == 1.0, engine
    spawn_issues, engine, _pids = await _scan(root, {**server_env, "SGTOOLS_WARM_ENGINE": "0"}, change)
    assert warm_issues == spawn_issues and [d["file"] for d in warm_issues] == ["src/a.py", "src/a.py", "src/b.py"]
    assert all(fx["verified"] for d in warm_issues for fx in d["fixits"])
