"""Candidates an ast-grep author would write, besides generalised patterns (issue 29).

Each looks for one structural fact shared by every invalid example and absent from every valid one: a construct
with a telling child (`except_clause` whose block is `pass`); a call missing, or carrying, a keyword argument (`not:
has: timeout=`) or a shell command's option (`read` without `-r`); an enclosing context told apart by how it
starts (`inside` an `async def`, a method annotated `@Test`). A kind, a type or a value name alone is facts.py's;
every candidate is verified like the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sgtools.workflows.suggest import contexts, nested
from sgtools.workflows.suggest.candidates import (
    ACCESS_KINDS,
    ARGUMENT,
    CHILD,
    INSIDE_TEXT,
    Candidate,
    own_context,
)
from sgtools.workflows.suggest.constructs import broad
from sgtools.workflows.suggest.constructs import call_like as call_like  # re-exported: other modules read it here
from sgtools.workflows.suggest.constructs import is_construct as is_construct
from sgtools.workflows.suggest.generalise import Generalised, is_value_leaf
from sgtools.workflows.suggest.roots import common_prefix, part_kind
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

AUTHOR_ROOTS = 100_000  # root indexes of author candidates start here (one per candidate: each its own shape)
NAME_ROLES = ("function", "method", "macro", "name", "callee", "constructor")
_ARG_KINDS = ("argument", "pair", "named")
_MAX_CHILD_CHARS = 40
_MAX_GROUPS = 16


def named_child(node: Node, roles: Sequence[str]) -> Node | None:
    return next((c for c in node.children if c.role in roles), None)


def whole_kind(kind: str) -> bool:
    """A whole function, method, class or file; a call (PHP's `function_call_expression`, Java's
    `method_invocation`) names one but is not one."""
    return not re.search(r"call|invocation", kind) and any(
        w in kind for w in ("program", "module", "source_file", "translation_unit", "compilation_unit", "class",
                            "function", "method"))


def _header(ancestor: Node, inner: Node, names: bool = False) -> set[tuple[str, str, bool]]:
    """(kind, text, deep) of an enclosing node's named children and grandchildren not holding `inner` (not those
    in its body); with `names`, its own name too."""
    out: set[tuple[str, str, bool]] = set()
    for c in ancestor.children:
        if not c.named or (c.start <= inner.start and inner.end <= c.end):
            continue
        if c.atomic and is_value_leaf(c) and not names:
            continue  # a function's own name (`f`): which function it is, not what kind
        if "\n" not in c.text and len(c.text) <= _MAX_CHILD_CHARS:
            out.add((c.kind, c.text, False))
        if part_kind(c.kind):
            continue  # the statements of its body are what it does, not how it is marked
        out.update((g.kind, g.text, True) for g in c.children if g.named and "\n" not in g.text
                   and len(g.text) <= _MAX_CHILD_CHARS)
    return out


def enclosing(kind: str, near: Sequence[Node], bad: Sequence[Node], fine: Sequence[Node | None],
              good: Sequence[Node], names: bool = False) -> dict[str, Any] | None:
    """How the enclosing `kind` nodes of the invalid matches differ from the valid ones: a child, else a start,
    else a kind in their headers (`destructor_name`). `names`: a function's own name may be the marker."""
    held = None if names else nested.held_marker(near, bad, fine, good)
    text = _text_marker(near, bad, fine, good, names, words_only=held is not None)
    if text is not None:
        return {"kind": kind, **text, "stopBy": "end"}
    if held is not None:
        return {"kind": kind, "has": held, "stopBy": "end"}
    named = None if names else contexts.leaf_marker(near, bad, fine, good) or contexts.name_marker(near, fine)
    if named is not None:
        return {"kind": kind, "has": named, "stopBy": "end"}
    regex = _starts([a.text for a in near])
    if regex is None or any(f is not None and re.match(regex, f.text) for f in fine):
        marker = contexts.kind_marker(near, bad, fine, good)
        return None if marker is None else {"kind": kind, "has": marker, "stopBy": "end"}
    return {"kind": kind, "regex": regex, "stopBy": "end"}


