"""Imports are part of the fix: a rule whose fix moves a name to another package declares the imports it touches,
and each of its fix-its carries a second edit on the file's import block.

    metadata:
      fixImports:
        add: [io, os]        # imported when the fixed text names the package (`io.`) and the file does not
        remove: [io/ioutil]  # dropped when no use of it is left once all of the rule's fixes in the file are in

The import edit is the file's end state under all of the rule's fixes there, so every fix-it of the rule in one
file carries the same edit (apply_fixes applies it once; fixits/verify.py re-scans the whole edited file with it).
A fix-it of such a rule is applied with the others of its file or not at all (workflows/apply_fixes.py).
Go only, for now: its imports are one block at the top and a package is named by its path's last element.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sgtools.core.errors import SgToolsError
from sgtools.edit.text import LineIndex, apply_edits

if TYPE_CHECKING:
    from sgtools.contracts.fixits import Edit, Fixit

META_KEY = "fixImports"
LANGUAGES = frozenset({"go"})

_GO_BLOCK = re.compile(r'(?m)^import[ \t]*\((?:[^()"`]|"[^"\n]*"|`[^`]*`)*\)')
_GO_SINGLE = re.compile(r'(?m)^import[ \t]+(?:[\w.]+[ \t]+)?"[^"\n]+"[^\n]*$')
_GO_SPEC = re.compile(r'^[ \t]*(?:(?P<alias>[\w.]+)[ \t]+)?"(?P<path>[^"\n]+)"[^\n]*$')
_GO_PACKAGE = re.compile(r"(?m)^package[ \t]+\w+[^\n]*$")


def declared(data: Mapping[str, Any] | None) -> tuple[list[str], list[str]] | None:
    """(add, remove) import paths from the rule's `metadata.fixImports`, or None."""
    meta = data.get("metadata") if data is not None else None
    spec = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    if not isinstance(spec, Mapping):
        return None
    add = [str(p) for p in spec.get("add") or [] if isinstance(p, str)]
    remove = [str(p) for p in spec.get("remove") or [] if isinstance(p, str)]
    return (add, remove) if add or remove else None


def _name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def _uses(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}\.", text) is not None


_GO_FIRST_DECL = re.compile(r"(?m)^(?:func|var|const|type)\b")


def _go_specs(text: str) -> tuple[int, int, list[str]] | None:
    """The import region (first import's start, last one's end) and its spec lines, or None without imports.
    Imports come before every other declaration: text after the first one (a code template in a string that
    holds `import (`) is never read as imports."""
    first = _GO_FIRST_DECL.search(text)
    head = text[:first.start()] if first is not None else text
    found = sorted([(m.start(), m.end(), m.group()) for m in _GO_BLOCK.finditer(head)]
                   + [(m.start(), m.end(), m.group()) for m in _GO_SINGLE.finditer(head)])
    if not found:
        return None
    specs: list[str] = []
    for _s, _e, decl in found:
        if decl.rstrip().endswith(")"):
            body = decl[decl.index("(") + 1: decl.rindex(")")]
            specs += [ln.strip() for ln in body.splitlines() if ln.strip()]
        else:
            specs.append(decl[len("import"):].strip())
    return found[0][0], found[-1][1], specs


def _go_edit(text: str, fixed: str, add: Sequence[str], remove: Sequence[str]) -> tuple[int, int, str] | None:
    """(start, end, new text) of the import edit that makes `fixed` (the file under all the fixes) build."""
    region = _go_specs(text)
    specs = region[2] if region is not None else []
    imported = {}
    for spec in specs:
        m = _GO_SPEC.match(spec)
        if m is not None:
            imported[m.group("path")] = m.group("alias")
    keep = [s for s in specs if not any((m := _GO_SPEC.match(s)) is not None and m.group("path") == p
                                        and m.group("alias") is None and not _uses(fixed, _name(p)) for p in remove)]
    new = [f'"{p}"' for p in add if p not in imported and _uses(fixed, _name(p))]
    if keep == specs and not new:
        return None
    lines = sorted(keep + new, key=lambda s: s.split('"')[1] if '"' in s else s)
    block = "import (\n" + "".join(f"\t{s}\n" for s in lines) + ")"
    if region is not None:
        return region[0], region[1], block
    package = _GO_PACKAGE.search(text)
    if package is None:
        return None
    return package.end(), package.end(), "\n\n" + block


def attach(fixits: Sequence[Fixit], text: str, index: LineIndex, language: str,
           data: Mapping[str, Any] | None) -> None:
    """Give every fix-it of one rule in one file (`fixits`, over `text`) the rule's import edit, if it needs one."""
    spec = declared(data)
    if spec is None or language not in LANGUAGES or not fixits:
        return
    try:
        fixed = apply_edits(text, [fx["edits"][0] for fx in fixits])
    except SgToolsError:  # overlapping fixes: no single end state, so no import edit
        return
    edit = _go_edit(text, fixed, *spec)
    if edit is None:
        return
    start, end = len(text[:edit[0]].encode("utf-8")), len(text[:edit[1]].encode("utf-8"))  # chars to bytes
    new_text = edit[2]
    for fx in fixits:
        import_edit: Edit = {"file": fx["edits"][0]["file"], **index.span(start, end), "byteStart": start,
                             "byteEnd": end, "newText": new_text}
        fx["edits"].append(import_edit)
