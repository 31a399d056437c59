"""Human output: findings grouped by file, each with its source line and a caret underline, then a summary.

Colour is decided by the caller (a terminal and no NO_COLOR); the renderer only obeys `Report.color`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.contracts.common import SEVERITIES
from sgtools.present.report import Report
from sgtools.present.summary import line as signal_line

if TYPE_CHECKING:  # shapes only (the MCP server's schemas load them)
    from sgtools.contracts.fixits import Fixit
    from sgtools.contracts.scan import Diagnostic

_RESET = "\033[0m"
_STYLES = {
    "error": "\033[1;31m",
    "warning": "\033[1;33m",
    "info": "\033[1;34m",
    "hint": "\033[1;36m",
    "file": "\033[1;4m",
    "dim": "\033[2m",
    "ok": "\033[1;32m",
}


class _Painter:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, style: str, text: str) -> str:
        return f"{_STYLES[style]}{text}{_RESET}" if self.enabled and style in _STYLES and text else text


class _Sources:
    """Source lines, read once per file; a file that cannot be read simply shows no excerpt."""

    def __init__(self, root: Path, texts: Mapping[str, str] | None = None) -> None:
        self.root = root
        self._lines: dict[str, list[str] | None] = {f: t.splitlines() for f, t in (texts or {}).items()}

    def line(self, file: str, number: int) -> str | None:
        if file not in self._lines:
            try:
                text = (self.root / file).read_text(encoding="utf-8", errors="replace")
                self._lines[file] = text.splitlines()
            except OSError:
                self._lines[file] = None
        lines = self._lines[file]
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]


def excerpt(diag: Diagnostic, source_line: str | None, paint: _Painter | None = None) -> list[str]:
    """The first source line of the match and a caret underline, aligned even when the line holds tabs."""
    if source_line is None:
        return []
    paint = paint or _Painter(False)
    line_no = int(diag.get("line") or 0)
    col = max(1, int(diag.get("column") or 1))
    end_line = int(diag.get("endLine") or line_no)
    end_col = int(diag.get("endColumn") or col + 1)
    stop = end_col if end_line == line_no else len(source_line) + 1
    width = max(1, stop - col)
    lead = source_line[: col - 1]
    prefix = "".join(ch if ch == "\t" else " " for ch in lead) if "\t" in lead else " " * len(lead)
    gutter = " " * len(str(line_no))
    sev = str(diag.get("severity") or "hint")
    carets = "^" * width + ("…" if end_line > line_no else "")
    return [
        f"  {paint('dim', str(line_no))} {paint('dim', '|')} {source_line.rstrip()}",
        f"  {gutter} {paint('dim', '|')} {prefix}{paint(sev, carets)}",
    ]


def plural(n: int, word: str, many: str | None = None) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {many or word + ('es' if word.endswith(('ch', 'sh', 's', 'x')) else 's')}"


def fix_claim(fix: Mapping[str, Any], *, state: bool = False) -> str:
    """What a fix claims, said wherever a fix is shown: `safe, confidence 0.95`, with `unverified` when it was not
    re-scanned or failed (`state`: `verified, ` or `unverified, ` first, always)."""
    confidence = fix.get("confidence")
    claim = f"{fix.get('safety') or 'unsafe'}, confidence " + (
        f"{float(confidence):.2f}" if isinstance(confidence, (int, float)) else "unknown")
    verified = bool(fix.get("verified", True))
    if state:
        return f"{'verified' if verified else 'unverified'}, {claim}"
    return claim if verified else claim + ", unverified"


APPLIED_SHOWN = 20  # `scan --fix` names this many applied fixes with their claims, then says how many more


def _applied_lines(fixes: Mapping[str, Any]) -> list[str]:
    applied = fixes.get("fixes") or []
    lines = [f"  {f.get('file')}:{f.get('line')} {f.get('ruleId')}: {f.get('title')} ({fix_claim(f)})"
             for f in applied[:APPLIED_SHOWN]]
    if len(applied) > APPLIED_SHOWN:
        lines.append(f"  … and {len(applied) - APPLIED_SHOWN} more")
    return lines


# What each kind of skipped fix needs, in the MCP tool's words and the CLI's: (kind, how it is told, MCP, CLI).
_SKIP_KINDS = (
    ("unsafe", ("unsafe",), "pass include_unsafe: true to apply them once reviewed",
     "pass --fix --unsafe-fixes to apply them once reviewed"),
    ("unverified", ("not verified",), "never applied: edit by hand or fix the rule",
     "never applied: edit by hand or fix the rule"),
    ("overlapping", ("overlaps", "makes the same edit"), "run apply_fixes again to apply them",
     "run sgtools scan --fix again to apply them"),
)


def fix_tally(fixes: Mapping[str, Any], cli: bool) -> str:
    """One line: how many fixes were applied (or would be, in a dry run) and how many were skipped, counted by
    reason, each with the exact argument or flag that applies them (or why nothing does)."""
    count = fixes.get("fixesApplied")
    applied = int(count) if count is not None else len(fixes.get("fixes") or [])
    changed = len(fixes.get("changedFiles") or [])
    verb = "Applied" if fixes.get("applied") or cli else "Would apply (dry run: pass apply: true to write)"
    line = f"{verb} {plural(applied, 'fix', 'fixes')} in {plural(changed, 'file')}"
    skipped = [str(s.get("reason") or "") for s in fixes.get("skipped") or []]
    if not skipped:
        return line + "."
    parts: list[str] = []
    left = list(skipped)
    for kind, starts, mcp, cmd in _SKIP_KINDS:
        n = sum(1 for r in left if r.startswith(starts))
        left = [r for r in left if not r.startswith(starts)]
        if n:
            parts.append(f"{n} {kind} ({cmd if cli else mcp})")
    if left:
        parts.append(f"{len(left)} for other reasons (listed with each fix)")
    return f"{line}; skipped {len(skipped)}: " + "; ".join(parts) + "."


def summary(report: Report, paint: _Painter | None = None) -> list[str]:
    paint = paint or _Painter(False)
    lines: list[str] = []
    fixes = report.fixes
    if fixes is not None:
        lines.append(fix_tally(fixes, cli=True))
        lines.extend(_applied_lines(fixes))
    lines.append(_outcome_line(report, paint))
    lines.extend(signal_line(report.signal, report.diagnostics))
    lines.extend(_quiet_hint(report.diagnostics))
    if report.baselined:
        where = f" in {report.baseline_file}" if report.baseline_file else ""
        lines.append(f"{plural(len(report.baselined), 'known finding')} from the baseline{where} not shown.")
    if report.truncated:
        lines.append(f"Only the first {len(report.diagnostics)} are shown: raise --max-results to see them all.")
    if report.rule_errors:
        lines.append(paint("error", f"{plural(len(report.rule_errors), 'rule file')} could not be used (see stderr)."))
    return lines


def _outcome_line(report: Report, paint: _Painter) -> str:
    """Problems found, none, or nothing checked: a check mark only beside files that were checked."""
    total = sum(report.counts.get(s, 0) for s in SEVERITIES)  # counts cover every finding, shown or not
    checked = "" if report.files_checked is None else f" ({plural(report.files_checked, 'file')} checked)"
    if report.no_rule_ran is not None:  # said on the first line
        return paint("error", "✖ no rule ran: nothing was checked.")
    if total:
        parts = ", ".join(plural(report.counts.get(s, 0), s, "info" if s == "info" else None) for s in SEVERITIES)
        worst = next((s for s in SEVERITIES if report.counts.get(s)), "hint")
        where = "" if report.truncated else f" in {plural(len(report.files()), 'file')}"
        return paint(worst, f"✖ {plural(total, 'problem')} ({parts}){where}{checked}")
    if report.files_checked == 0:
        return "nothing to check: no file in scope is in the language of a rule (0 files checked)."
    return paint("ok", f"✔ no problems found{checked}")


# Below this many info and hint findings among those shown, the list is short enough to read through.
QUIET_HINT_MIN = 10


def _quiet_hint(shown: Sequence[Diagnostic]) -> list[str]:
    """When info and hints make most of a long list, say how to see only the findings that ask for a change: a
    new user's first scan of a venv lists ~430 info findings around the 19 warnings and errors."""
    low = sum(1 for d in shown if d["severity"] in ("info", "hint"))
    high = len(shown) - low
    if not high or low < QUIET_HINT_MIN or low < high:
        return []
    return [f"{low} of these are info or hints: --min-severity warning lists only the {high} at warning and above."]


