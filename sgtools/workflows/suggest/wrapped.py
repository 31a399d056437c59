"""Code the request says belongs inside a named call (issue 29): "wrap mutableStateOf in remember { }", "collect flows
inside repeatOnLifecycle". Where a near miss flags valid code that sits, in every valid example, inside a call the
request names (by that name, or one it starts: `rememberSaveable` for "remember"), and no invalid match sits in
such a call, the author writes the code `not: inside` that call by name (`not: inside: {kind: call_expression, has:
{nthChild: 1, regex: (^|\\W)(remember|rememberSaveable)$}, stopBy: end}`), not outside any call at all: the code is
fine in the call the request names, and only there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sgtools.workflows.suggest import callnames
from sgtools.workflows.suggest.author import call_like, near_misses, whole_kind
from sgtools.workflows.suggest.candidates import INSIDE_TEXT, Candidate
from sgtools.workflows.suggest.placed import named_calls
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_FORMS = 2  # candidates per module: the best near misses so placed, not every one
_MIN_WORD = 4  # a request word shorter than this (`get`) starts too many names


def _named_calls(node: Node, words: set[str]) -> list[tuple[str, str, str]]:
    """(kind, field of its name, name) of each call around `node`, up to the function it is in, whose callee's
    last name is a word of the request or starts with one."""
    out: list[tuple[str, str, str]] = []
    for a in node.ancestors():
        if whole_kind(a.kind):
            break
        named = callnames.name_of(a) if call_like(a.kind) else None
        if named is None or named.start <= node.start < named.end:
            continue
        last = (re.findall(r"\w+", named.text) or [""])[-1]
        if any(last == w or last.startswith(w) for w in words):
            out.append((a.kind, named.role or "", last))
    return out


def wrapped_forms(misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                  valid: Sequence[Example], request: str | None, language: str, start: int) -> list[Candidate]:
    """A near miss whose every valid match sits inside a call the request names and no invalid match does:
    `not: inside` that call, by kind and the names shown."""
    words = {w for w in re.findall(r"[A-Za-z_]\w*", request or "") if len(w) >= _MIN_WORD}
    out: list[Candidate] = []
    for cand, bad, good in near_misses(misses, invalid, valid):
        around = [_named_calls(g, words) for g in good]
        if not all(around) or any(_named_calls(b, words) for b in bad):
            continue
        places = {(k, r) for calls in around for k, r, _n in calls}
        names = sorted({n for calls in around for _k, _r, n in calls})
        rule = {"all": [cand.body["rule"], {"not": {"inside": named_calls(places, names, language)}}]}
        note = (f"flags it except inside a call of {' / '.join(names)}, where the request says it belongs; lets "
                "through the same code in any such call")
        out.append(Candidate({**cand.body, "rule": rule}, cand.gen, INSIDE_TEXT, start + len(out), note,
                             anchored=cand.anchored))
        if len(out) >= _FORMS:
            break
    return out
