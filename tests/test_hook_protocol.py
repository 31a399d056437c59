"""The Claude Code PostToolUse hook on real payloads, a real temp project and the real ast-grep binary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sgtools.cli.hook_protocol import BLOCK, PASS, claude_post_tool_use, pending_text
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace

RULE = """\
id: no-eval
language: python
severity: error
message: eval of $X runs arbitrary code
rule:
  pattern: eval($X)
"""
HINT_RULE = """\
id: todo-print
language: python
severity: hint
message: print left in
rule:
  pattern: print($$$A)
"""


@pytest.fixture
def proj(ws: Workspace) -> Workspace:
    project.initialize(ws)
    (ws.root / "rules" / "no-eval.yml").write_text(RULE, encoding="utf-8")
    (ws.root / "rules" / "todo-print.yml").write_text(HINT_RULE, encoding="utf-8")
    (ws.root / "bad.py").write_text("x = eval(data)\n", encoding="utf-8")
    (ws.root / "ok.py").write_text("print(1)\n", encoding="utf-8")
    (ws.root / "notes.txt").write_text("eval(data)\n", encoding="utf-8")
    return ws


def payload(tool: str, path: str | Path, cwd: Path, **extra: Any) -> str:
    tool_input: dict[str, Any] = {"file_path": str(path)}
    if tool == "Write":
        tool_input["content"] = "x = eval(data)\n"
    elif tool == "Edit":
        tool_input.update(old_string="y", new_string="eval(data)")
    elif tool == "MultiEdit":
        tool_input["edits"] = [{"old_string": "y", "new_string": "eval(data)"}]
    return json.dumps({"session_id": "abc", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
                       "hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": tool_input,
                       "tool_response": {"filePath": str(path), "success": True}, **extra})


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit"])
def test_edit_tools_with_findings_block_with_the_findings(proj: Workspace, engine: Engine, tool: str) -> None:
    out = claude_post_tool_use(payload(tool, proj.root / "bad.py", proj.root), engine)
    assert out.exit_code == BLOCK
    assert "bad.py" in out.stderr and "[no-eval]" in out.stderr and "eval of data" in out.stderr
    assert "1 | x = eval(data)" in out.stderr


def test_the_head_counts_the_problems_in_words(proj: Workspace, engine: Engine) -> None:
    one = claude_post_tool_use(payload("Write", proj.root / "bad.py", proj.root), engine)
    assert one.stderr.startswith("sgtools: 1 problem in bad.py found by this project's ast-grep rules. Fix them")
    (proj.root / "bad.py").write_text("x = eval(data)\ny = eval(more)\n", encoding="utf-8")
    two = claude_post_tool_use(payload("Write", proj.root / "bad.py", proj.root), engine)
    assert two.stderr.startswith("sgtools: 2 problems in bad.py found by")


def test_relative_path_and_root_from_cwd(proj: Workspace, engine: Engine) -> None:
    out = claude_post_tool_use(payload("Write", "bad.py", proj.root), engine)
    assert out.exit_code == BLOCK


def test_clean_file_and_findings_below_fail_on_pass(proj: Workspace, engine: Engine) -> None:
    out = claude_post_tool_use(payload("Edit", proj.root / "ok.py", proj.root), engine)
    assert (out.exit_code, out.stderr) == (PASS, "")
    strict = claude_post_tool_use(payload("Edit", proj.root / "ok.py", proj.root), engine, fail_on="hint")
    assert strict.exit_code == BLOCK and "[todo-print]" in strict.stderr


def test_outside_root_non_code_and_other_tools_pass_silently(proj: Workspace, engine: Engine,
                                                            tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("eval(x)\n", encoding="utf-8")
    for raw in (
        payload("Write", outside, proj.root),
        payload("Write", proj.root / "notes.txt", proj.root),
        payload("Write", proj.root / "deleted.py", proj.root),
        payload("Read", proj.root / "bad.py", proj.root),
        payload("Bash", proj.root / "bad.py", proj.root),
        json.dumps({"tool_name": "Write", "tool_input": {}, "cwd": str(proj.root)}),
    ):
        out = claude_post_tool_use(raw, engine)
        assert (out.exit_code, out.stderr) == (PASS, ""), raw


def test_malformed_input_never_blocks(engine: Engine) -> None:
    for raw in ("not json", "[1, 2]", ""):
        out = claude_post_tool_use(raw, engine)
        assert out.exit_code == PASS
        assert "sgtools hook" in out.stderr


def test_our_own_failures_never_block(proj: Workspace, tmp_path: Path) -> None:
    broken = Engine(binary=tmp_path / "no-ast-grep")  # a binary that cannot start: a fault we cause for real
    out = claude_post_tool_use(payload("Write", proj.root / "bad.py", proj.root), broken)
    assert out.exit_code == PASS
    assert "could not check" in out.stderr


def test_broken_rule_file_is_noted_and_good_rules_still_run(proj: Workspace, engine: Engine) -> None:
    (proj.root / "rules" / "broken.yml").write_text("id: broken\nlanguage: python\nrule:\n  patern: x\n",
                                                     encoding="utf-8")
    out = claude_post_tool_use(payload("Write", proj.root / "bad.py", proj.root), engine)
    assert out.exit_code == BLOCK
    assert "broken.yml" in out.stderr and "[no-eval]" in out.stderr


def test_project_dir_env_sets_the_root(proj: Workspace, engine: Engine, monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(proj.root))
    out = claude_post_tool_use(payload("Write", proj.root / "bad.py", tmp_path), engine)
    assert out.exit_code == BLOCK


def pre_tool_use(tool: str, path: Path, cwd: Path, tool_input: dict[str, Any]) -> str:
    """A PreToolUse payload as Claude Code sends it: the tool's input, nothing written yet."""
    return json.dumps({"session_id": "abc", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
                       "hook_event_name": "PreToolUse", "tool_name": tool,
                       "tool_input": {"file_path": str(path), **tool_input}})


