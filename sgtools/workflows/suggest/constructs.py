"""What counts as a construct of its own in an example's tree, and which kinds are calls: read by the author's
forms (author.py) and by the kinds told apart by what they hold (nested.py), which author.py calls in turn."""

from __future__ import annotations

import re

from sgtools.workflows.suggest.roots import PART_KINDS, part_kind
from sgtools.workflows.suggest.tree import Node

_BROAD_KINDS = ("identifier", "literal", "string", "number", "integer", "float", "comment", "ERROR", "MISSING",
                "expression_statement")
# A file's root node, by its kind's whole name: TypeScript's `internal_module` (a namespace) is a construct.
_FILE_KINDS = frozenset({"program", "source_file", "module", "translation_unit", "compilation_unit"})


def broad(kind: str) -> bool:
    """A name, literal, comment, bare statement or the file itself: no construct of its own."""
    return kind in _FILE_KINDS or any(b in kind for b in _BROAD_KINDS)


def is_construct(node: Node) -> bool:
    """A named node of its own (not a leaf, a list or block, a name, literal or comment, nor the file)."""
    return (node.named and not node.atomic and bool(node.children) and node.parent is not None
            and not part_kind(node.kind)
            and not broad(node.kind))


def call_like(kind: str) -> bool:
    """A call of any grammar; a shell's `command` (`read name`) is one, named by its `command_name`."""
    return kind == "command" or any(c in kind for c in ("call", "invocation", "macro", "new_", "creation"))


def creation(kind: str) -> bool:
    """The `new` of a type, in any grammar (`object_creation_expression`, `new_expression`)."""
    return re.search(r"creation|new_expression|instance_expression|constructor_invocation", kind) is not None


_BODIES = ("_body", "block", "statement_list", "declaration_list")


def is_body(node: Node) -> bool:
    """A construct's body, its statements or members: code it holds, not one of its own parts (a name, a modifier,
    a parameter list)."""
    return node.role == "body" or node.kind in PART_KINDS or node.kind.endswith(_BODIES)
