"""Enclosing contexts as an ast-grep author names them (issue 29): the loops of each language (two kinds of loop in
the examples mean "any loop"), and how an enclosing construct is marked by a kind in its header when no text
marks it (a destructor's `destructor_name`, whatever the class is called). Which kinds are contexts of their own
(a loop, a `finally` clause, Rust's `while_expression`) is `candidates.own_context`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import Candidate, own_context, specific
from sgtools.workflows.suggest.roots import PART_KINDS
from sgtools.workflows.suggest.tree import Node

_BODIES = ("_body", "statement_list", "declaration_list", "block")
# The loop kinds of each language's grammar (as ast-grep 0.51 parses them), for "any loop".
LOOPS: dict[str, tuple[str, ...]] = {
    # A comprehension runs its expression once per item, as a loop's body does.
    "python": ("for_statement", "while_statement", "list_comprehension", "set_comprehension",
               "dictionary_comprehension", "generator_expression"),
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
        if c.kind.endswith(_BODIES) or c.kind in PART_KINDS:
            continue  # its body: what it does, not how it is marked (its parameter or superclass list is)
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
        return _through_field(near, [p[kind] for p in per], {"kind": kind})
    return None


def _through_field(near: Sequence[Node], nodes: Sequence[Node], rule: dict[str, Any]) -> dict[str, Any]:
    """`has` the header node `rule` says, through the header child's field when every enclosing node holds it in
    the same field (`declarator`, `superclasses`), else anywhere inside (`stopBy: end`)."""
    tops = [_top_child(a, n) for a, n in zip(near, nodes, strict=True)]
    roles = {t.role if t is not None and t is not n else None for t, n in zip(tops, nodes, strict=True)}
    role = next(iter(roles)) if len(roles) == 1 else None
    return {"field": role, "has": {**rule, "stopBy": "end"}} if role else {**rule, "stopBy": "end"}


def bases(cand: Candidate) -> list[tuple[dict[str, Any], bool]]:
    """What a context clause is added to: the near miss's rule; before it, when its pattern keeps only a keyword
    of a construct of its own (`return $A`, `throw $A`), that construct's kind (`kind: return_statement` also
    covers a bare `return`, `throw;`). Each with whether it is the kind."""
    out = [(cand.body["rule"], False)]
    if "constraints" not in cand.body and cand.keyword_only() and own_context(cand.gen.root.kind):
        out.insert(0, ({"kind": cand.gen.root.kind}, True))
    return out


_NAME_ROLES = ("name", "function", "method")
_NAME = re.compile(r"[\w$@][\w$@.:\\-]*")  # a name, maybe qualified (`t.Run`, `std::move`), not code
_MIN_PREFIX = 4  # a shared name start shorter than this (`get`) is a coincidence, not a convention (`test_`)


def leaf_marker(near: Sequence[Node], bad: Sequence[Node], fine: Sequence[Node | None],
                good: Sequence[Node]) -> dict[str, Any] | None:
    """A name every enclosing node's header holds at any depth and no valid one's does (`TestCase` in
    `class A(TestCase)` and in `class B(unittest.TestCase)`): `has` it through the header child's field when
    every one holds it in the same field. None when there is none."""
    per = [{(d.kind, d.text): d for d in _header_nodes(a, b) if d.atomic and re.fullmatch(r"[A-Za-z_]\w{2,}", d.text)}
           for a, b in zip(near, bad, strict=True)]
    shared = set.intersection(*(set(p) for p in per)) if per else set()
    seen = {(d.kind, d.text) for f, g in zip(fine, good, strict=True) if f is not None for d in _header_nodes(f, g)}
    own = {id(n) for a in near if (n := _own_name(a)) is not None}
    for kind, text in sorted(shared - seen, key=lambda kt: -len(kt[1])):
        nodes = [p[(kind, text)] for p in per]
        if any(id(n) in own for n in nodes):
            continue  # the context's own name: name_marker says it by its start
        return _through_field(near, nodes, {"kind": kind, "regex": f"^{re.escape(text)}$"})
    return None


def _own_name(node: Node) -> Node | None:
    """An enclosing node's own name: a function's name, a call's callee (`it`, `describe`)."""
    return next((c for c in node.children if c.named and c.atomic and c.role in _NAME_ROLES), None)


def word_start(texts: Sequence[str]) -> str:
    """The longest start every name shares that ends where a word part ends in each (`test_` for `test_login`
    and `test_logout`, not `test_log`; `Test` for `TestLogin` and `TestSave`)."""
    first, n = texts[0], 0
    while n < len(first) and all(len(t) > n and t[n] == first[n] for t in texts):
        n += 1
    while n > 0:
        if all(len(t) == n or t[n - 1] == "_" or (t[n - 1].islower() and t[n].isupper()) for t in texts):
            return first[:n]
        n -= 1
    return ""


def word_end(texts: Sequence[str]) -> str:
    """The longest end every name shares that starts where a word part starts in each (`Test` for `LoginTest`
    and `ApiTest`; `_test` for `login_test`)."""
    first, n = texts[0], 0
    while n < len(first) and all(len(t) > n and t[-1 - n] == first[-1 - n] for t in texts):
        n += 1
    while n > 0:
        if all(len(t) == n or t[-n] == "_" or t[-n - 1] == "_" or (t[-n].isupper() and t[-n - 1].islower())
               for t in texts):
            return first[len(first) - n:]
        n -= 1
    return ""


def _names(near: Sequence[Node]) -> tuple[str, list[str]] | None:
    """The enclosing nodes' own names and the field they are in, when every one has one in the same field."""
    found = [n for a in near if (n := _own_name(a)) is not None]
    if not found or len(found) < len(near) or len({n.role for n in found}) > 1:
        return None
    return str(found[0].role), sorted({n.text for n in found})


def name_marker(near: Sequence[Node], fine: Sequence[Node | None]) -> dict[str, Any] | None:
    """What the enclosing nodes' own names say when no other child marks them: a shared start by word parts
    (`^test_`, `^Test`), or, for calls, the callees' names (`^(it|test)$`), none of them a name of a valid
    context. None when the names say nothing."""
    named = _names(near)
    if named is None:
        return None
    role, texts = named
    if not all(_NAME.fullmatch(t) for t in texts):
        return None  # a callee that is a function literal (`go func() {...}()`): its text is no name
    fine_names = {m.text for f in fine if f is not None and (m := _own_name(f)) is not None}
    if len(texts) == 1 and texts[0] not in fine_names:
        return {"field": role, "regex": f"^{re.escape(texts[0])}$"}  # one name (`finalize`): that name, whole
    start = word_start(texts)
    if len(start) >= _MIN_PREFIX and not any(t.startswith(start) for t in fine_names):
        return {"field": role, "regex": f"^{re.escape(start)}"}
    end = word_end(texts)
    if len(end) >= _MIN_PREFIX and not any(t.endswith(end) for t in fine_names):
        return {"field": role, "regex": f"{re.escape(end)}$"}
    if role != "name" and len(texts) <= 3 and not set(texts) & fine_names:
        return {"field": role, "regex": "^(" + "|".join(re.escape(t) for t in texts) + ")$"}
    return None
