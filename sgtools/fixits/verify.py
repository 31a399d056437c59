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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sgtools.core import languages
from sgtools.core.errors import SgToolsError
from sgtools.core.settings import get_settings
from sgtools.edit import text as edits_mod
from sgtools.edit.text import LineIndex

# The rule id the scanner adds to every verification rule file: `kind: ERROR`, to count parse errors.
PARSE_RULE_ID = "_sgtools-parse-error"

# Languages without line comments where ast-grep honours a block comment (checked: html, css).
# JSON would parse a comment too, but no JSON consumer accepts one, so JSON gets no suppress fix-it;
# markdown's `<!-- -->` is not honoured by ast-grep.
BLOCK_COMMENTS: dict[str, tuple[str, str]] = {"html": ("<!--", " -->"), "css": ("/*", " */")}
_TITLE_WIDTH = 60
_BOM = "\ufeff".encode()

# Prior confidences, used when a fix-it could not be checked (verification caps reached).
UNCHECKED_FIX = 0.5
UNCHECKED_SUPPRESS = 0.3
LIMIT_REACHED = "verification limit reached"

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


def _fixit(title: str, kind: str, diag: Mapping[str, Any], index: LineIndex, start: int, end: int,
           new_text: str) -> dict[str, Any]:
    """An unchecked fix-it of one edit, with its kind's prior confidence until verification sets the real one."""
    edit = {"file": diag.get("file"), **index.span(start, end), "byteStart": start, "byteEnd": end,
            "newText": new_text}
    confidence = UNCHECKED_FIX if kind == "fix" else UNCHECKED_SUPPRESS
    return {"title": title, "kind": kind, "confidence": confidence, "verified": False, "edits": [edit]}


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
    return _fixit(title, "fix", diag, index, start, end, new_text)


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
    if start == 0 and data.startswith(_BOM):
        start = len(_BOM)  # the comment goes after a byte-order mark, never before it
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
            return _fixit(title, "suppress", diag, index, prev_start, prev_end, new_line)
    new_text = f"{indent}{prefix} ast-grep-ignore: {rule_id}{suffix}{newline}"
    return _fixit(title, "suppress", diag, index, start, start, new_text)


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
class _Member:
    """One fix-it under verification; its edit in the original text's byte coordinates."""

    job: int
    fixit: dict[str, Any]
    diag: dict[str, Any]
    span: edits_mod.Span
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def target(self) -> tuple[int, int]:
        return int(self.diag["byteStart"]), int(self.diag["byteEnd"])

    @property
    def new_len(self) -> int:
        return len(self.span.new_text.encode("utf-8"))


@dataclass
class _Text:
    """One edited copy of a job's text: a single fix-it, or several suppress fix-its that do not overlap (a
    file with fifty findings then costs one copy for its suppressions, not fifty); when a combined copy
    shows anything unexpected, its fix-its are checked one by one instead."""

    job: int
    members: list[_Member]
    new_text: str = ""
    index: int = -1


def _byte_range(m: Mapping[str, Any]) -> tuple[int, int]:
    off = m["range"]["byteOffset"]
    return int(off["start"]), int(off["end"])


def _map_range(r: tuple[int, int], start: int, old_end: int, delta: int) -> tuple[int, int] | None:
    """Where a range of the old text lies after one edit, or None when the edit cut through it."""
    a, b = r
    if b <= start:
        return r
    if a >= old_end:
        return a + delta, b + delta
    if a <= start and b >= old_end:
        return a, b + delta
    return None


def _map_through(r: tuple[int, int] | None, members_desc: Sequence[_Member]) -> tuple[int, int] | None:
    """Through several non-overlapping edits, last first, so earlier offsets stay valid at each step."""
    for m in members_desc:
        if r is None:
            return None
        r = _map_range(r, m.span.start, m.span.end, m.new_len - (m.span.end - m.span.start))
    return r