def test_pre_tool_use_checks_a_multiedit_as_one_change(proj: Workspace, engine: Engine) -> None:
    # Neither edit alone adds an eval: the second one edits what the first one wrote.
    edits = [{"old_string": "print(1)", "new_string": "x = ev(data)"},
             {"old_string": "x = ev(", "new_string": "x = eval("}]
    before = (proj.root / "ok.py").read_bytes()
    out = claude_post_tool_use(pre_tool_use("MultiEdit", proj.root / "ok.py", proj.root, {"edits": edits}), engine)
    assert out.exit_code == BLOCK
    assert out.stderr.startswith("sgtools: this MultiEdit would add 1 problem to ok.py, found by this project's")
    assert "[no-eval]" in out.stderr and "1 | x = eval(data)" in out.stderr  # the pending line, not the disk's
    assert (proj.root / "ok.py").read_bytes() == before


def test_pre_tool_use_blocks_only_what_the_change_adds(proj: Workspace, engine: Engine) -> None:
    (proj.root / "two.py").write_text("a = eval(x)\nb = eval(y)\n", encoding="utf-8")
    fix_one = {"old_string": "a = eval(x)", "new_string": "a = int(x)"}
    out = claude_post_tool_use(pre_tool_use("Edit", proj.root / "two.py", proj.root, fix_one), engine)
    assert (out.exit_code, out.stderr) == (PASS, "")  # b's old eval stays, and is not this edit's doing
    every = {"old_string": "eval(", "new_string": "eval(1) + eval(", "replace_all": True}
    more = claude_post_tool_use(pre_tool_use("Edit", proj.root / "two.py", proj.root, every), engine)
    assert more.exit_code == BLOCK and "would add 2 problems to two.py" in more.stderr


def test_pre_tool_use_write_of_a_new_file_and_edits_the_tool_would_refuse(proj: Workspace, engine: Engine) -> None:
    new = proj.root / "pkg" / "new.py"
    out = claude_post_tool_use(pre_tool_use("Write", new, proj.root, {"content": "v = eval(s)\n"}), engine)
    assert out.exit_code == BLOCK and "to pkg/new.py" in out.stderr and not new.exists()
    for edit in ({"old_string": "absent", "new_string": "eval(x)"},  # not in the file: the tool fails itself
                 {"old_string": "", "new_string": "eval(x)"}):  # an empty old_string on an existing file
        quiet = claude_post_tool_use(pre_tool_use("Edit", proj.root / "ok.py", proj.root, edit), engine)
        assert (quiet.exit_code, quiet.stderr) == (PASS, "")


def test_pending_text_follows_the_edit_tools() -> None:
    assert pending_text("Write", {"content": "x"}, "old") == "x"
    assert pending_text("Edit", {"old_string": "a", "new_string": "b"}, "a c") == "b c"
    assert pending_text("Edit", {"old_string": "a", "new_string": "b"}, "a a") is None  # ambiguous: refused
    assert pending_text("Edit", {"old_string": "a", "new_string": "b", "replace_all": True}, "a a") == "b b"
    multi = {"edits": [{"old_string": "1", "new_string": "2"}, {"old_string": "2", "new_string": "3"}]}
    assert pending_text("MultiEdit", multi, "x = 1") == "x = 3"
    assert pending_text("MultiEdit", {"edits": [{"old_string": "", "new_string": "new"}]}, None) == "new"
    assert pending_text("MultiEdit", {"edits": []}, "x") is None
