"""Roots: groups of nodes, one per invalid example, that may share a pattern, and their generalisations.

A root is a node of the shortest invalid example paired with the most similar node of the same kind in each other
invalid example (shared names first, then the same head); each group is generalised at every relaxation level.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence

from sgtools.workflows.suggest.generalise import LEVELS, Generalised, Hole, generalise
from sgtools.workflows.suggest.tree import Example, Node

MAX_ROOT_CHARS = 2000  # a root longer than this is a whole program, not a construct to flag
MIN_KEPT = 1.0  # a pattern must keep at least one meaningful literal token (a name, keyword or literal)
PIN_MIN = 3  # common prefix/suffix length for a `regex` pin
_NO_ROOT = ("ERROR", "MISSING", "comment")
# Lists and blocks are parts of a construct, not constructs: a rule on them says nothing about the code.
PART_SUFFIXES = ("arguments", "argument_list", "parameters", "parameter_list", "_body", "statement_list",
                  "declaration_list")
PART_KINDS = frozenset({"block", "statement_block", "compound_statement", "body", "suite", "token_tree"})


def part_kind(kind: str) -> bool:
    """A list or block of parts (arguments, parameters, a body, a block), not a construct of its own."""
    return kind in PART_KINDS or kind.endswith(PART_SUFFIXES)


def _tokens(node: Node) -> Counter[str]:
    return Counter(n.text for n in node.walk() if n.atomic)


_HEAD_BONUS = 10


def _head(node: Node) -> str:
    """The text of a node's first leaf: a call's callee name, a statement's keyword."""
    while node.children and not node.atomic:
        node = node.children[0]
    return node.text


def _partner(node: Node, pool: list[tuple[Node, Counter[str]]], tokens: Counter[str]) -> Node | None:
    best: tuple[float, Node] | None = None
    for other, other_tokens in pool:
        if other.kind != node.kind:
            continue
        # Shared names and literals count; shared punctuation (`(`, `.`) only a little: `print(x)` pairs with
        # `print(r)`, not with `c.post('/out')`, which shares more brackets.
        score = sum(n if re.search(r"\w", t) else n / 4 for t, n in (tokens & other_tokens).items()) - 0.01 * abs(
            len(other.text) - len(node.text))
        # The same head (a call's callee, a statement's keyword) pairs `setTimeout(r, 300)` with `setTimeout(() =>
        # {...}, 1000)`, not with the `it(...)` whose callback happens to share more names with the callback.
        if _head(other) == _head(node) and re.match(r"\w", _head(node)):
            score += _HEAD_BONUS
        if best is None or score > best[0]:
            best = (score, other)
    return best[1] if best else None


def roots(invalid: Sequence[Example]) -> Iterator[list[Node]]:
    """Groups of nodes, one per invalid example, that may share a pattern; from the shortest example."""
    order = sorted(invalid, key=lambda e: (len(e.code), e.index))
    pivot, others = order[0], order[1:]
    pools = [[(n, _tokens(n)) for n in e.nodes() if n.named] for e in others]
    for node in pivot.nodes():
        if (node is pivot.root or not node.named or node.kind in _NO_ROOT or len(node.text) > MAX_ROOT_CHARS
                or any(a.atomic for a in node.ancestors())
                or not node.text.strip() or part_kind(node.kind)):
            continue
        tokens = _tokens(node)
        group = [node]
        for pool in pools:
            mate = _partner(node, pool, tokens)
            if mate is None:
                break
            group.append(mate)
        else:
            yield group


def generalisations(invalid: Sequence[Example], valid: Sequence[Example] = ()) -> list[Generalised]:
    """Distinct patterns over all roots and levels; for one text, the deepest root (its kind is the selector)."""
    seen: dict[str, Generalised] = {}
    fine = {(n.kind, n.text) for e in valid for n in e.nodes()}
    kinds = {kind for kind, _text in fine}
    for group in roots(invalid):
        # Code that also occurs in a valid example matches there whatever is abstracted: only a context
        # (`inside` / `not inside`) can separate it, so it waits for that stage.
        shadowed = (group[0].kind, group[0].text) in fine
        in_valid = group[0].kind in kinds
        literal = _literal(group)
        if literal is not None:
            literal.kind_in_valid = in_valid
            seen[literal.pattern] = literal
        exact = generalise(group, 0)
        bound = frozenset(h.texts for h in exact.holes if h.name in exact.bound) if exact is not None else frozenset()
        for level in LEVELS:
            gen = exact if level == 0 else generalise(group, level, bound)
            if gen is not None:
                gen.shadowed, gen.kind_in_valid = shadowed, in_valid
            if gen is None or not gen.pattern.strip():
                continue
            if gen.kept < MIN_KEPT:
                if not any(_telling(h) for h in gen.holes):
                    continue
                gen.typed_only = True
            known = seen.get(gen.pattern)
            if known is None or (gen.root is not known.root and gen.root in known.root.walk()):
                seen[gen.pattern] = gen
    return list(seen.values())


def _literal(group: list[Node]) -> Generalised | None:
    """Literals of one kind that differ but share a prefix or suffix (`"AKIA..."`): `kind` + `regex`."""
    root = group[0]
    if not root.atomic or not root.named or len({n.kind for n in group}) > 1:
        return None
    pin = pin_regex([n.text for n in group])
    if pin is None:
        return None
    return Generalised(root, f"{root.kind} literals matching {pin}", [], 0, 1.0, pinned=pin)


def _telling(hole: Hole) -> bool:
    """A hole whose kinds say what goes there: literal values built of no names (`[]`, `{}`: a list or a
    dictionary), not only that something does (a call, a name, a string)."""
    return not hole.multi and len(hole.kinds) <= 3 and not any(re.search(r"[A-Za-z\"'`]", t) for t in hole.texts)


def pin_regex(texts: Sequence[str]) -> str | None:
    """A `regex` for literals that differ but share a start (or, failing that, an end) of PIN_MIN word characters."""
    if len(set(texts)) < 2:
        return None
    prefix = common_prefix(texts)
    suffix = common_prefix([t[::-1] for t in texts])[::-1]
    # A shared start (`"AKIA`, `"sk-`, `"http://`) usually is the point; a shared end only when there is none.
    for shown, regex in ((prefix, f"^{re.escape(prefix)}"), (suffix, f"{re.escape(suffix)}$")):
        if len(re.sub(r"\W", "", shown)) >= PIN_MIN:
            return regex
    return None


def common_prefix(texts: Sequence[str]) -> str:
    """The longest start every text shares ('' when none); reversed texts give the shared end."""
    first = texts[0]
    n = 0
    while n < len(first) and all(len(t) > n and t[n] == first[n] for t in texts):
        n += 1
    return first[:n]