def _by_rule(matches: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    for m in matches:
        out.setdefault(str(m.get("ruleId")), []).append(_byte_range(m))
    return out


def _judge(text: _Text, old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]],
           rule_ids: frozenset[str] | None) -> bool:
    """Record what the re-scan of one edited copy shows in each member's `info`; False when a combined
    copy must be split. Matches that the edits merely moved are told apart from new ones by mapping every
    old match through the edits; only unexplained matches count."""
    members = sorted(text.members, key=lambda m: (m.span.start, m.span.end))
    desc = list(reversed(members))
    old_by, new_by = _by_rule(old), _by_rule(new)
    errors_before = len(old_by.get(PARSE_RULE_ID, []))
    errors_after = len(new_by.get(PARSE_RULE_ID, []))

    # "There", for each fix-it: its edited bytes, and where the flagged code sits after the edits (a suppress
    # comment moves it down a line).
    spots: list[list[tuple[int, int]]] = []
    shift = 0
    for m in members:
        lo = m.span.start + shift
        where = [(lo, lo + m.new_len)]
        moved = _map_through(m.target, desc)
        if moved is not None:
            where.append(moved)
        spots.append(where)
        shift += m.new_len - (m.span.end - m.span.start)

    def leftovers(rid: str) -> list[tuple[int, int]]:
        olds = list(old_by.get(rid, []))
        for m in members:
            if str(m.diag["ruleId"]) == rid and m.target in olds:
                olds.remove(m.target)
        mapped = Counter(r for r in (_map_through(o, desc) for o in olds) if r is not None)
        left: list[tuple[int, int]] = []
        for r in new_by.get(rid, []):
            if mapped[r] > 0:
                mapped[r] -= 1
            else:
                left.append(r)
        return left

    def hits(r: tuple[int, int], where: list[tuple[int, int]]) -> bool:
        return any(r[0] <= hi and r[1] >= lo for lo, hi in where)

    left_by = {rid: leftovers(rid) for rid in new_by
               if rid != PARSE_RULE_ID and (rule_ids is None or rid in rule_ids
                                             or any(str(m.diag["ruleId"]) == rid for m in members))}
    fires = [any(hits(r, where) for r in left_by.get(str(m.diag["ruleId"]), []))
             for m, where in zip(members, spots, strict=True)]
    unexplained = sum(1 for rid, left in left_by.items() for r in left
                      if not any(hits(r, where) for m, where in zip(members, spots, strict=True)
                                 if str(m.diag["ruleId"]) == rid))
    if len(members) > 1 and (errors_after > errors_before or unexplained or any(fires)):
        return False
    for m, fired in zip(members, fires, strict=True):
        rid = str(m.diag["ruleId"])
        same = sum(1 for r in left_by.get(rid, []) if not hits(r, spots[members.index(m)]))
        m.info = {"checked": True, "parseErrorsBefore": errors_before, "parseErrorsAfter": errors_after,
                  "stillFires": fired, "newDiagnostics": unexplained, "_same": same, "_others": unexplained - same}
    return True


def _finish(m: _Member) -> None:
    """Set `verified`, `verification` and `confidence` from everything the checks found."""
    fx, info = m.fixit, m.info
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
        missing_unchecked=fx.get("kind") == "fix" and info.get("missingAfter") is None
        and "missingCheck" not in info,
        severity=str(m.diag.get("severity", "")),
    )


def _confidence(fx: Mapping[str, Any], *, verified: bool, parses: bool, still_fires: bool, broken_before: bool,
                new_other: int, new_same: int, missing_unchecked: bool = False, severity: str = "") -> float:
    """How safe it is to apply this fix-it blindly, from what the re-scan showed."""
    suppress = fx.get("kind") == "suppress"
    if not parses:
        return 0.05 if suppress else 0.1
    if still_fires:
        return 0.15 if suppress else 0.25
    score = 0.6 if suppress else 0.95  # a suppression hides the problem; it never solves it
    edit = fx["edits"][0]
    if suppress:
        # Silencing an error is rarely the right call; silencing a hint often is.
        score += {"error": -0.15, "warning": -0.05, "info": 0.0, "hint": 0.05}.get(severity, 0.0)
    else:
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


def _unchecked(fx: dict[str, Any], reason: str, *, bad_edit: bool = False) -> None:
    """Record why a fix-it was not checked; one whose edit cannot even be applied gets the lowest confidence."""
    fx["verification"] = {"checked": False, "reason": reason}
    if bad_edit:
        fx["confidence"] = 0.05


