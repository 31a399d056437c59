"""Constructs by their operator (issue 29): an operator the invalid examples write and no valid example does,
said on the construct that carries it, as its `operator` field (`binary_expression` whose operator is `==` or
`!=`, where the valid examples write `===`; Ruby's `and`/`or` where they write `&&`/`||`). The operands are
whatever they are: the operator is the point, as an ast-grep author writes it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.workflows.suggest.candidates import CHILD, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example, Node

_ROLE = "operator"


def _operators(example: Example) -> dict[str, dict[str, Node]]:
    """Per construct kind, the operators its nodes write in this example, each with one node writing it."""
    out: dict[str, dict[str, Node]] = {}
    for node in example.nodes():
        for child in node.children:
            if child.role == _ROLE and not child.named and "\n" not in child.text:
                out.setdefault(node.kind, {}).setdefault(child.text, node)
    return out


def operator_forms(invalid: Sequence[Example], valid: Sequence[Example], start: int) -> list[Candidate]:
    """`kind: K` + `has: {field: operator, regex: ^(op|op2)$}` for the operators of K that every invalid example
    writes one of and no valid example writes (each example may show another of them)."""
    per = [_operators(e) for e in invalid]
    fine: dict[str, set[str]] = {}
    for e in valid:
        for kind, ops in _operators(e).items():
            fine.setdefault(kind, set()).update(ops)
    out: list[Candidate] = []
    for kind in sorted(set.intersection(*(set(p) for p in per)) if per else set()):
        wrong = [set(p[kind]) - fine.get(kind, set()) for p in per]
        if not all(wrong):
            continue  # an invalid example writes no operator of this kind that the valid ones avoid
        shown = sorted(set().union(*wrong))
        regex = "^(" + "|".join(re.escape(op) for op in shown) + ")$" if len(shown) > 1 else f"^{re.escape(shown[0])}$"
        rule = {"kind": kind, "has": {"field": _ROLE, "regex": regex}}
        first = per[0][kind][sorted(wrong[0])[0]]
        said = " or ".join(f"`{op}`" for op in shown)
        note = (f"flags every `{kind}` written with {said}, whatever its operands; lets through the same test "
                "written another way (a function call)")
        out.append(Candidate({"rule": rule}, Generalised.written(first, f"{kind} {' '.join(shown)}"), CHILD,
                             start + len(out), note))
    return out
