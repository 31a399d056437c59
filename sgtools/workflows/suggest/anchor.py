"""The differing part kept inside the construct the examples are about (issue 29).

When every example, invalid and valid, has the same construct (an `assert`, a `for` loop) and the smallest node
that separates them (a `tuple`, a `count(...)` call) sits inside it in every invalid example, at a place where no
valid example's construct holds that kind of node, the examples are a minimal pair about that construct: an
ast-grep author keeps it as the context of the differing part (`kind: tuple` + `inside: {kind:
assert_statement}`; `count($$$ARGS)` + `inside: {kind: for_statement, field: condition, stopBy: end}`) rather
than flag the part wherever it is written (`assert pair == (1, 2)`, `count()` in a loop's body).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import construct_kind, matched, whole_kind
from sgtools.workflows.suggest.candidates import Candidate, own_context, specific
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_ANCHORED = 12  # candidates (best first) that flag every invalid example, tried in their construct
# Where code happens to be (a declaration, an assignment, a statement standing alone, C#'s top-level statement)
# and what only lists it (a modifier list): not what it is about.
HOLDER = re.compile(r"declaration|declarator|assignment|expression_statement|global_statement|modifier")


def _subject(kind: str) -> bool:
    return (construct_kind(kind) and (specific(kind) or own_context(kind)) and not whole_kind(kind)
            and not HOLDER.search(kind))


def _shared_kinds(examples: Sequence[Example]) -> set[str]:
    """The construct kinds every example has."""
    per = [{n.kind for n in e.nodes() if n.named and not n.atomic and _subject(n.kind)} for e in examples]
    return set.intersection(*per) if per else set()


def _step(node: Node, outer: Node) -> Node:
    """The child of `outer` that holds `node` (or is it)."""
    while node.parent is not None and node.parent is not outer:
        node = node.parent
    return node


def _where(kind: str, bad: list[list[Node]]) -> dict[str, Any] | None:
    """`inside: {kind}` for matches that all sit in a node of `kind` (directly: no `stopBy`), in its one field
    when they share it; None when some match sits in none."""
    steps: list[tuple[Node, Node]] = []
    for nodes in bad:
        for node in nodes:
            outer = node.nearest(kind) if node.kind != kind else None
            if outer is None:
                return None
            steps.append((node, _step(node, outer)))
    clause: dict[str, Any] = {"kind": kind}
    roles = {child.role for _node, child in steps}
    if len(roles) == 1 and None not in roles:
        clause["field"] = roles.pop()
    if any(child is not node for node, child in steps):
        clause["stopBy"] = "end"
    return clause


def _place(clause: dict[str, Any], construct: Node) -> list[Node]:
    """The nodes of a construct where the clause looks: its field's child, or its children, or (`stopBy`) all."""
    top = [c for c in construct.children if clause.get("field") in (None, c.role)]
    if "stopBy" not in clause:
        return top
    return [d for c in top for d in c.walk()]


def _held_in_valid(clause: dict[str, Any], kinds: set[str], valid: Sequence[Example]) -> bool:
    """A valid example's construct holds a node of one of `kinds` in the place the clause names."""
    return any(d.kind in kinds for e in valid for n in e.nodes() if n.kind == clause["kind"]
               for d in _place(clause, n))


def anchored_forms(tried: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                   valid: Sequence[Example], start: int) -> list[Candidate]:
    """Each of the best candidates that flag every invalid example (separating or not), inside the construct
    every example has, where the valid examples' construct holds no node of its kind: ranked just before it
    (`Candidate.key`)."""
    # Two of each at least: one example of a side is no evidence of what the examples are about.
    subjects = _shared_kinds([*invalid, *valid]) if len(invalid) >= 2 and len(valid) >= 2 else set()
    if not subjects:
        return []
    n = len(invalid)
    flagging = sorted(((c, o) for c, o in tried if not o.refused and all(o.hits[i] for i in range(n))
                       and "inside" not in str(c.body["rule"])), key=lambda co: co[0].key())
    out: list[Candidate] = []
    for cand, outcome in flagging[:_ANCHORED]:
        bad = matched(outcome, invalid, 0)
        kinds = {node.kind for nodes in bad for node in nodes}
        if not all(bad) or kinds & subjects:
            continue
        # The nearest such construct around the first match: the one the code is a part of.
        first = bad[0][0]
        for kind in [a.kind for a in first.ancestors() if a.kind in subjects][:1]:
            clause = _where(kind, bad)
            if clause is None or _held_in_valid(clause, kinds, valid):
                continue
            note = (f"flags it only as a part of a `{kind}`, the construct every example is about; lets through "
                    "the same code anywhere else")
            out.append(cand.kept_inside(clause, note, start + len(out), placed=cand.placed))
    return out