def _text_marker(near: Sequence[Node], bad: Sequence[Node], fine: Sequence[Node | None], good: Sequence[Node],
                 names: bool, words_only: bool) -> dict[str, Any] | None:
    """A child (or grandchild) of every enclosing node's header, by its text, that no valid one's has. With
    `words_only`, not punctuation (`()`): the construct one of the node's fields holds says it (a call, whatever it
    passes)."""
    shared = set.intersection(*(_header(a, b, names) for a, b in zip(near, bad, strict=True)))
    fine_headers = set().union(*(_header(f, g, names) for f, g in zip(fine, good, strict=True) if f is not None))
    # A name, when names count (`main`), before a parameter list that happens to be empty in every one.
    for ck, text, deep in sorted(shared - fine_headers, key=lambda h: (h[2], not (names and _is_name(h[0])),
                                                                        len(h[1]))):
        if any((ck, text) == (k2, t2) for k2, t2, _d in fine_headers):
            continue
        if words_only and not re.search(r"[A-Za-z]", text):
            continue
        has: dict[str, Any] = {"kind": ck, "regex": _marker_regex(text, ck)}
        return {"has": {**has, "stopBy": "end"} if deep else has}
    return None


def _is_name(kind: str) -> bool:
    return kind.endswith(("identifier", "name"))


def marker_shown(inside: Mapping[str, Any]) -> str:
    """How an enclosing context is marked, for the note: its start, a child's text, or a kind in its header."""
    has = inside.get("has") or {}
    return str(inside.get("regex") or has.get("regex") or has.get("kind") or has.get("has", {}).get("kind", ""))


def _marker_regex(text: str, kind: str | None = None) -> str:
    """An annotation or decorator by name also written qualified (`@Test`, `@org.junit.Test`); else the text."""
    if re.fullmatch(r"@[A-Za-z_]\w*", text) and kind is not None and "modifier" in kind:
        return rf"(^|\s)@(\w+\.)*{text[1:]}\b"  # among other modifiers (`@Test public`)
    if re.fullmatch(r"@[A-Za-z_]\w*", text):
        return rf"^@(\w+\.)*{text[1:]}$"
    if kind is not None and "modifier" in kind and re.fullmatch(r"\w+", text):
        return rf"\b{text}\b"  # one modifier among any others (`internal data class`)
    return f"^{re.escape(text)}$"


def _value_word(node: Node) -> bool:
    """A value that reads as its own kind (`this`, `null`, `nil`: the dump shows it as a token), or a keyword."""
    return not node.named and re.fullmatch(r"[A-Za-z_]\w*", node.text) is not None


def _shared_children(group: list[Node]) -> list[tuple[str, str]]:
    """The children every node of the group has, named ones and words (`this` in `lock (this)`)."""
    root = group[0]
    return [(c.kind, c.text) for c in root.children if (c.named or _value_word(c)) and "\n" not in c.text
            and len(c.text) <= _MAX_CHILD_CHARS
            and all(any((d.kind, d.text) == (c.kind, c.text) for d in n.children) for n in group[1:])]


def _telling_children(group: list[Node], fine: list[Node]) -> list[tuple[str, str]]:
    """The shared children when one of them is in no valid node of the kind, else none. A word (`this`, `lock`)
    only where it tells the examples apart: a keyword every such node has says nothing."""
    seen = {(c.kind, c.text) for n in fine for c in n.children}
    children = [c for c in _shared_children(group) if c[0] != c[1] or c not in seen]
    return children if any(c not in seen for c in children) else []


def _same_members(group: list[Node], fine: list[Node], told: list[tuple[str, str]]) -> bool:
    """Every node's other named children (an access's member: `ReadFile`, `WriteFile`) are written the same in
    valid nodes of the kind (`os.ReadFile`), all with one other receiver: the telling child (`ioutil`) is the
    point, not the members."""
    seen = {(c.kind, c.text) for n in fine for c in n.children if c.named}
    members = [{(c.kind, c.text) for c in n.children if c.named and (c.kind, c.text) not in told} for n in group]
    if not all(m and m <= seen for m in members):
        return False
    # And the valid nodes swap in one other receiver (`os` for `ioutil`: use this package instead), not each its
    # own object (`client.Get`, `httpClient.Post` beside `http.Get`: there the API's names are the point).
    kinds = {k for k, _ in told}
    mates = [n for n in fine if {(c.kind, c.text) for c in n.children if c.named} & set().union(*members)]
    return len({c.text for n in mates for c in n.children if c.kind in kinds}) == 1


def _shared_leaves(group: list[Node]) -> list[Node]:
    root = group[0]
    others = [{(x.kind, x.text) for x in n.walk()} for n in group[1:]]
    return [d for d in root.walk() if d.named and d.atomic and d is not root and d.text.strip()
            and "\n" not in d.text and all((d.kind, d.text) in o for o in others)][:3]


def _in_call_name(leaf: Node, root: Node) -> bool:
    """`http` in `r, _ := http.Get(u)`: part of the name of a call below `root` (a name regex says it better)."""
    node = leaf
    while node.parent is not None and node is not root:
        if node.role in NAME_ROLES and call_like(node.parent.kind):
            return True
        node = node.parent
    return False


