"""Agent hooks: check a file right after a coding agent wrote it, and hand the findings back to the agent.

Claude Code's PostToolUse hook passes JSON on stdin (`tool_name`, `tool_input.file_path`, `cwd`). Exit code 2
with text on stderr is fed back to the model, which then fixes the findings; exit 0 lets it go on. Our own
failures (bad input, a broken rule, a missing binary) never block the agent: they exit 0 with a note.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sgtools.core.errors import SgToolsError
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace

EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
PROJECT_DIR_ENV = "CLAUDE_PROJECT_DIR"
BLOCK = 2  # Claude Code: stderr goes back to the model
PASS = 0


@dataclass(frozen=True)
class HookOutcome:
    exit_code: int
    stderr: str = ""


def _edited_file(payload: dict[str, Any]) -> str | None:
    tool_input = payload.get("tool_input")
    path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    if not isinstance(path, str) or not path:
        response = payload.get("tool_response")
        path = response.get("filePath") if isinstance(response, dict) else None
    return path if isinstance(path, str) and path else None


def claude_post_tool_use(raw: str, engine: Engine, *, root: str | None = None,
                         fail_on: str = "warning") -> HookOutcome:
    try:
        payload = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return HookOutcome(PASS, f"sgtools hook: ignoring hook input that is not JSON ({exc}).\n")
    if not isinstance(payload, dict):
        return HookOutcome(PASS, "sgtools hook: ignoring hook input that is not a JSON object.\n")
    if payload.get("tool_name") not in EDIT_TOOLS:
        return HookOutcome(PASS)
    file_path = _edited_file(payload)
    if file_path is None:
        return HookOutcome(PASS)
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    try:
        ws = Workspace(root or os.environ.get(PROJECT_DIR_ENV) or cwd or None)
        target = Path(file_path) if os.path.isabs(file_path) else Path(cwd or ws.root) / file_path
        try:
            resolved = ws.resolve(target)
        except SgToolsError:
            return HookOutcome(PASS)  # outside the project: not ours to judge
        if not resolved.is_file():
            return HookOutcome(PASS)
        return _check_file(ws, engine, ws.relative(resolved), fail_on)
    except SgToolsError as exc:
        return HookOutcome(PASS, f"sgtools hook: could not check {file_path}: {exc.render()}\n")
    except OSError as exc:
        return HookOutcome(PASS, f"sgtools hook: could not check {file_path}: {exc}\n")


def _check_file(ws: Workspace, engine: Engine, rel: str, fail_on: str) -> HookOutcome:
    from sgtools.present.text import plural, render_diagnostics
    from sgtools.scan.changes import is_code
    from sgtools.scan.collect import collect, rule_source

    source = rule_source(ws, engine)
    if not is_code(rel, source.config):
        return HookOutcome(PASS)
    found = collect(ws, engine, source, paths=[rel], min_severity=fail_on)
    notes = "".join(f"sgtools hook: rule file {e.get('path')} was skipped: {e.get('message')}\n"
                    for e in found.rule_errors)
    blocking = found.issues
    if not blocking:
        return HookOutcome(PASS, notes)
    rules = "the bundled community rules" if source.bundled else "this project's ast-grep rules"
    head = (f"sgtools: {plural(len(blocking), 'problem')} in {rel} found by {rules}. "
            "Fix them (or, if a finding is wrong, say why and add an `ast-grep-ignore` comment):\n")
    body = "\n".join(render_diagnostics(blocking, ws.root))
    return HookOutcome(BLOCK, notes + head + body + "\n")

