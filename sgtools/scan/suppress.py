"""Equivalent suppressions: a line the team already silenced for another linter's same check stays silent here.

A rule names the same check in established linters with `metadata.equivalents` (each as that linter's
suppression comment spells it: `B001`, `eval-used`, `SC2086`, `no-eval`, `gosec`, `clippy::unwrap_used`,
`Security/Eval`, `cert-err33-c`). An inline suppression naming one of them suppresses the finding too:

- `# noqa: B001` (same line; a bare `# noqa` too), `# pylint: disable=eval-used` (same line) or
  `# pylint: disable-next=...` (line above);
- `# shellcheck disable=SC2086` above a command (all its lines), a function or compound command (its body), or
  right after the shebang (the whole file);
- `// eslint-disable-line no-eval` (same line), `// eslint-disable-next-line no-eval` (line above; bare too),
  `/* eslint-disable no-eval */` up to `/* eslint-enable no-eval */` (or the end of the file);
- `//nolint:gosec` (same line; a bare `//nolint` too);
- `#[allow(clippy::unwrap_used)]` on the enclosing item, `#![allow(...)]` for the whole file;
- `# rubocop:disable Security/Eval` (same line, or a region until `# rubocop:enable`);
- `// NOLINT(cert-err33-c)` (same line), `// NOLINTNEXTLINE(...)` (line above); bare forms too, globs allowed;
- `# pylint: disable=...` on a line of its own: the rest of its block;
- C# `#pragma warning disable CA2100` ... `restore`; Java `@SuppressWarnings("...")`, Kotlin `@Suppress("...")` on
  the enclosing declaration; `// phpcs:ignore Squiz.PHP.Eval` (line or line above), `phpcs:disable` ... `enable`.

Suppressed findings are counted per rule (`suppressed` in results), never silently lost. On by default; a
project turns it off with `equivalentSuppressions: false` in sgconfig.yml.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Final

from sgtools.core.lazyre import LazyRe

if TYPE_CHECKING:
    from sgtools.project.config import ProjectConfig
    from sgtools.rules.ruleset import Rule

CONFIG_KEY: Final = "equivalentSuppressions"
BLANKET: Final = "*"  # a suppression that names no check silences every check on its line

_SPLIT = LazyRe(r"[\s,]+")
# (regex, where it applies): "same" = the finding's line, "above" = the line before it.
_SAME_LINE: Final = (
    LazyRe(r"#\s*noqa(?::\s*(?P<c>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE),
    LazyRe(r"#\s*pylint:\s*disable=(?P<c>[\w\-, ]+)"),
    LazyRe(r"//\s*eslint-disable-line(?:\s+(?P<c>[\w\-/@, ]+?))?\s*(?:--.*)?(?:\*/)?$"),
    LazyRe(r"/\*\s*eslint-disable-line(?:\s+(?P<c>[\w\-/@, ]+?))?\s*(?:--.*)?\*/"),
    LazyRe(r"//\s*nolint(?::(?P<c>[\w\-,]+))?"),
    LazyRe(r"#\s*rubocop:\s*(?:disable|todo)\s+(?P<c>[\w/, ]+)"),
    LazyRe(r"//\s*NOLINT(?:\((?P<c>[^)]*)\))?(?!NEXTLINE|BEGIN|END)"),
    LazyRe(r"(?://|#|/\*)\s*phpcs:ignore\b(?P<c>[^\-*]*)"),
)
_LINE_ABOVE: Final = (
    LazyRe(r"#\s*pylint:\s*disable-next=(?P<c>[\w\-, ]+)"),
    LazyRe(r"//\s*eslint-disable-next-line(?:\s+(?P<c>[\w\-/@, ]+?))?\s*(?:--.*)?$"),
    LazyRe(r"/\*\s*eslint-disable-next-line(?:\s+(?P<c>[\w\-/@, ]+?))?\s*(?:--.*)?\*/"),
    LazyRe(r"//\s*NOLINTNEXTLINE(?:\((?P<c>[^)]*)\))?"),
    LazyRe(r"^\s*(?://|#|/\*)\s*phpcs:ignore\b(?P<c>[^\-*]*)"),
)
_SHELLCHECK: Final = LazyRe(r"^\s*#\s*shellcheck\s+disable=(?P<c>[\w,\- ]+)")
_RUBOCOP_OFF: Final = LazyRe(r"^\s*#\s*rubocop:\s*disable\s+(?P<c>[\w/, ]+)")
_RUBOCOP_ON: Final = LazyRe(r"^\s*#\s*rubocop:\s*enable\s+(?P<c>[\w/, ]+)")
_ESLINT_OFF: Final = LazyRe(r"^\s*/\*\s*eslint-disable(?:\s+(?P<c>[\w\-/@, ]+?))?\s*(?:--.*)?\*/")
_ESLINT_ON: Final = LazyRe(r"^\s*/\*\s*eslint-enable(?:\s+(?P<c>[\w\-/@, ]+?))?\s*(?:--.*)?\*/")
_ALLOW: Final = LazyRe(r"^\s*#\[allow\((?P<c>[^\]]*)\)\]")
_ALLOW_FILE: Final = LazyRe(r"#!\[allow\((?P<c>[^\]]*)\)\]")
# Java @SuppressWarnings("x") / @SuppressWarnings({"x", "y"}), Kotlin @Suppress("x"): on the enclosing declaration
_SUPPRESS_ANNOTATION: Final = LazyRe(r"@(?:java\.lang\.)?Suppress(?:Warnings)?\(\s*(?:value\s*=\s*)?[{\[]?"
                                         r"(?P<c>[^)}\]]*)")
_PYLINT_OFF: Final = LazyRe(r"^\s*#\s*pylint:\s*disable=(?P<c>[\w\-, ]+)")
_PYLINT_ON: Final = LazyRe(r"^\s*#\s*pylint:\s*enable=(?P<c>[\w\-, ]+)")
_PRAGMA_OFF: Final = LazyRe(r"^\s*#pragma\s+warning\s+disable\b(?P<c>[^/]*)")
_PRAGMA_ON: Final = LazyRe(r"^\s*#pragma\s+warning\s+restore\b(?P<c>[^/]*)")
_PHPCS_OFF: Final = LazyRe(r"^\s*(?://|#|/\*)\s*phpcs:disable\b(?P<c>[^\-*]*)")
_PHPCS_ON: Final = LazyRe(r"^\s*(?://|#|/\*)\s*phpcs:enable\b(?P<c>[^\-*]*)")
# (marker, off, on) comment pairs that silence the lines between them; the marker is text each regex needs
_REGIONS: Final = (("rubocop:", _RUBOCOP_OFF, _RUBOCOP_ON), ("eslint-", _ESLINT_OFF, _ESLINT_ON),
                   ("#pragma", _PRAGMA_OFF, _PRAGMA_ON), ("phpcs:", _PHPCS_OFF, _PHPCS_ON))
# a shell line that goes on in the next one, and lines that close a block rather than open one
_SH_CONTINUES: Final = ("\\", "|", "&&", "||")
_SH_CLOSERS: Final = ("fi", "done", "}", "esac", ";;", "else", "then", "do")
# a line that goes on a declaration begun above it: `) -> T {`, `where`, `{`, `throws X {`
_CONTINUES: Final = (")", "]", ">", "{", "where", "->", "throws", ":")


def enabled(cfg: ProjectConfig | None) -> bool:
    """On unless sgconfig.yml says `equivalentSuppressions: false`."""
    return cfg is None or cfg.raw.get(CONFIG_KEY, True) is not False


def equivalents(rule: Rule | None) -> tuple[str, ...]:
    """The rule's `metadata.equivalents`, as strings (anything else is ignored)."""
    meta = rule.data.get("metadata") if rule is not None else None
    values = meta.get("equivalents") if isinstance(meta, Mapping) else None
    if not isinstance(values, list):
        return ()
    return tuple(str(v).strip() for v in values if isinstance(v, str | int) and str(v).strip())


