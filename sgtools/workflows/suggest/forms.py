"""The pattern forms each generalised root is written in: a bare pattern (with its cast and turned-round
variants), a pattern with `kind` or `regex` constraints, a `context`/`selector` pattern when the bare text is
misread, and `kind` + `has`. Ranking them is candidates.py's job."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import (
    CONTEXT,
    CONTEXT_TYPED,
    KIND_HAS,
    PINNED,
    PLAIN,
    TYPED,
    Candidate,
    kept_leaves,
    of_kinds,
)
from sgtools.workflows.suggest.constructs import creation
from sgtools.workflows.suggest.generalise import Generalised, Hole, apply_edits
from sgtools.workflows.suggest.literal_kinds import pinned_rule
from sgtools.workflows.suggest.roots import pin_regex
from sgtools.workflows.suggest.tree import Example, Node

_CASTS = frozenset({"c", "cpp"})  # languages whose code casts a call's result in an assignment (`(char *)malloc(n)`)

# A string of any form (quoted, template, raw, f-, verbatim), or code that starts with one (`'a(' + x`).
QUOTED = r"^[@$\w]{0,2}[\"'`]"


def _quoted(hole: Hole) -> bool:
    return not hole.multi and all(re.match(QUOTED, t) for t in hole.texts)


def kind_constraints(holes: Sequence[Hole]) -> dict[str, Any]:
    """Each single hole as the kinds the examples put there (`[]` and `{}` in `def f(a=[])`: list or dictionary);
    a hole that always holds a string (or code starting with one) as its opening quote: the language's other
    string forms (a template string beside a quoted one) are strings too."""
    out: dict[str, Any] = {}
    for h in holes:
        if _quoted(h) and not h.relaxed:
            out[h.name] = {"regex": QUOTED}
            continue
        if h.multi or len(h.kinds) > 3:
            continue
        kinds = sorted(h.kinds)
        out[h.name] = of_kinds(kinds)
    return out


def regex_constraints(holes: Sequence[Hole]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for h in holes:
        pin = None if h.multi or h.relaxed else pin_regex(h.texts) or (QUOTED if _quoted(h) else None)
        if pin is not None:
            out[h.name] = {"regex": pin}
    return out


def _patterns(rules: list[dict[str, Any]]) -> dict[str, Any]:
    """One pattern, or `any` of the variants when the examples differ in a keyword (`const` / `let`)."""
    return rules[0] if len(rules) == 1 else {"any": rules}


def _edited(gen: Generalised, edits: list[tuple[int, int, str]]) -> list[str]:
    """Each of the pattern's variants with `edits` applied instead of its own: the same holes and choices."""
    return [Generalised(gen.root, gen.pattern, gen.holes, gen.level, gen.kept, edits, gen.choices).variant(n)
            for n in range(len(gen.alternatives))]


def _cast(gen: Generalised) -> list[str]:
    """An assignment of a call's result, with the result cast (`$A = ($CAST)realloc($A, $$$ARGS)`): C-family code
    writes `p = (char *)realloc(p, n)` as often as without the cast, and a pattern holds only the form it shows."""
    value = next((c for c in gen.root.children if c.role == "right"), None)
    if gen.root.kind != "assignment_expression" or value is None or value.kind != "call_expression" \
            or any(s <= value.start < e or s < value.end <= e for s, e, _ in gen.edits):
        return []
    edits = [*gen.edits, (value.start, value.start, "($CAST)")]
    return _edited(gen, edits)


# Languages whose code may name a class with its package or namespace in front (`new java.util.Locale(...)`,
# `javax.crypto.Cipher.getInstance(...)`, `new System.Net.Mail.SmtpClient(...)`).
_PACKAGED = frozenset({"java", "csharp", "kotlin", "scala"})
_CLASS_LEAF = re.compile(r"[A-Z]\w*")


