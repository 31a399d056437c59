"""`sgtools hook claude` as Claude Code runs it: a subprocess, hook JSON on stdin, exit code and stderr back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SAMPLE = Path(__file__).resolve().parent / "sample_repo"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    dest = tmp_path / "sample"
    shutil.copytree(SAMPLE, dest)
    return dest


def hook(cwd: Path, payload: dict[str, Any] | str, env: dict[str, str] | None = None,
         *args: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("SGTOOLS_", "CLAUDE_"))}
    full_env.update(env or {})
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run([sys.executable, "-m", "sgtools", "hook", "claude", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=full_env, timeout=120, check=False)


def post_tool_use(tool: str, file_path: Path, cwd: Path) -> dict[str, Any]:
    tool_input: dict[str, Any] = {"file_path": str(file_path)}
    if tool == "Write":
        tool_input["content"] = file_path.read_text(encoding="utf-8") if file_path.exists() else ""
    elif tool == "Edit":
        tool_input.update(old_string="a", new_string="b", replace_all=False)
    else:
        tool_input["edits"] = [{"old_string": "a", "new_string": "b"}]
    return {"session_id": "0b6c", "transcript_path": str(cwd / "t.jsonl"), "cwd": str(cwd),
            "hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": tool_input,
            "tool_response": {"filePath": str(file_path), "success": True}}


@pytest.mark.parametrize(("tool", "rel", "rule"), [
    ("Write", "python/calc.py", "[no-eval]"),
    ("Edit", "python/calc.py", "[prefer-logging]"),
    ("MultiEdit", "js/debug.js", "[no-debugger]"),
])
def test_findings_go_back_to_the_agent(sample: Path, tool: str, rel: str, rule: str) -> None:
    proc = hook(sample, post_tool_use(tool, sample / rel, sample))
    assert proc.returncode == 2, proc.stderr
    assert rel in proc.stderr and rule in proc.stderr
    assert proc.stdout == ""


def test_clean_and_below_threshold_files_pass_quietly(sample: Path) -> None:
    proc = hook(sample, post_tool_use("Write", sample / "python" / "clean.py", sample))
    assert (proc.returncode, proc.stderr) == (0, "")
    hint_only = hook(sample, post_tool_use("Edit", sample / "go" / "main.go", sample))
    assert (hint_only.returncode, hint_only.stderr) == (0, "")
    strict = hook(sample, post_tool_use("Edit", sample / "go" / "main.go", sample), None, "--fail-on", "hint")
    assert strict.returncode == 2 and "[go-println]" in strict.stderr


def test_outside_root_and_non_code_files_pass_silently(sample: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("eval(x)\n", encoding="utf-8")
    for payload in (post_tool_use("Write", outside, sample), post_tool_use("Edit", sample / "README.md", sample)):
        proc = hook(sample, payload)
        assert (proc.returncode, proc.stderr) == (0, ""), payload


def test_project_dir_from_claude_env(sample: Path, tmp_path: Path) -> None:
    payload = post_tool_use("Write", sample / "python" / "calc.py", tmp_path)
    proc = hook(tmp_path, payload, {"CLAUDE_PROJECT_DIR": str(sample)})
    assert proc.returncode == 2 and "[no-eval]" in proc.stderr


def test_malformed_input_and_our_own_failures_never_block(sample: Path, tmp_path: Path) -> None:
    proc = hook(sample, "{not json")
    assert proc.returncode == 0 and "not JSON" in proc.stderr
    broken = hook(sample, post_tool_use("Write", sample / "python" / "calc.py", sample),
                  {"SGTOOLS_AST_GREP": str(tmp_path / "no-such-binary")})
    assert broken.returncode == 0 and "could not check" in broken.stderr


def test_hook_starts_without_mcp(sample: Path) -> None:
    """The hook's start-up cost is what it imports: no `mcp` (B6 in bin/bench times a CLI start; a wall-clock bound
    here only measured how loaded the machine was)."""
    probe = ("import runpy, sys\nsys.argv = ['sgtools', 'hook', 'claude']\n"
             "try:\n    runpy.run_module('sgtools', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "sys.stdout.write('MCP_LOADED=%s' % any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules))\n")
    payload = json.dumps(post_tool_use("Write", sample / "python" / "clean.py", sample))
    proc = subprocess.run([sys.executable, "-c", probe], cwd=sample, input=payload, capture_output=True, text=True,
                          timeout=120, check=False)
    assert "MCP_LOADED=False" in proc.stdout, proc.stderr


def test_pre_tool_use_multiedit_is_checked_in_memory_as_one_change(sample: Path) -> None:
    clean = sample / "python" / "clean.py"
    before = clean.read_bytes()
    text = before.decode("utf-8")
    edits = [{"old_string": text, "new_string": text + "\nRESULT = ev(SOURCE)\n"},
             {"old_string": "= ev(", "new_string": "= eval("}]  # only both together add the eval
    payload = {"session_id": "0b6c", "transcript_path": str(sample / "t.jsonl"), "cwd": str(sample),
               "hook_event_name": "PreToolUse", "tool_name": "MultiEdit",
               "tool_input": {"file_path": str(clean), "edits": edits}}
    proc = hook(sample, payload)
    assert proc.returncode == 2, proc.stderr
    assert "this MultiEdit would add 1 problem to python/clean.py" in proc.stderr and "[no-eval]" in proc.stderr
    assert clean.read_bytes() == before
