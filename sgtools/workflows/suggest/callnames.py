"""Calls by their names (issue 29): `kind: K` + `has: {field: function, regex: ...}` for the call-like construct
every invalid example makes, its names said as the family meant (names.py); with the receiver they all name
(`System.err`), or none where a bare call is the point (`puts x`, not `io.puts x`); in Go as either parse of a lone
call; in a grammar that names no fields (Kotlin), the callee by its place."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import NAME_ROLES, call_like, named_child
from sgtools.workflows.suggest.candidates import FIELD, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.names import level_family, name_regex, output_family
from sgtools.workflows.suggest.tree import Example, Node

# Go reads a lone one-argument call at the end of a snippet (`fmt.Println(x)` with no newline after it) as a type
# conversion, naming the call by its `type` field: the same call to the reader, so a rule on the call says both.
_CALL_TWINS = {"type_conversion_expression": ("call_expression", "type"), "call_expression": (
    "type_conversion_expression", "function")}
_RECEIVER_ROLES = ("receiver", "object", "scope")


def _family(node: Node) -> str | None:
    """The call kind a node is (a Go type conversion reads as its call), None when it is no call."""
    if node.kind == "type_conversion_expression":
        return "call_expression"
    return node.kind if call_like(node.kind) else None


def name_of(node: Node) -> Node | None:
    named = named_child(node, (*NAME_ROLES, "type") if node.kind == "type_conversion_expression" else NAME_ROLES)
    if named is not None or any(c.role for c in node.children):
        return named
    # A grammar that names no fields (Kotlin): the callee is the call's first child, a name or a member access.
    first = next(iter(node.named_children()), None)
    return first if first is not None and re.fullmatch(r"[\w.]+", first.text) else None


def by_name(kind: str, role: str, regex: str, language: str) -> dict[str, Any]:
    # No field (a grammar that names none): the callee by its place, the first child.
    rule: dict[str, Any] = {"kind": kind, "has": {"field": role, "regex": regex} if role else {"nthChild": 1,
                                                                                             "regex": regex}}
    if language != "go" or kind not in _CALL_TWINS:
        return rule
    twin, twin_role = _CALL_TWINS[kind]
    twin_rule = {"kind": twin, "has": {"field": "type" if twin_role == "function" else "function", "regex": regex}}
    return {"any": [rule, twin_rule] if kind == "call_expression" else [twin_rule, rule]}


def _receiver_role(kind: str, group: Sequence[Node], examples: Sequence[Example]) -> str | None:
    """The receiver field calls of `kind` have elsewhere in the examples (`io.puts x`), when no invalid one has
    it: a bare `puts` is what was meant, not any method of that name."""
    if any(c.role in _RECEIVER_ROLES for n in group for c in n.children):
        return None
    return next((c.role for e in examples for n in e.nodes() if n.kind == kind for c in n.children
                 if c.role in _RECEIVER_ROLES), None)


def _shared_receiver(group: Sequence[Node]) -> Node | None:
    """The class or qualified receiver every call of the group names the same way (`System.err` in
    `System.err.print(x)`)."""
    found = [next((c for c in n.children if c.role in _RECEIVER_ROLES), None) for n in group]
    first = found[0]
    if first is None or "\n" in first.text or any(f is None or f.text != first.text for f in found):
        return None
    # A class or a qualified name (`System.err`, `Console`) is which API; a lower-case name (`stmt`) is a variable,
    # and a literal or an expression (`"<b>#{x.y}</b>"`, `a.b(c)`) is a value, whatever it holds.
    if re.fullmatch(r"[A-Za-z_]\w*(?:(?:\.|::)\w+)*", first.text) is None:
        return None
    return first if "." in first.text or first.text[:1].isupper() else None


def _named_rule(kind: str, role: str, regex: str, language: str, group: Sequence[Node],
                examples: Sequence[Example]) -> tuple[dict[str, Any], str | None, bool]:
    """The rule for calls by a name regex, with the receiver they all name, or no receiver where that is the
    point; that receiver field's name when it must be absent; whether the receiver named admits a package."""
    rule = by_name(kind, role, regex, language)
    shared = _shared_receiver(group) if role in ("method", "name") else None
    qualifier = ""
    if shared is not None:  # `System.err` . `print`: the name says which method, the receiver whose
        qualifier = r"(\w+\.)*" if language in _DOTTED and shared.text[:1].isupper() else ""  # `java.lang.Thread`
        rule = {"all": [rule, {"has": {"field": shared.role, "regex": f"^{rooted(shared.text, language)}{qualifier}"
                                                                         f"{re.escape(shared.text)}$"}}]}
    receiver = _receiver_role(kind, group, examples) if role in ("method", "name") else None
    if receiver is not None:
        rule["not"] = {"has": {"field": receiver, "regex": "."}}
    return rule, receiver, bool(qualifier)


