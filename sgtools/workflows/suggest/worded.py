"""Code kept inside the construct the request names by a plain word that construct writes (issue 29): "never
Await.result inside an Akka actor", "no std::fs calls in async code", "withContext inside a flow { } builder". An
author places the code `inside` (stopBy: end) the enclosing construct whose header, the part written before the
code, says the request's word in every invalid example: a class whose `extends` writes `Actor`, a function whose
modifiers write `async`, a call named `flow`, a function whose name says `draw`. Each of the best candidates that
flag every invalid example is tried so, ranked just before the same candidate alone; the verifier keeps it only
where no valid example's code sits in such a construct. One that separates the examples as it is is placed too,
by the words of where the request says the code sits ("no Math.random() in a React key": a JSX attribute whose
name says `key`), or by the declaration its subject names ("view models don't reach for .shared": a class whose
name says `Model`; not a call the subject's code is passed to): the examples need no place, but the request names
one, and the same code elsewhere is fine.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import matched, whole_kind
from sgtools.workflows.suggest.candidates import Candidate
from sgtools.workflows.suggest.placed import flagging
from sgtools.workflows.suggest.roots import part_kind
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_MAX_HEADER_CHARS = 80  # a header child longer than this is code, not a mark
_PLACE_WORDS = 3  # words after "in" read as where the code sits ("in a React key"), not what follows it
# Words of a path scope (scope.py), which the rule's `files` / `ignores` say, not a construct around the code.
_SCOPES = frozenset({"test", "tests", "spec", "specs", "library", "lib", "production", "script", "scripts"})
_PLAIN = re.compile(r"(?<![\w.:$])[A-Za-z][a-z]{2,}(?![\w.:(])")  # prose (`Akka`, `actor`), not code (`Await.result`)
# Words that place or qualify, not name a construct (`the`, `inside`, `calls`), and what any code writes.
COMMON_WORDS = frozenset({
    "the", "and", "for", "not", "use", "any", "all", "with", "inside", "within", "into", "from", "never", "don",
    "only", "must", "every", "should", "call", "calls", "code", "its", "their", "them", "they", "that", "this",
    "there", "here", "instead", "otherwise", "can", "cannot", "has", "have", "one", "are", "was", "but", "out",
    "put", "let", "get", "set", "new", "via", "per", "than", "then", "when", "where", "which", "each", "own",
    "value", "values", "string", "strings", "name", "names", "type", "types", "function", "functions", "method",
    "methods", "class", "classes", "file", "files", "line", "lines", "variable", "variables", "return", "self",
})


def request_words(request: str | None) -> set[str]:
    """The plain lower-case words of the request that may name an enclosing construct (`actor`, `async`, `flow`),
    each also without a plural `s` ("actors")."""
    words = {w.lower() for w in _PLAIN.findall(request or "")} - COMMON_WORDS
    return words | {w[:-1] for w in words if w.endswith("s") and len(w) > 4 and w[:-1] not in COMMON_WORDS}


# Where the request says the code sits: the words after "in" / "inside" / "within", up to a comma or a clause's end
# ("no Math.random() in a React key, ...": `React key`).
_PLACE = re.compile(rf"\b(?:in|inside|within)\s+((?:[\w@$.`'-]+[ \t]+){{0,{_PLACE_WORDS - 1}}}[\w@$.`'-]+)")


# The request's subject, the words before what it says of them ("view models don't reach for .shared"): the kind
# of declaration the rule is about, where the code it names must not be.
_SUBJECT = re.compile(rf"^\s*((?:[\w@$.`'-]+[ \t]+){{1,{_PLACE_WORDS}}}?)(?:don't|doesn't|do not|must|mustn't|"
                      r"should|shouldn't|may|never|can't|cannot|need|needs|have to|has to)\b", re.IGNORECASE)


def place_words(request: str | None) -> set[str]:
    """The plain words of the request's place for the code ("in a React key": `react`, `key`), as
    `request_words` reads them; not a path scope ("in tests", "in library code": scope.py)."""
    return set().union(*(request_words(m.group(1)) for m in _PLACE.finditer(request or ""))) - _SCOPES


def subject_words(request: str | None) -> set[str]:
    """The plain words of the request's subject, a few words before "don't", "must", "never"... ("view models
    don't ...": `view`, `model`), not a path scope."""
    m = _SUBJECT.match(request or "")
    return request_words(m.group(1)) - _SCOPES if m is not None else set()


