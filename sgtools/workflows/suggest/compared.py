"""The comparison the request names by what it compares (issue 29): "don't compare objects with JSON.stringify(a)
=== JSON.stringify(b)", "instead of comparing indexOf() with -1", "never with == on a float literal". The names
are where the point is (requested.py leaves them alone): an author writes the comparison whose operands are the
code the request writes (each argument list any arguments, reached through any object), a literal as written, or
a literal of the kind it names, with the operator it writes and that operator's other spellings (`==` is also
`===`, `!=`, `!==`: equality asked either way); the operands the examples happen to show beside them are free.
Verified on the examples like any candidate; first when it separates them, like the code the request names.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sgtools.workflows.suggest import callnames
from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import REQUESTED, Candidate, of_kinds
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.operators import comparisons
from sgtools.workflows.suggest.tree import Example, Node

_OP = r"===|!==|==|!=|<=|>=|<|>"
_EQUALITY = ("==", "!=", "===", "!==")
_LIT = r"-?\d+(?:\.\d+)?[lLfFdDmMuU]?|null|nil|None|true|false|True|False|undefined|\"\"|''"
_CALL = r"\((?:[^()]|\([^()]*\))*\)"  # an argument list, one level of nested calls in it
_CODE = rf"[A-Za-z_$][\w$]*(?:{_CALL})?(?:\s*(?:\.|->|::)\s*[A-Za-z_$][\w$]*(?:{_CALL})?)*"
_SIDE = rf"(?:{_LIT}|{_CODE})"
# Code the request writes comparing two things (`JSON.stringify(a) === JSON.stringify(b)`, `count() > 0`).
_WRITTEN = re.compile(rf"(?<![\w$.])(?P<a>{_SIDE})\s+(?P<op>{_OP})\s+(?P<b>{_SIDE})(?![\w$(])")
# In words: "comparing indexOf() with -1", "compare size() to 0".
_WORDS = re.compile(rf"\bcompar(?:e|es|ing)\s+(?P<a>{_SIDE})\s+(?:with|to|against)\s+(?P<b>{_SIDE})(?![\w$(])",
                    re.IGNORECASE)
# An operator on a kind of literal: "with == on a float literal", "!= against a string literal".
_ON_KIND = re.compile(rf"(?P<op>{_OP})\s+(?:on|against|with|to)\s+(?:an?\s+)?(?P<kind>[a-z]+)\s+literals?\b")


@dataclass(frozen=True)
class _Asked:
    ops: tuple[str, ...]  # empty: any comparison
    sides: tuple[str, ...]  # an operand regex each, from the request's words
    number: int | None = None  # compared with an integer (`> 0`, "with -1"): the code is sides[0]


def _operand(side: str) -> str | None:
    """The regex of an operand the request writes: a literal as written (a number by its value, whatever its
    suffix), code (called, qualified, snake or camel case) with any arguments (`size()` is the method, not its
    arity) and any object before it; None for a
    placeholder (`a`, `x`: any operand), "" for a prose word (no code comparison)."""
    if re.fullmatch(_LIT, side):
        if re.fullmatch(r"-?\d+(?:\.\d+)?\w?", side):
            return "^" + re.escape(side.rstrip("lLfFdDmMuU")).replace("-", r"-\s*") + "[lLfFdDmMuU]?$"
        return f"^{re.escape(side)}$"
    if not re.search(r"[(.:>_$]|[a-z][A-Z]", side):
        return None if re.fullmatch(r"[A-Za-z]\d?", side) else ""
    # A placeholder receiver (`m` of `m.find(k)`) is any object: the code is the method reached through one (a
    # member access, not a namespace: `std::find(...)` is another function).
    member = re.match(r"[A-Za-z]\d?\s*(?:\.|->|\?\.)\s*(?=[A-Za-z_$])", side)
    side = side[member.end():] if member else side
    parts = re.split(rf"({_CALL})", side)
    text = "".join(r"\([\s\S]*\)" if p.startswith("(") else r"\s*(\.|->|::)\s*".join(
        re.escape(w) for w in re.split(r"\s*(?:\.|->|::)\s*", p)) for p in parts if p)
    return rf"^[\s\S]*(\.|->|\?\.)\s*{text}$" if member else rf"^([\s\S]*(\.|->|::|\?\.)\s*)?{text}$"


def _ops(op: str) -> tuple[str, ...]:
    return _EQUALITY if op in _EQUALITY else (op,)


def _part(request: str, m: re.Match[str]) -> bool:
    """The comparison is part of more code the request writes: a code span holding more than it (`for i := 0; i <
    len(s); i++`), the condition of an `if (...)` or a loop, a call's argument (`assert!(a == b)`: `argued`), or
    one of two joined by `||` / `&&` (`s == null || s == ""`); that code is the point, not the comparison."""
    spans = [(c.start(1), c.end(1)) for c in re.finditer(r"`([^`]+)`", request)]
    inside = any(a <= m.start() and m.end() <= b and (a, b) != (m.start(), m.end()) for a, b in spans)
    joined = not _WORDS.match(m.group(0)) and re.match(r"\s*(\|\||&&|\band\b|\bor\b)\s*\S",
                                                       request[m.end():]) is not None
    return inside or joined or re.search(r"(\b(if|while|for|when|unless)\s*\(|\|\||&&|\w!?\()\s*$",
                                         request[:m.start()]) is not None


def _asked(request: str) -> list[_Asked]:
    """The comparisons the request names: written as code, in words, or as an operator on a kind of literal; not one
    written as part of more code."""
    out = []
    for m in [*_WRITTEN.finditer(request), *_WORDS.finditer(request)]:
        if _part(request, m):
            continue
        said = (_operand(m.group("a")), _operand(m.group("b")))
        sides = tuple(s for s in said if s)
        ops = _ops(m.group("op")) if "op" in m.groupdict() else ()
        number = m.group("b") if re.fullmatch(r"-?\d+", m.group("b")) else None
        if "" not in said and sides and (ops or len(sides) == 2):
            out.append(_Asked(ops, sides, int(number) if number is not None else None))
    out += [_Asked(_ops(m.group("op")), ("kind:" + m.group("kind").lower(),)) for m in _ON_KIND.finditer(request)]
    return out


def _fits(operand: Node, side: str) -> bool:
    if side.startswith("kind:"):
        return side[5:] in operand.kind
    return re.search(side, operand.text) is not None


def _holds(node: Node, op: Node, asked: _Asked) -> bool:
    """The comparison writes one of the operators asked (any when none is) and an operand for each side asked,
    two sides asked alike by two operands."""
    operands = [c for c in node.children if c.named and c is not op]
    if asked.ops and op.text not in asked.ops:
        return False
    free = list(operands)
    for side in asked.sides:
        found = next((o for o in free if _fits(o, side)), None)
        if found is None:
            return False
        free.remove(found)
    return True


def _side_rule(side: str, operands: list[Node]) -> dict[str, Any]:
    if side.startswith("kind:"):
        kinds = sorted({o.kind for o in operands if side[5:] in o.kind})
        return of_kinds(kinds)
    return {"regex": side}


def _rule(asked: _Asked, shown: list[tuple[Node, Node]]) -> dict[str, Any]:
    """Any of the kinds the comparisons shown are, with the operators asked and an operand for each side (by
    field when two sides are asked alike and the grammar names them)."""
    kinds = sorted({(n.kind, str(op.role)) for n, op in shown})
    operands = [c for n, op in shown for c in n.children if c.named and c is not op]
    branches: list[dict[str, Any]] = [{"kind": k, "has": {"field": role, "regex": "^(" + "|".join(
        re.escape(o) for o in asked.ops) + ")$"}} if asked.ops else {"kind": k} for k, role in kinds]
    sides = [_side_rule(s, operands) for s in asked.sides]
    held = [{"has": s} for s in sides]
    if len(sides) == 2 and sides[0] == sides[1]:  # both operands, by field where the grammar names them
        fields = all(o.role in ("left", "right") for o in operands)
        places: list[dict[str, Any]] = [{"field": "left"}, {"field": "right"}] if fields else [
            {"nthChild": 1}, {"nthChild": {"position": 1, "reverse": True}}]
        held = [{"has": {**s, **p}} for s, p in zip(sides, places, strict=True)]
    rule = {"any": branches, "all": held} if len(branches) > 1 else {**branches[0], "all": held}
    return _with_neighbours(rule, asked, sides[0], kinds, operands)


def _with_neighbours(rule: dict[str, Any], asked: _Asked, code: dict[str, Any], kinds: list[tuple[str, str]],
                     operands: list[Node]) -> dict[str, Any]:
    """The rule, or any of it and its tests against the next integer where the code is compared with an integer
    by any operator and the grammar names the sides."""
    if asked.ops or asked.number is None or not all(o.role in ("left", "right") for o in operands):
        return rule
    return {"any": [rule, *_neighbours(asked.number, code, kinds)]}


def _neighbours(number: int, code: dict[str, Any], kinds: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The same integer tests written against the next integer either way (`indexOf(x) > -1` is `>= 0`, `< 0` is
    `<= -1`; `size() > 0` is `>= 1`), the code on either side: comparing code with N, said in words, is any of
    them."""
    out: list[dict[str, Any]] = []
    for value, code_left, code_right in ((number + 1, (">=", "<"), ("<=", ">")),
                                         (number - 1, ("<=", ">"), (">=", "<"))):
        literal = "^" + ("-\\s*" if value < 0 else "") + f"{abs(value)}[lLuU]?$"
        for side, other, ops in (("left", "right", code_left), ("right", "left", code_right)):
            out += [{"kind": kind, "all": [{"has": {"field": role, "regex": "^(" + "|".join(ops) + ")$"}},
                                           {"has": {**code, "field": side}},
                                           {"has": {"field": other, "regex": literal}}]} for kind, role in kinds]
    return out


