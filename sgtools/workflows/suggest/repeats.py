"""A repeated metavariable said by `has` at each place, for where ast-grep cannot compare the places as written.

`isset($A) ? $A : $B` never matches: at one place `$A` binds PHP's `argument` wrapper, at the other the bare
expression, and ast-grep compares the two nodes, not their code. An author keeps the pattern with each place its
own metavariable and says the repeat by `has` down to each place, through a wrapper to the node inside it.
Where the bare pattern matches only a one-leaf repeat (`$A = $A .. $B` has `s = s .. k`, not
`self.text = self.text .. k`: the target list wraps the first `$A`), the pattern itself is written that way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import KIND_HAS, PINNED, PLAIN, TYPED, Candidate
from sgtools.workflows.suggest.forms import turned
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
    elif not node.role:  # the place itself, by the code it holds: its kind varies (`hit`, `page.title`)
        rule = {"has": rule}
        node = node.parent if node.parent is not None else node
    at: Node | None = node
    while at is not None and at is not root:
        rule = {"has": _step(at, rule)}
        at = at.parent
    return rule


def _choices(node: Node) -> int:
    """How many nodes the last `has` down to `node` may bind: ast-grep binds `$SAME` at the first that fits and
    does not try the others, so a place among several (`null != $A`: `null` fits first) is said after the places
    that bind it at one node."""
    if node.role or _inner(node) is not node or node.parent is None:
        return 1
    return len(node.parent.named_children())


def _apart(gen: Generalised) -> tuple[dict[str, Any], bool] | None:
    """The root's pattern with the places of its one repeated metavariable apart and `has` at each, and whether
    some place stands alone in a wrapper (Lua's `variable_list`, Go's `expression_list`); None without a repeat."""
    if len(gen.bound) != 1 or gen.choices:
        return None
    marker = "$" + next(iter(gen.bound))
    nodes = [_at(gen.root, s, e) for s, e, t in gen.edits if t == marker]
    if len(nodes) < 2 or any(n is None or n is gen.root for n in nodes):
        return None
    renamed, n = [], 0
    for s, e, t in gen.edits:
        renamed.append((s, e, f"{t}{n}" if t == marker and n else t))
        n += t == marker
    apart = Generalised(gen.root, gen.pattern, gen.holes, gen.level, gen.kept, renamed, gen.choices)
    patterns = [{"pattern": p} for p in [apply_edits(gen.root, renamed, dedent=True), *turned(apart)]]
    shape = patterns[0] if len(patterns) == 1 else {"any": patterns}
    places = sorted((n for n in nodes if n is not None), key=_choices)
    wrapped = any(_inner(n) is not n for n in places)
    # The root's kind beside its pattern: a pattern whose text the rule parser reads as no node kind (PHP's `$A =
    # f($A1)`, which `run -p` takes) is refused without it.
    return {"all": [{"kind": gen.root.kind}, shape, *(_reach(gen.root, n) for n in places)]}, wrapped


def repeat_forms(gens: Sequence[Generalised], indexes: Sequence[int]) -> list[Candidate]:
    """For each root with one repeated metavariable: its pattern with the places apart, and `has` at each."""
    out: list[Candidate] = []
    for i in indexes:
        found = _apart(gens[i])
        if found is not None:
            out.append(Candidate({"rule": found[0]}, gens[i], KIND_HAS, i, repeated=True))
    return out


def compared(cands: list[Candidate]) -> list[Candidate]:
    """A pattern whose repeated metavariable stands alone in a wrapper at one place (`$A = $A .. $B`: the target
    list `variable_list`) is written with the places apart and `has` at each: as written, ast-grep compares the
    wrapper with the bare expression and matches only where the code is one leaf (`s = s .. k`, not
    `self.text = self.text .. k`)."""
    for cand in cands:
        if cand.form in (PLAIN, TYPED, PINNED) and cand.gen.pinned is None:
            found = _apart(cand.gen)
            if found is not None and found[1]:
                cand.body = {**cand.body, "rule": found[0]}
                cand.repeated = True
    return cands
