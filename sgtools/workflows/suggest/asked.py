"""The request's words that name the construct (issue 29): a word of the request (`assertTrue`, `unwrap_or`) or an
operator it writes (`!!`) that every invalid example's code also writes is what the developer asks about. A
candidate that drops it (`$A.equals($$$ARGS)` for "assertTrue(a.equals(b))", `kind: unary` with `!` for "no
`!!`") flags the part the examples happen to share, not the construct asked for: candidates keeping more of
those words go first, in their own order otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from sgtools.rules.analysis.walk import rule_objects
from sgtools.workflows.suggest.anchor import HOLDER
from sgtools.workflows.suggest.candidates import LEAF_KIND, Candidate
from sgtools.workflows.suggest.tree import Example, Node

_TOKEN = re.compile(r"[A-Za-z_]\w{2,}|[!=<>&|+\-*/%^~?:]{2,}")
_QUALIFIER = re.compile(r"\b([A-Za-z_]\w*)(?:\.|::)(?=[A-Za-z_])")
_WORD = re.compile(r"\w")
_OPERATOR = re.compile(r"[!=<>&|+\-*/%^~?:]+")
_LOOSEST = 4  # a pattern keeping only keywords and operators (`!!$A`): the loosest still said as a construct
_INTERPOLATED = re.compile(r"substitution|interpolat")  # code inside a string (`template_substitution`)
_OPAQUE = ("string", "comment", "char", "heredoc", "regex")  # their words are text, not code


def code_leaves(node: Node) -> Iterator[Node]:
    """The leaves of a node that are code, not the text of a string or a comment; code interpolated into a string
    (`${Math.random()}`, `#{id}`, `{user.name}` in an f-string) is code."""
    if any(p in node.kind for p in _OPAQUE):
        for child in node.children:
            if _INTERPOLATED.search(child.kind):
                yield from code_leaves(child)
        return
    if not node.children:
        yield node
    for child in node.children:
        yield from code_leaves(child)


def code_tokens(example: Example) -> set[str]:
    """The words and operators the example's code writes; adjacent operator tokens also as one, from any of them
    (`x=!!y`: `=`, `!`, `!!`, `=!!`)."""
    out: set[str] = set()
    run: list[str] = []
    end = -1
    for leaf in code_leaves(example.root):
        text = leaf.text
        out.add(text)
        if not _OPERATOR.fullmatch(text):  # a word, a bracket or a separator ends a run of operators
            run = []
            continue
        run = [*run, text] if run and leaf.start == end else [text]
        end = leaf.end
        out.update("".join(run[i:]) for i in range(len(run)))
    return out


def telling(request: str | None, invalid: Sequence[Example], valid: Sequence[Example]) -> list[str]:
    """The request's words and operators that every invalid example's code writes and no valid example's does."""
    if not request or not invalid:
        return []
    shown = set.intersection(*(code_tokens(e) for e in invalid)) - set().union(*(code_tokens(e) for e in valid))
    qualifiers = set(_QUALIFIER.findall(request))  # `mem` of `mem::transmute`: the name is its last part
    return [t for t in dict.fromkeys(_TOKEN.findall(request)) if t in shown and t not in qualifiers]


def _kinds(rule: Any) -> set[str]:
    """The kinds a rule asks for (not those it rules out under `not`)."""
    return {str(node["kind"]) for path, node in rule_objects({"rule": rule})
            if "not" not in path and isinstance(node.get("kind"), str)}


def _matched(rule: Any, pattern: str) -> Any:
    """The rule with a context/selector pattern as the code it selects: the context around it is not matched."""
    if isinstance(rule, dict):
        if "context" in rule and "selector" in rule:
            return pattern
        return {k: _matched(v, pattern) for k, v in rule.items()}
    if isinstance(rule, list):
        return [_matched(v, pattern) for v in rule]
    return rule


def _said(token: str, cand: Candidate, invalid: Sequence[Example]) -> bool:
    """The candidate's rule writes the token, or names a kind whose every node writes it as its own token (`for`
    of a `for_statement`, `new` of an array creation)."""
    text = json.dumps(_matched({k: cand.body[k] for k in ("rule", "constraints") if k in cand.body},
                               cand.gen.pattern))
    if re.search(rf"(?<![\w]){re.escape(token)}(?![\w])", text) or (
            not _WORD.search(token) and token in text):
        return True
    for kind in _kinds(cand.body.get("rule")):
        nodes = [n for e in invalid for n in e.nodes() if n.kind == kind]
        if nodes and all(any(c.text == token for c in n.children) for n in nodes):
            return True
    return False