def compare_forms(request: str | None, invalid: Sequence[Example], start: int) -> list[Candidate]:
    """The comparison the request names, when every invalid example writes one; to be verified on the examples
    like any other candidate."""
    out: list[Candidate] = []
    for asked in _asked(request or "") if invalid else []:
        shown = [[(n, op) for n, op in comparisons(e) if _holds(n, op, asked)] for e in invalid]
        if not all(shown) and asked.ops and asked.number is not None:
            # The examples compare the same code with the integer by another operator too: the operands are the
            # point, as when the request says it in words.
            asked = dataclasses.replace(asked, ops=())
            shown = [[(n, op) for n, op in comparisons(e) if _holds(n, op, asked)] for e in invalid]
        if not all(shown):
            continue
        flat = [pair for group in shown for pair in group]
        ops = " / ".join(asked.ops) or "any operator"
        note = (f"flags every comparison ({ops}) of the operands the request names, whatever else it compares; lets "
                "through the same test written another way (a helper)")
        out.append(Candidate({"rule": _rule(asked, flat)}, Generalised.written(flat[0][0], f"comparison {ops}"),
                             REQUESTED, start + len(out), note))
    return out


# A comparison the request writes as the one argument of a call or a macro: `assert!(a == b)`, `assertTrue(x == y)`.
_ARGUED = re.compile(rf"(?<![\w$.])(?P<name>[A-Za-z_][\w.:]*)!?\(\s*{_SIDE}\s+(?P<op>{_OP})\s+{_SIDE}\s*\)")


