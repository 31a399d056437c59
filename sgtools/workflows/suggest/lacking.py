"""The construct the request says has one part and lacks another (issue 29): "a div or span with an onClick must
also have a tabIndex", "a <video> or <audio> with autoPlay must also be muted", "DAO methods (@Query, @Insert) must
be suspend or return a Flow". An author writes the construct (a JSX element, a declaration) `has` each part the
request names that every invalid one writes, by the request's list where the examples write different ones
(`name` `^(div|span)$`), and `not: has` the part the request names that valid ones write and no invalid example
does (with the names the request lists beside it: "weak (or unowned)"). The examples say which words are which and
which construct holds them: the smallest around the named parts whose valid instances with those parts all write a
needed one, each in a part of its own, not a body. A word is needed where it is written: `width` as an attribute of
a `<canvas>` is not met by a `width` key of its `style` object, and an attribute's index among the others says
nothing. Verified on the examples; first when it separates them, like the other rules from the request's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sgtools.workflows.suggest import tree
from sgtools.workflows.suggest.author import construct_kind
from sgtools.workflows.suggest.candidates import REQUESTED, Candidate, of_kinds
from sgtools.workflows.suggest.carrier import with_twin
from sgtools.workflows.suggest.constructs import is_body
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.mentioned import mentions, qualifiers, runs
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.valued import KEYED

# The fields a grammar writes one child in, a part by its field (`name` of a JSX element, of a declaration).
_SINGLE = frozenset({"name", "type", "return_type", "function", "constructor", "key", "value"})
_WORD = re.compile(r"[A-Za-z_]\w+")
# A JSX attribute written alone is a flag set to true (`autoPlay`, `autoPlay={true}`); set to false it is absent.
_FLAG = r"(\s*=\s*\{\s*true\s*\})?$"


@dataclass(frozen=True)
class _Part:
    """Where a word is written in a construct: its direct child (by field or kind) and the node writing the word."""
    field: str | None
    kind: str
    leaf: str  # the kind of the node whose text is the word
    direct: bool  # the child is the word's node, or its parent
    flag: bool  # a JSX attribute that is the word alone
    node: Node  # the node writing the word


def _words(request: str) -> set[str]:
    """The request's words, but a key it writes set to a value (`target="_blank"`): the value is the point there,
    said by the rule for the key and its value (valued.py)."""
    return set(_WORD.findall(request)) - {m.group("key") for m in KEYED.finditer(request)}


def _word_nodes(node: Node, words: set[str]) -> list[Node]:
    """The deepest named nodes under `node` whose whole text is one of the words, not a string's text (data, not
    the name of a part: `role="button"`)."""
    return [n for n in node.walk() if n.named and n.text in words and "string" not in n.kind
            and not any(c.named and c.text == n.text for c in n.children)
            and not any("string" in a.kind for a in n.ancestors())]


def _parts(holder: Node, words: set[str]) -> dict[tuple[str | None, str], dict[str, _Part]]:
    """The words written in each part of the holder (a direct child that holds no body: a clause of statements is
    code, not a part), by the part's field and kind, each with where it is written; a part by its field only where
    the grammar has one child in that field (`name`; ast-grep reads a field as its first child: a JSX element's
    attributes are by kind)."""
    out: dict[tuple[str | None, str], dict[str, _Part]] = {}
    for c in holder.children:
        if not c.named or any(is_body(d) for d in c.walk()):
            continue
        for n in _word_nodes(c, words):
            field = c.role if c.role in _SINGLE else None
            flag = c.kind == "jsx_attribute" and c.text == n.text
            part = _Part(field, c.kind, n.kind, n is c or n.parent is c, flag, n)
            out.setdefault((field, c.kind), {})[n.text] = part
    return out



def _place(node: Node) -> tuple[str, str]:
    """A word with where it is written: `width` as a JSX attribute is not `width` as a key of its style object."""
    return node.text, node.parent.kind if node.parent is not None else ""


def _holders(example: Example, kinds: list[str]) -> list[Node]:
    return [n for n in example.nodes() if n.kind in kinds]


def _listed(request: str, shown: set[str]) -> list[str]:
    """The shown words with those the request lists beside them (`<video> or <audio>`, `@Query, @Insert`, `weak (or
    unowned)`), in the request's order."""
    found = [m for m in _WORD.finditer(request) if m.group() not in ("and", "or", "nor")]
    groups = [[found[i].group() for i in run] for run in runs(request, [m.span() for m in found], _gap)]
    return list(dict.fromkeys(w for g in groups if shown & set(g) for w in g))


