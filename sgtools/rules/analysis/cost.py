"""A rule shape known to be quadratic: from every node it matches, climb to the file's root node (`inside`,
`stopBy: end`, a root `kind`) and search its whole subtree (`has`, `stopBy: end`). On a file with n candidates that is n
walks of the file: the old insecure-random-math-rand-go made a Go repository's scan 20-40 times slower so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sgtools.contracts.rules import Finding
from sgtools.rules.analysis import findings as F
from sgtools.rules.analysis import walk

# Root node kinds of the built-in grammars: climbing to one of them and searching it walks the whole file. A
# search of a nearer ancestor (a method, a block, a condition) is bounded by that node and not flagged.
ROOT_KINDS = frozenset({"source_file", "program", "module", "translation_unit", "compilation_unit", "document",
                        "stylesheet", "config_file", "chunk"})


def _to_end(sub: Any) -> bool:
    return isinstance(sub, Mapping) and sub.get("stopBy") == "end"


def quadratic_findings(doc: Mapping[str, Any]) -> list[Finding]:
    """An info note for each `inside` to a root node whose rule searches the whole file again, with the cheap
    form (look among the root's direct children, check it last). Info, not warning: the cost depends on how
    many nodes reach this check, which `sgtools scan --profile` measures."""
    out: list[Finding] = []
    for path, node in walk.rule_objects(doc):
        inside = node.get("inside")
        if not isinstance(inside, Mapping) or inside.get("kind") not in ROOT_KINDS or not _to_end(inside) \
                or not _to_end(inside.get("has")):
            continue
        where = walk.show((*path, "inside", "has"))
        out.append(F.finding(
            F.QUADRATIC_SEARCH, F.INFO, where,
            "for every node the rule matches, this climbs to an ancestor and searches its whole subtree again: "
            "quadratic in the file's size. Search the ancestor's direct children instead (drop `stopBy: end` "
            "from this `has`, e.g. `kind: source_file` > `has: {kind: import_declaration, regex: ...}`), and "
            "put this check last in an `all:` so cheap checks reject most nodes first."))
    return out