def _names(group: str | None) -> list[str]:
    if group is None or not group.strip(" \t\"'"):
        return [BLANKET]
    return [n.strip("\"'") for n in _SPLIT.split(group.strip()) if n.strip("\"'")]


def _same(a: str, b: str) -> bool:
    a, b = a.lower().removeprefix("clippy::"), b.lower().removeprefix("clippy::")
    # clang-tidy allows globs such as bugprone-*; phpcs names a standard or category for all its sniffs, or one
    # error code of a sniff (`WordPress.DB.PreparedSQL.NotPrepared` of the sniff `WordPress.DB.PreparedSQL`)
    return a == b or fnmatchcase(b, a) or ("." in b and b.startswith(a + ".")) or (
        b.count(".") == 2 and a.rpartition(".")[0] == b)


def _names_any(named: Sequence[str], checks: Sequence[str]) -> bool:
    return any(n == BLANKET or any(_same(n, c) for c in checks) for n in named)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _annotated(lines: Sequence[str], row: int, checks: Sequence[str], rx: LazyRe) -> bool:
    """An attribute/annotation (`rx`) right above line `row` (0-based), or above or on the first line of a
    declaration enclosing it. Enclosing declarations are found by indentation; one whose signature spans
    lines (`fn a(` ... `) -> T {`) counts from its first line."""
    limit, attached, continued = _indent(lines[row]), True, False  # annotations right above the line apply
    for line in reversed(lines[:row]):
        text = line.strip()
        if not text:
            continue
        if not text.startswith(("#[", "//", "@")):
            indent = _indent(line)
            if continued and indent >= limit:
                # inside a signature spanning lines: its parameter lines, then its first line
                continued, attached = indent > limit or text.startswith(_CONTINUES), True
            else:
                attached = indent < limit  # a line less indented is the header of an item enclosing the finding
                limit = min(limit, indent)
                continued = attached and text.startswith(_CONTINUES)
        m = rx.search(line)
        if attached and m and _names_any(_names(m.group("c")), checks):
            return True
    return False


