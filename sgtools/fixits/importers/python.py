"""Python: a fix that introduces a name (`timezone.utc`) gets its import (`from datetime import timezone`).

`metadata.fixImports.add` holds import statements as written: `from datetime import timezone` or `import ssl`.
The import is placed among the module's top-level imports (the run of `import`/`from` statements at the top,
after the docstring and `from __future__`): a `from datetime import ...` line there gains `, timezone`; else a
new line goes after the last of them (after `import datetime` too: both forms live side by side), or before the
first statement when there are none. It is not placed (the fix-it is unsafe and says so) when the name already
means something else in the file: bound by another import (`from django.utils import timezone`) or used
without being imported. Unused imports are no error in Python: `remove` is not applied.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.fixits.importers import NOTHING, Plan, after_line, before, blank, line_end, need, outside

_FROM = re.compile(r"^from\s+(?P<mod>[\w.]+)\s+import\s+(?P<names>.+)$", re.S)
_IMPORT = re.compile(r"^import\s+(?P<names>.+)$", re.S)
_SPEC = re.compile(r"^\s*(?:from\s+(?P<mod>[\w.]+)\s+import\s+(?P<name>\w+)|import\s+(?P<imp>[\w.]+))\s*$")


class _Stmt:
    __slots__ = ("binds", "end", "module", "plain", "start")

    def __init__(self, start: int, end: int, module: str | None, binds: dict[str, str], plain: bool) -> None:
        self.start, self.end = start, end  # the statement's characters (end before its newline)
        self.module = module  # `from <module> import`, or None for `import a, b`
        self.binds = binds  # name bound -> what it is (`datetime.timezone`, or the module `os` for `import os.path`)
        self.plain = plain  # one line, no parentheses or `*`: a name can be appended


def _statement_end(code: str, start: int) -> int:
    """Where a logical line starting at `start` ends (parentheses and backslashes continue it)."""
    depth, i = 0, start
    while i < len(code):
        c = code[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "\\" and code[i + 1:i + 2] == "\n":
            i += 1
        elif c == "\n" and depth <= 0:
            return i
        i += 1
    return len(code)


def _binds(stmt: str) -> tuple[str | None, dict[str, str]] | None:
    flat = " ".join(stmt.replace("\\\n", " ").replace("(", " ").replace(")", " ").split())
    m = _FROM.match(flat)
    if m is not None:
        out = {}
        for part in m.group("names").split(","):
            words = part.split()
            if words and words[0] != "*":
                out[words[-1]] = f"{m.group('mod')}.{words[0]}"
        return m.group("mod"), out
    m = _IMPORT.match(flat)
    if m is None:
        return None
    out = {}
    for part in m.group("names").split(","):
        words = part.split()
        if words:
            out[words[-1] if len(words) == 3 else words[0].split(".")[0]] = words[0] if len(words) == 3 \
                else words[0].split(".")[0]
    return None, out


def header(code: str) -> tuple[list[_Stmt], int]:
    """The top-level imports before the first other statement, and where that statement starts."""
    stmts: list[_Stmt] = []
    at = 0
    while at < len(code):
        end_of_line = line_end(code, at)
        line = code[at:end_of_line]
        if not line.strip() or line[0] in " \t":  # blank, a comment, a docstring (blanked) or its indented rest
            at = end_of_line
            continue
        if not line.startswith(("import ", "from ")):
            return stmts, at
        end = _statement_end(code, at)
        parsed = _binds(code[at:end])
        if parsed is None:
            return stmts, at
        text = code[at:end]
        stmts.append(_Stmt(at, end, parsed[0], parsed[1], "\n" not in text and "(" not in text and "*" not in text))
        at = line_end(code, end)
    return stmts, len(code)


def _all_imports(code: str) -> list[tuple[int, int]]:
    """Every import statement of the file, at any depth (what a use of a name is not)."""
    spans = []
    for m in re.finditer(r"(?m)^[ \t]*(?:from\s+[\w.]+\s+)?import\s", code):
        spans.append((m.start(), _statement_end(code, m.start())))
    return spans


def plan(text: str, fixed: str, add: Sequence[str], remove: Sequence[str]) -> Plan:
    code, fixed_code = blank(text, "python"), blank(fixed, "python")
    stmts, first = header(code)
    bound = {name: what for s in stmts for name, what in s.binds.items()}
    text_uses, fixed_uses = outside(code, _all_imports(code)), outside(fixed_code, _all_imports(fixed_code))
    extend: dict[int, list[str]] = {}
    lines: list[str] = []
    missing: list[tuple[str, str]] = []
    for spec in add:
        m = _SPEC.match(spec)
        if m is None:
            missing.append((spec, "it is not an import statement this tool can place"))
            continue
        name, what = (m.group("name"), f"{m.group('mod')}.{m.group('name')}") if m.group("mod") \
            else (m.group("imp").split(".")[0], m.group("imp").split(".")[0])
        if bound.get(name) == what:
            continue
        added, used = need(name, text_uses, fixed_uses)
        if not added:
            continue
        if name in bound or used:
            missing.append((spec.strip(), f"`{name}` already names something else in this file"
                            + (f" ({bound[name]})" if name in bound else "")))
            continue
        same = [s for s in stmts if m.group("mod") and s.module == m.group("mod") and s.plain]
        if same:
            extend.setdefault(same[-1].end, []).append(name)
        else:
            lines.append(spec.strip())
        bound[name] = what
    return Plan(_edit(text, code, stmts, first, extend, lines), missing) if extend or lines else \
        (Plan(None, missing) if missing else NOTHING)


def _edit(text: str, code: str, stmts: list[_Stmt], first: int, extend: dict[int, list[str]],
          lines: list[str]) -> tuple[int, int, str] | None:
    """One edit: names appended to a `from` line, new lines after the last import (or before the first
    statement), or, when it takes both, the header rewritten from its first import to its last."""
    new_lines = "".join(f"{ln}\n" for ln in lines)
    if not stmts:
        return before(text, first, new_lines)
    if not extend:
        return after_line(text, stmts[-1].end, new_lines)
    if not lines and len(extend) == 1:
        (end, names), = extend.items()
        cut = len(code[:end].rstrip())
        return cut, cut, "".join(f", {n}" for n in names)
    start, end = stmts[0].start, line_end(text, stmts[-1].end)
    body = text[start:end]
    for at in sorted(extend, reverse=True):
        cut = len(code[:at].rstrip()) - start
        body = body[:cut] + "".join(f", {n}" for n in extend[at]) + body[cut:]
    return start, end, body + ("" if body.endswith("\n") else "\n") + new_lines
