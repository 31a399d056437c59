"""Fix-its for a diagnostic: the rule's own `fix`, and a suppression comment; each one checked by re-scanning.

An agent applies a fix-it without reading it closely, so a fix-it is only marked `verified` when the edited
text was scanned again by ast-grep and (1) parses with no more ERROR nodes than before and (2) no longer
triggers that rule at that spot. `confidence` is derived from that check and from what else the edit did
(new diagnostics from other rules, deleting code, overlapping another fix), never a constant.

All fix-its of a scan are checked together: one ast-grep call per language over a batch of edited texts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sgtools import edits as edits_mod
from sgtools import languages
from sgtools.edits import LineIndex
from sgtools.errors import SgToolsError
from sgtools.settings import get_settings

# The rule id the scanner adds to every verification rule file: `kind: ERROR`, to count parse errors.
PARSE_RULE_ID = "_sgtools-parse-error"

# Languages without line comments where ast-grep honours a block comment (checked: html, css).
# JSON would parse a comment too, but no JSON consumer accepts one, so JSON gets no suppress fix-it;
# markdown's `<!-- -->` is not honoured by ast-grep.
BLOCK_COMMENTS: dict[str, tuple[str, str]] = {"html": ("<!--", " -->"), "css": ("/*", " */")}
_TITLE_WIDTH = 60

# Prior confidences, used when a fix-it could not be checked (verification caps reached).
UNCHECKED_FIX = 0.5
UNCHECKED_SUPPRESS = 0.3

BatchRunner = Callable[[str, Sequence[str]], list[list[dict[str, Any]]]]
# (language, text) -> how many MISSING tokens tree-sitter inserted to parse it, or None when it cannot tell.
MissingCounter = Callable[[str, str], int | None]


def comment_syntax(language: str) -> tuple[str, str] | None:
    """(prefix, suffix) of a comment ast-grep reads `ast-grep-ignore` from, or None."""
    prefix = languages.line_comment(language)
    if prefix is not None:
        return prefix, ""
    return BLOCK_COMMENTS.get(languages.canonical(language) or language)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _TITLE_WIDTH else flat[: _TITLE_WIDTH - 1] + "…"


def _edit(file: str | None, index: LineIndex, start: int, end: int, new_text: str) -> dict[str, Any]:
    return {"file": file, **index.span(start, end), "byteStart": start, "byteEnd": end, "newText": new_text}


def _fix_fixit(raw: Mapping[str, Any], diag: Mapping[str, Any], index: LineIndex) -> dict[str, Any] | None:
    if "replacement" not in raw:
        return None
    offsets = raw.get("replacementOffsets") or raw["range"]["byteOffset"]
    start, end = int(offsets["start"]), int(offsets["end"])
    new_text = str(raw["replacement"])
    old = index.data[start:end].decode("utf-8", "replace")
    if new_text == old:
        return None  # a fix that changes nothing is not a fix-it
    title = f"Delete {_short(old)}" if new_text == "" else f"Replace with {_short(new_text)}"
    return {"title": title, "kind": "fix", "confidence": UNCHECKED_FIX, "verified": False,
            "edits": [_edit(diag.get("file"), index, start, end, new_text)]}


def _ignore_pattern(prefix: str, suffix: str) -> re.Pattern[str]:
    return re.compile(
        r"^(?P<indent>[ \t]*)" + re.escape(prefix) + r"\s*ast-grep-ignore(?::\s*(?P<ids>[^\r\n]*?))?\s*"
        + re.escape(suffix.strip()) + r"\s*$"
    )


def _suppress_fixit(diag: Mapping[str, Any], index: LineIndex, language: str) -> dict[str, Any] | None:
    """`<comment> ast-grep-ignore: <rule>` on the line before the match, indented like the matched line.
    If that line already is a rule-specific ignore comment, the rule is added to it, because a new line
    in between would push the existing comment out of reach of the line it suppresses."""
    syntax = comment_syntax(language)
    if syntax is None:
        return None
    prefix, suffix = syntax
    rule_id = str(diag["ruleId"])
    data = index.data
    line_no = int(diag["line"])
    start = index.starts[line_no - 1]
    end = index.starts[line_no] if line_no < len(index.starts) else len(data)
    line = data[start:end].decode("utf-8", "replace")
    newline = "\r\n" if line.endswith("\r\n") or (not line.endswith("\n") and b"\r\n" in data) else "\n"
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    title = f"Suppress {rule_id} here with an ast-grep-ignore comment"
    if line_no > 1:
        prev_start = index.starts[line_no - 2]
        prev = data[prev_start:start].decode("utf-8", "replace").rstrip("\r\n")
        if prev.rstrip().endswith("\\"):
            return None  # a continued line: a comment line in between would end the statement
        m = _ignore_pattern(prefix, suffix).match(prev)
        if m is not None:
            ids = [i.strip() for i in (m.group("ids") or "").split(",") if i.strip()]
            if not ids or rule_id in ids:
                return None  # already suppressed; the match would not have been reported
            new_line = f"{m.group('indent')}{prefix} ast-grep-ignore: {', '.join([*ids, rule_id])}{suffix}"
            prev_end = prev_start + len(prev.encode("utf-8"))
            return {"title": title, "kind": "suppress", "confidence": UNCHECKED_SUPPRESS, "verified": False,
                    "edits": [_edit(diag.get("file"), index, prev_start, prev_end, new_line)]}
    new_text = f"{indent}{prefix} ast-grep-ignore: {rule_id}{suffix}{newline}"
    return {"title": title, "kind": "suppress", "confidence": UNCHECKED_SUPPRESS, "verified": False,
            "edits": [_edit(diag.get("file"), index, start, start, new_text)]}


def build_fixits(raw: Mapping[str, Any], diag: Mapping[str, Any], text: str, index: LineIndex,
                 language: str) -> list[dict[str, Any]]:
    """The unverified fix-its of one match (`text` is the scanned text, `index` its line index)."""
    out: list[dict[str, Any]] = []
    fix = _fix_fixit(raw, diag, index)
    if fix is not None:
        out.append(fix)
    suppress = _suppress_fixit(diag, index, language)
    if suppress is not None:
        out.append(suppress)
    return out


def mark_conflicts(diags: Sequence[dict[str, Any]]) -> None:
    """Give each `fix` fix-it whose edit overlaps another diagnostic's fix a `conflictsWith` list: both can
    be right alone, but not applied together (apply one, scan again)."""
    by_file: dict[Any, list[tuple[edits_mod.Span, dict[str, Any], dict[str, Any]]]] = {}
    for d in diags:
        for fx in d.get("fixits", []):
            if fx.get("kind") == "fix" and fx.get("edits"):
                by_file.setdefault(d.get("file"), []).append((edits_mod.to_span(fx["edits"][0]), fx, d))
    for items in by_file.values():
        items.sort(key=lambda it: it[0].start)
        for i, (span, fx, d) in enumerate(items):
            for other_span, other_fx, other_d in items[i + 1:]:
                if other_span.start > span.end:
                    break
                if span.overlaps(other_span):
                    fx.setdefault("conflictsWith", []).append(_ref(other_d))
                    other_fx.setdefault("conflictsWith", []).append(_ref(d))


def _ref(d: Mapping[str, Any]) -> dict[str, Any]:
    return {"ruleId": d["ruleId"], "line": d["line"], "column": d["column"]}


# ---- verification ---------------------------------------------------------------------------------------


@dataclass
class VerifyJob:
    """The fix-its of one scanned text. `baseline` is that text's matches under the verification rules when
    the caller already has them (snippet scans); otherwise the text is scanned in the same batch."""

    key: str
    text: str
    language: str
    diags: list[dict[str, Any]]
    rule_ids: frozenset[str] | None = None  # rules that apply to this file; None: every rule scanned
    baseline: list[dict[str, Any]] | None = None


@dataclass
class _Candidate:
    job: int
    fixit: dict[str, Any]
    diag: dict[str, Any]
    text_index: int = -1
    new_text: str = ""
    span: tuple[int, int, int] = (0, 0, 0)  # start, old end, new length (bytes)
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _byte_range(m: Mapping[str, Any]) -> tuple[int, int]:
    off = m["range"]["byteOffset"]
    return int(off["start"]), int(off["end"])


def _map_range(r: tuple[int, int], start: int, old_end: int, delta: int) -> tuple[int, int] | None:
    """Where a range of the old text lies after the edit, or None when the edit cut through it."""
    a, b = r
    if b <= start:
        return r
    if a >= old_end:
        return a + delta, b + delta
    if a <= start and b >= old_end:
        return a, b + delta
    return None


def _by_rule(matches: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    for m in matches:
        out.setdefault(str(m.get("ruleId")), []).append(_byte_range(m))
    return out


def _judge(cand: _Candidate, old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]],
           rule_ids: frozenset[str] | None) -> None:
    """What the re-scan of one edited text shows. Matches that the edit merely moved are told apart from new
    ones by mapping every old match through the edit; only unexplained matches count."""
    diag = cand.diag
    rule_id = str(diag["ruleId"])
    start, old_end, new_len = cand.span
    delta = new_len - (old_end - start)
    old_by, new_by = _by_rule(old), _by_rule(new)

    def leftovers(rid: str, drop: tuple[int, int] | None) -> list[tuple[int, int]]:
        olds = list(old_by.get(rid, []))
        if drop is not None and drop in olds:
            olds.remove(drop)
        mapped = Counter(m for m in (_map_range(r, start, old_end, delta) for r in olds) if m is not None)
        left: list[tuple[int, int]] = []
        for r in new_by.get(rid, []):
            if mapped[r] > 0:
                mapped[r] -= 1
            else:
                left.append(r)
        return left

    target = (int(diag["byteStart"]), int(diag["byteEnd"]))
    # "There": the edited bytes, and where the flagged code sits after the edit (a suppress comment moves it).
    spots = [(start, start + new_len)]
    moved = _map_range(target, start, old_end, delta)
    if moved is not None:
        spots.append(moved)
    same_rule_left = leftovers(rule_id, target)
    at_spot = [r for r in same_rule_left if any(r[0] <= hi and r[1] >= lo for lo, hi in spots)]
    others = sum(len(leftovers(rid, None)) for rid in new_by
                 if rid not in (rule_id, PARSE_RULE_ID) and (rule_ids is None or rid in rule_ids))
    cand.extra = {
        "checked": True,
        "parseErrorsBefore": len(old_by.get(PARSE_RULE_ID, [])),
        "parseErrorsAfter": len(new_by.get(PARSE_RULE_ID, [])),
        "stillFires": bool(at_spot),
        "newDiagnostics": others + len(same_rule_left) - len(at_spot),
        "_others": others,
        "_same": len(same_rule_left) - len(at_spot),
    }


def _finish(cand: _Candidate) -> None:
    """Set `verified`, `verification` and `confidence` from everything the checks found."""
    fx, info = cand.fixit, cand.extra
    parses = info["parseErrorsAfter"] <= info["parseErrorsBefore"]
    missing_worse = info.get("missingAfter") is not None and info["missingAfter"] > info["missingBefore"]
    parses = parses and not missing_worse
    verified = parses and not info["stillFires"]
    fx["verified"] = verified
    fx["verification"] = {k: v for k, v in info.items() if not k.startswith("_")}
    fx["confidence"] = _confidence(
        fx, verified=verified, parses=parses, still_fires=info["stillFires"],
        broken_before=info["parseErrorsBefore"] > 0 or bool(info.get("missingBefore")),
        new_other=info["_others"], new_same=info["_same"],
        missing_unchecked=fx.get("kind") == "fix" and info.get("missingAfter") is None,
    )


def _confidence(fx: Mapping[str, Any], *, verified: bool, parses: bool, still_fires: bool, broken_before: bool,
                new_other: int, new_same: int, missing_unchecked: bool = False) -> float:
    """How safe it is to apply this fix-it blindly, from what the re-scan showed."""
    suppress = fx.get("kind") == "suppress"
    if not parses:
        return 0.05 if suppress else 0.1
    if still_fires:
        return 0.15 if suppress else 0.25
    score = 0.6 if suppress else 0.95  # a suppression hides the problem; it never solves it
    edit = fx["edits"][0]
    if not suppress:
        if edit["newText"] == "":
            score -= 0.15  # deleting code is right for the rule, not always for the program
        if "\n" in edit["newText"] or edit["endLine"] != edit["line"]:
            score -= 0.05
    if new_other:
        score -= min(0.3, 0.1 * new_other)
    if new_same:
        score -= min(0.3, 0.1 * new_same)
    if broken_before:
        score -= 0.1  # the text already had parse errors, so "parses no worse" says less
    if fx.get("conflictsWith"):
        score -= 0.05
    if missing_unchecked:
        score -= 0.05  # tree-sitter's MISSING tokens could not be counted for this text
    return round(max(0.3 if verified else 0.05, min(1.0, score)), 2)


def mark_unchecked(diags: Sequence[dict[str, Any]], reason: str) -> None:
    """Record that fix-its were not verified (the caller did not ask, or a limit was reached)."""
    for d in diags:
        for fx in d.get("fixits", []):
            fx.setdefault("verification", {"checked": False, "reason": reason})


def verify_fixits(jobs: Sequence[VerifyJob], run_batch: BatchRunner,
                  count_missing: MissingCounter | None = None) -> None:
    """Check every fix-it of `jobs` in place: one `run_batch(language, texts)` call per language, which must
    scan each text with the rules that produced the diagnostics plus the `PARSE_RULE_ID` rule.
    Within the limits, `fix` fix-its are checked before `suppress` ones: they are what gets applied.

    ERROR nodes are counted by the batch; tree-sitter can also recover by inserting a MISSING token (a
    dropped `}` or `;`) with no ERROR node at all, which no rule can match. `count_missing` counts those for
    `fix` fix-its that passed the rest (a few engine calls, in parallel, up to `fixit_missing_check_max`)."""
    settings = get_settings()
    budget_count = settings.fixit_verify_max
    budget_bytes = settings.fixit_verify_max_bytes
    order = [(j, diag, fx) for kind in ("fix", "suppress") for j, job in enumerate(jobs) for diag in job.diags
             for fx in diag.get("fixits", []) if fx.get("kind") == kind]
    per_job: dict[int, list[_Candidate]] = {}
    for j, diag, fx in order:
        text = jobs[j].text
        if budget_count <= 0 or budget_bytes < len(text):
            fx["verification"] = {"checked": False, "reason": "verification limit reached"}
            continue
        cand = _Candidate(job=j, fixit=fx, diag=diag)
        try:
            cand.new_text = edits_mod.apply_edits(text, fx["edits"])
        except SgToolsError as exc:
            fx["verification"] = {"checked": False, "reason": exc.message}
            fx["confidence"] = 0.05
            continue
        e = fx["edits"][0]
        cand.span = (int(e["byteStart"]), int(e["byteEnd"]), len(str(e["newText"]).encode("utf-8")))
        budget_count -= 1
        budget_bytes -= len(cand.new_text)
        per_job.setdefault(j, []).append(cand)
    by_language: dict[str, tuple[list[str], list[_Candidate]]] = {}
    baselines: dict[int, int] = {}  # job index -> text index in its language batch
    for j, job_cands in per_job.items():
        job = jobs[j]
        texts, cands = by_language.setdefault(job.language, ([], []))
        if job.baseline is None:
            baselines[j] = len(texts)
            texts.append(job.text)
        for cand in job_cands:
            cand.text_index = len(texts)
            texts.append(cand.new_text)
        cands.extend(job_cands)
    judged: list[_Candidate] = []
    for language, (texts, cands) in by_language.items():
        results = run_batch(language, texts)
        for cand in cands:
            job = jobs[cand.job]
            old = job.baseline if job.baseline is not None else results[baselines[cand.job]]
            _judge(cand, old, results[cand.text_index], job.rule_ids)
            judged.append(cand)
    if count_missing is not None:
        _check_missing(jobs, judged, count_missing, settings.fixit_missing_check_max, settings.verify_workers)
    for cand in judged:
        _finish(cand)


def _check_missing(jobs: Sequence[VerifyJob], cands: Sequence[_Candidate], count_missing: MissingCounter,
                   limit: int, workers: int) -> None:
    todo = [c for c in cands if c.fixit.get("kind") == "fix" and c.extra["parseErrorsAfter"]
            <= c.extra["parseErrorsBefore"] and not c.extra["stillFires"]][:max(0, limit)]
    if not todo:
        return
    texts: dict[tuple[str, str], None] = {}
    for c in todo:
        texts[(jobs[c.job].language, jobs[c.job].text)] = None
        texts[(jobs[c.job].language, c.new_text)] = None
    keys = list(texts)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        counted = dict(zip(keys, pool.map(lambda k: count_missing(*k), keys), strict=True))
    for c in todo:
        before = counted[(jobs[c.job].language, jobs[c.job].text)]
        after = counted[(jobs[c.job].language, c.new_text)]
        if before is not None and after is not None:
            c.extra["missingBefore"] = before
            c.extra["missingAfter"] = after