def _argued(node: Node, callee: re.Pattern[str], ops: tuple[str, ...]) -> Node | None:
    """The argument list of a call (or a macro) by the name that holds a comparison by one of the operators: the
    operator's token itself (a macro's tokens are not parsed: said so, a comparison in a nested token tree is not
    one of them) or a comparison, as one of its items."""
    name = callnames.name_of(node) if call_like(node.kind) else None
    if name is None or not callee.search(name.text):
        return None
    return next((c for c in node.children if c is not name and c.children and any(
        d.text in ops or any(t.text in ops and not t.named for t in d.children) for d in c.children)), None)


def argument_forms(request: str | None, invalid: Sequence[Example], language: str, start: int) -> list[Candidate]:
    """The call the request writes with a comparison as its argument (`assert!(a == b)`): that call by its name,
    whose arguments hold a comparison by the operator written or its other spellings, whatever it compares; not
    one whose comparison is nested deeper (`assert!(v.iter().any(|x| *x == 3))`)."""
    out: list[Candidate] = []
    for m in _ARGUED.finditer(request or "") if invalid else []:
        ops = _ops(m.group("op"))
        callee = re.compile(rf"^([\s\S]*(\.|->|::)\s*)?{re.escape(m.group('name'))}$")
        found = [[(n, a) for n in e.nodes() if (a := _argued(n, callee, ops)) is not None] for e in invalid]
        if not all(found):
            continue
        node, args = found[0][0]
        name = callnames.name_of(node)
        regex = "^(" + "|".join(re.escape(o) for o in ops) + ")$"
        tokens = any(d.text in ops for d in args.children)  # a macro's tokens: the operator is an item
        held: dict[str, Any] = {"kind": args.kind, "has": {"regex": regex} if tokens else {"has": {"regex": regex}}}
        if args.role:
            held["field"] = args.role
        call = callnames.by_name(node.kind, (name.role or "") if name else "", callee.pattern, language)
        rule = {"all": [call, {"has": held}]}
        label = f"{m.group('name')}(... {m.group('op')} ...)"
        note = (f"flags every {m.group('name')} call whose argument is a comparison by {' / '.join(ops)}, whatever "
                "it compares; lets through one that compares inside a nested call")
        out.append(Candidate({"rule": rule}, Generalised.written(node, label), REQUESTED, start + len(out), note))
    return out
