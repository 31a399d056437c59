"""A call told apart by the kind of what it passes at one place (issue 29): `printf`'s format is a string literal
in every valid call and never in an invalid one (`has: {field: arguments, has: {nthChild: 1, not: {kind:
string_literal}}}`), or every invalid call passes a literal of one kind there and no valid one does (`exit(1)`
beside `exit(code)`). What a position holds, not the text passed: the rule reaches calls the examples never
show."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import call_like, near_misses
from sgtools.workflows.suggest.candidates import ARGUMENT, Candidate, of_kinds
from sgtools.workflows.suggest.tree import Example, Node, place
from sgtools.workflows.suggest.verify import Outcome

_POSITIONS = 3  # the first arguments are where a call's meaning lies (a format, a mode, a code)
_FORMS = 2  # argument forms per near miss


def argument_list(call: Node) -> Node | None:
    """The call's own list of arguments, a direct child (`argument_list`, `arguments`)."""
    return next((c for c in call.children if c.named and (c.role == "arguments" or c.kind.endswith(
        ("arguments", "argument_list")))), None)


def _arguments(call: Node) -> tuple[Node, list[tuple[str, bool]]] | None:
    """The list and each argument's kind, with whether it is wrapped (C#'s and PHP's `argument` around the
    value: the kind is the value's). None when the node is no call or has no list of its own."""
    if not call_like(call.kind):
        return None
    args = argument_list(call)
    if args is None:
        return None
    out: list[tuple[str, bool]] = []
    for a in args.named_children():
        if "comment" in a.kind:
            continue
        inner = a.named_children()
        if "argument" in a.kind and len(inner) == 1:
            out.append((inner[0].kind, True))  # a positional argument wrapped; a named one has two children
        else:
            out.append((a.kind, False))
    return args, out


def _at(position: int, kinds: Sequence[str], wrapped: bool, negate: bool) -> dict[str, Any]:
    """The rule for the argument at a position (1-based) being, or not being, of one of `kinds`."""
    kind: dict[str, Any] = of_kinds(kinds)
    if wrapped:
        kind = {"has": kind}
    return {"nthChild": position, "not": kind} if negate else {"nthChild": position, **kind}


def _facts(bad: list[list[tuple[str, bool]]], good: list[list[tuple[str, bool]]], built: frozenset[str] = frozenset(),
           ) -> list[tuple[int, list[str], bool, bool]]:
    """(position, kinds, wrapped, negate): kinds every valid call passes at a position and no invalid call does
    (negate: the invalid calls pass something else there) first, then the reverse. Not where an invalid call
    passes a call: its name is the point, which the pattern keeps. One kind of expression built of parts
    (`built`: a concatenation) that every invalid call passes there is the point itself, before what it is not."""
    out: list[tuple[int, list[str], bool, bool]] = []
    for i in range(_POSITIONS):
        if not all(len(a) > i for a in bad):
            continue
        wraps = {a[i][1] for a in bad} | {a[i][1] for a in good if len(a) > i}
        if len(wraps) != 1:
            continue
        bad_kinds = {a[i][0] for a in bad}
        if any(call_like(k) for k in bad_kinds):
            continue  # a call passed there is said by its name: the pattern keeps `fmt.Sprintf(...)`
        fact = _fact(bad_kinds, {a[i][0] for a in good if len(a) > i}, all(len(a) > i for a in good), built)
        if fact is not None:
            out.append((i + 1, fact[0], wraps.pop(), fact[1]))
    return sorted(out, key=lambda f: not f[3] and not set(f[1]) <= built)


def _fact(bad_kinds: set[str], good_kinds: set[str], every: bool,
          built: frozenset[str]) -> tuple[list[str], bool] | None:
    """(kinds, negate) at one position; `every`: each valid call passes something there."""
    if good_kinds & bad_kinds:
        return None
    if len(bad_kinds) == 1 and bad_kinds <= built:  # `"id=" + id`: a concatenation, not "no literal"
        return sorted(bad_kinds), False
    if every and len(good_kinds) <= 2:
        return sorted(good_kinds), True
    return (sorted(bad_kinds), False) if len(bad_kinds) == 1 else None


