"""The fix-its of one finding, unchecked: the rule's own `fix`, and a suppression comment.

fixits/verify.py then checks each by re-scanning; until then a fix-it carries its kind's prior confidence.
"""

import functools
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from sgtools.contracts.common import Position
from sgtools.core import languages
from sgtools.edit.text import LineIndex, Span, to_span

if TYPE_CHECKING:  # the shapes only: the CLI's scan never loads these TypedDicts (the server's schemas do)
    from sgtools.contracts.fixits import Edit, Fixit, FixitRef
    from sgtools.contracts.scan import Diagnostic

# Languages without line comments where ast-grep honours a block comment (checked: html, css).
# JSON would parse a comment too, but no JSON consumer accepts one, so JSON gets no suppress fix-it;
# markdown's `<!-- -->` is not honoured by ast-grep.
BLOCK_COMMENTS: dict[str, tuple[str, str]] = {"html": ("<!--", " -->"), "css": ("/*", " */")}
_TITLE_WIDTH = 60
_BOM = "\ufeff".encode()

# Prior confidences, used when a fix-it could not be checked (verification caps reached).
UNCHECKED_FIX = 0.5
UNCHECKED_SUPPRESS = 0.3


def mark_unchecked(diags: "Sequence[Diagnostic]", reason: str) -> None:
    """Record that fix-its were not verified (the caller did not ask, or a limit was reached).
    Here, not in fixits/verify.py: a scan that verifies nothing never imports the verifier."""
    for d in diags:
        for fx in d.get("fixits", []):
            fx.setdefault("verification", {"checked": False, "reason": reason})


@functools.lru_cache(maxsize=128)  # asked once per finding: a dense scan has tens of thousands
def comment_syntax(language: str) -> tuple[str, str] | None:
    """(prefix, suffix) of a comment ast-grep reads `ast-grep-ignore` from, or None."""
    prefix = languages.line_comment(language)
    if prefix is not None:
        return prefix, ""
    return BLOCK_COMMENTS.get(languages.canonical(language) or language)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _TITLE_WIDTH else flat[: _TITLE_WIDTH - 1] + "…"


def _fixit(title: str, kind: Literal["fix", "suppress"], diag: Mapping[str, Any], index: LineIndex, start: int,
           end: int, new_text: str, span: Position | None = None) -> "Fixit":
    """An unchecked fix-it of one edit, with its kind's prior confidence until verification sets the real one.
    `span` is the edit's position when the caller already knows it."""
    edit: Edit = {"file": diag.get("file"), **(span or index.span(start, end)), "byteStart": start, "byteEnd": end,
                  "newText": new_text}
    confidence = UNCHECKED_FIX if kind == "fix" else UNCHECKED_SUPPRESS
    return {"title": title, "kind": kind, "confidence": confidence, "verified": False, "edits": [edit]}


def _fix_fixit(raw: Mapping[str, Any], diag: Mapping[str, Any], index: LineIndex) -> "Fixit | None":
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


@functools.lru_cache(maxsize=128)
def _ignore_pattern(prefix: str, suffix: str) -> re.Pattern[str]:
    return re.compile(
        r"^(?P<indent>[ \t]*)" + re.escape(prefix) + r"\s*ast-grep-ignore(?::\s*(?P<ids>[^\r\n]*?))?\s*"
        + re.escape(suffix.strip()) + r"\s*$"
    )


class _Line:
    """What a suppression comment above one line needs to know of it, the same for every finding on it."""

    __slots__ = ("continued", "lead", "prev", "prev_start", "span", "start", "tail")

    def __init__(self, start: int, lead: str, tail: str, prev_start: int, prev: str | None, continued: bool,
                 span: Position) -> None:
        self.start = start  # where a new comment line goes (after a byte-order mark, never before it)
        self.lead = lead  # the new comment's indentation and comment prefix
        self.tail = tail  # the comment's suffix and the file's newline
        self.prev_start = prev_start
        self.prev = prev  # the line above when it is an ast-grep-ignore comment, else None
        self.continued = continued  # the line above ends in a backslash: a comment line between would end it
        self.span = span  # the position of a new comment line's (empty) edit


