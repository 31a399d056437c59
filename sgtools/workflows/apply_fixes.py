"""apply_fixes: turn the `fix` fix-its of a path scan into one reviewed, all-or-nothing change.

Only the rules' own fixes are applied (never suppression comments), only verified ones (never an unverified
one), only `safe` ones unless the caller says `include_unsafe` (fixits/safety.py), and never two that touch
the same bytes: the later one is skipped and reported, because its offsets describe a text that the earlier
fix has already changed (scan again to pick it up).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sgtools.contracts.common import RuleErrorDict
from sgtools.contracts.fixits import AppliedFix, ApplyFixesResult, FixesResult, SkippedFix
from sgtools.core.errors import BadInput, Conflict
from sgtools.edit.text import Span, apply_edits, match_style, read_source, to_span, write_previewed
from sgtools.engine.process import Engine
from sgtools.fixits.safety import SAFE
from sgtools.project.config import load_config
from sgtools.project.workspace import Workspace
from sgtools.scan.paths import PathScan, scan_path, tool_args
from sgtools.scan.rulefiles import cached_ruleset

NOT_VERIFIED = ("not verified (the fixed code did not re-scan cleanly), so it is never applied; "
                "review it and edit by hand, or fix the rule")
UNSAFE = ("unsafe: it may change behaviour (a rule's fix is unsafe unless the rule declares `metadata: {fixSafety: "
          "safe}`, which it should once the fix is proven: docs/fixes.md); review it, then pass include_unsafe "
          "(--unsafe-fixes) to apply it")
OVERLAPS = "overlaps a fix applied before it; run apply_fixes again after this one"
DUPLICATE = "makes the same edit as a fix applied before it"


@dataclass
class FixPlan:
    """Which fix-its go in, per file, and which were left out and why."""

    edits: dict[str, list[Span]] = field(default_factory=dict)
    accepted: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = field(default_factory=list)  # (diag, fixit)
    skipped: list[SkippedFix] = field(default_factory=list)


def _first_fix(diag: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for fx in diag.get("fixits") or []:
        if fx.get("kind") == "fix" and fx.get("edits"):
            return fx  # type: ignore[no-any-return]
    return None


def _skip(diag: Mapping[str, Any], fixit: Mapping[str, Any], reason: str) -> SkippedFix:
    return {
        "ruleId": diag.get("ruleId"),
        "file": diag.get("file"),
        "line": diag.get("line"),
        "column": diag.get("column"),
        "title": fixit.get("title"),
        "reason": reason,
    }


def _refusal(fixit: Mapping[str, Any], include_unsafe: bool) -> str | None:
    """Why a fix-it must not be applied, or None: unverified never, `unsafe` (or unclassified) only if asked."""
    if not fixit.get("verified"):
        reason = (fixit.get("verification") or {}).get("reason")
        return NOT_VERIFIED if not reason else f"not verified ({reason}), so it is never applied"
    if fixit.get("safety") != SAFE and not include_unsafe:
        return UNSAFE
    return None


class _Kept:
    """The spans kept for one file, sorted; they never overlap, so their ends are sorted too and the ones that
    can touch a new span are found by bisection (a file with 30,000 fixes is not checked pairwise)."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.starts: list[tuple[int, int]] = []
        self.ends: list[int] = []

    def touching(self, s: Span) -> list[Span]:
        lo = bisect.bisect_left(self.ends, s.start)
        hi = bisect.bisect_right(self.starts, (s.end, s.end))
        return [k for k in self.spans[lo:max(lo, hi)] if k.overlaps(s) or k.same_as(s)]

    def add(self, s: Span) -> None:
        i = bisect.bisect_right(self.starts, (s.start, s.end))
        self.spans.insert(i, s)
        self.starts.insert(i, (s.start, s.end))
        self.ends.insert(i, s.end)


TOGETHER = ("its import edit is shared with other fixes of this rule in the file, and one of them cannot be "
            "applied; the file's fixes go in together or not at all")


