"""A member every invalid example writes (issue 29): `el.innerHTML = html` is a write, and reading the member
(`const h = el.innerHTML`) is another act. An author says the write, the assignment whose target is the member,
with any of the kinds the grammar writes assignments in (`=` and a compound `+=` are kinds of their own in some
grammars), whatever the value; that form goes before the member access alone when both separate.
"""

from __future__ import annotations

from collections.abc import Sequence

from sgtools.workflows.suggest.candidates import CHILD, KIND_ONLY, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Node
from sgtools.workflows.suggest.verify import Outcome

# The kinds each grammar writes an assignment to a target in, where a compound one (`+=`) is a kind of its own;
# in the others (Java, Go, C, C#, Kotlin) the compound assignment is the same kind with another operator.
ASSIGNMENTS: dict[str, tuple[str, ...]] = {
    "javascript": ("assignment_expression", "augmented_assignment_expression"),
    "typescript": ("assignment_expression", "augmented_assignment_expression"),
    "tsx": ("assignment_expression", "augmented_assignment_expression"),
    "python": ("assignment", "augmented_assignment"),
    "rust": ("assignment_expression", "compound_assignment_expr"),
    "ruby": ("assignment", "operator_assignment"),
}


def _target_of(node: Node) -> Node | None:
    """The assignment whose target (its `left`) this non-leaf node is, else None."""
    parent = node.parent
    if parent is None or node.role != "left" or not node.children or "assignment" not in parent.kind:
        return None
    return parent


def write_forms(tried: Sequence[tuple[Candidate, Outcome]], language: str) -> list[Candidate]:
    """`any` of the grammar's assignment kinds + `has: {field: left, pattern: P}` for each pattern P tried on a
    member an invalid example writes (the pivot's assignment target)."""
    out: list[Candidate] = []
    seen: set[str] = set()
    # The assignment's own root, when it was tried, so the member alone stays among the candidates as another one.
    roots = {id(c.gen.root): c.root_index for c, _ in tried}
    for cand, _ in tried:
        pattern = cand.body.get("rule", {}).get("pattern")
        target = _target_of(cand.gen.root)
        if cand.form >= KIND_ONLY or not isinstance(pattern, str) or target is None or pattern in seen:
            continue
        seen.add(pattern)
        kinds = ASSIGNMENTS.get(language, (target.kind,))
        if target.kind not in kinds:
            kinds = (target.kind,)
        rule = {"any": [{"kind": k} for k in kinds], "has": {"field": "left", "pattern": pattern}}
        note = (f"flags every assignment to `{pattern}` (`=` or a compound one), whatever the value; lets through "
                "reading it")
        out.append(Candidate({"rule": rule}, Generalised.written(target, f"{pattern} = $B"), CHILD,
                             roots.get(id(target), cand.root_index), note))
    return out


def writes_first(passing: list[Candidate]) -> list[Candidate]:
    """When the best candidate is a member an invalid example writes and the write of it separates as well, the
    write goes first: the member alone also flags code that only reads it."""
    if not passing:
        return passing
    target = _target_of(passing[0].gen.root)
    write = next((c for c in passing if target is not None and c.gen.root is target and "any" in c.body["rule"]
                  and c.form == CHILD), None)
    if write is None:
        return passing
    return [write, *(c for c in passing if c is not write)]
