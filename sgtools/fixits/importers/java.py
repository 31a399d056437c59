"""Java: a fix that names a class it did not name before (`java.util.Collections.EMPTY_LIST` ->
`Collections.emptyList()`) gets its single-type import (`import java.util.Collections;`).

`metadata.fixImports.add` holds qualified class names: `java.util.Collections`. Nothing is added when the file
already imports it (or its package with `.*`), is in that package, or it is in `java.lang`. The import goes after
the last import, else after the `package` line, else at the top. It is not placed (the fix-it is unsafe and says
so) when the simple name already means something else: another class imported under it, a type of that name
declared in the file, or a use of the name the file does not import. Unused imports are no error: `remove` is
not applied.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.fixits.importers import NOTHING, Plan, after_line, blank, need, outside

_IMPORT = re.compile(r"(?m)^[ \t]*import[ \t]+(?P<static>static[ \t]+)?(?P<name>[\w.]+(?:\.\*)?)[ \t]*;")
_PACKAGE = re.compile(r"(?m)^[ \t]*package[ \t]+(?P<name>[\w.]+)[ \t]*;")
_QUALIFIED = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$")


def _provided(qualified: str, singles: dict[str, str], wildcards: set[str], package: str | None) -> bool:
    pkg, name = qualified.rsplit(".", 1)
    return singles.get(name) == qualified or pkg in wildcards or pkg == "java.lang" or package == pkg


def _conflict(name: str, code: str, singles: dict[str, str], used: bool) -> str | None:
    declared = re.search(rf"\b(?:class|interface|enum|record)\s+{re.escape(name)}\b", code) is not None
    if name in singles or declared or used:
        return f"`{name}` already names something else in this file" + (f" ({singles[name]})" if name in singles
                                                                          else "")
    return None


def _spans(code: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in (*_IMPORT.finditer(code), *_PACKAGE.finditer(code))]


def plan(text: str, fixed: str, add: Sequence[str], remove: Sequence[str]) -> Plan:
    code, fixed_code = blank(text, "java"), blank(fixed, "java")
    imports = list(_IMPORT.finditer(code))
    singles = {m.group("name").rsplit(".", 1)[-1]: m.group("name") for m in imports
               if not m.group("static") and not m.group("name").endswith("*")}
    wildcards = {m.group("name")[:-2] for m in imports if not m.group("static") and m.group("name").endswith("*")}
    package = _PACKAGE.search(code)
    text_uses, fixed_uses = outside(code, _spans(code)), outside(fixed_code, _spans(fixed_code))
    new: list[str] = []
    missing: list[tuple[str, str]] = []
    for qualified in add:
        statement = f"import {qualified};"
        if not _QUALIFIED.match(qualified):
            missing.append((statement, "it is not a qualified class name"))
            continue
        name = qualified.rsplit(".", 1)[1]
        if _provided(qualified, singles, wildcards, package.group("name") if package else None):
            continue
        added, used = need(name, text_uses, fixed_uses, r"\w.$")
        why = _conflict(name, code, singles, used) if added else None
        if why is not None:
            missing.append((statement, why))
        elif added:
            new.append(statement)
            singles[name] = qualified
    if not new:
        return Plan(None, missing) if missing else NOTHING
    return Plan(_edit(text, imports, package, "".join(f"{s}\n" for s in new)), missing)


def _edit(text: str, imports: list[re.Match[str]], package: re.Match[str] | None, lines: str) -> tuple[int, int, str]:
    if imports:
        return after_line(text, imports[-1].end(), lines)
    if package is not None:
        return package.end(), package.end(), "\n\n" + lines.rstrip("\n")
    return 0, 0, lines + "\n"
