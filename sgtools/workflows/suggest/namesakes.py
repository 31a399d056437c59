"""Names written as another kind of node in the valid examples (issue 29): when every invalid example has a node
of kind K named N and the valid examples write the same names only as another kind (`@Disabled` a
`marker_annotation` beside `@Disabled("why")` an `annotation`), the kind is the point, said with the names:
`kind: marker_annotation`, `has: {field: name, regex: ^(Disabled|Ignore)$}`. Other nodes of K in the valid
examples (`@Test`) are let through by the names. Where that other kind takes arguments, the same name written
with an empty list (`@Disabled()`) says as little as the marker, so it is flagged too."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import CHILD, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example, Node

_NAME = re.compile(r"[A-Za-z_][\w.]*")


def _named(example: Example) -> dict[tuple[str, str], Node]:
    """(kind, name) of every node with a `name` field holding a plain name, with one node of each."""
    out: dict[tuple[str, str], Node] = {}
    for node in example.nodes():
        name = next((c for c in node.children if c.role == "name" and c.atomic), None)
        if name is not None and _NAME.fullmatch(name.text):
            out.setdefault((node.kind, name.text), node)
    return out


def _names(kind: str, per: list[dict[tuple[str, str], Node]], fine: set[tuple[str, str]]) -> list[str]:
    """The names of `kind` every invalid example writes and the valid ones write only as another kind; [] when
    some invalid example names its nodes of the kind only as the valid ones do (`@Test`), or a name is not
    written as another kind there (nothing says the kind matters)."""
    names = sorted({n for p in per for k, n in p if k == kind and (kind, n) not in fine})
    if not names or len(names) > 3 or not all(any(k == kind and n in names for k, n in p) for p in per):
        return []
    return names if all(any(n == m and k != kind for k, m in fine) for n in names) else []


def namesake_forms(invalid: Sequence[Example], valid: Sequence[Example], start: int) -> list[Candidate]:
    per = [_named(e) for e in invalid]
    fine = {key for e in valid for key in _named(e)}
    out: list[Candidate] = []
    for kind in sorted(set.intersection(*({k for k, _ in p} for p in per)) if per else set()):
        names = _names(kind, per, fine)
        if not names:
            continue
        # The name also written qualified (`@org.junit.jupiter.api.Disabled`).
        regex = r"^(\w+(\.|::))*(" + "|".join(map(re.escape, names)) + ")$"
        first = next(node for (k, n), node in per[0].items() if k == kind and n in names)
        shown = " or ".join(f"`{n}`" for n in names)
        note = (f"flags every `{kind}` named {shown}, which the valid examples write as another kind; lets "
                "through the same names written that other way")
        rule = {"kind": kind, "has": {"field": "name", "regex": regex}}
        bare = _empty_call(kind, names, valid, regex)
        out.append(Candidate({"rule": {"any": [rule, bare]} if bare else rule},
                             Generalised.written(first, f"{kind} {' '.join(names)}"), CHILD, start + len(out), note,
                             namesake=True))
    return out


def _empty_call(kind: str, names: list[str], valid: Sequence[Example], regex: str) -> dict[str, Any] | None:
    """The other kind the valid examples write the names as, with an empty argument list (`@Disabled()`, an
    `annotation` whose `arguments` are `()`); None when it has no `arguments` field."""
    others = {n.kind for e in valid for n in e.nodes() if n.kind != kind
              and any(c.role == "name" and c.text in names for c in n.children)
              and any(c.role == "arguments" for c in n.children)}
    if len(others) != 1:
        return None
    return {"kind": others.pop(), "all": [{"has": {"field": "name", "regex": regex}},
                                          {"has": {"field": "arguments", "regex": r"^\(\s*\)$"}}]}
