"""Near misses told apart by the kinds of nodes inside or around them (issue 29): a call that also flags valid
code, told apart by a kind every invalid match holds and no valid one does (`has: {kind: binary_expression,
stopBy: end}`: SQL built by concatenation in `execute*`) or by a field every valid match fills (`not: has: {field:
cause}`: `raise X` beside `raise X from e`), and code whose enclosing constructs differ between
the invalid examples (a `for` in one, a `while` in the other) but are never around a valid match (`inside:
{any: [for_statement, while_statement], stopBy: end}`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from itertools import takewhile
from typing import Any

from sgtools.workflows.suggest import contexts
from sgtools.workflows.suggest.author import (
    call_like,
    construct_kind,
    marked_context,
    near_misses,
    whole_kind,
)
from sgtools.workflows.suggest.candidates import ACCESS_KINDS, ARGUMENT, INSIDE_TEXT, Candidate, own_context, specific
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_HELD_KINDS = 2  # held kinds tried per near miss
_LOOSE_TIER = 4  # near misses this general or worse (candidates.Candidate.tier) get no held kind
_WHOLE_TIER = 7  # bare names and whole functions: no part they lack is the point


def _inner_kinds(node: Node) -> set[str]:
    return {d.kind for d in node.walk() if d is not node and d.named and not d.atomic and construct_kind(d.kind)
            and not call_like(d.kind)}  # a call inside is said by its name (a telling child), not by "a call"


def held_kind_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                    valid: Sequence[Example], start: int) -> list[Candidate]:
    """A near miss with a construct kind inside every invalid match and inside no valid one: `has` it."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        if cand.tier() >= _LOOSE_TIER:
            continue  # a whole function, or only operators kept: what holds the kind would be incidental
        held = set.intersection(*(_inner_kinds(b) for b in bad)) - set().union(*(_inner_kinds(g) for g in good))
        for kind in sorted(held)[:_HELD_KINDS]:
            rule = {"all": [cand.body["rule"], {"has": {"kind": kind, "stopBy": "end"}}]}
            note = (f"flags it only when it holds a `{kind}` (anywhere inside); lets through the same thing built "
                    "another way (a variable holding it)")
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note,
                                 anywhere=True))
    return out


def _paths(node: Node, kind: str) -> list[set[str]]:
    """For each node of `kind` inside `node`, the kinds between them (neither included)."""
    return [_between(d, node) for d in node.walk() if d is not node and d.kind == kind]


def _between(node: Node, outer: Node | str) -> set[str]:
    """The kinds of the nodes between `node` and `outer` around it, or its nearest enclosing node of kind `outer`
    (neither included; every enclosing node's kind when none is)."""
    inside: Callable[[Node], bool] = (lambda a: a is not outer) if isinstance(outer, Node) else (
        lambda a: a.kind != outer)
    return {a.kind for a in takewhile(inside, node.ancestors())}


