"""A keyed element of a bigger literal is the fact (issue 29): `&tls.Config{InsecureSkipVerify: true}` in every
invalid example means the element `InsecureSkipVerify: true` in any such literal, whatever other fields stand
beside it; the pattern of the whole literal flags only a literal holding that one element and nothing else. An
author writes the element with everything around it free, and, where the key is a field set to a literal, the same
field set by an assignment (`cfg.InsecureSkipVerify = true`): both are the field set to that value."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import CHILD, KIND_ONLY, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example, Node, place

# A key with its value inside a literal, whatever the grammar calls it: Go's `keyed_element`, a JavaScript,
# Python or Ruby `pair`, Rust's `field_initializer`, C's `initializer_pair`, PHP's `array_element_initializer`, a
# JSX attribute (`dangerouslySetInnerHTML={...}`).
_KEYED = re.compile(r"keyed_element|^pair$|field_initializer|initializer_pair|element_initializer|^jsx_attribute$")
# What may stand between the element and the literal's outside: the literal and its parts, an `&` taking its
# address, a `new` of it; a JSX element around its attributes. Not a call, a statement or a declaration: there the
# literal is an argument or a value.
_AROUND = re.compile(r"literal|object|dictionary|hash|array|initializer|struct_expression|unary|pointer|"
                     r"^jsx_(?:self_closing|opening)_element$")


def _keyed(node: Node) -> bool:
    return bool(_KEYED.search(node.kind))


def _leaves(node: Node) -> list[Node]:
    """Its tokens that are words or values (`true` is a token of its own kind), not punctuation."""
    return [d for d in node.walk() if not d.children and re.search(r"\w", d.text)]


def _says(cand: Candidate, text: str) -> bool:
    """The candidate's rule writes `text` as a whole word (`html` is not said by `^__html$`); a context pattern
    writes the whole example around the node, so it says nothing of the node's own words."""
    rule = str(cand.body["rule"])
    return "'context'" not in rule and re.search(rf"(?<!\w){re.escape(text)}(?!\w)", rule) is not None


def _within_literal(element: Node, root: Node) -> bool:
    """The element sits in the literal `root` is, through the literal's own parts only."""
    for a in element.ancestors():
        if a is root:
            return not call_like(root.kind) and bool(_AROUND.search(root.kind))
        if call_like(a.kind) or not _AROUND.search(a.kind):
            return False
    return False


def elements_first(passing: list[Candidate]) -> list[Candidate]:
    """When the best candidate is a pattern of a whole literal and a candidate of one keyed element inside it
    separates as well, the element goes first: the other fields of such a literal are free. Of an element's
    candidates, the one keeping its key and value as written, with the field's assignment where that verified."""
    if not passing:
        return passing
    root = passing[0].gen.root
    if _keyed(root):
        elements = [c for c in passing if c.gen.root is root]
    elif passing[0].form < KIND_ONLY or passing[0].form == CHILD:
        elements = [c for c in passing[1:] if _keyed(c.gen.root) and _within_literal(c.gen.root, root)]
    else:
        return passing
    if not elements:
        return passing
    # The one that keeps the key and the value as written (`InsecureSkipVerify` and `true`): the value is the fact;
    # with the field's assignment too, when that verified.
    whole = [c for c in elements if all(_says(c, leaf.text) for leaf in _leaves(c.gen.root))]
    element = next((c for c in whole if _TARGET in str(c.body)), whole[0] if whole else _by_key(elements))
    return [element, *(c for c in passing if c is not element)]


def _by_key(elements: list[Candidate]) -> Candidate:
    """Where no candidate keeps the value as written (the examples' values differ: code, not a literal), the one
    that says the key and nothing of the value (`jsx_attribute` named `dangerouslySetInnerHTML`, not also holding
    the `__html` both values happen to write): an author keys on the name."""
    for cand in elements:
        parts = cand.gen.root.named_children()
        if len(parts) < 2:
            continue
        key = {leaf.text for leaf in _leaves(parts[0])}
        said = set(re.findall(r"\^\(?([\w|.]+)\)?\$", str(cand.body["rule"])))
        if said and said <= key:
            return cand
    return elements[0]


_TARGET = "$TARGET"
# A value a field is set to that reads the same in an assignment: a boolean, null, number or string.
_LITERAL = re.compile(r"true|false|bool|null|nil|none|int|float|number|string")


def _field_set(element: Node) -> tuple[str, str] | None:
    """(field, value) of an element that sets a field by its bare name to a literal (`InsecureSkipVerify: true`);
    None for a quoted or computed key, or a value that is code."""
    parts = element.named_children()
    if len(parts) < 2 or not re.fullmatch(r"[A-Za-z_]\w*", parts[0].text):
        return None
    value = parts[-1]
    while len(value.children) == 1 and not value.atomic:  # Go's `literal_element` around the value
        value = value.children[0]
    if not value.atomic or not _LITERAL.search(value.kind) or "\n" in value.text:
        return None
    return parts[0].text, value.text


def _said(part: Node) -> dict[str, Any]:
    """One part of an element as its field (else its kind) and its text."""
    return {**place(part), "regex": f"^{re.escape(part.text)}$"}


def _key_value(element: Node) -> tuple[Node, Node] | None:
    parts = element.named_children()
    if len(parts) < 2 or "\n" in element.text:
        return None
    return parts[0], parts[-1]


def element_forms(pivot: Example, invalid: Sequence[Example], valid: Sequence[Example], start: int) -> list[Candidate]:
    """Each keyed element of the pivot that every invalid example writes as it is (key and value) and no valid one
    does: the element by its kind, key and value (`keyed_element` with `InsecureSkipVerify` and `true`), and, where
    the key is a field set to a literal, with that field set by an assignment (`any` of both), a copy of its own."""
    out: list[Candidate] = []
    for node in pivot.nodes():
        found = _key_value(node) if _keyed(node) else None
        if found is None:
            continue
        texts = (node.kind, found[0].text, found[1].text)

        def writes(e: Example, texts: tuple[str, str, str] = texts) -> bool:
            return any(_keyed(n) and (kv := _key_value(n)) is not None and (n.kind, kv[0].text, kv[1].text) == texts
                       for n in e.nodes())
        if not all(writes(e) for e in invalid) or any(writes(e) for e in valid):
            continue
        rule: dict[str, Any] = {"kind": node.kind, "all": [{"has": _said(p)} for p in found]}
        gen = Generalised.written(node, f"{node.kind} {found[0].text}: {found[1].text}")
        note = f"flags `{found[0].text}: {found[1].text}` in any literal, whatever else it holds"
        out.append(Candidate({"rule": rule}, gen, CHILD, start + len(out), note))
        field = _field_set(node)
        if field is not None:
            both = {"any": [rule, {"pattern": f"{_TARGET}.{field[0]} = {field[1]}"}]}
            out.append(Candidate({"rule": both}, gen, CHILD, out[-1].root_index,
                                 f"{note}; also `{field[0]}` set to `{field[1]}` by an assignment"))
    return out