def _head_class(gen: Generalised) -> Node | None:
    """The class a pattern starts with or makes (`Cipher` of `Cipher.getInstance(...)`, `Locale` of `new
    Locale(...)`), written bare: a capitalised name no hole covers, the root's leftmost name or its `type`."""
    made = next((c for c in gen.root.children if c.role in ("type", "constructor") and c.named), None) \
        if creation(gen.root.kind) else None
    leaf = made if made is not None and not made.children else next(
        (n for n in gen.root.walk() if n.named and not n.children), None)
    if leaf is None or not _CLASS_LEAF.fullmatch(leaf.text) or (leaf is not made and leaf.start != gen.root.start) \
            or any(s < leaf.end and leaf.start < e for s, e, _ in gen.edits):
        return None
    return leaf


def packaged(gen: Generalised, language: str) -> list[str]:
    """The pattern with a package in front of the class it starts with or makes (`new $PKG.Locale($$$ARGS)`): a
    pattern holds the name only as written, and code names a class with its package too."""
    leaf = _head_class(gen) if language in _PACKAGED else None
    if leaf is None:
        return []
    edits = [*gen.edits, (leaf.start, leaf.start, "$PKG.")]
    return _edited(gen, edits)


# C and C++ reach a member through an object (`.`) or through a pointer (`->`): the same member, the same call.
_ACCESS_TWINS = {".": "->", "->": "."}


def pointed(gen: Generalised, language: str) -> list[str]:
    """The pattern with each member access written through the other operator (`$A->compare_exchange_weak(...)`
    beside `$A.compare_exchange_weak(...)`): a pattern holds the operator as written, an author means the member."""
    if language not in _CASTS:
        return []
    edits = list(gen.edits)
    for node in gen.root.walk():
        op = next((c for c in node.children if c.role == "operator" and c.text in _ACCESS_TWINS), None) \
            if node.kind == "field_expression" else None
        if op is not None and not any(s < op.end and op.start < e for s, e, _ in edits):
            edits.append((op.start, op.end, _ACCESS_TWINS[op.text]))
    if len(edits) == len(gen.edits):
        return []
    return _edited(gen, edits)


# A comparison an author writes either way round: symmetric operators, with a literal on one side (`x != null`,
# `null != x`, Yoda style). Ordering operators are not: `0 < n` is `n > 0`, another token.
_SYMMETRIC = frozenset({"==", "!=", "===", "!=="})
_LITERAL = re.compile(r"^(?:null|NULL|nil|None|undefined|0|\"\"|'')$")


def _within(node: Node, start: int, end: int) -> bool:
    return node.start <= start and end <= node.end


def _literal_comparison(node: Node) -> tuple[Node, Node, Node] | None:
    """(left, right, the literal) where `node` compares a code and a literal by a symmetric operator."""
    kids = node.children
    if len(kids) != 3 or kids[1].named or kids[1].text not in _SYMMETRIC or not (kids[0].named and kids[2].named):
        return None
    left, right = kids[0], kids[2]
    if bool(_LITERAL.match(left.text)) == bool(_LITERAL.match(right.text)):
        return None
    return left, right, left if _LITERAL.match(left.text) else right


def _swap(edits: list[tuple[int, int, str]], left: Node, right: Node) -> list[tuple[int, int, str]] | None:
    """`edits` with the two operands' generalised texts exchanged; None when a hole spans the operator."""
    inside = [(s, e, t) for s, e, t in edits if left.start <= s and e <= right.end]
    if any(not (_within(left, s, e) or _within(right, s, e)) for s, e, _ in inside):
        return None
    texts = [apply_edits(o, [x for x in inside if _within(o, x[0], x[1])], dedent=False) for o in (right, left)]
    kept = [x for x in edits if x not in inside]
    return [*kept, (left.start, left.end, texts[0]), (right.start, right.end, texts[1])]


def turned(gen: Generalised) -> list[str]:
    """The pattern with each comparison of a code and a literal written the other way round (`null != $A`)."""
    edits, turned = list(gen.edits), False
    for node in gen.root.walk():
        found = _literal_comparison(node)
        if found is None or any(s < found[2].end and found[2].start < e for s, e, _ in edits):
            continue  # no comparison with a literal, or the literal is a hole
        swapped = _swap(edits, found[0], found[1])
        if swapped is not None:
            edits, turned = swapped, True
    if not turned:
        return []
    return _edited(gen, edits)


