"""Shapes: constructs that keep no literal in common (`logger.info(f"...")` beside `log.warning(f"...")`), said
by their kind and the kinds of their field children (`kind: call`, `has: {field: function, kind: attribute}`).

A shape says little by itself, so it is never returned: it is tried only as a near miss, for the forms that tell
it apart from the valid code by what it holds (around.held_kind_forms: an `interpolation` inside)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import is_construct
from sgtools.workflows.suggest.candidates import FIELD, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.roots import roots
from sgtools.workflows.suggest.tree import Example, Node

_SHAPES = 4  # shapes tried per request: the smallest constructs no pattern said


def _fields(group: list[Node]) -> list[tuple[str, str]]:
    """(field, kind) of each field child every node of the group has, of one kind in all, not a list or block."""
    first = [(c.role, c.kind) for c in group[0].children if c.role and c.named and (c.atomic or is_construct(c))]
    return [(role, kind) for role, kind in first if role is not None
            and all(any(c.role == role and c.kind == kind for c in n.children) for n in group[1:])]


def shape_forms(invalid: Sequence[Example], gens: Sequence[Generalised], start: int) -> list[Candidate]:
    """Groups of constructs that no generalisation kept (they share no literal), each as its shape."""
    if len(invalid) < 2:
        return []
    said = {id(g.root) for g in gens}
    out: list[Candidate] = []
    groups = sorted((g for g in roots(invalid) if id(g[0]) not in said and is_construct(g[0])),
                    key=lambda g: g[0].size())
    for group in groups:
        fields = _fields(group)
        if not fields:
            continue
        has: list[dict[str, Any]] = [{"has": {"field": role, "kind": kind}} for role, kind in fields]
        rule = {"kind": group[0].kind, **has[0]} if len(has) == 1 else {"all": [{"kind": group[0].kind}, *has]}
        label = f"{group[0].kind} with " + ", ".join(f"{role} {kind}" for role, kind in fields)
        out.append(Candidate({"rule": rule}, Generalised.written(group[0], label), FIELD, start + len(out),
                             shape=True))
        if len(out) == _SHAPES:
            break
    return out
