"""A loop the request names is any loop (issue 29): "in loops, append with t[#t + 1] = v instead of table.insert",
"only call compare_exchange_weak inside a retry loop; outside a loop use compare_exchange_strong". The examples show
the code in one kind of loop (a `for`), so the context they give is that kind; an author who reads "loop" writes
every loop the grammar has (`for`, `while`, `repeat`), whether the code must sit inside one or outside any, in the
same field (`body`, which every loop has). So each candidate kept inside (or not inside) some kinds of loop, when the
request says "loop" and names no kind of it ("a for loop's condition" does), is also tried on any loop of the
language, ranked just before it (`Candidate.said_place`), as is one the request's words already put in every loop
(placed.py). The verifier keeps it only where no valid example's code sits in another kind of loop (for `not
inside`, no invalid example's).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest import contexts
from sgtools.workflows.suggest.candidates import Candidate, of_kinds
from sgtools.workflows.suggest.placed import kind_words

_LOOP_WORD = re.compile(r"\bloops?\b", re.IGNORECASE)
# The words a kind of loop is named by (`for_statement`, `while`); not Rust's `loop`, which is the word for any loop.
_KIND_WORDS = frozenset({"for", "foreach", "while", "do", "repeat", "until"})
_PLACE_KEYS = frozenset({"kind", "any", "field", "stopBy"})  # a context said by its kind alone, nothing more


def _kinds(clause: Any) -> list[str] | None:
    """The kinds an `inside` clause says, when it says nothing but kinds (with a field and a stop)."""
    if not isinstance(clause, dict) or not set(clause) <= _PLACE_KEYS or ("kind" in clause) == ("any" in clause):
        return None
    if "kind" in clause:
        return [str(clause["kind"])]
    items = clause["any"]
    if not isinstance(items, list) or not all(isinstance(i, dict) and set(i) == {"kind"} for i in items):
        return None
    return [str(i["kind"]) for i in items]


def _widened(rule: Any, loops: Sequence[str]) -> tuple[Any, bool, bool]:
    """The rule with each `inside` clause on loops said on every loop, in the same field (every loop of a grammar
    has its `body`), with whether it had one and whether one changed."""
    if isinstance(rule, list):
        parts = [_widened(r, loops) for r in rule]
        return [p[0] for p in parts], any(p[1] for p in parts), any(p[2] for p in parts)
    if not isinstance(rule, dict):
        return rule, False, False
    out: dict[str, Any] = {}
    found = changed = False
    for key, value in rule.items():
        kinds = _kinds(value) if key == "inside" else None
        if kinds is not None and all(k in loops for k in kinds):
            out[key] = {**of_kinds(list(loops)), **{k: v for k, v in value.items() if k in ("field", "stopBy")}}
            found, changed = True, changed or out[key] != value
            continue
        out[key], had, moved = _widened(value, loops)
        found, changed = found or had, changed or moved
    return out, found, changed


def _any_loop(request: str | None, loops: Sequence[str]) -> bool:
    """The request says "loop" and names no kind of loop ("a for loop's condition", "a `while`"): any loop."""
    kinds = {k.split("_")[0] for k in loops} & _KIND_WORDS
    return bool(_LOOP_WORD.search(request or "")) and not kind_words(request) & kinds


def loop_forms(batch: Sequence[Candidate], request: str | None, language: str) -> list[Candidate]:
    """The batch with, before each candidate kept inside (or not inside) some kinds of loop, the same candidate on
    any loop of the language, when the request says "loop" and names no kind of it; one already on every loop is
    marked so. Each body once, at its first place. Not in a language with one kind of loop (Go's `for`): there
    the examples' loop is every loop already."""
    loops = contexts.LOOPS.get(language, ())
    if len(loops) < 2 or not _any_loop(request, loops):
        return list(batch)
    out: list[Candidate] = []
    seen: set[str] = set()  # the bodies placed by a loop so far: each once, at its first place
    for cand in batch:
        rule, found, changed = _widened(cand.body["rule"], loops)
        if not found:
            out.append(cand)
            continue
        # On every loop already: as the request says. Else the same on every loop, then as it was.
        said = [dataclasses.replace(cand, body={**cand.body, "rule": rule}, said_place=True,
                                    note=f"{cand.note}; the loop is any loop, as the request says"), cand] \
            if changed else [dataclasses.replace(cand, said_place=True)]
        for c in said:
            if str(c.body) not in seen:
                seen.add(str(c.body))
                out.append(c)
    return out