def _gap(between: str) -> str:
    """Between two plain words, the marks around a name are no words of the list (`<video> or <audio>`,
    `@Query, @Insert`, `weak (or unowned)`)."""
    return between.strip("<>@`'\" ").removeprefix("(")


def _has(part: _Part, words: list[str]) -> dict[str, Any]:
    """The part written with one of the words."""
    alternatives = "|".join(re.escape(w) for w in words)
    base: dict[str, Any] = {"field": part.field} if part.field else {"kind": part.kind}
    if part.flag:
        return {**base, "regex": f"^({alternatives}){_FLAG}"}
    if part.direct and part.kind == part.leaf:
        # A name in its field may be written with its qualifier (`@CommandLine.Option` beside `@Option`).
        qualifier = r"(\w+(\.|::))*" if part.field == "name" else ""
        return _or_keyed(part.kind, {**base, "regex": f"^{qualifier}({alternatives})$"}, alternatives)
    leaf = _or_keyed(part.leaf, {"kind": part.leaf, "regex": f"^({alternatives})$"}, alternatives)
    return {**base, "has": leaf if part.direct else {**leaf, "stopBy": "end"}}


def _or_keyed(kind: str, named: dict[str, Any], alternatives: str) -> dict[str, Any]:
    """A shorthand name, or the same key written with a value of its own name (`{ data }`, `{ data: cart }`)."""
    keyed = _KEYED.get(kind)
    return {"any": [named, {"kind": keyed, "has": {"field": "key", "regex": f"^({alternatives})$"}}]} \
        if keyed else named


# A JavaScript object's or pattern's shorthand and the same key written with a value (grammar, not API).
_KEYED = {"shorthand_property_identifier_pattern": "pair_pattern", "shorthand_property_identifier": "pair"}

_Parts = dict[tuple[str | None, str], dict[str, _Part]]


def _present(request: str, parts: list[_Parts]) -> list[tuple[tuple[str | None, str], list[str]]]:
    """Each part every invalid construct writes a request word in, with its words: one word they all write, else
    the request's list of those they write."""
    out: list[tuple[tuple[str | None, str], list[str]]] = []
    for key in sorted(set.intersection(*(set(p) for p in parts)), key=str):
        per = [p[key] for p in parts]
        common = set.intersection(*(set(p) for p in per))
        if common:
            out += [(key, [w]) for w in sorted(common)]
        else:
            out.append((key, _listed(request, set().union(*(set(p) for p in per)))))
    return out


def _holds(parts: _Parts, present: list[tuple[tuple[str | None, str], list[str]]]) -> bool:
    """The construct writes one of the words of each present part, in that part."""
    return all(set(parts.get(key, {})) & set(words) for key, words in present)


def _one_of_many(holder: Node, node: Node) -> bool:
    """The word is in one of several parts of the same kind and field (a JSX element's attributes): their order
    says nothing, so another one at its index is no other value in its place."""
    part = next((a for a in [node, *node.ancestors()] if a.parent is holder), None)
    return part is not None and sum(c.kind == part.kind and c.role == part.role for c in holder.children) > 1


def _in_place(holder: Node, node: Node, invalid: list[Node]) -> bool:
    """The needed word stands where every invalid construct writes another one, field by field (`getLogger` in
    `logging.getLogger(...)` beside `logging.info(...)`): another value in the same place, not a part they lack."""
    steps = tree.path(holder, node, single=True)
    kinds = [n.kind for n in [node, *node.ancestors()][:len(steps or ())]][::-1]
    return steps is not None and all(tree.follow(h, steps, kinds) is not None for h in invalid)


def _chosen(invalid: Sequence[Example], kinds: list[str], words: set[str],
            needed: set[str]) -> list[tuple[Node, _Parts]] | None:
    """Each invalid example's first construct of the kinds that writes a request word in a part and no needed one;
    None when one has none."""
    chosen = []
    for example in invalid:
        fit = [(h, p) for h in _holders(example, kinds) if (p := _parts(h, words))
               and not needed & set().union(*(set(w) for w in p.values()))]
        if not fit:
            return None
        chosen.append(fit[0])
    return chosen


def _missing(valid: Sequence[Example], kinds: list[str], words: set[str], needed: set[str],
             present: list[tuple[tuple[str | None, str], list[str]]],
             invalid: list[Node]) -> tuple[dict[str, _Part], bool]:
    """The needed words the valid constructs with the present parts write, and where; empty when one of them
    writes none (the need is not what tells them apart) or writes one where the invalid ones write another word
    (another construct, not one lacking a part). And whether every one of them writes all those words (`fetch =
    FetchType.LAZY`): one need, which a construct writing some of them (`fetch = FetchType.EAGER`) still lacks."""
    missing: dict[str, _Part] = {}
    each: list[set[str]] = []
    for example in valid:
        for h in _holders(example, kinds):
            parts = _parts(h, words | needed)
            if not _holds(parts, present):
                continue
            found = {w: p for ps in parts.values() for w, p in ps.items() if w in needed}
            if not found or any(not _one_of_many(h, p.node) and _in_place(h, p.node, invalid) for p in found.values()):
                return {}, False
            missing.update(found)
            each.append(set(found))
    return missing, all(set(missing) <= written for written in each)


