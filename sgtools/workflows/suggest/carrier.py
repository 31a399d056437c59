"""The node that carries the fact (issue 29): code the valid examples show too, whose parent in each valid example
holds a part beside it that no invalid example's parent holds. A PHP file (`<?php`) without
`declare(strict_types=1)`, an `<a target="_blank">` without a `rel` attribute: the fact is the parent's, so an
ast-grep author writes the rule on the parent, `kind` + `has` the shared code + `not: has` the part, by its kind
and leading name (`jsx_attribute` `^rel\\b`), or, where two or more valid examples write it word for word, by its
text with any spacing (`^declare\\s*\\(\\s*strict_types\\s*=\\s*1\\s*\\)`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import construct_kind, near_misses
from sgtools.workflows.suggest.candidates import ARGUMENT, KIND_HAS, Candidate, of_kinds
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_PARTS = 2  # missing parts tried per near miss
# Kinds that hold the same parts written two ways: a JSX element with children opens as `<a ...>`, one without
# closes itself, `<a ... />`; an attribute missing from one is missing from the other.
TWINS = {"jsx_opening_element": "jsx_self_closing_element", "jsx_self_closing_element": "jsx_opening_element"}


def with_twin(kind: str) -> list[str]:
    """The kind and its twin, where the grammar writes the same construct as two (a JSX element, self-closing or
    not)."""
    return sorted({kind, TWINS.get(kind, kind)})
_WORD = re.compile(r"\s*([A-Za-z_]\w*)")


def _carrier(node: Node) -> Node | None:
    """The nearest construct around a node, past the lists and blocks it sits in (a file is one)."""
    return next((a for a in node.ancestors() if a.parent is None or construct_kind(a.kind)), None)


def _spaced(node: Node) -> str:
    """The node's text as a regex of its tokens with any spacing between them (`declare(strict_types = 1)` too);
    a statement's closing `;` left out."""
    tokens = [d.text for d in node.walk() if d.atomic and d.text.strip()]
    if tokens and tokens[-1] == ";":
        tokens.pop()
    out = ""
    for before, token in zip(["", *tokens], tokens, strict=False):
        gap = r"\s+" if re.search(r"\w$", before) and re.match(r"\w", token) else r"\s*"
        out += (gap if before else "") + re.escape(token)
    return "^" + out


def _beside(carrier: Node, node: Node) -> dict[tuple[str, str], tuple[dict[str, Any], Node]]:
    """The parts a `has` can name among the carrier's direct children, other than the one holding `node`: each by
    kind (and field), by kind and leading name, and by its tokens (keyed by its text up to spacing)."""
    out: dict[tuple[str, str], tuple[dict[str, Any], Node]] = {}
    for c in carrier.children:
        if not c.named or c.atomic or not construct_kind(c.kind) or (c.start <= node.start and node.end <= c.end):
            continue
        # By its field when it is the only child there: ast-grep reads a field as its first child.
        single = c.role is not None and sum(d.role == c.role for d in carrier.children) == 1
        base: dict[str, Any] = {"kind": c.kind, **({"field": c.role} if single else {})}
        out[(c.kind, "")] = base, c
        m = _WORD.match(c.text)
        if m is not None:
            out[(c.kind, m.group(1))] = {**base, "regex": rf"^{m.group(1)}\b"}, c
        if "\n" not in c.text:
            spaced = _spaced(c)
            out[(c.kind, " " + spaced)] = {**base, "regex": spaced}, c
    return out


def _names(node: Node) -> set[str]:
    return {d.text for d in node.walk() if d.atomic and d.named and re.fullmatch(r"[A-Za-z_]\w*", d.text)}


