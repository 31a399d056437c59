"""Declarations by their declared type (issue 29): a field, a parameter or a variable every invalid example
declares with one type (or a function it declares returning one: `return_type`, `returns`, `result`) and no valid
one does, said on the declaration by that field, `any` of the kinds
the invalid examples declare it as (`field_declaration`, `formal_parameter`), the type by its name with any
namespace before it (`^(\\w+(\\.|::))*Optional\\b`: also `java.util.Optional<T>`) and whatever type arguments after
it; a reference or a pointer as written (`&String`; in Rust with any lifetime, `&'a String`, not `&mut`). Two
names where the request writes both (`&String` and `&Vec<T>`: `^&('\\w+\\s+)?(\\w+::)*(String|Vec)\\b`)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import DECLARED, KIND_ONLY, TYPE_ROLES, Candidate, of_kinds
from sgtools.workflows.suggest.declnames import declaration
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example, Node

# A declared type's text: a type annotation's colon (TypeScript), the reference or pointer marks, a lifetime,
# the namespace, then the type's name.
_TYPE = re.compile(r"(?P<colon>:\s*)?(?P<marks>[&*]*)(?:'\w+\s+)?(?:\w+(?:\.|::))*(?P<name>[A-Za-z_]\w*)")
_MAX_CHOICES = 32


def _typed(example: Example) -> Iterator[tuple[Node, tuple[str, bool, str], str]]:
    """Each declaration with a declared or return type: the node, the type's field and how it opens (colon,
    marks), and the type's name."""
    for node in example.nodes():
        for held in (c for c in node.children if c.role in TYPE_ROLES):
            found = _TYPE.match(held.text) if declaration(node) else None
            if found is not None:
                yield node, (str(held.role), bool(found.group("colon")), found.group("marks")), found.group("name")


def _regex(opening: tuple[str, bool, str], names: Sequence[str], language: str) -> str:
    _role, colon, marks = opening
    lifetime = r"('\w+\s+)?" if language == "rust" and marks.startswith("&") else ""
    name = names[0] if len(names) == 1 else "(" + "|".join(names) + ")"
    return "^" + (r":\s*" if colon else "") + re.escape(marks) + lifetime + r"(\w+(\.|::))*" + name + r"\b"


def type_forms(invalid: Sequence[Example], valid: Sequence[Example], start: int, request: str | None,
               language: str) -> list[Candidate]:
    """`kind` (or `any` of the kinds) + `has: {field: type, regex}` for the type every invalid example declares
    something with, by one of its declarations in each; two names or more only where the request writes each."""
    per = [list(_typed(e)) for e in invalid]
    listed = set(re.findall(r"\w+", request or ""))
    written = {n.text for e in valid for n in e.nodes() if not n.children}
    out: list[Candidate] = []
    seen: set[str] = set()
    for chosen in itertools.islice(itertools.product(*per), _MAX_CHOICES) if all(per) else ():
        names = sorted({name for _n, _o, name in chosen})
        openings = {opening for _n, opening, _name in chosen}
        if len(openings) != 1 or (len(names) > 1 and not set(names) <= listed):
            continue
        kinds = sorted({n.kind for n, _o, _name in chosen})
        opening = openings.pop()
        regex = _regex(opening, names, language)
        if f"{kinds}{regex}" in seen:
            continue
        seen.add(f"{kinds}{regex}")
        rule: dict[str, Any] = of_kinds(kinds)
        rule["has"] = {"field": opening[0], "regex": regex}
        shown = " or ".join(f"`{k}`" for k in kinds)
        note = (f"flags every {shown} declared with a type matching `{regex}`; lets through the same type "
                "under an alias")
        # The valid examples write the type too, elsewhere (a return type, a `new`): where it is declared tells.
        out.append(Candidate({"rule": rule}, Generalised.written(chosen[0][0], f"{'/'.join(kinds)} {regex}"),
                             DECLARED, start + len(out), note, namesake=set(names) <= written))
    return out


def _kinds(cand: Candidate) -> set[str]:
    rule = cand.body["rule"]
    return {str(k.get("kind")) for k in rule.get("any", [rule])}


def types_first(passing: list[Candidate]) -> list[Candidate]:
    """When the best candidate is a pattern of a declared type (`HashMap<String, $$$ARGS>`, keeping the type
    arguments the examples happen to share), the declarations by that type separate as well and the valid examples
    write the type elsewhere (`new HashMap<>()`), those go first: where the type is declared is the point,
    whatever its arguments or package. A type no valid example writes is wrong wherever it stands."""
    if not passing or passing[0].form >= KIND_ONLY:
        return passing
    root = passing[0].gen.root
    if root.role not in TYPE_ROLES or root.parent is None:
        return passing
    typed = next((c for c in passing if c.form == DECLARED and c.body["rule"].get("has", {}).get("field") == root.role
                  and c.namesake and root.parent.kind in _kinds(c)), None)
    return passing if typed is None else [typed, *(c for c in passing if c is not typed)]