def _child_candidate(root: Node, parts: list[tuple[str, str]], deep: bool, index: int) -> Candidate:
    extra = {"stopBy": "end"} if deep else {}
    # A word whose kind is its text (`this`) is no kind a rule can name: its pattern is the node.
    has = [{"has": {"pattern": text, **extra} if kind == text else {"kind": kind, "regex": f"^{re.escape(text)}$",
                                                                     **extra}} for kind, text in parts]
    shown = ", ".join(text for _kind, text in parts)
    where = "anywhere inside" if deep else "as children"
    note = f"flags every `{root.kind}` with {shown} {where}; lets through other spellings of them"
    return Candidate({"rule": {"all": [{"kind": root.kind}, *has]}},
                     Generalised.written(root, f"{root.kind} with {shown}"), CHILD, index, note)


def child_forms(groups: Sequence[list[Node]], valid: Sequence[Example], start: int) -> list[Candidate]:
    """A construct with a telling child (`except` whose block is `pass`, `rescue Exception`): kind + has."""
    out: list[Candidate] = []
    for group in sorted(groups, key=lambda g: g[0].size())[:_MAX_GROUPS]:
        root = group[0]
        fine = [n for e in valid for n in e.nodes() if n.kind == root.kind]
        if not is_construct(root) or not fine:
            continue
        children = _telling_children(group, fine)
        if children:
            out.append(_child_candidate(root, children[:3], False, start + len(out)))
            # One child naming one thing with its namespace (`context.Context`): the name whole, where it stands.
            out[-1].qualified = len(children) == 1 and re.fullmatch(r"\w+((\.|::)\w+)+", children[0][1]) is not None
            out[-1].namesake = _same_members(group, fine, children) and any(
                a in root.kind for a in ACCESS_KINDS)
        leaves = _shared_leaves(group)
        fine_leaves = {(d.kind, d.text) for n in fine for d in n.walk()}
        if leaves and any((leaf.kind, leaf.text) not in fine_leaves for leaf in leaves):
            cand = _child_candidate(root, [(leaf.kind, leaf.text) for leaf in leaves], True, start + len(out))
            cand.names_a_call = all(_in_call_name(leaf, root) for leaf in leaves
                                    if (leaf.kind, leaf.text) not in fine_leaves)
            out.append(cand)
    return out


def _match_node(example: Example, match: Mapping[str, Any]) -> Node | None:
    offsets = match.get("range", {}).get("byteOffset", {})
    return example.covering(int(offsets.get("start", 0)), int(offsets.get("end", 0)))


# A command-line option passed to a shell command: `-rp` (short ones written together), `--raw`, `--depth=1`.
_OPTION = re.compile(r"(--?)([A-Za-z][\w-]*)")


def _arguments(node: Node) -> dict[str, tuple[Node, str]]:
    """Named arguments in a construct: leading name -> (node, regex for it): `timeout=10` -> timeout; a shell
    command's options, one per letter of `-rp` (`-r` is said `^-[A-Za-z0-9]*r`, wherever it sits in a group)."""
    out: dict[str, tuple[Node, str]] = {}
    for d in node.walk():
        if d is node or not d.named:
            continue
        option = _OPTION.fullmatch(d.text.split("=", 1)[0]) if d.atomic and d.role == "argument" else None
        if option is not None and option.group(1) == "-":
            for letter in option.group(2):
                out.setdefault(f"-{letter}", (d, f"^-[A-Za-z0-9]*{re.escape(letter)}"))
        elif option is not None:
            out.setdefault(option.group(0), (d, f"^{re.escape(option.group(0))}($|=)"))
        elif not d.atomic and any(a in d.kind for a in _ARG_KINDS):
            m = re.match(r"([A-Za-z_]\w*)\s*[=:]", d.text)
            if m:
                out.setdefault(m.group(1), (d, rf"^{re.escape(m.group(1))}\b"))
    return out


def matched(outcome: Outcome, examples: Sequence[Example], offset: int) -> list[list[Node]]:
    nodes = []
    for i, e in enumerate(examples):
        found = [_match_node(e, m) for m in outcome.hits[offset + i]]
        nodes.append([n for n in found if n is not None])
    return nodes


def near_misses(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                valid: Sequence[Example]) -> Iterator[tuple[Candidate, list[Node], list[Node]]]:
    """Each candidate that flags valid code too, with the nodes it matched in the invalid and in the valid
    examples: what the forms below tell apart, by an argument, a context or a construct held."""
    n = len(invalid)
    for cand, outcome in misses:
        bad = [node for nodes in matched(outcome, invalid, 0) for node in nodes]
        good = [node for nodes in matched(outcome, valid, n) for node in nodes]
        if bad and good:
            yield cand, bad, good


