"""Anti-unification: one node per invalid example -> one ast-grep pattern with metavariables where they differ.

What all examples share stays literal; what differs becomes `$A` (one node) or `$$$ARGS` (a run of list items).
A relaxation `level` also abstracts leaves that look incidental even when the examples agree on them
(1: values passed as arguments, 2: every value position), so one example can still give a general rule.
Callees, attribute and method names, receivers, types, keywords and booleans always stay literal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from sgtools.workflows.suggest.tree import Node

# Fields whose identifier names what is done, not what it is done to.
_SIGNIFICANT_FIELDS = frozenset({
    "function", "attribute", "property", "field", "name", "method", "type", "module", "scope", "constructor",
    "decorator", "key", "label", "tag", "operator", "path", "macro", "object", "operand", "receiver",
    "superclass", "interfaces", "return_type", "module_name",
})
_NAME_ROLES = frozenset({"function", "method", "macro", "name", "attribute", "property", "field", "callee"})
_DECLARATIVE = ("import", "decorator", "annotation", "attribute_item", "use_declaration", "package", "namespace",
                "include", "require", "using")
_ACCESS = ("member", "field_expression", "field_access", "selector", "attribute", "navigation", "scoped")
_CALLS = ("call", "invocation", "method_invocation")
_IDENT_KINDS = frozenset({"identifier", "simple_identifier", "name", "variable_name", "word", "constant"})
_NOT_VALUE_IDENT = ("type_", "field_", "property_", "package_", "namespace_", "scoped_", "shorthand_",
                    "statement_", "label_")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPEN, _CLOSE = ("(", "[", "{", "<"), (")", "]", "}", ">")
LEVELS = (2, 1, 0)  # most relaxed first
_SLOT = "\x02"
_BODY = re.compile(r"block|body|statement_list|suite")
_PUNCT = frozenset("()[]{},;.:'\"`@#$") | {"::", "->", "=>", "?."}


@dataclass(frozen=True)
class Hole:
    name: str
    multi: bool
    kinds: frozenset[str]  # kinds of the generalised nodes (one kind: a `kind` constraint can pin it)
    texts: tuple[str, ...]  # their texts, one per example (a common prefix can pin it with `regex`)
    relaxed: bool  # abstracted by the relaxation, not because the examples differ there
    role: str | None = None  # the field the pivot's node fills in its parent (`key`, `value`, `function`)
    lead: str | None = None  # a keyword every node starts with though their kinds differ (`async` on two lambdas)

    @property
    def telling(self) -> bool:
        """A position that says what the construct is (a key, a name, a type, an operand), not a value in it."""
        return self.role in _SIGNIFICANT_FIELDS


@dataclass
class Generalised:
    root: Node
    pattern: str
    holes: list[Hole]
    level: int
    kept: float  # how much literal, meaningful code the pattern keeps (specificity)
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    # Keywords the examples disagree on (`const` / `let`): the pattern text for each example's choice.
    choices: list[tuple[str, ...]] = field(default_factory=list)
    shadowed: bool = False  # the root's code also occurs in a valid example
    kind_in_valid: bool = False  # a valid example has a node of the root's kind
    pinned: str | None = None  # differing literals with a common prefix/suffix: this regex, not a pattern
    name_hole: bool = False  # a metavariable stands where the examples name different calls or members
    typed_only: bool = False  # keeps no name: only with its holes' kinds does it say something (`$A=$B`, B a list)
    # Metavariables standing at two or more places, over code that differs between the examples but is the same
    # at each place within one (`$A = realloc($A, ...)`): ast-grep matches them only where the code repeats.
    bound: frozenset[str] = frozenset()

    @property
    def alternatives(self) -> list[str]:
        return list(dict.fromkeys(self.variant(n) for n in range(max(1, len(self.choices[0]) if self.choices else 1))))

    @classmethod
    def written(cls, node: Node, label: str) -> Generalised:
        """A rule an author writes by hand (a kind, a comment word, a modifier): no holes, the example kept whole."""
        return cls(node, label, [], 0, 1.0)

    def variant(self, n: int, *, dedent: bool = True) -> str:
        text = apply_edits(self.root, self.edits, dedent=dedent)
        return re.sub("\x03(\\d+)\x03", lambda m: self.choices[int(m.group(1))][n], text)

    def in_place(self, code: str, n: int = 0) -> str:
        """`code` (the pivot example) with this node replaced by its generalised text (keyword variant `n`)."""
        data = code.encode("utf-8")
        variants = list(dict.fromkeys(self.variant(k, dedent=False) for k in range(
            max(1, len(self.choices[0]) if self.choices else 1))))
        return (data[:self.root.start].decode("utf-8") + variants[min(n, len(variants) - 1)]
                + data[self.root.end:].decode("utf-8"))


def is_value_leaf(node: Node) -> bool:
    if not node.named or not node.atomic:
        return False
    kind = node.kind
    ident = kind in _IDENT_KINDS or (kind.endswith("identifier") and not kind.startswith(_NOT_VALUE_IDENT))
    return ident or ("string" in kind and "content" not in kind)


def incidental(node: Node, level: int) -> bool:
    """A leaf that names data rather than the operation: abstracted at relaxation `level`."""
    if level == 0 or not is_value_leaf(node) or node.role in _SIGNIFICANT_FIELDS or node.text == "_":
        return False
    parent = node.parent
    if parent is None:
        return False
    if any(any(d in a.kind for d in _DECLARATIVE) for a in node.ancestors()):
        return False
    first = next(iter(parent.named_children()), None) is node
    if first and any(a in parent.kind for a in (*_ACCESS, *_CALLS)):
        return False  # a receiver or a callee
    in_args = any("argument" in a.kind for a in (parent, parent.parent) if a is not None)
    return in_args if level == 1 else True


def _type_arguments(node: Node) -> bool:
    """A generic type's arguments (`<String>` in `Optional<String>`), abstracted at the loosest level."""
    return node.kind.endswith("type_arguments") and _listlike(node) and bool(node.named_children())


