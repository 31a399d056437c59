"""A kind both sides write, told apart by the construct it holds (issue 29): an `else` whose body is an `if`, a
`typedef` whose type is a `struct`, a ternary holding a ternary. An author writes the kind and what one field
holds (`kind: else_clause`, `has: {field: body, kind: if_statement}`), not the text of the example; where the
invalid examples hold it in different fields (a ternary in one's alternative, in the other's consequence), a
node of its own kind in any field; a construct seen inside parentheses in some example is also looked for there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import KIND_ONLY, Candidate, own_context, specific
from sgtools.workflows.suggest.constructs import call_like, is_construct
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example, Node

_HELD = 2  # held constructs said per kind
Held = tuple[str | None, str]  # (field or None for any, kind held)


def _through(child: Node) -> tuple[Node, str | None]:
    """The node a child holds through parentheses (the parenthesized node, and the wrapper's kind), else itself."""
    inner = child.named_children()
    if "parenthesized" in child.kind and len(inner) == 1:
        return inner[0], child.kind
    return child, None


def _held(kind: str, example: Example, fields: bool) -> set[tuple[str | None, str, str | None]]:
    """What the nodes of `kind` in one example hold directly: field (None without `fields`), kind and the wrapper
    it was seen through (None when held bare) of each construct child."""
    held: set[tuple[str | None, str, str | None]] = set()
    for n in example.nodes():
        if n.kind != kind:
            continue
        for c in n.children:
            if not c.named or (fields and c.role is None):
                continue
            inner, wrapper = _through(c)
            if _construct(inner):
                held.add((c.role if fields else None, inner.kind, wrapper))
    return held


def _construct(node: Node) -> bool:
    """A construct that holds code, not a token held as a node (`any`, `const`, `*`)."""
    return is_construct(node) and bool(node.named_children())


def _field_parts(ancestor: Node, inner: Node) -> set[tuple[str, str]]:
    """(field, kind) of each construct an enclosing node holds in a field, other than the one holding `inner`."""
    return {(c.role, _through(c)[0].kind) for c in ancestor.children if c.role and c.named
            and not (c.start <= inner.start and inner.end <= c.end) and _construct(_through(c)[0])}


def held_marker(near: Sequence[Node], bad: Sequence[Node], fine: Sequence[Node | None],
                good: Sequence[Node]) -> dict[str, Any] | None:
    """An enclosing context told apart by the construct it holds in one field: every invalid match's (`near`, of
    `bad`) holds it and no valid match's (`fine`, of `good`) does (`property_declaration` whose `value` is a
    `call_expression`: a property made in place, beside one only declared), not by a piece of its text."""
    shared = set.intersection(*(_field_parts(a, b) for a, b in zip(near, bad, strict=True)))
    seen = set().union(*(_field_parts(f, g) for f, g in zip(fine, good, strict=True) if f is not None))
    told = sorted(shared - seen)
    return {"field": told[0][0], "kind": told[0][1]} if told else None


def _told(kind: str, invalid: Sequence[Example], valid: Sequence[Example],
          fields: bool) -> list[tuple[Held, set[str]]]:
    """What every invalid example's nodes of `kind` hold and no valid node of it does, each with the wrappers an
    invalid example held it through."""
    mine = [_held(kind, e, fields) for e in invalid]
    fine = {(r, k) for e in valid for r, k, _w in _held(kind, e, fields)}
    shared = set.intersection(*({(r, k) for r, k, _w in h} for h in mine)) - fine
    return [(h, {w for m in mine for r, k, w in m if (r, k) == h and w}) for h in
            sorted(shared, key=lambda h: (h[0] or "", h[1]))]


def _has(held: Held, wrappers: set[str]) -> dict[str, Any]:
    role, inner = held
    at = {"field": role} if role else {}
    plain: dict[str, Any] = {"has": {**at, "kind": inner}}
    if not wrappers:
        return plain
    return {"any": [plain, *({"has": {**at, "kind": w, "has": {"kind": inner}}} for w in sorted(wrappers))]}


def nested_forms(kind: str, node: Node, invalid: Sequence[Example], valid: Sequence[Example],
                 index: int) -> list[Candidate]:
    """`kind` (which the valid examples also write) by the construct every invalid example's nodes of it hold in
    one field and no valid one does; else a node of its own kind in any field. Only a construct of its own (a
    statement, clause or definition), not a building block (a call, whose parts are its name; parentheses; a
    declarator)."""
    if len(invalid) < 2 or call_like(kind) or not (specific(kind) or own_context(kind) or kind.endswith("definition")):
        return []
    held = _told(kind, invalid, valid, fields=True)
    if not held:  # in no one field: only a node of its own kind held is telling (a ternary in a ternary)
        held = [h for h in _told(kind, invalid, valid, fields=False) if h[0][1] == kind]
    out: list[Candidate] = []
    for (role, inner), wrappers in held[:_HELD]:
        where = f"as its {role}" if role else "directly inside"
        note = f"flags every `{kind}` holding a `{inner}` {where}; lets through the same problem written otherwise"
        rule = {"kind": kind, **_has((role, inner), wrappers)}
        out.append(Candidate({"rule": rule}, Generalised.written(node, f"{kind} holding {inner}"), KIND_ONLY,
                             index + len(out), note, holds=inner))
    return out


def _held_node(node: Node, holder: str) -> bool:
    """`node` is held by a node of kind `holder`, directly or through parentheses."""
    up = node.parent
    if up is not None and "parenthesized" in up.kind:
        up = up.parent
    return up is not None and up.kind == holder


def held_first(passing: list[Candidate]) -> list[Candidate]:
    """When the best candidate is a kind by the construct it holds (`property_declaration` whose value is an
    `as_expression`) and a candidate on that held construct itself separates as well (the `as_expression` written
    with `as!`), the held construct goes first: it is the point, the kind around it is where it happened to be."""
    top = passing[0] if passing else None
    if top is None or top.holds is None or top.holds == top.gen.root.kind:
        return passing
    own = next((c for c in passing[1:] if c.gen.root.kind == top.holds and _held_node(c.gen.root, top.gen.root.kind)),
               None)
    return passing if own is None else [own, *(c for c in passing if c is not own)]
