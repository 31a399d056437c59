"""A repeated metavariable said by `has` at each place, for where ast-grep cannot compare the places as written.

`isset($A) ? $A : $B` never matches: at one place `$A` binds PHP's `argument` wrapper, at the other the bare
expression, and ast-grep compares the two nodes, not their code. An author keeps the pattern with each place its
own metavariable and says the repeat by `has` down to each place, through a wrapper to the node inside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import KIND_HAS, Candidate
from sgtools.workflows.suggest.generalise import Generalised, apply_edits
from sgtools.workflows.suggest.tree import Node

_SAME = "$SAME"


def _at(root: Node, start: int, end: int) -> Node | None:
    return next((n for n in root.walk() if n.start == start and n.end == end and n.named), None)


def _inner(node: Node) -> Node:
    """The node a wrapper holds (PHP's `argument`, Kotlin's `control_structure_body`): its one named child."""
    named = node.named_children()
    return named[0] if len(named) == 1 and named[0].text == node.text else node


def _step(node: Node, inner: dict[str, Any]) -> dict[str, Any]:
    return {"field": node.role, **inner} if node.role else {"kind": node.kind, **inner}


def _reach(root: Node, node: Node) -> dict[str, Any]:
    """`has` from `root` down to `node`, each step by the field it fills, else by its kind."""
    inner = _inner(node)
    rule: dict[str, Any] = {"pattern": _SAME}
    if inner is not node:
        rule = {"has": rule}
    at: Node | None = node
    while at is not None and at is not root:
        rule = {"has": _step(at, rule)}
        at = at.parent
    return rule


def repeat_forms(gens: Sequence[Generalised], indexes: Sequence[int]) -> list[Candidate]:
    """For each root with one repeated metavariable: its pattern with the places apart, and `has` at each."""
    out: list[Candidate] = []
    for i in indexes:
        gen = gens[i]
        if len(gen.bound) != 1 or gen.choices:
            continue
        marker = "$" + next(iter(gen.bound))
        places = [(s, e) for s, e, t in gen.edits if t == marker]
        nodes = [_at(gen.root, s, e) for s, e in places]
        if len(nodes) < 2 or any(n is None or n is gen.root for n in nodes):
            continue
        renamed, n = [], 0
        for s, e, t in gen.edits:
            renamed.append((s, e, f"{t}{n}" if t == marker and n else t))
            n += t == marker
        pattern = apply_edits(gen.root, renamed, dedent=True)
        has = [_reach(gen.root, node) for node in nodes if node is not None]
        out.append(Candidate({"rule": {"all": [{"pattern": pattern}, *has]}}, gen, KIND_HAS, i, repeated=True))
    return out