def _differs(item: Node, group: list[Node]) -> bool:
    """An argument that not every other example passes too."""
    return len(group) > 1 and not all(any(o.text == item.text for o in n.named_children()) for n in group[1:])


def _listlike(node: Node) -> bool:
    kids = node.children
    bracketed = len(kids) >= 2 and kids[0].text in _OPEN and kids[-1].text in _CLOSE
    return bracketed or any(p in node.kind for p in ("list", "arguments", "parameters", "block", "body"))


def _assigned(node: Node) -> bool:
    parent = node.parent
    return node.role == "left" or (parent is not None and parent.role == "left" and parent.kind.endswith("list"))


def _leaf_weight(node: Node) -> float:
    if not node.named:  # keywords and operators (`==` vs `===`) carry meaning; brackets and separators don't
        text = node.text.strip()
        return 1.0 if _WORD.fullmatch(text) else 0.0 if not text or text in _PUNCT else 0.5 if text == "=" else 1.0
    # An assignment's target often names the concern (`password = ...`); other data counts for less.
    return 0.4 if is_value_leaf(node) and incidental(node, 2) and not _assigned(node) else 1.0


def _weight(node: Node) -> float:
    if node.atomic:
        return _leaf_weight(node)
    if (node.named and not any(c.named for c in node.children) and len(node.children) <= 3
            and not any(p in node.kind for p in ("argument", "parameter"))):
        return 1.0  # an empty literal: `[]`, `{}`, `()`; not an empty argument list
    return sum(_weight(c) for c in node.children)