def words_first(passing: list[Candidate], request: str | None, invalid: Sequence[Example],
                valid: Sequence[Example]) -> list[Candidate]:
    """A type the request names, flagged by name alone, goes first (`_type_alone`). Else, when the best candidate
    drops some of the request's telling words, the best one keeping the most of them
    goes first, among the constructs said as such (a pattern, a kind, a child: not a whole function, a name alone
    or where the code happens to be, a declaration or an assignment); the rest keep their order."""
    tokens = telling(request, invalid, valid)
    if not tokens or not passing:
        return passing
    words = set(_TOKEN.findall(request or ""))
    named = next((i for i, c in enumerate(passing) if _type_alone(c, invalid, words) in tokens
                  and all(_said(t, c, invalid) for t in tokens)), None)
    if named is not None:  # the type the request names (`no BinaryFormatter`), wherever it stands
        return [passing[named], *passing[:named], *passing[named + 1:]]
    kept = [sum(_said(t, c, invalid) for t in tokens) for c in passing]
    best = max(range(len(passing)), key=lambda i: (kept[i] if _construct(passing[i]) else -1, -i))
    if kept[best] <= kept[0] or not _construct(passing[best]):
        return passing
    return [passing[best], *passing[:best], *passing[best + 1:]]


def _construct(cand: Candidate) -> bool:
    return cand.tier() <= _LOOSEST and not HOLDER.search(cand.gen.root.kind)


def _type_alone(cand: Candidate, invalid: Sequence[Example], words: set[str]) -> str | None:
    """The type a candidate flags by kind and regex alone (`identifier` `^BinaryFormatter$`), one the invalid
    examples write as a type (`new BinaryFormatter()`, `StringBuffer b`): a request that names it, and says nothing
    else the examples write, asks for it wherever it stands (a field's type, a parameter, a `new`), not only in the
    construct the examples happen to write it in. Not a type held in one construct the valid examples also use
    when the request says that construct's keyword too ("don't catch Throwable": `within`), nor a name the
    examples call (`sleep`, `size()`): that call is the point."""
    rule = cand.body.get("rule")
    if cand.form != LEAF_KIND or "constraints" in cand.body or not isinstance(rule, dict) or set(rule) != {
            "kind", "regex"}:
        return None
    found = re.fullmatch(r"\^(\w+)\$", str(rule["regex"]))
    if found is None:
        return None
    at = [n for e in invalid for n in e.nodes() if n.text == found.group(1) and n.named and not n.children]
    if not any(n.role == "type" or "type" in n.kind for n in at):
        return None
    if cand.within and words & _keywords(at):
        return None
    return found.group(1)


def _keywords(at: list[Node]) -> set[str]:
    """The keywords (`catch`, `new`) of the constructs that hold every one of these nodes."""
    shared = set.intersection(*({a.kind for a in n.ancestors()} for n in at)) if at else set()
    return {c.text for n in at for a in n.ancestors() if a.kind in shared
            for c in a.children if not c.named and _WORD.search(c.text)}


def _literals(invalid: Sequence[Example], request: str | None) -> set[str]:
    """The names and literals (named leaves) every invalid example writes and the request does not."""
    written = set(re.findall(r"\w+", request or ""))
    shared = set.intersection(*({n.text for n in code_leaves(e.root) if n.named} for e in invalid)) if invalid \
        else set()
    return {t for t in shared if _WORD.search(t) and t not in written}


def named_first(passing: list[Candidate], request: str | None, invalid: Sequence[Example]) -> list[Candidate]:
    """An author keeps what the request names and drops what the examples merely share: when the best candidate
    keeps names or literals the request does not write (`wg.Add(1)`'s `1`), the construct keeping every word of
    the request the best one keeps and the fewest of those goes first; the rest keep their order. A name alone
    (`self`) is no construct."""
    if not request or not passing:
        return passing
    unnamed = _literals(invalid, request)
    words = set(re.findall(r"\w+", request)) - unnamed
    said = [({t for t in words if _said(t, c, invalid)}, sum(_said(t, c, invalid) for t in unnamed))
            for c in passing]
    if not said[0][0] or not said[0][1]:
        return passing
    fits = [i for i, c in enumerate(passing) if _construct(c) and c.gen.root.named_children()
            and said[i][0] >= said[0][0] and said[i][1] < said[0][1]]
    if not fits:
        return passing
    best = min(fits, key=lambda i: (said[i][1], i))
    return [passing[best], *passing[:best], *passing[best + 1:]]
