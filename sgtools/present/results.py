"""Short text renderings of the services' results, as the MCP tools return them next to the structured result.

Each names at most `TEXT_ITEMS` findings before it says "and N more": the full list is in the structured result.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sgtools.present.text import plural
from sgtools.rules.ruleset import SEVERITIES

# How many findings the short text names before it says "and N more"; the full list is in structured content.
TEXT_ITEMS = 20


def _more(items: list[Any], shown: int) -> list[str]:
    rest = len(items) - shown
    return [f"... and {rest} more (see the structured result)"] if rest > 0 else []


def _rule_errors_text(data: Mapping[str, Any]) -> list[str]:
    errors = data.get("ruleErrors") or []
    if not errors:
        return []
    lines = [f"{plural(len(errors), 'rule file')} could not be loaded (the other rules ran):"]
    for err in errors[:TEXT_ITEMS]:
        where = err.get("path") or err.get("ruleId") or "?"
        lines.append(f"  {where}: {err.get('message', err)}")
    return lines


def _diagnostic_line(d: Mapping[str, Any]) -> str:
    where = f"{d.get('file') or '<snippet>'}:{d.get('line')}:{d.get('column')}"
    fixes = [f for f in d.get("fixits") or [] if f.get("kind") == "fix"]
    fix_note = ""
    if fixes:
        state = "verified" if fixes[0].get("verified") else "unverified"
        fix_note = f" [fix: {state}] {fixes[0].get('title', '')}"
    return f"{where}: {d.get('severity')}[{d.get('ruleId')}] {d.get('message')}{fix_note}".rstrip()


def render_scan(data: Mapping[str, Any]) -> str:
    issues = data.get("issues") or []
    counts = data.get("counts") or {}
    if not issues:
        head = "No issues found."
    else:
        parts = [f"{counts.get(s, 0)} {s}" for s in SEVERITIES if counts.get(s)]
        head = f"{plural(len(issues), 'issue')} ({', '.join(parts)})."
    lines = [head, *(_diagnostic_line(d) for d in issues[:TEXT_ITEMS]), *_more(issues, TEXT_ITEMS),
             *(f"Note: {n}" for n in data.get("notes") or [])]
    if data.get("truncated"):
        nxt = data.get("nextOffset")
        lines.append("More findings exist" + (f": call again with offset={nxt}." if nxt is not None else
                                               ": raise max_results or narrow the input."))
    return "\n".join([*lines, *_rule_errors_text(data)])


def render_message(data: Mapping[str, Any]) -> str:
    lines = [str(data.get("message", "Done."))]
    for key, label in (("path", "rule file"), ("testPath", "test file")):
        if data.get(key):
            lines.append(f"{label}: {data[key]}")
    test = data.get("testResult")
    if isinstance(test, dict) and "success" in test:
        lines.append("examples: " + ("all passed" if test["success"] else "some failed (see testResult)"))
    if data.get("removed"):
        lines.append("removed: " + ", ".join(data["removed"]))
    return "\n".join(lines)


def render_rules(data: Mapping[str, Any]) -> str:
    rules = data.get("rules") or []
    lines = [f"{plural(len(rules), 'rule')}."]
    for r in rules[: TEXT_ITEMS * 5]:
        flags = "".join((" fix" if r.get("hasFix") else "", " tests" if r.get("hasTests") else ""))
        lines.append(f"  {r.get('id')} ({r.get('language')}, {r.get('severity')}{flags}): {r.get('message') or ''}")
    return "\n".join([*lines, *_more(rules, TEXT_ITEMS * 5), *_rule_errors_text(data)])


def render_explain(data: Mapping[str, Any]) -> str:
    head = f"{data.get('id')} ({data.get('language')}, {data.get('severity')}): {data.get('message') or ''}"
    return "\n".join([head, f"file: {data.get('path')}", "", str(data.get("yaml", ""))])


def render_test(data: Mapping[str, Any]) -> str:
    matches = data.get("matches") or []
    examples = data.get("examples") or {}
    failed = examples.get("failed") or []
    lines = ["Rule OK." if data.get("success") else "Rule has problems."]
    for err in (data.get("errors") or [])[:TEXT_ITEMS]:
        lines.append(f"error: {err.get('message', err) if isinstance(err, dict) else err}")
    lines.append(f"{plural(len(matches), 'match')} in `code`.")
    lines.extend(_diagnostic_line(d) for d in matches[:TEXT_ITEMS])
    lines.append(f"examples: {examples.get('passed', 0)} passed, {len(failed)} failed")
    for f in failed[:TEXT_ITEMS]:
        reason = f.get("reason") if isinstance(f, dict) else None
        lines.append(f"  failed: {reason or json.dumps(f, ensure_ascii=False)[:300]}")
    for key in ("hints", "warnings"):
        lines.extend(f"{key[:-1]}: {item}" for item in (data.get(key) or [])[:TEXT_ITEMS])
    return "\n".join(lines)


def render_suggest(data: Mapping[str, Any]) -> str:
    cands = data.get("candidates") or []
    if not cands:
        return f"No rule found. {data.get('explanation', '')}".strip()
    lines = [f"{plural(len(cands), 'verified rule')}, best first:"]
    for n, cand in enumerate(cands, 1):
        lines += [f"--- {n}. {cand.get('rule_id')}: {cand.get('why')}", str(cand.get("yaml", "")).rstrip("\n")]
    lines.extend(f"warning: {w}" for w in (data.get("warnings") or [])[:TEXT_ITEMS])
    return "\n".join(lines)


def render_tree(data: Mapping[str, Any]) -> str:
    return str(data.get("tree", ""))


def render_find(data: Mapping[str, Any]) -> str:
    matches = data.get("matches") or []
    lines = [f"{plural(len(matches), 'match')}" + (" (truncated)." if data.get("truncated") else ".")]
    for m in matches[:TEXT_ITEMS]:
        first = str(m.get("text", "")).splitlines()[0] if m.get("text") else ""
        lines.append(f"{m.get('file')}:{m.get('line')}:{m.get('column')}: {first[:200]}")
    return "\n".join([*lines, *_more(matches, TEXT_ITEMS)])


def render_diff(data: Mapping[str, Any]) -> str:
    changed = data.get("changedFiles")
    if changed is None:
        changed = sorted({str(c.get("file")) for c in data.get("changes") or [] if isinstance(c, dict)})
    if not data.get("diff"):
        return "Nothing to change."
    verb = "Applied" if data.get("applied") else "Would change (dry run; call again with apply=true to write)"
    return f"{verb}: {', '.join(changed)}\n\n{data['diff']}"


def render_search(data: Mapping[str, Any]) -> str:
    return str(data.get("results") or "No community rule matched. Try other words or drop the language filter.")


def render_details(data: Mapping[str, Any]) -> str:
    return str(data.get("details", ""))


def render_info(data: Mapping[str, Any]) -> str:
    lines = [
        f"context-sherpa {data.get('version')} on ast-grep {data.get('astGrepVersion') or '(not found)'}",
        f"root: {data.get('root')}",
        f"config: {data.get('config') or 'none (call initialize_ast_grep)'}",
        f"rules: {data.get('ruleCount', 0)}" + (" (read-only mode)" if data.get("readOnly") else ""),
    ]
    lines.extend(f"problem: {p}" for p in data.get("problems") or [])
    return "\n".join([*lines, *_rule_errors_text(data)])


def render_init(data: Mapping[str, Any]) -> str:
    return str(data.get("message", ""))