def says(word: str) -> str:
    """A regex for `word` written as a word or a part of a name (`Actor`, `AbstractActor`, `drawScene`, `on_draw`,
    `'install'`), not inside a longer word (`flowOn` says `flow`, `overflow` does not)."""
    cap = word[0].upper() + word[1:]
    return rf"(^|[^A-Za-z])[{word[0]}{cap[0]}]{word[1:]}($|[^a-z])|[a-z0-9]{cap}($|[^a-z])"


def _header(ancestor: Node, inner: Node) -> list[Node]:
    """The named children of `ancestor` written before the one holding `inner`, not a body or a list of parts."""
    out: list[Node] = []
    for c in ancestor.children:
        if c.start <= inner.start and inner.end <= c.end:
            return out
        if c.named and not part_kind(c.kind) \
                and len(c.text) <= _MAX_HEADER_CHARS and "\n" not in c.text:
            out.append(c)
    return out


def _parameters(construct: Node) -> str:
    """The field of the construct's parameters (`parameters`), or ''."""
    return next((c.role for c in construct.children if c.role and "param" in c.role), "")


_Mark = tuple[str, str, str, str, str]  # (kind, `field` or `kind`, its value, word, the field of its parameters)


def _marks(nodes: Sequence[Node], words: set[str]) -> dict[_Mark, int]:
    """(kind, `field` or `kind`, its value, word, the field of its parameters) of each construct around the nodes
    whose header says one of the words, with how far above the code it is (the nearest counts)."""
    out: dict[_Mark, int] = {}
    for node in nodes:
        inner = node
        for depth, a in enumerate(node.ancestors()):
            if a.parent is None:
                break  # the file: what it imports is no construct the code is in
            for c in _header(a, inner):
                for w in words:
                    if re.search(says(w), c.text):
                        key = (a.kind, "field", c.role, w, _parameters(a)) if c.role \
                            else (a.kind, "kind", c.kind, w, _parameters(a))
                        out[key] = min(out.get(key, depth), depth)
            inner = a
    return out


def _clause(mark: _Mark) -> dict[str, Any]:
    """Inside the construct, by its kind and the header child that says the word; a modifier (`async`) says the
    same on any construct it is written on (a method or a lambda), so by it alone, and of a function only the
    nearest function around the code: a plain lambda in an async method is not async code."""
    kind, key, value, word, parameters = mark
    modifier = key == "kind" and "modifier" in value
    stop: Any = {"has": {"field": parameters, "regex": "^"}} if modifier and parameters else "end"
    of_kind = {} if modifier else {"kind": kind}
    return {**of_kind, "has": {key: value, "regex": says(word)}, "stopBy": stop}


def _said_place(nodes: Sequence[Node], placed: set[str], subject: set[str]) -> dict[_Mark, int]:
    """The marks of the place the request puts the code in ("in a React key"), and of a declaration its subject
    names ("view models don't ...": a class whose name says `model`), not of a call its subject is passed to
    ("Electron windows must not ...": `new BrowserWindow({...})` is what the code configures, not where it is)."""
    said = {m: d for m, d in _marks(nodes, subject).items() if whole_kind(m[0])} if subject else {}
    return {**said, **(_marks(nodes, placed) if placed else {})}


def worded_forms(tried: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example], request: str | None,
                 start: int) -> list[Candidate]:
    """Each of the best candidates that flag every invalid example, inside the nearest construct around one of its
    matches in each whose header says a word of the request: ranked just before it."""
    words, placed, subject = request_words(request), place_words(request), subject_words(request)
    if not words or len(invalid) < 2:
        return []
    out: list[Candidate] = []
    for cand, outcome in flagging(tried, len(invalid)):
        if any(outcome.hits[len(invalid):]):
            found = [_marks(nodes, words) for nodes in matched(outcome, invalid, 0)]
        else:  # it separates as it is: placed only where the request says the code sits, the examples need none
            found = [_said_place(nodes, placed, subject) for nodes in matched(outcome, invalid, 0)]
        common = set.intersection(*(set(f) for f in found))
        if not common:
            continue
        mark = min(common, key=lambda m: (max(f[m] for f in found), m))
        note = f"flags it only inside a {mark[0]} whose {mark[2]} says '{mark[3]}', as the request names it; " \
               "lets through the same code anywhere else"
        out.append(cand.kept_inside(_clause(mark), note, start + len(out), placed=False))
    return out