def _shared_edit(diag: Mapping[str, Any], fixit: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """The import edit (fixits/imports.py) a fix-it shares with the rule's other fix-its in its file, as a key."""
    edits = fixit.get("edits") or []
    if len(edits) < 2:
        return None
    e = edits[1]
    return (diag.get("ruleId"), e.get("file") or diag.get("file"), e.get("byteStart"), e.get("byteEnd"),
            e.get("newText"))


def _held_back(diagnostics: Sequence[Mapping[str, Any]], include_unsafe: bool) -> dict[Any, str]:
    """Shared import edits one of whose fix-its is refused: the whole group is held back (removing an import
    that a fix left out still uses would break the build)."""
    held: dict[Any, str] = {}
    for diag in diagnostics:
        fixit = _first_fix(diag)
        key = _shared_edit(diag, fixit) if fixit is not None else None
        if fixit is not None and key is not None and _refusal(fixit, include_unsafe) is not None:
            held[key] = TOGETHER
    return held


def plan_fixes(diagnostics: Iterable[Mapping[str, Any]], *, include_unsafe: bool = False) -> FixPlan:
    """Pick the fixes to apply, in diagnostic order (file, offset, rule): a fix-it goes in whole or not at all."""
    plan = FixPlan()
    index: dict[str, _Kept] = {}
    diagnostics = list(diagnostics)
    held = _held_back(diagnostics, include_unsafe)
    for diag in diagnostics:
        fixit = _first_fix(diag)
        if fixit is None:
            continue
        refusal = _refusal(fixit, include_unsafe) or held.get(_shared_edit(diag, fixit))
        if refusal is not None:
            plan.skipped.append(_skip(diag, fixit, refusal))
            continue
        spans: list[tuple[str, Span]] = []
        for edit in fixit["edits"]:
            file = edit.get("file") or diag.get("file")
            if not isinstance(file, str):
                raise BadInput(f"A fix-it of {diag.get('ruleId')} names no file; only path scans can be fixed.")
            spans.append((file, to_span(edit)))
        taken = [(f, s, index.setdefault(f, _Kept()).touching(s)) for f, s in spans]
        clashes = [k for _f, s, hits in taken for k in hits if not k.same_as(s)]
        if clashes:
            plan.skipped.append(_skip(diag, fixit, OVERLAPS))
            continue
        if all(hits for _f, _s, hits in taken):
            plan.skipped.append(_skip(diag, fixit, DUPLICATE))
            continue
        for f, s, hits in taken:
            if not hits:
                plan.edits.setdefault(f, []).append(s)
                index[f].add(s)
        plan.accepted.append((diag, fixit))
    return plan


def _applied(diag: Mapping[str, Any], fixit: Mapping[str, Any]) -> AppliedFix:
    confidence = fixit.get("confidence")
    return {"ruleId": diag.get("ruleId"), "file": diag.get("file"), "line": diag.get("line"),
            "title": fixit.get("title"), "safety": str(fixit.get("safety") or "unsafe"),
            "confidence": float(confidence) if isinstance(confidence, (int, float)) else None}


def _check_unchanged(data: bytes, file: str, diags: Sequence[Mapping[str, Any]]) -> None:
    """The scan's matched text must still be where the scan saw it, or the fix offsets are stale."""
    for d in diags:
        start, end, text = d.get("byteStart"), d.get("byteEnd"), d.get("text")
        if isinstance(start, int) and isinstance(end, int) and isinstance(text, str) \
                and data[start:end] != text.encode("utf-8"):
            raise Conflict(f"{file} changed since it was scanned. Nothing was written; run apply_fixes again.")


def fix_diagnostics(
    ws: Workspace, diagnostics: Sequence[Mapping[str, Any]], *, apply: bool = False, include_unsafe: bool = False,
    expected_diff: str | None = None,
) -> FixesResult:
    """Apply (or preview) the fixes of already computed diagnostics; `apply_fixes` and `scan --fix` share it."""
    plan = plan_fixes(diagnostics, include_unsafe=include_unsafe)
    by_file: dict[str, list[Mapping[str, Any]]] = {}
    for diag, _fixit in plan.accepted:
        by_file.setdefault(str(diag.get("file")), []).append(diag)
    texts: dict[str, tuple[str, str]] = {}
    originals: dict[str, bytes] = {}
    changed: set[str] = set()
    for file, spans in sorted(plan.edits.items()):
        target, data, text = read_source(ws, file)
        _check_unchanged(data, file, by_file.get(file, []))
        edits = [{"byteStart": s.start, "byteEnd": s.end, "newText": s.new_text} for s in spans]
        new_text = match_style(data, text, apply_edits(text, edits))
        if new_text != text:
            rel = ws.relative(target)
            texts[rel] = (text, new_text)
            originals[rel] = data
            changed.add(file)
    applied = [_applied(diag, fixit) for diag, fixit in plan.accepted
               if any((e.get("file") or diag.get("file")) in changed for e in fixit["edits"])]
    diff, written = write_previewed(ws, texts, originals, apply=apply, expected_diff=expected_diff,
                                    what="The fixes differ from the preview they were")
    return {
        "diff": diff,
        "changedFiles": sorted(texts),
        "fixesApplied": len(applied),
        "applied": bool(written),
        "fixes": applied,
        "skipped": plan.skipped,
    }


def apply_fixes(
    ws: Workspace, engine: Engine, paths: Sequence[str] | None = None, rule_ids: Sequence[str] | None = None,
    apply: bool = False, *, include_unsafe: bool = False, expected_diff: str | None = None,
    default_excludes: bool | None = None,
) -> ApplyFixesResult:
    """`{diff, changedFiles[], fixesApplied, applied, skipped[], ruleErrors[]}`.

    Scans `paths` (default: the whole workspace) with the project's rules (or only `rule_ids`), then applies
    each diagnostic's verified `fix` fix-it that is `safe` (and `unsafe` ones with `include_unsafe`). Without
    `apply` nothing is written and `fixesApplied` counts the fixes in the diff. `expected_diff` makes the write
    conditional on the diff being the one that was reviewed.
    """
    if not isinstance(apply, bool) or not isinstance(include_unsafe, bool):
        raise BadInput("apply and include_unsafe must be true or false.")
    cfg = load_config(ws)
    ruleset = cached_ruleset(ws, cfg, engine)  # every page from one version of the rules (their fixes and safety)
    # One engine pass and one verification for every finding, as `sgtools scan --fix` has them: paging made each
    # page of hard_max_results findings run the whole scan again and re-scan its files' originals (30,000
    # findings in one file: 3 scans and 3 verifications of the whole file). Only when that one verification ran
    # out of its per-call budget (fixit_verify_max, fixit_verify_max_bytes) are the findings taken page by
    # page, each page with a budget of its own, so that no fix-it goes unverified that paging would verify.
    options = PathScan(default_excludes=default_excludes, config=cfg, ruleset=ruleset, every_finding=True)
    result = scan_path(ws, engine, options, **tool_args(paths, rule_ids=rule_ids))
    diagnostics: list[Mapping[str, Any]] = list(result["issues"])
    rule_errors: list[RuleErrorDict] = result["ruleErrors"]
    if _budget_ran_out(diagnostics):
        diagnostics, rule_errors = _paged(ws, engine, PathScan(default_excludes=default_excludes, config=cfg,
                                                               ruleset=ruleset), paths, rule_ids)
    out = fix_diagnostics(ws, diagnostics, apply=apply, include_unsafe=include_unsafe, expected_diff=expected_diff)
    return {**out, "ruleErrors": rule_errors}


def _budget_ran_out(diagnostics: Sequence[Mapping[str, Any]]) -> bool:
    from sgtools.fixits.verify import LIMIT_REACHED  # the verifier is loaded by the scan that verified them

    return any((fx.get("verification") or {}).get("reason") == LIMIT_REACHED
               for d in diagnostics for fx in d.get("fixits") or [])


def _paged(ws: Workspace, engine: Engine, options: PathScan, paths: Sequence[str] | None,
           rule_ids: Sequence[str] | None) -> tuple[list[Mapping[str, Any]], list[RuleErrorDict]]:
    """Every finding, page by page (hard_max_results each), each page's fix-its verified in a call of its own."""
    page = ws.settings.hard_max_results
    diagnostics: list[Mapping[str, Any]] = []
    offset = 0
    while True:
        result = scan_path(ws, engine, options, **tool_args(paths, rule_ids=rule_ids, max_results=page, offset=offset))
        diagnostics += result["issues"]
        next_offset = result.get("nextOffset")
        if not result.get("truncated") or not isinstance(next_offset, int) or next_offset <= offset:
            return diagnostics, result["ruleErrors"]
        offset = next_offset
