"""Code kept inside the call the request names (issue 29): "no interpolated strings in SQL passed to rawQuery or
execSQL" is about the strings those calls take, not every interpolated string (`Log.d("querying $table")`). When
the request writes names as code (`query()`, `rawQuery`, `mysqli_query`, `SqlCommand`) and, in every invalid
example, one of the best candidates' matches sits inside a call (or a `new`, or an assignment to a member) named
by one of them, the candidate is also tried inside that context, by kind and by the whole family of names the
request writes (`inside: {kind: call_expression, has: {nthChild: 1, regex: (^|\\W)(rawQuery|execSQL)$},
stopBy: end}`), ranked just before the same candidate alone, which stays an alternative; a construct said by its
kind alone (an interpolated string) so placed ranks as one in a context of its own at worst (`Candidate.tier`):
the request gives its context, the examples its kind. Not a call by a name regex of names the request does not
write (`^(find|passes)$`): what the examples happen to call inside the named call.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest import callnames, listed
from sgtools.workflows.suggest.author import call_like, matched, named_child, whole_kind
from sgtools.workflows.suggest.candidates import FIELD, KIND_ONLY, Candidate
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_PLACED = 12  # candidates (best first) that flag every invalid example, tried in the context the request names
_WORD = re.compile(r"`([^`]+)`|[A-Za-z_][\w.]*\w(?:\(\))?")
_LOOSE_TIER = 7  # bare names and whole functions: where they sit says nothing of a construct


def code_names(request: str | None) -> set[str]:
    """The names the request writes as code: called (`query()`), quoted (`` `before` ``), dotted, with an
    underscore or a capital inside (`mysqli_query`, `rawQuery`, `SqlCommand`), each by its last part."""
    found: set[str] = set()
    for m in _WORD.finditer(request or ""):
        word = m.group(1) or m.group(0)
        if m.group(1) is not None or word.endswith("()") or re.search(r"[._]|[a-z0-9][A-Z]", word):
            found.update(w for w in re.findall(r"[A-Za-z_]\w*", word.split(".")[-1])[-1:] if len(w) > 2)
    return found


def _family(shown: set[str], request: str | None) -> list[str]:
    """The names shown, with every other name of a list of them the request writes (`query(), exec() or
    mysqli_query()`, `SqlCommand or CommandText`)."""
    out = set(shown)
    for names in listed.request_lists(request):
        last = {n.split(".")[-1] for n in names}
        if last & shown:
            out |= last
    return sorted(out)


def _name(node: Node) -> Node | None:
    """What names a context: a call's callee (a `new`'s type), an assignment's target."""
    if call_like(node.kind):
        return callnames.name_of(node) or named_child(node, ("type",))
    return named_child(node, ("left",)) if "assignment" in node.kind else None


def _context(node: Node, names: set[str]) -> tuple[str, str, str] | None:
    """(kind, field of its name, name) of the nearest call or assignment around `node` named by one of `names`, up
    to the function it is in; None when there is none."""
    for a in node.ancestors():
        if whole_kind(a.kind):
            return None
        named = _name(a)
        if named is None or named.start <= node.start < named.end:
            continue
        last = re.findall(r"\w+", named.text)[-1:]
        if last and last[0] in names:
            return a.kind, named.role or "", last[0]
    return None


def _contexts(bad: list[list[Node]], names: set[str]) -> dict[tuple[str, str], set[str]] | None:
    """The named contexts around the matches, by (kind, field), when every invalid example has a match in one."""
    out: dict[tuple[str, str], set[str]] = {}
    for nodes in bad:
        found = [c for n in nodes if (c := _context(n, names)) is not None]
        if not found:
            return None
        for kind, role, name in found:
            out.setdefault((kind, role), set()).add(name)
    return out


def _inside(contexts: dict[tuple[str, str], set[str]], request: str | None, language: str) -> dict[str, Any]:
    """`inside` the contexts, each by kind and the request's whole family of the names shown."""
    group = _family(set().union(*contexts.values()), request)
    regex = r"(^|\W)(" + "|".join(re.escape(n) for n in group) + ")$"
    clauses = [callnames.by_name(kind, role, regex, language) for kind, role in sorted(contexts)]
    return {**clauses[0], "stopBy": "end"} if len(clauses) == 1 else {"any": clauses, "stopBy": "end"}


def request_context_forms(tried: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example], request: str | None,
                          language: str, start: int) -> list[Candidate]:
    """Each of the best candidates that flag every invalid example (separating or not), inside the call the
    request names that every invalid example has one of its matches in: ranked just before it."""
    names = code_names(request)
    if not names:
        return []
    n = len(invalid)
    flagging = sorted(((c, o) for c, o in tried if not o.refused and all(o.hits[i] for i in range(n))
                       and "inside" not in str(c.body["rule"]) and c.tier() < _LOOSE_TIER),
                      key=lambda co: co[0].key())
    out: list[Candidate] = []
    for cand, outcome in flagging[:_PLACED]:
        if cand.form == FIELD and not names & set(re.findall(r"\w+", str(cand.body["rule"]))):
            continue  # calls by names the examples happen to make inside the named call, not the request's
        found = _contexts(matched(outcome, invalid, 0), names)
        if found is None:
            continue
        inside = _inside(found, request, language)
        rule = {"all": [cand.body["rule"], {"inside": inside}]}
        shown = ", ".join(sorted(set().union(*found.values())))
        note = f"flags it only inside a call of {shown} (or the like, as the request names them); lets through " \
               "the same code anywhere else"
        out.append(dataclasses.replace(cand, body={**cand.body, "rule": rule}, root_index=start + len(out),
                                       note=note, anchored=True,
                                       placed=cand.form == KIND_ONLY))
    return out
