"""The construct the request's words are written in, told from fine code by a word one side writes (issue 29).

"Case classes should be final", "overrides of viewWillAppear must call super", "no virtual on a function marked
override": the request names the words the code writes (`case`, `class`, `final`; `override`, `super`; `virtual`,
`override`), keywords and names alike. An author anchors the rule on the smallest construct that writes the request's
words every invalid example shares, and tells it from the valid ones by a request word that only one side writes
there: `has` it when only the invalid constructs do, `not: has` it when every valid construct with the shared words
also writes it. Read from the request's words and the examples' tokens only, not from any one grammar's shapes, so
that it holds on requests it was not tuned on. Verified on the examples like any candidate.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.author import whole_kind
from sgtools.workflows.suggest.candidates import REQUESTED, Candidate, of_kinds
from sgtools.workflows.suggest.carrier import with_twin
from sgtools.workflows.suggest.constructs import is_body, is_construct
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.mentioned import qualifiers, runs
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.valued import needed_pair

_WORD = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*|[A-Za-z_][A-Za-z0-9_]*")  # a command-line option is one word
# Prose around the words that name code: never read as code, though a grammar may write some of them (`if`, `in`).
_PROSE = frozenset({
    "a", "an", "the", "to", "of", "be", "is", "are", "was", "it", "its", "this", "that", "these", "those", "must",
    "should", "never", "always", "don", "do", "does", "doesn", "use", "using", "used", "instead", "every", "each",
    "any", "all", "only", "so", "than", "then", "when", "where", "which", "what", "who", "why", "how", "not", "no",
    "and", "or", "nor", "but", "if", "in", "on", "at", "by", "for", "from", "with", "without", "as", "into", "there",
    "here", "we", "you", "they", "our", "your", "their", "can", "may", "will", "would", "could", "also", "still",
    "just", "like", "such", "eg", "etc", "s", "t", "one", "some", "other", "more", "less", "else", "out", "up",
    "need", "needs", "needed", "have", "has", "had", "get", "gets", "make", "makes", "keep", "keeps", "call",
    "calls", "called", "code", "same", "way", "them", "him", "her", "via", "per", "over", "off",
})
_MAX_KINDS = 8  # constructs tried per request, smallest first
# How many of the request's words (a word the valid side adds counts) a rule checks before it goes over a top rule
# shaped by the examples alone (requested.request_first): on the development sets (dev to dev13, dev17 to dev19) one
# or two replaced right answers as often as wrong ones, three never did (docs/suggest-rule.md).
OVER_SHAPED = 3
_ATOMIC = ("string", "comment", "char", "regex", "heredoc")  # a word inside them is data, not the code's word


class Words:
    """The request's words that may name code (lower-cased), each in its family: the list the request writes it in
    (`.delay()` or `.apply_async()`, `SIGNAL()/SLOT()`, `override or final`), else alone; and which of them it writes
    as a qualifier (`mem` of `mem::transmute`), which code may leave out (`use std::mem::transmute`)."""

    def __init__(self, request: str) -> None:
        found = [m for m in _WORD.finditer(request) if len(m.group()) > 1 and m.group().lower() not in _PROSE]
        self.family: dict[str, str] = {}  # word -> its family's first word
        self.spelled: dict[str, set[str]] = {}  # family -> the request's spellings of its words, where it lists some
        for run in _lists(request, found):
            head = found[run[0]].group().lower()
            for i in run:
                self.family.setdefault(found[i].group().lower(), head)
            if len(run) > 1:
                self.spelled.setdefault(head, set()).update(found[i].group() for i in run)
        self.qualifiers = {self.family[w.lower()] for w in qualifiers(request) if w.lower() in self.family}

    def of(self, text: str) -> str | None:
        """The family a token writes: its word, or the plural the request says it in (`overrides`, `classes`)."""
        low = text.lower().rstrip("!?")  # Ruby's `save!`, Rust's `println!`: the name the request writes
        return next((self.family[w] for w in (low, f"{low}s", f"{low}es") if w in self.family), None)


def _lists(request: str, found: Sequence[re.Match[str]]) -> list[list[int]]:
    """The words' runs the request writes as lists: one joined by `or`, `and` or `/` somewhere (`a, b or c`); a run
    of commas alone joins clauses (`no global variables inside functions, inject dependencies`)."""
    out: list[list[int]] = []
    for run in runs(request, [m.span() for m in found], _gap):
        gaps = [_gap(request[found[a].end():found[b].start()]).strip() for a, b in itertools.pairwise(run)]
        out += [run] if any(g.strip(", ") for g in gaps) else [[i] for i in run]
    return out


def _gap(between: str) -> str:
    """Between two words of a list, the marks around code and an article are no words (`$tries or a retryUntil()`);
    a parenthesis opens an aside, no list (`--insecure (or wget`)."""
    return re.sub(r"\b(?:an?|the)\b", " ", re.sub(r"\(\)|[`$@.:\[\]]", "", between))


_Words = dict[str, list[Node]]  # family -> the tokens writing it


def _words_in(node: Node, words: Words) -> _Words:
    found: _Words = {}
    for leaf in node.walk():
        if leaf.children or any(a in leaf.kind for a in _ATOMIC):
            continue
        family = words.of(leaf.text)
        if family is not None and not any(any(p in a.kind for p in _ATOMIC) for a in leaf.ancestors()):
            found.setdefault(family, []).append(leaf)
    return found


def _construct(node: Node) -> bool:
    """A construct of its own, a literal that is code too (Go's `composite_literal`, `func_literal`)."""
    return is_construct(node) or (node.parent is not None and node.named and not node.atomic
                                  and node.kind.endswith("literal"))


def _kinds(first: Example, words: Words, invalid: Sequence[Example]) -> list[str]:
    """The constructs around the first invalid example's request words that every invalid example writes,
    smallest first."""
    leaves = [n for n in first.root.walk() if not n.children and words.of(n.text) is not None]
    around = sorted({a for n in leaves for a in n.ancestors() if _construct(a)}, key=lambda a: a.end - a.start)
    kinds = list(dict.fromkeys(a.kind for a in around))
    return [k for k in kinds if all(any(n.kind == k for n in e.root.walk()) for e in invalid)][:_MAX_KINDS]


def _target(example: Example, kind: str, words: Words) -> tuple[Node, _Words]:
    """The example's construct of `kind` that writes the most request words (the smallest of those), with them."""
    found = [(n, _words_in(n, words)) for n in example.root.walk() if n.kind == kind]
    return max(found, key=lambda nw: (len(nw[1]), -(nw[0].end - nw[0].start)))


def _in_body(token: Node, top: Node) -> bool:
    """The token is written in the construct's body (its statements), not in its own parts (a modifier, a name)."""
    return any(is_body(a) for a in token.ancestors() if a.end - a.start < top.end - top.start and top.start <= a.start)


def _has(tops: Sequence[tuple[Node, list[Node]]], extra: set[str]) -> dict[str, Any]:
    """`has` a token of the family in each construct: in its own parts where every construct writes it there (a
    keyword, a modifier; not the same word in a statement of its body), else at any depth."""
    texts = {t.text for _, tokens in tops for t in tokens} | extra
    leaf: dict[str, Any] = {"regex": f"^({'|'.join(re.escape(t) for t in sorted(texts))})$"}
    bodies = sorted({c.kind for top, _ in tops for c in top.children if is_body(c)})
    if bodies and all(any(not _in_body(t, top) for t in tokens) for top, tokens in tops):
        return {"has": {**leaf, "stopBy": of_kinds(bodies)}}
    return {"has": {**leaf, "stopBy": "end"}}


def _shared(kind: str, targets: list[tuple[Node, _Words]], words: Words) -> list[str]:
    """The request's words every invalid construct writes, but a qualifier where another word is shared (`mem` of
    `mem::transmute`: code may write it unqualified); none for a whole function or class by words of its body (the
    issue's whole-function pattern)."""
    shared = sorted(set.intersection(*(set(t) for _, t in targets)))
    named = [w for w in shared if w not in words.qualifiers] or shared
    if whole_kind(kind) and any(all(_in_body(x, top) for x in t[w]) for top, t in targets for w in named):
        return []
    return named


def _either(kind: str, targets: list[tuple[Node, _Words]], valid: Sequence[Example], words: Words,
            shared: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str, int]]:
    """When the words the invalid constructs share (`shared`, their `has`) do not tell them from the valid ones: the
    request's words each of them writes one of and no valid example writes at all (`pip install --user`, `npm
    install -g` for "no pip install --user / --break-system-packages, and no npm install -g"), as one family."""
    fine = {w for e in valid for w in _words_in(e.root, words)}
    either = sorted({w for _, t in targets for w in t} - fine)
    if len(either) < 2 or not all(set(t) & set(either) for _, t in targets):
        return []
    texts = {x.text for _, t in targets for w in either for x in t.get(w, [])}
    texts |= {x for w in either for x in words.spelled.get(w, set())}
    one_of = {"has": {"regex": f"^({'|'.join(re.escape(x) for x in sorted(texts))})$", "stopBy": "end"}}
    rule = {**of_kinds(with_twin(kind)), "all": [*shared, one_of]}
    return [(rule, f"{kind} writing one of {', '.join(either)}", 0)]