def _how_to_apply(fix: Fixit, rule_id: str, fixable: bool) -> str:
    """The command that would apply this fix-it, or why none would. Unchecked fix-its are verified by --fix
    itself before it applies them; one that failed verification is never applied."""
    if fix.get("verification", {}).get("checked", True) and not fix.get("verified"):
        return "failed verification: not applied by --fix; edit by hand"
    how = "--fix" if fix.get("safety") == "safe" else "--fix --unsafe-fixes (unsafe: may change behaviour)"
    # `--fix` applies a project's own rules; a bundled rule has to be imported first, into a project that exists
    # (without sgconfig.yml, `community import` refuses with [config-missing]).
    return (f"sgtools scan {how}" if fixable
            else f"sgtools init, sgtools community import {rule_id}, then sgtools scan {how}")


def render_diagnostics(diags: Iterable[Diagnostic], root: Path, *, color: bool = False,
                       fixable: bool = True, texts: Mapping[str, str] | None = None) -> list[str]:
    """The per-file blocks; also used by the agent hook, which prints no summary. `texts` are files' contents
    not yet on disk (a pending change), by workspace-relative path."""
    paint = _Painter(color)
    sources = _Sources(root, texts)
    out: list[str] = []
    current: str | None = None
    for d in diags:
        file = str(d.get("file") or "<snippet>")
        if file != current:
            if current is not None:
                out.append("")
            out.append(paint("file", file))
            current = file
        sev = str(d.get("severity") or "hint")
        where = f"{d.get('line')}:{d.get('column')}"
        out.append(f"{where:>8}  {paint(sev, f'{sev:<7}')}  {d.get('message') or d.get('ruleId')}  "
                   f"{paint('dim', '[' + str(d.get('ruleId')) + ']')}")
        out.extend(excerpt(d, sources.line(file, int(d.get("line") or 0)), paint))
        if d.get("note"):
            note_lines = str(d["note"]).strip().splitlines() or [""]
            out.append(f"  {paint('dim', '=')} note: {note_lines[0]}")
            out.extend(f"          {ln}" for ln in note_lines[1:])
        fixes = [f for f in d.get("fixits") or [] if f.get("kind") == "fix"]
        if fixes:
            out.append(f"  {paint('dim', '=')} fix: {fixes[0].get('title') or 'available'} ({fix_claim(fixes[0])}) "
                       f"[{_how_to_apply(fixes[0], str(d.get('ruleId')), fixable)}]")
            out.extend(_fix_block(fixes[0], paint))
    return out


