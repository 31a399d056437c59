"""Enclosing contexts as an ast-grep author names them (issue 29): the loops of each language (two kinds of loop in
the examples mean "any loop"), and how an enclosing construct is marked by a kind in its header when no text
marks it (a destructor's `destructor_name`, whatever the class is called). Which kinds are contexts of their own
(a loop, a `finally` clause, Rust's `while_expression`) is `candidates.own_context`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import PART_KINDS, PART_SUFFIXES, Candidate, own_context, specific
from sgtools.workflows.suggest.tree import Node

# The loop kinds of each language's grammar (as ast-grep 0.51 parses them), for "any loop".
LOOPS: dict[str, tuple[str, ...]] = {
    "python": ("for_statement", "while_statement"),
    "javascript": ("for_statement", "for_in_statement", "while_statement", "do_statement"),
    "typescript": ("for_statement", "for_in_statement", "while_statement", "do_statement"),
    "tsx": ("for_statement", "for_in_statement", "while_statement", "do_statement"),
    "go": ("for_statement",),
    "rust": ("for_expression", "while_expression", "loop_expression"),
    "java": ("for_statement", "enhanced_for_statement", "while_statement", "do_statement"),
    "c": ("for_statement", "while_statement", "do_statement"),
    "cpp": ("for_statement", "for_range_loop", "while_statement", "do_statement"),
    "csharp": ("for_statement", "foreach_statement", "while_statement", "do_statement"),
    "kotlin": ("for_statement", "while_statement", "do_while_statement"),
    "ruby": ("for", "while", "until", "while_modifier", "until_modifier"),
    "php": ("for_statement", "foreach_statement", "while_statement", "do_statement"),
    "swift": ("for_statement", "while_statement", "repeat_while_statement"),
    "scala": ("for_expression", "while_expression"),
    "lua": ("for_statement", "while_statement", "repeat_statement"),
}


def loop_family(language: str, kinds: Sequence[str]) -> list[str] | None:
    """Every loop of the language when the examples show two or more kinds of loop and nothing else: the kind of
    loop was not the point. None otherwise."""
    loops = LOOPS.get(language, ())
    if len(set(kinds)) < 2 or not all(k in loops for k in kinds):
        return None
    return list(loops)


def _header_nodes(ancestor: Node, inner: Node) -> list[Node]:
    """The named nodes of an enclosing node outside its body and outside the child that holds `inner`."""
    out: list[Node] = []
    for c in ancestor.children:
        if not c.named or (c.start <= inner.start and inner.end <= c.end):
            continue
        if c.kind.endswith(PART_SUFFIXES) or c.kind in PART_KINDS:
            continue
        out.extend(d for d in c.walk() if d.named)
    return out


def _top_child(ancestor: Node, node: Node) -> Node | None:
    return next((c for c in ancestor.children if c.start <= node.start and node.end <= c.end), None)


def kind_marker(near: Sequence[Node], bad: Sequence[Node], fine: Sequence[Node | None],
                good: Sequence[Node]) -> dict[str, Any] | None:
    """A construct kind in the header of every enclosing node of the invalid code and in none of the valid
    code's (`destructor_name` in `~File()` and in `Conn::~Conn()`): `has` it, through the header child's field
    when every one holds it in the same field. None when there is none."""
    per = [{d.kind: d for d in _header_nodes(a, b) if not d.atomic and specific(d.kind)}
           for a, b in zip(near, bad, strict=True)]
    shared = set.intersection(*(set(p) for p in per)) if per else set()
    seen = {d.kind for f, g in zip(fine, good, strict=True) if f is not None for d in _header_nodes(f, g)}
    for kind in sorted(shared - seen):
        nodes = [p[kind] for p in per]
        tops = [_top_child(a, n) for a, n in zip(near, nodes, strict=True)]
        roles = {t.role if t is not None and t is not n else None for t, n in zip(tops, nodes, strict=True)}
        role = next(iter(roles)) if len(roles) == 1 else None
        if role:
            return {"field": role, "has": {"kind": kind, "stopBy": "end"}}
        return {"kind": kind, "stopBy": "end"}
    return None


def bases(cand: Candidate) -> list[tuple[dict[str, Any], bool]]:
    """What a context clause is added to: the near miss's rule; before it, when its pattern keeps only a keyword
    of a construct of its own (`return $A`, `throw $A`), that construct's kind (`kind: return_statement` also
    covers a bare `return`, `throw;`). Each with whether it is the kind."""
    out = [(cand.body["rule"], False)]
    if "constraints" not in cand.body and cand.keyword_only() and own_context(cand.gen.root.kind):
        out.insert(0, ({"kind": cand.gen.root.kind}, True))
    return out
