"""Imports are part of the fix: a rule whose fix moves a name to another package or introduces one declares
the imports it touches, and each of its fix-its carries a second edit on the file's import block.

    metadata:
      fixImports:
        add: [io, os]        # imported when the fixed text names it and the file does not
        remove: [io/ioutil]  # dropped when no use of it is left once all of the rule's fixes in the file are in

What an entry is depends on the language (fixits/importers/): Go package paths (`io/ioutil`), Python import
statements (`from datetime import timezone`, `import ssl`), Java qualified class names (`java.util.Collections`),
Rust paths (`std::collections::HashMap`). `remove` applies where an unused import is an error (Go).

The import edit is the file's end state under all of the rule's fixes there, so every fix-it of the rule in one
file carries the same edit (apply_fixes applies it once; fixits/verify.py re-scans the whole edited file with it).
A fix-it of such a rule is applied with the others of its file or not at all (workflows/apply_fixes.py).
An import that cannot be placed (its name already means something else in the file) makes the rule's fix-its
in that file `unsafe`, and their title says which import is missing and why.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sgtools.core.errors import SgToolsError
from sgtools.edit.text import LineIndex, apply_edits

if TYPE_CHECKING:
    from sgtools.contracts.fixits import Edit, Fixit
    from sgtools.fixits.importers import Plan

META_KEY = "fixImports"
# Each planner (fixits/importers/<language>.py) is imported when a rule that declares fixImports has a fix-it in
# that language: a scan without one does not pay for their modules and regexes (issue 31 part 5, the CLI start).
LANGUAGES = frozenset({"go", "python", "java", "rust"})


def _planner(language: str) -> Callable[[str, str, Sequence[str], Sequence[str]], Plan] | None:
    if language not in LANGUAGES:
        return None
    module = importlib.import_module(f"sgtools.fixits.importers.{language}")
    planner: Callable[[str, str, Sequence[str], Sequence[str]], Plan] = module.plan
    return planner


def declared(data: Mapping[str, Any] | None) -> tuple[list[str], list[str]] | None:
    """(add, remove) entries from the rule's `metadata.fixImports`, or None."""
    meta = data.get("metadata") if data is not None else None
    spec = meta.get(META_KEY) if isinstance(meta, Mapping) else None
    if not isinstance(spec, Mapping):
        return None
    add = [str(p) for p in spec.get("add") or [] if isinstance(p, str)]
    remove = [str(p) for p in spec.get("remove") or [] if isinstance(p, str)]
    return (add, remove) if add or remove else None


def missing_text(missing: Sequence[tuple[str, str]]) -> str:
    """What a fix-it's title says of imports it needs and did not get."""
    return "; ".join(f"needs `{stmt}`, not added: {why}" for stmt, why in missing)


def attach(fixits: Sequence[Fixit], text: str, index: LineIndex, language: str,
           data: Mapping[str, Any] | None) -> None:
    """Give every fix-it of one rule in one file (`fixits`, over `text`) the rule's import edit, if it needs one;
    an import it cannot place makes them `unsafe`, their title saying which import is missing."""
    spec = declared(data)
    planner = _planner(language) if spec is not None and fixits else None
    if spec is None or planner is None:
        return
    try:
        fixed = apply_edits(text, [fx["edits"][0] for fx in fixits])
    except SgToolsError:  # overlapping fixes: no single end state, so no import edit
        return
    plan = planner(text, fixed, *spec)
    if plan.missing:
        for fx in fixits:
            fx["safety"] = "unsafe"
            fx["title"] = f"{fx['title']} ({missing_text(plan.missing)})"
    if plan.edit is None:
        return
    start, end = len(text[:plan.edit[0]].encode("utf-8")), len(text[:plan.edit[1]].encode("utf-8"))  # bytes
    for fx in fixits:
        import_edit: Edit = {"file": fx["edits"][0]["file"], **index.span(start, end), "byteStart": start,
                             "byteEnd": end, "newText": plan.edit[2]}
        fx["edits"].append(import_edit)
