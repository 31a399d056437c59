"""The last of the ranking, on the constructs that passed: a part the best candidate holds, writes or declares
goes before it, then the best candidate per root (service._picked says the whole ranking's order)."""

from __future__ import annotations

import re

from sgtools.workflows.suggest import decltypes, keyed, nested, written
from sgtools.workflows.suggest.candidates import KIND_ONLY, Candidate

# Kinds that hold a construct where the code happened to be (a declaration, an assignment, a statement).
_HOLDER = re.compile(r"declaration|declarator|assignment|statement")


def inner_first(passing: list[Candidate]) -> list[Candidate]:
    """A declaration, assignment or statement pattern whose root holds the root of another pattern that separates
    as well, in as good a tier (`int *p = (int *)malloc(n)` holding `(int *)malloc(n)`), only adds where the code
    happened to be: the construct inside it is the point, so it goes first."""
    if not passing or passing[0].form >= KIND_ONLY or not _HOLDER.search(passing[0].gen.root.kind):
        return passing
    top = passing[0]
    inner = [c for c in passing[1:] if c.form < KIND_ONLY and c.tier() <= top.tier()
             and c.gen.root is not top.gen.root and c.gen.root.start >= top.gen.root.start
             and c.gen.root.end <= top.gen.root.end and any(a is top.gen.root for a in c.gen.root.ancestors())
             and not _HOLDER.search(c.gen.root.kind)]
    if not inner:
        return passing
    # The outermost such construct: it keeps what the inner parts of it need (the attribute holding an object).
    first = max(inner, key=lambda c: c.gen.root.end - c.gen.root.start)
    return [first, *(c for c in passing if c is not first)]


def pick(passing: list[Candidate], count: int) -> list[Candidate]:
    """The best candidate per root; a bare leaf (one name or literal) only when no construct passed."""
    chosen: list[Candidate] = []
    roots: set[int] = set()
    constructs = nested.held_first(decltypes.types_first(
        written.writes_first(keyed.elements_first(inner_first([c for c in passing if not c.leaf])))))
    for cand in constructs or passing:
        if cand.root_index in roots:
            continue
        roots.add(cand.root_index)
        chosen.append(cand)
        if len(chosen) == count:
            break
    return chosen
