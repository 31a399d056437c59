"""Code kept inside the declaration the request names by its annotation (issue 29): "in a @Composable, wrap
mutableStateOf in remember", "no Thread.sleep in @Test methods", "inside @Transactional methods". When the request
writes `@Name` and, in every invalid example, one of the best candidates' matches sits in a declaration annotated
(or decorated) so, the candidate is also tried inside any declaration of that kind with that annotation among its
modifiers, qualified or with arguments (`inside: {kind: function_declaration, has: {kind: modifiers, has: {kind:
annotation, regex: ^@(\\w+\\.)*Composable\\b, stopBy: end}}, stopBy: end}`), ranked just before the candidate alone,
as placed.py ranks a construct the request names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import matched
from sgtools.workflows.suggest.candidates import KIND_ONLY, Candidate
from sgtools.workflows.suggest.placed import flagging
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

# An annotation said as the place of the point ("in a @Composable", "inside @Transactional methods"), not one said
# beside it ("classes with their @Published properties", "use @StateObject"): only the place keeps code inside it.
_NAME = re.compile(r"\b(?:in|inside|within)\s+(?:(?:a|an|the|any|every|each|all)\s+)?@([A-Za-z_][\w.]*\w)", re.I)
_MARKS = ("annotation", "decorator", "attribute")  # the kinds an annotation is, by grammar


def annotation_names(request: str | None) -> list[str]:
    """The annotations the request says code is in (`@Composable`, `@Test`), each by its last name."""
    return list(dict.fromkeys(m.group(1).split(".")[-1] for m in _NAME.finditer(request or "")))


def _mark(node: Node, regex: str) -> Node | None:
    return next((d for d in node.walk() if d.named and any(k in d.kind for k in _MARKS)
                 and re.match(regex, d.text)), None)


def _clause(node: Node, regex: str) -> dict[str, Any] | None:
    """The nearest declaration around `node` whose header (a child not holding `node`) holds the annotation: by its
    kind, the header child's kind and the annotation's."""
    child = node
    for a in node.ancestors():
        for top in a.children:
            if top is child or not top.named:
                continue
            found = _mark(top, regex)
            if found is None:
                continue
            has: dict[str, Any] = ({"kind": top.kind, "regex": regex} if found is top else
                                   {"kind": top.kind, "has": {"kind": found.kind, "regex": regex, "stopBy": "end"}})
            return {"kind": a.kind, "has": has, "stopBy": "end"}
        child = a
    return None


def annotated_forms(tried: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example], request: str | None,
                    start: int) -> list[Candidate]:
    """Each of the best candidates that flag every invalid example, inside the declaration annotated as the request
    writes that every invalid example has one of its matches in: ranked just before it."""
    out: list[Candidate] = []
    for name in annotation_names(request)[:1]:
        regex = rf"^@(\w+\.)*{re.escape(name)}\b"
        for cand, outcome in flagging(tried, len(invalid)):
            found = [[c for n in nodes if (c := _clause(n, regex)) is not None]
                     for nodes in matched(outcome, invalid, 0)]
            if not all(found) or any(f[0] != found[0][0] for f in found):
                continue
            note = f"flags it only in a `{found[0][0]['kind']}` annotated `@{name}`, as the request says; lets " \
                   "through the same code anywhere else"
            out.append(cand.kept_inside(found[0][0], note, start + len(out),
                                        placed=cand.form == KIND_ONLY or cand.keyword_only()))
    return out
