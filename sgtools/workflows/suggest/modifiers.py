"""Declarations by a modifier word (issue 29): a modifier that is a node of its own, by its kind and word
(`accessibility_modifier` `^private$`, whatever it modifies); else a word every invalid example's modifiers
hold and no valid example's do, said on the declaration that carries them, as one word among any others
(`method_declaration` has `modifiers` matching `\\bsynchronized\\b`: `public synchronized`, `static
synchronized`, `synchronized`). Annotations written among the modifiers (`@Override`) are not modifier words."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.workflows.suggest.candidates import MODIFIER, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example, Node

_ANNOTATION = re.compile(r"@[\w.]+(\([^)]*\))?")


def _outer_modifiers(example: Example) -> list[Node]:
    """Modifier nodes not inside another (Kotlin's `modifiers` holds `member_modifier`s: the outer one)."""
    return [n for n in example.nodes() if n.named and "modifier" in n.kind and n.parent is not None
            and "modifier" not in n.parent.kind]


def words(node: Node) -> set[str]:
    """The modifier words a modifier node writes, not its annotations."""
    return set(re.findall(r"[A-Za-z_]\w*", _ANNOTATION.sub(" ", node.text)))


def _alone(word: str, holders: list[list[Node]]) -> Node | None:
    """The one modifier node of a single kind that is the word alone in every example (TypeScript's
    `accessibility_modifier` `private`), not a list of modifiers (Java's, Kotlin's `modifiers`): the modifier is
    the point wherever it stands. None otherwise."""
    nodes = [n for hs in holders for n in hs]
    if len({n.kind for n in nodes}) != 1 or nodes[0].kind.endswith("modifiers"):
        return None
    return nodes[0] if all(n.text.strip() == word for n in nodes) else None


def modifier_forms(invalid: Sequence[Example], valid: Sequence[Example], start: int) -> list[Candidate]:
    """`kind: D` + `has: {kind: M, regex: \\bword\\b}` for each modifier word the invalid examples share."""
    per = [_outer_modifiers(e) for e in invalid]
    if not all(per):
        return []
    shared = set.intersection(*(set().union(*(words(n) for n in ns)) for ns in per))
    fine = set().union(*(words(n) for e in valid for n in _outer_modifiers(e)))
    out: list[Candidate] = []
    for word in sorted(shared - fine):
        holders = [[n for n in ns if word in words(n)] for ns in per]
        alone = _alone(word, holders)
        if alone is not None:
            out.append(Candidate({"rule": {"kind": alone.kind, "regex": rf"^{word}$"}},
                                 Generalised.written(alone, f"{alone.kind} {word}"), MODIFIER, start + len(out),
                                 f"flags every `{word}` modifier, on whatever it modifies (a field, a method, a "
                                 "constructor's parameter); lets through the same effect written another way"))
            continue
        kinds = {(n.kind, n.parent.kind) for hs in holders for n in hs if n.parent is not None}
        if len(kinds) != 1:
            continue  # the word modifies different things in different examples
        kind, parent = kinds.pop()
        rule = {"kind": parent, "has": {"kind": kind, "regex": rf"\b{word}\b"}}
        first = holders[0][0].parent
        if first is None:
            continue
        note = (f"flags every `{parent}` declared `{word}`, whatever its other modifiers; lets through the same "
                "effect written another way (a block or a wrapper)")
        out.append(Candidate({"rule": rule}, Generalised.written(first, f"{parent} {word}"), MODIFIER,
                             start + len(out), note))
    return out