def _lists(bad: list[Node], good: list[Node]) -> tuple[dict[str, Any], list[tuple[int, list[str], bool, bool]]] | None:
    """Where the calls' argument lists are (a field, else a kind every one has) and the facts about them; None
    when a node is no call with a list of its own, or the lists are not at one place."""
    bad_args = [a for a in (_arguments(b) for b in bad) if a is not None]
    good_args = [a for a in (_arguments(g) for g in good) if a is not None]
    if len(bad_args) != len(bad) or len(good_args) != len(good):
        return None
    where = _one_place([a[0] for a in [*bad_args, *good_args]])
    if where is None:
        return None
    built = frozenset(v.kind for a in bad_args for v in map(_value, a[0].named_children()) if v.named_children())
    return where, _facts([a[1] for a in bad_args], [a[1] for a in good_args], built)


def _one_place(lists: list[Node]) -> dict[str, Any] | None:
    """Where every call's argument list is (one field, else one kind), said as `has` says it; None when they are
    not at one place."""
    first = place(lists[0])
    return first if all(place(x) == first for x in lists) else None


_TOKEN = re.compile(r"%[-+ #0-9.]*[A-Za-z]|[A-Za-z_]\w*")


def _value(arg: Node) -> Node:
    inner = arg.named_children()
    return inner[0] if "argument" in arg.kind and len(inner) == 1 else arg


def _token_fact(bad: list[Node], good: list[Node]) -> tuple[dict[str, Any], dict[str, Any], str] | None:
    """(where, the argument, token): a string passed at one position by every call, holding a token (a format
    verb `%v`, a word) in every invalid call and in no valid one: `fmt.Errorf("load: %v", err)` beside `"%w"`;
    else a string of one kind passed anywhere in the list (`scanf("%s", x)` and `sscanf(line, "%s = %d", ...)`
    beside `%31s`: the format is the first argument of one and the second of the other)."""
    lists = [argument_list(n) for n in [*bad, *good]]
    if any(x is None for x in lists):
        return None
    known = [x for x in lists if x is not None]
    where = _one_place(known)
    if where is None:
        return None
    values = [[_value(a) for a in list_items(x)] for x in known]
    for i in range(_POSITIONS):
        if not all(len(v) > i and "string" in v[i].kind for v in values):
            continue
        tokens = [set(_TOKEN.findall(v[i].text)) for v in values]
        shared = set.intersection(*tokens[:len(bad)]) - set().union(*tokens[len(bad):])
        if shared:
            return where, {"nthChild": i + 1}, max(shared, key=lambda t: (t.startswith("%"), len(t)))
    return _anywhere(where, values, len(bad))


def _anywhere(where: dict[str, Any], values: list[list[Node]], n_bad: int) -> tuple[dict[str, Any], dict[str, Any],
                                                                                  str] | None:
    """A format verb every invalid call passes in a string of one kind, at whatever position, and no valid call
    passes in any string: the string by its kind and the verb."""
    strings = [[v for v in vs if "string" in v.kind] for vs in values]
    tokens = [{t for v in vs for t in _TOKEN.findall(v.text) if t.startswith("%")} for vs in strings]
    shared = set.intersection(*tokens[:n_bad]) - set().union(*tokens[n_bad:])
    if not shared:
        return None
    word = max(shared, key=len)
    kinds = {v.kind for vs in strings[:n_bad] for v in vs if word in _TOKEN.findall(v.text)}
    return (where, {"kind": kinds.pop()}, word) if len(kinds) == 1 else None


