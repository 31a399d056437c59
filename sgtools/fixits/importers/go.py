"""Go: its imports are one block at the top (or several `import` declarations before the first other
declaration) and a package is named by its path's last element.

`metadata.fixImports.add` holds package paths (`io`, `os`): imported when the fixed code names the package
(`io.`) and the file does not. `remove` holds paths dropped once no use of them is left under all of the rule's
fixes in the file: an unused import is a compile error in Go (`errors.New(fmt.Sprintf(...))` -> `fmt.Errorf`
leaves `errors` unused). The import region is rewritten as one sorted block. A package is not added (the fix-it
is unsafe and says so) when its name already means something else: another import under that name, or a use
of the name the file does not import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.fixits.importers import NOTHING, Plan, blank, outside

_GO_BLOCK = re.compile(r'(?m)^import[ \t]*\((?:[^()"`]|"[^"\n]*"|`[^`]*`)*\)')
_GO_SINGLE = re.compile(r'(?m)^import[ \t]+(?:[\w.]+[ \t]+)?"[^"\n]+"[^\n]*$')
_GO_SPEC = re.compile(r'^[ \t]*(?:(?P<alias>[\w.]+)[ \t]+)?"(?P<path>[^"\n]+)"[^\n]*$')
_GO_PACKAGE = re.compile(r"(?m)^package[ \t]+\w+[^\n]*$")
_GO_FIRST_DECL = re.compile(r"(?m)^(?:func|var|const|type)\b")


def name_of(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def _uses(code: str, name: str) -> int:
    return len(re.findall(rf"(?<![\w.]){re.escape(name)}\.", code))


def specs(text: str) -> tuple[int, int, list[str]] | None:
    """The import region (first import's start, last one's end) and its spec lines, or None without imports.
    Imports come before every other declaration: text after the first one (a code template in a string that
    holds `import (`) is never read as imports."""
    first = _GO_FIRST_DECL.search(text)
    head = text[:first.start()] if first is not None else text
    found = sorted([(m.start(), m.end(), m.group()) for m in _GO_BLOCK.finditer(head)]
                   + [(m.start(), m.end(), m.group()) for m in _GO_SINGLE.finditer(head)])
    if not found:
        return None
    lines: list[str] = []
    for _s, _e, decl in found:
        if decl.rstrip().endswith(")"):
            body = decl[decl.index("(") + 1: decl.rindex(")")]
            lines += [ln.strip() for ln in body.splitlines() if ln.strip()]
        else:
            lines.append(decl[len("import"):].strip())
    return found[0][0], found[-1][1], lines


def _code(text: str) -> str:
    """The text's code outside its import region, comments and strings blanked (the import specs are strings)."""
    region = specs(text)
    code = blank(text, "go")
    return outside(code, [(region[0], region[1])]) if region is not None else code


def _kept(lines: list[str], remove: Sequence[str], fixed_code: str) -> list[str]:
    """The spec lines left once the `remove` paths no use is left of are dropped (an aliased one stays)."""
    def dropped(spec: str) -> bool:
        m = _GO_SPEC.match(spec)
        return m is not None and m.group("alias") is None and m.group("path") in remove \
            and not _uses(fixed_code, name_of(m.group("path")))
    return [s for s in lines if not dropped(s)]


def plan(text: str, fixed: str, add: Sequence[str], remove: Sequence[str]) -> Plan:
    """The import edit that makes `fixed` (the file under all the fixes) build, and the imports not placed."""
    region = specs(text)
    lines = region[2] if region is not None else []
    imported: dict[str, str] = {}  # path -> the name it binds
    for spec in lines:
        m = _GO_SPEC.match(spec)
        if m is not None:
            imported[m.group("path")] = m.group("alias") or name_of(m.group("path"))
    text_code, fixed_code = _code(text), _code(fixed)
    keep = _kept(lines, remove, fixed_code)
    new: list[str] = []
    missing: list[tuple[str, str]] = []
    for path in add:
        name = name_of(path)
        if path in imported or _uses(fixed_code, name) <= _uses(text_code, name):
            continue
        other = [p for p, bound in imported.items() if bound == name]
        if other or _uses(text_code, name):
            missing.append((f'import "{path}"', f"`{name}` already names something else in this file"
                            + (f' ("{other[0]}")' if other else "")))
            continue
        new.append(f'"{path}"')
        imported[path] = name
    if keep == lines and not new:
        return Plan(None, missing) if missing else NOTHING
    return Plan(_edit(text, region, keep, new), missing)


def _edit(text: str, region: tuple[int, int, list[str]] | None, keep: list[str],
          new: list[str]) -> tuple[int, int, str] | None:
    ordered = sorted(keep + new, key=lambda s: s.split('"')[1] if '"' in s else s)
    block = "import (\n" + "".join(f"\t{s}\n" for s in ordered) + ")"
    if not ordered:
        block = ""
    if region is not None:
        return region[0], region[1], block
    package = _GO_PACKAGE.search(text)
    if package is None:
        return None
    return package.end(), package.end(), "\n\n" + block
