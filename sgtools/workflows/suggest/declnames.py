"""Declarations by their name (issue 29): a method, function, property, parameter or receiver whose name every
invalid example writes alike and no valid one does, said on the declaration, `kind: D` + `has: {field: name,
regex: ...}`, as an ast-grep author writes it, not the whole declaration shown as a pattern's context. The names
as the convention they follow: a start or an end they share up to a word part (`^get_`, `Async$`), one name
whole, or, where the request writes each of them as a word, the names shown (`^(this|self)$`). A declaration
in a slot of its own (a method's `receiver`), not a body or a parameter list, is said in that slot: a receiver
named `self` is not a parameter named `self`."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import ACCESS_KINDS, DECLARED, Candidate
from sgtools.workflows.suggest.contexts import word_end, word_start
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.modifiers import words
from sgtools.workflows.suggest.tree import Example, Node

_NAME = re.compile(r"[A-Za-z_$][\w$]*")
# Kinds that declare what they name (a function, a method, a property, a parameter); not an argument, an
# annotation or an access whose grammar also calls a part `name` (`timeout=5`, `@Override`, `a::b`).
_DECLARES = re.compile(r"declaration|definition|declarator|_item$|signature|parameter|_spec$|^method$|function|"
                       r"property|field|variable|constant|binding")
_NOT_DECLARING = re.compile(r"argument|annotation|attribute|decorator|call|qualified|" + "|".join(ACCESS_KINDS))
_MIN_PART = 3  # a shared start or end shorter than this (`is`, `Id`) may be a coincidence, not a convention
_MAX_CHOICES = 32  # combinations of one declaration per invalid example tried
# A declaration's ordinary place: a body, a parameter list. Any other slot (a `receiver`) is part of what it is.
_ORDINARY = re.compile(r"body|parameters|members|declarations")


# A function kind's body-less twin, where an interface, a protocol or a trait declares one (Rust's `fn f(&self);`
# in a trait): a naming convention holds for both.
_SIGNATURES = {("rust", "function_item"): ("function_signature_item",),
               ("typescript", "method_definition"): ("method_signature", "abstract_method_signature"),
               ("tsx", "method_definition"): ("method_signature", "abstract_method_signature"),
               ("swift", "function_declaration"): ("protocol_function_declaration",),
               ("go", "method_declaration"): ("method_elem",)}
# The parameter kind of a method's receiver where the grammar gives it one (Rust's `&self`): a function that takes
# one is a method, one without it a free function (`fn get_config()`).
_RECEIVERS = {"rust": "self_parameter"}


def declaration(node: Node) -> bool:
    """A node of a kind that declares something (not a call, an argument, an annotation or an access)."""
    return (node.named and not node.atomic and not call_like(node.kind) and _DECLARES.search(node.kind) is not None
            and _NOT_DECLARING.search(node.kind) is None)


def _declared(node: Node) -> Node | None:
    """The name a node declares, None when it declares none."""
    if not declaration(node):
        return None
    name = next((c for c in node.children if c.role == "name"), None)
    return name if name is not None and _NAME.fullmatch(name.text) else None


def _by_kind(examples: Sequence[Example]) -> list[dict[str, list[Node]]]:
    """Per example, its declarations by kind."""
    out: list[dict[str, list[Node]]] = []
    for e in examples:
        found: dict[str, list[Node]] = {}
        for n in e.nodes():
            if _declared(n) is not None:
                found.setdefault(n.kind, []).append(n)
        out.append(found)
    return out


def _name(node: Node) -> str:
    named = _declared(node)
    return "" if named is None else named.text


def _regexes(names: Sequence[str], listed: set[str]) -> list[str]:
    """The conventions one name per invalid example follows: a start or an end by word parts, one name whole, or
    the names the request writes."""
    uniq = list(dict.fromkeys(names))
    if len(uniq) == 1:
        return [f"^{re.escape(uniq[0])}$"]
    out = []
    start, end = word_start(uniq), word_end(uniq)
    if len(start.rstrip("_")) >= _MIN_PART:
        # Ending at a capital (`Get` of `GetName`): the next word part starts there (not `Getter`).
        tail = "" if start.endswith("_") else "($|[A-Z0-9_])" if start in uniq else "[A-Z0-9_]"
        out.append(f"^{re.escape(start)}{tail}")
    if len(end.lstrip("_")) >= _MIN_PART:
        out.append(f"{re.escape(end)}$")
    if not out and all(n in listed for n in uniq):
        out.append("^(" + "|".join(re.escape(n) for n in uniq) + ")$")
    return out


def _slot(nodes: Sequence[Node]) -> dict[str, Any] | None:
    """`inside` the slot every declaration stands in, when it is one of its own (a method's `receiver`): the
    list holding it, as that field of the construct around it. None for a body or a parameter list."""
    parents = [n.parent for n in nodes]
    lists = [p for p in parents if p is not None and p.parent is not None and p.role is not None]
    if len(lists) != len(nodes) or len({(p.kind, p.role) for p in lists}) != 1 or _ORDINARY.search(
            str(lists[0].role)):
        return None
    holders = {p.parent.kind for p in lists if p.parent is not None}
    if len(holders) != 1:
        return None
    return {"kind": lists[0].kind, "inside": {"kind": holders.pop(), "field": lists[0].role}}


def _lacks(node: Node) -> dict[str, dict[str, Any]]:
    """The modifier words a declaration writes, each with the clause that finds it: one of its modifier children
    (Swift's `weak` in `modifiers`: `has: {kind: modifiers, regex: \\bweak\\b}`), or a keyword it opens with
    (Lua's `local function`: `regex: ^local\\b`); annotations are not modifier words."""
    out: dict[str, dict[str, Any]] = {}
    for c in node.children:
        if c.named and "modifier" in c.kind:
            out.update({w: {"has": {"kind": c.kind, "regex": rf"\b{w}\b"}} for w in sorted(words(c))})
    for c in node.children:
        if c.named:
            break
        if re.fullmatch(r"[a-z]\w*", c.text):
            out.setdefault(c.text, {"regex": rf"^{c.text}\b"})
    return out


def _missing(told: Sequence[Node], groups: Sequence[Sequence[Node]]) -> list[tuple[str, dict[str, Any]]]:
    """The modifier words every `told` declaration writes and none of `groups` does, with their clauses, where
    each group holds a declaration that a `told` one is with the word added and nothing else changed: the word is
    the point, not one that comes with other changes (an `async` function that also awaits)."""
    held = [_lacks(n) for n in told]
    if not held:
        return []
    shared = set.intersection(*(set(h) for h in held)) - set().union(*(set(_lacks(n)) for g in groups for n in g))
    return [(w, held[0][w]) for w in sorted(shared)
            if all(any(_only(w, n, told) for n in g) for g in groups)]


def _only(word: str, node: Node, told: Sequence[Node]) -> bool:
    """A `told` declaration is `node` with `word` added, all else written alike."""
    flat = " ".join(node.text.split())
    return any(" ".join(re.sub(rf"\b{word}\b", "", t.text, count=1).split()) == flat for t in told)


def name_forms(invalid: Sequence[Example], valid: Sequence[Example], start: int,
               request: str | None = None, language: str = "") -> list[Candidate]:
    """`kind: D` + `has: {field: name, regex}` for each declaration kind every invalid example has, by the names
    one of its declarations in each writes: where no valid declaration of the kind has such a name, or where
    those that do all write a modifier word the invalid ones lack (`weak`), with `not` it. And, whatever their
    names, the declarations of the kind without the modifier word every valid one writes (Lua's `local`)."""
    per, fine = _by_kind(invalid), _by_kind(valid)
    listed = set(re.findall(r"\w+", request or ""))
    out: list[Candidate] = []
    seen: set[str] = set()
    for kind in per[0] if per else {}:
        groups = [found.get(kind, []) for found in per]
        fine_nodes = [n for found in fine for n in found.get(kind, [])]
        for chosen in itertools.islice(itertools.product(*groups), _MAX_CHOICES):
            for regex in _regexes([_name(n) for n in chosen], listed):
                told = [n for n in fine_nodes if re.search(regex, _name(n))]
                lacking = _missing(told, [[n] for n in chosen]) if told else [("", {})]
                for word, clause in lacking:
                    if f"{kind} {regex} {word}" not in seen:
                        seen.add(f"{kind} {regex} {word}")
                        cand = _candidate(kind, regex, chosen, start + len(out), (word, clause))
                        out.append(_as_method(cand, chosen, language) if not word else cand)
        out.extend(_unnamed(kind, groups, fine_nodes, start + len(out)))
    return out


def _unnamed(kind: str, groups: Sequence[Sequence[Node]], fine_nodes: Sequence[Node],
             start: int) -> list[Candidate]:
    """The declarations of `kind` without a modifier word every valid one writes, whatever their names, with the
    kind of name the invalid ones declare (a plain `identifier`: Lua's `function M.f` can take no `local`)."""
    out: list[Candidate] = []
    if len({id(_root(n)) for n in fine_nodes}) < 2:
        return out  # one valid example is no evidence of what every fine declaration writes
    for word, clause in _missing(fine_nodes, groups):
        named = {d.kind for g in groups for n in g if (d := _declared(n)) is not None}
        cand = _candidate(kind, None, [g[0] for g in groups], start + len(out), (word, clause))
        if len(named) == 1:
            cand.body["rule"]["has"] = {**cand.body["rule"]["has"], "kind": named.pop()}
        out.append(cand)
    return out


def _as_method(cand: Candidate, chosen: Sequence[Node], language: str) -> Candidate:
    """A function by its name said as the method it is: where every one takes a receiver the grammar names
    (`self_parameter`), with it (a free `fn get_config()` is no method); with its body-less twin (a trait's
    `fn get_area(&self);`)."""
    rule = cand.body["rule"]
    receiver = _RECEIVERS.get(language)
    if receiver is not None and all(any(c.role == "parameters" and any(p.kind == receiver for p in c.children)
                                        for c in n.children) for n in chosen):
        rule["all"] = [{"has": {"field": "parameters", "has": {"kind": receiver}}}]
        cand.note = cand.note.replace("; lets", f", taking a `{receiver}`; lets")
    twins = _SIGNATURES.get((language, rule["kind"]))
    if twins:
        rule["any"] = [{"kind": k} for k in (rule.pop("kind"), *twins)]
    return cand


def _root(node: Node) -> Node:
    return ([node, *node.ancestors()])[-1]


def _candidate(kind: str, regex: str | None, chosen: Sequence[Node], index: int,
               lacking: tuple[str, dict[str, Any]]) -> Candidate:
    role = _declared(chosen[0])
    has: dict[str, Any] = {"field": role.role if role is not None else "name"}
    rule: dict[str, Any] = {"kind": kind, "has": {**has, "regex": regex} if regex else has}
    slot = _slot(chosen)
    where = ""
    if slot is not None:
        rule["inside"] = slot
        where = f" in a `{slot['inside']['kind']}`'s `{slot['inside']['field']}`"
    word, clause = lacking
    if word:
        rule["not"] = clause
        where += f" not declared `{word}`"
    named = f" whose name matches `{regex}`" if regex else ""
    note = f"flags every `{kind}`{where}{named}; lets through the same declaration under another name"
    shown = " ".join(p for p in (kind, regex, f"not {word}" if word else "") if p)
    return Candidate({"rule": rule}, Generalised.written(chosen[0], shown), DECLARED, index, note,
                     unnamed=regex is None)
