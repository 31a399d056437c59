"""Facts said alone (issue 29): a node kind every invalid example has and no valid one (`kind: assert_statement`,
with the operator, words or part every node of it shares: kinds.py), a type by name (`predefined_type` `^any$`) and
a value name (`identifier` `^arguments$`), each ranked by what it may also flag."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest import kinds, nested
from sgtools.workflows.suggest.author import NAME_ROLES, is_construct, whole_kind
from sgtools.workflows.suggest.candidates import KIND_ONLY, LEAF_KIND, Candidate, specific
from sgtools.workflows.suggest.generalise import Generalised, is_value_leaf
from sgtools.workflows.suggest.roots import PART_SUFFIXES
from sgtools.workflows.suggest.tree import Example, Node

_QUALIFIER = re.compile(r"qualifier|modifier|specifier")  # `const`, `static`: how a type is held, not a type


def _type_name(node: Node) -> bool:
    """A leaf naming a type (`any`, `Throwable`), not a qualifier of one (`const`)."""
    return (node.named and not node.named_children() and "type" in node.kind and not _QUALIFIER.search(node.kind)
            and re.fullmatch(r"\w+", node.text) is not None)


def _qualified_name(node: Node) -> bool:
    """A name written with its namespace (`std::endl`), not a call's callee (the call's name regex says that)."""
    return (("qualified" in node.kind or "scoped" in node.kind) and node.role not in NAME_ROLES
            and re.fullmatch(r"\w+(::\w+)+", node.text) is not None)


def _type_leaves(invalid: Sequence[Example], fine: set[tuple[str, str]], start: int) -> list[Candidate]:
    """A type every invalid example names and no valid one does (`any`): `kind` + `regex`."""
    texts = [{(n.kind, n.text) for n in e.nodes()} for e in invalid[1:]]
    types = {(n.kind, n.text): n for n in invalid[0].nodes()
             if _type_name(n) or _qualified_name(n)}
    out: list[Candidate] = []
    fine_kinds = {kind for kind, _text in fine}
    for (k, text), node in types.items():
        if all((k, text) in t for t in texts) and (k, text) not in fine:
            note = f"flags the type `{text}` wherever it is written; lets through aliases of it"
            cand = Candidate({"rule": {"kind": k, "regex": f"^{text}$"}}, Generalised.written(node, f"{k} {text}"),
                             LEAF_KIND, start + len(out), note)
            cand.within, cand.spread = _placed(invalid, (k, text), fine_kinds)
            # A name with its namespace (`std::endl`) is one API wherever it is written: the point, before a pattern
            # that keeps what happened to stand around it (`$A << $B << std::endl`).
            cand.qualified = _qualified_name(node)
            out.append(cand)
    return out


def _type_family(invalid: Sequence[Example], fine: set[tuple[str, str]], start: int) -> list[Candidate]:
    """Types of one kind each invalid example names, a different one in each, that no valid example writes
    (`String` in one, `Number` in the other, beside `string` and `number`): the types by name, `kind` + `regex`
    `^(String|Number)$`, wherever they are written. Not where some type is named in every invalid example (a type
    by name says that one)."""
    written = {text for _kind, text in fine}
    per = [{(n.kind, n.text): n for n in e.nodes() if _type_name(n) and n.text not in written} for e in invalid]
    kinds = {k for found in per for k, _text in found}
    if len(invalid) < 2 or not all(per) or len(kinds) != 1 or set.intersection(*(set(f) for f in per)):
        return []
    names = list(dict.fromkeys(text for found in per for _kind, text in found))
    if len(names) > len(invalid) + 1:
        return []  # more new types than examples: what the examples happened to declare, not the point
    kind, node = next(iter(per[0])), next(iter(per[0].values()))
    regex = "^(" + "|".join(map(re.escape, names)) + ")$"
    note = f"flags the types {', '.join(f'`{n}`' for n in names)} wherever they are written; lets through others"
    return [Candidate({"rule": {"kind": kind[0], "regex": regex}}, Generalised.written(node, f"{kind[0]} {regex}"),
                      LEAF_KIND, start, note)]


def _placed(invalid: Sequence[Example], leaf: tuple[str, str], fine_kinds: set[str]) -> tuple[bool, bool]:
    """Where a type is written. Within: in the same construct of its own every time (`catch (Throwable t)`), one
    the valid examples also use with another type: that construct with the type is the point, not the type
    anywhere. Spread: at two kinds of place in every example (declared and constructed, `StringBuffer b = new
    StringBuffer()`): the type is the point wherever it stands, not the one construct a pattern keeps."""
    nodes = [[n for n in e.nodes() if (n.kind, n.text) == leaf] for e in invalid]
    around = [{a.kind for a in n.ancestors()} for found in nodes for n in found]
    within = any(specific(a) and a in fine_kinds and not whole_kind(a) for a in set.intersection(*around))
    spread = all(len({n.parent.kind for n in found if n.parent is not None}) > 1 for found in nodes)
    return within, spread


def _bare_names(invalid: Sequence[Example], fine: set[tuple[str, str]], start: int) -> list[Candidate]:
    """A value name every invalid example uses and no valid one does (`arguments`, `byebug`): `kind` + `regex`,
    ranked after every other fact but a whole function (a name may be what the examples happen to call things)."""
    if any(n.kind == "ERROR" for e in invalid for n in e.nodes()):
        return []  # code that does not parse: its names say nothing of a construct
    texts = [{(n.kind, n.text) for n in e.nodes()} for e in invalid[1:]]
    found = {(n.kind, n.text): n for n in invalid[0].nodes() if n.named and is_value_leaf(n)
             and not n.kind.startswith("string") and re.fullmatch(r"[A-Za-z_]\w{2,}", n.text)}
    out: list[Candidate] = []
    for (k, text), node in found.items():
        if all((k, text) in t for t in texts) and not any(t == text for _k, t in fine):
            note = f"flags the name `{text}` wherever it is written; lets through the same thing under another name"
            out.append(Candidate({"rule": {"kind": k, "regex": f"^{text}$"}},
                                 Generalised.written(node, f"{k} {text}"), LEAF_KIND, start + len(out), note,
                                 bare=True))
    return out


def _context_kind(kind: str, invalid: Sequence[Example], fine: set[tuple[str, str]]) -> bool:
    """A kind holding a statement that also occurs in a valid example (`defer f.Close()` in a loop, fine
    alone) is the context, not the fact."""
    return any((d.kind, d.text) in fine for e in invalid for n in e.nodes() if n.kind == kind
               for d in n.walk() if d is not n and d.named and "statement" in d.kind)


def kind_only(invalid: Sequence[Example], valid: Sequence[Example], start: int) -> list[Candidate]:
    """A node kind every invalid example has and no valid example has: `kind: K` alone (and a type by name)."""
    fine = {(n.kind, n.text) for e in valid for n in e.nodes()}
    out = (_type_leaves(invalid, fine, start + 500) + _type_family(invalid, fine, start + 600)
           + _bare_names(invalid, fine, start + 700))
    if len(invalid) < 2:  # one example is no evidence that every node of its kind is wrong
        return out
    found = [{n.kind: n for n in e.nodes() if is_construct(n)} for e in invalid]
    in_valid = {kind for kind, _text in fine}
    for k, node in found[0].items():
        if not all(k in f for f in found[1:]):
            continue
        if k in in_valid:  # told apart by how its nodes are written, or (a clause too) by what they hold
            out.extend(_spelled(k, node, invalid, valid, start + len(out)) if specific(k) else [])
            out.extend(nested.nested_forms(k, node, invalid, valid, start + len(out)))
            continue
        if not specific(k):
            continue
        # A kind whose every node reads the same in every example (`pass`) is a token, not a construct.
        if all(n.text == node.text for e in invalid for n in e.nodes() if n.kind == k):
            continue
        cand = _kind_candidate(k, node, invalid, start + len(out))
        # Holding code that is fine elsewhere, it may be the context (a loop) or the construct wrapping fine code
        # (a namespace); always an argument or a parameter, it is part of the call or function that takes it (a
        # callback passed to `setTimeout`): said after any other fact that separates.
        cand.holds_fine = _context_kind(k, invalid, fine) or _always_a_part(k, invalid)
        out.append(cand)
    return out


def _spelled(k: str, node: Node, invalid: Sequence[Example], valid: Sequence[Example], index: int) -> list[Candidate]:
    """A kind the valid examples write too, by the token its invalid nodes open (or close) with: `kind:
    command_substitution`, `regex: ^``, beside `$(...)` (kinds.spelled_token). Not a list of modifiers, whose
    first or last word is one of many in any order (modifiers.py says them by word), nor a whole function or
    class, whose first word is whichever modifier it has (`function` beside `async function`)."""
    told = not _QUALIFIER.search(k) and not whole_kind(k)
    spelled = kinds.spelled_token(k, invalid, valid) if told else None
    if spelled is None:
        return []
    note = f"flags every `{k}` written with `{spelled[0]}`; lets through the same problem written as another construct"
    return [Candidate({"rule": {"kind": k, "regex": spelled[1]}}, Generalised.written(node, k), KIND_ONLY, index, note)]


def keyword_statements(example: Example, valid: Sequence[Example], start: int) -> list[Candidate]:
    """One invalid example searched alone (a part of `any`, union.py): a statement its own keyword opens (`exit`,
    `debugger`) of a kind no valid example has, by its kind: `kind: exit_statement` says `exit;`, `exit(1);` and
    `exit();`. A kind alone otherwise needs two examples (kind_only); a keyword statement is one construct."""
    in_valid = {n.kind for e in valid for n in e.nodes()}
    out: list[Candidate] = []
    for n in example.nodes():
        opener = n.children[0] if n.children else None
        if (is_construct(n) and "statement" in n.kind and specific(n.kind) and n.kind not in in_valid
                and opener is not None and not opener.named and re.fullmatch(r"[a-z_]+", opener.text)):
            in_valid.add(n.kind)  # one candidate per kind
            note = f"flags every `{n.kind}`, whatever it holds"
            out.append(Candidate({"rule": {"kind": n.kind}}, Generalised.written(n, n.kind), KIND_ONLY,
                                 start + len(out), note))
    return out


def _always_a_part(kind: str, invalid: Sequence[Example]) -> bool:
    """Every node of `kind` is an item of an argument or parameter list."""
    return all(n.parent is not None and n.parent.kind.endswith(PART_SUFFIXES[:4])
               for e in invalid for n in e.nodes() if n.kind == kind)


def _kind_candidate(k: str, node: Node, invalid: Sequence[Example], index: int) -> Candidate:
    note = f"flags every `{k}`, whatever it contains; lets through the same problem written as another construct"
    rule: dict[str, Any] = {"kind": k}
    op = kinds.shared_operator(k, invalid) or kinds.shared_words(k, invalid)
    if op is not None:  # Kotlin's `postfix_expression` is `x!!` and `i++`: the one written is the point
        rule["regex"] = op
        shown = re.sub(r"\\[sb]\+?", " ", op).strip("^$ ").replace(chr(92), "")
        note = f"flags every `{k}` written with `{shown}`; lets through the same " \
               "problem written as another construct"
    parts = kinds.shared_parts(k, invalid) if op is None else []
    if parts:  # `not x in y`: a `not_operator` whose argument is a comparison, not every `not`
        held = [{"has": {"field": role, "kind": kind}} for role, kind in parts]
        rule.update(held[0] if len(held) == 1 else {"all": held})
        note = f"flags every `{k}` with a {' and a '.join(f'`{kind}` as its {role}' for role, kind in parts)}; " \
               "lets through the same problem written as another construct"
    cand = Candidate({"rule": rule}, Generalised.written(node, k), KIND_ONLY, index, note)
    # Every one of them names the same thing (`type` in `type(x) == int`, `malloc` in a cast): that name is
    # the point, and the kind alone flags every other one (a pattern or a telling child keeps the name).
    cand.names_a_call = bool(_shared_names(k, invalid))
    # Inside a string every time (Ruby's `#{x}`): part of a literal, not a construct; where it goes is the point.
    cand.in_literal = all(any(a.atomic for a in n.ancestors()) for e in invalid for n in e.nodes() if n.kind == k)
    return cand


def _shared_names(kind: str, invalid: Sequence[Example]) -> set[str]:
    """Identifiers every invalid example's nodes of `kind` hold."""
    per = [{d.text for n in e.nodes() if n.kind == kind for d in n.walk()
            if d is not n and d.named and d.atomic and d.kind.endswith("identifier")} for e in invalid]
    return set.intersection(*per) if per else set()