def mark_unchecked(diags: Sequence[dict[str, Any]], reason: str) -> None:
    """Record that fix-its were not verified (the caller did not ask, or a limit was reached)."""
    for d in diags:
        for fx in d.get("fixits", []):
            fx.setdefault("verification", {"checked": False, "reason": reason})


def _groups(members: Sequence[_Member]) -> list[list[_Member]]:
    """Members in copies of non-overlapping edits (first fit, by position)."""
    groups: list[list[_Member]] = []
    for m in sorted(members, key=lambda m: (m.span.start, m.span.end)):
        for g in groups:
            if not m.span.overlaps(g[-1].span) and not m.span.same_as(g[-1].span):
                g.append(m)
                break
        else:
            groups.append([m])
    return groups


_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))
_TERMINATORS = ";,:"
_DANGLING = re.compile(r"[^\w\s)\]}\"'`]\s*$")


def _may_drop_token(text: str, span: edits_mod.Span) -> bool:
    """Whether a fix could make tree-sitter insert a MISSING token. That happens when a token the grammar
    requires goes away: a closing bracket (the edit changes the bracket balance), a terminator or separator
    (fewer `;`, `,` or `:`), or an operand (the new text ends on an operator). Other fixes are not counted,
    since each count is one more engine call on the hot path."""
    old = text.encode("utf-8")[span.start:span.end].decode("utf-8", "replace")
    new = span.new_text
    if any(old.count(o) - old.count(c) != new.count(o) - new.count(c) for o, c in _PAIRS):
        return True
    if any(new.count(t) < old.count(t) for t in _TERMINATORS):
        return True
    return bool(_DANGLING.search(new))


def verify_fixits(jobs: Sequence[VerifyJob], run_batch: BatchRunner,
                  count_missing: MissingCounter | None = None) -> None:
    """Check every fix-it of `jobs` in place: one `run_batch(language, texts)` call per language, which must
    scan each text with the rules that produced the diagnostics plus the `PARSE_RULE_ID` rule (and one more
    per language when a combined copy has to be split). Within the limits, `fix` fix-its are checked before
    `suppress` ones: they are what gets applied.

    ERROR nodes are counted by the batch; tree-sitter can also recover by inserting a MISSING token (a
    dropped `}` or `;`) with no ERROR node at all, which no rule can match. `count_missing` counts those for
    `fix` fix-its (engine calls on threads, alongside the batch, up to `fixit_missing_check_max`)."""
    settings = get_settings()
    budget = {"count": settings.fixit_verify_max, "bytes": settings.fixit_verify_max_bytes}
    chosen: dict[tuple[int, str], list[_Member]] = {}
    for kind in ("fix", "suppress"):
        for j, job in enumerate(jobs):
            for diag in job.diags:
                for fx in diag.get("fixits", []):
                    if fx.get("kind") != kind:
                        continue
                    if budget["count"] <= 0:
                        _unchecked(fx, LIMIT_REACHED)
                        continue
                    try:
                        span = edits_mod.to_span(fx["edits"][0])
                    except SgToolsError as exc:
                        _unchecked(fx, exc.message, bad_edit=True)
                        continue
                    budget["count"] -= 1
                    chosen.setdefault((j, kind), []).append(_Member(j, fx, diag, span))

    def make_texts(groups: Iterable[tuple[int, list[_Member]]]) -> list[_Text]:
        out: list[_Text] = []
        for j, group in groups:
            text = jobs[j].text
            if budget["bytes"] < len(text):
                for m in group:
                    _unchecked(m.fixit, LIMIT_REACHED)
                continue
            try:
                new_text = edits_mod.apply_edits(text, [m.fixit["edits"][0] for m in group])
            except SgToolsError as exc:
                if len(group) > 1:
                    out.extend(make_texts((j, [m]) for m in group))
                    continue
                _unchecked(group[0].fixit, exc.message, bad_edit=True)
                continue
            budget["bytes"] -= len(new_text)
            out.append(_Text(j, group, new_text))
        return out

    # `fix` fix-its are what gets applied, and a rule's match can depend on context another fix changes
    # (`inside`, `has`, `follows`), so each is checked alone. Suppress comments only add comment lines: they
    # are checked together per file, which keeps a file with many findings at a couple of copies.
    texts = make_texts((j, g) for (j, kind), members in chosen.items()
                       for g in (_groups(members) if kind == "suppress" else [[m] for m in members]))
    # MISSING-token counts run on their own threads while the batch scans (they only read the texts); each
    # `fix` copy is one edit alone, so its count belongs to that fix-it.
    from concurrent.futures import Future, ThreadPoolExecutor  # ~7 ms to import: not on a path scan without fixes

    pool = ThreadPoolExecutor(max_workers=max(1, settings.verify_workers)) if count_missing is not None else None
    missing: dict[int, tuple[Future[int | None], Future[int | None]]] = {}
    no_token_lost: set[int] = set()
    if pool is not None and count_missing is not None:
        originals: dict[int, Future[int | None]] = {}
        fix_texts = [t for t in texts if t.members[0].fixit.get("kind") == "fix"]
        for t in fix_texts:
            if not _may_drop_token(jobs[t.job].text, t.members[0].span):
                no_token_lost.add(id(t.members[0]))
        fix_texts = [t for t in fix_texts if id(t.members[0]) not in no_token_lost]
        for t in fix_texts[:max(0, settings.fixit_missing_check_max)]:
            job = jobs[t.job]
            if t.job not in originals:
                originals[t.job] = pool.submit(count_missing, job.language, job.text)
            missing[id(t.members[0])] = (originals[t.job], pool.submit(count_missing, job.language, t.new_text))
    try:
        done = _run_rounds(jobs, texts, run_batch, make_texts)
        for m in done:
            counts = missing.get(id(m))
            if counts is not None and not m.info["stillFires"] and \
                    m.info["parseErrorsAfter"] <= m.info["parseErrorsBefore"]:
                before, after = counts[0].result(), counts[1].result()
                if before is not None and after is not None:
                    m.info["missingBefore"] = before
                    m.info["missingAfter"] = after
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    for m in done:
        if id(m) in no_token_lost:
            m.info["missingCheck"] = "not needed: the fix keeps brackets, terminators and operands"
        _finish(m)