class _Builder:
    def __init__(self, root: Node, level: int, bound: frozenset[tuple[str, ...]] = frozenset()) -> None:
        self.root = root
        self.level = level
        self.bound = bound  # code repeated at two places in each example (per example): kept as one metavariable
        self.edits: list[tuple[int, int, str]] = []
        self.holes: list[tuple[list[Node], bool, bool]] = []  # generalised nodes, multi, relaxed
        self.leads: dict[int, str] = {}  # a run's keyword at one item position (`async` on two callbacks)
        self.kept = 0.0
        self.choices: list[tuple[str, ...]] = []

    def _state(self) -> tuple[int, int, float, int]:
        return len(self.edits), len(self.holes), self.kept, len(self.choices)

    def _restore(self, state: tuple[int, int, float, int]) -> None:
        del self.edits[state[0]:]
        del self.holes[state[1]:]
        self.leads = {k: v for k, v in self.leads.items() if k < state[1]}
        self.kept = state[2]
        del self.choices[state[3]:]

    def _new_hole(self, group: list[Node], multi: bool, relaxed: bool) -> str:
        self.holes.append((group, multi, relaxed))
        return f"\x00{len(self.holes) - 1}\x00"

    def single(self, group: list[Node], relaxed: bool = False) -> None:
        self.edits.append((group[0].start, group[0].end, self._new_hole(group, False, relaxed)))

    def many(self, group: list[Node], relaxed: bool = False) -> bool:
        """A run of list items: keep the items every example has (in order), `$$$` for the runs between them."""
        pivot = group[0]
        kids = pivot.children
        if not (len(kids) >= 2 and kids[0].text in _OPEN and kids[-1].text in _CLOSE):
            if not pivot.named:
                return False
            self.edits.append((pivot.start, pivot.end, self._new_hole(group, True, relaxed)))
            return True
        items = [n.named_children() for n in group]
        anchors = [] if not any(c.text == "," for c in kids) else _usable(
            self._bound_items(items) if relaxed else _anchors(items), items)
        parts: list[str] = []
        previous = [-1] * len(items)
        for anchor in [*anchors, [len(i) for i in items]]:
            runs = [i[previous[k] + 1:anchor[k]] for k, i in enumerate(items)]
            gap = [n for run in runs for n in run]
            if gap:
                parts.append(self._new_hole(gap, True, relaxed))
                lead = _run_lead(runs)
                if lead is not None:
                    self.leads[len(self.holes) - 1] = lead
            if anchor[0] < len(items[0]) and relaxed:  # an item bound elsewhere in the root (`realloc($A, $$$ARGS)`)
                parts.append(self._new_hole([i[anchor[k]] for k, i in enumerate(items)], False, False))
            elif anchor[0] < len(items[0]):
                parts.append(items[0][anchor[0]].text)
                self.kept += _weight(items[0][anchor[0]])
            previous = anchor
        self.edits.append((kids[0].end, kids[-1].start, ", ".join(parts)))
        return True

    def _bound_items(self, items: list[list[Node]]) -> list[list[int]]:
        """Positions of the items that repeat code bound elsewhere in the root, at one index in every list."""
        return [[j] * len(items) for j in range(min(len(i) for i in items))
                if tuple(i[j].text for i in items) in self.bound]

    def gen(self, group: list[Node]) -> bool:
        pivot = group[0]
        whole = self._whole(group)
        if whole is not None:
            return whole
        if pivot.atomic or any(n.kind != pivot.kind for n in group):
            return False
        if any(len(n.children) != len(pivot.children) for n in group):
            return _listlike(pivot) and self.many(group)
        tail = self._open_tail(group)
        return all(self._child(child, [n.children[i] for n in group]) for i, child in enumerate(pivot.children)
                   if tail is None or child.end <= tail) and (tail is None or self._tail(group, tail))

    def _open_tail(self, group: list[Node]) -> int | None:
        """Where the arguments after the last one every example passes alike begin, at a relaxation level: how
        many follow it is incidental (`Object.assign({}, a, b)` means `Object.assign({}, $$$ARGS)`, any number of
        sources), so they become one run. None when no argument is kept or none follows the last kept one."""
        pivot = group[0]
        if not (self.level and "argument" in pivot.kind and any(c.text == "," for c in pivot.children)
                and _listlike(pivot)):
            return None
        items = [n.named_children() for n in group]
        kept = [j for j, item in enumerate(items[0]) if all(len(i) == len(items[0]) and i[j].text == item.text
                                                            for i in items[1:]) and not self._relaxes(item)
                and not incidental(item, self.level)]
        if not kept or kept[-1] == len(items[0]) - 1:
            return None
        return items[0][kept[-1]].end

    def _tail(self, group: list[Node], after: int) -> bool:
        """The arguments of each list after byte `after` of the pivot (its last kept one), as one run `$$$`."""
        pivot = group[0]
        at = next(j for j, c in enumerate(pivot.named_children()) if c.end == after) + 1
        runs = [n.named_children()[at:] for n in group]
        first, last = runs[0][0], runs[0][-1]
        self.edits.append((first.start, last.end, self._new_hole([n for run in runs for n in run], True, False)))
        return True

    def _whole(self, group: list[Node]) -> bool | None:
        """The group handled as a whole (one hole, a list of holes, or kept as written), or None to recurse."""
        pivot = group[0]
        if pivot is not self.root and incidental(pivot, self.level):
            self.single(group, relaxed=all(n.text == pivot.text for n in group))
            return True
        if self._empty_arguments(group):
            return True
        if self.level == 2 and _type_arguments(pivot):
            return self.many(group, relaxed=True)  # `Optional<$$$T>`: what a generic type holds is its value
        if self.level and "argument" in pivot.kind and _listlike(pivot) and pivot.named_children() and all(
                incidental(c, self.level) or _differs(c, group) for c in pivot.named_children()):
            return self.many(group, relaxed=True)
        if all(n.text == pivot.text for n in group) and not self._relaxes(pivot):
            self.kept += _weight(pivot)
            return True
        return None

    def _relaxes(self, node: Node) -> bool:
        """Whether this level abstracts something inside `node`, so it is not kept whole as written."""
        return self.level > 0 and any(incidental(d, self.level) or (self.level == 2 and _type_arguments(d))
                                      for d in node.walk())

    def _empty_arguments(self, group: list[Node]) -> bool:
        """`()` at the loosest level: any arguments (`e.printStackTrace()` also means `(System.err)`)."""
        pivot = group[0]
        if not (self.level == 2 and "argument" in pivot.kind and _listlike(pivot) and len(pivot.children) == 2
                and all(len(n.children) == 2 for n in group)):
            return False
        kids = pivot.children
        self.edits.append((kids[0].end, kids[-1].start, self._new_hole(group, True, True)))
        return True

    def _child(self, child: Node, sub: list[Node]) -> bool:
        """Generalise one child position across the group; False when the group cannot be generalised."""
        state = self._state()
        if self.gen(sub):
            self._collapse(child, sub, state)
            return True
        self._restore(state)
        if not child.named and any(n.named for n in sub):
            self.single(sub)  # `null` beside `b`: a value that reads as its own kind (`null`, `nil`, `this`)
            return True
        if not child.named and all(_WORD.fullmatch(n.text) for n in sub):
            self.edits.append((child.start, child.end, f"\x03{len(self.choices)}\x03"))  # `const` / `let`
            self.choices.append(tuple(n.text for n in sub))
            return True
        if not child.named:
            return False
        if _listlike(child) and not child.atomic and all(n.kind == child.kind for n in sub):
            return self.many(sub)  # (a list beside a dictionary, `[]` / `{}`, is one hole of either kind)
        self.single(sub)
        return True

    def _collapse(self, child: Node, sub: list[Node], state: tuple[int, int, float, int]) -> None:
        """A child whose generalisation kept nothing but holes and punctuation: one hole (`$A()` for `load()` /
        `f.read()`); a body of statements that all differ, any number of them (`func init() {$$$BODY}`)."""
        if not (child.named and len(self.holes) > state[1] and self.kept == state[2]):
            return
        if not _listlike(child) or all(_wrapper(n) for n in sub):
            self._restore(state)
            self.single(sub)
        elif _BODY.search(child.kind):
            self._restore(state)
            self.many(sub, relaxed=True)

    def finish(self) -> Generalised:
        names: dict[tuple[bool, tuple[str, ...]], str] = {}
        holes: list[Hole] = []
        markers: list[str] = []
        singles = iter("ABCDEFGHJKLMNPQRSTUVWXYZ")
        for at, (group, multi, relaxed) in enumerate(self.holes):
            key = (multi, tuple(n.text for n in group))
            if key not in names:
                names[key] = _multi_name(group[0], sum(1 for k in names if k[0])) if multi else next(singles, "Z")
                holes.append(Hole(names[key], multi, frozenset(n.kind for n in group), key[1], relaxed,
                                  group[0].role, self.leads.get(at) if multi else _lead(group)))
            markers.append(("$$$" if multi else "$") + names[key])
        edits = sorted((s, e, re.sub("\x00(\\d+)\x00", lambda m: markers[int(m.group(1))], t))
                       for s, e, t in self.edits)
        gen = Generalised(self.root, "", holes, self.level, self.kept, edits, self.choices)
        gen.pattern = gen.alternatives[0]
        gen.name_hole = any(not relaxed and len({n.text for n in group}) > 1 and group[0].role in _NAME_ROLES
                            for group, _multi, relaxed in self.holes)
        gen.bound = frozenset(m[1:] for at, m in enumerate(markers) if markers.count(m) > 1 and not m.startswith(
            "$$$") and _varies(self.holes[at][0]))
        return gen


