"""Constructs by their operator (issue 29): an operator the invalid examples write and no valid example does,
said on the construct that carries it, as its `operator` field (`binary_expression` whose operator is `==` or
`!=`, where the valid examples write `===`; Ruby's `and`/`or` where they write `&&`/`||`). The operands are
whatever they are: the operator is the point, as an ast-grep author writes it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from sgtools.workflows.suggest.candidates import CHILD, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

# Python's `comparison_operator` names its field in the plural; Swift's is `op`.
_ROLES = ("operator", "operators", "op")
# Comparisons are one family: comparing a value with itself is the same slip whichever of them is written.
_COMPARISONS = ("==", "!=", "===", "!==", "<", ">", "<=", ">=")


def _operators(example: Example) -> dict[str, dict[str, Node]]:
    """Per construct kind, the operators its nodes write in this example, each with one node writing it."""
    out: dict[str, dict[str, Node]] = {}
    for node in example.nodes():
        for child in node.children:
            if _token(child):
                out.setdefault(node.kind, {}).setdefault(child.text, node)
    return out


def _token(child: Node) -> bool:
    """An operator token in its field: anonymous (`==`), or a leaf of an operator kind (Swift's `custom_operator`
    that `!=` is parsed as)."""
    return (child.role in _ROLES and "\n" not in child.text
            and (not child.named or (not child.children and "operator" in child.kind)))


def comparisons(example: Example) -> list[tuple[Node, Node]]:
    """The nodes comparing two values in the example, each with its operator token."""
    return [(n, c) for n in example.nodes() for c in n.children if _token(c) and c.text in _COMPARISONS]


def comparison_kinds(invalid: Sequence[Example],
                     reparse: Callable[[list[str]], list[Example]]) -> dict[str, str]:
    """The kinds (with their operator's field) the grammar parses a comparison in, when the invalid examples
    compare in more than one of them (Swift: `== 0` is an `equality_expression`, `!= 0` an `infix_expression`):
    the first one re-parsed with each other comparison operator in its place (`> 0` is a
    `comparison_expression`). Empty when they compare in one kind: that kind says it."""
    per = [comparisons(e) for e in invalid]
    if not per or not all(per) or len({n.kind for p in per for n, _ in p}) < 2:
        return {}
    token = per[0][0][1]
    data = invalid[0].code.encode("utf-8")
    ops = [o for o in _COMPARISONS if o != token.text]
    texts = [(data[:token.start] + o.encode() + data[token.end:]).decode("utf-8") for o in ops]
    kinds = {n.kind: c.role or "" for p in per for n, c in p}
    for op, example in zip(ops, reparse(texts), strict=True):
        kinds.update(_written_at(example, token.start, op))
    return kinds


def _written_at(example: Example, start: int, op: str) -> dict[str, str]:
    """The kind (and its operator's field) of the comparison written with `op` at `start`; none where the text no
    longer parses (`===` in Python)."""
    if any("ERROR" in n.kind or n.kind == "MISSING" for n in example.nodes()):
        return {}
    return {n.kind: c.role or "" for n, c in comparisons(example) if c.start == start and c.text == op}


def _operand(holders: list[Node], leaf: tuple[str, str]) -> dict[str, str] | None:
    """The leaf as what the comparison compares, not anything at any depth: the operand itself (`0`), or an
    operand of one kind that ends with it in every comparison (`items.count`: `navigation_expression`
    `(^|\\W)count$`)."""
    kind, text = leaf
    found = [next((c for c in n.children if c.role not in _ROLES and leaf in _leaves(c)), None) for n in holders]
    if any(c is None for c in found):
        return None
    operands = [c for c in found if c is not None]
    if all(c.kind == kind and c.text == text for c in operands):
        return {"kind": kind, "regex": f"^{re.escape(text)}$"}
    if len({c.kind for c in operands}) == 1 and all(c.text.endswith(text) for c in operands):
        return {"kind": operands[0].kind, "regex": rf"(^|\W){re.escape(text)}$"}
    return None


def comparison_forms(invalid: Sequence[Example], kinds: dict[str, str], start: int) -> list[Candidate]:
    """A comparison by what every invalid one compares (`count` with `0`), in any of the kinds the grammar writes a
    comparison in (`comparison_kinds`), each with any comparison operator."""
    if not kinds:
        return []
    nodes = [[n for n, _ in comparisons(e) if n.kind in kinds] for e in invalid]
    shared = _shared_leaves(nodes)
    if not shared:
        return []
    regex = "^(" + "|".join(re.escape(o) for o in _COMPARISONS) + ")$"
    branches = [{"kind": k, "has": {"field": role, "regex": regex}} for k, role in sorted(kinds.items())]
    holders = [next(n for n in group if set(shared) <= _leaves(n)) for group in nodes]
    operands = [_operand(holders, leaf) for leaf in shared]
    held = [{"has": o} if o is not None else {"has": {"kind": k, "regex": f"^{re.escape(t)}$", "stopBy": "end"}}
            for o, (k, t) in zip(operands, shared, strict=True)]
    said = " and ".join(f"`{t}`" for _, t in shared)
    first = holders[0]
    note = f"flags every comparison holding {said}, in any of the kinds {' / '.join(sorted(kinds))}"
    constant = any(not re.search(r"identifier|name", k) for k, _ in shared)
    return [Candidate({"rule": {"any": branches, "all": held}},
                      Generalised.written(first, f"comparison {' '.join(t for _, t in shared)}"), CHILD, start,
                      note, compared=constant)]


def _variant(ops: set[str], others: set[str]) -> bool:
    """One of `others` is a spelling of one of `ops` (`===` of `==`, `!==` of `!=`): the valid examples write the
    operator's other form, so the form the invalid ones write is the point."""
    return any(a != b and (a in b or b in a) for a in ops for b in others)


def operator_forms(invalid: Sequence[Example], valid: Sequence[Example], start: int) -> list[Candidate]:
    """`kind: K` + `has: {field: operator, regex: ^(op|op2)$}` for the operators of K that every invalid example
    writes one of and no valid example writes (each example may show another of them); where a valid example
    also writes one, every operator the invalid examples write, when the valid ones also write another spelling of
    it (`==` / `!=` beside `===`, and `== null`): a near miss (`operators`), told apart by a part (around.py)."""
    per = [_operators(e) for e in invalid]
    fine: dict[str, set[str]] = {}
    for e in valid:
        for kind, ops in _operators(e).items():
            fine.setdefault(kind, set()).update(ops)
    out: list[Candidate] = []
    for kind in sorted(set.intersection(*(set(p) for p in per)) if per else set()):
        written = [set(p[kind]) for p in per]
        wrong = [w - fine.get(kind, set()) for w in written]
        family = not all(wrong) and _variant(set().union(*written), fine.get(kind, set()) - set().union(*written))
        if not all(wrong) and not family:
            continue  # an invalid example writes no operator of this kind that the valid ones avoid
        said_ops = written if family else wrong
        shown = sorted(set().union(*said_ops))
        regex = "^(" + "|".join(re.escape(op) for op in shown) + ")$" if len(shown) > 1 else f"^{re.escape(shown[0])}$"
        first = per[0][kind][sorted(said_ops[0])[0]]
        has = {"field": next(c.role for c in first.children if c.role in _ROLES), "regex": regex}
        rule = {"kind": kind, "has": has}
        said = " or ".join(f"`{op}`" for op in shown)
        note = (f"flags every `{kind}` written with {said}, whatever its operands; lets through the same test "
                "written another way (a function call)")
        out.append(Candidate({"rule": rule}, Generalised.written(first, f"{kind} {' '.join(shown)}"), CHILD,
                             start + len(out), note, operators=family))
        if not family:
            out.extend(_operand_forms(kind, invalid, has, len(shown) > 1, start + len(out)))
    return out + _alike_forms(invalid, valid, start + len(out))


def _alike(node: Node) -> Node | None:
    """The operator token of a binary construct whose two operands are the same code (`x === x`), else None."""
    sides = {c.role: c.text for c in node.children if c.role in ("left", "right")}
    if len(sides) != 2 or sides["left"] != sides["right"]:
        return None
    return next((c for c in node.children if c.role in _ROLES and not c.named), None)


def _alike_kinds(invalid: Sequence[Example], valid: Sequence[Example]) -> dict[str, list[Node]]:
    """Per binary kind written with alike operands in every invalid example and only with unlike ones in the valid
    examples (which write it so at least once), the operator token of one such node per invalid example."""
    per = [{n.kind: op for n in e.nodes() if (op := _alike(n)) is not None} for e in invalid]
    unlike = {n.kind for e in valid for n in e.nodes() if any(c.role == "right" for c in n.children)}
    alike = {n.kind for e in valid for n in e.nodes() if _alike(n) is not None}
    shared = set.intersection(*(set(p) for p in per)) if per else set()
    return {kind: [p[kind] for p in per] for kind in sorted(shared & unlike - alike)}


def _alike_forms(invalid: Sequence[Example], valid: Sequence[Example], start: int) -> list[Candidate]:
    """A binary construct whose operands are the same code in every invalid example, where a valid example writes
    it with two different ones (`a.id === a.id` beside `a.id === b.id`): one metavariable on both sides, `has:
    {field: left, pattern: $A}` and `has: {field: right, pattern: $A}`, with the operators shown (any comparison
    when they all are one)."""
    out: list[Candidate] = []
    for kind, tokens in _alike_kinds(invalid, valid).items():
        shown = {t.text for t in tokens}
        ops = _COMPARISONS if shown <= set(_COMPARISONS) else sorted(shown)
        first = tokens[0]
        has = {"field": first.role, "regex": "^(" + "|".join(re.escape(o) for o in ops) + ")$"}
        sides = [{"has": {"field": side, "pattern": "$A"}} for side in ("left", "right")]
        note = f"flags every `{kind}` whose two operands are the same code; lets through a copy made first"
        holder = first.parent if first.parent is not None else first
        out.append(Candidate({"rule": {"kind": kind, "all": [{"has": has}, *sides]}},
                             Generalised.written(holder, f"{kind} alike"), CHILD, start + len(out), note))
    return out


def spelled(near: Sequence[tuple[Candidate, Outcome]]) -> list[tuple[Candidate, Outcome]]:
    """The near misses that are constructs by operators a valid example also writes: told apart by a part."""
    return [m for m in near if m[0].operators]


def _leaves(node: Node) -> set[tuple[str, str]]:
    """The named leaves a construct holds (`size`, `0` of `orders.size() == 0`), by kind and text."""
    return {(d.kind, d.text) for d in node.walk() if not d.children and d.named and d.text.strip()}


def _shared_leaves(nodes: list[list[Node]]) -> list[tuple[str, str]]:
    """The leaves some node of each example holds, when one node in each holds them all."""
    per = [set().union(*(_leaves(n) for n in group)) for group in nodes]
    shared = set.intersection(*per) if per and all(per) else set()
    if not shared or not all(any(shared <= _leaves(n) for n in group) for group in nodes):
        return []
    return sorted(shared)


def _operand_forms(kind: str, invalid: Sequence[Example], operator: dict[str, str], several: bool,
                   start: int) -> list[Candidate]:
    """A comparison by what every invalid one compares (`size()` with `0`, whatever the operator: `== 0`, `> 0`,
    `!= 0`), then the same with the operators shown (`== None` / `!= None`, where `is None` is fine): the shared
    leaves of one node of the kind in each invalid example, at any depth."""
    nodes = [[n for n in e.nodes() if n.kind == kind and any(c.role in _ROLES for c in n.children)]
             for e in invalid]
    shared = _shared_leaves(nodes)
    if not shared:
        return []
    held = [{"has": {"kind": k, "regex": f"^{re.escape(t)}$", "stopBy": "end"}} for k, t in shared]
    said = " and ".join(f"`{t}`" for _, t in shared)
    first = next(n for n in nodes[0] if set(shared) <= _leaves(n))
    forms = [({"kind": kind, "all": held}, f"flags every `{kind}` holding {said}, whatever its operator"),
             ({"kind": kind, "all": [{"has": operator}, *held]},
              f"flags every `{kind}` holding {said} with the operator shown")]
    # Only when the operators differ does no pattern say the comparison (`$A == None` does when all write `==`).
    constant = several and any(not re.search(r"identifier|name", k) for k, _ in shared)
    return [Candidate({"rule": r}, Generalised.written(first, f"{kind} {' '.join(t for _, t in shared)}"), CHILD,
                      start + i, note, compared=constant) for i, (r, note) in enumerate(forms)]