FIX_BLOCK_LINES = 12  # a longer multi-line fix shows its first lines and says how many more there are


def _fix_block(fix: Fixit, paint: _Painter) -> list[str]:
    """A multi-line replacement, line by line and indented as it will be written (its title is one flat line)."""
    edits = fix.get("edits") or []
    new_text = str(edits[0].get("newText") or "") if len(edits) == 1 else ""
    lines = new_text.strip("\n").split("\n")
    if len(lines) < 2:
        return []
    shown = [f"          {paint('dim', '+')} {ln}".rstrip() for ln in lines[:FIX_BLOCK_LINES]]
    if len(lines) > FIX_BLOCK_LINES:
        shown.append(f"          {paint('dim', f'… {len(lines) - FIX_BLOCK_LINES} more lines')}")
    return shown


def head(report: Report, paint: _Painter | None = None) -> list[str]:
    """What the text opens with, before any finding: that no rule ran and why, or how many rules did not."""
    paint = paint or _Painter(False)
    if report.no_rule_ran is not None:
        return [paint("error", f"✖ No rule ran, so nothing was checked: {report.no_rule_ran}.")]
    errors = len(report.rule_errors)
    if errors and report.rules_run:
        return [paint("error", f"{errors} of {errors + report.rules_run} rules did not run: "
                               f"{'its rule file' if errors == 1 else 'their rule files'} could not be loaded "
                               "(see stderr).")]
    return []


def render(report: Report) -> str:
    paint = _Painter(report.color)
    lines = head(report, paint)
    lines += render_diagnostics(report.diagnostics, report.root, color=report.color, fixable=report.fixable)
    if lines:
        lines.append("")
    lines.extend(summary(report, paint))
    return "\n".join(lines) + "\n"
