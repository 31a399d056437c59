"""Agent hooks: check a file right after a coding agent wrote it (or just before), and hand the findings back.

Claude Code's hooks pass JSON on stdin (`hook_event_name`, `tool_name`, `tool_input.file_path`, `cwd`). Exit code 2
with text on stderr is fed back to the model, which then fixes the findings; exit 0 lets it go on. Our own
failures (bad input, a broken rule, a missing binary) never block the agent: they exit 0 with a note.

PostToolUse: the file on disk is the change; it is scanned there. PreToolUse: nothing is written yet; the
tool's edits are applied in memory (a MultiEdit's edits all together, as one change) and the pending content is
checked as an overlay (scan/overlay.py), in one scan with every file of the change; only findings the change
adds block it, so an edit that fixes one of several old findings is never refused for the others.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sgtools.contracts.scan import Diagnostic
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
        if payload.get("hook_event_name") == "PreToolUse":
            return _check_pending(ws, engine, payload, resolved, fail_on)
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



def pending_text(tool: object, tool_input: Mapping[str, Any], current: str | None) -> str | None:
    """The file's content once the tool has run, computed in memory with Claude Code's semantics: Write replaces
    it; Edit replaces `old_string` (which must occur once) or every occurrence with `replace_all`; MultiEdit applies
    its edits in order, each to the result of the one before; an edit with an empty `old_string` creates a new
    file. `current` is the file's text (None: no such file). None when the tool would refuse the edit."""
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    edits = [tool_input] if tool == "Edit" else tool_input.get("edits")
    if not isinstance(edits, list) or not edits:
        return None
    text = current
    for edit in edits:
        old = edit.get("old_string") if isinstance(edit, dict) else None
        new = edit.get("new_string") if isinstance(edit, dict) else None
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        if text is None or old == "":
            if text not in (None, "") or old != "":
                return None
            text = new
        elif edit.get("replace_all") is True and old in text:
            text = text.replace(old, new)
        elif text.count(old) == 1:
            text = text.replace(old, new, 1)
        else:
            return None
    return text


def _check_pending(ws: Workspace, engine: Engine, payload: Mapping[str, Any], resolved: Path,
                   fail_on: str) -> HookOutcome:
    """PreToolUse: the change checked before it is written; exit 2 with the findings it would add."""
    from sgtools.core import bounded
    from sgtools.present.text import plural, render_diagnostics
    from sgtools.scan.changes import is_code
    from sgtools.scan.collect import collect, rule_source
    from sgtools.scan.snippet import scan_code

    rel = ws.relative(resolved)
    source = rule_source(ws, engine)
    tool_input = payload.get("tool_input")
    if not is_code(rel, source.config) or not isinstance(tool_input, dict):
        return HookOutcome(PASS)
    exists = resolved.is_file()
    try:
        current = bounded.read_file(resolved, rel, "max_file_bytes").decode("utf-8") if exists else None
    except UnicodeDecodeError:
        return HookOutcome(PASS)  # not text: no rule can read it either
    text = pending_text(payload.get("tool_name"), tool_input, current)
    if text is None:
        return HookOutcome(PASS)  # the tool itself will refuse this edit and say why
    changes = {rel: text}
    after = scan_code(ws, engine, files=[{"path": p, "code": t} for p, t in changes.items()],
                      min_severity=fail_on, config=source.scan_config, max_results=ws.settings.hard_max_results)
    before = collect(ws, engine, source, paths=[rel], min_severity=fail_on).issues if exists else []
    added = _added(before, after["issues"])
    notes = "".join(f"sgtools hook: rule file {e.get('path')} was skipped: {e.get('message')}\n"
                    for e in after["ruleErrors"])
    if not added:
        return HookOutcome(PASS, notes)
    rules = "the bundled community rules" if source.bundled else "this project's ast-grep rules"
    head = (f"sgtools: this {payload.get('tool_name')} would add {plural(len(added), 'problem')} to {rel}, found by "
            f"{rules}; nothing was written. Redo it without them (or, if a finding is wrong, say why and add an "
            "`ast-grep-ignore` comment):\n")
    body = "\n".join(render_diagnostics(added, ws.root, texts=changes))
    return HookOutcome(BLOCK, notes + head + body + "\n")


def _added(before: Sequence[Diagnostic], after: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The findings of `after` that `before` does not have (same rule, same matched text, counted), so
    findings that only moved are not new."""
    old = Counter((d["file"], d["ruleId"], d["text"]) for d in before)
    added: list[Diagnostic] = []
    for d in after:
        key = (d["file"], d["ruleId"], d["text"])
        if old[key] > 0:
            old[key] -= 1
        else:
            added.append(d)
    return added