def _line(index: LineIndex, line_no: int, prefix: str, suffix: str) -> _Line:
    data = index.data
    start = index.starts[line_no - 1]
    end = index.starts[line_no] if line_no < len(index.starts) else len(data)
    if start == 0 and data.startswith(_BOM):
        start = len(_BOM)
    line = data[start:end].decode("utf-8", "replace")
    newline = "\r\n" if line.endswith("\r\n") or (not line.endswith("\n") and b"\r\n" in data) else "\n"
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    prev_start, prev, continued = start, None, False
    if line_no > 1:
        prev_start = index.starts[line_no - 2]
        above = data[prev_start:start].decode("utf-8", "replace").rstrip("\r\n")
        continued = above.rstrip().endswith("\\")
        prev = above if "ast-grep-ignore" in above else None  # most lines hold none: the regex is spared
    return _Line(start, f"{indent}{prefix} ast-grep-ignore: ", f"{suffix}{newline}", prev_start, prev, continued,
                 index.span(start, start))


def _suppress_fixit(diag: Mapping[str, Any], index: LineIndex, language: str) -> "Fixit | None":
    """`<comment> ast-grep-ignore: <rule>` on the line before the match, indented like the matched line.
    If that line already is a rule-specific ignore comment, the rule is added to it, because a new line
    in between would push the existing comment out of reach of the line it suppresses. What the lines say is
    worked out once per line (`index.memo`): a dense line holds several findings."""
    syntax = comment_syntax(language)
    if syntax is None:
        return None
    prefix, suffix = syntax
    rule_id = str(diag["ruleId"])
    line_no = int(diag["line"])
    key = ("suppress", line_no, prefix, suffix)
    at = index.memo.get(key)
    if at is None:
        at = index.memo[key] = _line(index, line_no, prefix, suffix)
    if at.continued:
        return None
    title = f"Suppress {rule_id} here with an ast-grep-ignore comment"
    m = _ignore_pattern(prefix, suffix).match(at.prev) if at.prev is not None else None
    if m is not None and at.prev is not None:
        ids = [i.strip() for i in (m.group("ids") or "").split(",") if i.strip()]
        if not ids or rule_id in ids:
            return None  # already suppressed; the match would not have been reported
        new_line = f"{m.group('indent')}{prefix} ast-grep-ignore: {', '.join([*ids, rule_id])}{suffix}"
        prev_end = at.prev_start + len(at.prev.encode("utf-8"))
        return _fixit(title, "suppress", diag, index, at.prev_start, prev_end, new_line)
    return _fixit(title, "suppress", diag, index, at.start, at.start, f"{at.lead}{rule_id}{at.tail}", at.span)


def build_fixits(raw: Mapping[str, Any], diag: Mapping[str, Any], text: str, index: LineIndex,
                 language: str, *, suppress: bool = True) -> "list[Fixit]":
    """The unverified fix-its of one match (`text` is the scanned text, `index` its line index); `suppress=False`
    leaves out the suppression comment, for output that never shows it."""
    out: list[Fixit] = []
    fix = _fix_fixit(raw, diag, index)
    if fix is not None:
        out.append(fix)
    if not suppress:
        return out
    suppress_fixit = _suppress_fixit(diag, index, language)
    if suppress_fixit is not None:
        out.append(suppress_fixit)
    return out


def mark_conflicts(diags: "Sequence[Diagnostic]") -> None:
    """Give each `fix` fix-it whose edit overlaps another diagnostic's fix a `conflictsWith` list: both can
    be right alone, but not applied together (apply one, scan again)."""
    by_file: dict[str | None, list[tuple[Span, Fixit, Diagnostic]]] = {}
    for d in diags:
        for fx in d.get("fixits", []):
            if fx.get("kind") == "fix" and fx.get("edits"):
                by_file.setdefault(d.get("file"), []).append((to_span(fx["edits"][0]), fx, d))
    for items in by_file.values():
        items.sort(key=lambda it: it[0].start)
        for i, (span, fx, d) in enumerate(items):
            for other_span, other_fx, other_d in items[i + 1:]:
                if other_span.start > span.end:
                    break
                if span.overlaps(other_span):
                    fx.setdefault("conflictsWith", []).append(_ref(other_d))
                    other_fx.setdefault("conflictsWith", []).append(_ref(d))


def _ref(d: "Diagnostic") -> "FixitRef":
    return {"ruleId": d["ruleId"], "line": d["line"], "column": d["column"]}