def _allowed_by_attribute(lines: Sequence[str], row: int, checks: Sequence[str]) -> bool:
    """Rust `#[allow(...)]` on the line's item or an enclosing one, or `#![allow(...)]` anywhere in the file."""
    if any(_names_any(_names(m.group("c")), checks) for line in lines for m in _ALLOW_FILE.finditer(line)):
        return True
    return _annotated(lines, row, checks, _ALLOW)


def _pylint_scope(lines: Sequence[str], row: int, checks: Sequence[str]) -> bool:
    """`# pylint: disable=x` on a line of its own: from there to the end of its block (lines indented at least
    as much), or to `# pylint: enable=x`."""
    scope: int | None = None  # the indentation of the disabling comment while it applies
    for line in lines[: row + 1]:
        text = line.strip()
        if not text:
            continue
        if scope is not None and _indent(line) < scope and not text.startswith("#"):
            scope = None
        if (m := _PYLINT_OFF.match(line)) and _names_any(_names(m.group("c")), checks):
            scope = _indent(line)
        elif (m := _PYLINT_ON.match(line)) and _names_any(_names(m.group("c")), checks):
            scope = None
    return scope is not None


def _shellcheck_above(lines: Sequence[str], row: int, checks: Sequence[str]) -> bool:
    """A directive in the comment lines right above line `row`."""
    i = row - 1
    while i >= 0 and lines[i].lstrip().startswith("#"):
        m = _SHELLCHECK.match(lines[i])
        if m and _names_any(_names(m.group("c")), checks):
            return True
        i -= 1
    return False