def argument_kind_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                        valid: Sequence[Example], start: int) -> list[Candidate]:
    """A call that flags valid code too, told apart by the kind of what it passes at one position."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        token = _token_fact(bad, good)
        if token is not None:
            where, argument, word = token
            regex = re.escape(word) if word.startswith("%") else rf"\b{word}\b"
            rule = {"all": [cand.body["rule"], {"has": {**where, "has": {**argument, "regex": regex}}}]}
            place = f"argument {argument['nthChild']}" if "nthChild" in argument else "an argument"
            note = (f"flags it when the string passed as {place} holds `{word}`; lets through the same "
                    "text built another way (a variable, a constant)")
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note))
        found = _lists(bad, good)
        if found is None:
            continue
        where, facts = found
        for position, kinds, wrapped, negate in facts[:_FORMS]:
            rule = {"all": [cand.body["rule"], {"has": {**where, "has": _at(position, kinds, wrapped, negate)}}]}
            shown = " or ".join(f"`{k}`" for k in kinds)
            note = (f"flags it when argument {position} is not a {shown}; lets through a {shown} passed there that "
                    "is as bad" if negate else
                    f"flags it only when argument {position} is a {shown}; lets through the same value passed "
                    "another way (a variable holding it)")
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note))
    return out


# A flag passed as an argument: a boolean, whatever the grammar calls it. Not a number or a string: any value
# would do there (`parseInt`'s radix: `parseInt(s)` counts the arguments), or it is data (a URL, a message).
_FLAG_KIND = re.compile(r"^(?:true|false|bool\w*)$")


def _literals(call: Node) -> dict[tuple[str, str], Node] | None:
    """The flags the call passes, each an item of its own argument list or held directly by one (wrapped, or
    named: PHP's `strict: true`), by (kind, text); None when the node is no call with a list of its own."""
    args = argument_list(call) if call_like(call.kind) else None
    if args is None:
        return None
    out: dict[tuple[str, str], Node] = {}
    for item in args.named_children():
        for v in (item, *item.named_children()):
            if v.named and v.atomic and _FLAG_KIND.search(v.kind):
                out.setdefault((v.kind, v.text), v)
    return out


def literal_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                  valid: Sequence[Example], start: int) -> list[Candidate]:
    """A call that flags every valid example too, where every valid call passes one flag (`true` as `in_array`'s
    third argument) and no invalid one does: the argument that must be present, said with `not: has` in the
    call's argument list, whatever its position or name (`strict: true`)."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        if not all(any(e.root in (n, *n.ancestors()) for n in good) for e in valid):
            continue  # a flag one valid example passes is no evidence of what the others need
        lists = [_literals(n) for n in [*bad, *good]]
        known = [x for x in lists if x is not None]
        if len(known) != len(lists):
            continue
        found = _lists(bad, good)
        if found is None:
            continue
        where = found[0]
        missing = set.intersection(*(set(x) for x in known[len(bad):])) - set().union(*known[:len(bad)])
        for kind, text in sorted(missing)[:_FORMS]:
            value = {"kind": kind, "regex": f"^{re.escape(text)}$"}
            item = {"any": [value, {"has": value}]}
            rule = {"all": [cand.body["rule"], {"not": {"has": {**where, "has": item}}}]}
            if any(o.body["rule"] == rule for o in out):
                continue  # the same call from another near miss (a more relaxed level)
            note = (f"flags it when no `{text}` is passed (at any position, or named); lets through a `{text}` "
                    "passed another way (a variable, a constant)")
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note,
                                 flag=True))
    return out


def list_path(call: Node) -> tuple[list[Node], Node] | None:
    """The call's own argument list and the nodes from the call down to it: a direct child, or the child of a
    suffix (Swift's and Kotlin's `call_suffix` around `value_arguments`); None when it has none of its own."""
    if not call_like(call.kind):
        return None
    direct = argument_list(call)
    if direct is not None:
        return [direct], direct
    for child in call.named_children():
        inner = argument_list(child) if "suffix" in child.kind else None
        if inner is not None:
            return [child, inner], inner
    return None


def list_items(args: Node) -> list[Node]:
    return [a for a in args.named_children() if "comment" not in a.kind]


def _down(path: list[Node], rule: dict[str, Any]) -> dict[str, Any]:
    """`rule` on the last node of `path`, said from the call: each step by its field, else its kind."""
    for node in reversed(path):
        rule = {"has": {**place(node), **rule}}
    return rule


def empty_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                valid: Sequence[Example], start: int) -> list[Candidate]:
    r"""A call (a pattern, or a name regex of one name) that flags valid code too, written with no arguments in every
    invalid example and with some in every valid one (`fatalError()` beside `fatalError("why")`): the empty list
    is the fact, said on the call by its name (`has` the list, `regex: ^\(\s*\)$`), so a namespaced or spaced
    `Swift.fatalError( )` is flagged too. Not on a list of names: two calls paired by their empty lists (`rand()`
    with `play()`) are no one call."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        paths = [list_path(n) for n in [*bad, *good]]
        known = [p for p in paths if p is not None]
        if len(known) != len(paths) or any(list_items(p[1]) for p in known[:len(bad)]) or not all(
                list_items(p[1]) for p in known[len(bad):]):
            continue
        kinds = {tuple((n.role, n.kind) for n in p[0]) for p in known}
        if len(kinds) != 1:
            continue  # the lists are not at one place
        rule = {"all": [cand.body["rule"], _down(known[0][0], {"regex": r"^\(\s*\)$"})]}
        if any(o.body["rule"] == rule for o in out):
            continue
        note = "flags it only when called with no arguments; lets through the same call given any"
        out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note, flag=True,
                             namespaced=cand.namespaced))
    return out