def _written_otherwise(part: Node, bad_at: Sequence[tuple[Node, Node]]) -> bool:
    """Every invalid carrier fills the part's field with something else (`key = "AKIA..."` beside `key =
    os.environ[...]`), or one holds a child naming what the part names first (`@Disabled` beside
    `@Disabled("why")`): the part is not missing there but written another way, which other forms say."""
    single = part.parent is not None and sum(c.role == part.role for c in part.parent.children) == 1
    if part.role and single and all(any(c.role == part.role for c in carrier.children) for carrier, _n in bad_at):
        return True  # one value in a field of one (`right`), not one of a list of them (JSX's `attribute`)
    first = next((d.text for d in part.walk() if d.atomic and d.named and re.fullmatch(r"[A-Za-z_]\w*", d.text)),
                 None)
    return first is not None and any(first in _names(c) for carrier, n in bad_at for c in carrier.children
                                      if c.named and not (c.start <= n.start and n.end <= c.end))


def _carriers(nodes: Sequence[Node]) -> list[tuple[Node, Node]] | None:
    found = [(c, n) for n in nodes if (c := _carrier(n)) is not None]
    return found if len(found) == len(nodes) else None


def _missing(bad_at: Sequence[tuple[Node, Node]], good_at: Sequence[tuple[Node, Node]]) -> list[tuple[dict[str, Any],
                                                                                                      str]]:
    """The parts every valid carrier holds beside the shared code and no invalid one holds, as `has` rules with
    how each reads. Written word for word in two or more valid examples, the text is what they require
    (`strict_types=1`, not any `declare`): said so alone, since a looser form would rank first by its length."""
    held = [_beside(c, n) for c, n in good_at]
    missing = set.intersection(*(set(h) for h in held)) - set().union(*(_beside(c, n) for c, n in bad_at))
    texts = sorted(p for p in missing if p[1].startswith(" ")) if len({id(c) for c, _n in good_at}) >= 2 else []
    ranked = texts or sorted((p for p in missing if not p[1].startswith(" ")), key=lambda p: (p[1] == "", p))
    out = []
    for part in ranked:
        has, node = held[0][part]
        if not _written_otherwise(node, bad_at):
            out.append((has, part[1].strip() or part[0]))
    return out[:_PARTS]


def carrier_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                  valid: Sequence[Example], start: int) -> list[Candidate]:
    """A near miss whose carrier (the construct around it) holds, beside it, a part in every valid match and in no
    invalid one: `kind` of the carrier + `has` the near miss + `not: has` the part; by its text with any spacing
    where two or more valid examples write it alike, else by kind and leading name, then by kind."""
    out: list[Candidate] = []
    anchors: dict[tuple[int, ...], tuple[Candidate, list[Node], list[Node]]] = {}
    for cand, bad, good in near_misses(misses, invalid, valid):
        # The shared code is what the construct is recognised by: of the near misses matching the same nodes, the
        # one keeping most of it (`target="_blank"`, not any `target`), said by its parts where it can be (kind +
        # has: a literal's content in any quotes, `'_blank'`, `{"_blank"}`).
        key = tuple(id(n) for n in [*bad, *good])
        rank = (cand.gen.level, cand.form != KIND_HAS)
        if key not in anchors or rank < (anchors[key][0].gen.level, anchors[key][0].form != KIND_HAS):
            anchors[key] = cand, bad, good
    for cand, bad, good in anchors.values():
        bad_at, good_at = _carriers(bad), _carriers(good)
        if bad_at is None or good_at is None or len({c.kind for c, _n in [*bad_at, *good_at]}) != 1:
            continue
        kind, near = good_at[0][0].kind, cand.body["rule"]
        direct = all(n.parent is c for c, n in [*bad_at, *good_at])
        for has, shown in _missing(bad_at, good_at):
            rule = {**of_kinds(with_twin(kind)),
                    "has": near if direct else {**near, "stopBy": "end"}, "not": {"has": has}}
            if good_at[0][0].parent is None:
                del rule["has"]  # a file lacking a statement: what stood beside it in the examples is incidental
            note = (f"flags a `{kind}` holding it beside no `{has['kind']}` like `{shown}`; lets through one "
                    "that says it another way")
            out.append(Candidate({**cand.body, "rule": rule}, cand.gen, ARGUMENT, start + len(out), note))
    return out
