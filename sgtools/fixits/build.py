"""The fix-its of one finding, unchecked (the rule's own `fix`), and apart from them its `suppress`: the
ast-grep-ignore comment that would silence it.

A suppression is never a fix-it: it hides the problem, so it is never verified, never `safe`, and never applied
by apply_fixes or `scan --fix`; it is there for when the developer says the finding is wrong. fixits/verify.py
checks each fix-it by re-scanning; until then a fix-it carries the prior confidence.
"""

import functools
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sgtools.core import languages
from sgtools.edit.text import LineIndex, Span, to_span

if TYPE_CHECKING:  # the shapes only: the CLI's scan never loads these TypedDicts (the server's schemas do)
    from sgtools.contracts.fixits import Edit, Fixit, FixitRef, Suppress
    from sgtools.contracts.scan import Diagnostic
    from sgtools.engine.match import AstGrepMatch

# Languages without line comments where ast-grep honours a block comment (checked: html, css).
# JSON would parse a comment too, but no JSON consumer accepts one, so a JSON finding has no `suppress`;
# markdown's `<!-- -->` is not honoured by ast-grep.
BLOCK_COMMENTS: dict[str, tuple[str, str]] = {"html": ("<!--", " -->"), "css": ("/*", " */")}
_TITLE_WIDTH = 60
_BOM = "\ufeff".encode()

# The prior confidence, used when a fix-it could not be checked (verification caps reached).
UNCHECKED_FIX = 0.5


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


def _fixit(title: str, diag: Mapping[str, Any], index: LineIndex, start: int, end: int, new_text: str) -> "Fixit":
    """An unchecked fix-it of one edit, with the prior confidence until verification sets the real one."""
    edit: Edit = {"file": diag.get("file"), **index.span(start, end), "byteStart": start, "byteEnd": end,
                  "newText": new_text}
    return {"title": title, "kind": "fix", "confidence": UNCHECKED_FIX, "verified": False, "edits": [edit]}


def _fix_fixit(raw: "AstGrepMatch", diag: Mapping[str, Any], index: LineIndex) -> "Fixit | None":
    if "replacement" not in raw:
        return None
    offsets = raw.get("replacementOffsets") or raw["range"]["byteOffset"]
    start, end = int(offsets["start"]), int(offsets["end"])
    new_text = str(raw["replacement"])
    old = index.data[start:end].decode("utf-8", "replace")
    if new_text == old:
        return None  # a fix that changes nothing is not a fix-it
    title = f"Delete {_short(old)}" if new_text == "" else f"Replace with {_short(new_text)}"
    return _fixit(title, diag, index, start, end, new_text)


@functools.lru_cache(maxsize=128)
def _ignore_pattern(prefix: str, suffix: str) -> re.Pattern[str]:
    return re.compile(
        r"^(?P<indent>[ \t]*)" + re.escape(prefix) + r"\s*ast-grep-ignore(?::\s*(?P<ids>[^\r\n]*?))?\s*"
        + re.escape(suffix.strip()) + r"\s*$"
    )


class _Line:
    """What a suppression comment above one line needs to know of it, the same for every finding on it."""

    __slots__ = ("continued", "lead", "prev", "suffix")

    def __init__(self, lead: str, suffix: str, prev: str | None, continued: bool) -> None:
        self.lead = lead  # the new comment's indentation and comment prefix
        self.suffix = suffix  # the comment's suffix (block comments)
        self.prev = prev  # the line above when it is an ast-grep-ignore comment, else None
        self.continued = continued  # the line above ends in a backslash: a comment line between would end it


def _line(index: LineIndex, line_no: int, prefix: str, suffix: str) -> _Line:
    data = index.data
    start = index.starts[line_no - 1]
    end = index.starts[line_no] if line_no < len(index.starts) else len(data)
    if start == 0 and data.startswith(_BOM):
        start = len(_BOM)
    line = data[start:end].decode("utf-8", "replace")
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    prev, continued = None, False
    if line_no > 1:
        above = data[index.starts[line_no - 2]:start].decode("utf-8", "replace").rstrip("\r\n")
        continued = above.rstrip().endswith("\\")
        prev = above if "ast-grep-ignore" in above else None  # most lines hold none: the regex is spared
    return _Line(f"{indent}{prefix} ast-grep-ignore: ", suffix, prev, continued)


def suppression(diag: Mapping[str, Any], index: LineIndex, language: str) -> "Suppress | None":
    """`{line, comment}`: the `<comment> ast-grep-ignore: <rule>` line to insert as line `line` (above the match,
    indented like the matched line, which moves down one line), or None where no comment can silence it. If the
    line above already is a rule-specific ignore comment, the rule is added to it instead (`replace: true`: the
    comment replaces line `line`), because a new line in between would push the existing comment out of reach.
    What the lines say is worked out once per line (`index.memo`): a dense line holds several findings."""
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
    m = _ignore_pattern(prefix, suffix).match(at.prev) if at.prev is not None else None
    if m is not None:
        ids = [i.strip() for i in (m.group("ids") or "").split(",") if i.strip()]
        if not ids or rule_id in ids:
            return None  # already suppressed; the match would not have been reported
        comment = f"{m.group('indent')}{prefix} ast-grep-ignore: {', '.join([*ids, rule_id])}{suffix}"
        return {"line": line_no - 1, "comment": comment, "replace": True}
    return {"line": line_no, "comment": f"{at.lead}{rule_id}{at.suffix}"}


def build_fixits(raw: "AstGrepMatch", diag: Mapping[str, Any], index: LineIndex) -> "list[Fixit]":
    """The unverified fix-its of one match (`index` is the scanned text's line index): the rule's fix, if any."""
    fix = _fix_fixit(raw, diag, index)
    return [] if fix is None else [fix]


def mark_conflicts(diags: "Sequence[Diagnostic]") -> None:
    """Give each `fix` fix-it whose edit overlaps another diagnostic's fix a `conflictsWith` list: both can
    be right alone, but not applied together (apply one, scan again)."""
    by_file: dict[str | None, list[tuple[Span, Fixit, Diagnostic]]] = {}
    for d in diags:
        for fx in d.get("fixits", []):
            if fx.get("edits"):
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


def with_suppression(text: str, quiet: "Suppress") -> str:
    """`text` with a finding's `suppress` comment written in (what the developer would do by hand; no fix
    command does it): inserted as line `line`, or replacing that line, in the text's own newline style."""
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if "\r\n" in text else "\n"
    at = quiet["line"] - 1
    bom = "\ufeff" if at == 0 and text.startswith("\ufeff") else ""
    if quiet.get("replace"):
        old = lines[at]
        lines[at] = bom + quiet["comment"] + old[len(old.rstrip("\r\n")):]
    else:
        if bom:
            lines[0] = lines[0][1:]
        lines.insert(at, bom + quiet["comment"] + newline)
    return "".join(lines)