def bounded_held_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                       valid: Sequence[Example], start: int) -> list[Candidate]:
    """A near miss holding a kind in every invalid and valid match, where in each valid match every such node
    sits inside a call (a sanitiser: `echo htmlspecialchars($_GET[..])`) and in each invalid match one does not:
    `has: {kind, stopBy: {kind: call}}`, the kind looked for up to that boundary."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        if cand.tier() > _LOOSE_TIER:
            continue
        shared = set.intersection(*(_inner_kinds(n) for n in [*bad, *good]))
        for kind in sorted(shared):
            held: list[set[str]] = [p for g in good for p in _paths(g, kind)]
            walls = {w for w in set.intersection(*held) if call_like(w)}
            wall = next((w for w in sorted(walls) if all(any(w not in p for p in _paths(b, kind)) for b in bad)),
                        None)
            if wall is None:
                continue
            rule = {"all": [cand.body["rule"], {"has": {"kind": kind, "stopBy": {"kind": wall}}}]}
            note = (f"flags it when it holds a `{kind}` not inside a `{wall}` (a call that may make it safe); lets "
                    "through the same value passed through any call")
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note))
            if len(out) >= _HELD_KINDS:
                return out
    return out


def _nearest_context(node: Node) -> str | None:
    """The nearest enclosing construct of its own (a loop, a `with`, Rust's `while` expression), short of a whole
    function or class."""
    for a in node.ancestors():
        if whole_kind(a.kind):
            return None
        if own_context(a.kind) and construct_kind(a.kind):
            return a.kind
    return None


def any_context_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                      valid: Sequence[Example], start: int, language: str = "") -> list[Candidate]:
    """Code each invalid example has inside a different construct of its own (`for`, `while`), and no valid
    example has inside any of them: `inside: {any: [...], stopBy: end}`; two kinds of loop are any loop of the
    language (`loop` too in Rust)."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        kinds = [_nearest_context(b) for b in bad]
        found = sorted({k for k in kinds if k is not None})
        if None in kinds or not 2 <= len(found) <= 3:
            continue
        if any(a.kind in found for g in good for a in g.ancestors()):
            continue
        loops = contexts.loop_family(language, found)
        if loops is not None and not any(a.kind in loops for g in good for a in g.ancestors()):
            found = loops
        inside: dict[str, Any] = {"any": [{"kind": k} for k in found], "stopBy": "end"}
        shown = "loop" if loops == found else " or ".join(f"`{k}`" for k in found)
        note = f"flags it only inside a {shown}; lets through the same code in any other context"
        out.extend(Candidate({**cand.body, "rule": {"all": [base, {"inside": inside}]}}, cand.gen, INSIDE_TEXT,
                             start + len(out), note, by_kind=by_kind) for base, by_kind in contexts.bases(cand))
        break
    return out


_FIRST_WORD = re.compile(r"\s*([A-Za-z_]\w*)")
_NAME_KINDS = ("identifier", "name", "constant")
_FLAG = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # an upper-case constant of two words or more
_NAME = re.compile(r"[A-Za-z]\w{3,}")  # a method name, not a one-letter field


def _member_name(node: Node) -> bool:
    """A name reached through an access (`.ConfigureAwait`, `->close`): a method called on the value, not a
    receiver or a local name that happened to be chosen. Java writes no access node: the call's `name` field."""
    up = node.parent
    called = up is not None and call_like(up.kind) and node.role == "name"
    return (up is not None and (called or any(a in up.kind for a in ACCESS_KINDS))
            and up.named_children()[0] is not node
            and _NAME.fullmatch(node.text) is not None)


def _own(d: Node, node: Node) -> list[tuple[int, tuple[str, str]]]:
    """What a `has` can name of one node inside `node`, each with its rank: 0 its kind alone, 1 a name it is
    (a flag, a method called), 2 its kind and first word."""
    if d is not node and d.atomic and (d.named or d.role) and d.text.isalpha() and d.text.lower() == d.kind.lower():
        return [(0, (d.kind, ""))]  # `x == null` beside `x == y`: the value compared with is the point
    if d is not node and d.named and d.atomic and d.kind.endswith(_NAME_KINDS) and (
            _FLAG.fullmatch(d.text) or _member_name(d)):
        # a flag or constant passed (`JSON_THROW_ON_ERROR`), or a name called on it (`.ConfigureAwait`)
        return [(1, (d.kind, d.text))]
    if d is node or not d.named or d.atomic or not construct_kind(d.kind) or not specific(d.kind):
        return []
    m = _FIRST_WORD.match(d.text)
    return [(0, (d.kind, "")), *([(2, (d.kind, m.group(1)))] if m is not None else [])]


def _parts(node: Node) -> set[tuple[str, str]]:
    """The constructs inside a node, each by kind alone ('') and by kind and first word (`case_statement`
    `default`), the upper-case constants it passes (`name` `JSON_THROW_ON_ERROR`) and the values that read as
    their own kind (`null`, `None`, `nil`): what a `has` can name."""
    return {part for d in node.walk() for _rank, part in _own(d, node)}


def _added(node: Node, taken: set[tuple[str, str]]) -> tuple[str, str] | None:
    """The part a valid match adds that no invalid match holds, as an author names it: a kind alone before a
    name called before a kind and first word, and of each the outermost (the statement added, `throw ...`;
    `.interrupt()`, not the `currentThread()` it is called on)."""
    nodes = sorted((d for d in node.walk() if _item(d, node)), key=lambda d: sum(1 for _a in d.ancestors()))
    own = [(rank, depth, part) for depth, d in enumerate(nodes) for rank, part in _own(d, node) if part not in taken]
    return min(own)[2] if own else None


def _item(d: Node, node: Node) -> bool:
    """`d` is, or is inside, an item added to a list in `node` (a statement in a body), not a value written in a
    field where the invalid code writes another (`=None` for `=[]`: what is written, not what is added)."""
    for a in [d, *d.ancestors()]:
        if a is node:
            return False
        if a.role is None:
            return True
    return False


def _has(kind: str, word: str) -> dict[str, Any]:
    return {"kind": kind, **({"regex": rf"^{word}\b"} if word else {})}


def _added_parts(good: Sequence[Node], bad: Sequence[Node], valid: Sequence[Example]) -> list[tuple[str, str]]:
    """Where the valid matches share no missing part, what each adds instead (a catch body restoring the
    interrupt in one, rethrowing in the other): one part per valid example, all told apart from every invalid
    match; none where one valid example adds nothing so named."""
    taken = set().union(*(_parts(b) for b in bad))
    by_example: dict[int, tuple[str, str]] = {}
    for g in good:
        part, index = _added(g, taken), min(_examples_of([g], valid), default=-1)
        if part is None:
            return []
        by_example.setdefault(index, part)
    parts = list(dict.fromkeys(by_example.values()))
    return parts if len(by_example) >= 2 and len(parts) >= 2 else []


def missing_part_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                       valid: Sequence[Example], start: int) -> list[Candidate]:
    """A near miss told apart by a part every valid match has and no invalid one does (a `switch` whose valid
    examples all have a `default:` case): `not: has: {kind, regex: ^word, stopBy: end}`, a kind alone first."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        if whole_kind(cand.gen.root.kind) or cand.tier() >= _WHOLE_TIER:
            continue  # what a whole function lacks is anything in its body
        missing = set.intersection(*(_parts(g) for g in good)) - set().union(*(_parts(b) for b in bad))
        ranked = sorted(missing, key=lambda p: (p[1] != "", p))[:_HELD_KINDS]
        added = [] if ranked else _added_parts(good, bad, valid)
        shapes = [({**_has(*p), "stopBy": "end"}, f"`{p[0]}` starting `{p[1]}`" if p[1] else f"`{p[0]}`")
                  for p in ranked]
        if added:
            shapes.append(({"any": [_has(*p) for p in added], "stopBy": "end"},
                           " or ".join(f"`{k}` `{w}`" if w else f"`{k}`" for k, w in added)))
        for has, shown in shapes:
            note = (f"flags it when it holds no {shown} (anywhere inside); lets through one that holds it even "
                    "where it does not help")
            # A pattern that keeps no name says no more than its kind, and may match less than the node (C#'s
            # `await $A` its keyword alone): the kind too.
            loose = cand.tier() >= _LOOSE_TIER and isinstance(cand.body["rule"].get("pattern"), str)
            for base in [cand.body["rule"], *([{"kind": cand.gen.root.kind}] if loose else [])]:
                rule = {"all": [base, {"not": {"has": has}}]}
                out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note))
    return out


def _fields(node: Node) -> set[str]:
    return {c.role for c in node.children if c.role}


def missing_field_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                        valid: Sequence[Example], start: int) -> list[Candidate]:
    """A near miss whose every valid match fills a field no invalid match has, whatever it holds there (`raise X
    from err` and `raise X from None` beside `raise X`): `not: has: {field: cause}`, kept where the near miss is
    placed (inside the `except` the request names)."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        if whole_kind(cand.gen.root.kind) or cand.tier() >= _WHOLE_TIER:
            continue
        unfilled = set.intersection(*(_fields(g) for g in good)) - set().union(*(_fields(b) for b in bad))
        for role in sorted(unfilled)[:_HELD_KINDS]:
            rule = {"all": [cand.body["rule"], {"not": {"has": {"field": role, "regex": "."}}}]}
            note = f"flags it when its `{role}` is left out; lets through one that gives it, whatever it gives"
            out.append(dataclasses.replace(cand, body={**cand.body, "rule": rule}, form=ARGUMENT,
                                           root_index=start + len(out), note=note))
    return out