def _wrapper(node: Node) -> bool:
    """A body written as one bare expression (Kotlin's `if (x) a else b`): that expression, not a statement list."""
    named = node.named_children()
    return len(named) == 1 and named[0].text == node.text


def _varies(group: list[Node]) -> bool:
    """Code that differs between the examples and is not a type: a type written twice (a declaration and its cast,
    `int *p = (int *)...`) is the language asking for it twice, not a relation the examples show."""
    return len({n.text for n in group}) > 1 and not any("type" in n.kind for n in group)


def _lead(group: list[Node]) -> str | None:
    """The keyword every node of a hole starts with when their kinds differ (`async (x) => ...` beside `async
    function (u) {...}`): what the examples agree on though their shapes differ, as a modifier word."""
    if len({n.kind for n in group}) < 2:
        return None
    heads = set()
    for node in group:
        while node.children and not node.atomic:
            node = node.children[0]
        heads.add(node.text if not node.named and _WORD.fullmatch(node.text) else "")
    return heads.pop() if len(heads) == 1 and "" not in heads else None


def _run_lead(runs: list[list[Node]]) -> str | None:
    """A keyword the items at one position of every run start with, though their kinds differ."""
    if len({len(r) for r in runs}) != 1:
        return None
    return next((lead for k in range(len(runs[0])) if (lead := _lead([r[k] for r in runs])) is not None), None)


