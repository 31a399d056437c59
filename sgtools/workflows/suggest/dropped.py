"""A call whose result is dropped (issue 29): "keep a reference to every asyncio.create_task", "don't call pcall and
drop its result". Where every invalid example makes the call as a statement of its own and every valid example
uses what it returns (assigns it, passes it on, awaits it, returns it), the difference is where the call stands,
not what it passes: an ast-grep author writes the call with its parent, a statement holding nothing else
(`inside: {kind: expression_statement}`, no `stopBy`: the call itself is the statement), and, in a grammar that
puts a call made as a statement straight into its block (Lua's `chunk` and `block`, Kotlin's `statements`), any
such block, wherever the examples' calls happened to stand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import call_like, near_misses
from sgtools.workflows.suggest.candidates import INSIDE_TEXT, Candidate, of_kinds
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_FORMS = 2  # candidates per module: the best near misses so placed, not every one
# Grammars whose calls made as statements sit straight in a statement list, each with every such list; in the
# others such a call is the one child of an `expression_statement`.
_BLOCKS: dict[str, tuple[str, ...]] = {
    "lua": ("chunk", "block"),
    "kotlin": ("statements",),
    "swift": ("statements",),
}


def _holders(language: str) -> tuple[str, ...]:
    return _BLOCKS.get(language, ("expression_statement",))


def _standing(node: Node, language: str) -> bool:
    """The call is a statement of its own: nothing uses what it returns."""
    return node.parent is not None and node.parent.kind in _holders(language)


def dropped_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                  valid: Sequence[Example], start: int, language: str) -> list[Candidate]:
    """A call that flags valid code too, made as a statement in every invalid example and used as a value in
    every valid one: the call inside a statement of its own, its result dropped."""
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        if not all(call_like(n.kind) for n in [*bad, *good]):
            continue
        if not all(_standing(b, language) for b in bad) or any(_standing(g, language) for g in good):
            continue
        inside: dict[str, Any] = of_kinds(_holders(language))
        rule = {"all": [cand.body["rule"], {"inside": inside}]}
        note = ("flags it only when it is made as a statement of its own, its result dropped; lets through the same "
                "call whose result is assigned, passed on, awaited or returned")
        out.append(Candidate({**cand.body, "rule": rule}, cand.gen, INSIDE_TEXT, start + len(out), note))
        if len(out) >= _FORMS:
            break
    return out