def _receiver_is_the_point(kind: str, callees: Sequence[str], examples: Sequence[Example]) -> bool:
    """`GlobalScope.launch` and `GlobalScope.async` where other calls in the examples launch and async on other
    receivers (`scope.async`): the receiver is what the calls share, not their method names."""
    split = [c.rsplit(".", 1) for c in callees]
    if any(len(p) != 2 for p in split) or len({p[0] for p in split}) != 1:
        return False
    receiver, methods = split[0][0], {p[1] for p in split}
    others = [n for e in examples for n in e.nodes() if _family(n) == kind and (c := name_of(n)) is not None
              and c.text not in callees and "." in c.text]
    return any(o_method in methods and o_receiver != receiver
               for o in others if (callee := name_of(o)) is not None
               for o_receiver, o_method in [callee.text.rsplit(".", 1)])


def _callees(group: Sequence[Node], examples: Sequence[Example]) -> tuple[str, str, list[str]] | None:
    """The call kind every node of the group is, the field naming its callee ("" where the grammar names none)
    and the callees' texts; None when they are not all calls of one kind with a callee that tells them."""
    root = group[0]
    kind = _family(root)
    if kind is None or any(_family(n) != kind for n in group):
        return None
    names = [c for n in group if (c := name_of(n)) is not None]
    if len(names) != len(group):
        return None
    role = "function" if kind != root.kind else names[0].role or ""
    texts = [c.text for c in names]
    if not role and _receiver_is_the_point(kind, texts, examples):
        return None
    return kind, role, texts