def _usable(anchors: list[list[int]], items: list[list[Node]]) -> list[list[int]]:
    """Drop anchors after which some lists have items and others none: ast-grep's `x, $$$B` needs one item."""
    while anchors:
        ends = [*anchors, [len(i) for i in items]]
        mixed = next((k for k in range(1, len(ends)) if len({ends[k][e] - ends[k - 1][e] - 1 > 0
                                                               for e in range(len(items))}) > 1), None)
        if mixed is None:
            return anchors
        del anchors[mixed - 1]
    return anchors


def _anchors(items: list[list[Node]]) -> list[list[int]]:
    """Positions of the items every list has, in the same order (greedy on the first list)."""
    anchors: list[list[int]] = []
    pos = [0] * len(items)
    for j, item in enumerate(items[0]):
        found = [j]
        for k in range(1, len(items)):
            hit = next((p for p in range(pos[k], len(items[k])) if items[k][p].text == item.text), None)
            if hit is None:
                break
            found.append(hit)
        else:
            anchors.append(found)
            pos = [p + 1 for p in found]
    return anchors


def _multi_name(node: Node, index: int) -> str:
    parent = node.parent.kind if node.parent is not None else ""
    base = "ARGS" if "argument" in node.kind or "argument" in parent else \
        "PARAMS" if "parameter" in node.kind or "parameter" in parent else \
        "BODY" if any(p in node.kind for p in ("block", "body", "statement_list", "suite")) else "ITEMS"
    return base if index == 0 else f"{base}{index + 1}"


def apply_edits(root: Node, edits: Sequence[tuple[int, int, str]], *, dedent: bool) -> str:
    """`root`'s text with each (start, end, text) edit (example byte offsets) made; `dedent` re-indents it."""
    data = root.text.encode("utf-8")
    out = bytearray()
    pos = 0
    for start, end, text in sorted(edits):
        out += data[pos:start - root.start] + text.encode("utf-8")
        pos = end - root.start
    out += data[pos:]
    text = out.decode("utf-8", "replace")
    if dedent and root.column and "\n" in text:
        first, *rest = text.split("\n")
        pad = re.compile(rf"^[ \t]{{0,{root.column}}}")
        text = "\n".join([first, *(pad.sub("", line) for line in rest)])
    return text


def generalise(group: list[Node], level: int, bound: frozenset[tuple[str, ...]] = frozenset()) -> Generalised | None:
    """The pattern that matches every node of `group` (one per invalid example); None if they cannot share one.
    `bound`: the texts (one per example) of code repeated within each root, which a relaxed list keeps as the one
    metavariable standing at both places (`$A = realloc($A, $$$ARGS)`, not `realloc($$$ARGS)`)."""
    builder = _Builder(group[0], level, bound)
    if any(n.kind != group[0].kind for n in group) or not builder.gen(group):
        return None
    last = group[0].children[-1] if group[0].children else None
    if level and last is not None and last.text == ";" and not last.named and len(group[0].children) > 1:
        builder.edits.append((last.start, last.end, ""))  # a statement's `;` is optional to the matcher
    return builder.finish()