def _rule(request: str, kind: str, invalid: Sequence[Example], valid: Sequence[Example], words: set[str],
          needed: set[str]) -> tuple[dict[str, Any], Node, list[str]] | None:
    """The rule on constructs of `kind` (and its twin): the present parts, without the needed ones, with the
    construct it is written from and the needed words; None when the examples do not bear it out."""
    kinds = with_twin(kind)
    chosen = _chosen(invalid, kinds, words, needed)
    present = _present(request, [p for _, p in chosen]) if chosen else []
    missing, together = _missing(valid, kinds, words, needed, present, [h for h, _ in chosen or []]) \
        if present else ({}, False)
    if not chosen or not missing:
        return None
    joined = "all" if together else "any"
    missing = _one_need(request, missing) if together else missing
    lacks = _lacks(request, missing, together)
    has = [{"has": _has(next(iter(chosen[0][1][key].values())), said)} for key, said in present]
    rule = {**of_kinds(kinds), "all": has + _around(request, [h for h, _ in chosen],
                                                  {w for _, ws in present for w in ws} | set(missing)),
            "not": {"has": lacks[0]} if len(lacks) == 1 else {joined: [{"has": c} for c in lacks]}}
    return rule, chosen[0][0], sorted(missing)


def _one_need(request: str, missing: dict[str, _Part]) -> dict[str, _Part]:
    """Words needed together are one need: its qualifier (`DOMPurify` of `DOMPurify.sanitize`) may be written
    otherwise."""
    return {w: p for w, p in missing.items() if w not in qualifiers(request)} or missing


def _lacks(request: str, missing: dict[str, _Part], together: bool) -> list[dict[str, Any]]:
    """The part each needed word is written in, with the words the request lists beside it."""
    # Words needed together are each needed: not one of their list for another (`width` and `height`).
    return [_has(part, [w] if together and len(missing) > 1 else _listed(request, {w}))
            for w, part in sorted(missing.items())]


def _around(request: str, holders: list[Node], said: set[str]) -> list[dict[str, Any]]:
    """The code the request names that every invalid construct is written beside, in the construct around it
    (`useQuery` for "when you destructure Apollo's useQuery, take error as well": the pattern is in a declaration
    whose value calls it), as `inside` that construct: the request says where, not only what."""
    out: list[dict[str, Any]] = []
    for name in dict.fromkeys(m.name for m in mentions(request)):
        if name in said:
            continue
        around = [next((a for a in h.ancestors() if a.parent is not None
                        and any(not n.children and n.text == name for n in a.walk())), None) for h in holders]
        kinds = {a.kind for a in around if a is not None}
        if None not in around and len(kinds) == 1 and not any(n.text == name for h in holders for n in h.walk()):
            out.append({"inside": {"kind": kinds.pop(), "has": {"regex": f"^{re.escape(name)}$", "stopBy": "end"}}})
    return out


def lacking_forms(request: str | None, invalid: Sequence[Example], valid: Sequence[Example],
                  start: int) -> list[Candidate]:
    """The construct with the parts the request names and without the one it says is needed; to be verified on
    the examples like any other candidate."""
    if not request or not invalid or not valid:
        return []
    words = _words(request)
    fine = {_place(n) for e in valid for n in _word_nodes(e.root, words)}
    shown = {_place(n) for e in invalid for n in _word_nodes(e.root, words)}
    needed = {w for w, _ in fine - shown}
    if not needed:
        return []
    first = _word_nodes(invalid[0].root, words - needed)
    kinds = list(dict.fromkeys(a.kind for n in first for a in n.ancestors() if construct_kind(a.kind)))
    for kind in kinds:
        built = _rule(request, kind, invalid, valid, words - needed, needed)
        if built is not None:
            rule, node, lacked = built
            note = (f"flags every {node.kind} with the parts the request names and none of {' / '.join(lacked)} "
                    "(what it says they need), whatever else it writes; lets through one that gets it another way")
            label = f"{node.kind} without {' / '.join(lacked)}"
            return [Candidate({"rule": rule}, Generalised.written(node, label), REQUESTED, start, note, lacks=True)]
    return []