def argument_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                   valid: Sequence[Example], start: int) -> list[Candidate]:
    """A call that flags valid code too, told apart by a keyword argument (or a shell command's option, `-r`) the
    valid calls all pass (`not has`) or the invalid calls all pass (`has`)."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        bad_args, good_args = [_arguments(b) for b in bad], [_arguments(g) for g in good]
        missing = set.intersection(*(set(a) for a in good_args)) - set().union(*(set(a) for a in bad_args))
        present = set.intersection(*(set(a) for a in bad_args)) - set().union(*(set(a) for a in good_args))
        for name, negate in [*((m, True) for m in sorted(missing)), *((p, False) for p in sorted(present))]:
            node, regex = (good_args if negate else bad_args)[0][name]
            has = {"has": {"kind": node.kind, "regex": regex, "stopBy": "end"}}
            rule = {"all": [cand.body["rule"], {"not": has} if negate else has]}
            note = (f"flags it when no `{name}` argument is passed (however the rest is written); lets through "
                    f"a `{name}` passed some other way (`**kwargs`, a wrapper)" if negate else
                    f"flags it only when a `{name}` argument is passed; lets through the same call without it")
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note))
    return out


def _starts(texts: Sequence[str]) -> str | None:
    """The words every text starts with (`async def`, `@Test`), as a regex; None when they share none."""
    prefix = common_prefix(list(texts))
    words = re.match(r"^[@\w.]+(?:\s+[@\w.]+)*", prefix)
    if words is None:
        return None
    head = words.group(0)
    if any(len(t) > len(head) and re.match(r"[\w]", t[len(head)]) for t in texts):  # cut inside a word
        head = re.sub(r"\s*[@\w.]+$", "", head)
    if len(re.sub(r"\W", "", head)) < 3:
        return None
    return "^" + r"\s+".join(re.escape(w) for w in head.split())


def marked_context(cand: Candidate, hold: list[Node], other: list[Node], index: int,
                   negate: bool = False) -> list[Candidate]:
    """`cand` inside (or, `negate`, not inside) the nearest enclosing construct every `hold` node sits in, marked
    in a way that tells it from where the `other` nodes sit: the invalid matches' context (`inside` an `async
    def`), or the valid matches' one (`not: inside` a function named `main`). Empty when no such mark is found."""
    kinds = [k for k in dict.fromkeys(a.kind for a in hold[0].ancestors())
             if construct_kind(k) and all(h.nearest(k) is not None for h in hold[1:])]
    for kind in kinds[:4]:
        near = [n for h in hold if (n := h.nearest(kind)) is not None]  # every one: the kinds are shared
        there = [o.nearest(kind) for o in other]
        if all(t is None for t in there):
            # Plain `inside: {kind}` (or `not: inside`) says it (explain.exclusions tries that) when the kind is a
            # context of its own; a call around the code (`it(...)`, `test(...)`) is told by its callee's name.
            named = None if negate or own_context(kind) else contexts.name_marker(near, there)
            if named is None:
                continue
            inside: dict[str, Any] | None = {"kind": kind, "has": named, "stopBy": "end"}
        else:
            inside = enclosing(kind, near, hold, there, other, names=negate)
        if inside is None:
            continue
        shown = marker_shown(inside)
        if negate:
            clause: dict[str, Any] = {"not": {"inside": inside}}
            note = (f"flags it except inside a `{kind}` marked `{shown}`, where the valid examples' code is; lets "
                    "through the same code in any such context")
        else:
            clause = {"inside": inside}
            note = f"flags it only inside a `{kind}` marked `{shown}`; lets through the same code in any other context"
        # Inside, the pattern and the by-kind form compete for one root; kept out of a context, both stay.
        return [Candidate({**cand.body, "rule": {"all": [base, clause]}}, cand.gen, INSIDE_TEXT,
                          index + (i if negate else 0), note, by_kind=by_kind)
                for i, (base, by_kind) in enumerate(contexts.bases(cand))]
    return []


def context_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                  valid: Sequence[Example], start: int) -> list[Candidate]:
    """A construct that flags valid code too, told apart by how an enclosing node starts or what it holds:
    `inside` an `async def`, a method annotated `@Test` (`stopBy: end`)."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        out.extend(marked_context(cand, bad, good, start + len(out)))
    return out


def construct_kind(kind: str) -> bool:
    return not broad(kind) and not part_kind(kind)
