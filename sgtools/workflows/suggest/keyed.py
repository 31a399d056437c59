"""A keyed element of a bigger literal is the fact (issue 29): `&tls.Config{InsecureSkipVerify: true}` in every
invalid example means the element `InsecureSkipVerify: true` in any such literal, whatever other fields stand
beside it; the pattern of the whole literal flags only a literal holding that one element and nothing else. An
author writes the element with everything around it free."""

from __future__ import annotations

import re

from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import KIND_ONLY, Candidate
from sgtools.workflows.suggest.tree import Node

# A key with its value inside a literal, whatever the grammar calls it: Go's `keyed_element`, a JavaScript,
# Python or Ruby `pair`, Rust's `field_initializer`, C's `initializer_pair`, PHP's `array_element_initializer`.
_KEYED = re.compile(r"keyed_element|^pair$|field_initializer|initializer_pair|element_initializer")
# What may stand between the element and the literal's outside: the literal and its parts, an `&` taking its
# address, a `new` of it. Not a call, a statement or a declaration: there the literal is an argument or a value.
_AROUND = re.compile(r"literal|object|dictionary|hash|array|initializer|struct_expression|unary|pointer")


def _keyed(node: Node) -> bool:
    return bool(_KEYED.search(node.kind))


def _leaves(node: Node) -> list[Node]:
    """Its tokens that are words or values (`true` is a token of its own kind), not punctuation."""
    return [d for d in node.walk() if not d.children and re.search(r"\w", d.text)]


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
    separates as well, the element goes first: the other fields of such a literal are free."""
    if not passing or passing[0].form >= KIND_ONLY or _keyed(passing[0].gen.root):
        return passing
    root = passing[0].gen.root
    elements = [c for c in passing[1:] if _keyed(c.gen.root) and _within_literal(c.gen.root, root)]
    if not elements:
        return passing
    # The one that keeps the key and the value as written (`InsecureSkipVerify` and `true`): the value is the fact.
    element = next((c for c in elements if all(re.escape(leaf.text) in str(c.body) for leaf in _leaves(c.gen.root))),
                   elements[0])
    return [element, *(c for c in passing if c is not element)]
