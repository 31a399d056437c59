"""Example code as ast-grep parses it: the CST dump read back into nodes with byte ranges and text.

Candidates are built from these trees, so they come from ast-grep's own parser (the `--debug-query=cst` dump),
never from a second parser that could disagree with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sgtools.engine.process import Engine
from sgtools.rules import syntax

_LINE = re.compile(r"^( *)(?:([A-Za-z_][A-Za-z0-9_]*): )?(.+?) \((\d+),(\d+)\)-\((\d+),(\d+)\)$")
# Kinds whose inside is a token to the matcher (quotes and content): compared and generalised as a whole.
_ATOMIC_PARTS = ("string", "char", "comment", "regex", "heredoc")
_ATOMIC_KINDS = frozenset({"variable_name", "simple_variable"})  # PHP `$x`: a name, though `$` is a token
# A "literal" whose kind names a function (Go's `func_literal`, Kotlin's and Swift's `lambda_literal`) is code: the
# matcher looks inside it (`go func() { t.Fatal(err) }()`), so its statements are roots and contexts like any other.
_CODE_LITERAL = re.compile(r"func|lambda|composite")


@dataclass(eq=False)
class Node:
    kind: str
    start: int  # UTF-8 byte offsets into the example, end exclusive
    end: int
    text: str
    role: str | None = None  # the field name in the parent (`function`, `arguments`, ...)
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    column: int = 0  # byte column of the start, to re-indent multi-line text

    @property
    def named(self) -> bool:
        # The dump does not mark anonymous tokens; they are the ones whose kind is their own text (`(`, `def`).
        return bool(self.children) or self.kind != self.text

    @property
    def atomic(self) -> bool:
        """A node compared by its text only: a leaf, or a literal whose parts are not separate nodes to the eye."""
        if not self.children or self.kind in _ATOMIC_KINDS:
            return True
        return any(part in self.kind for part in _ATOMIC_PARTS) or (
            self.kind.endswith("literal") and not _CODE_LITERAL.search(self.kind))

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            yield from child.walk()

    def size(self) -> int:
        return sum(1 for _ in self.walk())

    def named_children(self) -> list[Node]:
        return [c for c in self.children if c.named]

    def ancestors(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def nearest(self, kind: str) -> Node | None:
        """The nearest enclosing node of `kind`, None when none encloses it."""
        return next((a for a in self.ancestors() if a.kind == kind), None)


@dataclass
class Example:
    """One example's text and tree (the root is the language's file node)."""

    code: str
    root: Node
    index: int

    def nodes(self) -> list[Node]:
        return list(self.root.walk())

    def covering(self, start: int, end: int) -> Node | None:
        """The deepest named node spanning exactly [start, end), else the smallest one containing it."""
        best: Node | None = None
        for node in self.root.walk():
            if node.start <= start and end <= node.end and node.named and (
                    best is None or node.end - node.start <= best.end - best.start):
                best = node
        return best


def place(node: Node) -> dict[str, Any]:
    """How a `has` on its parent reaches the node: by the field it fills, else by its kind."""
    return {"field": node.role} if node.role else {"kind": node.kind}


Step = tuple[str, Any]  # one `has` down: ("field", the child's field) or ("nthChild", its place among named ones)


def path(top: Node, node: Node, *, depth: int | None = None, single: bool = False) -> tuple[Step, ...] | None:
    """The steps from `top` down to `node` inside it, as nested `has` says them: by the field a node fills, else by
    its place among its named siblings (from 1); with `single`, by a field the parent writes one child in and
    nothing else (a place in a list, a part by kind, gives None). None past `depth` steps or outside `top`."""
    steps: list[Step] = []
    while node is not top:
        parent = node.parent
        if parent is None or (depth is not None and len(steps) >= depth):
            return None
        if node.role and (not single or sum(c.role == node.role for c in parent.children) == 1):
            steps.append(("field", node.role))
        elif single:
            return None
        else:
            steps.append(("nthChild", next(i for i, c in enumerate(parent.named_children(), 1) if c is node)))
        node = parent
    return tuple(reversed(steps))


def follow(top: Node, steps: Sequence[Step], kinds: Sequence[str] | None = None) -> Node | None:
    """The node the steps lead to from `top` (a field's first child, of the step's kind in `kinds` where given:
    the same place in another construct); None where a step finds none."""
    node: Node | None = top
    for i, (how, at) in enumerate(steps):
        if node is None:
            return None
        kids = node.named_children()
        node = next((c for c in node.children if c.role == at and (kinds is None or c.kind == kinds[i])), None) \
            if how == "field" else (kids[at - 1] if at <= len(kids) else None)
    return node


def parse_dump(code: str, dump: str) -> Node | None:
    """Read a `--debug-query=cst` dump of `code` into nodes; None when the dump is empty."""
    data = code.encode("utf-8")
    line_starts = [0]
    for i, byte in enumerate(data):
        if byte == 0x0A:
            line_starts.append(i + 1)

    def offset(row: int, col: int) -> int:
        return min(len(data), (line_starts[row] if row < len(line_starts) else len(data)) + col)

    root: Node | None = None
    stack: list[tuple[int, Node]] = []
    for raw in dump.splitlines():
        m = _LINE.match(raw)
        if m is None:
            continue
        depth = len(m.group(1)) // 2
        r1, c1, r2, c2 = (int(m.group(i)) for i in range(4, 8))
        start, end = offset(r1, c1), offset(r2, c2)
        node = Node(kind=m.group(3), start=start, end=end, text=data[start:end].decode("utf-8", "replace"),
                    role=m.group(2), column=c1)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            node.parent = stack[-1][1]
            stack[-1][1].children.append(node)
        elif root is None:
            root = node
        else:
            continue
        stack.append((depth, node))
    return root


def read_examples(engine: Engine, cwd: Path, language: str, texts: Sequence[str]) -> list[Example]:
    """Each text's tree, as ast-grep parses it."""
    examples: list[Example] = []
    for i, text in enumerate(texts):
        syntax.check_code_arg(text, "example", engine.settings)
        dump, result = engine.dump_tree(text, language, "cst", cwd=cwd)
        root = parse_dump(text, dump)
        if root is None:
            raise engine.fail(result, f"parse example {i + 1} as {language}")
        examples.append(Example(text, root, i))
    return examples