def _rules(kind: str, invalid: Sequence[Example], valid: Sequence[Example], words: Words,
           request: str) -> list[tuple[dict[str, Any], str, int]]:
    """Rules on constructs of `kind` from the words every invalid one writes, each with its label and how many
    values of the request it reads beside its words."""
    targets = [_target(e, kind, words) for e in invalid]
    shared = _shared(kind, targets, words)
    if not shared:
        return _either(kind, targets, valid, words, [])
    near = [(n, found) for e in valid for n in e.root.walk() if n.kind == kind
            if set(shared) <= set(found := _words_in(n, words))]
    has = [_has([(top, t[w]) for top, t in targets], words.spelled.get(w, set())) for w in shared]
    base = {**of_kinds(with_twin(kind)), "all": has}
    label = f"{kind} writing {', '.join(shared)}"
    if not near:
        # One word alone says no more than the examples' telling child does (author.py): the request adds where it
        # names two things the invalid code writes together.
        return [(base, label, 0)] if len(shared) > 1 else []
    written = {w for _, t in targets for w in t}
    lacked = sorted(set.intersection(*(set(f) for _, f in near)) - written)
    if not lacked:
        return _either(kind, targets, valid, words, has)
    return [({**base, "not": lacks}, f"{label}, without {w}{' as the request sets it' if valued else ''}", valued)
            for w in lacked
            for lacks, valued in _lacks([(n, f[w]) for n, f in near], words.spelled.get(w, set()), request)]


