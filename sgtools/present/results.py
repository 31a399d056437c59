"""Text renderings of the results only MCP tools return (scan_code/scan_path's short text, find_code,
rewrite_code and apply_fixes' diffs, dump_syntax_tree), and the pieces every rendering shares. The results the
CLI prints too have one rendering each in `present/rules.py`, `present/community.py` and `present/doctor.py`.

Lists stop after `limit` items (`TEXT_ITEMS` for MCP) and say "and N more": the structured result has them all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sgtools.contracts.common import SEVERITIES, RuleErrorDict
from sgtools.present.text import fix_claim, fix_tally, plural

Say = Callable[[str], str]  # how a message reaches its reader: as it is (MCP) or in the CLI's words


def keep(message: str) -> str:
    return message


# How many findings the short text names before it says "and N more"; the full list is in structured content.
TEXT_ITEMS = 20


def more(items: Sequence[Any], shown: int | None) -> list[str]:
    rest = 0 if shown is None else len(items) - shown
    return [f"... and {rest} more (see the structured result)"] if rest > 0 else []


def rule_errors_lines(errors: Sequence[RuleErrorDict], limit: int | None = None, say: Say = keep,
                      others_ran: bool = True) -> list[str]:
    if not errors:
        return []
    lines = [f"{plural(len(errors), 'rule file')} could not be loaded" + (" (the other rules ran):" if others_ran
                                                                          else ":")]
    lines += [f"  ✗ {err['path'] or err['ruleId'] or '?'}: {say(err['message'])}" for err in errors[:limit]]
    return lines + more(errors, limit)


def diagnostic_line(d: Mapping[str, Any], note: str | None = None) -> str:
    """One finding on one line: where, severity, rule, message, and its fix; without a fix, the first sentence
    of the rule's note (`note`, else the Diagnostic's own), so a host that forwards only text passes the remedy."""
    where = f"{d.get('file') or '<snippet>'}:{d.get('line')}:{d.get('column')}"
    fixes = [f for f in d.get("fixits") or [] if f.get("kind", "fix") == "fix"]
    fix_note = ""
    if fixes:
        # unsafe: apply_fixes leaves it out unless include_unsafe (it may change behaviour)
        fix_note = f" [fix: {fix_claim({'verified': False, **fixes[0]}, state=True)}] {fixes[0].get('title', '')}"
    else:
        from sgtools.present.answer import first_sentence

        remedy = first_sentence(note if note is not None else d.get("note"))
        fix_note = f" ({remedy})" if remedy else ""
    return f"{where}: {d.get('severity')}[{d.get('ruleId')}] {d.get('message')}{fix_note}".rstrip()


def _finding_lines(issues: Sequence[Mapping[str, Any]], rules: Mapping[str, Any]) -> list[str]:
    """The first findings' lines; a compact Finding's note is its rule's, said once under `rules`."""
    return [diagnostic_line(d, (rules.get(str(d.get("ruleId"))) or {}).get("note")) for d in issues[:TEXT_ITEMS]]


def not_run_line(errors: int, ran: int) -> str | None:
    """The first line of a scan that ran rules while some rule files did not load, else None."""
    if not errors or not ran:
        return None
    return (f"{errors} of {errors + ran} rules did not run: {'its rule file' if errors == 1 else 'their rule files'} "
            "could not be loaded (see below).")


def scan_head(data: Mapping[str, Any]) -> list[str]:
    """What a scan's text opens with: that no rule ran and why, or how many did not, before any finding or
    "No issues found"."""
    if data.get("noRuleRan"):
        return [f"No rule ran, so nothing was checked: {data['noRuleRan']}."]
    line = not_run_line(len(data.get("ruleErrors") or []), int(data.get("rulesRun") or 0))
    return [line] if line else []


def _nothing_found(data: Mapping[str, Any]) -> str:
    """No finding: "No issues found.", unless findings were left out as generated (never "No issues" then)."""
    skipped = data.get("skippedGenerated") or []
    if not skipped:
        return "No issues found."
    dropped = sum((data.get("generated") or {}).values())
    named = ", ".join(f"{f.get('file') or '<snippet>'} ({f.get('why')})" for f in skipped[:3])
    return (f"Not checked: {plural(dropped, 'finding')} skipped in code that looks generated or minified: "
            f"{named}{' ...' if len(skipped) > 3 else ''}. Set `skipGenerated: false` in sgconfig.yml to see them.")


def render_scan(data: Mapping[str, Any]) -> str:
    issues = data.get("issues") or []
    counts = data.get("counts") or {}
    head = scan_head(data)
    if issues:
        parts = [f"{counts.get(s, 0)} {s}" for s in SEVERITIES if counts.get(s)]
        head.append(f"{plural(len(issues), 'issue')} ({', '.join(parts)}).")
    elif not data.get("noRuleRan"):
        head.append(_nothing_found(data))
    lines = [*head, *_finding_lines(issues, data.get("rules") or {}), *more(issues, TEXT_ITEMS),
             *(f"Note: {n}" for n in data.get("notes") or [])]
    if data.get("truncated"):
        nxt = data.get("nextOffset")
        lines.append("More findings exist" + (f": call again with offset={nxt}." if nxt is not None else
                                               ": raise max_results or narrow the input."))
    return "\n".join([*lines, *rule_errors_lines(data.get("ruleErrors") or [], TEXT_ITEMS,
                                                 others_ran=bool(data.get("rulesRun")))])


def render_tree(data: Mapping[str, Any]) -> str:
    return str(data.get("tree", ""))


def render_find(data: Mapping[str, Any]) -> str:
    matches = data.get("matches") or []
    lines = [f"{plural(len(matches), 'match')}" + (" (truncated)." if data.get("truncated") else ".")]
    for m in matches[:TEXT_ITEMS]:
        first = str(m.get("text", "")).splitlines()[0] if m.get("text") else ""
        lines.append(f"{m.get('file')}:{m.get('line')}:{m.get('column')}: {first[:200]}")
    return "\n".join([*lines, *more(matches, TEXT_ITEMS)])


def render_fixes(data: Mapping[str, Any]) -> str:
    """apply_fixes: each fix in the diff with its safety and confidence, what was left out and why, the diff."""
    applied = data.get("fixes") or []
    lines = [f"{f.get('file')}:{f.get('line')} {f.get('ruleId')}: {f.get('title')} ({fix_claim(f)})"
             for f in applied[:TEXT_ITEMS]]
    lines += more(applied, TEXT_ITEMS)
    skipped = data.get("skipped") or []
    lines += [f"not applied: {s.get('file')}:{s.get('line')} {s.get('ruleId')}: {s.get('reason')}"
              for s in skipped[:TEXT_ITEMS]]
    lines += more(skipped, TEXT_ITEMS)
    head = "\n".join([fix_tally(data, cli=False), *lines])
    body = render_diff(data) if data.get("diff") else ""
    return f"{head}\n\n{body}" if body else head


def render_diff(data: Mapping[str, Any]) -> str:
    changed = data.get("changedFiles")
    if changed is None:
        changed = sorted({str(c.get("file")) for c in data.get("changes") or [] if isinstance(c, dict)})
    if not data.get("diff"):
        return "Nothing to change."
    verb = "Applied" if data.get("applied") else "Would change (dry run; call again with apply=true to write)"
    return f"{verb}: {', '.join(changed)}\n\n{data['diff']}"
