"""Code kept inside the call the request names (issue 29): "no interpolated strings in SQL passed to rawQuery or
execSQL" is about the strings those calls take, not every interpolated string (`Log.d("querying $table")`). When
the request writes names as code (`query()`, `rawQuery`, `mysqli_query`, `SqlCommand`) and, in every invalid
example, one of the best candidates' matches sits inside a call (or a `new`, or an assignment to a member) named
by one of them, the candidate is also tried inside that context, by kind and by the whole family of names the
request writes (`inside: {kind: call_expression, has: {nthChild: 1, regex: (^|\\W)(rawQuery|execSQL)$},
stopBy: end}`), ranked just before the same candidate alone, which stays an alternative; a construct said by its
kind alone (an interpolated string) so placed ranks as one in a context of its own at worst (`Candidate.tier`):
the request gives its context, the examples its kind. Not a call by a name regex of names the request does not
write (`^(find|passes)$`): what the examples happen to call inside the named call. Likewise a construct the
request names ("in an except block", "inside a loop", `if (...)`) around a match in each invalid example, by its
kind (any loop for "loop"), in the part of it the request names when it names one ("in a loop condition": `field:
condition`, not the body), or by a kind whose first word is the one the request places the code in ("in JSX
props": `jsx_expression`; "inside closures": `closure_expression`); and where the request places the code in such
a construct in words ("inside a loop")
and a candidate so placed separates, those before it that flag some invalid example only outside it (`local s = ""`
before the loop) go after it (`constructs_first`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from sgtools.workflows.suggest import callnames, contexts, listed
from sgtools.workflows.suggest.author import call_like, construct_kind, matched, named_child, whole_kind
from sgtools.workflows.suggest.candidates import FIELD, KIND_ONLY, REQUESTED, Candidate, of_kinds, own_context
from sgtools.workflows.suggest.roots import part_kind
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
    return named_calls(contexts, _family(set().union(*contexts.values()), request), language)


def named_calls(places: Iterable[tuple[str, str]], names: Sequence[str], language: str) -> dict[str, Any]:
    """The relational clause for any call (or assignment) of the kinds at `places` ((kind, field of its name))
    whose name ends in one of `names`, however deep around the code (`stopBy: end`): placed.py keeps code inside
    it, wrapped.py keeps code out of it."""
    regex = r"(^|\W)(" + "|".join(re.escape(n) for n in names) + ")$"
    clauses = [callnames.by_name(kind, role, regex, language) for kind, role in sorted(places)]
    return {**clauses[0], "stopBy": "end"} if len(clauses) == 1 else {"any": clauses, "stopBy": "end"}


def _flagging(tried: Sequence[tuple[Candidate, Outcome]], n: int) -> list[tuple[Candidate, Outcome]]:
    """The candidates tried that flag every invalid example (separating or not), not placed yet and not loose, best
    first: the ones worth placing in a context."""
    return sorted(((c, o) for c, o in tried if not o.refused and all(o.hits[i] for i in range(n))
                   and "inside" not in str(c.body["rule"]) and c.tier() < _LOOSE_TIER),
                  key=lambda co: co[0].key())


def flagging(tried: Sequence[tuple[Candidate, Outcome]], n: int) -> list[tuple[Candidate, Outcome]]:
    """The best candidates worth placing in a context the request names (`_flagging`), as many as are tried."""
    return _flagging(tried, n)[:_PLACED]


def request_context_forms(tried: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example], request: str | None,
                          language: str, start: int) -> list[Candidate]:
    """Each of the best candidates that flag every invalid example (separating or not), inside the call the
    request names that every invalid example has one of its matches in: ranked just before it."""
    names = code_names(request)
    if not names:
        return []
    flagging = _flagging(tried, len(invalid))
    out: list[Candidate] = []
    for cand, outcome in flagging[:_PLACED]:
        if cand.form == FIELD and not names & set(re.findall(r"\w+", str(cand.body["rule"]))):
            continue  # calls by names the examples happen to make inside the named call, not the request's
        found = _contexts(matched(outcome, invalid, 0), names)
        if found is None:
            continue
        shown = ", ".join(sorted(set().union(*found.values())))
        note = f"flags it only inside a call of {shown} (or the like, as the request names them); lets through " \
               "the same code anywhere else"
        out.append(cand.kept_inside(_inside(found, request, language), note, start + len(out),
                                    placed=cand.form == KIND_ONLY))
    return out


_CONSTRUCT_WORD = re.compile(r"\b([A-Za-z]{2,})(?=\s*[({`]|'?s?\s+(?:loop|block|body|clause|statement|branch)s?\b)")
# The part of a construct the request places the code in, by the grammars' field name ("in a loop condition", "the
# condition of a while"): the code there, not in the construct's body.
_PART = re.compile(r"\b(condition)s?\b", re.IGNORECASE)


def part_word(request: str | None) -> str | None:
    """The field of a construct the request names ("a loop condition": `condition`), None for its body."""
    m = _PART.search(request or "")
    return m.group(1).lower() if m else None


def kind_words(request: str | None) -> set[str]:
    """The words the request names a construct by: "loop", a word before one of loop, block, body, clause,
    statement or branch ("except block", "for loop's"), or written as code (`if (...)`, `` `finally` ``), lower
    case; not prose ("compare with ==")."""
    text = request or ""
    found = {m.group(1).lower() for m in _CONSTRUCT_WORD.finditer(text)}
    found |= {w.lower() for w in re.findall(r"`([A-Za-z]{2,})[^`]*`", text)}
    return found | ({"loop"} if re.search(r"\bloops?\b", text) else set())


def _named_construct(node: Node, words: set[str], loops: Sequence[str], part: str | None = None) -> str | None:
    """The nearest construct of its own whose body (or the `part` field the request names: a loop's `condition`)
    holds `node`, up to the function it is in, whose kind the request names by its first word (`except` for
    `except_clause`, `for` for `for_statement`), or any loop for "loop"; not one whose header holds it (a `catch`
    clause's parameter is always in one)."""
    child = node
    for a in node.ancestors():
        if whole_kind(a.kind):
            return None
        in_body = child.role == part if part else (
            child.role == "body" or part_kind(child.kind))
        if in_body and own_context(a.kind) and (a.kind.split("_")[0] in words or ("loop" in words and a.kind in loops)):
            return a.kind
        child = a
    return None


_IN_WORD = re.compile(r"\b(?:in|inside|within)\s+(?:an?\s+|the\s+|any\s+)?([A-Za-z]{2,})\b", re.IGNORECASE)


def place_words(request: str | None) -> set[str]:
    """The word after "in" / "inside" / "within" ("no .bind() in JSX props": `jsx`), lower case and singular too: a
    kind's first word where the grammar names its constructs so (`jsx_expression`), else no construct ("in tests")."""
    words = {m.group(1).lower() for m in _IN_WORD.finditer(request or "")}
    return words | {w[:-1] for w in words if w.endswith("s")}  # "in closures": `closure_expression`


def _prefixed(node: Node, words: set[str]) -> str | None:
    """The nearest construct around `node`, up to the function it is in, whose kind opens with one of `words`
    (`jsx_expression` for "JSX"), wherever in it the code sits."""
    for a in node.ancestors():
        if whole_kind(a.kind):
            return None
        if a.kind.split("_")[0] in words and construct_kind(a.kind):
            return a.kind
    return None


def _around(node: Node, words: set[str], extra: set[str], loops: Sequence[str], part: str | None) -> str | None:
    """The construct the request names around `node`: by its construct words, else by a kind's first word."""
    return (_named_construct(node, words, loops, part) if words else None) or (
        _prefixed(node, extra) if extra else None)


def construct_context_forms(tried: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                            request: str | None, language: str, start: int) -> list[Candidate]:
    """Each of the best candidates that flag every invalid example, inside the construct the request names ("inside
    a loop", "in an except block") that every invalid example has one of its matches in: ranked just before it; one
    said without names (a kind, or a pattern of operators and keywords: `$A = $A .. $B`) ranks as code in a context
    of its own, which the request's context makes specific."""
    words = kind_words(request)
    extra = place_words(request) - words
    loops = contexts.LOOPS.get(language, ())
    if not words and not extra:
        return []
    part = part_word(request)
    flagging = _flagging(tried, len(invalid))
    # The code the request names is placed where it says, however it ranks among the examples' own candidates.
    asked = [co for co in flagging[_PLACED:] if co[0].form == REQUESTED][:1]
    out: list[Candidate] = []
    for cand, outcome in flagging[:_PLACED] + asked:
        found = [{k for node in nodes if (k := _around(node, words, extra, loops, part)) is not None}
                 for nodes in matched(outcome, invalid, 0)]
        if not all(found):
            continue
        kinds = sorted(set().union(*found))
        if "loop" in words and all(k in loops for k in kinds):
            kinds = list(loops)
        inside = {**of_kinds(kinds), **({"field": part} if part else {}), "stopBy": "end"}
        where = f"the {part} of a" if part else "inside a"
        note = f"flags it only in {where} {' or '.join(kinds)}, as the request says; lets through the same code " \
               "anywhere else"
        out.append(cand.kept_inside(inside, note, start + len(out),
                                    placed=cand.form == KIND_ONLY or cand.keyword_only()))
    return out


def _construct_kinds(cand: Candidate) -> set[str]:
    """The construct kinds a candidate placed by `construct_context_forms` is inside; empty for any other."""
    rule = cand.body["rule"]
    parts = rule.get("all", []) if isinstance(rule, dict) else []
    inside = parts[-1].get("inside", {}) if len(parts) == 2 and isinstance(parts[-1], dict) else {}
    return {c.get("kind", "") for c in inside.get("any", [inside])} - {""}


_IN_CONSTRUCT = re.compile(r"\b(?:in|inside|within)\s+(?:an?\s+|the\s+|any\s+)?(?:([A-Za-z]{2,})\s+)?"
                           r"(loop|block|body|clause|branch)s?\b", re.IGNORECASE)


def _prose_construct(request: str | None) -> set[str]:
    """The construct the request places the code in, in words ("inside a loop", "in an except block"), as
    `_kind_words` names it: a name called or quoted says what, not where."""
    found: set[str] = set()
    for m in _IN_CONSTRUCT.finditer(request or ""):
        found |= {m.group(2).lower()} if m.group(2).lower() == "loop" else set()
        found |= {m.group(1).lower()} if m.group(1) else set()
    return found


def constructs_first(passing: list[Candidate], tried: Sequence[tuple[Candidate, Outcome]],
                     invalid: Sequence[Example], request: str | None, language: str) -> list[Candidate]:
    """When the request names a construct ("inside a loop") and a candidate placed inside it separates, the
    candidates before it that flag some invalid example only outside that construct go after it: they say where
    the code happened to be (`local s = ""` before the loop), not what the request is about."""
    words = _prose_construct(request)
    loops = contexts.LOOPS.get(language, ())
    at = next((i for i, c in enumerate(passing) if words and _construct_kinds(c) and all(
        k.split("_")[0] in words or ("loop" in words and k in loops) for k in _construct_kinds(c))), None)
    if at is None:
        return passing
    outcomes = {id(c): o for c, o in tried}

    def outside(cand: Candidate) -> bool:
        outcome = outcomes.get(id(cand))
        return outcome is not None and not all(
            any(_named_construct(n, words, loops, part_word(request)) is not None for n in nodes)
            for nodes in matched(outcome, invalid, 0))

    late = {id(c) for c in passing[:at] if outside(c)}
    return [*(c for c in passing[:at] if id(c) not in late), passing[at],
            *(c for c in passing[:at] if id(c) in late), *passing[at + 1:]]