def _shellcheck(lines: Sequence[str], row: int, checks: Sequence[str]) -> bool:
    """ShellCheck's scopes: a directive above a command covers the whole command (its `\\`, `|`, `&&`
    continuation lines), above a function or compound command its whole body (enclosing blocks found by
    indentation), and right after the shebang the whole file."""
    start = row
    while start > 0 and lines[start - 1].rstrip().endswith(_SH_CONTINUES):
        start -= 1
    if _shellcheck_above(lines, start, checks):
        return True
    limit = _indent(lines[start])
    for i in range(start - 1, -1, -1):
        text = lines[i].strip()
        if limit == 0:
            break
        if not text or text.startswith("#") or text in _SH_CLOSERS or _indent(lines[i]) >= limit:
            continue
        limit = _indent(lines[i])  # the header of a block enclosing the finding
        if _shellcheck_above(lines, i, checks):
            return True
    if lines and lines[0].startswith("#!"):
        return _shellcheck_above(lines, _first_code_line(lines), checks)
    return False


def _first_code_line(lines: Sequence[str]) -> int:
    """The first line after the shebang's comment block that is not a comment (a directive in that block
    covers the whole file)."""
    i = 1
    while i < len(lines) and lines[i].lstrip().startswith("#"):
        i += 1
    return i


def _region(lines: Sequence[str], row: int, checks: Sequence[str], off_rx: LazyRe,
            on_rx: LazyRe) -> bool:
    """Inside a `disable ... enable` region (rubocop, eslint's block comments) that names one of `checks`."""
    off = False
    for line in lines[:row]:
        if (m := off_rx.match(line)) and _names_any(_names(m.group("c")), checks):
            off = True
        elif (m := on_rx.match(line)) and _names_any(_names(m.group("c")), checks):
            off = False
    return off


def _may_hold_comment(line: str) -> bool:
    return "#" in line or "/" in line


def is_suppressed(lines: Sequence[str], start_row: int, end_row: int, checks: Sequence[str]) -> bool:
    """Whether a finding on rows `start_row`..`end_row` (0-based) is silenced for one of `checks`."""
    if not checks or start_row >= len(lines):
        return False
    end_row = min(end_row, len(lines) - 1)
    # Every form of _SAME_LINE and _LINE_ABOVE starts with a comment opener (`#`, `//` or `/*`): a line with
    # neither `#` nor `/` is not searched (13 regex searches per finding of the B1 snippets before, ~0.15 ms a call).
    for row in {start_row, end_row}:
        line = lines[row]
        if not _may_hold_comment(line):
            continue
        for rx in _SAME_LINE:
            m = rx.search(line)
            if m and _names_any(_names(m.group("c")), checks):
                return True
    if start_row > 0 and _may_hold_comment(lines[start_row - 1]):
        for rx in _LINE_ABOVE:
            m = rx.search(lines[start_row - 1])
            if m and _names_any(_names(m.group("c")), checks):
                return True
    return _scoped(lines, start_row, checks)


def _scoped(lines: Sequence[str], row: int, checks: Sequence[str]) -> bool:
    """The forms that reach beyond the line and the one above: each walks the file, so only those whose marker
    the file holds are tried."""
    present = _markers(lines)
    return (("shellcheck" in present and _shellcheck(lines, row, checks))
            or any(mark in present and _region(lines, row, checks, off, on)
                   for mark, off, on in _REGIONS)
            or ("pylint:" in present and _pylint_scope(lines, row, checks))
            or ("allow(" in present and _allowed_by_attribute(lines, row, checks))
            or ("Suppress" in present and _annotated(lines, row, checks, _SUPPRESS_ANNOTATION)))


_MARKERS: Final = ("shellcheck", "pylint:", "allow(", "Suppress", *(mark for mark, _off, _on in _REGIONS))
_last_markers: tuple[Sequence[str], frozenset[str]] = ((), frozenset())


def _markers(lines: Sequence[str]) -> frozenset[str]:
    """Which scoped suppression forms the file can hold at all (each form's regex needs its marker). A file's
    findings are refined one after another with the same `lines`, so the last file's answer is kept: without it a
    dense file paid findings x lines x every form (lodash.js, 131 findings: 3.5 s)."""
    global _last_markers
    last = _last_markers
    if last[0] is lines:
        return last[1]
    joined = "\n".join(lines)
    found = frozenset(mark for mark in _MARKERS if mark in joined)
    _last_markers = (lines, found)
    return found