def _run_rounds(jobs: Sequence[VerifyJob], texts: list[_Text], run_batch: BatchRunner,
                make_texts: Callable[[Iterable[tuple[int, list[_Member]]]], list[_Text]]) -> list[_Member]:
    """Scan the copies (one call per language), judge them, and split combined copies that need it into
    single checks (one more call per language)."""
    baselines: dict[int, list[dict[str, Any]]] = {
        j: job.baseline for j, job in enumerate(jobs) if job.baseline is not None}
    done: list[_Member] = []
    retry: list[_Text] = []
    round_texts = texts
    for first in (True, False):
        if not first:
            round_texts = make_texts((t.job, [m]) for t in retry for m in t.members)
            retry = []
        by_language: dict[str, list[str]] = {}
        base_index: dict[int, int] = {}
        for t in round_texts:
            batch = by_language.setdefault(jobs[t.job].language, [])
            if t.job not in baselines and t.job not in base_index:
                base_index[t.job] = len(batch)
                batch.append(jobs[t.job].text)
            t.index = len(batch)
            batch.append(t.new_text)
        results: dict[str, list[list[dict[str, Any]]]] = {}
        for lang, batch in by_language.items():
            try:
                results[lang] = run_batch(lang, batch)
            except SgToolsError as exc:
                # The findings stand without verification; a failed re-scan must not fail the scan.
                for t in round_texts:
                    if jobs[t.job].language == lang:
                        for m in t.members:
                            _unchecked(m.fixit, f"the verification scan failed: {exc.message}")
        for j, i in base_index.items():
            if jobs[j].language in results:
                baselines[j] = results[jobs[j].language][i]
        for t in round_texts:
            job = jobs[t.job]
            if job.language not in results:
                continue
            if _judge(t, baselines[t.job], results[job.language][t.index], job.rule_ids):
                done.extend(t.members)
            else:
                retry.append(t)
        if not retry:
            break
    return done