def _examples_of(nodes: Sequence[Node], examples: Sequence[Example]) -> set[int]:
    """Which examples the nodes are in."""
    roots = {id(e.root): e.index for e in examples}
    return {roots.get(id(([node, *node.ancestors()])[-1]), -1) for node in nodes} - {-1}


def not_context_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                      valid: Sequence[Example], start: int) -> list[Candidate]:
    """A construct that flags valid code too, where every valid match sits in an enclosing node marked the same
    way (a function named `main`, a method with `@Override`) and no invalid match sits in one so marked:
    `not: inside: {kind, has: marker, stopBy: end}`."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        if len(_examples_of(good, valid)) < 2:
            continue  # one valid example is no evidence of what marks every fine context
        out.extend(marked_context(cand, good, bad, start + len(out), negate=True))
    return out


def bounded_context_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                          valid: Sequence[Example], start: int) -> list[Candidate]:
    """Code every invalid example has inside a construct of its own (a loop), where each valid match inside one
    sits in a nested construct no invalid match has on the way (a closure called in the loop): `inside: {kind:
    for_statement, stopBy: {kind: func_literal}}`, the context searched up to that boundary."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        shared = [k for k in dict.fromkeys(a.kind for a in bad[0].ancestors())
                  if own_context(k) and construct_kind(k) and all(b.nearest(k) is not None for b in bad[1:])]
        for kind in shared[:2]:
            held = [g for g in good if g.nearest(kind) is not None]
            if not held:
                continue  # plain `inside` says it (explain.exclusions tries that)
            crossed = set().union(*(_between(b, kind) for b in bad))
            walls = sorted(set.intersection(*(_between(g, kind) for g in held)) - crossed,
                           key=lambda k: (not whole_kind(k) and "func" not in k and "lambda" not in k, k))
            if not walls:
                continue
            inside = {"kind": kind, "stopBy": {"kind": walls[0]}}
            note = (f"flags it only inside a `{kind}`, not through a `{walls[0]}` in it; lets through the same code "
                    "in any other context")
            out.extend(Candidate({**cand.body, "rule": {"all": [base, {"inside": inside}]}}, cand.gen, INSIDE_TEXT,
                                 start + len(out), note, by_kind=by_kind) for base, by_kind in contexts.bases(cand))
            break
    return out