def plain_forms(gens: Sequence[Generalised], *, shadowed: bool = False, language: str = "") -> list[Candidate]:
    out: list[Candidate] = []
    for i, gen in enumerate(gens):
        if gen.shadowed != shadowed:
            continue
        if gen.pinned is not None:
            out.append(Candidate({"rule": pinned_rule(language, gen.root.kind, gen.pinned)}, gen, PINNED, i))
            continue
        casts = _cast(gen) if language in _CASTS else []
        variants = gen.alternatives + casts + turned(gen) + packaged(gen, language) + pointed(gen, language)
        rule = _patterns([{"pattern": p} for p in variants])
        typed = kind_constraints(gen.holes)
        if not gen.typed_only:
            out.append(Candidate({"rule": rule}, gen, PLAIN, i))
        if typed:
            out.append(Candidate({"rule": rule, "constraints": typed}, gen, TYPED, i))
        if gen.typed_only:
            continue
        pinned = regex_constraints(gen.holes)
        if pinned:
            out.append(Candidate({"rule": rule, "constraints": pinned}, gen, PINNED, i))
        leads = {h.name: {"regex": rf"^{h.lead}\b"} for h in gen.holes if h.lead is not None and not h.multi}
        if leads and leads != pinned:  # only the keyword the holes' code agrees on (`async`), nothing else
            out.append(Candidate({"rule": rule, "constraints": leads}, gen, PINNED, i))
    return out


def _context(gen: Generalised, example: Example, variant: int = 0) -> str | None:
    """The example around the root (only the top-level items holding it, and a package line), generalised;
    None when an earlier node of the same kind would be picked by the selector instead."""
    top = next((c for c in example.root.children if c.start <= gen.root.start and gen.root.end <= c.end), None)
    if top is None:
        return None
    for node in top.walk():
        if node is gen.root:
            break
        if node.kind == gen.root.kind:
            return None
    keep = [c for c in example.root.children if c is top or ("package" in c.kind and c.end <= top.start)]
    data = gen.in_place(example.code, variant).encode("utf-8")
    shift = len(data) - len(example.code.encode("utf-8"))
    parts = []
    for c in keep:
        end = c.end + (shift if c is top else 0)
        parts.append(data[c.start:end].decode("utf-8", "replace"))
    return "\n".join(parts)


def context_forms(gens: Sequence[Generalised], pivot: Example, indexes: Sequence[int]) -> list[Candidate]:
    out: list[Candidate] = []
    for i in indexes:
        gen = gens[i]
        if gen.pinned is not None:
            continue
        contexts = [_context(gen, pivot, n) for n in range(len(gen.alternatives))]
        if any(c is None for c in contexts):
            continue
        rule = _patterns([{"pattern": {"context": c, "selector": gen.root.kind}} for c in contexts])
        if not gen.typed_only:
            out.append(Candidate({"rule": rule}, gen, CONTEXT, i))
        typed = kind_constraints(gen.holes)
        if typed:
            out.append(Candidate({"rule": rule, "constraints": typed}, gen, CONTEXT_TYPED, i))
    return out


def _parameter_name(node: Node) -> bool:
    return node.role == "name" and node.parent is not None and "parameter" in node.parent.kind


def kind_has_forms(gens: Sequence[Generalised], indexes: Sequence[int]) -> list[Candidate]:
    """`kind` of the root plus `has` for its literal names: order-free, for what no pattern form could say."""
    out: list[Candidate] = []
    for i in indexes:
        gen = gens[i]
        kept = kept_leaves(gen) if gen.pinned is None else []
        # A literal whose content is kept too (`"_blank"` and its `_blank`) is said by the content: any quotes.
        # A parameter's own name (`catch (E e)`) is what the example called it, not what the code is.
        leaves = [n for n in kept if not any(o is not n and o in n.walk() for o in kept) and not _parameter_name(n)][:3]
        if not leaves:
            continue
        has = [{"has": {"kind": n.kind, "regex": f"^{re.escape(n.text)}$", "stopBy": "end"}} for n in leaves]
        out.append(Candidate({"rule": {"all": [{"kind": gen.root.kind}, *has]}}, gen, KIND_HAS, i))
    return out