def _lacks(near: list[tuple[Node, list[Node]]], spelled: set[str],
           request: str) -> list[tuple[dict[str, Any], int]]:
    """What the valid constructs write that the invalid ones lack, each with how many values of the request it reads:
    the word set to the value the request writes it with (`frozen=True`: `frozen=False` lacks it too; valued.py),
    then the word however set."""
    texts = {t.text for _, tokens in near for t in tokens}
    pair = needed_pair(request, texts.pop()) if len(texts) == 1 else None
    valued = [({"has": {"regex": pair, "stopBy": "end"}}, 1)] if pair else []
    return [*valued, (_has(near, spelled), 0)]


def contrast_forms(request: str | None, invalid: Sequence[Example], valid: Sequence[Example],
                   start: int) -> list[Candidate]:
    """The construct writing the request's words every invalid example shares, with or without the word that
    tells the sides apart; to be verified on the examples."""
    if not request or not invalid:
        return []
    words = Words(request)
    out: list[Candidate] = []
    for kind in _kinds(invalid[0], words, invalid):
        for rule, label, values in _rules(kind, invalid, valid, words, request):
            note = (f"flags every {kind} that writes the request's words the invalid examples share; lets through "
                    "one that says them another way")
            node = next(n for n in invalid[0].root.walk() if n.kind == kind)
            out.append(Candidate({"rule": rule}, Generalised.written(node, label), REQUESTED, start + len(out),
                                 note, contrast=len(rule["all"]) + ("not" in rule) + values))
    return out
