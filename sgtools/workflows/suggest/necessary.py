"""Only the constraints the valid examples make necessary (issue 29): a pattern that also flags valid code keeps
a `kind` or `regex` constraint on a metavariable only where it excludes a valid match. `setTimeout($A, $B)`
with `setTimeout(tick, 100)` fine constrains A (the code passed as a string), not B (the delay, whatever its
kind): a constraint no valid example needs only repeats the kinds that happened to be shown.

The valid matches come from the unconstrained pattern's outcome (its metavariables' byte ranges), so no extra
ast-grep call is needed: the smallest set of constraints that excludes every valid match is a new candidate.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sgtools.engine.captures import captures
from sgtools.workflows.suggest.candidates import (
    CONTEXT,
    CONTEXT_TYPED,
    PINNED,
    PLAIN,
    TYPED,
    Candidate,
)
from sgtools.workflows.suggest.forms import kind_constraints, regex_constraints
from sgtools.workflows.suggest.generalise import Hole
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_MAX_HOLES = 5  # subsets tried over at most this many constrained metavariables
_TYPED_OF = {PLAIN: TYPED, CONTEXT: CONTEXT_TYPED}


def _spans(example: Example, start: int, end: int) -> list[Node]:
    return [n for n in example.nodes() if n.start == start and n.end == end and n.named]


def _admits(rule: Mapping[str, Any], nodes: Sequence[Node]) -> bool:
    """Whether a `kind` / `any` of kinds / `regex` constraint admits the captured node (any node of that span)."""
    if not nodes:
        return True  # unknown capture: assume the constraint cannot exclude it
    if "any" in rule:
        return any(_admits(r, nodes) for r in rule["any"])
    if "kind" in rule and not any(n.kind == rule["kind"] for n in nodes):
        return False
    return "regex" not in rule or re.search(str(rule["regex"]), nodes[0].text) is not None


def _excluders(match: Mapping[str, Any], example: Example, constraints: Mapping[str, Any]) -> set[str]:
    """The metavariables whose constraint rejects this match."""
    single = captures(match)[0]
    out: set[str] = set()
    for name, rule in constraints.items():
        captured = single.get(name)
        if captured is None:
            continue
        offsets = captured.get("range", {}).get("byteOffset", {})
        nodes = _spans(example, int(offsets.get("start", -1)), int(offsets.get("end", -1)))
        if not _admits(rule, nodes):
            out.add(name)
    return out


def _smallest(needs: list[set[str]], names: list[str]) -> list[str] | None:
    """The fewest metavariables that exclude every valid match (each match excluded by one of them)."""
    for size in range(1, len(names) + 1):
        for subset in itertools.combinations(names, size):
            if all(need & set(subset) for need in needs):
                return list(subset)
    return None


def _open_tail(rule: Any, name: str) -> dict[str, Any] | None:
    """`f($A, $B)` with B free as `any` of `f($A)` and `f($A, $$$B)`: an argument after the telling one that no
    constraint needs may be there or not, once or more (ast-grep's `$A, $$$B` needs one item, so both)."""
    if not isinstance(rule, Mapping) or not isinstance(rule.get("pattern"), str):
        return None
    text = str(rule["pattern"])
    tail = re.compile(rf",\s*\${name}\s*\)")
    found = list(tail.finditer(text))
    if len(found) != 1 or text.count(f"${name}") != 1:
        return None
    m = found[0]
    return {"any": [{"pattern": text[:m.start()] + ")" + text[m.end():]},
                    {"pattern": text[:m.start()] + f", $$${name})" + text[m.end():]}]}


def _minimal(constraints: dict[str, Any], outcome: Outcome, valid: Sequence[Example],
             offset: int, holes: Sequence[Hole]) -> dict[str, Any] | None:
    """The needed part of `constraints`, or None when all are needed (or some valid match escapes them all)."""
    if len(constraints) < 2 or len(constraints) > _MAX_HOLES:
        return None
    needs = [_excluders(m, e, constraints) for i, e in enumerate(valid) for m in outcome.hits[offset + i]]
    if not needs or any(not n for n in needs):
        return None
    telling = {h.name for h in holes if h.telling}
    keep = _smallest(needs, sorted(constraints, key=lambda k: (k not in telling, k)))
    if keep is None or len(keep) == len(constraints):
        return None
    return {k: constraints[k] for k in keep}


def _subsets(cand: Candidate, outcome: Outcome, n_invalid: int) -> list[Candidate]:
    """A pattern that keeps no name (`$A => $B`) is never tried bare, so no valid match tells which of its
    constraints are needed: each smaller set is tried, and the fewest that separate rank first."""
    constraints = cand.body.get("constraints", {})
    if outcome.refused or not all(outcome.hits[:n_invalid]) or not 2 <= len(constraints) <= 3:
        return []
    names = sorted(constraints)
    telling = {h.name for h in cand.gen.holes if h.telling and h.name in constraints}
    if telling and len(telling) < len(names):  # `:a => 1`: the key's kind says what it is, not the value's
        names = sorted(telling)
        return [Candidate({"rule": cand.body["rule"], "constraints": {k: constraints[k] for k in names}},
                          cand.gen, cand.form, cand.root_index)]
    return [Candidate({"rule": cand.body["rule"], "constraints": {k: constraints[k] for k in subset}}, cand.gen,
                      cand.form, cand.root_index)
            for size in range(1, len(names)) for subset in itertools.combinations(names, size)]


def necessary_forms(tried: Sequence[tuple[Candidate, Outcome]], valid: Sequence[Example],
                    n_invalid: int) -> list[Candidate]:
    """For each bare pattern (or context pattern) that flags every invalid example and some valid one: the same
    pattern with only the kind constraints, and only the regex constraints, that the valid examples need."""
    out: list[Candidate] = []
    for cand, outcome in tried:
        if cand.gen.typed_only and cand.form in (TYPED, CONTEXT_TYPED):
            out += _subsets(cand, outcome, n_invalid)
            continue
        typed_form = _TYPED_OF.get(cand.form)
        if typed_form is None or outcome.refused or not all(outcome.hits[:n_invalid]) or not any(
                outcome.hits[n_invalid:]):
            continue
        for made, form in ((kind_constraints(cand.gen.holes), typed_form),
                           (regex_constraints(cand.gen.holes), PINNED)):
            if form == PINNED and cand.form != PLAIN:
                continue
            kept = _minimal(made, outcome, valid, n_invalid, cand.gen.holes)
            if kept is None:
                continue
            out.append(Candidate({"rule": cand.body["rule"], "constraints": kept}, cand.gen, form, cand.root_index))
            free = [h.name for h in cand.gen.holes if not h.multi and h.name not in kept]
            opened = _open_tail(cand.body["rule"], free[-1]) if free else None
            if opened is not None:
                more = Candidate({"rule": opened, "constraints": kept}, cand.gen, form, cand.root_index)
                more.open_tail = True
                out.append(more)
    return out
