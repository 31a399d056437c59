"""A call a pattern writes with its arguments, said with no more of them (issue 29). Where a call has no argument
list of its own to close (Ruby's `x.first` written without parentheses, a shell command's words), ast-grep matches
the pattern's call also where the code passes more: `$A.where($$$ARGS).first` flags `where(...).first(10)`, `cat $A
| $B` flags `cat a.csv b.csv | sort`. An author who writes such a call as the examples do means that many
arguments, and says so: the pattern with `not: has: {nthChild: K + 1}` on the call (K its parts as written). Ranked
just before the same pattern, which stays the alternative where the pinned count does not verify.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sgtools.workflows.suggest.arguments import list_items, list_path
from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import CONTEXT, PINNED, PLAIN, TYPED, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Node, path
from sgtools.workflows.suggest.verify import Outcome

_FORMS = (PLAIN, TYPED, PINNED, CONTEXT)
_TRIED = 6  # patterns a count is added to: the best few, as ranked


def _open(node: Node, gen: Generalised) -> bool:
    """The pattern leaves the call's parts open: it stands in a hole, or a `$$$` hole takes some of its parts."""
    for start, end, text in gen.edits:
        if start <= node.start and node.end <= end:
            return True
        if text.startswith("$$$") and any(start <= c.start and c.end <= end for c in list_items(node)):
            return True
    return False


def _counted(gen: Generalised) -> list[Node]:
    """The calls in the pattern's code with no argument list of their own (a Go type conversion has one operand
    whatever is written) whose every part the pattern writes."""
    return [n for n in gen.root.walk() if call_like(n.kind) and list_path(n) is None and list_items(n)
            and n.kind != "type_conversion_expression" and not _open(n, gen)]


def _clause(root: Node, call: Node) -> dict[str, Any]:
    """No part of `call` after those it has, said from the pattern's root down to it (`tree.path`), each step
    with its node's kind."""
    clause: dict[str, Any] = {"not": {"has": {"nthChild": len(call.named_children()) + 1}}}
    steps = path(root, call) or ()
    below = [call, *call.ancestors()][:len(steps)]  # the nodes the steps reach, deepest first
    for (how, at), node in zip(reversed(steps), below, strict=True):
        clause = {"has": {"kind": node.kind, how: at, **clause}}
    return clause


def counted_forms(tried: Sequence[tuple[Candidate, Outcome]]) -> list[Candidate]:
    """The best patterns tried, each with the count of every call it writes whole pinned."""
    out: list[Candidate] = []
    patterns = sorted((c for c, o in tried if c.form in _FORMS and not o.refused and not c.counted),
                      key=lambda c: c.key())
    for cand in patterns[:_TRIED]:
        calls = _counted(cand.gen)
        if not calls:
            continue
        rule = {"all": [cand.body["rule"], *(_clause(cand.gen.root, call) for call in calls)]}
        out.append(replace(cand, body={**cand.body, "rule": rule}, counted=True,
                           note="flags it only with as many arguments as the examples pass; lets through the same "
                                "call given more"))
    return out
