"""Rust: a fix that names an item it did not name before (`HashMap::new()`) gets its `use`
(`use std::collections::HashMap;`).

`metadata.fixImports.add` holds paths: `std::collections::HashMap`. Nothing is added when a top-level `use`
already brings it in (directly, in a `{...}` group, or by `prefix::*`). The `use` goes after the last top-level
`use`, else before the first item (after inner attributes `#![...]`). It is not placed (the fix-it is unsafe
and says so) when the name already means something else: another `use` of that name, an item of that name
declared in the file, or a use of the name the file does not import. An unused `use` is a warning, not an
error: `remove` is not applied.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.fixits.importers import NOTHING, Plan, after_line, before, blank, line_end, need, outside

_USE = re.compile(r"(?m)^(?:pub(?:\([^)\n]*\))?[ \t]+)?use[ \t]+(?P<tree>[^;]+);")
_ANY_USE = re.compile(r"(?m)^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?use[ \t]+[^;]+;")
_PATH = re.compile(r"^(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+$")
_ITEM = r"\b(?:struct|enum|union|type|trait|fn|mod|const|static|macro_rules!)\s+{}\b"


def _split(inner: str) -> list[str]:
    """Top-level comma-separated parts of a `{...}` group."""
    parts, depth, cur = [], 0, ""
    for c in inner:
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += (c == "{") - (c == "}")
        cur += c
    return [p for p in (*parts, cur) if p.strip()]


def expand(tree: str, prefix: str = "") -> dict[str, str]:
    """{name bound: full path} of a use tree (`a::{b, c::D as E, f::*}`); a glob binds `prefix::*`."""
    tree = re.sub(r"\s*(::|[{},])\s*", r"\1", " ".join(tree.split()))
    brace = tree.find("{")
    if brace >= 0 and tree.endswith("}"):
        head = prefix + tree[:brace]
        out: dict[str, str] = {}
        for part in _split(tree[brace + 1:-1]):
            out.update(expand(part, head))
        return out
    path, _, alias = tree.partition(" as ")
    path = prefix + path
    if path.endswith("::self"):
        path = path[:-len("::self")]
    name = alias or path.rsplit("::", 1)[-1]
    return {f"{path}" if name == "*" else name: path}


def _first_item(code: str) -> int:
    """Where the first item starts: past blank lines, comments (blanked) and inner attributes `#![...]`."""
    at = 0
    while at < len(code):
        rest = code[at:]
        stripped = len(rest) - len(rest.lstrip())
        at += stripped
        if not code.startswith("#!", at):
            return at - (at - code.rfind("\n", 0, at) - 1)  # the start of that line
        depth, i = 0, at
        while i < len(code):
            depth += (code[i] == "[") - (code[i] == "]")
            i += 1
            if depth == 0 and code[i - 1] == "]":
                break
        at = line_end(code, i)
    return len(code)


def plan(text: str, fixed: str, add: Sequence[str], remove: Sequence[str]) -> Plan:
    code, fixed_code = blank(text, "rust"), blank(fixed, "rust")
    uses = list(_USE.finditer(code))
    bound: dict[str, str] = {}
    for m in uses:
        bound.update(expand(m.group("tree")))
    text_uses = outside(code, [(m.start(), m.end()) for m in _ANY_USE.finditer(code)])
    fixed_uses = outside(fixed_code, [(m.start(), m.end()) for m in _ANY_USE.finditer(fixed_code)])
    new: list[str] = []
    missing: list[tuple[str, str]] = []
    for path in add:
        statement = f"use {path};"
        if not _PATH.match(path):
            missing.append((statement, "it is not a path"))
            continue
        parent, name = path.rsplit("::", 1)
        if bound.get(name) == path or f"{parent}::*" in bound:
            continue
        added, used = need(name, text_uses, fixed_uses, r"\w:")
        if not added:
            continue
        declared = re.search(_ITEM.format(re.escape(name)), code) is not None
        if name in bound or declared or used:
            missing.append((statement, f"`{name}` already names something else in this file"
                            + (f" ({bound[name]})" if name in bound else "")))
            continue
        new.append(statement)
        bound[name] = path
    if not new:
        return Plan(None, missing) if missing else NOTHING
    lines = "".join(f"{s}\n" for s in new)
    if uses:
        return Plan(after_line(text, uses[-1].end(), lines), missing)
    return Plan(before(text, _first_item(code), lines), missing)