def field_forms(groups: Sequence[list[Node]], start: int, examples: Sequence[Example] = (),
                language: str = "") -> list[Candidate]:
    """A call-like construct by its name: `kind: K` + `has: {field: function, regex: ...}`; for a bare call of a
    kind that elsewhere takes a receiver, `not: has: {field: receiver}`."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for group in groups:
        root = group[0]
        called = _callees(group, examples)
        if called is None:
            continue
        kind, role, texts = called
        regex = name_regex(texts)
        if regex is not None and language == "cpp" and not any("::" in t for t in texts):
            regex = f"^(std::)?(?:{regex[1:-1]})$"  # a C library call in C++ is also written `std::printf`
        if regex is None or f"{kind}{role}{regex}" in seen:
            continue
        seen.add(f"{kind}{role}{regex}")
        spaced = _namespaced(regex, texts, role, language) or _pathed(texts, role, language)
        regex = spaced or regex
        # A family regex says more than the names shown (`Write(Line)?` for `WriteLine`; a stem two names share at
        # a word part, `^find_by_`, is one too): the request is about the family, so it ranks before a pattern
        # that keeps the one name.
        family = regex in (output_family(texts), level_family(list(dict.fromkeys(texts)))) or (
            len(set(texts)) > 1 and not regex.endswith("$"))
        # A longer package path before a Python module's function widens the regex but is no namespaced name: it
        # ranks as the names shown would.
        regex = regex if spaced else _packaged(regex, texts, role, language) or regex
        rule, receiver, packaged = _named_rule(kind, role, regex, language, group, examples)
        note = (f"flags every `{kind}` whose {role or 'callee'} matches `{regex}`, with any arguments"
                + (f" and no {receiver}" if receiver else "") + "; lets through calls through another name or alias")
        body = {"rule": rule}
        cand = Candidate(body, Generalised.written(root, f"{kind} {regex}"), FIELD, start + len(out), note)
        cand.family = family
        cand.namespaced = spaced is not None or (packaged and "|" not in regex)
        out.append(cand)
    return out


# Languages whose namespaces, classes and modules qualify a name with `.` (`System.GC.Collect`, `Swift.fatalError`).
_DOTTED = frozenset({"csharp", "java", "kotlin", "swift", "scala", "dart"})
# The root namespace a language may write before a class or module name: `::Time` is `Time`, `global::System` is
# `System`.
_ROOTS = {"ruby": "(::)?", "csharp": "(global::)?"}


def rooted(name: str, language: str) -> str:
    """The root namespace the language may write before a capitalised name (a class, a module), as a regex."""
    return _ROOTS.get(language, "") if name[:1].isupper() else ""


def front(name: str, language: str) -> str:
    """The namespace path the language may write before a name called bare (`Foundation.NSLog`, `Swift.fatalError`,
    `java.util.Locale`): in the dotted languages any path before a capitalised name (a class or a function of a
    module), only capitalised modules before a lower-case one (not `obj.fatalError`, a value's method)."""
    if language not in _DOTTED:
        return rooted(name, language)
    return rooted(name, language) + (r"(\w+\.)*" if name[:1].isupper() else r"([A-Z]\w*\.)*")


def _namespaced(regex: str, texts: Sequence[str], role: str, language: str) -> str | None:
    """One API called by its whole name (`GC.Collect`, `fatalError`) is the same API written with its namespace
    (`System.GC.Collect`, `Swift.fatalError`): the name regex admits one in front. A class's member takes any; a
    bare function name only a capitalised module or class (not `obj.fatalError`, a method of a value); a name on
    a lower-case value or module (`os.system`) none, nor a class alone (`Foo(...)`, a constructor, where what is
    done with the object, thrown or kept, tells more than the name)."""
    if language not in _DOTTED or role not in ("function", "") or len(set(texts)) != 1:
        return None
    text = texts[0]
    if not re.fullmatch(r"[A-Za-z_]\w*(\.\w+)*", text) or ("." in text) != text[0].isupper():
        return None
    return f"^{front(text, language)}(?:{regex[1:-1]})$"


def _pathed(texts: Sequence[str], role: str, language: str) -> str | None:
    """A Rust function called by a module path (`mem::transmute`, `std::mem::transmute`) is that one function
    whatever path names it, bare after a `use`, or with type arguments (`transmute::<A, B>`): the regex keeps the
    path's last part, the function's name. Not a type's function (`Box::new`): there the type is the point."""
    if language != "rust" or role != "function" or not all(re.fullmatch(r"[a-z_]\w*(::[a-z_]\w*)+", t) for t in texts):
        return None
    last = {t.rsplit("::", 1)[1] for t in texts}
    return rf"(^|::){re.escape(last.pop())}(::<.*>)?$" if len(last) == 1 else None


def _packaged(regex: str, texts: Sequence[str], role: str, language: str) -> str | None:
    """A Python function called through its module (`datetime.utcnow`, `os.path.join`) is the same function
    written with a longer package path in front (`datetime.datetime.utcnow`): the regex admits any dotted
    qualifier before the names shown. Not a method of `self` or `cls`, a receiver that is a value."""
    if language != "python" or role != "function" or not all(
            re.fullmatch(r"[a-z_]\w*(\.\w+)+", t) and t.split(".", 1)[0] not in ("self", "cls") for t in texts):
        return None
    return rf"^(\w+\.)*(?:{regex[1:-1]})$" if regex.startswith("^") and regex.endswith("$") else None


def one_name(cand: Candidate) -> bool:
    """A call by a name regex of one name, maybe in variants (`^save!?$`, an output family), not a list of names
    that differ (`^(run|check_output)$`): a keyword argument that tells its calls apart is said with that call,
    while one passed to calls of different names is the point on its own."""
    return cand.form == FIELD and (cand.family or "|" not in cand.gen.pattern)


def outermost(invalid: Sequence[Example]) -> list[list[Node]]:
    """Per call-like kind, the first (outermost) node of it in each example: `puts user.inspect` pairs with
    `p params` by its outer call, not by the inner `user.inspect` that shares more tokens."""
    firsts: list[dict[str, Node]] = [{} for _ in invalid]
    for f, e in zip(firsts, invalid, strict=True):
        for n in e.nodes():
            family = _family(n)
            if family is not None and n.named:
                f.setdefault(family, n)
    return [[f[k] for f in firsts] for k in firsts[0] if all(k in f for f in firsts[1:])]
